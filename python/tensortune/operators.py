"""tune(op, shape, ...), tune_network(network, ...) and best(op, shape, ...): the built-in tensor
operators and networks, as `tensortune tune`, `tune-network` and `best` do it."""
import json
import os

from tensortune import _engine


def tune(op, shape, template=None, tuner="bo", trials=64, db="history.db", device=0, seed=1, batch_size=8,
         timeout=10.0, min_time=0.1, time_limit=0, builders=None, tuner_options=None, no_winograd=False):
    """Tunes one workload of a built-in operator (``tensortune templates`` lists them), every
    trial recorded in ``db``; returns the run's summary (``tensortune tune --json``): its
    trials, statuses, best config and the best in the history. ``no_winograd=True`` is
    ``--no-winograd``: a Winograd sketch named by ``template`` is refused (ValueError), as their
    rounding error differs from the direct sketches' (docs/templates.md, "Numerics")."""
    options = {"op": op, "shape": _shape_text(shape), "template": template or "", "tuner": tuner, "trials": int(trials),
               "db": os.fspath(db), "device": str(device), "seed": int(seed), "batch_size": int(batch_size),
               "timeout": float(timeout), "min_time": float(min_time), "time_limit": float(time_limit),
               "tuner_options": {k: str(v) for k, v in (tuner_options or {}).items()}, "no_winograd": bool(no_winograd)}
    if builders is not None:
        options["builders"] = int(builders)
    os.environ.setdefault("TENSORTUNE_WORKER", _engine.worker_path())
    summary = json.loads(_engine._tensortune.tune_operator(options))
    if summary.get("interrupted"):
        raise KeyboardInterrupt(f"tuning interrupted: {summary['trials']} trials of this run are kept in {db}")
    return summary


def _shape_text(shape):
    if isinstance(shape, (list, tuple)):
        return ",".join(str(s) for s in shape)
    if isinstance(shape, dict):
        return ",".join(f"{k}={v}" for k, v in shape.items())
    return str(shape)


def tune_network(network, trials, db="history.db", device=0, batch=None, input_shapes=None, tuner="bo",
                 scheduler="ucb", seed=1, batch_size=8, timeout=10.0, min_time=0.1, time_limit=0, builders=None,
                 tuner_options=None, no_winograd=False):
    """Tunes every layer of a network (a built-in name, a JSON file or an ONNX model) under one
    trial budget, as ``tensortune tune-network``; the same call again continues the run.
    ``no_winograd=True`` is ``--no-winograd``: the Winograd sketches are left out of every
    layer (their rounding error: docs/templates.md, "Numerics").
    Returns the run's summary (``--json``) as a dict."""
    options = {"network": os.fspath(network), "trials": int(trials), "db": os.fspath(db), "device": str(device),
               "batch": batch, "input_shapes": [f"{k}={v}" for k, v in (input_shapes or {}).items()],
               "tuner": tuner, "scheduler": scheduler, "seed": int(seed), "batch_size": int(batch_size),
               "timeout": float(timeout), "min_time": float(min_time), "time_limit": float(time_limit),
               "tuner_options": {k: str(v) for k, v in (tuner_options or {}).items()}, "no_winograd": bool(no_winograd)}
    if builders is not None:
        options["builders"] = int(builders)
    os.environ.setdefault("TENSORTUNE_WORKER", _engine.worker_path())
    summary = json.loads(_engine._tensortune.tune_network(options))
    if summary.get("interrupted"):
        raise KeyboardInterrupt(f"tuning interrupted: the finished trials are kept in {db}")
    return summary


def best(op, shape, db="history.db", device=None, template=None):
    """The best recorded config for a workload, as ``tensortune best`` (from this workload or,
    adapted, from the most similar recorded one); None when the history has nothing usable."""
    text, _why = _engine._tensortune.best({"op": op, "shape": _shape_text(shape), "db": os.fspath(db),
                                           "device": device or "", "template": template or ""})
    return None if text is None else json.loads(text)
