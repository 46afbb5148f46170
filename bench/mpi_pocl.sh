#!/usr/bin/env bash
# bench/mpi_pocl.sh BIN_DIR TRIALS [tune options...]
#
# The same tuning budget on POCL (the CPU) two ways, one after the other: one tensortune
# process with two cores (taskset -c 0,1; two builders), and tensortune-mpi with two worker
# ranks of one core each (taskset -c 0 and -c 1; one builder each; rank 0, which only tunes
# and records, unpinned). Each run gets a fresh database and POCL kernel cache. Prints per
# run: wall seconds, trials per hour, and the best config found, with its GFLOPS as the run
# measured it and re-timed on two cores (a one-core rank measures a kernel on one core).
# Databases and logs are kept in OUT (default: a new temporary folder).
set -euo pipefail
(($# >= 2)) || { echo "usage: bench/mpi_pocl.sh BIN_DIR TRIALS [tune options...]" >&2; exit 2; }
bin=$1 trials=$2
shift 2
[[ -x "$bin/tensortune-mpi" ]] || { echo "mpi_pocl.sh: no tensortune-mpi in $bin" >&2; exit 2; }
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tt-mpi-pocl.XXXXXX")}"
mkdir -p "$out"
root=()
(($(id -u) == 0)) && root=(--allow-run-as-root)
task=(tune --op "${OP:-gemm}" --shape "${SHAPE:-256,256,256}" --tuner "${TUNER:-xgb}" --seed 1 --trials "$trials")

timed() {  # name, command...: runs it, keeps its log and wall seconds
  local name=$1 start
  shift
  rm -rf "$out/$name.db" "$out/pocl-$name"
  start=$(date +%s.%N)
  POCL_CACHE_DIR="$out/pocl-$name" "$@" >"$out/$name.log" 2>&1 || echo "$name: exit $?" >&2
  echo "$(date +%s.%N) - $start" | bc >"$out/$name.wall"
}

timed single taskset -c 0,1 "$bin/tensortune" "${task[@]}" --builders 2 --db "$out/single.db" "$@"
mpi=("${task[@]}" --builders 1 --db "$out/mpi.db" "$@")
timed mpi mpirun "${root[@]}" --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none \
  -x POCL_CACHE_DIR -n 1 "$bin/tensortune-mpi" "${mpi[@]}" \
  : -n 1 taskset -c 0 "$bin/tensortune-mpi" "${mpi[@]}" : -n 1 taskset -c 1 "$bin/tensortune-mpi" "${mpi[@]}"

# The best config of a run, timed again by one process on two cores: a sweep of that one
# config (every knob pinned) into a scratch database.
retime() {
  local key pins=()
  key=$(sqlite3 "$out/$1.db" "SELECT config_key FROM trials WHERE status='ok' ORDER BY time_s LIMIT 1")
  IFS=';' read -ra parts <<<"$key"
  for p in "${parts[@]}"; do pins+=(--pin "$p"); done
  rm -f "$out/retime-$1.db"
  taskset -c 0,1 "$bin/tensortune" sweep --op "${OP:-gemm}" --shape "${SHAPE:-256,256,256}" --limit 1 "${pins[@]}" \
    --json --db "$out/retime-$1.db" >/dev/null 2>&1 || true
  sqlite3 "$out/retime-$1.db" "SELECT printf('%.2f', max(gflops)) FROM trials WHERE status='ok'"
}

printf "%-28s %8s %8s %10s %12s %14s  %s\n" run trials "wall s" "trials/h" "best GFLOPS" "re-timed 2c" "best config"
for name in single mpi; do
  wall=$(cat "$out/$name.wall")
  n=$(sqlite3 "$out/$name.db" "SELECT count(*) FROM trials")
  best=$(sqlite3 "$out/$name.db" "SELECT printf('%.2f', max(gflops)) FROM trials WHERE status='ok'")
  key=$(sqlite3 "$out/$name.db" "SELECT config_key FROM trials WHERE status='ok' ORDER BY time_s LIMIT 1")
  label=$([[ $name == single ]] && echo "1 process, 2 cores" || echo "2 ranks x 1 core (mpirun)")
  printf "%-28s %8d %8.0f %10.0f %12s %14s  %s\n" "$label" "$n" "$wall" "$(echo "$n * 3600 / $wall" | bc -l)" "$best" \
    "$(retime "$name")" "$key"
done
echo "databases and logs: $out"
