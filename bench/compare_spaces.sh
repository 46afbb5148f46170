#!/usr/bin/env bash
# Records two GEMM 256x256x256 spaces completely on the default device, then replays every
# tuner on each (tensortune compare). The full gemm_tiled space at 256^3 has about 7.8e7 raw
# points, far too many to measure; pinning knobs cuts out spaces that can be measured whole,
# so that every configuration a tuner proposes has a recorded answer:
#   small  vec=8, no local staging, tile_y=[4,1,8,8], tile_k=[1,32,8]: tile_x and
#          auto_unroll_max_step free (452 valid configurations);
#   large  vec=8, no local staging, tile_k=[1,32,8], auto_unroll_max_step=0: tile_x and
#          tile_y free (3359 valid configurations).
# Nothing else should run while recording: the machine is measured. Replays need no device.
#
# Environment: DB_DIR (where spaces-*.db are kept; default bench-spaces), BUILD_DIR
# (build-bench), SEEDS (20), SKIP_BUILD=1 to use an existing build, SKIP_RECORD=1 to replay
# databases recorded before.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
db_dir="${DB_DIR:-bench-spaces}"
seeds="${SEEDS:-20}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker >&2
fi
tt="$build/bin/tensortune"
mkdir -p "$db_dir"

common_pins=(--pin vec=8 --pin local_a=0 --pin local_b=0 --pin "tile_k=[1,32,8]")
small_pins=("${common_pins[@]}" --pin "tile_y=[4,1,8,8]")
large_pins=("${common_pins[@]}" --pin auto_unroll_max_step=0)

run_space() {
  local name=$1 trials=$2
  shift 2
  local db="$db_dir/spaces-$name.db"
  if [[ "${SKIP_RECORD:-0}" != 1 ]]; then
    echo "recording $name into $db" >&2
    "$tt" sweep --op gemm --shape 256,256,256 "$@" --limit 4000 --min-time 0.02 --batch-size 16 --db "$db" >&2
  fi
  echo "## $name"
  echo
  "$tt" compare --op gemm --shape 256,256,256 "$@" --db "$db" --tuners opevo,ga,xgb,random \
    --seeds "$seeds" --trials "$trials"
  echo
}

run_space small 200 "${small_pins[@]}"
run_space large 300 "${large_pins[@]}"
