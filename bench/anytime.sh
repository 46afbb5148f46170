#!/usr/bin/env bash
# bench/anytime.sh: what a tuning budget buys, network by network. For every network, budget
# and seed: tune-network with the defaults into a fresh database and a fresh POCL kernel cache
# (POCL_CACHE_DIR), its anytime curve kept (tune-network --json: the estimated network latency
# after each round), then the tuned network re-timed side by side with oneDNN by
# bench/run_network_onednn.sh (run-network on the tuned kernels, oneDNN on the same layers, on
# THREADS threads pinned to CPUS). Prints one table row per run and the medians over seeds, and
# writes every run's JSON under OUT.
#
# Environment: NETWORKS ("resnet18 mobilenet_v1 vgg16"), BUDGETS ("24 48 96 200 400"), SEEDS
# ("1 2 3"), OUT (bench-anytime-<date>), THREADS (1), CPUS (0), ROUNDS (3), MIN_TIME (1),
# BUILD_DIR (build-bench), SKIP_BUILD=1 to use an existing build, TUNE_CPUS (unset: tune-network
# on every core; "0": tuning pinned to that core list with as many POCL threads, so that other
# work can use the rest), PREFIX=1 (one run of the largest budget per network and seed, each
# smaller budget re-timed on its first N trials: bench/history_prefix.py; the full run's
# re-timed leaders keep their merged times in the prefixes, which are not re-timed themselves:
# pass --retime-share 0 for prefixes of a run without re-timing), HISTORY_NETWORKS
# (e.g. "alexnet vgg16": tuned first, HISTORY_TRIALS (400) trials each, seed 1, into one
# database that every run then starts from, a copy each: what a grown history buys), or
# HISTORY_DB (such a database built before). Extra arguments go to every tune-network (e.g. --tuner auto). Nothing
# else should run on the cores measured: the figures are times.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pocl_affinity.sh

networks="${NETWORKS:-resnet18 mobilenet_v1 vgg16}"
budgets="${BUDGETS:-24 48 96 200 400}"
seeds="${SEEDS:-1 2 3}"
out="${OUT:-bench-anytime-$(date -u +%Y%m%dT%H%M%SZ)}"
build="${BUILD_DIR:-build-bench}"
export BUILD_DIR="$build"
for n in $networks $budgets $seeds; do
  [[ "$n" =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "anytime.sh: bad item '$n' in NETWORKS, BUDGETS or SEEDS" >&2; exit 2; }
done
for b in $budgets $seeds; do
  [[ "$b" =~ ^[0-9]+$ && "$b" -gt 0 ]] || { echo "anytime.sh: '$b' is not a positive count" >&2; exit 2; }
done

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker dnnl_conv dnnl_sgemm dnnl_network >&2
fi
[[ -x "$build/bin/tensortune" ]] || { echo "anytime.sh: $build/bin/tensortune is missing" >&2; exit 3; }
pin=(env)
if [[ -n "${TUNE_CPUS:-}" ]]; then
  [[ "$TUNE_CPUS" =~ ^[0-9,-]+$ ]] || { echo "anytime.sh: TUNE_CPUS '$TUNE_CPUS' is not a core list" >&2; exit 2; }
  tune_threads="$(taskset -c "$TUNE_CPUS" nproc)"
  # Where POCL's workers may be pinned, tensortune pins its timing worker and leaves its builders
  # be (docs/architecture.md, "CPU driver threads"); POCL_AFFINITY=1 here would pin the builders
  # too. Elsewhere 0, so that no binary pins a worker outside TUNE_CPUS.
  unpinned=()
  [[ "$(pocl_affinity "$TUNE_CPUS" "$tune_threads")" == 1 ]] || unpinned=(POCL_AFFINITY=0)
  pin=(env "${unpinned[@]}" POCL_MAX_PTHREAD_COUNT="$tune_threads" taskset -c "$TUNE_CPUS")
fi
mkdir -p "$out"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "bench/anytime.sh at commit $commit: networks '$networks', budgets '$budgets', seeds '$seeds', tuning on cores '${TUNE_CPUS:-all}', prefixes ${PREFIX:-0}, history '${HISTORY_NETWORKS:-${HISTORY_DB:-none}}'" | tee "$out/command.txt"

# One fresh tune-network run into DIR: its JSON, its wall clock.
tune() {
  local dir=$1 budget=$2 seed=$3
  shift 3
  rm -rf "$dir"
  mkdir -p "$dir/pocl-cache"
  [[ -z "${HISTORY_NETWORKS:-}${HISTORY_DB:-}" ]] || cp "$out/history-base/history.db" "$dir/history.db"
  local start
  start=$(date +%s.%N)
  POCL_CACHE_DIR="$dir/pocl-cache" "${pin[@]}" "$build/bin/tensortune" tune-network "$network" --trials "$budget" \
    --seed "$seed" --db "$dir/history.db" --json "$@" >"$dir/tune.json"
  python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$start" "$(date +%s.%N)" \
    >"$dir/tuning_s.txt"
}

retime() {
  POCL_CACHE_DIR="$1/pocl-cache" SKIP_BUILD=1 bench/run_network_onednn.sh "$network" "$1/history.db" >"$1/onednn.md"
}

if [[ -n "${HISTORY_DB:-}" ]]; then  # a history built before
  mkdir -p "$out/history-base"
  /usr/bin/python3 -c 'import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d)' \
    "$HISTORY_DB" "$out/history-base/history.db"
elif [[ -n "${HISTORY_NETWORKS:-}" ]]; then
  base="$out/history-base"
  rm -rf "$base"
  mkdir -p "$base/pocl-cache"
  for network in $HISTORY_NETWORKS; do
    echo "== history: $network, ${HISTORY_TRIALS:-400} trials" >&2
    POCL_CACHE_DIR="$base/pocl-cache" "${pin[@]}" "$build/bin/tensortune" tune-network "$network" \
      --trials "${HISTORY_TRIALS:-400}" --seed 1 --db "$base/history.db" --json "$@" >"$base/$network.json"
  done
  /usr/bin/python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' \
    "$base/history.db"
fi

largest=$(printf '%s\n' $budgets | sort -n | tail -1)
for network in $networks; do
  for seed in $seeds; do
    if [[ "${PREFIX:-0}" == 1 ]]; then
      # One run of the largest budget; each smaller budget is its first N trials.
      full="$out/$network-full-$seed"
      echo "== $network, $largest trials, seed $seed" >&2
      tune "$full" "$largest" "$seed" "$@"
      for budget in $budgets; do
        run="$out/$network-$budget-$seed"
        rm -rf "$run"
        /usr/bin/python3 bench/history_prefix.py "$full" "$budget" "$run"
        ln -s "$(cd "$full" && pwd)/pocl-cache" "$run/pocl-cache"
        retime "$run"
      done
      continue
    fi
    for budget in $budgets; do
      run="$out/$network-$budget-$seed"
      echo "== $network, $budget trials, seed $seed" >&2
      tune "$run" "$budget" "$seed" "$@"
      retime "$run"
    done
  done
done

/usr/bin/python3 bench/anytime_summary.py "$out" "$networks" "$budgets" "$seeds" "$commit" | tee "$out/summary.md"
