#!/usr/bin/env bash
# Every layer of a tuned network against oneDNN's best for the layer (its own choice or its
# Winograd, whichever is faster) at one core and at two threads, side by side: runs
# bench/run_network_onednn.sh with THREADS=1 CPUS=0, then THREADS=2 CPUS=0,1, and merges the
# two per-layer tables (each layer timed alone on both sides, medians of ROUNDS rounds), with
# each side's speed-up from its second thread.
#
#   bench/per_layer_threads.sh NETWORK DB
# Environment: as bench/run_network_onednn.sh (ROUNDS, MIN_TIME, BUILD_DIR, SKIP_BUILD).
# Nothing else should run meanwhile: both cores are measured.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# == 2)) || { echo "usage: bench/per_layer_threads.sh NETWORK DB" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
THREADS=1 CPUS=0 bench/run_network_onednn.sh "$1" "$2" >"$work/one.md"
THREADS=2 CPUS=0,1 SKIP_BUILD=1 bench/run_network_onednn.sh "$1" "$2" >"$work/two.md"
echo "bench/per_layer_threads.sh $1 at commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
/usr/bin/python3 - "$work/one.md" "$work/two.md" <<'PY'
import re, sys

def layers(path):
    rows, summary = [], {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 12 and cells[0].isdigit():
            rows.append(cells)
        m = re.search(r"tensortune at ([0-9.]+)x oneDNN's speed \(alone\), ([0-9.]+)x \(in sequence\)", line)
        if m:
            summary["alone"], summary["sequence"] = m.group(1), m.group(2)
        m = re.search(r"against oneDNN's best per layer .*: tensortune at ([0-9.]+)x", line)
        if m:
            summary["best"] = m.group(1)
    return rows, summary

def best_ms(row):  # oneDNN's best alone: its choice or its Winograd
    auto = float(row[5])
    return min(auto, float(row[10])) if row[10] != "-" else auto

one, s1 = layers(sys.argv[1])
two, s2 = layers(sys.argv[2])
print("| # | layer | sketch (1 thread) | 1 thread: tensortune ms alone | oneDNN best ms | speed | "
      "2 threads: tensortune ms alone | oneDNN best ms | speed | 2nd thread: tensortune | oneDNN |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for a, b in zip(one, two):
    if a[5] == "-" or b[5] == "-":
        continue
    t1, t2, o1, o2 = float(a[4]), float(b[4]), best_ms(a), best_ms(b)
    print(f"| {a[0]} | {a[1]} | {a[2]} | {t1:.3f} | {o1:.3f} | {o1 / t1:.2f} | {t2:.3f} | {o2:.3f} | {o2 / t2:.2f} "
          f"| {t1 / t2:.2f}x | {o1 / o2:.2f}x |")
for name, s in (("1 thread", s1), ("2 threads", s2)):
    print(f"\n{name}: tensortune at {s.get('alone', '-')}x oneDNN's own choice (layers alone), "
          f"{s.get('best', '-')}x its best per layer, {s.get('sequence', '-')}x in sequence")
PY
