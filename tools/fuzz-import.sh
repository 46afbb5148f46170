#!/usr/bin/env bash
# Fuzzes the AutoTVM and Kernel Tuner importers with clang's libFuzzer (Debian: clang-14),
# with AddressSanitizer and UndefinedBehaviorSanitizer, starting from the corpus in
# tests/fuzz/corpus/ (a few seeds, kept small; what the fuzzer finds stays in build-fuzz/).
# A crash leaves crash-* in build-fuzz/crashes-<target>/: copy it into
# tests/fuzz/regressions/<target>/ so that the corpus regression test (interchange_tests)
# replays it in every test run.
#
#   tools/fuzz-import.sh [seconds per target, default 120]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
clangxx=$(command -v clang++-14 || command -v clang++)
build=build-fuzz
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -g -O1"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_CXX_FLAGS="$flags" -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_FUZZ=ON >/dev/null
cmake --build "$build" -j2 --target fuzz_autotvm_import fuzz_kernel_tuner_import

for target in autotvm kernel_tuner; do
  corpus=tests/fuzz/corpus/$target
  work="$build/corpus-$target"
  mkdir -p "$work" "$build/crashes-$target"
  echo "fuzzing the $target importer for ${seconds}s"
  (cd "$build/crashes-$target" && ASAN_OPTIONS=detect_leaks=0 "../bin/fuzz_${target}_import" -max_total_time="$seconds" \
      -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "../../$work" "../../$corpus" 2>&1 | tail -15)
  ls "$build/crashes-$target" | grep -E '^(crash|timeout|oom)-' && echo "FOUND: see $build/crashes-$target" || true
done
