#!/usr/bin/env bash
# Builds with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/ and runs a test
# tier there (default: unit, which builds only the unit tier's tests; `tools/sanitize.sh device`
# or `e2e` build everything and take much longer). CI runs the unit tier as its own job
# (.ci/sanitize). Any finding fails the test it occurs in.
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-unit}"
tools/install-deps.sh
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENSORTUNE_TESTS=ON -DTENSORTUNE_SANITIZE=ON >/dev/null
if [[ "$tier" == unit ]]; then
  cmake --build build-sanitize --target unit_tests
else
  cmake --build build-sanitize
fi
# POCL's own allocations and the worker's driver threads are outside what we can fix.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir build-sanitize -L "$tier" --output-on-failure --no-tests=error
