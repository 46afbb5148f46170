"""Kernel Tuner's file helpers, as its examples use them."""
import json
import os

__all__ = ["read_file", "write_file", "get_temp_filename", "delete_temp_file", "read_cache", "store_output_file",
           "store_metadata_file"]

# The version of the T4 auto-tuning schemas (results and metadata) these files follow.
T4_SCHEMA_VERSION = "1.0.0"
# Result keys that are timings of the tuner rather than measurements of the config.
_TIMING_KEYS = {"compile_time": "compilation", "benchmark_time": "benchmark", "framework_time": "framework",
                "strategy_time": "search_algorithm", "verification_time": "validation"}


def read_file(filename):
    """The text of a file, or None when it does not exist."""
    if not os.path.isfile(filename):
        return None
    with open(filename, "r") as f:
        return f.read()


def write_file(filename, string):
    """Writes `string` to `filename` (replacing it)."""
    with open(filename, "w") as f:
        f.write(string)


def get_temp_filename(suffix=None):
    """A fresh temporary file name (the file is not kept open)."""
    import tempfile
    fd, name = tempfile.mkstemp(suffix=suffix or "")
    os.close(fd)
    return name


def delete_temp_file(filename):
    """Removes a file, if it is there."""
    try:
        os.remove(filename)
    except FileNotFoundError:
        pass


def read_cache(filename):
    """A Kernel Tuner cache file as a dict (an open one, as written while tuning, too)."""
    text = read_file(filename)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(text.rstrip().rstrip(",") + "}\n}")


def _json_name(name):
    name = os.fspath(name)
    if not name.endswith(".json"):
        name += ".json"
    folder = os.path.dirname(name)
    if folder:
        os.makedirs(folder, exist_ok=True)
    return name


def _plain(o):
    """numpy scalars as Python numbers (json cannot write them)."""
    return o.item() if hasattr(o, "item") else str(o)


def store_output_file(output_filename, results, tune_params, objective="time"):
    """Writes the results of tune_kernel as a T4 results file (Kernel Tuner's format): per config
    its parameters, the timings of the tuner, every measured value, `.json` added to the name."""
    if isinstance(objective, (list, tuple)):
        raise ValueError("a T4 results file has one objective")
    rows = []
    for r in results:
        row = {"configuration": {k: v for k, v in r.items() if k in tune_params},
               "times": {t4: r.get(key, 0) for key, t4 in _TIMING_KEYS.items()},
               "invalidity": "correct", "correctness": 1, "objectives": [objective]}
        row["times"]["runtimes"] = list(r.get("times", []))
        if "timestamp" in r:
            row["timestamp"] = r["timestamp"]
        skip = set(tune_params) | set(_TIMING_KEYS) | {"timestamp", "times"}
        row["measurements"] = [{"name": k, "value": v, "unit": "ms" if k.startswith("time") else ""}
                               for k, v in r.items() if k not in skip]
        rows.append(row)
    doc = {"results": rows, "schema_version": T4_SCHEMA_VERSION, "metadata": {"timeunit": "milliseconds"}}
    with open(_json_name(output_filename), "w") as f:
        json.dump(doc, f, default=_plain)


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def store_metadata_file(metadata_filename):
    """Writes a T4 metadata file (Kernel Tuner's format): the operating system, the processor,
    Python and the versions of the packages that took part; `.json` added to the name. The
    OpenCL device of a run is in the `env` that tune_kernel returns."""
    import platform
    import sys
    packages = [f"{name}=={sys.modules[name].__version__}" for name in ("tensortune", "numpy")
                if hasattr(sys.modules.get(name), "__version__")]
    metadata = {"operating_system": platform.system() or "unidentified OS",
                "hardware": {"hardware_description": [{"machine": platform.machine(), "processor": _cpu_model(),
                                                       "cores": os.cpu_count()}]},
                "environment": {"device_query": {}, "requirements": packages, "python": platform.python_version()}}
    with open(_json_name(metadata_filename), "w") as f:
        json.dump({"metadata": metadata, "schema_version": T4_SCHEMA_VERSION}, f, indent="  ", default=_plain)
