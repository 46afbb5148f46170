#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
# The rules that need no build (formatting, file size) first: they fail in seconds.
tools/check-rules.sh
# Tests on, whatever an earlier configure (tools/demo.sh turns them off) left in the cache; a
# warning fails the build.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=ON -DTENSORTUNE_WERROR=ON >/dev/null
cmake --build build
# An empty suite is a failure, not a pass.
ctest --test-dir build --output-on-failure --timeout 900 --no-tests=error "$@"
