#!/usr/bin/env python3
"""cuBLAS SGEMM and cuDNN convolution times through PyTorch, float32 with TF32 off, for
bench/gpu_check.sh: the anchors tensortune's GPU kernels are compared with.

Each operation: warm-up launches, then CUDA-event timing of repeated launches until at least
MIN_TIME seconds; the median of five such rounds. cuDNN picks its fastest algorithm per shape
(torch.backends.cudnn.benchmark)."""
import argparse
import json
import re
import statistics

import torch

MIN_TIME = 0.05


def time_op(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        repeats, elapsed = 1, 0.0
        while True:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(repeats):
                fn()
            end.record()
            end.synchronize()
            elapsed = start.elapsed_time(end) / 1000.0
            if elapsed >= MIN_TIME or repeats >= 4096:
                break
            repeats *= 2
        rounds.append(elapsed / repeats)
    return statistics.median(rounds)


def gemm_time(m, n, k):
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    return time_op(lambda: torch.mm(a, b))


def conv_time(shape):
    s = {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", shape)}
    x = torch.randn(s["n"], s["ci"], s["h"], s["w"], device="cuda")
    w = torch.randn(s["co"], s["ci"], s["kh"], s["kw"], device="cuda")
    return time_op(lambda: torch.nn.functional.conv2d(x, w, stride=s["stride"], padding=s["pad"],
                                                      dilation=s.get("dilation", 1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gemm", nargs="*", default=[], help="M,N,K shapes")
    parser.add_argument("--tasks", help="`tensortune tasks NETWORK --json` output")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cudnn": torch.backends.cudnn.version(), "gemm": {}, "conv2d": {}}
    for shape in args.gemm:
        m, n, k = (int(v) for v in shape.split(","))
        result["gemm"][f"gemm:m={m},n={n},k={k}"] = gemm_time(m, n, k)
    if args.tasks:
        with open(args.tasks) as f:
            for task in json.load(f):
                key = task["workload"]
                if task["op"] == "conv2d":
                    result["conv2d"][key] = conv_time(key)
                elif task["op"] == "gemm":
                    s = dict(re.findall(r"(\w+)=(\d+)", key))
                    result["gemm"][key] = gemm_time(int(s["m"]), int(s["n"]), int(s["k"]))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
