"""run_network(network, ...) and run_operator(op, shape, arrays, ...): tuned kernels run on numpy
arrays through tensortune's runtime (its network runner, as `tensortune run-network`): each
layer's kernel chosen from a history database or a kernel pack, checked against the CPU
reference on the inputs it read, and timed."""
import os

import numpy

from tensortune import _engine
from tensortune.operators import _shape_text


class NetworkResult(dict):
    """A dict: ``outputs`` (layer name -> array), ``times_s`` (layer name -> median device time),
    ``latency_s`` (median wall clock of the whole network), ``layers`` (per layer its sketch,
    config, origin, check, ...), ``device`` and ``runs``."""


def run_network(network, inputs=None, db=None, pack=None, device=0, batch=1, min_runs=3, min_time=0.1, seed=1,
                exact_only=False, binary_cache=None):
    """Runs a network (a built-in name, a JSON file or an ONNX model) with the kernels tuned for it
    in ``db`` (a history database) or ``pack`` (a kernel pack). ``inputs`` maps a layer's name to
    its input arrays in kernel order (NCHW / OIHW / rows x columns), None for one the layer should
    take from the previous layer's output or fill with random values. Raises ValueError for bad
    input or when a layer's output differs from the CPU reference."""
    options = {"network": os.fspath(network), "batch": int(batch)}
    return _run(options, inputs, db, pack, device, min_runs, min_time, seed, exact_only, binary_cache)


def run_operator(op, shape, arrays, db=None, pack=None, device=0, flags=None, min_runs=3, min_time=0.1,
                 exact_only=False, binary_cache=None):
    """Runs one workload of a built-in operator on ``arrays`` (its inputs in kernel order: A and
    B for a gemm of shape (m, n, k)) with its best recorded kernel; returns (output array,
    median device time in seconds, the layer's dict)."""
    options = {"op": op, "shape": _shape_text(shape), "flags": list(flags or [])}
    result = _run(options, {op: list(arrays)}, db, pack, device, min_runs, min_time, 1, exact_only, binary_cache)
    layer = result["layers"][0]
    return layer["output"], layer["time_s"], layer


def _run(options, inputs, db, pack, device, min_runs, min_time, seed, exact_only, binary_cache):
    options.update({"db": os.fspath(db) if db is not None else "", "pack": os.fspath(pack) if pack is not None else "",
                    "device": str(device), "min_runs": int(min_runs), "min_time": float(min_time), "seed": int(seed),
                    "exact_only": bool(exact_only), "binary_cache": os.fspath(binary_cache or "")})
    arrays = {name: [None if a is None else numpy.ascontiguousarray(a, dtype=numpy.float32) for a in (
        values if isinstance(values, (list, tuple)) else [values])] for name, values in (inputs or {}).items()}
    run = _engine._tensortune.run_network(options, arrays)
    if not run["verified"]:
        wrong = [f"{l['name']}: {l['check']}" for l in run["layers"] if l["check"].startswith("WRONG")]
        raise ValueError("a layer's output differs from the CPU reference: " + "; ".join(wrong))
    result = NetworkResult(run)
    result["outputs"] = {l["name"]: l["output"] for l in run["layers"]}
    result["times_s"] = {l["name"]: l["time_s"] for l in run["layers"]}
    return result
