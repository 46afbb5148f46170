#!/usr/bin/env bash
# tests/install/example_against_install.sh BUILD_DIR SOURCE_DIR [GENERATOR]
#
# What a user does: `cmake --install` into a fresh prefix, build examples/ against it with
# find_package(tensortune), tune its two workloads with the installed tensortune, and run it on
# the default OpenCL device (POCL in CI); then build it once more through pkg-config.
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
generator=${3:-Ninja}
work=$(mktemp -d "${TMPDIR:-/tmp}/tt-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/tensortune/runtime.h include/tensortune/layouts.h include/tensortune/history.h \
  include/tensortune/network.h bin/tensortune \
  bin/tensortune-worker; do
  [[ -e "$prefix/$f" ]] || { echo "not installed: $f" >&2; exit 1; }
done
if grep -l -E "SQLiteCpp|nlohmann" "$prefix"/include/tensortune/*.h; then
  echo "public headers name SQLiteCpp or nlohmann types" >&2
  exit 1
fi

cmake -S "$source/examples" -B "$work/example" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example" >/dev/null

db="$work/history.db"
"$prefix/bin/tensortune" tune --op conv2d --shape n=1,ci=16,h=28,w=28,co=32,kh=3,kw=3,stride=1,pad=1 \
  --tuner random --trials 6 --min-time 0.01 --db "$db" --json >/dev/null
"$prefix/bin/tensortune" tune --op gemm --shape 128,96,64 --tuner random --trials 6 --min-time 0.01 \
  --db "$db" --json >/dev/null

"$work/example/run_tuned" "$db" | tee "$work/out.txt"
grep -q "2 of 2 verified" "$work/out.txt"
grep -q "^conv2d: exact: " "$work/out.txt"
grep -q "^gemm: exact: " "$work/out.txt"

# A history without the workloads: a clear error, exit 2, nothing run.
"$prefix/bin/tensortune" tune --op gemm --shape 16,16,16 --tuner random --trials 2 --min-time 0.01 \
  --db "$work/other.db" --json >/dev/null
set +e
"$work/example/run_tuned" "$work/other.db" >/dev/null 2>"$work/err.txt"
code=$?
set -e
[[ $code == 2 ]] || { echo "expected exit 2 for a history without the workloads, got $code" >&2; exit 1; }
grep -q "missing-workload" "$work/err.txt"

# The same program through pkg-config.
pc_dir=$(dirname "$(find "$prefix" -name tensortune.pc | head -1)")
lib_dir=$(dirname "$(find "$prefix" -name 'libtensortune_runtime.so' | head -1)")
# shellcheck disable=SC2046  # pkg-config prints several flags
c++ -std=c++17 "$source/examples/run_tuned.cpp" -o "$work/run_tuned_pc" \
  $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs tensortune-history) -Wl,-rpath,"$lib_dir"
"$work/run_tuned_pc" "$db" | grep -q "2 of 2 verified"
echo "installed package, find_package and pkg-config builds: ok"
