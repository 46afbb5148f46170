#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure --timeout 900
