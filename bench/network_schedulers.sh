#!/usr/bin/env bash
# Task schedulers on a whole network: for NETWORK (alexnet), every scheduler in SCHEDULERS
# (round-robin gradient ucb) and every seed in SEEDS (1 2 3), runs
#   tensortune tune-network NETWORK --trials TRIALS --scheduler S --seed N --tuner TUNER
#       --batch-size BATCH_SIZE --min-time MIN_TIME --db <fresh database>
# each on its own fresh database and fresh POCL kernel cache (POCL_CACHE_DIR), seeds outermost so
# that a change in the machine's load falls on every scheduler alike. Then prints, from each
# database's network_progress, a markdown table: the estimated network latency after 25, 50, 75
# and 100% of the budget (median over seeds), and the trials each run needed to reach the
# gradient scheduler's final latency of the same seed (median over seeds), with the untuned
# default latency (network_tasks.default_time_s) for scale. Finally, unless ONEDNN=0, times the
# network's convolutions with oneDNN (bench/network_onednn.sh) against the tuned estimates of
# these same runs. Progress goes to stderr. Nothing else should run meanwhile: the machine is
# measured.
#
# Environment: NETWORK (alexnet), SCHEDULERS, SEEDS, TRIALS (25 per task of the network),
# BATCH_SIZE (4), MIN_TIME (0.02), TUNER (opevo), THREADS (2, oneDNN), ONEDNN (1),
# BUILD_DIR (build-bench), SKIP_BUILD=1 to use an existing build, KEEP_DB=1 (or OUT_DIR=DIR) to
# keep the databases, JSON and logs. MANIFEST=FILE tabulates runs made before instead of running
# any: one line per run, tab-separated: scheduler, seed, database, wall seconds (with ONEDNN=0).
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
network="${NETWORK:-alexnet}"
read -r -a schedulers <<<"${SCHEDULERS:-round-robin gradient ucb}"
read -r -a seeds <<<"${SEEDS:-1 2 3}"
batch_size="${BATCH_SIZE:-4}"
min_time="${MIN_TIME:-0.02}"
tuner="${TUNER:-opevo}"
onednn="${ONEDNN:-1}"

command -v python3 >/dev/null || { echo "network_schedulers.sh: python3 is needed" >&2; exit 3; }
[[ " ${schedulers[*]} " == *" gradient "* ]] ||
  echo "network_schedulers.sh: no gradient run in SCHEDULERS: the 'trials to reach' column stays empty" >&2

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  targets=(tensortune tensortune-worker)
  [[ "$onednn" == 1 ]] && targets+=(dnnl_conv)
  cmake --build "$build" --target "${targets[@]}" >&2
fi
tt="$build/bin/tensortune"
[[ -x "$tt" ]] || { echo "network_schedulers.sh: $tt is missing (build it, or unset SKIP_BUILD)" >&2; exit 3; }

