#!/usr/bin/env bash
# bench/kernel_tuner_examples.sh KERNEL_TUNER_CHECKOUT [BUILD_DIR]
#
# Kernel Tuner's own OpenCL examples (examples/opencl/vector_add.py and matmul.py of a checkout
# of https://github.com/KernelTuner/kernel_tuner, never committed here) run on tensortune with
# only their imports changed: `from kernel_tuner import ...` -> `from tensortune import ...`,
# `import kernel_tuner` -> `import tensortune as kernel_tuner`, `kernel_tuner.file_utils` ->
# `tensortune.file_utils`. Copies them to a temporary folder, rewrites the imports, checks that
# nothing else changed (diff), runs each example's tune() against the module in BUILD_DIR
# (default build) with Debian's /usr/bin/python3, and checks the result's shape: a list of
# dicts, each with every tune_params key and a positive `time`, and the files the example
# writes. Exit 0 when every check holds; one line per check.
#
# matmul.py multiplies 4096 x 4096 matrices: on a CPU device (POCL) its 44 configs take hours.
# MATMUL_SIZE=N (default 512) also rewrites that size in matmul.py and matmul.cl's WIDTH (the one
# change beyond the imports, said in the output); MATMUL_SIZE=4096 runs it as written. The examples' folder and databases are
# kept in OUT (default: a new temporary folder).
set -euo pipefail
(($# >= 1)) || { echo "usage: bench/kernel_tuner_examples.sh KERNEL_TUNER_CHECKOUT [BUILD_DIR]" >&2; exit 2; }
kt=$1 build=${2:-build}
examples="$kt/examples/opencl"
for f in vector_add.py matmul.py matmul.cl; do
  [[ -f "$examples/$f" ]] || { echo "kernel_tuner_examples.sh: no $examples/$f (a Kernel Tuner checkout?)" >&2; exit 2; }
done
[[ -d "$build/python/tensortune" ]] || { echo "kernel_tuner_examples.sh: no module in $build/python (build _tensortune)" >&2; exit 2; }
module_dir=$(cd "$build/python" && pwd)
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tt-kt-examples.XXXXXX")}"
mkdir -p "$out"
size=${MATMUL_SIZE:-512}
cp "$examples/vector_add.py" "$examples/matmul.py" "$examples/matmul.cl" "$out/"
cd "$out"
sed -i -E -e 's/^from kernel_tuner\.file_utils import/from tensortune.file_utils import/' \
  -e 's/^from kernel_tuner import/from tensortune import/' \
  -e 's/^import kernel_tuner$/import tensortune as kernel_tuner/' vector_add.py matmul.py
if [[ $size != 4096 ]]; then
  sed -i -E "s/4096/$size/g" matmul.py
  sed -i -E "s/^#define WIDTH 4096/#define WIDTH $size/" matmul.cl
  echo "matmul.py, matmul.cl: size 4096 -> $size (MATMUL_SIZE; the one change beyond the imports)"
fi
failed=0
check() {  # what, condition (a command)
  if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1"; failed=1; fi
}
# Every changed line is an import (or matmul's size).
only_imports() {
  local changed
  changed=$(diff "$examples/$1" "$1" | grep -E '^[<>]' | grep -v -E '^[<>] (from|import) ' |
    grep -v -E "4096|$size" || true)
  [[ -z $changed ]]
}
check "vector_add.py: only imports changed" only_imports vector_add.py
check "matmul.py: only imports (and the size) changed" only_imports matmul.py
diff "$examples/vector_add.py" vector_add.py | grep -E '^[<>]' || true
diff "$examples/matmul.py" matmul.py | grep -E '^[<>] (from|import)' || true

# Runs an example's tune() and checks what it returns or writes.
run_example() {  # script, tune_params keys (comma-separated), file it writes
  PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 - "$@" << 'PY'
import json, runpy, sys, time
script, keys, written = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
example = runpy.run_path(script, run_name="example")
started = time.time()
results = example["tune"]()
seconds = time.time() - started
if results is None:  # matmul.py returns nothing: it writes its results with json.dump
    with open(written) as f:
        results = json.load(f)
ok = isinstance(results, list) and len(results) > 0 and all(
    isinstance(r, dict) and all(k in r for k in keys) and isinstance(r.get("time"), float) and r["time"] > 0
    for r in results)
with open(written) as f:
    doc = json.load(f)
print(f"{script}: {len(results)} results in {seconds:.1f} s; best "
      + (", ".join(f"{k}={min(results, key=lambda r: r['time'])[k]}" for k in keys + ["time"]) if ok else "-"))
sys.exit(0 if ok and doc else 1)
PY
}
check "vector_add.py: results are dicts of block_size_x and time; vector_add.json written" \
  run_example vector_add.py block_size_x vector_add.json
check "vector_add-metadata.json written" test -s vector_add-metadata.json
check "matmul.py: results are dicts of the four parameters and time; matmul.json written" \
  run_example matmul.py block_size_x,block_size_y,tile_size_x,tile_size_y matmul.json
echo "folder: $out"
exit $failed
