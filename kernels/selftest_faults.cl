// Test-only kernel: out[i] = 2 * in[i], or one of the faults a tuning run must survive.
// BEHAVIOUR: 0 ok, 1 segfault, 2 hang, 3 wrong answer, 4 compile error, 5 slow: a single
// work-group finishes (as a builder launches it), a whole launch of several hangs.
#ifndef BEHAVIOUR
#define BEHAVIOUR 0
#endif

__kernel void selftest_faults(__global const float* in, __global float* out) {
  const size_t i = get_global_id(0);
#if BEHAVIOUR == 5
  volatile __global float* cell = out + i;
  *cell = 2.0f * in[i];
  while (get_num_groups(0) > 1 && *cell < 1000.0f) *cell = in[i] + 1.0f;
#elif BEHAVIOUR == 1
  // Far outside any mapping (and beyond the canonical address range): the process gets SIGSEGV.
  out[i + ((size_t)1 << 46)] = in[i];
#elif BEHAVIOUR == 2
  // Inputs are in [-2, 2], so the condition never fails; the volatile global accesses keep
  // the optimiser from proving anything about the loop or deleting it.
  volatile __global float* cell = out + i;
  *cell = in[i];
  while (*cell < 1000.0f) *cell = in[i] + 1.0f;
#elif BEHAVIOUR == 3
  out[i] = 2.0f * in[i] + 1.0f;
#elif BEHAVIOUR == 4
  out[i] = 2.0f * in[i] + this_identifier_is_not_declared;
#else
  out[i] = 2.0f * in[i];
#endif
}
