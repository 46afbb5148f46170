"""tune_kernel: Kernel Tuner's call for your own OpenCL kernels, on tensortune's engine and history."""
import itertools
import json
import os
import sys
import tempfile
import time
import warnings

import numpy

from tensortune import _engine

# Kernel Tuner's strategies and the tensortune tuner each becomes; any other name runs the
# default tuner (with a warning). Kernel Tuner's default (brute force) is not ours: None runs
# tensortune's default tuner, with as many trials as there are valid configurations unless
# strategy_options["max_fevals"] says otherwise.
DEFAULT_TUNER = "bo"
STRATEGIES = {
    "brute_force": "grid",
    "random_sample": "random",
    "genetic_algorithm": "ga",
    "bayes_opt": "bo",
    "simulated_annealing": "xgb",  # AutoTVM's cost model explored by simulated annealing
    "greedy_ils": "gbfs",  # a local search over neighbours
    "greedy_mls": "gbfs",
    "basinhopping": "gbfs",
    "mls": "gbfs",
    "ordered_greedy_mls": "gbfs",
    "diff_evo": "opevo",  # evolutionary
    "pso": "opevo",
    "firefly_algorithm": "opevo",
}

# tensortune's tuners (`tensortune tuners`), which `strategy` may also name.
TENSORTUNE_TUNERS = ("auto", "random", "grid", "opevo", "ga", "xgb", "gbfs", "gga", "xgb-tl", "bo")

_TYPES = {
    numpy.dtype("int8"): "int8", numpy.dtype("uint8"): "uint8", numpy.dtype("int16"): "int16",
    numpy.dtype("uint16"): "uint16", numpy.dtype("int32"): "int32", numpy.dtype("uint32"): "uint32",
    numpy.dtype("int64"): "int64", numpy.dtype("uint64"): "uint64", numpy.dtype("float32"): "float32",
    numpy.dtype("float64"): "float64",
}
_FAILURES = {"invalid": "InvalidConfig", "compile_error": "CompilationFailedConfig"}


def _type_name(dtype, what):
    dtype = numpy.dtype(dtype)
    if dtype not in _TYPES:
        raise TypeError(f"{what}: numpy type {dtype} is not supported (int8..uint64, float32, float64)")
    return _TYPES[dtype]


def _argument(i, arg, folder):
    """One argument as the spec gives it; arrays written to `folder` as raw files."""
    if isinstance(arg, numpy.ndarray):
        name = os.path.join(folder, f"arg{i}.bin")
        numpy.ascontiguousarray(arg).tofile(name)
        return {"type": _type_name(arg.dtype, f"argument {i}"), "size": int(arg.size), "data": name}
    if isinstance(arg, numpy.generic):
        return {"type": _type_name(arg.dtype, f"argument {i}"), "value": arg.item()}
    if isinstance(arg, bool):
        raise TypeError(f"argument {i}: a bool is not a kernel argument")
    if isinstance(arg, int):
        return {"type": "int32", "value": arg}
    if isinstance(arg, float):
        return {"type": "float32", "value": arg}
    raise TypeError(f"argument {i}: expected a numpy array or a numpy scalar, got {type(arg).__name__}")


def _answer(answer, arguments, folder):
    if answer is None:
        return None
    if len(answer) != len(arguments):
        raise ValueError(f"answer has {len(answer)} entries for {len(arguments)} arguments")
    out = []
    for i, (a, arg) in enumerate(zip(answer, arguments)):
        if a is None:
            out.append(None)
            continue
        if not isinstance(arg, numpy.ndarray):
            raise TypeError(f"answer {i}: argument {i} is not an array")
        a = numpy.asarray(a)
        if a.size != arg.size:
            raise ValueError(f"answer {i} has {a.size} elements, argument {i} {arg.size}")
        name = os.path.join(folder, f"answer{i}.bin")
        numpy.ascontiguousarray(a.astype(arg.dtype, copy=False)).tofile(name)
        out.append(name)
    return out


def _source(kernel_source):
    if isinstance(kernel_source, (list, tuple)):
        kernel_source = kernel_source[0]
    if callable(kernel_source):
        raise TypeError("a kernel source generator function is not supported: pass the source or its file")
    text = str(kernel_source)
    if "\n" not in text and len(text) < 4096 and os.path.isfile(text):
        with open(text) as f:
            return f.read()
    return text


