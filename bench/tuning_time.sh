#!/usr/bin/env bash
# bench/tuning_time.sh NETWORK TRIALS BIN_DIR_A BIN_DIR_B [tune-network options...]
#
# Tuning time side by side: the tensortune in BIN_DIR_A and the one in BIN_DIR_B (each a folder
# holding tensortune and tensortune-worker, e.g. two builds' bin/) run `tune-network NETWORK
# --trials TRIALS` at the same time, with the same seed and options and a fresh POCL kernel
# cache each, so that whatever else loads the machine loads both. Prints per side: wall
# seconds, trials per hour, timeouts and the wall seconds they cost, the estimated network
# latency, and where the wall clock went when the database records it (network_time_split,
# schema 5 and later); then the ratio of trials per hour, B / A. Databases and logs are kept
# in OUT (default: a new temporary folder).
set -euo pipefail
(($# >= 4)) || { echo "usage: bench/tuning_time.sh NETWORK TRIALS BIN_DIR_A BIN_DIR_B [options...]" >&2; exit 2; }
network=$1 trials=$2 a=$3 b=$4
shift 4
for dir in "$a" "$b"; do
  [[ -x "$dir/tensortune" && -x "$dir/tensortune-worker" ]] || { echo "tuning_time.sh: no tensortune in $dir" >&2; exit 2; }
done
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tt-tuning-time.XXXXXX")}"
mkdir -p "$out"
run() {  # side, bin dir, then the tune-network options
  local side=$1 bin=$2 start end
  shift 2
  rm -rf "$out/pocl-$side" "$out/$side.db"
  start=$(date +%s.%N)
  POCL_CACHE_DIR="$out/pocl-$side" "$bin/tensortune" tune-network "$network" --trials "$trials" --db "$out/$side.db" \
    --seed "${SEED:-1}" "$@" >"$out/$side.log" 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc >"$out/$side.wall"
}
run A "$a" "$@" &
run B "$b" "$@" &
wait
echo "$network, $trials trials, run side by side; databases and logs in $out"
echo
echo "| side | wall s | trials/hour | timeouts | their wall s | estimated latency | build s | first launch s | check s | timed s |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
for side in A B; do
  db="$out/$side.db" wall=$(cat "$out/$side.wall")
  bin=$([[ $side == A ]] && echo "$a" || echo "$b")
  n=$("$bin/tensortune" sql --db "$db" "SELECT count(*) FROM trials" | tail -1)
  timeouts=$("$bin/tensortune" sql --db "$db" "SELECT count(*) FROM trials WHERE status = 'timeout'" | tail -1)
  latency=$(grep -o 'estimated latency [0-9.]* ms' "$out/$side.log" | tail -1 || true)
  split=$("$bin/tensortune" sql --db "$db" --json "SELECT * FROM network_time_split" 2>/dev/null || echo "")
  python3 - "$side" "$wall" "$n" "$timeouts" "${latency:-?}" "$split" <<'PY'
import json, sys
side, wall, n, timeouts, latency, split = sys.argv[1:7]
wall, n = float(wall), int(n)
row = {}
try:
    rows = json.loads(split)
    row = rows[0] if rows else {}
except ValueError:
    pass
f = lambda key: f"{row[key]:.0f}" if key in row else "-"
print(f"| {side} | {wall:.0f} | {3600 * n / wall:.0f} | {timeouts} | {f('timeout_wall_s')} | {latency} | "
      f"{f('build_s')} | {f('first_launch_s')} | {f('verify_s')} | {f('timed_s')} |")
PY
done
echo
python3 - "$out" <<'PY'
import sys
out = sys.argv[1]
walls = {s: float(open(f"{out}/{s}.wall").read()) for s in "AB"}
print(f"trials per hour, B / A: {walls['A'] / walls['B']:.2f}x (same trials on both sides)")
PY
