#!/usr/bin/python3
"""The tables of bench/anytime.sh from its output folder.

    bench/anytime_summary.py OUT "NETWORKS" "BUDGETS" "SEEDS" COMMIT

One row per run (network, budget, seed): tuning wall clock, tune-network's estimate, tasks
without a measured config, and the re-timed speed against oneDNN (bench/run_network_onednn.sh):
each layer alone against oneDNN's own choice, against its best per layer (auto or Winograd),
and the layers in sequence. Then the medians over seeds.
"""
import json
import math
import re
import statistics
import sys

RATIO = re.compile(r"tensortune at ([0-9.]+)x oneDNN's speed \(alone\), ([0-9.]+)x \(in sequence\)")
BEST = re.compile(r"against oneDNN's best per layer .*: tensortune at ([0-9.]+)x")


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def times(x):
    return fmt(x, ".2f") + ("x" if x is not None else "")


def median(values):
    values = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(values) if values else None


def main():
    out, networks, budgets, seeds, commit = sys.argv[1], *(s.split() for s in sys.argv[2:5]), sys.argv[5]
    print("| network | trials | seed | tuning s | estimated ms | unmeasured tasks | speed vs oneDNN alone "
          "| vs oneDNN's best per layer | speed vs oneDNN in sequence |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = []
    for network in networks:
        for budget in budgets:
            rows = []
            for seed in seeds:
                run = f"{out}/{network}-{budget}-{seed}"
                try:
                    tune = json.load(open(f"{run}/tune.json"))
                    tuning = float(open(f"{run}/tuning_s.txt").read())
                    text = open(f"{run}/onednn.md").read()
                except (OSError, ValueError):
                    continue  # a run that did not finish
                m, b = RATIO.search(text), BEST.search(text)
                alone, seq = (float(m.group(1)), float(m.group(2))) if m else (None, None)
                best = float(b.group(1)) if b else None
                rows.append((tuning, tune["latency_s"] * 1e3, alone, best, seq))
                print(f"| {network} | {budget} | {seed} | {tuning:.0f} | {tune['latency_s'] * 1e3:.2f} "
                      f"| {tune['tasks_unmeasured']} | {times(alone)} | {times(best)} | {times(seq)} |")
            if rows:
                medians.append((network, budget, len(rows), *(median(col) for col in zip(*rows))))
    print(f"\nMedians over seeds (commit {commit}):\n")
    print("| network | trials | seeds | tuning s | estimated ms | speed vs oneDNN alone | vs oneDNN's best per layer "
          "| speed vs oneDNN in sequence |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for network, budget, n, tuning, estimate, alone, best, seq in medians:
        print(f"| {network} | {budget} | {n} | {fmt(tuning, '.0f')} | {fmt(estimate, '.2f')} | {times(alone)} "
              f"| {times(best)} | {times(seq)} |")


if __name__ == "__main__":
    main()