def _split_restrictions(restrictions):
    if restrictions is None:
        return [], []
    if isinstance(restrictions, str) or callable(restrictions):
        restrictions = [restrictions]
    strings = [r for r in restrictions if isinstance(r, str)]
    calls = [r for r in restrictions if callable(r)]
    if len(strings) + len(calls) != len(restrictions):
        raise TypeError("restrictions: expected strings or functions of the parameters")
    return strings, calls


def _valid_by_functions(tune_params, calls):
    """The configs every callable restriction allows, as value indices (Kernel Tuner passes a dict)."""
    names = list(tune_params)
    valid = []
    for indices in itertools.product(*[range(len(tune_params[n])) for n in names]):
        params = {n: tune_params[n][i] for n, i in zip(names, indices)}
        if all(c(params) for c in calls):
            valid.append(list(indices))
    if not valid:
        raise ValueError("the restriction functions allow no configuration")
    return valid


def _divisors(div, what):
    if div is None:
        return None
    if isinstance(div, str):
        return [div]
    if callable(div):
        raise TypeError(f"{what}: a function is not supported; pass names or expressions")
    return [str(d) for d in div]


def _device_spec(device, platform):
    if isinstance(device, str):
        return device
    if platform not in (0, None):
        raise ValueError("platform > 0: pass device as a name fragment (see `tensortune devices`)")
    return str(int(device))


def _cache_key(params, names):
    return ",".join(str(params[n]) for n in names)


