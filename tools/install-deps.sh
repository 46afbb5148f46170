#!/usr/bin/env bash
# Installs the Debian 12 packages tensortune needs, only those missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsqlite3-dev libsqlitecpp-dev sqlite3 libeigen3-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  ocl-icd-opencl-dev opencl-c-headers ocl-icd-libopencl1 pocl-opencl-icd clinfo
  libxgboost-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
  libonnx-dev libprotobuf-dev python3-onnx
  libopenmpi-dev openmpi-bin
  patchelf bubblewrap busybox-static file  # tools/bundle.sh and its sandbox test
  chromium  # ReportNetwork.* renders a report headless (tools/check-report.sh)
  python3-pybind11 pybind11-dev python3-numpy  # the Python module (python/)
  clang-format clang-tidy  # tools/check-rules.sh (the style is clang-format 14's), tools/clang-tidy.sh
)
[[ "${1:-}" == "--bench" ]] && packages+=(libopenblas-dev libclblast-dev libdnnl-dev)
# Kernel Tuner's strategies side by side (bench/kernel_tuner_side_by_side.py)
[[ "${1:-}" == "--bench-kernel-tuner" ]] &&
  packages+=(python3-numpy python3-scipy python3-sklearn python3-pandas python3-jsonschema python3-packaging)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
