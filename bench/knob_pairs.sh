#!/usr/bin/env bash
# One knob's effect on fixed configs, side by side: each config of CONFIGS (config keys as
# `tensortune tune` prints them, one per line, without the knob) is measured with KNOB at each
# of VALUES, the values alternating within each of ROUNDS rounds so that the machine's drift
# falls on all of them alike. Each measurement is one `tensortune tune --trials 1` with every
# knob pinned, on a fresh database; its GFLOPS is verified against the CPU reference. Prints one
# markdown row per config: the median GFLOPS per value and each value's median over the first's.
#
#   CONFIGS=configs.txt OP=gemm SHAPE=1024,1024,1024 KNOB=pack_b VALUES="0 1" bench/knob_pairs.sh
#
# Environment: OP, SHAPE, TEMPLATE (the operator's first applicable one), KNOB, VALUES, CONFIGS
# (a file), ROUNDS (3), MIN_TIME (0.3 s timed per measurement), BUILD_DIR (build).
# Run it pinned (taskset, POCL_MAX_PTHREAD_COUNT) and with nothing else on those cores.
set -euo pipefail
configs="$(realpath "${CONFIGS:?CONFIGS: a file of config keys}")"
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build}"
rounds="${ROUNDS:-3}"
min_time="${MIN_TIME:-0.3}"
template_args=()
[[ -n "${TEMPLATE:-}" ]] && template_args=(--template "$TEMPLATE")
read -r -a values <<<"${VALUES:?VALUES: the knob values to compare}"
: "${OP:?}" "${SHAPE:?}" "${KNOB:?}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# GFLOPS of one config key with KNOB=$2, or "failed".
measure() {
  local pins=() part
  IFS=';' read -r -a parts <<<"$1"
  for part in "${parts[@]}"; do pins+=(--pin "$part"); done
  local db="$work/$RANDOM$RANDOM.db"
  "$build/bin/tensortune" tune --op "$OP" --shape "$SHAPE" "${template_args[@]}" "${pins[@]}" --pin "$KNOB=$2" \
    --trials 1 --min-time "$min_time" --db "$db" --json >"$work/out.json" 2>"$work/err.txt" || true
  python3 -c 'import json,sys
try:
    d = json.load(open(sys.argv[1]))
    print(d["best"]["gflops"] if d.get("best") else "failed")
except Exception:
    print("failed")' "$work/out.json"
}

header="| config |"
for v in "${values[@]}"; do header+=" $KNOB=$v GFLOPS |"; done
echo "$header ratios |"
echo "|---|$(printf -- '---:|%.0s' "${values[@]}")---|"
while IFS= read -r config; do
  [[ -z "$config" || "$config" == \#* ]] && continue
  declare -A results=()
  for ((r = 0; r < rounds; ++r)); do
    for v in "${values[@]}"; do results[$v]+="$(measure "$config" "$v") "; done
  done
  python3 - "$config" "${values[@]}" <<EOF
import statistics, sys
config, values = sys.argv[1], sys.argv[2:]
raw = {$(for v in "${values[@]}"; do printf '"%s": "%s", ' "$v" "${results[$v]}"; done)}
med = {}
for v in values:
    ok = [float(x) for x in raw[v].split() if x != "failed"]
    med[v] = statistics.median(ok) if ok else None
cells = " | ".join(f"{med[v]:.2f}" if med[v] else "failed" for v in values)
base = med[values[0]]
ratios = ", ".join(f"{med[v] / base:.3f}" if med[v] and base else "-" for v in values[1:])
print(f"| \`{config}\` | {cells} | {ratios} |")
EOF
  unset results
done <"$configs"
