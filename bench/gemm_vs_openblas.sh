#!/usr/bin/env bash
# Tuned GEMM against OpenBLAS on the same machine, one after the other:
#   (a) tensortune tune --op gemm --shape 1024,1024,1024 --tuner random --trials 200 --seed 1
#       on a fresh temporary database;
#   (b) blas_sgemm 1024 1024 1024 2 (OpenBLAS cblas_sgemm, 2 threads);
# then prints a markdown table. Nothing else should run meanwhile: the machine is measured.
#
# Environment: BUILD_DIR (default build-bench), TRIALS (200), SEED (1), THREADS (2, OpenBLAS),
# SKIP_BUILD=1 to use an existing build, KEEP_DB=1 to keep the temporary database.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
trials="${TRIALS:-200}"
seed="${SEED:-1}"
threads="${THREADS:-2}"
shape="1024,1024,1024"

command -v python3 >/dev/null || { echo "gemm_vs_openblas.sh: python3 is needed to read the JSON" >&2; exit 3; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker blas_sgemm >&2
fi
tt="$build/bin/tensortune"
blas="$build/bin/blas_sgemm"

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-gemm-vs-openblas.XXXXXX")"
if [[ "${KEEP_DB:-0}" == 1 ]]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

date_utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
device_line="$("$tt" devices | sed -n 2p | sed -E 's/^ +//; s/  +/ | /g')"

# (a) tuned GEMM
tune_cmd=("$tt" tune --op gemm --shape "$shape" --tuner random --trials "$trials" --seed "$seed"
          --db "$work/history.db" --json)
echo "running: ${tune_cmd[*]}" >&2
t0=$(date +%s)
"${tune_cmd[@]}" >"$work/tune.json"
t1=$(date +%s)

# (b) OpenBLAS
IFS=, read -r m n k <<<"$shape"
echo "running: $blas $m $n $k $threads" >&2
OPENBLAS_NUM_THREADS="$threads" "$blas" "$m" "$n" "$k" "$threads" >"$work/blas.json"

python3 - "$work/tune.json" "$work/blas.json" "$date_utc" "$device_line" "$(nproc)" "$((t1 - t0))" \
  "${tune_cmd[*]}" "$blas $m $n $k $threads" <<'EOF'
import json, sys
tune = json.load(open(sys.argv[1]))
blas = json.load(open(sys.argv[2]))
date, device, nproc, wall, tune_cmd, blas_cmd = sys.argv[3:9]
best = tune["best"] or {}
g_tuned = best.get("gflops", 0.0)
g_blas = blas["gflops"]
statuses = ", ".join(f"{k} {v}" for k, v in sorted(tune["statuses"].items()))
print(f"GEMM {tune['workload']} ({date}; device: {device}; nproc {nproc})\n")
print("| | |\n|---|---|")
print(f"| tuned best GFLOPS (median of repeats) | {g_tuned:.2f} |")
print(f"| tuned best time | {best.get('time_s', 0) * 1e3:.3f} ms |")
print(f"| OpenBLAS GFLOPS (median of {blas['repeats']}, {blas['threads']} threads) | {g_blas:.2f} |")
print(f"| OpenBLAS median / min time | {blas['median_s'] * 1e3:.3f} / {blas['min_s'] * 1e3:.3f} ms |")
print(f"| ratio tuned / OpenBLAS | {g_tuned / g_blas:.3f} |")
print(f"| best config key | `{best.get('config_key', '-')}` |")
print(f"| trials, statuses | {tune['trials']}: {statuses} |")
print(f"| tuning wall time | {wall} s |")
print(f"\ntune:     {tune_cmd}\nopenblas: {blas_cmd}")
print("\n```json")
print(json.dumps({"tune": tune, "openblas": blas}, indent=2))
print("```")
EOF
