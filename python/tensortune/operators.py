"""tune(op, shape, ...): a built-in tensor operator, as `tensortune tune` does it."""
import json
import os

from tensortune import _engine


def tune(op, shape, template=None, tuner="bo", trials=64, db="history.db", device=0, seed=1, batch_size=8,
         timeout=10.0, min_time=0.1, time_limit=0, builders=None, tuner_options=None):
    """Tunes one workload of a built-in operator (``tensortune templates`` lists them), every
    trial recorded in ``db``; returns the run's summary (``tensortune tune --json``): its
    trials, statuses, best config and the best in the history."""
    if isinstance(shape, (list, tuple)):
        shape = ",".join(str(s) for s in shape)
    elif isinstance(shape, dict):
        shape = ",".join(f"{k}={v}" for k, v in shape.items())
    options = {"op": op, "shape": str(shape), "template": template or "", "tuner": tuner, "trials": int(trials),
               "db": os.fspath(db), "device": str(device), "seed": int(seed), "batch_size": int(batch_size),
               "timeout": float(timeout), "min_time": float(min_time), "time_limit": float(time_limit),
               "tuner_options": {k: str(v) for k, v in (tuner_options or {}).items()}}
    if builders is not None:
        options["builders"] = int(builders)
    os.environ.setdefault("TENSORTUNE_WORKER", _engine.worker_path())
    summary = json.loads(_engine._tensortune.tune_operator(options))
    if summary.get("interrupted"):
        raise KeyboardInterrupt(f"tuning interrupted: {summary['trials']} trials of this run are kept in {db}")
    return summary