def _write_cache(cache, kernel_name, problem_size, tune_params, device_name, trials):
    """Kernel Tuner's cache file: every recorded config of this kernel, so its tools read it."""
    if not cache.endswith(".json"):
        cache += ".json"
    names = list(tune_params)
    entries = {}
    # Entries of an earlier cache of this kernel (Kernel Tuner's own, say) that the history does
    # not hold are kept; the history's records replace the others.
    try:
        with open(cache) as f:
            old = json.load(f)
        if old.get("kernel_name") == kernel_name and old.get("tune_params_keys") == names:
            entries.update(old.get("cache", {}))
    except (OSError, ValueError, AttributeError):
        pass
    for t in trials:
        params = {n: tune_params[n][i] for n, i in zip(names, t["indices"])}
        entry = dict(params)
        if t["status"] == "ok":
            entry["time"] = t["mean_ms"]
            entry["times"] = [s * 1e3 for s in t["times_s"]]
        else:
            entry["time"] = _FAILURES.get(t["status"], "RuntimeFailedConfig")
        entry["compile_time"] = t["compile_s"] * 1e3
        entries[_cache_key(params, names)] = entry
    doc = {"device_name": device_name, "kernel_name": kernel_name,
           "problem_size": list(problem_size) if isinstance(problem_size, (list, tuple)) else problem_size,
           "tune_params_keys": names, "tune_params": {n: list(v) for n, v in tune_params.items()},
           "objective": "time", "cache": entries}
    with open(cache, "w") as f:
        json.dump(doc, f, default=lambda o: o.item() if isinstance(o, numpy.generic) else str(o))
    return cache


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params, grid_div_x=None,
                grid_div_y=None, grid_div_z=None, restrictions=None, answer=None, atol=1e-6, verify=None,
                verbose=False, lang=None, device=0, platform=0, smem_args=None, cmem_args=None,
                texmem_args=None, compiler=None, compiler_options=None, defines=None, log=None,
                iterations=7, block_size_names=None, quiet=False, strategy=None, strategy_options=None,
                cache=None, metrics=None, simulation_mode=False, observers=None, objective=None,
                objective_higher_is_better=None, db="history.db", timeout=10.0, builders=None, seed=1,
                batch_size=8):
    """Tunes an OpenCL kernel as Kernel Tuner's ``tune_kernel`` does, on tensortune's engine.

    Kernel Tuner's arguments keep their meaning: the source (text or a file name), the problem
    size (1 to 3 integers), the arguments (numpy arrays and numpy scalars, in the kernel's
    order), ``tune_params`` (each passed to the compiler as -D NAME=VALUE, as are the block
    sizes and grid_size_x/y/z), ``grid_div_x/y/z`` (names or expressions whose product divides
    the problem size), ``block_size_names``, ``restrictions`` (strings over the parameters, or
    functions of a dict of them), ``answer`` with ``atol`` (a config whose output differs is
    recorded as a wrong answer), ``iterations`` (timed runs per config), ``strategy``
    (STRATEGIES maps Kernel Tuner's names onto tensortune's tuners), ``strategy_options``
    (``max_fevals``, ``time_limit`` in seconds), ``cache`` (Kernel Tuner's cache file, written
    after the run with every recorded config) and ``metrics`` (functions of a result dict).

    tensortune's own: ``db`` (the history database; the same kernel tuned again resumes and
    never measures a config twice), ``timeout`` per config, ``builders`` (parallel compiler
    processes), ``seed`` and ``batch_size``. Crashing, hanging and wrong configs cost one
    trial each. Ctrl-C stops the run, keeps what was measured (the run is recorded as
    interrupted) and raises KeyboardInterrupt.

    Returns ``(results, env)`` as Kernel Tuner does: ``results`` a list of dicts, one per
    config measured correctly (in this run or before), with the parameters plus ``time`` (the
    mean of ``times``, in ms), ``times`` and ``compile_time``; ``env`` describes the device
    and the run.
    """
    if lang is not None and str(lang).lower() != "opencl":
        raise ValueError(f"lang={lang!r}: tensortune tunes OpenCL kernels only")
    for name, value in (("smem_args", smem_args), ("cmem_args", cmem_args), ("texmem_args", texmem_args),
                        ("observers", observers), ("objective", objective)):
        if value not in (None, "time"):
            raise ValueError(f"{name} is not supported by tensortune")
    if verify is not None:
        warnings.warn("tensortune compares outputs with answer and atol; a verify function is not called")
    if simulation_mode:
        raise ValueError("simulation_mode: use `tensortune compare` on an imported cache instead")
    if not isinstance(tune_params, dict) or not tune_params:
        raise ValueError("tune_params must be a non-empty dict of lists")
    tune_params = {k: list(v) for k, v in tune_params.items()}
    strategy_options = dict(strategy_options or {})
    tuner = DEFAULT_TUNER if strategy is None else STRATEGIES.get(strategy)
    if tuner is None and strategy in TENSORTUNE_TUNERS:
        tuner = strategy  # tensortune's own tuner names work too ("auto": chosen from the history)
    note = ""
    if tuner is None:
        note = f"strategy {strategy!r} has no tensortune counterpart: the default tuner ({DEFAULT_TUNER}) ran"
        warnings.warn(note)
        tuner = DEFAULT_TUNER
    strings, calls = _split_restrictions(restrictions)
    sizes = problem_size if isinstance(problem_size, (list, tuple)) else [problem_size]
    options_list = list(compiler_options or [])
    for k, v in (defines or {}).items():
        options_list.append(f"-D{k}={v}")

    with tempfile.TemporaryDirectory(prefix="tensortune-py-") as folder:
        spec = {
            "kernel_name": kernel_name,
            "kernel_source": _source(kernel_source),
            "problem_size": [int(s) for s in sizes],
            "arguments": [_argument(i, a, folder) for i, a in enumerate(arguments)],
            "tune_params": tune_params,
            "restrictions": strings,
            "atol": float(atol),
            "iterations": int(iterations),
            "compiler_options": options_list,
        }
        for key, div in (("grid_div_x", grid_div_x), ("grid_div_y", grid_div_y), ("grid_div_z", grid_div_z)):
            divs = _divisors(div, key)
            if divs is not None:
                spec[key] = divs
        if block_size_names is not None:
            spec["block_size_names"] = list(block_size_names)
        answers = _answer(answer, arguments, folder)
        if answers is not None:
            spec["answer"] = answers
        if calls:
            spec["valid_configs"] = _valid_by_functions(tune_params, calls)
        options = {"db": os.fspath(db), "device": _device_spec(device, platform), "worker": _engine.worker_path(),
                   "timeout": float(timeout), "tuner": tuner, "seed": int(seed), "batch_size": int(batch_size),
                   "trials": int(strategy_options.get("max_fevals", 0)),
                   "time_limit": float(strategy_options.get("time_limit", 0)),
                   "command": "python: tensortune.tune_kernel " + kernel_name}
        if builders is not None:
            options["builders"] = int(builders)
        started = time.time()
        run = _engine._tensortune.tune_kernel(json.dumps(spec, default=_json_default), folder, options)
    return _results(run, kernel_name, problem_size, tune_params, iterations, options_list, metrics, cache,
                    strategy, tuner, note, db, time.time() - started, verbose, quiet)


