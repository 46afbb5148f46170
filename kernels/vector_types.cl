// floatv: VEC floats (VEC = 1, 2, 4, 8 or 16 from the host), with unaligned loads and stores.
// Put in front of the kernels that take a vector-width knob.
#if VEC == 1
typedef float floatv;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#else
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
typedef CAT(float, VEC) floatv;
#define VLOAD(p) CAT(vload, VEC)(0, p)
#define VSTORE(v, p) CAT(vstore, VEC)(v, 0, p)
#endif

