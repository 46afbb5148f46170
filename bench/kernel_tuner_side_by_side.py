#!/usr/bin/python3
"""Kernel Tuner's search strategies replayed on a brute-forced cache file (simulation mode).

Runs each strategy for a number of seeds with a budget of unique evaluations and writes one
JSON line per run: the fraction of the cache's optimum reached after each evaluation
(best time in the cache / best time so far; 0 while nothing ran correctly). The same space as
`tensortune compare --space` replays: every configuration the cache holds, failures
included, is in the search space and costs an evaluation (Kernel Tuner's own `tune_cache`
leaves the failures out of the space: --exclude-failures does the same); nothing else is.

Kernel Tuner is not part of tensortune and is never committed: point --kernel-tuner at a
checkout of https://github.com/KernelTuner/kernel_tuner (1.4) and --constraint at a folder
that holds python-constraint's `constraint` package (its pure-Python sources are enough).
Debian 12's python3-numpy, python3-scipy, python3-sklearn, python3-pandas and
python3-jsonschema are what it runs with (`tools/install-deps.sh --bench-kernel-tuner`). A
checkout has no package metadata, from which Kernel Tuner 1.4 reads its own version: the
script gives it some.

    /usr/bin/python3 bench/kernel_tuner_side_by_side.py --kernel-tuner /tmp/kt \\
        --cache convolution_milo__A4000.json.gz --strategies genetic_algorithm,pso \\
        --seeds 20 --evals 300 --out runs.jsonl
"""
import argparse
import gzip
import json
import os
import random
import sys
import tempfile
import time
import warnings

DEFAULT_STRATEGIES = "genetic_algorithm,simulated_annealing,pso,firefly_algorithm,diff_evo,bayes_opt"
ERRORS = ("InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig", "ErrorConfig")


def load_cache(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def slim_cache(cache):
    """The cache without per-repeat times (Kernel Tuner reads the file once per run)."""
    slim = {k: cache[k] for k in ("device_name", "kernel_name", "problem_size", "tune_params_keys", "tune_params")}
    slim["objective"] = cache.get("objective", "time")
    slim["cache"] = {}
    for key, entry in cache["cache"].items():
        slim["cache"][key] = {k: v for k, v in entry.items() if k != "times"}
    return slim


def give_metadata(folder):
    """Package metadata for a plain checkout, which Kernel Tuner asks for its own version."""
    import importlib.metadata

    try:
        importlib.metadata.version("kernel_tuner")
    except importlib.metadata.PackageNotFoundError:
        info = os.path.join(folder, "kernel_tuner-1.4.0.dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: kernel_tuner\nVersion: 1.4.0\n")
        sys.path.append(folder)


def entry_time(entry):
    t = entry.get("time")
    return None if isinstance(t, str) or t is None else float(t)


def run_one(kt, cache_path, cache, strategy, seed, evals, options, exclude_failures=False):
    import numpy as np

    keys = cache["tune_params_keys"]
    tune_params = cache["tune_params"]
    in_cache = set(k for k, e in cache["cache"].items() if not exclude_failures or entry_time(e) is not None)

    def restriction(p):
        return ",".join(str(p[k]) for k in keys) in in_cache

    random.seed(seed)
    np.random.seed(seed)
    strategy_options = dict(options)
    strategy_options["max_fevals"] = evals
    problem_size = cache["problem_size"]
    arguments = []  # simulation mode never launches the kernel
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kt.tune_kernel(cache["kernel_name"], "/* simulated */", problem_size, arguments, tune_params,
                                    restrictions=restriction, strategy=strategy, strategy_options=strategy_options,
                                    cache=cache_path, simulation_mode=True, quiet=True, seed=seed)
    seconds = time.perf_counter() - start
    best_time = min(t for t in (entry_time(e) for e in cache["cache"].values()) if t is not None)
    seen, curve, best = set(), [], None
    for r in results:
        key = ",".join(str(r[k]) for k in keys)
        if key in seen or key not in in_cache:
            continue
        seen.add(key)
        t = entry_time(cache["cache"][key])
        if t is not None and (best is None or t < best):
            best = t
        curve.append(0.0 if best is None else best_time / best)
    return curve, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel-tuner", required=True, help="checkout of kernel_tuner (the folder holding kernel_tuner/)")
    parser.add_argument("--constraint", help="folder holding python-constraint's constraint/ (default: --kernel-tuner)")
    parser.add_argument("--cache", required=True, help="Kernel Tuner cache file (.json or .json.gz)")
    parser.add_argument("--strategies", default=DEFAULT_STRATEGIES)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--evals", type=int, default=300)
    parser.add_argument("--exclude-failures", action="store_true",
                        help="leave failed configurations out of the space, as Kernel Tuner's tune_cache does")
    parser.add_argument("--out", required=True, help="JSON lines, appended to")
    args = parser.parse_args()

    sys.path.insert(0, os.path.abspath(args.constraint or args.kernel_tuner))
    sys.path.insert(0, os.path.abspath(args.kernel_tuner))
    cache = load_cache(args.cache)
    space = os.path.basename(args.cache).split(".json")[0]
    with tempfile.TemporaryDirectory() as tmp:
        give_metadata(tmp)
        import kernel_tuner.interface as kt

        cache_path = os.path.join(tmp, "cache.json")
        slim = slim_cache(cache)
        for strategy in args.strategies.split(","):
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                with open(cache_path, "w") as f:  # Kernel Tuner may touch the file: a fresh copy per run
                    json.dump(slim, f)
                curve, seconds = run_one(kt, cache_path, slim, strategy, seed, args.evals, {}, args.exclude_failures)
                # A cache without a device name is known by its file's name, as `tensortune import` names it.
                device = cache["device_name"] or space
                line = {"space": cache["kernel_name"], "device": device, "file": space, "strategy": strategy, "failures_in_space": not args.exclude_failures, "seed": seed, "evals": len(curve),
                        "seconds": round(seconds, 3), "fraction": [round(x, 6) for x in curve]}
                with open(args.out, "a") as out:
                    out.write(json.dumps(line) + "\n")
                print(f"{space} {strategy} seed {seed}: {len(curve)} evaluations, best {curve[-1] if curve else 0:.4f}, "
                      f"{seconds:.1f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
