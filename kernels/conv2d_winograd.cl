// Winograd F(2x2, 3x3) convolution for 3x3 kernels, stride 1, dilation 1, any padding; NCHW
// input [N][CI][H][W], OIHW weights [CO][CI][3][3], output [N][CO][OH][OW], float32.
//
// The output is cut into 2x2 tiles, P = N * ceil(OH/2) * ceil(OW/2) of them. For each 4x4
// input patch d and 3x3 filter g, Y = A^T [ (G g G^T) .* (B^T d B) ] A; the element-wise
// products summed over input channels form 16 independent CO x P by CI products.
// Everything happens in one kernel: each reduction step transforms RC1 channels of filters
// (U) and input patches (V) into local memory, every work-item accumulates its channel x
// tile block for all 16 components, and transforms its results back at the end. Filters are
// transformed per work-group rather than once ahead, which keeps the template one kernel;
// the redundant work is small next to the 16 products once a group holds several tiles.
//
// Knobs (src/ops/conv2d_templates.cpp): tile_y = TY0 x TY1 x TY2 x TY3 splits CO and
// tile_x = TX0 x TX1 x TX2 x TX3 splits P (work-groups, virtual threads, work-items,
// contiguous); tile_rc = RC0 x RC1 splits CI into steps. UNROLL_RC unrolls the step's channel
// loop (auto_unroll_max_step); UNROLL_FETCH unrolls the transform loops (unroll_explicit).

#define TCO (TY1 * TY2 * TY3)  // output channels per work-group
#define TP (TX1 * TX2 * TX3)   // output tiles per work-group
#define WG (TY2 * TX2)
#define NCO (TY1 * TY3)  // per work-item
#define NP (TX1 * TX3)
#define TILES_Y ((OH + 1) / 2)
#define TILES_X ((OW + 1) / 2)

// U = G g G^T with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]; g is row-major 3x3.
void filter_transform(const float g[9], float u[16]) {
  float t[4][3];  // G g
  for (int j = 0; j < 3; ++j) {
    t[0][j] = g[j];
    t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
    t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
    t[3][j] = g[6 + j];
  }
  for (int i = 0; i < 4; ++i) {
    u[i * 4 + 0] = t[i][0];
    u[i * 4 + 1] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
    u[i * 4 + 2] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
    u[i * 4 + 3] = t[i][2];
  }
}

// V = B^T d B with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]; d is row-major 4x4.
void input_transform(const float d[16], float v[16]) {
  float t[4][4];  // B^T d
  for (int j = 0; j < 4; ++j) {
    t[0][j] = d[j] - d[8 + j];
    t[1][j] = d[4 + j] + d[8 + j];
    t[2][j] = d[8 + j] - d[4 + j];
    t[3][j] = d[4 + j] - d[12 + j];
  }
  for (int i = 0; i < 4; ++i) {
    v[i * 4 + 0] = t[i][0] - t[i][2];
    v[i * 4 + 1] = t[i][1] + t[i][2];
    v[i * 4 + 2] = t[i][2] - t[i][1];
    v[i * 4 + 3] = t[i][1] - t[i][3];
  }
}

__kernel __attribute__((reqd_work_group_size(TX2, TY2, 1)))
void conv2d_winograd(__global const float* restrict data, __global const float* restrict weight,
                     __global float* restrict out) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int lid = ly * TX2 + lx;
  const int p0 = get_group_id(0) * TP;
  const int co0 = get_group_id(1) * TCO;

  __local float u_s[16 * RC1 * TCO];  // u_s[(k * RC1 + c) * TCO + co]
  __local float v_s[16 * RC1 * TP];   // v_s[(k * RC1 + c) * TP + p]

  float acc[16][NCO][NP];
#pragma unroll
  for (int k = 0; k < 16; ++k)
#pragma unroll
    for (int i = 0; i < NCO; ++i)
