#!/usr/bin/env bash
# A small per-layer version of the history-based auto-tuning experiment: build a history by
# tuning other conv2d layers first, then tune one target layer from a copy of that history with
# each flow, and compare with tuners that start from nothing:
#   bench/warm_start_layers.sh [TRIALS] [HISTORY_TRIALS] [TEMPLATE] [SEED]
#   default: 40  40  conv2d_direct_vec  1
# Flows: gga (--tuner auto, threshold 0), xgb-tl (--tuner auto, threshold 1), and plain xgb and
# ga. Prints per flow the best GFLOPS after TRIALS, its wall-clock seconds, and the trials and
# seconds it took to reach xgb's final best. Fresh POCL kernel cache (POCL_KERNEL_CACHE=0).
# Environment: BUILD_DIR (default build), SKIP_BUILD=1 to use an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."

trials="${1:-40}"
history_trials="${2:-40}"
template="${3:-conv2d_direct_vec}"
seed="${4:-1}"
build="${BUILD_DIR:-build}"
export POCL_KERNEL_CACHE=0

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake --build "$build" --target tensortune tensortune-worker
fi
tt="$build/bin/tensortune"
work="$(mktemp -d "${TMPDIR:-/tmp}/tt-warm-start.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# History: VGG-16 and ResNet-18 layers other than the target (ResNet-18 conv 2-x).
history=(n=1,ci=64,h=56,w=56,co=128,kh=3,kw=3,stride=1,pad=1
         n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1)
target=n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1
echo "history: ${history[*]}, $history_trials trials each (xgb); target $target; $trials trials; $template; seed $seed; $(date -u +%Y-%m-%dT%H:%MZ)"
for shape in "${history[@]}"; do
  "$tt" tune --op conv2d --shape "$shape" --template "$template" --tuner xgb --trials "$history_trials" \
    --seed "$seed" --db "$work/history.db" >/dev/null
done

run() {  # name, tune options...
  local name="$1"; shift
  cp "$work/history.db" "$work/$name.db"
  local start end
  start="$(date +%s.%N)"
  "$tt" tune --op conv2d --shape "$target" --template "$template" --trials "$trials" --seed "$seed" \
    --db "$work/$name.db" "$@" \
    | grep '^auto:' || true
  end="$(date +%s.%N)"
  echo "$name $(python3 -c "print(round($end - $start, 1))")" >>"$work/seconds"
}
run gga --tuner auto --tuner-opt threshold=0
run xgb-tl --tuner auto --tuner-opt threshold=1
run xgb --tuner xgb
run ga --tuner ga

python3 - "$work" <<'PY'
import sqlite3, sys, datetime
work = sys.argv[1]
seconds = dict(line.split() for line in open(f"{work}/seconds"))
def trials(name):
    db = sqlite3.connect(f"{work}/{name}.db")
    run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
    start = db.execute("SELECT started_at FROM runs WHERE id = ?", (run,)).fetchone()[0]
    rows = db.execute("SELECT gflops, finished_at FROM trials WHERE run_id = ? ORDER BY id", (run,)).fetchall()
    t0 = datetime.datetime.fromisoformat(start.replace("Z", "+00:00"))
    return [(g, (datetime.datetime.fromisoformat(f.replace("Z", "+00:00")) - t0).total_seconds()) for g, f in rows]
runs = {name: trials(name) for name in ["gga", "xgb-tl", "xgb", "ga"]}
target = max(g for g, _ in runs["xgb"])
print(f"| flow | best GFLOPS | wall s | trials to xgb's final {target:.1f} GFLOPS | seconds to it |")
print("|---|---|---|---|---|")
for name, rows in runs.items():
    reach = next(((i + 1, s) for i, (g, s) in enumerate(rows) if g >= target), None)
    print(f"| {name} | {max(g for g, _ in rows):.1f} | {seconds[name]} | "
          f"{reach[0] if reach else '-'} | {f'{reach[1]:.0f}' if reach else '-'} |")
PY
