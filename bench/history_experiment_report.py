#!/usr/bin/env python3
"""Tables for bench/history_experiment.sh from the databases and logs it leaves in WORK:
   history_experiment_report.py WORK FLOW..."""
import datetime
import json
import re
import sqlite3
import statistics
import sys

work, flows = sys.argv[1], sys.argv[2:]
tasks = [t for t in json.load(open(f"{work}/resnet18.json")) if t["op"] == "conv2d"]


def when(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def run_of(log):
    """(trials as (gflops, seconds since the run started) in order, run seconds) of one tune."""
    summary = json.load(open(f"{work}/logs/{log}.json"))
    db = sqlite3.connect(f"{work}/{log.rsplit('-', 1)[0]}.db")
    started, ended = db.execute("SELECT started_at, ended_at FROM runs WHERE id = ?", (summary["run_id"],)).fetchone()
    rows = db.execute("SELECT gflops, finished_at FROM trials WHERE run_id = ? ORDER BY id", (summary["run_id"],))
    t0 = when(started)
    return [(g, (when(f) - t0).total_seconds()) for g, f in rows], (when(ended) - t0).total_seconds()


runs = {(flow, layer): run_of(f"{flow}-{layer}") for flow in flows for layer in range(1, len(tasks) + 1)}


def best(flow, layer, first=None):
    rows = runs[(flow, layer)][0][:first]
    return max((g for g, _ in rows), default=0.0)


print("### Best GFLOPS per ResNet-18 conv layer (first batch / final)\n")
print("| # | layer | weight | auto would take | " + " | ".join(flows) + " |")
print("|---|---|---|---|" + "---|" * len(flows))
for layer, task in enumerate(tasks, 1):
    choice = open(f"{work}/logs/choice-{layer}.txt").read()
    flow = re.search(r"auto: (\S+) flow|auto: (exact)", choice)
    score = re.search(r"score ([0-9.]+)", choice)
    taken = f"{flow.group(1) or flow.group(2)} ({score.group(1)})" if flow and score else "?"
    cells = [f"{best(f, layer, 8):.1f} / **{best(f, layer):.1f}**" for f in flows]
    print(f"| {layer} | {task['workload'].split(':', 1)[1]} | {task['weight']} | {taken} | " + " | ".join(cells) + " |")


print("\nFirst batch (8 trials) / xgb's final best, median over layers (range): " + "; ".join(
    f"{f} {statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})"
    for f, r in ((f, [best(f, layer, 8) / best("xgb", layer) for layer in range(1, len(tasks) + 1)]) for f in flows)))


def latency_ms(flow):
    total = 0.0
    for layer, task in enumerate(tasks, 1):
        g = best(flow, layer)
        total += task["weight"] * (task["flops"] / (g * 1e9) if g > 0 else float("inf")) * 1e3
    return total


print("\n### ResNet-18 conv layers: estimated latency, time to xgb's final quality\n")
print("Per layer, the target is xgb's final best on that layer (or 98% of it: repeated measurements of one config "
      "differ by a few percent); a flow reaches it at its first trial at least that fast (the trial's batch commit "
      "time counts). Trials and seconds are summed over layers; `>` where a flow did not reach the target on some "
      "layers (their whole run counted), which makes the ratio an upper bound (`<`).\n")
print("| flow | est. conv latency ms | target | layers reaching it | trials to it (sum) | seconds to it (sum) "
      "| xgb's seconds / these | wall s (all layers) |")
print("|---|---|---|---|---|---|---|---|")


def reach(flow, share):
    reached, trials_sum, seconds_sum, wall = 0, 0, 0.0, 0.0
    for layer in range(1, len(tasks) + 1):
        rows, run_seconds = runs[(flow, layer)]
        wall += run_seconds
        target = share * best("xgb", layer)
        hit = next(((i + 1, s) for i, (g, s) in enumerate(rows) if g >= target > 0), None)
        reached += hit is not None
        trials_sum += hit[0] if hit else len(rows)
        seconds_sum += hit[1] if hit else run_seconds
    return reached, trials_sum, seconds_sum, wall


for share in (1.0, 0.98):
    xgb_seconds = reach("xgb", share)[2]
    for flow in flows:
        reached, trials_sum, seconds_sum, wall = reach(flow, share)
        mark = "" if reached == len(tasks) else ">"
        ratio = xgb_seconds / seconds_sum if seconds_sum else 0
        print(f"| {flow} | {latency_ms(flow):.2f} | {share:.0%} | {reached} of {len(tasks)} | {mark}{trials_sum} "
              f"| {mark}{seconds_sum:.0f} | {'<' if mark else ''}{ratio:.2f}x | {wall:.0f} |")

print("\n### Fallback on pruned shapes (`best` from the gga database, measured alone)\n")
print("| shape | source workload (match score) | fallback GFLOPS | xgb tuned GFLOPS | fallback / tuned |")
print("|---|---|---|---|---|")
p = 1
while True:
    try:
        fallback = json.load(open(f"{work}/logs/best-{p}.json"))
    except FileNotFoundError:
        break
    measured = json.load(open(f"{work}/logs/fallback-{p}.json"))
    tuned = json.load(open(f"{work}/logs/pruned-xgb-{p}.json"))
    g_fallback = measured["best"]["gflops"] if measured.get("best") else 0.0
    g_tuned = tuned["best"]["gflops"] if tuned.get("best") else 0.0
    print(f"| {measured['workload'].split(':', 1)[1]} | {fallback['source_workload'].split(':', 1)[1]} "
          f"({fallback['match_score']:.2f}) | {g_fallback:.1f} | {g_tuned:.1f} | "
          f"{g_fallback / g_tuned if g_tuned else 0:.2f} |")
    p += 1
