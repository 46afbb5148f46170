"""Shared by the Python tests: a scratch folder and a small kernel."""
import os
import shutil
import tempfile

VECTOR_ADD = """
__kernel void vector_add(__global float *c, __global const float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n) {
#if block_size_x == 64
        c[i] = a[i] - b[i];   /* wrong on purpose */
#else
        c[i] = a[i] + b[i];
#endif
    }
}
"""

SOURCE_DIR = os.environ.get("TT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


class Scratch:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tensortune-pytest-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
