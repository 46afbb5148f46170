#!/usr/bin/python3
"""Kernel Tuner and tensortune side by side on one kernel, space and device: the overhead per
evaluated config (wall time of the tuning call divided by the configs it evaluated, minus the
kernel time it measured per config: the sum of its `iterations` timed runs) and whether
tensortune, with a budget of at most Kernel Tuner's, finds Kernel Tuner's best config.

The kernel and space are Kernel Tuner's OpenCL matmul example (examples/opencl/matmul.cl of a
checkout of https://github.com/KernelTuner/kernel_tuner, never committed here; its WIDTH
rewritten to --size) with the example's four parameters and restriction (41 configs with one more, below), the
answer checked with atol 1e-3 on both sides. Kernel Tuner runs its default strategy (brute
force: every config) from its source checkout (PYTHONPATH; Debian's python3-pyopencl,
python3-numpy, python3-scipy, python3-jsonschema, python3-packaging, xmltodict and
python-constraint's sources in --deps); tensortune runs its default tuner with
strategy_options max_fevals = --budget, one fresh database per seed. Every call runs in a
process of its own with a fresh POCL kernel cache, so that every build is a cold one on both
sides. Prints a JSON line per call and a summary (medians, ratio, load average).

    /usr/bin/python3 bench/kernel_tuner_overhead.py --kernel-tuner /tmp/kernel_tuner \\
        --deps /tmp/ktdeps --module build/python --seeds 10 --budget 22
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PARAMS = {"block_size_x": [16 * 2**i for i in range(3)], "block_size_y": [2**i for i in range(6)],
          "tile_size_x": [2**i for i in range(4)], "tile_size_y": [2**i for i in range(4)]}
# The example's restriction, and one more: at --size 256 a tile wider than the matrix computes
# a wrong answer, which stops Kernel Tuner's whole run (tensortune records it as one trial).
RESTRICT = ["block_size_x==block_size_y*tile_size_y", "block_size_x*tile_size_x<=256"]
KEYS = list(PARAMS)


def one_call(args):
    """Runs one tuning call in this process; prints its JSON line."""
    import numpy
    numpy.random.seed(args.seed)
    with open(os.path.join(args.kernel_tuner, "examples", "opencl", "matmul.cl")) as f:
        source = f.read().replace("#define WIDTH 4096", f"#define WIDTH {args.size}")
    n = args.size
    a = numpy.random.randn(n, n).astype(numpy.float32)
    b = numpy.random.randn(n, n).astype(numpy.float32)
    c = numpy.zeros_like(a)
    answer = [numpy.dot(a, b), None, None]
    common = dict(grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"],
                  restrictions=RESTRICT, answer=answer, atol=1e-3, quiet=True)
    if args.side == "kt":
        import kernel_tuner
        started = time.perf_counter()
        results, _ = kernel_tuner.tune_kernel("matmul_kernel", source, (n, n), [c, a, b], PARAMS, lang="OpenCL",
                                              **common)
        wall = time.perf_counter() - started
        ok = [r for r in results if isinstance(r.get("time"), float)]
        evaluated = len(results)
    else:
        import tensortune
        started = time.perf_counter()
        results, env = tensortune.tune_kernel("matmul_kernel", source, (n, n), [c, a, b], PARAMS, seed=args.seed,
                                              strategy_options={"max_fevals": args.budget}, db=args.db, **common)
        wall = time.perf_counter() - started
        ok = results
        evaluated = env["measured"]
    kernel_s = sum(sum(r["times"]) for r in ok) / 1e3
    best = min(ok, key=lambda r: r["time"])
    print(json.dumps({"side": args.side, "seed": args.seed, "evaluated": evaluated, "ok": len(ok), "wall_s": wall,
                      "kernel_s": kernel_s, "overhead_s": (wall - kernel_s) / evaluated,
                      "best": {k: best[k] for k in KEYS}, "best_ms": best["time"],
                      "all_ms": {_key(r): r["time"] for r in ok}}))


def _key(params):
    return ",".join(str(params[k]) for k in KEYS)


def spawn(args, side, seed, work):
    env = dict(os.environ, POCL_CACHE_DIR=tempfile.mkdtemp(dir=work, prefix="pocl-"))
    path = [args.module] if side == "tt" else [args.deps, args.kernel_tuner]
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in path)
    cmd = [sys.executable, os.path.abspath(__file__), "--side", side, "--seed", str(seed), "--size", str(args.size),
           "--budget", str(args.budget), "--kernel-tuner", args.kernel_tuner,
           "--db", os.path.join(work, f"tt-{seed}.db")]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=work)
    line = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None
    if line is None:
        sys.exit(f"{side} seed {seed} failed (exit {r.returncode}): {r.stderr[-2000:]}")
    print(line, flush=True)
    return json.loads(line)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernel-tuner", required=True, help="a Kernel Tuner checkout")
    p.add_argument("--deps", default="", help="a folder with python-constraint's `constraint` package")
    p.add_argument("--module", default="build/python", help="the folder of the built tensortune package")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--budget", type=int, default=22, help="tensortune's configs per seed (Kernel Tuner: all 41)")
    p.add_argument("--size", type=int, default=256, help="the matrices' width (the example's is 4096)")
    p.add_argument("--kt-runs", type=int, default=3, help="Kernel Tuner's brute-force runs")
    p.add_argument("--side", choices=["kt", "tt"], help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--db", default="history.db", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.side:
        return one_call(args)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="tt-kt-overhead-") as work:
        kt, tt = [], []
        # Interleaved, so that both sides see the same load.
        for i in range(max(args.seeds, args.kt_runs)):
            if i < args.kt_runs:
                kt.append(spawn(args, "kt", i + 1, work))
            if i < args.seeds:
                tt.append(spawn(args, "tt", i + 1, work))
    load_after = os.getloadavg()
    # Kernel Tuner's best: the fastest config of its fastest brute-force run's measurements.
    kt_best = min(kt, key=lambda r: r["best_ms"])
    med = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    same = sum(r["best"] == kt_best["best"] for r in tt)
    # tensortune's best config as Kernel Tuner measured it, against Kernel Tuner's best: the
    # same yardstick for both (one process's timings differ from another's on a loaded machine).
    by_kt = [kt_best["all_ms"].get(_key(r["best"]), float("inf")) / kt_best["best_ms"] for r in tt]
    summary = {
        "kernel_tuner": {"runs": len(kt), "evaluated": med(kt, "evaluated"), "median_wall_s": med(kt, "wall_s"),
                         "median_overhead_s_per_config": med(kt, "overhead_s"), "best": kt_best["best"],
                         "best_ms": kt_best["best_ms"]},
        "tensortune": {"seeds": len(tt), "budget": args.budget, "median_wall_s": med(tt, "wall_s"),
                       "median_overhead_s_per_config": med(tt, "overhead_s"),
                       "found_kernel_tuners_best": f"{same} of {len(tt)}",
                       "median_best_ms": med(tt, "best_ms"),
                       "median_best_vs_kernel_tuners": med(tt, "best_ms") / kt_best["best_ms"],
                       "its_best_as_kernel_tuner_timed_it_vs_kernel_tuners_best": sorted(round(x, 3) for x in by_kt)},
        "overhead_ratio_tensortune_to_kernel_tuner": med(tt, "overhead_s") / med(kt, "overhead_s"),
        "size": args.size, "load_average_before": load_before, "load_average_after": load_after,
    }
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
