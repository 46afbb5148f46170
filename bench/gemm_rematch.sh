#!/usr/bin/env bash
# The tuned best GEMM of a history database against OpenBLAS and oneDNN once more, interleaved:
# ROUNDS rounds, each measuring the best verified config of DB for SHAPE (one `tensortune tune
# --trials 1` with every knob pinned, on a fresh database), then blas_sgemm and dnnl_sgemm with
# THREADS threads. Prints one markdown row: the medians and the ratios of medians. A second look
# at ops_vs_libraries.sh, which runs each library once, after the tune: on a shared machine one
# run of a library can read half its usual figure.
#
#   DB=gemm.db SHAPE=1024,1024,1024 bench/gemm_rematch.sh
#
# Environment: DB, SHAPE (M,N,K), ROUNDS (5), THREADS (2, the libraries; POCL's threads are its
# own, POCL_MAX_PTHREAD_COUNT), MIN_TIME (0.3 s timed per tensortune measurement), BUILD_DIR
# (build-bench: needs tensortune, tensortune-worker, blas_sgemm and dnnl_sgemm).
set -euo pipefail
db="$(realpath "${DB:?DB: a history database with trials of SHAPE}")"
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
shape="${SHAPE:?SHAPE: M,N,K}"
rounds="${ROUNDS:-5}"
threads="${THREADS:-2}"
min_time="${MIN_TIME:-0.3}"
IFS=, read -r m n k <<<"$shape"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

best_json="$("$build/bin/tensortune" best --db "$db" --op gemm --shape "$shape")" ||
  { echo "gemm_rematch.sh: no best config of gemm $shape in $db" >&2; exit 2; }
# A fallback (a similar workload's config) is no tuned figure of SHAPE.
key="$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit("gemm_rematch.sh: %s holds no trial of gemm %s, only a fallback" % (sys.argv[2], sys.argv[3])) if d.get("fallback") else print(d["config_key"])' \
  "$best_json" "$db" "$shape")" || exit 2
pins=()
IFS=';' read -r -a parts <<<"$key"
for part in "${parts[@]}"; do pins+=(--pin "$part"); done

gflops() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(d.get("best", d)["gflops"])'; }
tuned=() blas=() dnnl=()
for ((r = 0; r < rounds; ++r)); do
  tuned+=("$("$build/bin/tensortune" tune --op gemm --shape "$shape" "${pins[@]}" --trials 1 --min-time "$min_time" \
    --db "$work/$r.db" --json | gflops)")
  blas+=("$(OPENBLAS_NUM_THREADS="$threads" "$build/bin/blas_sgemm" "$m" "$n" "$k" "$threads" | gflops)")
  dnnl+=("$(OMP_NUM_THREADS="$threads" "$build/bin/dnnl_sgemm" "$m" "$n" "$k" "$threads" | gflops)")
done

python3 - "$shape" "$key" "${tuned[*]}" "${blas[*]}" "${dnnl[*]}" <<'EOF'
import statistics, sys
shape, key, *runs = sys.argv[1:]
tuned, blas, dnnl = (statistics.median(float(x) for x in r.split()) for r in runs)
print("| shape | tuned GFLOPS | OpenBLAS | tuned / OpenBLAS | oneDNN sgemm | tuned / oneDNN | config |")
print("|---|---:|---:|---:|---:|---:|---|")
print(f"| {shape} | {tuned:.2f} | {blas:.2f} | **{tuned / blas:.3f}** | {dnnl:.2f} | **{tuned / dnnl:.3f}** | `{key}` |")
print("runs:", *(f"{name} {r}" for name, r in zip(("tuned", "OpenBLAS", "oneDNN"), runs)), sep="\n  ")
EOF
