#!/usr/bin/python3
"""Tables of replayed searches: evaluations to 90/95/99% of the optimum and the fraction of
the optimum reached at 50/100/200 evaluations, medians over seeds.

Reads JSON lines with "space", "strategy" (or "tuner"), "seed" and "fraction" (the best so
far after each evaluation as a fraction of the space's optimum), as written by
`tensortune compare --runs-out FILE` and bench/kernel_tuner_side_by_side.py, and prints one
Markdown table per space. Medians as `compare` computes them: linear interpolation between
the two middle seeds; a seed that never reached a target counts as infinitely many
evaluations, so the median is "never" when fewer than half of the seeds reached it.

    bench/search_results.py runs/*.jsonl [--json]
    bench/search_results.py runs/*.jsonl --versus bo

--versus TUNER prints one row per space instead: the tuner's evaluations to 95% and 99%
beside the best of Kernel Tuner's strategies (the lines with a "strategy") at each target,
the ratio, and at how many (space, target) pairs the tuner needs no more than that best.
"""
import argparse
import collections
import json
import math
import sys

TARGETS = (0.90, 0.95, 0.99)
CHECKPOINTS = (50, 100, 200)


def quantile(values, q):
    values = sorted(values)
    pos = q * (len(values) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    if math.isinf(values[hi]):
        return values[hi]
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def to_reach(curve, target):
    for i, f in enumerate(curve):
        if f >= target - 1e-12:
            return i + 1
    return math.inf


def at(curve, n):
    if not curve:
        return 0.0
    return curve[min(n, len(curve)) - 1]


def summarise(runs):
    row = {}
    for t in TARGETS:
        needed = [to_reach(r, t) for r in runs]
        row[t] = (quantile(needed, 0.5), sum(1 for n in needed if not math.isinf(n)), len(runs))
    for c in CHECKPOINTS:
        row[c] = quantile([at(r, c) for r in runs], 0.5)
    return row


def cell_target(entry):
    median, reached, total = entry
    if math.isinf(median):
        return f"never ({reached}/{total})"
    return f"{median:.0f} ({reached}/{total})"


def versus(spaces, tuner, targets=(0.95, 0.99)):
    """Per space: the tuner's medians to each target beside Kernel Tuner's best strategy."""
    rows, met, worst = [], 0, 0.0
    for space, by in spaces.items():
        if tuner not in by:
            continue
        cells = [space]
        for t in targets:
            mine = summarise(by[tuner])[t][0]
            best, name = math.inf, "none"
            for label, runs in by.items():
                if not label.startswith("KT ") or label.endswith("(failures left out)"):
                    continue
                median = summarise(runs)[t][0]
                if median < best:
                    best, name = median, label[3:]
            if math.isinf(mine):
                ratio = math.inf
            else:
                ratio = mine / best if best > 0 else math.inf
            met += mine <= best
            worst = max(worst, ratio if not math.isinf(best) else 0.0)
            fmt = lambda v: "never" if math.isinf(v) else f"{v:.0f}"
            cells += [fmt(mine), f"{fmt(best)} ({name})", "-" if math.isinf(best) else f"{ratio:.2f}"]
        rows.append(cells)
    return rows, met, worst


def load(paths):
    spaces = collections.OrderedDict()
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                d = json.loads(line)
                name = d.get("strategy") or d.get("tuner")
                label = d.get("label") or name
                if d.get("strategy") and not d.get("label"):
                    label = "KT " + name + ("" if d.get("failures_in_space", True) else " (failures left out)")
                space = d["space"] + (" on " + d["device"] if d.get("device") else "")
                spaces.setdefault(space, collections.OrderedDict()).setdefault(label, []).append(d["fraction"])
    return spaces


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    parser.add_argument("--versus", metavar="TUNER", help="the tuner against Kernel Tuner's best strategy per space")
    args = parser.parse_args()
    spaces = load(args.files)
    if args.versus:
        print(f"| space | {args.versus} to 95% | best to 95% | ratio | {args.versus} to 99% | best to 99% | ratio |")
        print("|---|---|---|---|---|---|---|")
        rows, met, worst = versus(spaces, args.versus)
        for cells in rows:
            print("| " + " | ".join(cells) + " |")
        print(f"\n{args.versus} needs no more evaluations than the best strategy at {met} of {2 * len(rows)} "
              f"(space, target) pairs; at most {worst:.2f}x the best.")
        return
    if args.json:
        out = {}
        for space, by in spaces.items():
            out[space] = {}
            for label, runs in by.items():
                row = summarise(runs)
                out[space][label] = {f"to{int(t*100)}": (None if math.isinf(row[t][0]) else row[t][0]) for t in TARGETS}
                out[space][label].update({f"reached{int(t*100)}": row[t][1] for t in TARGETS})
                out[space][label].update({f"at{c}": row[c] for c in CHECKPOINTS})
                out[space][label]["seeds"] = len(runs)
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    for space, by in spaces.items():
        print(f"### {space}\n")
        print("| tuner | to 90% | to 95% | to 99% | @50 | @100 | @200 |")
        print("|---|---|---|---|---|---|---|")
        for label, runs in by.items():
            row = summarise(runs)
            cells = [cell_target(row[t]) for t in TARGETS] + [f"{100 * row[c]:.1f}%" for c in CHECKPOINTS]
            print(f"| {label} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
