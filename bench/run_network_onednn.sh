#!/usr/bin/env bash
# bench/run_network_onednn.sh NETWORK DB
#
# A network measured end to end next to oneDNN on the same layers: `tensortune run-network`
# runs NETWORK's tuned layers (from DB, a database tune-network NETWORK wrote on this machine's
# default device) in network order with real buffers, layout conversions included, and prints
# the measured latency with tune-network's estimate; then every conv2d and depthwise_conv2d
# layer is timed with oneDNN (dnnl_conv) and every gemm with oneDNN's sgemm (dnnl_sgemm), once
# per distinct layer, and summed over the network's layers (repeats counted). Layers oneDNN
# has no call for (batch_matmul, dilated convolutions) are left out of both sides of the
# ratio. Everything runs on THREADS threads (POCL's too), pinned to CPUS with taskset.
#
# Environment: THREADS (1), CPUS (0), MIN_TIME (1 s of whole-network runs), BUILD_DIR
# (build-bench), SKIP_BUILD=1 to use an existing build. Nothing else should run meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."

(($# == 2)) || { echo "usage: bench/run_network_onednn.sh NETWORK DB" >&2; exit 2; }
network=$1
db=$2
[[ -f "$db" ]] || { echo "run_network_onednn.sh: no database '$db'" >&2; exit 2; }
build="${BUILD_DIR:-build-bench}"
threads="${THREADS:-1}"
cpus="${CPUS:-0}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker dnnl_conv dnnl_sgemm >&2
fi
for program in tensortune dnnl_conv dnnl_sgemm; do
  [[ -x "$build/bin/$program" ]] || { echo "run_network_onednn.sh: $build/bin/$program is missing" >&2; exit 3; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-run-network.XXXXXX")"
trap 'rm -rf "$work"' EXIT
POCL_MAX_PTHREAD_COUNT="$threads" taskset -c "$cpus" "$build/bin/tensortune" run-network "$network" --db "$db" \
  --min-time "${MIN_TIME:-1}" --json >"$work/run.json"

# One line per distinct layer workload: key, op, then the library's arguments.
python3 - "$work/run.json" >"$work/calls.tsv" <<'PY'
import json, sys
seen = set()
for layer in json.load(open(sys.argv[1]))["layers"]:
    key = layer["workload"]
    if key in seen:
        continue
    seen.add(key)
    op, dims = key.split(":", 1)
    d = dict(kv.split("=") for kv in dims.split(","))
    if op == "conv2d" and d["dilation"] == "1":
        args = "dnnl_conv " + " ".join(d[k] for k in ("n", "ci", "h", "w", "co", "kh", "kw", "stride", "pad"))
    elif op == "depthwise_conv2d" and d["dilation"] == "1":
        args = "dnnl_conv --depthwise " + " ".join(d[k] for k in ("n", "c", "h", "w", "kh", "kw", "stride", "pad"))
    elif op == "gemm":
        args = "dnnl_sgemm " + " ".join(d[k] for k in ("m", "n", "k"))
    else:
        args = ""
    print(f"{key}\t{args}")
PY

while IFS=$'\t' read -r key call; do
  [[ -n "$call" ]] || { echo "$key: no oneDNN call, left out" >&2; continue; }
  read -r program args <<<"$call"
  echo "$program $args $threads" >&2
  # shellcheck disable=SC2086  # args is a list of numbers
  OMP_NUM_THREADS="$threads" taskset -c "$cpus" "$build/bin/$program" $args "$threads" >"$work/lib.json"
  python3 -c 'import json,sys; print(sys.argv[1] + "\t" + str(json.load(open(sys.argv[2]))["median_s"]))' \
    "$key" "$work/lib.json" >>"$work/lib.tsv"
done <"$work/calls.tsv"

python3 - "$work/run.json" "$work/lib.tsv" "$network" "$threads" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
lib = {}
for line in open(sys.argv[2]):
    key, seconds = line.rstrip("\n").split("\t")
    lib[key] = float(seconds)
network, threads = sys.argv[3], sys.argv[4]
print(f"{network}, batch {run['batch']}, {threads} thread(s), {run['device']}\n")
print("| # | layer | sketch | origin | tensortune ms (in the run) | oneDNN ms |")
print("|---|---|---|---|---|---|")
covered_tt = covered_lib = 0.0
for i, layer in enumerate(run["layers"]):
    key = layer["workload"]
    lib_ms = f"{lib[key] * 1e3:.3f}" if key in lib else "-"
    if key in lib:
        covered_tt += layer["measured_time_s"]
        covered_lib += lib[key]
    print(f"| {i} | {layer['layer']} | {layer['template']} | {layer['origin']} | "
          f"{layer['measured_time_s'] * 1e3:.3f} | {lib_ms} |")
print()
print(f"tensortune measured: {run['measured_latency_s'] * 1e3:.2f} ms for the whole network (wall clock, "
      f"{run['conversions']} layout conversions included, {run['conversions_latency_s'] * 1e3:.2f} ms of them)")
print(f"tune-network estimate: {run['estimated_latency_s'] * 1e3:.2f} ms over {run['estimated_layers']} of "
      f"{run['layers_total']} layers")
if covered_lib > 0:
    print(f"layers oneDNN computes: tensortune {covered_tt * 1e3:.2f} ms (kernel times in the run) vs oneDNN "
          f"{covered_lib * 1e3:.2f} ms (sum of per-layer medians): {covered_tt / covered_lib:.2f}x")
PY
