#!/usr/bin/env bash
# Tuned operators against vendor libraries on the same machine, one after the other, on the
# default device (tensortune's device 0; oneDNN and OpenBLAS on the CPU):
#   gemm       GEMM_SHAPE (1024,1024,1024): tensortune tune --op gemm, then clblast_sgemm (CLBlast
#              on the same OpenCL device), blas_sgemm (OpenBLAS, THREADS threads) and dnnl_sgemm
#              (oneDNN's sgemm, THREADS threads);
#   conv       the ResNet-18 layers in LAYERS (plus a pruned one): tensortune tune --op conv2d, then
#              dnnl_conv (oneDNN), and pack_weights (the one-off OIHW16o weight packing that
#              conv2d_oc_vec's weights need, one thread; reported, not part of the tuned time);
#   depthwise  the MobileNet-v1 layers in DW_LAYERS: tensortune tune --op depthwise_conv2d, then
#              dnnl_conv --depthwise, and pack_weights --depthwise (the NCHW <-> NCHW16c activation
#              conversions that depthwise_conv2d_nchwc needs; reported, not part of the tuned time).
# Every sketch (kernel template) that can compute a workload is tuned with its own budget (TRIALS,
# CONV_TRIALS or DW_TRIALS trials each) on its own fresh temporary database; the workload's tuned
# figure is the best over sketches. Prints one markdown table per part, the median ratio per part
# and the exact commands; progress goes to stderr. Nothing else should run meanwhile: the machine
# is measured.
#
# Environment: TUNER (xgb), TRIALS (300, gemm), CONV_TRIALS (100), DW_TRIALS (100), SEED (1),
# SKETCHES (space-separated template names: tune only these where they apply; default every one),
# THREADS (2, OpenBLAS and oneDNN), ONLY=gemm|conv|depthwise to run one part, GEMM_SHAPE, LAYERS and
# DW_LAYERS (space-separated tensortune shapes), BUILD_DIR (build-bench), SKIP_BUILD=1 to use an
# existing build, KEEP_DB=1 to keep the temporary directory (databases, JSON, logs).
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
tuner="${TUNER:-xgb}"
trials="${TRIALS:-300}"
conv_trials="${CONV_TRIALS:-100}"
dw_trials="${DW_TRIALS:-100}"
seed="${SEED:-1}"
threads="${THREADS:-2}"
only="${ONLY:-}"
gemm_shape="${GEMM_SHAPE:-1024,1024,1024}"
# shellcheck disable=SC2054  # the commas belong to tensortune shapes
default_layers=(
  n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1
  n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1
  n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1
  n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1
  n=1,ci=64,h=56,w=56,co=128,kh=3,kw=3,stride=2,pad=1
  n=1,ci=3,h=224,w=224,co=64,kh=7,kw=7,stride=2,pad=3
  n=1,ci=64,h=56,w=56,co=128,kh=1,kw=1,stride=2,pad=0
  n=1,ci=57,h=28,w=28,co=117,kh=3,kw=3,stride=1,pad=1
)
# shellcheck disable=SC2054
default_dw_layers=(
  n=1,c=32,h=112,w=112,kh=3,kw=3,stride=1,pad=1
  n=1,c=64,h=112,w=112,kh=3,kw=3,stride=2,pad=1
  n=1,c=128,h=56,w=56,kh=3,kw=3,stride=1,pad=1
  n=1,c=256,h=28,w=28,kh=3,kw=3,stride=2,pad=1
  n=1,c=512,h=14,w=14,kh=3,kw=3,stride=1,pad=1
  n=1,c=1024,h=7,w=7,kh=3,kw=3,stride=1,pad=1
)
read -r -a layers <<<"${LAYERS:-${default_layers[*]}}"
read -r -a dw_layers <<<"${DW_LAYERS:-${default_dw_layers[*]}}"

case "$only" in
  "") parts=(gemm conv depthwise) ;;
  gemm | conv | depthwise) parts=("$only") ;;
  *) echo "ops_vs_libraries.sh: ONLY must be gemm, conv or depthwise, got '$only'" >&2; exit 2 ;;
