#!/usr/bin/env bash
# bench/kernel_instruction_mix.sh: what the code POCL generates for one tuned config does.
#
# One config:
#   bench/kernel_instruction_mix.sh --op gemm --shape 1024,1024,1024 --template gemm_tiled \
#     --pin 'tile_x=[2,8,64,1]' --pin 'tile_y=[32,4,1,8]' --pin 'tile_k=[1,256,4]' \
#     --pin auto_unroll_max_step=16 --pin vec=8 --pin local_a=0 --pin local_b=0
#   (or the whole config key in one: --config 'tile_x=[2,8,64,1];tile_y=...;local_b=0')
# The best config of a workload in an existing history database (`tensortune best`):
#   bench/kernel_instruction_mix.sh --db history.db --op gemm --shape 1024,1024,1024 [--template T]
#
# Measures that one config with `tensortune tune --trials 1` (every knob pinned, so the tuner can
# propose nothing else) on a fresh database and a fresh POCL kernel cache with the cache on and
# POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1, so the work-group function's shared object stays in the
# cache (<cache>/<hash>/<kernel>/<local size>/<kernel>.so, beside parallel.bc, the LLVM IR after
# POCL's work-group passes). Then prints the GFLOPS the trial measured (and, with --db, the
# recorded best) and, for every .so, bench/instruction_mix.py's tables: the static instruction
# mix of the work-group function and of its hot loops (FMAs by register width, loads, broadcasts,
# shuffles, stack spills/reloads). Static counts: see instruction_mix.py.
#
# Pin the CPU and the thread count from outside, e.g.
#   POCL_MAX_PTHREAD_COUNT=1 taskset -c 1 bench/kernel_instruction_mix.sh ...
# Environment: BIN (build/bin of this checkout), KEEP_DIR (keep the cache, database, disassembly
# and the tune's JSON there instead of a temporary directory), TUNE_ARGS (appended to the tune,
# e.g. "--min-time 0.5"). Needs objdump (binutils) and python3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"  # paths given on the command line stay relative to the caller

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

bin="${BIN:-$root/build/bin}"
op="" shape="" template="" db="" config=""
pins=()
while (($#)); do
  case "$1" in
    --op) op="${2:?}"; shift 2 ;;
    --shape) shape="${2:?}"; shift 2 ;;
    --template) template="${2:?}"; shift 2 ;;
    --pin) pins+=("${2:?}"); shift 2 ;;
    --config) config="${2:?}"; shift 2 ;;
    --db) db="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "kernel_instruction_mix.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$op" && -n "$shape" ]] || { echo "kernel_instruction_mix.sh: --op and --shape are required" >&2; usage; }
if [[ -n "$db" ]]; then
  if ((${#pins[@]} > 0)) || [[ -n "$config" ]]; then
    echo "kernel_instruction_mix.sh: --db takes the config from the database; give no --pin/--config" >&2; exit 2
  fi
  [[ -f "$db" ]] || { echo "kernel_instruction_mix.sh: no such database: $db" >&2; exit 2; }
elif ((${#pins[@]} == 0)) && [[ -z "$config" ]]; then
  echo "kernel_instruction_mix.sh: give the config (--pin ... or --config KEY) or --db" >&2; exit 2
fi
for tool in objdump nm python3; do
  command -v "$tool" >/dev/null || { echo "kernel_instruction_mix.sh: $tool is needed (apt-get install binutils python3)" >&2; exit 3; }
done
[[ -x "$bin/tensortune" && -x "$bin/tensortune-worker" ]] || {
  echo "kernel_instruction_mix.sh: $bin/tensortune(-worker) missing; build them or set BIN" >&2; exit 3; }

if [[ -n "${KEEP_DIR:-}" ]]; then
  work="$KEEP_DIR"
  mkdir -p "$work"
  [[ -z "$(ls -A "$work")" ]] || { echo "kernel_instruction_mix.sh: KEEP_DIR $work is not empty" >&2; exit 2; }
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/tt-mix.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi

json_field() {  # json_field FILE KEY: one top-level (or best.KEY) field of a JSON object
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); k=sys.argv[2]
v=d.get(k, d.get("best", {}).get(k) if isinstance(d.get("best"), dict) else None)
print("" if v is None else v)' "$1" "$2"
}

recorded=""
if [[ -n "$db" ]]; then
  best_args=(best --db "$db" --op "$op" --shape "$shape")
  [[ -n "$template" ]] && best_args+=(--template "$template")
  "$bin/tensortune" "${best_args[@]}" >"$work/best.json"
  config="$(json_field "$work/best.json" config_key)"
  template="$(json_field "$work/best.json" template)"
  recorded="$(json_field "$work/best.json" gflops)"
  if [[ "$(json_field "$work/best.json" fallback)" == True ]]; then
    echo "warning: $db has no verified record of this workload; using the config of the similar workload $(json_field "$work/best.json" source_workload)" >&2
  fi
fi
if [[ -n "$config" ]]; then
  IFS=';' read -r -a from_key <<<"$config"
  pins+=("${from_key[@]}")
fi

tune=("$bin/tensortune" tune --op "$op" --shape "$shape" --trials 1 --db "$work/one.db" --json)
[[ -n "$template" ]] && tune+=(--template "$template")
for pin in "${pins[@]}"; do tune+=(--pin "$pin"); done
read -r -a extra <<<"${TUNE_ARGS:-}"
tune+=("${extra[@]}")

mkdir -p "$work/pocl"
POCL_CACHE_DIR="$work/pocl" POCL_KERNEL_CACHE=1 POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1 \
  "${tune[@]}" >"$work/tune.json" 2>"$work/tune.err" || {
  rc=$?; echo "kernel_instruction_mix.sh: the tune failed:" >&2; cat "$work/tune.err" >&2; exit "$rc"; }

measured="$(json_field "$work/tune.json" config_key)"
gflops="$(json_field "$work/tune.json" gflops)"
statuses="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("statuses"))' "$work/tune.json")"
echo "## $op $shape, template $(json_field "$work/tune.json" template), device $(json_field "$work/tune.json" device)"
echo
echo "- config: \`$measured\`"
if [[ -n "$config" && "$measured" != "$config" ]]; then
  echo "- warning: the measured config differs from the one asked for (\`$config\`): not every knob was pinned"
fi
echo "- measured now: ${gflops:-no verified result} GFLOPS (statuses $statuses; POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-unset}, CPUs $(taskset -pc $$ 2>/dev/null | sed 's/.*: //'))"
[[ -n "$recorded" ]] && echo "- recorded in $db: $recorded GFLOPS"
echo

mapfile -t objects < <(find "$work/pocl" -name '*.so' -type f | sort)
((${#objects[@]})) || { echo "kernel_instruction_mix.sh: POCL left no kernel .so in $work/pocl" >&2; exit 1; }
for so in "${objects[@]}"; do
  echo "- kernel object: ${so#"$work"/} (work-group size in its directory name)"
  objdump -d --no-show-raw-insn -M intel "$so" >"${so%.so}.s"
done
echo
python3 "$root/bench/instruction_mix.py" "${objects[@]}"
[[ -n "${KEEP_DIR:-}" ]] && echo "kept in $work (disassembly next to each .so as <kernel>.s)"
exit 0