tasks=$("$tt" tasks "$network" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
trials="${TRIALS:-$((25 * tasks))}"

if [[ -n "${OUT_DIR:-}" ]]; then
  work="$OUT_DIR"
  mkdir -p "$work"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/tt-network-schedulers.XXXXXX")"
  if [[ "${KEEP_DB:-0}" == 1 ]]; then echo "keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
fi
manifest="${MANIFEST:-$work/manifest.tsv}"
[[ -n "${MANIFEST:-}" ]] && { [[ -r "$manifest" ]] || { echo "network_schedulers.sh: no manifest '$manifest'" >&2; exit 2; }; }
[[ -z "${MANIFEST:-}" ]] && : >"$manifest"

date_utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
device_line="$("$tt" devices | sed -n 2p | sed -E 's/^ +//; s/  +/ | /g')"
commands=()
[[ -n "${MANIFEST:-}" ]] && seeds_to_run=() || seeds_to_run=("${seeds[@]}")
for seed in "${seeds_to_run[@]}"; do
  for scheduler in "${schedulers[@]}"; do
    base="$work/$network-$scheduler-$seed"
    rm -rf "$base.db" "$base.pocl"
    mkdir -p "$base.pocl"
    cmd=("$tt" tune-network "$network" --trials "$trials" --scheduler "$scheduler" --seed "$seed" --tuner "$tuner"
         --batch-size "$batch_size" --min-time "$min_time" --db "$base.db" --json)
    commands+=("POCL_CACHE_DIR=<fresh> ${cmd[*]/#$work\//}")
    echo "[$network $scheduler seed $seed] $trials trials" >&2
    t0=$(date +%s.%N)
    rc=0
    POCL_CACHE_DIR="$base.pocl" "${cmd[@]}" >"$base.json" 2>"$base.err" || rc=$?
    wall=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
    rm -rf "$base.pocl"
    if ((rc != 0)); then
      echo "[$network $scheduler seed $seed]   FAILED (exit $rc):" >&2
      tail -5 "$base.err" >&2
      continue
    fi
    echo "[$network $scheduler seed $seed]   ${wall} s" >&2
    printf '%s\t%s\t%s\t%s\n' "$scheduler" "$seed" "$base.db" "$wall" >>"$manifest"
  done
done

python3 - "$manifest" "$network" "$trials" "$date_utc" "$device_line" "$(nproc)" "$tuner" "$batch_size" \
  "$min_time" "${seeds[*]}" <<'EOF'
import sqlite3, statistics, sys

manifest, network, budget, date, device, nproc, tuner, batch_size, min_time, seeds = sys.argv[1:11]
budget = int(budget)
runs = [line.rstrip("\n").split("\t") for line in open(manifest) if line.strip()]

def read(db):
    con = sqlite3.connect(db)
    (run_id,) = con.execute("SELECT id FROM network_runs ORDER BY id LIMIT 1").fetchone()
    default = con.execute("SELECT TOTAL(weight * default_time_s), COUNT(*) - COUNT(default_time_s) FROM network_tasks "
                          "WHERE network_run_id = ?", (run_id,)).fetchone()
    progress = con.execute("SELECT trials, latency_s FROM network_progress WHERE network_run_id = ? ORDER BY trials",
                           (run_id,)).fetchall()
    used = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    return {"default": default[0], "no_default": default[1], "progress": progress, "used": used}

def latency_at(run, n):  # the estimate after n trials: the last progress row at or before n
    before = [lat for t, lat in run["progress"] if t <= n]
    return before[-1] if before else None

def trials_to(run, target):  # the first trials count whose estimate is at or below target
    return next((t for t, lat in run["progress"] if lat <= target * (1 + 1e-9)), None)

data = {}
for scheduler, seed, db, wall in runs:
    run = read(db)
    run["wall"] = float(wall)
    data.setdefault(scheduler, {})[seed] = run

def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def ms(v):
    return "-" if v is None else f"{v * 1e3:.2f}"

gradient = data.get("gradient", {})
marks = [budget * q // 4 for q in (1, 2, 3, 4)]
print(f"{network}, batch 1: {budget} trials per run (tuner {tuner}, --batch-size {batch_size}, --min-time {min_time}), "
      f"seeds {seeds} ({date}; device: {device}; nproc {nproc})\n")
print("| scheduler | runs | " + " | ".join(f"ms after {m}" for m in marks[:3]) +
      f" | final ms ({marks[3]}) | trials to reach gradient's final (per seed) | wall s per run |")
print("|---|---|---|---|---|---|---|---|")
for scheduler, by_seed in data.items():
    at = [med(latency_at(r, m) for r in by_seed.values()) for m in marks]
    reach = []
    for seed, r in by_seed.items():
        if seed in gradient and gradient[seed]["progress"]:
            t = trials_to(r, gradient[seed]["progress"][-1][1])
            reach.append(t if t is not None else float("inf"))
    if not reach:
        reach_text = "-"
    else:
        m = statistics.median(reach)
        shown = ", ".join("not reached" if v == float("inf") else str(v) for v in reach)
        reach_text = ("not reached" if m == float("inf") else f"{m:g}") + f" ({shown})"
    print(f"| {scheduler} | {len(by_seed)} | " + " | ".join(ms(v) for v in at) +
          f" | {reach_text} | {med(r['wall'] for r in by_seed.values()):.0f} |")
all_runs = [r for by_seed in data.values() for r in by_seed.values()]
defaults = [r["default"] for r in all_runs]
missing = sorted({r["no_default"] for r in all_runs})
print(f"\nEvery layer at its untuned default: {ms(med(defaults))} ms (median over runs; range "
      f"{ms(min(defaults))}-{ms(max(defaults))} ms)" +
      (f"; tasks whose default did not run (left out of that sum): {', '.join(map(str, missing))} per run"
       if missing != [0] else "") +
      ". Latencies are estimates: the sum over tasks of weight x best measured time; a task with no "
      "successful trial yet is left out, '-' is before the first round after the warm-up.")
EOF
if ((${#commands[@]} > 0)); then
  echo
  echo "Commands (seeds ${seeds[*]}, schedulers ${schedulers[*]}, each on a fresh database and POCL cache):"
  printf '    %s\n' "${commands[@]}" | awk '!seen[$0]++' | sed -n '1,3p'
  echo "    ..."
fi

if [[ "$onednn" == 1 ]]; then
  echo
  dbs=()
  while IFS=$'\t' read -r scheduler seed db wall; do dbs+=("$scheduler-$seed=$db"); done <"$manifest"
  SKIP_BUILD=1 BUILD_DIR="$build" THREADS="${THREADS:-2}" bench/network_onednn.sh "$network" "${dbs[@]}"
fi
