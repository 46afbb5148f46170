#!/usr/bin/env bash
# python/tests/installed_module.sh BUILD_DIR PYTHON_INSTALL_DIR PYTHON
# `cmake --install` into a fresh prefix; the installed module imports from there (not from the
# build tree) and tunes a small kernel with the installed tensortune-worker.
set -euo pipefail
build=$(realpath "$1")
python_dir=$2
python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/tt-python-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cd "$work"
PYTHONPATH="$work/prefix/$python_dir" "$python" - <<'PY'
import os, numpy, tensortune
assert tensortune.__file__.startswith(os.getcwd() + "/prefix/"), tensortune.__file__
from tensortune import _engine
assert _engine.worker_path().startswith(os.getcwd() + "/prefix/bin/"), _engine.worker_path()
kernel = "__kernel void twice(__global float *c, int n) { int i = get_global_id(0); if (i < n) c[i] *= 2.0f; }"
c = numpy.ones(100, dtype=numpy.float32)
results, env = tensortune.tune_kernel("twice", kernel, 100, [c, numpy.int32(100)], {"block_size_x": [16, 32]},
                                      answer=[c * 2, None], db="h.db")
assert sorted(r["block_size_x"] for r in results) == [16, 32], results
print("installed module ok:", env["device_name"])
PY
