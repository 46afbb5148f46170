#!/usr/bin/python3
"""Writes the ONNX models of the ONNX import tests into OUT_DIR, with Debian's python3-onnx (1.12).

    /usr/bin/python3 tests/data/make_onnx_models.py OUT_DIR

The build runs it (tests/CMakeLists.txt); the models are not checked in (resnet18.onnx holds its
44 MB of weights, as an exported model does). Every valid model passes onnx.checker with full
shape inference; the broken ones are broken on purpose, one problem each.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class Builder:
    """A graph under construction: nodes, initializers (zeros: only shapes matter), inputs, outputs."""

    def __init__(self):
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, name, shape, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.zeros(shape, dtype=dtype), name))
        return name

    def const(self, name, values):
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=np.int64), name))
        return name

    def input(self, name, dims):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, dims))
        return name

    def output(self, value, dims=None):
        self.outputs.append(helper.make_tensor_value_info(value, TensorProto.FLOAT, dims))

    def node(self, op, inputs, name=None, outputs=1, domain=None, **attrs):
        name = name or self.name(op.lower())
        outs = [name if outputs == 1 else f"{name}:{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, domain=domain, **attrs))
        return outs[0] if outputs == 1 else outs

    def conv(self, x, cin, cout, k, stride=1, pad=None, group=1, name=None, bias=False, **attrs):
        name = name or self.name("conv")
        kh, kw = (k, k) if isinstance(k, int) else k
        w = self.weight(name + ".weight", [cout, cin // group, kh, kw])
        inputs = [x, w] + ([self.weight(name + ".bias", [cout])] if bias else [])
        if pad is not None:
            attrs["pads"] = [pad] * 4 if isinstance(pad, int) else pad
        return self.node("Conv", inputs, name=name, kernel_shape=[kh, kw], strides=attrs.pop("strides", [stride, stride]),
                         group=group, **attrs)

    def bn(self, x, c, name):
        params = [self.weight(f"{name}.{p}", [c]) for p in ("weight", "bias", "running_mean", "running_var")]
        return self.node("BatchNormalization", [x] + params, name=name, epsilon=1e-5)

    def model(self, name, opset=OPSET, extra_opsets=()):
        graph = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
        m = helper.make_model(graph, opset_imports=opsets, producer_name="tensortune tests")
        m.ir_version = 8
        # The outputs' shapes, as exporters write them (symbolic where the batch is), unless given.
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.output}
        for out in m.graph.output:
            if not out.type.tensor_type.HasField("shape") and inferred[out.name].type.tensor_type.HasField("shape"):
                out.CopyFrom(inferred[out.name])
        return m


def save(model, out, name, check=True, **kwargs):
    if check:  # before saving: ONNX's own inference cannot read shapes kept in external data
        onnx.checker.check_model(model, full_check=True)
    path = os.path.join(out, name)
    if "location" in kwargs and os.path.exists(os.path.join(out, kwargs["location"])):
        os.remove(os.path.join(out, kwargs["location"]))  # onnx appends to a data file that is there
    onnx.save_model(model, path, **kwargs)
    return path


def resnet18():
    """torchvision's ResNet-18 as PyTorch exports it (batch dynamic, flatten through Shape/Gather/Reshape)."""
    b = Builder()
    x = b.input("input", ["batch", 3, 224, 224])
    x = b.node("Relu", [b.bn(b.conv(x, 3, 64, 7, 2, 3, name="conv1"), 64, "bn1")], name="relu")
    x = b.node("MaxPool", [x], name="maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for layer, cout in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            p = f"layer{layer}.{block}"
            stride = 2 if block == 0 and layer > 1 else 1
            y = b.node("Relu", [b.bn(b.conv(x, cin, cout, 3, stride, 1, name=p + ".conv1"), cout, p + ".bn1")],
                       name=p + ".relu1")
            y = b.bn(b.conv(y, cout, cout, 3, 1, 1, name=p + ".conv2"), cout, p + ".bn2")
            if stride != 1 or cin != cout:
                x = b.bn(b.conv(x, cin, cout, 1, stride, 0, name=p + ".downsample.0"), cout, p + ".downsample.1")
            x = b.node("Relu", [b.node("Add", [y, x], name=p + ".add")], name=p + ".relu2")
            cin = cout
    x = b.node("GlobalAveragePool", [x], name="avgpool")
    batch = b.node("Gather", [b.node("Shape", [x], name="shape"), b.const("zero", 0)], name="gather", axis=0)
    shape = b.node("Concat", [b.node("Unsqueeze", [batch, b.const("axes0", [0])], name="unsqueeze"),
                              b.const("minus_one", [-1])], name="concat", axis=0)
    x = b.node("Reshape", [x, shape], name="flatten")
    x = b.node("Gemm", [x, b.weight("fc.weight", [1000, 512]), b.weight("fc.bias", [1000])], name="fc", transB=1)
    b.output(x, ["batch", 1000])
    return b.model("resnet18")


def mobilenet_v1_head():
    """The stem and first two depthwise-separable blocks of MobileNet-v1 (ReLU6 as Clip)."""
    b = Builder()
    six = [b.weight("zero_f", [], np.float32), b.weight("six_f", [], np.float32)]
    x = b.input("images", ["N", 3, 224, 224])
    x = b.node("Clip", [b.bn(b.conv(x, 3, 32, 3, 2, 1, name="conv1"), 32, "bn1")] + six)
    cin = 32
    for i, (cout, stride) in enumerate([(64, 1), (128, 2)], start=1):
        x = b.node("Clip", [b.bn(b.conv(x, cin, cin, 3, stride, 1, group=cin, name=f"dw{i}"), cin, f"dw{i}.bn")] + six)
        x = b.node("Clip", [b.bn(b.conv(x, cin, cout, 1, 1, 0, name=f"pw{i}"), cout, f"pw{i}.bn")] + six)
        cin = cout
    b.output(x)
    return b.model("mobilenet_v1_head")


def bert_layer():
    """One BERT-base encoder layer, sequence 128, as PyTorch exports it (opset 17: LayerNormalization)."""
    b = Builder()
    x = b.input("hidden", ["batch", 128, 768])

    def dense(v, n_in, n_out, name):
        return b.node("Add", [b.node("MatMul", [v, b.weight(name + ".weight", [n_in, n_out])], name=name),
                              b.weight(name + ".bias", [n_out])], name=name + ".add")

    heads = b.const("heads_shape", [0, 0, 12, 64])
    q, k, v = (b.node("Transpose", [b.node("Reshape", [dense(x, 768, 768, n), heads], name=n + ".view")],
                      name=n + ".permute", perm=[0, 2, 1, 3]) for n in ("query", "key", "value"))
    kt = b.node("Transpose", [k], name="key.transpose", perm=[0, 1, 3, 2])
    scores = b.node("Div", [b.node("MatMul", [q, kt], name="scores"), b.weight("sqrt_d", [], np.float32)])
    probs = b.node("Softmax", [scores], name="softmax", axis=-1)
    ctx = b.node("Transpose", [b.node("MatMul", [probs, v], name="context")], name="context.permute", perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, b.const("merge_shape", [0, 0, 768])], name="context.view")
    ln = lambda v, name: b.node("LayerNormalization", [v, b.weight(name + ".weight", [768]), b.weight(name + ".bias", [768])],
                               name=name, axis=-1, epsilon=1e-12)
    h = ln(b.node("Add", [dense(ctx, 768, 768, "attention.output"), x]), "attention.norm")
    inter = dense(h, 768, 3072, "intermediate")
    gelu = b.node("Mul", [b.node("Mul", [inter, b.node("Add", [b.node("Erf", [b.node("Div", [inter, b.weight("sqrt2", [], np.float32)])]),
                                                                 b.weight("one", [], np.float32)])]),
                          b.weight("half", [], np.float32)], name="gelu")
    b.output(ln(b.node("Add", [dense(gelu, 3072, 768, "output"), h]), "output.norm"))
    return b.model("bert_layer", opset=17)