esac
wants() { [[ " ${parts[*]} " == *" $1 "* ]]; }

command -v python3 >/dev/null || { echo "ops_vs_libraries.sh: python3 is needed to read the JSON" >&2; exit 3; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh --bench >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  targets=(tensortune tensortune-worker)
  wants gemm && targets+=(clblast_sgemm blas_sgemm dnnl_sgemm)
  wants conv || wants depthwise && targets+=(pack_weights)
  wants conv || wants depthwise && targets+=(dnnl_conv)
  cmake --build "$build" --target "${targets[@]}" >&2
fi
tt="$build/bin/tensortune"
clblast="$build/bin/clblast_sgemm"
blas="$build/bin/blas_sgemm"
dnnl="$build/bin/dnnl_conv"
dnnl_sgemm="$build/bin/dnnl_sgemm"
pack="$build/bin/pack_weights"

need() {
  [[ -x "$1" ]] || { echo "ops_vs_libraries.sh: $1 is missing (build it, or drop its part with ONLY)" >&2; exit 3; }
}
need "$tt"
wants gemm && { need "$clblast"; need "$blas"; need "$dnnl_sgemm"; }
wants conv || wants depthwise && need "$pack"
wants conv || wants depthwise && need "$dnnl"

# The operator's kernel templates, one a line, as `tensortune templates` lists them (only those
# in SKETCHES when it is set).
templates_of() {
  "$tt" templates | awk -v header="$1:" -v only=" ${SKETCHES:-} " \
    '$1 == header {on = 1; next} /^[^ ]/ {on = 0} on && $1 == "template" && (only == "  " || index(only, " " $2 " ")) {print $2}'
}
declare -A op_of=([gemm]=gemm [conv]=conv2d [depthwise]=depthwise_conv2d)
for part in "${parts[@]}"; do
  if [[ -z "$(templates_of "${op_of[$part]}")" ]]; then
    echo "ops_vs_libraries.sh: $tt knows no template of ${op_of[$part]} (drop the part with ONLY)" >&2
    exit 3
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-ops-vs-libraries.XXXXXX")"
if [[ "${KEEP_DB:-0}" == 1 ]]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
manifest="$work/manifest.tsv"
: >"$manifest"

# One manifest row: kind part workload name status json wall_seconds command.
record() {
  local IFS=$'\t'
  echo "$*" >>"$manifest"
}

gflops_of() {  # a tune or baseline JSON file -> its GFLOPS, or "-"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); b = d.get("best", d)
print("%.2f" % b["gflops"] if b else "-")' "$1" 2>/dev/null || echo "-"
}

# Tunes every sketch of OP that can compute SHAPE, each with TRIALS trials on a fresh database.
tune_sketches() {
  local part=$1 index=$2 op=$3 shape=$4 budget=$5 sketch
  for sketch in $(templates_of "$op"); do
    local base="$work/$part-$index-$sketch" rc=0 status=ok
    local cmd=("$tt" tune --op "$op" --shape "$shape" --template "$sketch" --tuner "$tuner" --trials "$budget"
               --seed "$seed" --db "$base.db" --json)
    echo "[$part $index] $shape $sketch: $budget trials" >&2
    local t0
    t0=$(date +%s)
    "${cmd[@]}" >"$base.json" 2>"$base.err" || rc=$?
    local wall=$(($(date +%s) - t0))
    if ((rc != 0)) && grep -q "cannot compute" "$base.err"; then
      status=not-applicable
      echo "[$part $index]   not applicable: $(tail -1 "$base.err")" >&2
    elif ((rc != 0)); then
      status=failed
      echo "[$part $index]   FAILED (exit $rc):" >&2
      tail -5 "$base.err" >&2
    else
      echo "[$part $index]   best $(gflops_of "$base.json") GFLOPS, ${wall} s" >&2
    fi
    record tune "$part" "$shape" "$sketch" "$status" "$base.json" "$wall" "${cmd[*]}"
  done
}

# Runs one baseline program (its JSON on stdout) and records it under NAME.
run_baseline() {
  local part=$1 index=$2 shape=$3 name=$4
  shift 4
  local out="$work/$part-$index-$name.json" rc=0 status=ok
  echo "[$part $index] $shape $name: $*" >&2
  OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "$@" >"$out" 2>"$out.err" || rc=$?
  if ((rc != 0)); then
    status=failed
    echo "[$part $index]   FAILED (exit $rc):" >&2
    tail -5 "$out.err" >&2
  else
    echo "[$part $index]   $(gflops_of "$out") GFLOPS" >&2
  fi
  record baseline "$part" "$shape" "$name" "$status" "$out" 0 "OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads $*"
}

field() {  # field SHAPE KEY -> the value of KEY=... in a comma-separated shape
  local value
  value="$(tr , '\n' <<<"$1" | sed -n "s/^$2=//p")"
  [[ -n "$value" ]] || { echo "ops_vs_libraries.sh: shape '$1' has no $2=" >&2; exit 2; }
  echo "$value"
}

no_dilation() {
  local d
  d="$(tr , '\n' <<<"$1" | sed -n 's/^dilation=//p')"
  [[ -z "$d" || "$d" == 1 ]] || { echo "ops_vs_libraries.sh: dnnl_conv has no dilation: '$1'" >&2; exit 2; }
}

date_utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
device_line="$("$tt" devices | sed -n 2p | sed -E 's/^ +//; s/  +/ | /g')"

if wants gemm; then
  IFS=, read -r m n k <<<"$gemm_shape"
  tune_sketches gemm 1 gemm "$gemm_shape" "$trials"
  run_baseline gemm 1 "$gemm_shape" CLBlast "$clblast" "$m" "$n" "$k" 0
  run_baseline gemm 1 "$gemm_shape" OpenBLAS "$blas" "$m" "$n" "$k" "$threads"
  run_baseline gemm 1 "$gemm_shape" oneDNN-sgemm "$dnnl_sgemm" "$m" "$n" "$k" "$threads"
fi

if wants conv; then
  index=0
  for shape in "${layers[@]}"; do
    index=$((index + 1))
    no_dilation "$shape"
    args=()
    for key in n ci h w co kh kw stride pad; do args+=("$(field "$shape" "$key")"); done
    tune_sketches conv "$index" conv2d "$shape" "$conv_trials"
    run_baseline conv "$index" "$shape" oneDNN "$dnnl" "${args[@]}" "$threads"
    packed="$work/conv-$index-pack.json"
    "$pack" "${args[@]}" >"$packed" 2>&1 || true
    record pack conv "$shape" pack_weights ok "$packed" 0 "$pack ${args[*]}"
  done
fi

if wants depthwise; then
  index=0
  for shape in "${dw_layers[@]}"; do
    index=$((index + 1))
    no_dilation "$shape"
    args=()
    for key in n c h w kh kw stride pad; do args+=("$(field "$shape" "$key")"); done
    tune_sketches depthwise "$index" depthwise_conv2d "$shape" "$dw_trials"
    run_baseline depthwise "$index" "$shape" oneDNN "$dnnl" --depthwise "${args[@]}" "$threads"
    packed="$work/depthwise-$index-pack.json"
    "$pack" --depthwise "${args[@]}" >"$packed" 2>&1 || true
    record pack depthwise "$shape" pack_weights ok "$packed" 0 "$pack --depthwise ${args[*]}"
  done
fi

python3 - "$manifest" "$date_utc" "$device_line" "$(nproc)" "$tuner" "$trials" "$conv_trials" "$dw_trials" \
  "$threads" "$seed" <<'EOF'
import json, statistics, sys

manifest, date, device, nproc, tuner, trials, conv_trials, dw_trials, threads, seed = sys.argv[1:11]
rows = [line.rstrip("\n").split("\t", 7) for line in open(manifest) if line.strip()]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def label(part, shape):
    if part == "gemm":
        return "x".join(shape.split(","))
    s = dict(kv.split("=") for kv in shape.split(","))
    c = f"c={s['c']}" if part == "depthwise" else f"ci={s['ci']} co={s['co']}"
    n = f"n={s['n']} " if s.get("n", "1") != "1" else ""
    return f"{n}{c} {s['h']}x{s['w']} k{s['kh']}x{s['kw']} s{s['stride']} p{s['pad']}"

titles = {
    "gemm": f"GEMM, {trials} trials per sketch",
    "conv": f"ResNet-18 conv2d layers, {conv_trials} trials per sketch",
    "depthwise": f"MobileNet-v1 depthwise layers, {dw_trials} trials per sketch",
}
print(f"Tuned operators vs libraries ({date}; device: {device}; nproc {nproc}; tuner {tuner}; seed {seed}; "
      f"library threads {threads})\n")
print("tuned: best time over all sketches (median of a configuration's repeats); baselines: median of "
      "repeats totalling >= 1 s. tuned / baseline = baseline time / tuned time (> 1: tuned is faster); GFLOPS count "
      "the direct algorithm's FLOPs for every sketch.\n")

for part in ("gemm", "conv", "depthwise"):
    part_rows = [r for r in rows if r[1] == part]
    if not part_rows:
        continue
    print(f"### {titles[part]}\n")
    print("| workload | best sketch | best config | tuned GFLOPS | per sketch GFLOPS (ok/trials, s) | baseline "
          "| baseline GFLOPS | tuned / baseline |")
    print("|---|---|---|---:|---|---|---:|---:|")
    packs = {}
    ratios = {}
    for shape in dict.fromkeys(r[2] for r in part_rows):
        tuned, sketches = None, []
        for kind, _, _, name, status, path, wall, _ in (r for r in part_rows if r[2] == shape):
            if kind != "tune":
                continue
            if status != "ok":
                sketches.append(f"{name}: {status}")
                continue
            summary = load(path)
            best = summary.get("best") if summary else None
            ok = summary.get("statuses", {}).get("ok", 0) if summary else 0
            figure = f"{best['gflops']:.2f}" if best else "-"
            sketches.append(f"{name}: {figure} ({ok}/{summary.get('trials', '?')}, {wall})")
            if best and (tuned is None or best["time_s"] < tuned[1]["time_s"]):
                tuned = (name, best)
        for kind, _, _, name, status, path, _, _ in (r for r in part_rows if r[2] == shape):
            if kind == "pack" and load(path) and tuned:
                packs[label(part, shape)] = (load(path)["median_s"], tuned[1]["time_s"])
            if kind != "baseline":
                continue
            base = load(path) if status == "ok" else None
            base_figure = f"{base['gflops']:.2f}" if base else status
            ratio = base["median_s"] / tuned[1]["time_s"] if base and tuned else None
            if ratio is not None:
                ratios.setdefault(name, []).append(ratio)
            cells = [label(part, shape), tuned[0] if tuned else "-",
                     f"`{tuned[1]['config_key']}`" if tuned else "-",
                     f"{tuned[1]['gflops']:.2f}" if tuned else "-", "; ".join(sketches), name, base_figure,
                     f"{ratio:.3f}" if ratio is not None else "-"]
            print("| " + " | ".join(cells) + " |")
    print()
    if packs:
        if part == "conv":
            print("One-off weight packing OIHW -> OIHW16o (pack_weights, one thread), which conv2d_oc_vec's weights "
                  "need once per model, next to the best tuned kernel's time:\n")
        else:
            print("Activation layout conversions NCHW -> NCHW16c (input) plus NCHW16c -> NCHW (output) "
                  "(pack_weights --depthwise, one thread), which depthwise_conv2d_nchwc needs unless its neighbours "
                  "keep the blocked layout, next to the best tuned kernel's time:\n")
        print("| workload | conversion ms | tuned kernel ms |")
        print("|---|---:|---:|")
        for name, (pack_s, kernel_s) in packs.items():
            print(f"| {name} | {pack_s * 1e3:.3f} | {kernel_s * 1e3:.3f} |")
        print()
    for name, values in ratios.items():
        print(f"median ratio tuned vs {name} over {len(values)} workloads: {statistics.median(values):.3f}")
    print()

print("Commands (in the order run; databases in a temporary directory):\n")
print("```")
for r in rows:
    if r[4] != "not-applicable":
        print(r[7])
print("```")
EOF