#pragma unroll
      for (int j = 0; j < NP; ++j) acc[k][i][j] = 0.0f;

  for (int rco = 0; rco < RC0; ++rco) {
    const int c0 = rco * RC1;
    UNROLL_IF(UNROLL_FETCH)
    for (int s = 0; s < (RC1 * TCO + WG - 1) / WG; ++s) {
      const int t = lid + s * WG;
      if (t < RC1 * TCO) {
        const int co = t / RC1, c = t % RC1;
        __global const float* g_src = weight + ((co0 + co) * CI + c0 + c) * 9;
        float g[9], u[16];
        for (int i = 0; i < 9; ++i) g[i] = g_src[i];
        filter_transform(g, u);
        for (int k = 0; k < 16; ++k) u_s[(k * RC1 + c) * TCO + co] = u[k];
      }
    }
    UNROLL_IF(UNROLL_FETCH)
    for (int s = 0; s < (RC1 * TP + WG - 1) / WG; ++s) {
      const int t = lid + s * WG;
      if (t < RC1 * TP) {
        const int p = t / RC1, c = t % RC1;
        const int tile = p0 + p;
        const int n = tile / (TILES_Y * TILES_X), ty = tile / TILES_X % TILES_Y, tx = tile % TILES_X;
        __global const float* plane = data + ((size_t)n * CI + c0 + c) * H * W;
        float d[16], v[16];
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const int iy = ty * 2 - PAD + i, ix = tx * 2 - PAD + j;
            d[i * 4 + j] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? plane[iy * W + ix] : 0.0f;
          }
        input_transform(d, v);
        for (int k = 0; k < 16; ++k) v_s[(k * RC1 + c) * TP + p] = v[k];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    UNROLL_IF(UNROLL_RC)
    for (int c = 0; c < RC1; ++c)
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        float u[NCO], v[NP];
#pragma unroll
        for (int vy = 0; vy < TY1; ++vy)
#pragma unroll
          for (int i = 0; i < TY3; ++i) u[vy * TY3 + i] = u_s[(k * RC1 + c) * TCO + TILE_POS(vy, TY2, ly, TY3, i)];
#pragma unroll
        for (int vx = 0; vx < TX1; ++vx)
#pragma unroll
          for (int j = 0; j < TX3; ++j) v[vx * TX3 + j] = v_s[(k * RC1 + c) * TP + TILE_POS(vx, TX2, lx, TX3, j)];
#pragma unroll
        for (int i = 0; i < NCO; ++i)
#pragma unroll
          for (int j = 0; j < NP; ++j) acc[k][i][j] = fma(u[i], v[j], acc[k][i][j]);
      }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Y = A^T M A with A^T = [1 1 1 0; 0 1 -1 -1]; tiles past the output edge are cut.
#pragma unroll
  for (int vy = 0; vy < TY1; ++vy)
#pragma unroll
    for (int i = 0; i < TY3; ++i) {
      const int co = co0 + TILE_POS(vy, TY2, ly, TY3, i);
#pragma unroll
      for (int vx = 0; vx < TX1; ++vx)
#pragma unroll
        for (int j = 0; j < TX3; ++j) {
          const int tile = p0 + TILE_POS(vx, TX2, lx, TX3, j);
          const int n = tile / (TILES_Y * TILES_X), ty = tile / TILES_X % TILES_Y, tx = tile % TILES_X;
          float m[16];
          for (int k = 0; k < 16; ++k) m[k] = acc[k][vy * TY3 + i][vx * TX3 + j];
          float t[2][4];  // A^T M
          for (int col = 0; col < 4; ++col) {
            t[0][col] = m[col] + m[4 + col] + m[8 + col];
            t[1][col] = m[4 + col] - m[8 + col] - m[12 + col];
          }
          __global float* dst = out + ((size_t)n * CO + co) * OH * OW;
          for (int r = 0; r < 2; ++r) {
            const int y = ty * 2 + r;
            if (y >= OH) break;
            const float y0 = t[r][0] + t[r][1] + t[r][2], y1 = t[r][1] - t[r][2] - t[r][3];
            dst[y * OW + tx * 2] = y0;
            if (tx * 2 + 1 < OW) dst[y * OW + tx * 2 + 1] = y1;
          }
        }
    }
}
