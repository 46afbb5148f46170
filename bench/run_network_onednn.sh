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
# ratio. Both sides are timed twice: each layer alone in a loop (its weights warm in the
# cache: run-network --alone-time, oneDNN once per distinct layer), and every layer in network
# order (run-network's sequence, dnnl_network); alone is compared with alone, in sequence with
# in sequence.
# Everything runs on THREADS threads (POCL's too), pinned to CPUS with taskset; POCL's worker
# threads each to one core (POCL_AFFINITY=1, where CPUS are 0..THREADS-1: bench/pocl_affinity.sh):
# unpinned, both were sometimes woken on one core
# and the first milliseconds of each pass ran on one thread (ResNet-18's first four layers at
# one-thread speed in some processes and not others). The two
# sides alternate for ROUNDS rounds (the whole network, then every layer with oneDNN); every
# figure is the median over the rounds, so a burst of load on the machine hits both sides.
#
# Environment: THREADS (1), CPUS (0), MIN_TIME (1 s of whole-network runs), ALONE_TIME (0.2 s
# per layer alone), ROUNDS (3),
# BUILD_DIR (build-bench), SKIP_BUILD=1 to use an existing build. Nothing else should run
# meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pocl_affinity.sh

(($# == 2)) || { echo "usage: bench/run_network_onednn.sh NETWORK DB" >&2; exit 2; }
network=$1
db=$2
[[ -f "$db" ]] || { echo "run_network_onednn.sh: no database '$db'" >&2; exit 2; }
build="${BUILD_DIR:-build-bench}"
threads="${THREADS:-1}"
cpus="${CPUS:-0}"
rounds="${ROUNDS:-3}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker dnnl_conv dnnl_sgemm dnnl_network >&2
fi
for program in tensortune dnnl_conv dnnl_sgemm dnnl_network; do
  [[ -x "$build/bin/$program" ]] || { echo "run_network_onednn.sh: $build/bin/$program is missing" >&2; exit 3; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-run-network.XXXXXX")"
trap 'rm -rf "$work"' EXIT
run_network() {  # $1: the file for run-network's JSON
  POCL_AFFINITY="$(pocl_affinity "$cpus" "$threads")" POCL_MAX_PTHREAD_COUNT="$threads" taskset -c "$cpus" "$build/bin/tensortune" run-network "$network" --db "$db" \
    --min-time "${MIN_TIME:-1}" --alone-time "${ALONE_TIME:-0.2}" --json >"$1"
}
run_network "$work/run_1.json"

# One line per distinct layer workload: key, op, then the library's arguments; and every layer
# oneDNN computes, in network order, for dnnl_network.
python3 - "$work/run_1.json" "$work/sequence.txt" >"$work/calls.tsv" <<'PY'
import json, sys

def library_call(op, d):  # (dnnl_network's layer line, the single-layer program's arguments)
    if op == "conv2d" and d["dilation"] == "1":
        fields = " ".join(d[k] for k in ("n", "ci", "h", "w", "co", "kh", "kw", "stride", "pad"))
        return "conv " + fields, "dnnl_conv " + fields
    if op == "depthwise_conv2d" and d["dilation"] == "1":
        fields = " ".join(d[k] for k in ("n", "c", "h", "w", "kh", "kw", "stride", "pad"))
        return "dw " + fields, "dnnl_conv --depthwise " + fields
    if op == "gemm":
        fields = " ".join(d[k] for k in ("m", "n", "k"))
        return "gemm " + fields, "dnnl_sgemm " + fields
    return None, ""

seen = set()
sequence = open(sys.argv[2], "w")
for layer in json.load(open(sys.argv[1]))["layers"]:
    key = layer["workload"]
    op, dims = key.split(":", 1)
    line, args = library_call(op, dict(kv.split("=") for kv in dims.split(",")))
    if line:
        sequence.write(line + "\n")
    if key not in seen:
        seen.add(key)
        print(f"{key}\t{args}")
PY

time_libraries() {  # $1: the file for this round's per-layer medians
  while IFS=$'\t' read -r key call; do
    [[ -n "$call" ]] || { echo "$key: no oneDNN call, left out" >&2; continue; }
    read -r program args <<<"$call"
    # shellcheck disable=SC2086  # args is a list of numbers
    OMP_NUM_THREADS="$threads" taskset -c "$cpus" "$build/bin/$program" $args "$threads" >"$work/lib.json"
    python3 -c 'import json,sys; print(sys.argv[1] + "\t" + str(json.load(open(sys.argv[2]))["median_s"]))' \
      "$key" "$work/lib.json" >>"$1"
    # oneDNN's other algorithm for the layer: its Winograd where it offers one (it says so and
    # exits 3 where it does not), and a dense layer as its inner product on reordered weights.
    other=()
    [[ "$program" == dnnl_conv && "$args" != --* ]] && other=(dnnl_conv --winograd)
    [[ "$program" == dnnl_sgemm ]] && other=(dnnl_sgemm --inner-product)
    # shellcheck disable=SC2086  # args is a list of numbers
    if ((${#other[@]})) &&
      OMP_NUM_THREADS="$threads" taskset -c "$cpus" "$build/bin/${other[0]}" "${other[1]}" $args "$threads" \
        >"$work/other.json" 2>/dev/null; then
      python3 -c 'import json,sys; print(sys.argv[1] + "\t" + str(json.load(open(sys.argv[2]))["median_s"]))' \
        "$key" "$work/other.json" >>"${1%.tsv}_other.tsv"
    fi
  done <"$work/calls.tsv"
}
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r of $rounds" >&2
  ((r == 1)) || run_network "$work/run_$r.json"
  time_libraries "$work/lib_$r.tsv"
  OMP_NUM_THREADS="$threads" taskset -c "$cpus" "$build/bin/dnnl_network" "$work/sequence.txt" "$threads" \
    "${MIN_TIME:-1}" >"$work/seq_$r.json"
done

python3 - "$work" "$rounds" "$network" "$threads" <<'PY'
import json, statistics, sys
work, rounds, network, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = [json.load(open(f"{work}/run_{r}.json")) for r in range(1, rounds + 1)]
libs = []
for r in range(1, rounds + 1):
    lib = {}
    for line in open(f"{work}/lib_{r}.tsv"):
        key, seconds = line.rstrip("\n").split("\t")
        lib[key] = float(seconds)
    libs.append(lib)
seqs = [json.load(open(f"{work}/seq_{r}.json")) for r in range(1, rounds + 1)]
others = []
for r in range(1, rounds + 1):
    other = {}
    try:
        for line in open(f"{work}/lib_{r}_other.tsv"):
            key, seconds = line.rstrip("\n").split("\t")
            other[key] = float(seconds)
    except FileNotFoundError:
        pass
    others.append(other)
med = statistics.median
run = runs[0]
print(f"{network}, batch {run['batch']}, {threads} thread(s), {run['device']}, medians of {rounds} alternating rounds\n")
print("| # | layer | sketch | origin | tensortune ms, alone | oneDNN ms, alone | speed vs oneDNN alone "
      "| tensortune ms, in the run | oneDNN ms, in sequence | speed vs oneDNN in sequence "
      "| oneDNN Winograd or inner product ms, alone "
      "| speed vs oneDNN's best |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
covered_tt = covered_alone = covered_lib = covered_seq = covered_best = 0.0
j = 0  # index among the layers oneDNN computes, dnnl_network's order
for i, layer in enumerate(run["layers"]):
    key = layer["workload"]
    tt = med(r["layers"][i]["measured_time_s"] for r in runs)
    alone = med(r["layers"][i]["alone_time_s"] for r in runs)
    if key in libs[0]:
        lib = med(l[key] for l in libs)
        seq = med(q["layers"][j]["median_s"] for q in seqs)
        j += 1
        covered_tt += tt
        covered_alone += alone
        covered_lib += lib
        covered_seq += seq
        other = med(w[key] for w in others) if all(key in w for w in others) else None
        best = min(lib, other) if other else lib
        covered_best += best
        cells = (f"{lib * 1e3:.3f} | {lib / alone:.2f} | {tt * 1e3:.3f} | {seq * 1e3:.3f} | {seq / tt:.2f} | "
                 f"{f'{other * 1e3:.3f}' if other else '-'} | {best / alone:.2f}")
    else:
        cells = f"- | - | {tt * 1e3:.3f} | - | - | - | -"
    print(f"| {i} | {layer['layer']} | {layer['template']} | {layer['origin']} | {alone * 1e3:.3f} | {cells} |")
print()
measured = med(r["measured_latency_s"] for r in runs)
conversions = med(r["conversions_latency_s"] for r in runs)
print(f"tensortune measured: {measured * 1e3:.2f} ms for the whole network (wall clock, "
      f"{run['conversions']} layout conversions included, {conversions * 1e3:.2f} ms of them)")
print(f"tune-network estimate: {run['estimated_latency_s'] * 1e3:.2f} ms over {run['estimated_layers']} of "
      f"{run['layers_total']} layers")
print(f"oneDNN in sequence: {med(q['sequence_median_s'] for q in seqs) * 1e3:.2f} ms for a pass over its layers (wall clock)")
if covered_lib > 0:
    ours = covered_tt + conversions
    print(f"layers oneDNN computes: tensortune {covered_alone * 1e3:.2f} ms of kernels alone (summed), "
          f"{covered_tt * 1e3:.2f} ms of kernels + {conversions * 1e3:.2f} ms of layout conversions in the run; "
          f"oneDNN {covered_lib * 1e3:.2f} ms (each layer alone, summed), {covered_seq * 1e3:.2f} ms (in sequence): "
          f"tensortune at {covered_lib / covered_alone:.2f}x oneDNN's speed (alone), {covered_seq / ours:.2f}x "
          f"(in sequence)")
    print(f"against oneDNN's best per layer (auto or Winograd; sgemm or inner product; alone, summed: "
          f"{covered_best * 1e3:.2f} ms): "
          f"tensortune at {covered_best / covered_alone:.2f}x (alone)")
PY
