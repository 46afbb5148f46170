#!/usr/bin/env bash
# bench/mpi_scaling.sh BIN_DIR [tune options...]
#
# Scaling of tensortune-mpi with the simulated device: 1 + W ranks on this machine
# (oversubscribed) for W = 1, 2, 4, 8, 16 worker ranks, each config taking LATENCY_MS (default
# 200) on its rank, as a farm of devices would. Rank 0 runs the real tuner (TUNER, default xgb)
# and records every batch in SQLite. A run's trials per second are its trials over the span
# from its first trial's start to its last trial's end in the database (mpirun's start-up is
# not counted), with PER_WORKER (default 48) trials per worker rank. Prints per W: trials/s,
# the ideal W x the W = 1 rate, and the ratio to 0.9 x that (>= 1 meets the target); also
# one process (tensortune, no MPI) on the same simulated device, for reference.
# Databases and logs are kept in OUT (default: a new temporary folder).
set -euo pipefail
(($# >= 1)) || { echo "usage: bench/mpi_scaling.sh BIN_DIR [tune options...]" >&2; exit 2; }
bin=$1
shift
[[ -x "$bin/tensortune-mpi" ]] || { echo "mpi_scaling.sh: no tensortune-mpi in $bin" >&2; exit 2; }
latency=${LATENCY_MS:-200} tuner=${TUNER:-xgb} per_worker=${PER_WORKER:-48}
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tt-mpi-scaling.XXXXXX")}"
mkdir -p "$out"
root=()
(($(id -u) == 0)) && root=(--allow-run-as-root)
task=(tune --op gemm --shape 512,512,512 --device "fake:$latency" --tuner "$tuner" --seed 1)

rate() {  # database: trials per second over the span of its trials
  sqlite3 "$1" "SELECT printf('%.2f', count(*) / ((julianday(max(finished_at)) - julianday(min(started_at))) * 86400))
                FROM trials"
}

"$bin/tensortune" "${task[@]}" --trials "$per_worker" --db "$out/single.db" "$@" >"$out/single.log" 2>&1
echo "latency ${latency} ms per config, tuner $tuner, $per_worker trials per worker rank"
echo "one process (tensortune): $(rate "$out/single.db") trials/s"
printf "%8s %8s %12s %12s %14s\n" workers trials "trials/s" "ideal" "/ (0.9 ideal)"
base=""
for workers in 1 2 4 8 16; do
  db="$out/w$workers.db"
  rm -f "$db"
  mpirun "${root[@]}" --oversubscribe --mca btl_vader_single_copy_mechanism none -n $((workers + 1)) \
    "$bin/tensortune-mpi" "${task[@]}" --trials $((per_worker * workers)) --db "$db" "$@" >"$out/w$workers.log" 2>&1
  r=$(rate "$db")
  [[ -z "$base" ]] && base=$r
  ideal=$(echo "$base * $workers" | bc -l)
  printf "%8d %8d %12.2f %12.2f %14.2f\n" "$workers" "$(sqlite3 "$db" "SELECT count(*) FROM trials")" "$r" "$ideal" \
    "$(echo "$r / (0.9 * $ideal)" | bc -l)"
done
echo "databases and logs: $out"