def matmul_variants():
    """Gemm's transposes on weights and on activations, a matrix-vector MatMul."""
    b = Builder()
    p = b.input("p", [64, 32])
    q = b.input("q", [48, 32])
    kt = b.input("kt", [32, 64])
    vec = b.input("vec", [32])
    b.output(b.node("Gemm", [p, b.weight("w", [48, 32])], name="weight_transposed", transB=1))
    b.output(b.node("Gemm", [p, q], name="activation_transposed", transB=1))
    b.output(b.node("Gemm", [kt, b.weight("w2", [32, 16])], name="a_transposed", transA=1))
    b.output(b.node("MatMul", [vec, b.weight("w3", [32, 10])], name="vector"))
    return b.model("matmul_variants")


def tiny_mlp():
    """Three small dense layers, two of them alike: quick to tune on a CPU."""
    b = Builder()
    x = b.input("x", ["batch", 32])
    x = b.node("Relu", [b.node("MatMul", [x, b.weight("fc1.weight", [32, 32])], name="fc1")])
    x = b.node("Relu", [b.node("MatMul", [x, b.weight("fc2.weight", [32, 32])], name="fc2")])
    b.output(b.node("Gemm", [x, b.weight("head.weight", [16, 32])], name="head", transB=1))
    return b.model("tiny_mlp")


