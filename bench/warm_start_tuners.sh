#!/usr/bin/env bash
# Every tuner replayed cold and warm-started from other devices' records of the same kernel,
# on Kernel Tuner caches (brute-forced spaces of real GPUs; the target device's space is held
# out, the others are the warm start): evaluations to 95% and 99% of the target's optimum,
# medians over seeds, cold -> warm. The table of docs/results.md.
#
#   bench/warm_start_tuners.sh DIR_WITH_CACHES
#
# DIR_WITH_CACHES holds convolution_milo__{A4000,A6000,W6600}.json.gz and
# dedispersion_milo__{A4000,A6000}.json.gz (the auto-tuning community's benchmark hub).
# Environment: SEEDS (20), TRIALS (300), TUNERS (bo,xgb,opevo,ga,gbfs,gga,random),
# PAIRS (1-5: which of the five target/source pairs below to replay, e.g. "2 3"),
# BUILD_DIR (build), OUT (bench-spaces/warm).
set -euo pipefail
cd "$(dirname "$0")/.."
caches=$1
seeds="${SEEDS:-20}" pairs="${PAIRS:-1 2 3 4 5}" trials="${TRIALS:-300}" tuners="${TUNERS:-bo,xgb,opevo,ga,gbfs,gga,random}"
tt="${BUILD_DIR:-build}/bin/tensortune" out="${OUT:-bench-spaces/warm}"
mkdir -p "$out"
db="$out/spaces.db"
rm -f "$db" "$out"/runs.jsonl
for f in "$caches"/*.json.gz; do
  gunzip -c "$f" > "$out/$(basename "$f" .gz)"
  "$tt" import "$out/$(basename "$f" .gz)" --db "$db" >/dev/null
done
# target space, target device, the devices it starts from
all_pairs=("convolution_kernel W6600 A4000,A6000" "convolution_kernel A4000 A6000"
           "convolution_kernel A6000 A4000" "dedispersion_kernel A6000 A4000"
           "dedispersion_kernel A4000 A6000")
for p in $pairs; do
  set -- ${all_pairs[$((p - 1))]}
  "$tt" compare --space "$1" --device "$2" --warm-from "$3" --db "$db" --tuners "$tuners" \
    --seeds "$seeds" --trials "$trials" --runs-out "$out/runs.jsonl"
done
/usr/bin/python3 bench/warm_start_table.py "$out/runs.jsonl"
