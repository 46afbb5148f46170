#!/usr/bin/env bash
# The history-based auto-tuning experiment on this machine's default device:
#   1. history: every distinct conv layer of VGG-16 and AlexNet, tuned with xgb
#      (HISTORY_TRIALS trials each) into one database;
#   2. ResNet-18: every distinct conv layer tuned with each flow (TRIALS trials per layer), each
#      flow on its own copy of that history, layer after layer (so a flow also learns from the
#      ResNet-18 layers it tuned before, as a user's database grows), flows interleaved per
#      layer so that machine noise falls on all of them alike:
#        gga          --tuner auto, threshold 0 (the guided GA from adapted history records)
#        xgb-tl       --tuner auto, threshold 1 (XGBoost pre-trained on filtered history)
#        xgb-tl-all   the same with filter=0 (every ok record, unfiltered: the paper's Fig. 4)
#        xgb, ga      from nothing
#      and what `--tuner auto` with its default threshold would have chosen per layer;
#   3. fallback: `tensortune best` on pruned shapes no database has seen, the fallback config
#      measured (every knob pinned), against the same shape tuned with xgb (TRIALS trials).
# Prints markdown tables: per layer the best GFLOPS of each flow, the estimated ResNet-18 conv
# latency (layer weights from `tasks resnet18`), trials and seconds to reach xgb's final best
# per layer, and the fallback ratios. Every tune runs with a fresh POCL kernel cache
# (POCL_KERNEL_CACHE=0) on one CPU core (CPU, default 1) with one POCL thread, so that the
# wall-clock figures do not profit from earlier compiles or another core's load.
#   bench/history_experiment.sh [TRIALS] [HISTORY_TRIALS] [TEMPLATE] [SEED]
#   default: 24  16  conv2d_oc_vec  1
# Environment: BUILD_DIR (build), SKIP_BUILD=1, CPU (1), WORK (a directory to keep everything
# in; default a temporary one, removed at the end), HISTORY (a history database from an earlier
# run's WORK to start from instead of building one), PLAN_SIZE and GA_POP (below).
set -euo pipefail
cd "$(dirname "$0")/.."

trials="${1:-24}"
history_trials="${2:-16}"
template="${3:-conv2d_oc_vec}"
seed="${4:-1}"
build="${BUILD_DIR:-build}"
export POCL_KERNEL_CACHE=0 POCL_MAX_PTHREAD_COUNT=1

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake --build "$build" --target tensortune tensortune-worker >&2
fi
tt=(taskset -c "${CPU:-1}" "$build/bin/tensortune")
if [[ -n "${WORK:-}" ]]; then
  work="$WORK"
  mkdir -p "$work"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/tt-history-experiment.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi

conv_shapes() {  # network -> its distinct conv2d shapes, one per line
  "${tt[@]}" tasks "$1" --json | python3 -c '
import json, sys
for task in json.load(sys.stdin):
    if task["op"] == "conv2d":
        print(task["workload"].split(":", 1)[1])'
}

tune() {  # db, log name, tune options...
  local db="$1" log="$2"; shift 2
  "${tt[@]}" tune --op conv2d --template "$template" --seed "$seed" --db "$db" --json "$@" \
    >"$work/logs/$log.json" 2>"$work/logs/$log.err"
}

mkdir -p "$work/logs"
echo "template $template; $trials trials per ResNet-18 layer; history $history_trials trials per layer;" \
  "seed $seed; PLAN_SIZE ${PLAN_SIZE:-default}; GA_POP ${GA_POP:-default}; CPU ${CPU:-1}; started $(date -u +%Y-%m-%dT%H:%MZ); commit $(git rev-parse --short HEAD)"

if [[ -n "${HISTORY:-}" ]]; then
  cp "$HISTORY" "$work/history.db"  # a history built before (its trials are not re-measured)
else
  i=0
  for net in vgg16 alexnet; do
    while read -r shape; do
      i=$((i + 1))
      echo "history $net $shape" >&2
      tune "$work/history.db" "history-$i" --shape "$shape" --tuner xgb --trials "$history_trials"
    done < <(conv_shapes "$net")
  done
fi

flows=(gga xgb-tl xgb-tl-all xgb ga)
# With PLAN_SIZE the XGBoost models refit after that many trials (default 64: xgb stays random
# for its first 64 trials, as AutoTVM's does); with GA_POP ga breeds generations of that size.
xgb_opts="${PLAN_SIZE:+--tuner-opt plan_size=$PLAN_SIZE}"
xgb_tl_opts="${PLAN_SIZE:+--tuner-opt xgb-tl.plan_size=$PLAN_SIZE}"
ga_opts="${GA_POP:+--tuner-opt pop_size=$GA_POP --tuner-opt elite_num=$((GA_POP / 4))}"
declare -A options=(
  [gga]="--tuner auto --tuner-opt threshold=0"
  [xgb-tl]="--tuner auto --tuner-opt threshold=1 $xgb_tl_opts"
  [xgb-tl-all]="--tuner auto --tuner-opt threshold=1 --tuner-opt filter=0 $xgb_tl_opts"
  [xgb]="--tuner xgb $xgb_opts"
  [ga]="--tuner ga $ga_opts"
)
for flow in "${flows[@]}"; do cp "$work/history.db" "$work/$flow.db"; done
layer=0
while read -r shape; do
  layer=$((layer + 1))
  # What auto with its default threshold would choose from the gga database as it stands.
  cp "$work/gga.db" "$work/choice.db"
  "${tt[@]}" tune --op conv2d --template "$template" --shape "$shape" --tuner auto --trials 1 \
    --db "$work/choice.db" 2>&1 | grep '^auto:' >"$work/logs/choice-$layer.txt" || true
  for flow in "${flows[@]}"; do
    echo "resnet18 layer $layer $flow $shape" >&2
    # shellcheck disable=SC2086  # the options are words
    tune "$work/$flow.db" "$flow-$layer" --shape "$shape" --trials "$trials" ${options[$flow]}
  done
done < <(conv_shapes resnet18)

# Fallback on pruned shapes: the config `best` adapts from the gga database, measured alone.
pruned=(n=1,ci=57,h=28,w=28,co=117,kh=3,kw=3,stride=1,pad=1
        n=1,ci=117,h=14,w=14,co=203,kh=3,kw=3,stride=1,pad=1
        n=1,ci=203,h=7,w=7,co=203,kh=3,kw=3,stride=1,pad=1)
p=0
for shape in "${pruned[@]}"; do
  p=$((p + 1))
  echo "fallback $shape" >&2
  "${tt[@]}" best --op conv2d --shape "$shape" --template "$template" --db "$work/gga.db" >"$work/logs/best-$p.json"
  pins=()
  IFS=';' read -r -a knobs <<<"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config_key"])' \
    "$work/logs/best-$p.json")"
  for knob in "${knobs[@]}"; do pins+=(--pin "$knob"); done
  tune "$work/fallback.db" "fallback-$p" --shape "$shape" --tuner random --trials 1 "${pins[@]}"
  tune "$work/pruned-xgb.db" "pruned-xgb-$p" --shape "$shape" --tuner xgb --trials "$trials"
done

"${tt[@]}" tasks resnet18 --json >"$work/resnet18.json"
python3 bench/history_experiment_report.py "$work" "${flows[@]}"
