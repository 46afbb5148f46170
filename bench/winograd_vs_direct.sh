#!/usr/bin/env bash
# ResNet-18's 3x3 stride-1 convolutions: tensortune's Winograd sketches on channel blocks
# (conv2d_winograd_f2_nchwc, conv2d_winograd_f4_nchwc) against its best direct kernel on the same
# layout (conv2d_oc_vec_nchwc) and against oneDNN (dnnl_conv: its own choice, convolution_auto,
# and its Winograd, convolution_winograd, where it offers one), side by side in one run.
#
# One core each side: tensortune's measuring and POCL on one thread (POCL_MAX_PTHREAD_COUNT=1,
# pinned with taskset to CPU), oneDNN on one OpenMP thread pinned to the same CPU. Every sketch
# is tuned with its own budget (TRIALS, default 32, tuner TUNER, default xgb) on a fresh
# temporary database; the figure is its best config's median time as `tune` measures it
# (--min-time 0.2). Prints a markdown table (ms; the faster Winograd sketch's speed relative to
# oneDNN's choice, to oneDNN's best and to the direct sketch) and the commands.
#
# Environment: TRIALS, TUNER, SEED (1), CPU (0), LAYERS (space-separated tensortune shapes),
# BUILD_DIR (build, configured with -DTENSORTUNE_BENCH=ON so that dnnl_conv exists).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pocl_affinity.sh
build="${BUILD_DIR:-build}"
trials="${TRIALS:-32}"
tuner="${TUNER:-xgb}"
seed="${SEED:-1}"
cpu="${CPU:-0}"
# shellcheck disable=SC2054  # the commas belong to tensortune shapes
default_layers=(
  n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1
  n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1
  n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1
  n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1
)
read -r -a layers <<<"${LAYERS:-${default_layers[*]}}"
sketches=(conv2d_oc_vec_nchwc conv2d_winograd_f2_nchwc conv2d_winograd_f4_nchwc)
for program in tensortune dnnl_conv; do
  [[ -x "$build/bin/$program" ]] || { echo "winograd_vs_direct: $build/bin/$program is missing" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The best median time in ms of `tune --json`'s output, or "-".
best_ms() { /usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); b=d.get("best") or {}
t=b.get("time_s") or b.get("median_s")
print("%.3f" % (t*1e3) if t else "-")' "$1"; }
dnnl_ms() { /usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("%.3f" % (d["median_s"]*1e3) if "median_s" in d else "-")' "$1"; }

echo "commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
join() { local IFS='|'; echo "$*" | sed 's/|/ | /g'; }
echo "| layer | $(join "${sketches[@]}") | oneDNN auto | oneDNN winograd | Winograd vs oneDNN auto | vs oneDNN best | vs direct |"
echo "|---|---|---|---|---|---|---|---|---|"
for shape in "${layers[@]}"; do
  row=()
  for sketch in "${sketches[@]}"; do
    db="$work/$sketch-$shape.db"
    POCL_AFFINITY="$(pocl_affinity "$cpu" 1)" POCL_MAX_PTHREAD_COUNT=1 taskset -c "$cpu" "$build/bin/tensortune" tune --op conv2d \
      --shape "$shape" --template "$sketch" --trials "$trials" --tuner "$tuner" --seed "$seed" --builders 0 \
      --min-time 0.2 --db "$db" --json --progress none >"$work/out.json" 2>>"$work/log" || true
    row+=("$(best_ms "$work/out.json")")
  done
  read -r n ci h w co kh kw stride pad <<<"$(echo "$shape" | sed 's/[a-z]*=//g; s/,/ /g')"
  OMP_NUM_THREADS=1 taskset -c "$cpu" "$build/bin/dnnl_conv" "$n" "$ci" "$h" "$w" "$co" "$kh" "$kw" "$stride" \
    "$pad" 1 >"$work/auto.json"
  OMP_NUM_THREADS=1 taskset -c "$cpu" "$build/bin/dnnl_conv" --winograd "$n" "$ci" "$h" "$w" "$co" "$kh" "$kw" \
    "$stride" "$pad" 1 >"$work/wino.json" || true
  row+=("$(dnnl_ms "$work/auto.json")" "$(dnnl_ms "$work/wino.json")")
  ratios="$(/usr/bin/python3 -c 'import sys
v=[float(x) if x != "-" else None for x in sys.argv[1:]]
direct, f2, f4, auto, wino = v
w=min(x for x in (f2, f4) if x); o=min(x for x in (auto, wino) if x)
print("%.2f | %.2f | %s" % (auto / w, o / w, "%.2f" % (direct / w) if direct else "-"))' "${row[@]}")"
  echo "| ${shape//,kh=3,kw=3,stride=1,pad=1/} | $(join "${row[@]}") | $ratios |"
done
echo
echo "tensortune: POCL_AFFINITY=1 POCL_MAX_PTHREAD_COUNT=1 taskset -c $cpu tensortune tune --op conv2d --shape SHAPE" \
  "--template SKETCH --trials $trials --tuner $tuner --seed $seed --builders 0 --min-time 0.2"
echo "oneDNN: OMP_NUM_THREADS=1 taskset -c $cpu dnnl_conv [--winograd] n ci h w co 3 3 1 1 1 (median of >= 1 s of calls)"
echo "(ratios: the other's time / the faster Winograd sketch's time; above 1: tensortune's Winograd faster)"
