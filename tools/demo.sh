#!/usr/bin/env bash
# Installs what is missing, builds, and tunes a GEMM on the default OpenCL device.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF >/dev/null
cmake --build build
build/bin/tensortune devices
build/bin/tensortune tune --op gemm --shape 512,1024,1024 --tuner random --trials 64 --db history.db "$@"
