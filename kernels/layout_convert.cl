// Activation layout conversions between the sketches of a network (src/runtime): NCHW to the
// channel-blocked NCHW16c ([N][ceil(C/16)][H][W][16], the lanes past C zero) and back, one
// work-item per element written. Built with -D N, C (channels) and P (H x W).
#define CB ((C + 15) / 16)

__kernel void nchw_to_nchw16c(__global const float* restrict in, __global float* restrict out) {
  const int i = get_global_id(0);
  const int lane = i % 16;
  const int e = (i / 16) % P;
  const int block = (i / (16 * P)) % CB;
  const int b = i / (16 * P * CB);
  const int c = block * 16 + lane;
  out[i] = c < C ? in[(b * C + c) * P + e] : 0.0f;
}

__kernel void nchw16c_to_nchw(__global const float* restrict in, __global float* restrict out) {
  const int i = get_global_id(0);
  const int e = i % P;
  const int c = (i / P) % C;
  const int b = i / (P * C);
  out[i] = in[((b * CB + c / 16) * P + e) * 16 + c % 16];
}
