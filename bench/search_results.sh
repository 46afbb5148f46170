#!/usr/bin/env bash
# Replays tensortune's tuners and Kernel Tuner's strategies on Kernel Tuner cache files
# (brute-forced spaces of real GPUs), 20 seeds x 300 evaluations, and prints the tables of
# docs/search-results.md: evaluations to 90/95/99% of each space's optimum and the fraction
# reached at 50/100/200, medians over seeds; then the cross-device warm starts.
#
#   bench/search_results.sh DIR_WITH_CACHES KERNEL_TUNER_CHECKOUT [CONSTRAINT_DIR]
#
# DIR_WITH_CACHES holds Kernel Tuner cache files (*.json.gz), e.g. the auto-tuning community's
# benchmark hub's convolution_milo__{A4000,A6000,W6600}.json.gz and
# dedispersion_milo__{A4000,A6000}.json.gz; every file is one space, replayed on its own.
# KERNEL_TUNER_CHECKOUT is a checkout of https://github.com/KernelTuner/kernel_tuner (1.4);
# CONSTRAINT_DIR holds python-constraint's constraint/ package (default: the checkout).
# tools/install-deps.sh --bench-kernel-tuner installs the Python packages it needs.
# Environment: STRATEGIES (all), SEEDS (20), BUILD_DIR (build), OUT (bench-spaces/search).
set -euo pipefail
cd "$(dirname "$0")/.."
caches=$1 kt=$2 constraint=${3:-$2}
seeds="${SEEDS:-20}" tt="${BUILD_DIR:-build}/bin/tensortune" out="${OUT:-bench-spaces/search}"
# Every strategy of Kernel Tuner 1.4 that runs in simulation mode (bayes_opt needs scikit-optimize).
strategies="${STRATEGIES:-genetic_algorithm,simulated_annealing,pso,firefly_algorithm,diff_evo,bayes_opt,dual_annealing,adaptive_tabu_greywolf,hybrid_vndx,basinhopping,greedy_ils,greedy_mls,mls,ordered_greedy_mls,random_sample,minimize}"
mkdir -p "$out"
db="$out/spaces.db"
rm -f "$db" "$out"/*.jsonl "$out/spaces.txt"
for f in "$caches"/*.json.gz; do
  gunzip -c "$f" > "$out/$(basename "$f" .gz)"
  # "... imported space KERNEL@HASH of N configurations on DEVICE (compare ...)": what compare replays.
  "$tt" import "$out/$(basename "$f" .gz)" --db "$db" |
    sed -n 's/.*imported space \([^@]*\)@[^ ]* of [0-9]* configurations on \(.*\) (compare.*/\1\t\2/p' >> "$out/spaces.txt"
  /usr/bin/python3 bench/kernel_tuner_side_by_side.py --kernel-tuner "$kt" --constraint "$constraint" \
    --cache "$f" --strategies "$strategies" --seeds "$seeds" --evals 300 --out "$out/kernel_tuner.jsonl" 2>/dev/null
done
while IFS=$'\t' read -r space device; do
  "$tt" compare --space "$space" --device "$device" --db "$db" --tuners bo,xgb,opevo,ga,gbfs,random \
    --seeds "$seeds" --trials 300 --runs-out "$out/tensortune.jsonl"
done < "$out/spaces.txt"
bench/search_results.py "$out/tensortune.jsonl" "$out/kernel_tuner.jsonl"
bench/search_results.py "$out/tensortune.jsonl" "$out/kernel_tuner.jsonl" --versus bo
bench/search_results.py "$out/tensortune.jsonl" "$out/kernel_tuner.jsonl" --head-to-head bo
# The cross-device warm starts, where the folder holds the hub's caches they use.
has() { grep -q "^$1	.*$2" "$out/spaces.txt"; }
if has convolution_kernel W6600 && has convolution_kernel A4000 && has convolution_kernel A6000; then
  "$tt" compare --space convolution_kernel --device W6600 --warm-from A4000,A6000 --db "$db" --tuners bo \
    --seeds "$seeds" --trials 300
fi
if has dedispersion_kernel A6000 && has dedispersion_kernel A4000; then
  "$tt" compare --space dedispersion_kernel --device A6000 --warm-from A4000 --db "$db" --tuners bo \
    --seeds "$seeds" --trials 300
fi
