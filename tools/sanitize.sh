#!/usr/bin/env bash
# Builds with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/ and runs a test
# tier there (default: unit; `tools/sanitize.sh device` or `e2e` for the others, slower).
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-unit}"
tools/install-deps.sh
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENSORTUNE_TESTS=ON -DTENSORTUNE_SANITIZE=ON >/dev/null
cmake --build build-sanitize
# POCL's own allocations and the worker's driver threads are outside what we can fix.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir build-sanitize -L "$tier" --output-on-failure --no-tests=error
