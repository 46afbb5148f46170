#!/usr/bin/env bash
# bench/network_onednn.sh NETWORK [LABEL=]DB...
#
# A network's layers with vendor libraries against tensortune's tuned estimates: times every
# conv2d and depthwise_conv2d task of NETWORK (batch 1, as `tensortune tasks NETWORK --json` lists
# them) with oneDNN (dnnl_conv, THREADS threads), and every gemm (dense) task with OpenBLAS
# (blas_sgemm) when it is built, one after the other. Each DB is a database that tune-network
# NETWORK wrote (bench/network_schedulers.sh passes its runs); a task's tuned time there is its
# best successful trial over all sketches, or its untuned default when that is faster, as the
# network estimate counts it. Prints a markdown table per task (the best over all DBs), then the
# weighted sums (weight x time) of the convolutions and of the dense layers, per DB and their
# median, as tensortune / library ratios. Nothing else should run meanwhile: the machine is
# measured.
#
# Environment: THREADS (2), BUILD_DIR (build-bench), SKIP_BUILD=1 to use an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."

(($# >= 2)) || { echo "usage: bench/network_onednn.sh NETWORK [LABEL=]DB..." >&2; exit 2; }
network=$1
shift
build="${BUILD_DIR:-build-bench}"
threads="${THREADS:-2}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune dnnl_conv blas_sgemm >&2
fi
tt="$build/bin/tensortune"
dnnl="$build/bin/dnnl_conv"
blas="$build/bin/blas_sgemm"
for program in "$tt" "$dnnl"; do
  [[ -x "$program" ]] || { echo "network_onednn.sh: $program is missing (build it, or unset SKIP_BUILD)" >&2; exit 3; }
done
[[ -x "$blas" ]] || echo "network_onednn.sh: $blas is missing: dense layers are left out" >&2
for db in "$@"; do
  [[ -f "${db#*=}" ]] || { echo "network_onednn.sh: no database '${db#*=}'" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-network-onednn.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$tt" tasks "$network" --json >"$work/tasks.json"

# One line per task: index, op, then the library's arguments (nothing for an op it has no call for).
python3 - "$work/tasks.json" >"$work/calls.tsv" <<'EOF'
import json, sys
for i, t in enumerate(json.load(open(sys.argv[1]))):
    op, dims = t["workload"].split(":", 1)
    d = dict(kv.split("=") for kv in dims.split(","))
    if d.get("dilation", "1") != "1":
        args = ""  # dnnl_conv has no dilation
    elif op == "conv2d":
        args = " ".join(d[k] for k in ("n", "ci", "h", "w", "co", "kh", "kw", "stride", "pad"))
    elif op == "depthwise_conv2d":
        args = "--depthwise " + " ".join(d[k] for k in ("n", "c", "h", "w", "kh", "kw", "stride", "pad"))
    elif op == "gemm":
        args = " ".join(d[k] for k in ("m", "n", "k"))
    else:
        args = ""
    print(f"{i}\t{op}\t{args}")
EOF

while IFS=$'\t' read -r index op args; do
  program=""
  case "$op" in
    conv2d | depthwise_conv2d) program="$dnnl" ;;
    gemm) [[ -x "$blas" ]] && program="$blas" ;;
  esac
  if [[ -z "$program" || -z "$args" ]]; then
    echo "[task $index] $op: no library call, left out" >&2
    continue
  fi
  echo "[task $index] $(basename "$program") $args $threads" >&2
  # shellcheck disable=SC2086  # args is a list of numbers
  OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "$program" $args "$threads" >"$work/lib-$index.json" ||
    { echo "[task $index] FAILED" >&2; rm -f "$work/lib-$index.json"; }
done <"$work/calls.tsv"

python3 - "$work" "$network" "$threads" "$@" <<'EOF'
import json, os, sqlite3, statistics, sys

work, network, threads, dbs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
tasks = json.load(open(os.path.join(work, "tasks.json")))
lib = {}
for i in range(len(tasks)):
    path = os.path.join(work, f"lib-{i}.json")
    if os.path.exists(path):
        lib[i] = json.load(open(path))["median_s"]

def tuned(db):  # workload key -> the time the network estimate counts for it
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT w.key, nt.default_time_s, "
        "  (SELECT MIN(t.time_s) FROM trials t WHERE t.workload_id = nt.workload_id AND t.status = 'ok') "
        "FROM network_tasks nt JOIN workloads w ON w.id = nt.workload_id "
        "WHERE nt.network_run_id = (SELECT MIN(id) FROM network_runs)").fetchall()
    out = {}
    for key, default, best in rows:
        known = [v for v in (default, best) if v is not None]
        out[key] = min(known) if known else None
    return out

runs = {}
for arg in dbs:
    label, _, path = arg.rpartition("=")
    runs[label or os.path.basename(path)] = tuned(path)

kinds = {"conv": ("conv2d", "depthwise_conv2d"), "dense": ("gemm",)}
name = {"conv": "oneDNN", "dense": "OpenBLAS"}
print(f"{network}, batch 1: tuned tensortune (best over {len(runs)} runs) vs oneDNN convolutions and OpenBLAS "
      f"dense layers ({threads} threads)\n")
print("| # | layers | op | weight | tensortune ms | library | library ms | tensortune / library |")
print("|---|---|---|---|---|---|---|---|")
for i, t in enumerate(tasks):
    best = [r[t["workload"]] for r in runs.values() if r.get(t["workload"]) is not None]
    tt_ms = f"{min(best) * 1e3:.3f}" if best else "-"
    kind = next((k for k, ops in kinds.items() if t["op"] in ops), None)
    lib_ms = f"{lib[i] * 1e3:.3f}" if i in lib else "-"
    ratio = f"{min(best) / lib[i]:.2f}" if best and i in lib else "-"
    print(f"| {i} | {', '.join(t['layers'])} | {t['op']} | {t['weight']} | {tt_ms} | "
          f"{name[kind] if kind and i in lib else '-'} | {lib_ms} | {ratio} |")

print()
for kind, ops in kinds.items():
    idx = [i for i, t in enumerate(tasks) if t["op"] in ops]
    if not idx:
        continue
    if any(i not in lib for i in idx):
        print(f"{kind}: {name[kind]} has no time for every {kind} task; left out")
        continue
    lib_sum = sum(tasks[i]["weight"] * lib[i] for i in idx)
    sums = {}
    for label, r in runs.items():
        values = [r.get(tasks[i]["workload"]) for i in idx]
        if all(v is not None for v in values):
            sums[label] = sum(tasks[i]["weight"] * v for i, v in zip(idx, values))
    if not sums:
        continue
    med = statistics.median(sums.values())
    best = min(sums.values())
    print(f"{kind} layers ({len(idx)} tasks, weight x time): {name[kind]} {lib_sum * 1e3:.2f} ms; tensortune "
          f"median over runs {med * 1e3:.2f} ms ({med / lib_sum:.2f}x {name[kind]}), best run {best * 1e3:.2f} ms "
          f"({best / lib_sum:.2f}x)")
    print("    per run: " + ", ".join(f"{label} {v * 1e3:.2f}" for label, v in sums.items()))
EOF
