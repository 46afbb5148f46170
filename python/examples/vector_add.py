#!/usr/bin/env python3
"""Tunes the thread-block size of a vector addition with tensortune.tune_kernel, the way a
Kernel Tuner script does (only the import names tensortune). Every trial goes to history.db in
the current folder: run it twice and the second run measures nothing new."""
import numpy
from tensortune import tune_kernel

KERNEL = """
__kernel void vector_add(__global float *c, __global const float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"""


def main(size=200000):
    a = numpy.random.randn(size).astype(numpy.float32)
    b = numpy.random.randn(size).astype(numpy.float32)
    c = numpy.zeros_like(b)
    n = numpy.int32(size)
    arguments = [c, a, b, n]
    tune_params = {"block_size_x": [64, 128, 256, 512, 1024]}
    answer = [a + b, None, None, None]
    results, env = tune_kernel("vector_add", KERNEL, size, arguments, tune_params, answer=answer)
    best = min(results, key=lambda r: r["time"])
    print(f"{len(results)} configs on {env['device_name']}; best block_size_x={best['block_size_x']} "
          f"at {best['time']:.4f} ms")
    return results, env


if __name__ == "__main__":
    main()