def _json_default(o):
    if isinstance(o, numpy.generic):
        return o.item()
    raise TypeError(f"{o!r} is not a number or a string")


def _results(run, kernel_name, problem_size, tune_params, iterations, compiler_options, metrics, cache,
             strategy, tuner, note, db, seconds, verbose, quiet):
    names = list(tune_params)
    results = []
    for t in run["trials"]:
        t["mean_ms"] = 1e3 * sum(t["times_s"]) / len(t["times_s"]) if t["times_s"] else 0.0
        if t["status"] != "ok":
            if verbose:
                print(f"{t['config_key']}: {t['status']}", file=sys.stderr)
            continue
        r = {n: tune_params[n][i] for n, i in zip(names, t["indices"])}
        r["time"] = t["mean_ms"]
        r["times"] = [s * 1e3 for s in t["times_s"]]
        r["compile_time"] = t["compile_s"] * 1e3
        for name, metric in (metrics or {}).items():
            r[name] = metric(r)
        results.append(r)
        if verbose and not quiet:
            print(", ".join(f"{k}={v}" for k, v in r.items() if k != "times"))
    device_name = run["device"]["name"]
    env = {"device_name": device_name, "platform_name": run["device"]["platform"],
           "driver_version": run["device"]["driver_version"], "iterations": iterations,
           "compiler_options": compiler_options, "problem_size": problem_size, "kernel_name": kernel_name,
           "strategy": strategy, "tuner": tuner, "db": os.fspath(db), "run_id": run["run_id"],
           "measured": run["measured"], "trials_in_history": len(run["trials"]),
           "valid_configs": run["valid_configs"], "warm_start": run["warm_start"], "exhausted": run["exhausted"],
           "interrupted": run["interrupted"], "workload": run["workload"], "template_hash": run["template_hash"],
           "total_time_s": seconds}
    if note:
        env["note"] = note
    if cache:
        env["cache"] = _write_cache(cache, kernel_name, problem_size, tune_params, device_name, run["trials"])
    if results and not quiet and verbose:
        best = min(results, key=lambda r: r["time"])
        print("best performing configuration:", ", ".join(f"{k}={best[k]}" for k in names), f"time={best['time']}")
    if run["interrupted"]:
        raise KeyboardInterrupt(f"tuning interrupted: {run['measured']} configs of this run are kept in {db}")
    return results, env


def run_kernel(kernel_name, kernel_source, problem_size, arguments, params, grid_div_x=None, grid_div_y=None,
               grid_div_z=None, lang=None, device=0, platform=0, smem_args=None, cmem_args=None, texmem_args=None,
               compiler=None, compiler_options=None, defines=None, block_size_names=None, quiet=False, log=None):
    """Runs one config of a kernel once, as Kernel Tuner's ``run_kernel``: returns the
    arguments afterwards (arrays as new numpy arrays of the same type and shape, scalars as
    given), e.g. to compute the answer of a tune_kernel call with a reference kernel. It runs
    in this process: nothing is recorded."""
    if lang is not None and str(lang).lower() != "opencl":
        raise ValueError(f"lang={lang!r}: tensortune runs OpenCL kernels only")
    options_list = list(compiler_options or [])
    for k, v in (defines or {}).items():
        options_list.append(f"-D{k}={v}")
    sizes = problem_size if isinstance(problem_size, (list, tuple)) else [problem_size]
    with tempfile.TemporaryDirectory(prefix="tensortune-py-") as folder:
        spec = {"kernel_name": kernel_name, "kernel_source": _source(kernel_source),
                "problem_size": [int(s) for s in sizes],
                "arguments": [_argument(i, a, folder) for i, a in enumerate(arguments)],
                "tune_params": {k: [v] for k, v in params.items()} or {"kernel_tuner_run": [1]},
                "compiler_options": options_list}
        for key, div in (("grid_div_x", grid_div_x), ("grid_div_y", grid_div_y), ("grid_div_z", grid_div_z)):
            divs = _divisors(div, key)
            if divs is not None:
                spec[key] = divs
        if block_size_names is not None:
            spec["block_size_names"] = list(block_size_names)
        raw = _engine._tensortune.run_kernel(json.dumps(spec, default=_json_default), folder,
                                             _device_spec(device, platform))
    out = []
    for arg, data in zip(arguments, raw):
        if data is None:
            out.append(arg)
        else:
            out.append(numpy.frombuffer(data, dtype=arg.dtype).reshape(arg.shape).copy())
    return out
