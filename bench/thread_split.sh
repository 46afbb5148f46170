#!/usr/bin/env bash
# Does a tuned conv2d_oc_vec_nchwc config use POCL's second thread? For each shape in SHAPES
# (default: ResNet-18's 512-channel 7x7 layers, 3x3 stride 1 and stride 2) and each config key
# in KEYS (';'-separated knobs, the keys themselves separated by spaces; default: TRIALS xgb
# trials' best at two threads), the config is timed at POCL_MAX_PTHREAD_COUNT=1 and 2, then
# oneDNN's dnnl_conv at 1 and 2 threads, each twice, in turn, in one process each. Prints one
# line per timing (median ms). POCL's threads are pinned (POCL_AFFINITY=1).
#
# Environment: SHAPES, KEYS, TRIALS (32), BUILD_DIR (build: tensortune, tensortune-worker and
# dnnl_conv built there), MIN_TIME (0.5).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
tt="$build/bin/tensortune"
export TENSORTUNE_WORKER="$PWD/$build/bin/tensortune-worker" POCL_AFFINITY=1
shapes="${SHAPES:-n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1 n=1,ci=256,h=14,w=14,co=512,kh=3,kw=3,stride=2,pad=1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c "import json,sys; print(eval(sys.argv[1], {'j': json.load(sys.stdin)}))" "$1"; }

for shape in $shapes; do
  keys="${KEYS:-}"
  if [ -z "$keys" ]; then
    "$tt" tune --op conv2d --shape "$shape" --template conv2d_oc_vec_nchwc --trials "${TRIALS:-32}" --tuner xgb \
      --db "$tmp/tune.db" --json --progress none 2>/dev/null >"$tmp/tune.json"
    keys=$(field "j['best']['config_key']" <"$tmp/tune.json")
    rm -f "$tmp/tune.db"
  fi
  # shellcheck disable=SC2046  # the shape's fields, split on purpose
  set -- $(echo "$shape" | tr ',=' '  ')
  for key in $keys; do
    echo "$shape $key"
    pins=()
    IFS=';' read -ra knobs <<<"$key"
    for knob in "${knobs[@]}"; do pins+=(--pin "$knob"); done
    for threads in 1 2 1 2; do
      rm -f "$tmp/p.db"
      POCL_MAX_PTHREAD_COUNT=$threads "$tt" tune --op conv2d --shape "$shape" --template conv2d_oc_vec_nchwc \
        --trials 1 "${pins[@]}" --min-time "${MIN_TIME:-0.5}" --db "$tmp/p.db" --json --progress none \
        2>/dev/null >"$tmp/p.json"
      echo "  tensortune, POCL threads $threads: $(field "'%.3f ms' % (j['best']['time_s'] * 1e3)" <"$tmp/p.json")"
    done
    for threads in 1 2 1 2; do
      OMP_NUM_THREADS=$threads "$build/bin/dnnl_conv" "$2" "$4" "$6" "$8" "${10}" "${12}" "${14}" "${16}" "${18}" \
        "$threads" 2>/dev/null | tail -1 >"$tmp/d.json"
      echo "  oneDNN, threads $threads: $(field "'%.3f ms' % (j['median_s'] * 1e3)" <"$tmp/d.json")"
    done
  done
done
