// Direct 2-D convolution like conv2d_direct.cl without local memory (same layouts, same
// AutoTVM conv2d_nchw knobs), plus a vector width: each work-item's TX3 contiguous output
// columns are computed VEC at a time in floatVEC registers, so that the CPU's SIMD units do
// the work instead of relying on the OpenCL compiler to vectorize across work-items.
// TX3 is a multiple of VEC. Input columns are read with one vector load where the VEC inputs
// are contiguous and inside the image (stride 1), lane by lane otherwise.

// floatv, VLOAD and VSTORE come from vector_types.cl.

// VEC inputs of one image row for VEC neighbouring outputs, starting at column ix.
floatv load_inputs(__global const float* row, int iy, int ix) {
  if (iy >= 0 && iy < H && ix >= 0 && ix + (VEC - 1) * STRIDE < W && STRIDE == 1) return VLOAD(row + ix);
  float lanes[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) {
    const int x = ix + l * STRIDE;
    lanes[l] = (iy >= 0 && iy < H && x >= 0 && x < W) ? row[x] : 0.0f;
  }
  return VLOAD(lanes);
}

__kernel __attribute__((reqd_work_group_size(TX2, TY2, TF2)))
void conv2d_vec(__global const float* restrict data, __global const float* restrict weight,
                __global float* restrict out) {
  DIRECT_TILE_ORIGIN;

  floatv acc[NF][NY][NXV];
  ZERO_TILE(acc);

  for (int rco = 0; rco < RC0; ++rco)
    for (int ryo = 0; ryo < RY0; ++ryo)
      for (int rxo = 0; rxo < RX0; ++rxo) {
        const int c0 = rco * RC1, ky0 = ryo * RY1, kx0 = rxo * RX1;
        __global const float* in_n = data + ((size_t)n * CI + c0) * H * W;
        UNROLL_IF(UNROLL_RC)
        for (int rc = 0; rc < RC1; ++rc)
          UNROLL_IF(UNROLL_RY)
          for (int ry = 0; ry < RY1; ++ry)
            UNROLL_IF(UNROLL_RX)
            for (int rx = 0; rx < RX1; ++rx) {
              float wv[NF];
              floatv iv[NY][NXV];
#pragma unroll
              for (int v = 0; v < TF1; ++v)
#pragma unroll
                for (int i = 0; i < TF3; ++i) {
                  const int f = f0 + TILE_POS(v, TF2, lf, TF3, i);
                  wv[v * TF3 + i] = weight[((f * CI + c0 + rc) * KH + ky0 + ry) * KW + kx0 + rx];
                }
#pragma unroll
              for (int vy = 0; vy < TY1; ++vy)
#pragma unroll
                for (int yi = 0; yi < TY3; ++yi) {
                  const int iy = (y0 + TILE_POS(vy, TY2, ly, TY3, yi)) * STRIDE - PAD + (ky0 + ry) * DIL;
                  __global const float* row = in_n + (rc * H + iy) * W;
#pragma unroll
                  for (int vx = 0; vx < TX1; ++vx)
#pragma unroll
                    for (int xv = 0; xv < TX3 / VEC; ++xv) {
                      const int xx = TILE_POS(vx, TX2, lx, TX3, xv * VEC);
                      const int ix = (x0 + xx) * STRIDE - PAD + (kx0 + rx) * DIL;
                      iv[vy * TY3 + yi][vx * (TX3 / VEC) + xv] = load_inputs(row, iy, ix);
                    }
                }
#pragma unroll
              for (int i = 0; i < NF; ++i)
#pragma unroll
                for (int j = 0; j < NY; ++j)
#pragma unroll
                  for (int k = 0; k < NXV; ++k) acc[i][j][k] = fma((floatv)(wv[i]), iv[j][k], acc[i][j][k]);
            }
      }

  STORE_TILE(out, acc, CO);
}