def not_tuned():
    """Branches from one input, each a node that no sketch computes as it is (and two that map)."""
    b = Builder()
    x = b.input("x", ["batch", 64, 32, 32])
    vol = b.input("volume", ["batch", 4, 8, 16, 16])
    b.output(b.conv(x, 64, 64, 3, 1, 1, name="plain"))
    b.output(b.conv(x, 64, 64, 3, 1, 1, group=4, name="grouped"))
    b.output(b.conv(x, 64, 128, 3, 1, 1, group=64, name="multiplier2"))
    b.output(b.conv(x, 64, 32, 3, 2, None, name="same_upper", auto_pad="SAME_UPPER"))
    b.output(b.conv(x, 64, 32, 3, 2, [1, 1, 0, 0], name="unreached_pad"))  # the same windows as pad 1
    b.output(b.conv(x, 64, 32, 3, 1, 1, name="strides_2x1", strides=[2, 1]))
    b.output(b.conv(x, 64, 32, 3, 1, 2, name="dilated", dilations=[2, 2]))
    w3 = b.weight("conv3d.weight", [8, 4, 3, 3, 3])
    b.output(b.node("Conv", [vol, w3], name="conv3d", kernel_shape=[3, 3, 3], pads=[1] * 6))
    b.output(b.node("ConvTranspose", [x, b.weight("up.weight", [64, 32, 2, 2])], name="up", strides=[2, 2],
                    kernel_shape=[2, 2]))
    b.output(b.node("MaxPool", [x], name="pool", kernel_shape=[2, 2], strides=[2, 2]))
    b.output(b.node("Relu", [b.bn(x, 64, "bn")], name="relu"))
    mystery = b.node("Mystery", [x], name="mystery", domain="com.example")
    b.output(b.conv(mystery, 64, 64, 1, 1, 0, name="after_mystery"))
    return b.model("not_tuned", extra_opsets=[("com.example", 1)])


def small_conv(batch=2, opset=OPSET, dims=None, pool=False):
    """A convolution and a dense layer; with `pool`, a global pooling between them (any image size)."""
    b = Builder()
    x = b.input("x", dims or [batch, 3, 32, 32])
    x = b.node("Relu", [b.conv(x, 3, 8, 3, 1, 1, name="conv")])
    if pool:
        x = b.node("GlobalAveragePool", [x], name="pool")
    x = b.node("Reshape", [x, b.const("flat", [0, -1])], name="flatten")
    fc = b.weight("fc.weight", [10, 8 if pool else 8 * 32 * 32])
    b.output(b.node("Gemm", [x, fc], name="fc", transB=1), [(dims or [batch])[0], 10])
    return b.model("small_conv", opset=opset)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    save(resnet18(), out, "resnet18.onnx")
    save(mobilenet_v1_head(), out, "mobilenet_v1_head.onnx")
    save(bert_layer(), out, "bert_layer.onnx")
    save(matmul_variants(), out, "matmul_variants.onnx")
    save(tiny_mlp(), out, "tiny_mlp.onnx")
    save(not_tuned(), out, "not_tuned.onnx", check=False)  # com.example.Mystery is nobody's operator
    save(small_conv(), out, "fixed_batch.onnx")
    save(small_conv(dims=["N", 3, "height", "width"], pool=True), out, "dynamic_hw.onnx")
    # Every tensor in external_data.onnx.data, the Reshape's target shape too.
    save(small_conv(dims=["N", 3, 32, 32]), out, "external_data.onnx", save_as_external_data=True,
         all_tensors_to_one_file=True, location="external_data.onnx.data", size_threshold=0)
    # Broken on purpose.
    save(small_conv(opset=18), out, "opset18.onnx", check=False)
    bad = small_conv()
    bad.graph.initializer[0].dims[1] = 5  # conv.weight 8x5x3x3 against 3 input channels
    save(bad, out, "bad_channels.onnx", check=False)
    cut = small_conv()  # as a file cut right after its graph: the opset imports come last
    cut.ClearField("opset_import")
    save(cut, out, "no_opset.onnx", check=False)
    dangling = small_conv()
    dangling.graph.node[1].input[0] = "nowhere"
    save(dangling, out, "dangling_input.onnx", check=False)
    zero_strides = small_conv()  # libonnx's Conv shape inference divides by the stride
    next(a for a in zero_strides.graph.node[0].attribute if a.name == "strides").ints[:] = [0, 0]
    save(zero_strides, out, "zero_strides.onnx", check=False)
    zero_dilations = small_conv()
    zero_dilations.graph.node[0].attribute.append(helper.make_attribute("dilations", [0, 0]))
    save(zero_dilations, out, "zero_dilations.onnx", check=False)


if __name__ == "__main__":
    main()
