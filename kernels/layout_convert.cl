// Activation layout conversions between the sketches of a network (src/runtime): NCHW to the
// channel-blocked NCHW16c ([N][ceil(C/16)][H][W][16], the lanes past C zero) and back. Built
// with -D N, C (channels) and P (H x W); the NDRange is (P, ceil(C/16), N): one work-item per
// pixel of a channel block, which moves that pixel's 16 lanes as one vector. Neighbouring
// work-items take neighbouring pixels, so each of the 16 plain channel planes is read (or
// written) along contiguous addresses, and no work-item divides an index.
#define CB ((C + 15) / 16)

__kernel void nchw_to_nchw16c(__global const float* restrict in, __global float* restrict out) {
  const int e = get_global_id(0), block = get_global_id(1), b = get_global_id(2);
  __global const float* plane = in + (b * C + block * 16) * P + e;  // channel block * 16, pixel e
  float lanes[16];
#pragma unroll
  for (int l = 0; l < 16; ++l) lanes[l] = block * 16 + l < C ? plane[l * P] : 0.0f;
  vstore16(vload16(0, lanes), (b * CB + block) * P + e, out);
}

__kernel void nchw16c_to_nchw(__global const float* restrict in, __global float* restrict out) {
  const int e = get_global_id(0), block = get_global_id(1), b = get_global_id(2);
  const float16 v = vload16((b * CB + block) * P + e, in);
  float lanes[16];
  vstore16(v, 0, lanes);
  __global float* plane = out + (b * C + block * 16) * P + e;
#pragma unroll
  for (int l = 0; l < 16; ++l)
    if (block * 16 + l < C) plane[l * P] = lanes[l];
}
