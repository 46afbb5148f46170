#!/usr/bin/env python3
"""Tunes a matrix multiplication over block and tile sizes with grid divisors and restrictions,
the way a Kernel Tuner script does (only the import names tensortune): each thread computes
tile_size_y x tile_size_x elements of C, so the grid is the matrix divided by block x tile."""
import numpy
import tensortune as kernel_tuner

KERNEL = """
__kernel void matmul_kernel(__global float *C, __global const float *A, __global const float *B) {
    const int x = get_group_id(0) * block_size_x * tile_size_x + get_local_id(0);
    const int y = get_group_id(1) * block_size_y * tile_size_y + get_local_id(1);
    float sum[tile_size_y][tile_size_x];
    for (int i = 0; i < tile_size_y; i++)
        for (int j = 0; j < tile_size_x; j++)
            sum[i][j] = 0.0f;
    for (int k = 0; k < WIDTH; k++)
        for (int i = 0; i < tile_size_y; i++)
            for (int j = 0; j < tile_size_x; j++)
                sum[i][j] += A[(y + i * block_size_y) * WIDTH + k] * B[k * WIDTH + x + j * block_size_x];
    for (int i = 0; i < tile_size_y; i++)
        for (int j = 0; j < tile_size_x; j++)
            C[(y + i * block_size_y) * WIDTH + x + j * block_size_x] = sum[i][j];
}
"""


def main(width=128):
    problem_size = (width, width)
    A = numpy.random.randn(width, width).astype(numpy.float32)
    B = numpy.random.randn(width, width).astype(numpy.float32)
    C = numpy.zeros_like(A)
    arguments = [C, A, B]
    tune_params = {
        "block_size_x": [8, 16, 32],
        "block_size_y": [4, 8, 16],
        "tile_size_x": [1, 2, 4],
        "tile_size_y": [1, 2, 4],
    }
    grid_div_x = ["block_size_x", "tile_size_x"]
    grid_div_y = ["block_size_y", "tile_size_y"]
    restrictions = ["block_size_x==block_size_y*tile_size_y"]
    answer = [A.dot(B), None, None]
    results, env = kernel_tuner.tune_kernel(
        "matmul_kernel", KERNEL, problem_size, arguments, tune_params, grid_div_x=grid_div_x, grid_div_y=grid_div_y,
        restrictions=restrictions, answer=answer, atol=1e-3, compiler_options=[f"-DWIDTH={width}"],
        strategy="random_sample", strategy_options={"max_fevals": 8})
    best = min(results, key=lambda r: r["time"])
    print(f"{len(results)} configs on {env['device_name']}; best", {k: best[k] for k in tune_params},
          f"at {best['time']:.4f} ms")
    return results, env


if __name__ == "__main__":
    main()
