#!/usr/bin/env bash
# Tuners measured live on the device, several seeds each, side by side in one run:
#   bench/live_compare.sh [SHAPE] [TRIALS] [SEEDS] [TUNERS]
#   default: 512,512,512  60  3  opevo,xgb,ga,random
# Every run gets its own fresh database, so no tuner profits from another's history. Prints
# the best GFLOPS per seed and per tuner the median. Nothing else should run meanwhile.
# Environment: BUILD_DIR (default build-bench), SKIP_BUILD=1 to use an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."

shape="${1:-512,512,512}"
trials="${2:-60}"
seeds="${3:-3}"
tuners="${4:-opevo,xgb,ga,random}"
build="${BUILD_DIR:-build-bench}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker
fi
tt="$build/bin/tensortune"
work="$(mktemp -d "${TMPDIR:-/tmp}/tt-live-compare.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "gemm $shape, $trials trials, seeds 1..$seeds, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "| tuner | best GFLOPS per seed | median |"
echo "|---|---|---|"
for tuner in ${tuners//,/ }; do
  bests=()
  for seed in $(seq 1 "$seeds"); do
    json="$("$tt" tune --op gemm --shape "$shape" --tuner "$tuner" --trials "$trials" --seed "$seed" \
            --db "$work/$tuner-$seed.db" --json)"
    bests+=("$(python3 -c 'import json,sys; b=json.load(sys.stdin)["best"]; print("%.1f" % b["gflops"] if b else "0")' <<<"$json")")
  done
  median="$(printf '%s\n' "${bests[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')"
  echo "| $tuner | ${bests[*]} | $median |"
done
