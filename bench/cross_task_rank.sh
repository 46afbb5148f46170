#!/usr/bin/env bash
# The cross-task cost model (src/model/cross_task_model.h) against a per-task cold start: a
# history of several GEMM workloads tuned briefly on the default device (random configs, so
# each workload's records are an unbiased sample of its space), then for each workload held
# back in turn: the cross-task model trained on the others' records, a model trained on
# FEW of the held-back workload's own records, and random scores, each ranking the held-back
# workload's other records: Spearman and Kendall rank correlation with the measured GFLOPS.
#
#   bench/cross_task_rank.sh            (records the history, then evaluates)
#
# Environment: TRIALS (40 per workload), FEW (8), BUILD_DIR (build, configured with
# -DTENSORTUNE_BENCH=ON for cross_task_rank), DB (bench-spaces/cross-task.db),
# SKIP_RECORD=1 to evaluate a history recorded before. The machine is measured while it
# records; the rank correlations need no device.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}" trials="${TRIALS:-40}" few="${FEW:-8}" db="${DB:-bench-spaces/cross-task.db}"
mkdir -p "$(dirname "$db")"
if [[ "${SKIP_RECORD:-0}" != 1 ]]; then
  for shape in 64,64,64 128,128,128 256,64,128 128,256,64 64,256,256 256,256,64; do
    "$build/bin/tensortune" tune --op gemm --shape "$shape" --tuner random --trials "$trials" --min-time 0.002 \
      --timeout 60 --db "$db" --progress none >&2
  done
fi
"$build/bin/cross_task_rank" "$db" gemm_tiled gemm:m=64,n=64,k=64 "$few"
