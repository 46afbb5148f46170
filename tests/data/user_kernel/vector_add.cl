// A user's kernel for the tests: c = a + b, wrong on purpose when block_size_x is 64.
__kernel void vector_add(__global float* c, __global const float* a, __global const float* b, int n) {
  int i = get_global_id(0);
  if (i < n) {
#if block_size_x == 64
    c[i] = a[i] - b[i];
#else
    c[i] = a[i] + b[i];
#endif
  }
}
