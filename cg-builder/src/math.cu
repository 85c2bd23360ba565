// CUDA's math library, one function per call the kernel crate can make:
// `cg_math_NAME` returns CUDA's `NAME` of its arguments. cg-builder compiles
// this file with nvcc (-rdc=true -ptx, the kernel's architecture; with
// --use_fast_math under `KernelBuild::fast_math`) and copies into the
// kernel's PTX module the definitions it calls (cg_core::math declares
// them), so that each result is the one nvcc's own compilation of the same
// call gives.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define F1(f) extern "C" __device__ float cg_math_##f(float x) { return f(x); }
#define D1(f) extern "C" __device__ double cg_math_##f(double x) { return f(x); }
#define F2(f) extern "C" __device__ float cg_math_##f(float x, float y) { return f(x, y); }
#define D2(f) extern "C" __device__ double cg_math_##f(double x, double y) { return f(x, y); }
#define BOTH1(g) F1(g##f) D1(g)
#define BOTH2(g) F2(g##f) D2(g)

BOTH1(sqrt) BOTH1(cbrt) BOTH1(rsqrt) BOTH1(rcbrt)
BOTH1(exp) BOTH1(exp2) BOTH1(exp10) BOTH1(expm1)
BOTH1(log) BOTH1(log2) BOTH1(log10) BOTH1(log1p) BOTH1(logb)
BOTH1(sin) BOTH1(cos) BOTH1(tan) BOTH1(sinpi) BOTH1(cospi)
BOTH1(asin) BOTH1(acos) BOTH1(atan)
BOTH1(sinh) BOTH1(cosh) BOTH1(tanh) BOTH1(asinh) BOTH1(acosh) BOTH1(atanh)
BOTH1(erf) BOTH1(erfc) BOTH1(erfinv) BOTH1(erfcinv) BOTH1(erfcx)
BOTH1(normcdf) BOTH1(normcdfinv)
BOTH1(lgamma) BOTH1(tgamma)
BOTH1(floor) BOTH1(ceil) BOTH1(trunc) BOTH1(round) BOTH1(rint)

BOTH2(pow) BOTH2(atan2) BOTH2(hypot) BOTH2(rhypot) BOTH2(fmod) BOTH2(remainder)
BOTH2(nextafter) BOTH2(fdim) BOTH2(fmin) BOTH2(fmax)

extern "C" __device__ float cg_math_powif(float x, int n) { return pow(x, n); }
extern "C" __device__ double cg_math_powi(double x, int n) { return pow(x, n); }
extern "C" __device__ float cg_math_ldexpf(float x, int n) { return ldexpf(x, n); }
extern "C" __device__ double cg_math_ldexp(double x, int n) { return ldexp(x, n); }
extern "C" __device__ int cg_math_ilogbf(float x) { return ilogbf(x); }
extern "C" __device__ int cg_math_ilogb(double x) { return ilogb(x); }
// Two results without a pointer (which would put the caller's variable in
// local memory): packed into one 64-bit value for f32 (the first in the low
// half), one function a result for f64.
#define PACK(lo, hi) ((unsigned long long)(unsigned)(hi) << 32 | (unsigned)(lo))
extern "C" __device__ unsigned long long cg_math_frexpf(float x) { int e; float m = frexpf(x, &e); return PACK(__float_as_uint(m), e); }
extern "C" __device__ unsigned long long cg_math_sincosf(float x) { float s, c; sincosf(x, &s, &c); return PACK(__float_as_uint(s), __float_as_uint(c)); }
extern "C" __device__ unsigned long long cg_math_sincospif(float x) { float s, c; sincospif(x, &s, &c); return PACK(__float_as_uint(s), __float_as_uint(c)); }
extern "C" __device__ double cg_math_frexp(double x) { int e; return frexp(x, &e); }
extern "C" __device__ int cg_math_frexp_exp(double x) { int e; frexp(x, &e); return e; }
extern "C" __device__ double cg_math_sincos_sin(double x) { double s, c; sincos(x, &s, &c); return s; }
extern "C" __device__ double cg_math_sincos_cos(double x) { double s, c; sincos(x, &s, &c); return c; }
extern "C" __device__ double cg_math_sincospi_sin(double x) { double s, c; sincospi(x, &s, &c); return s; }
extern "C" __device__ double cg_math_sincospi_cos(double x) { double s, c; sincospi(x, &s, &c); return c; }

// The half-precision functions (cuda_fp16.h, cuda_bf16.h; cg_core::half's
// `HalfMath`): `cg_math_NAME_f16` and `cg_math_NAME_bf16` of a half in the
// low 16 bits of a word, of a pair (`h2` names) in the whole word; the
// result likewise.
#define HALF1(f)                                                              \
  extern "C" __device__ unsigned cg_math_##f##_f16(unsigned a) {              \
    return __half_as_ushort(f(__ushort_as_half((unsigned short)a)));          \
  }                                                                           \
  extern "C" __device__ unsigned cg_math_##f##_bf16(unsigned a) {             \
    return __bfloat16_as_ushort(f(__ushort_as_bfloat16((unsigned short)a)));  \
  }
#define PAIR1(f)                                                              \
  extern "C" __device__ unsigned cg_math_##f##_f16(unsigned a) {              \
    __half2 r = f(*reinterpret_cast<__half2 *>(&a));                          \
    return *reinterpret_cast<unsigned *>(&r);                                 \
  }                                                                           \
  extern "C" __device__ unsigned cg_math_##f##_bf16(unsigned a) {             \
    __nv_bfloat162 r = f(*reinterpret_cast<__nv_bfloat162 *>(&a));            \
    return *reinterpret_cast<unsigned *>(&r);                                 \
  }
HALF1(hsqrt) HALF1(hrsqrt) HALF1(hrcp) HALF1(hexp) HALF1(hexp2) HALF1(hexp10)
HALF1(hlog) HALF1(hlog2) HALF1(hlog10) HALF1(hsin) HALF1(hcos) HALF1(htanh)
HALF1(hfloor) HALF1(hceil) HALF1(htrunc) HALF1(hrint) HALF1(htanh_approx)
PAIR1(h2sqrt) PAIR1(h2rsqrt) PAIR1(h2rcp) PAIR1(h2exp) PAIR1(h2exp2) PAIR1(h2exp10)
PAIR1(h2log) PAIR1(h2log2) PAIR1(h2log10) PAIR1(h2sin) PAIR1(h2cos) PAIR1(h2tanh)
PAIR1(h2tanh_approx)
