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
    bench/search_results.py runs/*.jsonl --head-to-head bo

--versus TUNER prints one row per space instead: the tuner's evaluations to 95% and 99%
beside the best of Kernel Tuner's strategies (the lines with a "strategy") at each target,
the ratio, and at how many (space, target) pairs the tuner needs no more than that best.

--head-to-head TUNER prints one row per Kernel Tuner strategy: on how many spaces (both
targets) and pairs the tuner needs no more evaluations than that strategy, and, as a yardstick
for --versus, on how many the strategy itself needs no more than the best of the other ones.
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


def strategies(by):
    """Kernel Tuner's strategies in one space's runs, each over the whole space (failures in)."""
    return {label: runs for label, runs in by.items() if label.startswith("KT ") and not label.endswith("(failures left out)")}


def versus(spaces, tuner, targets=(0.95, 0.99)):
    """Per space: the tuner's medians to each target beside Kernel Tuner's best strategy."""
    rows, met, worst = [], 0, 0.0
    for space, by in spaces.items():
        if tuner not in by or not strategies(by):
            continue
        cells = [space]
        for t in targets:
            mine = summarise(by[tuner])[t][0]
            best, name = math.inf, "none"
            for label, runs in strategies(by).items():
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


def head_to_head(spaces, tuner, targets=(0.95, 0.99)):
    """Per Kernel Tuner strategy: [spaces and pairs where the tuner needs no more evaluations than
    it, spaces and pairs where it needs no more than the best of the other strategies, spaces, the
    tuner's worst ratio to it], over
    the spaces that hold the tuner and that strategy; then [spaces, pairs, spaces] of the tuner against
    the best of all strategies."""
    counts, against_best = collections.OrderedDict(), [0, 0, 0]
    for by in spaces.values():
        if tuner not in by or not strategies(by):
            continue
        medians = {label: [summarise(runs)[t][0] for t in targets] for label, runs in strategies(by).items()}
        mine = [summarise(by[tuner])[t][0] for t in targets]
        best = [min([m[i] for m in medians.values()], default=math.inf) for i in range(len(targets))]
        wins = [a <= b for a, b in zip(mine, best)]
        against_best = [against_best[0] + all(wins), against_best[1] + sum(wins), against_best[2] + 1]
        for label, theirs in medians.items():
            others = [min([m[i] for other, m in medians.items() if other != label], default=math.inf) for i in range(len(targets))]
            row = counts.setdefault(label[3:], [0, 0, 0, 0, 0, 0.0])
            tuner_wins = [a <= b for a, b in zip(mine, theirs)]
            for a, b in zip(mine, theirs):  # the worst ratio where the strategy reaches the target
                if not math.isinf(b):
                    row[5] = max(row[5], math.inf if math.isinf(a) or b <= 0 else a / b)
            strategy_wins = [a <= b for a, b in zip(theirs, others)]
            row[0] += all(tuner_wins)
            row[1] += sum(tuner_wins)
            row[2] += all(strategy_wins)
            row[3] += sum(strategy_wins)
            row[4] += 1
    return counts, against_best


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
    parser.add_argument("--head-to-head", metavar="TUNER", help="the tuner against each Kernel Tuner strategy")
    args = parser.parse_args()
    spaces = load(args.files)
    if args.head_to_head:
        tuner = args.head_to_head
        print(f"| strategy | spaces where {tuner} needs no more | pairs | {tuner}'s worst ratio | spaces where the "
              "strategy needs no more than the best of the others | pairs |")
        print("|---|---|---|---|---|---|")
        counts, (sw, pw, n) = head_to_head(spaces, tuner)
        for name, (sw_, pw_, ss, ps, n_, worst) in counts.items():
            ratio = "never" if math.isinf(worst) else f"{worst:.2f}"
            print(f"| {name} | {sw_} of {n_} | {pw_} of {2 * n_} | {ratio} | {ss} of {n_} | {ps} of {2 * n_} |")
        print(f"\nAgainst the best strategy of each space, {tuner} needs no more evaluations on {sw} of {n} spaces "
              f"(both targets) and {pw} of {2 * n} pairs.")
        return
    if args.versus:
        print(f"| space | {args.versus} to 95% | best to 95% | ratio | {args.versus} to 99% | best to 99% | ratio |")
        print("|---|---|---|---|---|---|---|")
        rows, met, worst = versus(spaces, args.versus)
        for cells in rows:
            print("| " + " | ".join(cells) + " |")
        print(f"\n{args.versus} needs no more evaluations than the best strategy at {met} of {2 * len(rows)} "
              f"(space, target) pairs; " + ("it never reaches a target that a strategy reaches." if math.isinf(worst)
                                            else f"at most {worst:.2f}x the best."))
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
