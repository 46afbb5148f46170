// Shared by the convolution kernels; the host puts it (and vector_types.cl, which the tile
// macros below need) in front of each one's source.

#define PRAGMA_(x) _Pragma(#x)
// UNROLL_IF(1) unrolls the loop that follows, UNROLL_IF(0) keeps it rolled.
#define UNROLL_IF(flag) UNROLL_IF_(flag)
#define UNROLL_IF_(flag) UNROLL_##flag
#define UNROLL_1 PRAGMA_(unroll)
#define UNROLL_0 PRAGMA_(unroll 1)

// Position inside a work-group tile of the v-th strided block ("virtual thread"), t-th
// work-item and i-th contiguous element: AutoTVM's 4-way split order below the group.
#define TILE_POS(v, items, t, inner, i) ((v) * (items) * (inner) + (t) * (inner) + (i))

// Direct convolutions: tile_f = TF0..TF3 splits the output channels, tile_y = TY0..TY3 the
// output rows and tile_x = TX0..TX3 the output columns (work-groups, virtual threads,
// work-items, contiguous elements per work-item).
#ifdef TF0
#define TF (TF1 * TF2 * TF3)   // output channels per work-group
#define TOY (TY1 * TY2 * TY3)  // output rows per work-group
#define TOX (TX1 * TX2 * TX3)  // output columns per work-group
#define WG (TF2 * TY2 * TX2)   // work-items per group
#define NF (TF1 * TF3)         // channels per work-item
#define NY (TY1 * TY3)
#define NX (TX1 * TX3)

// The work-item's place: local ids lx, ly, lf; batch entry n; the work-group tile's first
// channel f0, row y0 and column x0 (the batch is fused with the channel groups).
#define DIRECT_TILE_ORIGIN                                                     \
  const int lx = get_local_id(0), ly = get_local_id(1), lf = get_local_id(2); \
  const int n = get_group_id(2) / TF0;                                         \
  const int f0 = get_group_id(2) % TF0 * TF;                                   \
  const int y0 = get_group_id(1) * TOY;                                        \
  const int x0 = get_group_id(0) * TOX

// Tiles of floatv (vector_types.cl): a work-item's TX3 contiguous output columns are
// TX3 / VEC vectors (VEC = 1: plain floats).
#define NXV (TX1 * TX3 / VEC)

// floatv acc[NF][NY][NXV] = 0
#define ZERO_TILE(acc)               \
  PRAGMA_(unroll)                    \
  for (int i = 0; i < NF; ++i)       \
    PRAGMA_(unroll)                  \
    for (int j = 0; j < NY; ++j)     \
      PRAGMA_(unroll)                \
      for (int k = 0; k < NXV; ++k) acc[i][j][k] = (floatv)(0.0f)

// Writes a work-item's floatv acc[NF][NY][NXV] to out [N][channels][OH][OW]; n, f0, y0, x0
// locate the work-group's tile and lf, ly, lx the work-item in it.
#define STORE_TILE(out, acc, channels)                                                              \
  PRAGMA_(unroll)                                                                                   \
  for (int v = 0; v < TF1; ++v)                                                                     \
    PRAGMA_(unroll)                                                                                 \
    for (int i = 0; i < TF3; ++i) {                                                                 \
      const int f = f0 + TILE_POS(v, TF2, lf, TF3, i);                                              \
      PRAGMA_(unroll)                                                                               \
      for (int vy = 0; vy < TY1; ++vy)                                                              \
        PRAGMA_(unroll)                                                                             \
        for (int yi = 0; yi < TY3; ++yi) {                                                          \
          const int y = y0 + TILE_POS(vy, TY2, ly, TY3, yi);                                        \
          PRAGMA_(unroll)                                                                           \
          for (int vx = 0; vx < TX1; ++vx)                                                          \
            PRAGMA_(unroll)                                                                         \
            for (int xv = 0; xv < TX3 / VEC; ++xv) {                                                \
              const int x = x0 + TILE_POS(vx, TX2, lx, TX3, xv * VEC);                              \
              VSTORE(acc[v * TF3 + i][vy * TY3 + yi][vx * (TX3 / VEC) + xv],                        \
                     &out[(((size_t)n * (channels) + f) * OH + y) * OW + x]);                       \
            }                                                                                       \
        }                                                                                           \
    }
#endif
