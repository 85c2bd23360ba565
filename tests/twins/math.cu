// CUDA C++ twins of the math kernels (kernels/tests/src/math.rs): the same
// kernel names and PTX parameter lists, the same function indices, each
// calling CUDA's own function, so that tests/tests/gpu_math.rs compares
// the two bit for bit. Built by gpu-run's twins step: nvcc -O3
// -arch=<the GPU's> -ptx, once with nvcc's default -fmad=true (math.ptx) and
// once with -fmad=false (math.fmad-false.ptx).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/std/limits>
#include <cuda/std/version>
#ifdef __cccl_lib_saturation_arithmetic
#include <cuda/std/numeric>
#endif

typedef unsigned long long u64;
#define EXPONENT(y) (__float_as_int((float)(y)) >> 22)
#define EXPONENT64(y) ((int)(__double_as_longlong(y) >> 32) >> 22)
#define FROM_INT(e) __uint_as_float((unsigned)(e))
#define FROM_INT64(e) __longlong_as_double((long long)(unsigned long long)(unsigned)(e))

__device__ __forceinline__ float sc_s(float x) { float s, c; sincosf(x, &s, &c); return s; }
__device__ __forceinline__ float sc_c(float x) { float s, c; sincosf(x, &s, &c); return c; }
__device__ __forceinline__ float scpi_s(float x) { float s, c; sincospif(x, &s, &c); return s; }
__device__ __forceinline__ float scpi_c(float x) { float s, c; sincospif(x, &s, &c); return c; }
__device__ __forceinline__ float fx_m(float x) { int e; return frexpf(x, &e); }
__device__ __forceinline__ int fx_e(float x) { int e; frexpf(x, &e); return e; }
__device__ __forceinline__ double sc_s(double x) { double s, c; sincos(x, &s, &c); return s; }
__device__ __forceinline__ double sc_c(double x) { double s, c; sincos(x, &s, &c); return c; }
__device__ __forceinline__ double scpi_s(double x) { double s, c; sincospi(x, &s, &c); return s; }
__device__ __forceinline__ double scpi_c(double x) { double s, c; sincospi(x, &s, &c); return c; }
__device__ __forceinline__ double fx_m(double x) { int e; return frexp(x, &e); }
__device__ __forceinline__ int fx_e(double x) { int e; frexp(x, &e); return e; }

__device__ __forceinline__ float f32_unary(unsigned op, float x) {
    switch (op) {
        case 0: return sqrtf(x);
        case 1: return cbrtf(x);
        case 2: return rsqrtf(x);
        case 3: return rcbrtf(x);
        case 4: return expf(x);
        case 5: return exp2f(x);
        case 6: return exp10f(x);
        case 7: return expm1f(x);
        case 8: return logf(x);
        case 9: return log2f(x);
        case 10: return log10f(x);
        case 11: return log1pf(x);
        case 12: return sinf(x);
        case 13: return cosf(x);
        case 14: return tanf(x);
        case 15: return sinpif(x);
        case 16: return cospif(x);
        case 17: return asinf(x);
        case 18: return acosf(x);
        case 19: return atanf(x);
        case 20: return sinhf(x);
        case 21: return coshf(x);
        case 22: return tanhf(x);
        case 23: return asinhf(x);
        case 24: return acoshf(x);
        case 25: return atanhf(x);
        case 26: return erff(x);
        case 27: return erfcf(x);
        case 28: return erfinvf(x);
        case 29: return erfcinvf(x);
        case 30: return lgammaf(x);
        case 31: return tgammaf(x);
        case 32: return floorf(x);
        case 33: return ceilf(x);
        case 34: return truncf(x);
        case 35: return roundf(x);
        case 36: return rintf(x);
        case 37: return x - truncf(x);
        case 38: return sc_s(x);
        case 39: return sc_c(x);
        case 40: return scpi_s(x);
        case 41: return scpi_c(x);
        case 42: return fx_m(x);
        case 43: return FROM_INT(fx_e(x));
        case 44: return fabsf(x);
        case 45: return 1.0f / x;
        case 46: return __expf(x);
        case 47: return __exp10f(x);
        case 48: return __logf(x);
        case 49: return __log2f(x);
        case 50: return __log10f(x);
        case 51: return __sinf(x);
        case 52: return __cosf(x);
        case 53: return __tanf(x);
        case 54: return __saturatef(x);
        default: return __int_as_float(0x7fffffff);
    }
}

__device__ __forceinline__ double f64_unary(unsigned op, double x) {
    switch (op) {
        case 0: return sqrt(x);
        case 1: return cbrt(x);
        case 2: return rsqrt(x);
        case 3: return rcbrt(x);
        case 4: return exp(x);
        case 5: return exp2(x);
        case 6: return exp10(x);
        case 7: return expm1(x);
        case 8: return log(x);
        case 9: return log2(x);
        case 10: return log10(x);
        case 11: return log1p(x);
        case 12: return sin(x);
        case 13: return cos(x);
        case 14: return tan(x);
        case 15: return sinpi(x);
        case 16: return cospi(x);
        case 17: return asin(x);
        case 18: return acos(x);
        case 19: return atan(x);
        case 20: return sinh(x);
        case 21: return cosh(x);
        case 22: return tanh(x);
        case 23: return asinh(x);
        case 24: return acosh(x);
        case 25: return atanh(x);
        case 26: return erf(x);
        case 27: return erfc(x);
        case 28: return erfinv(x);
        case 29: return erfcinv(x);
        case 30: return lgamma(x);
        case 31: return tgamma(x);
        case 32: return floor(x);
        case 33: return ceil(x);
        case 34: return trunc(x);
        case 35: return round(x);
        case 36: return rint(x);
        case 37: return x - trunc(x);
        case 38: return sc_s(x);
        case 39: return sc_c(x);
        case 40: return scpi_s(x);
        case 41: return scpi_c(x);
        case 42: return fx_m(x);
        case 43: return FROM_INT64(fx_e(x));
        case 44: return fabs(x);
        case 45: return 1.0 / x;
        default: return __longlong_as_double(0x7fffffffffffffffLL);
    }
}

__device__ __forceinline__ float f32_binary(unsigned op, float x, float y) {
    switch (op) {
        case 0: return powf(x, y);
        case 1: return atan2f(x, y);
        case 2: return hypotf(x, y);
        case 3: return fmodf(x, y);
        case 4: return remainderf(x, y);
        case 5: return fdimf(x, y);
        case 6: return fminf(x, y);
        case 7: return fmaxf(x, y);
        case 8: return fminf(x, y);
        case 9: return fmaxf(x, y);
        case 10: return copysignf(x, y);
        case 11: return nextafterf(x, y);
        case 12: return ldexpf(x, EXPONENT(y));
        case 13: return pow(x, EXPONENT(y));
        case 14: return logf(x) / logf(y);
        case 15: return x / y;
        case 16: return fmaf(x, y, x);
        case 17: return __powf(x, y);
        case 18: return __fdividef(x, y);
        case 19: return __fadd_rn(x, y);
        case 20: return __fadd_rz(x, y);
        case 21: return __fadd_rd(x, y);
        case 22: return __fadd_ru(x, y);
        case 23: return __fsub_rn(x, y);
        case 24: return __fsub_rz(x, y);
        case 25: return __fsub_rd(x, y);
        case 26: return __fsub_ru(x, y);
        case 27: return __fmul_rn(x, y);
        case 28: return __fmul_rz(x, y);
        case 29: return __fmul_rd(x, y);
        case 30: return __fmul_ru(x, y);
        case 31: return __fdiv_rn(x, y);
        case 32: return __fdiv_rz(x, y);
        case 33: return __fdiv_rd(x, y);
        case 34: return __fdiv_ru(x, y);
        default: return __int_as_float(0x7fffffff);
    }
}

__device__ __forceinline__ double f64_binary(unsigned op, double x, double y) {
    switch (op) {
        case 0: return pow(x, y);
        case 1: return atan2(x, y);
        case 2: return hypot(x, y);
        case 3: return fmod(x, y);
        case 4: return remainder(x, y);
        case 5: return fdim(x, y);
        case 6: return fmin(x, y);
        case 7: return fmax(x, y);
        case 8: return fmin(x, y);
        case 9: return fmax(x, y);
        case 10: return copysign(x, y);
        case 11: return nextafter(x, y);
        case 12: return ldexp(x, EXPONENT64(y));
        case 13: return pow(x, EXPONENT64(y));
        case 14: return log(x) / log(y);
        case 15: return x / y;
        case 16: return fma(x, y, x);
        default: return __longlong_as_double(0x7fffffffffffffffLL);
    }
}

extern "C" __global__ void math_f32_unary(unsigned op, unsigned start, unsigned *out, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = __float_as_uint(f32_unary(op, __uint_as_float(start + (unsigned)i)));
}

extern "C" __global__ void math_f64_unary(unsigned op, const double *in, u64 nin, u64 *out, u64 n) {
    if (nin < n) n = nin;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = __double_as_longlong(f64_unary(op, in[i]));
}

extern "C" __global__ void math_f32_binary(unsigned op, const float *x, u64 nx, const float *y, u64 ny,
                                           unsigned *out, u64 n) {
    if (nx < n) n = nx;
    if (ny < n) n = ny;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = __float_as_uint(f32_binary(op, x[i], y[i]));
}

extern "C" __global__ void math_f64_binary(unsigned op, const double *x, u64 nx, const double *y, u64 ny,
                                           u64 *out, u64 n) {
    if (nx < n) n = nx;
    if (ny < n) n = ny;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = __double_as_longlong(f64_binary(op, x[i], y[i]));
}

// CUDA's type conversions (tests/tests/gpu_math.rs, CONVERT32 and CONVERT64
// in kernels/tests/src/math.rs): the result's bits, an integer's two's
// complement zero-extended.
__device__ __forceinline__ u64 convert32(unsigned op, unsigned x) {
    float f = __uint_as_float(x);
    int i = (int)x;
    switch (op) {
        case 0: return (unsigned)__float2int_rn(f);
        case 1: return (unsigned)__float2int_rz(f);
        case 2: return (unsigned)__float2int_ru(f);
        case 3: return (unsigned)__float2int_rd(f);
        case 4: return __float2uint_rn(f);
        case 5: return __float2uint_rz(f);
        case 6: return __float2uint_ru(f);
        case 7: return __float2uint_rd(f);
        case 8: return (u64)__float2ll_rn(f);
        case 9: return (u64)__float2ll_rz(f);
        case 10: return (u64)__float2ll_ru(f);
        case 11: return (u64)__float2ll_rd(f);
        case 12: return __float2ull_rn(f);
        case 13: return __float2ull_rz(f);
        case 14: return __float2ull_ru(f);
        case 15: return __float2ull_rd(f);
        case 16: return __half_as_ushort(__float2half_rn(f));
        case 17: return __half_as_ushort(__float2half_rz(f));
        case 18: return __half_as_ushort(__float2half_ru(f));
        case 19: return __half_as_ushort(__float2half_rd(f));
        case 20: return __bfloat16_as_ushort(__float2bfloat16_rn(f));
        case 21: return __bfloat16_as_ushort(__float2bfloat16_rz(f));
        case 22: return __bfloat16_as_ushort(__float2bfloat16_ru(f));
        case 23: return __bfloat16_as_ushort(__float2bfloat16_rd(f));
        case 24: return __float_as_uint(__int2float_rn(i));
        case 25: return __float_as_uint(__int2float_rz(i));
        case 26: return __float_as_uint(__int2float_ru(i));
        case 27: return __float_as_uint(__int2float_rd(i));
        case 28: return __float_as_uint(__uint2float_rn(x));
        case 29: return __float_as_uint(__uint2float_rz(x));
        case 30: return __float_as_uint(__uint2float_ru(x));
        case 31: return __float_as_uint(__uint2float_rd(x));
        case 32: return (u64)__double_as_longlong(__int2double_rn(i));
        case 33: return (u64)__double_as_longlong(__uint2double_rn(x));
        default: return ~0ull;
    }
}

__device__ __forceinline__ u64 convert64(unsigned op, u64 x) {
    double d = __longlong_as_double((long long)x);
    long long l = (long long)x;
    switch (op) {
        case 0: return (unsigned)__double2int_rn(d);
        case 1: return (unsigned)__double2int_rz(d);
        case 2: return (unsigned)__double2int_ru(d);
        case 3: return (unsigned)__double2int_rd(d);
        case 4: return __double2uint_rn(d);
        case 5: return __double2uint_rz(d);
        case 6: return __double2uint_ru(d);
        case 7: return __double2uint_rd(d);
        case 8: return (u64)__double2ll_rn(d);
        case 9: return (u64)__double2ll_rz(d);
        case 10: return (u64)__double2ll_ru(d);
        case 11: return (u64)__double2ll_rd(d);
        case 12: return __double2ull_rn(d);
        case 13: return __double2ull_rz(d);
        case 14: return __double2ull_ru(d);
        case 15: return __double2ull_rd(d);
        case 16: return __float_as_uint(__double2float_rn(d));
        case 17: return __float_as_uint(__double2float_rz(d));
        case 18: return __float_as_uint(__double2float_ru(d));
        case 19: return __float_as_uint(__double2float_rd(d));
        case 20: return __half_as_ushort(__double2half(d));
        case 21: return __bfloat16_as_ushort(__double2bfloat16(d));
        case 22: return __float_as_uint(__ll2float_rn(l));
        case 23: return __float_as_uint(__ll2float_rz(l));
        case 24: return __float_as_uint(__ll2float_ru(l));
        case 25: return __float_as_uint(__ll2float_rd(l));
        case 26: return __float_as_uint(__ull2float_rn(x));
        case 27: return __float_as_uint(__ull2float_rz(x));
        case 28: return __float_as_uint(__ull2float_ru(x));
        case 29: return __float_as_uint(__ull2float_rd(x));
        case 30: return (u64)__double_as_longlong(__ll2double_rn(l));
        case 31: return (u64)__double_as_longlong(__ll2double_rz(l));
        case 32: return (u64)__double_as_longlong(__ll2double_ru(l));
        case 33: return (u64)__double_as_longlong(__ll2double_rd(l));
        case 34: return (u64)__double_as_longlong(__ull2double_rn(x));
        case 35: return (u64)__double_as_longlong(__ull2double_rz(x));
        case 36: return (u64)__double_as_longlong(__ull2double_ru(x));
        case 37: return (u64)__double_as_longlong(__ull2double_rd(x));
        default: return ~0ull;
    }
}

extern "C" __global__ void convert_32(unsigned op, unsigned start, u64 *out, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = convert32(op, start + (unsigned)i);
}

extern "C" __global__ void convert_64(unsigned op, const u64 *in, u64 nin, u64 *out, u64 n) {
    if (nin < n) n = nin;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = convert64(op, in[i]);
}

// CUDA's conversions between the half types and the integers (FROM_HALF
// and TO_HALF in kernels/tests/src/math.rs): the result's bits, an
// integer's two's complement zero-extended.
__device__ __forceinline__ u64 from_half(unsigned op, unsigned short x) {
    __half h = __ushort_as_half(x);
    __nv_bfloat16 b = __ushort_as_bfloat16(x);
    switch (op) {
        case 0: return (unsigned)__half2int_rn(h);
        case 1: return (unsigned)__half2int_rz(h);
        case 2: return (unsigned)__half2int_ru(h);
        case 3: return (unsigned)__half2int_rd(h);
        case 4: return __half2uint_rn(h);
        case 5: return __half2uint_rz(h);
        case 6: return __half2uint_ru(h);
        case 7: return __half2uint_rd(h);
        case 8: return (unsigned short)__half2short_rn(h);
        case 9: return (unsigned short)__half2short_rz(h);
        case 10: return (unsigned short)__half2short_ru(h);
        case 11: return (unsigned short)__half2short_rd(h);
        case 12: return __half2ushort_rn(h);
        case 13: return __half2ushort_rz(h);
        case 14: return __half2ushort_ru(h);
        case 15: return __half2ushort_rd(h);
        case 16: return (u64)__half2ll_rn(h);
        case 17: return (u64)__half2ll_rz(h);
        case 18: return (u64)__half2ll_ru(h);
        case 19: return (u64)__half2ll_rd(h);
        case 20: return __half2ull_rn(h);
        case 21: return __half2ull_rz(h);
        case 22: return __half2ull_ru(h);
        case 23: return __half2ull_rd(h);
        case 24: return (unsigned char)__half2char_rz(h);
        case 25: return __half2uchar_rz(h);
        case 26: return (unsigned)__bfloat162int_rn(b);
        case 27: return (unsigned)__bfloat162int_rz(b);
        case 28: return (unsigned)__bfloat162int_ru(b);
        case 29: return (unsigned)__bfloat162int_rd(b);
        case 30: return __bfloat162uint_rn(b);
        case 31: return __bfloat162uint_rz(b);
        case 32: return __bfloat162uint_ru(b);
        case 33: return __bfloat162uint_rd(b);
        case 34: return (unsigned short)__bfloat162short_rn(b);
        case 35: return (unsigned short)__bfloat162short_rz(b);
        case 36: return (unsigned short)__bfloat162short_ru(b);
        case 37: return (unsigned short)__bfloat162short_rd(b);
        case 38: return __bfloat162ushort_rn(b);
        case 39: return __bfloat162ushort_rz(b);
        case 40: return __bfloat162ushort_ru(b);
        case 41: return __bfloat162ushort_rd(b);
        case 42: return (u64)__bfloat162ll_rn(b);
        case 43: return (u64)__bfloat162ll_rz(b);
        case 44: return (u64)__bfloat162ll_ru(b);
        case 45: return (u64)__bfloat162ll_rd(b);
        case 46: return __bfloat162ull_rn(b);
        case 47: return __bfloat162ull_rz(b);
        case 48: return __bfloat162ull_ru(b);
        case 49: return __bfloat162ull_rd(b);
        case 50: return (unsigned char)__bfloat162char_rz(b);
        case 51: return __bfloat162uchar_rz(b);
        default: return ~0ull;
    }
}

__device__ __forceinline__ u64 to_half(unsigned op, u64 x) {
    switch (op) {
        case 0: return __half_as_ushort(__int2half_rn((int)x));
        case 1: return __half_as_ushort(__int2half_rz((int)x));
        case 2: return __half_as_ushort(__int2half_ru((int)x));
        case 3: return __half_as_ushort(__int2half_rd((int)x));
        case 4: return __half_as_ushort(__uint2half_rn((unsigned)x));
        case 5: return __half_as_ushort(__uint2half_rz((unsigned)x));
        case 6: return __half_as_ushort(__uint2half_ru((unsigned)x));
        case 7: return __half_as_ushort(__uint2half_rd((unsigned)x));
        case 8: return __half_as_ushort(__short2half_rn((short)x));
        case 9: return __half_as_ushort(__short2half_rz((short)x));
        case 10: return __half_as_ushort(__short2half_ru((short)x));
        case 11: return __half_as_ushort(__short2half_rd((short)x));
        case 12: return __half_as_ushort(__ushort2half_rn((unsigned short)x));
        case 13: return __half_as_ushort(__ushort2half_rz((unsigned short)x));
        case 14: return __half_as_ushort(__ushort2half_ru((unsigned short)x));
        case 15: return __half_as_ushort(__ushort2half_rd((unsigned short)x));
        case 16: return __half_as_ushort(__ll2half_rn((long long)x));
        case 17: return __half_as_ushort(__ll2half_rz((long long)x));
        case 18: return __half_as_ushort(__ll2half_ru((long long)x));
        case 19: return __half_as_ushort(__ll2half_rd((long long)x));
        case 20: return __half_as_ushort(__ull2half_rn(x));
        case 21: return __half_as_ushort(__ull2half_rz(x));
        case 22: return __half_as_ushort(__ull2half_ru(x));
        case 23: return __half_as_ushort(__ull2half_rd(x));
        case 24: return __bfloat16_as_ushort(__int2bfloat16_rn((int)x));
        case 25: return __bfloat16_as_ushort(__int2bfloat16_rz((int)x));
        case 26: return __bfloat16_as_ushort(__int2bfloat16_ru((int)x));
        case 27: return __bfloat16_as_ushort(__int2bfloat16_rd((int)x));
        case 28: return __bfloat16_as_ushort(__uint2bfloat16_rn((unsigned)x));
        case 29: return __bfloat16_as_ushort(__uint2bfloat16_rz((unsigned)x));
        case 30: return __bfloat16_as_ushort(__uint2bfloat16_ru((unsigned)x));
        case 31: return __bfloat16_as_ushort(__uint2bfloat16_rd((unsigned)x));
        case 32: return __bfloat16_as_ushort(__short2bfloat16_rn((short)x));
        case 33: return __bfloat16_as_ushort(__short2bfloat16_rz((short)x));
        case 34: return __bfloat16_as_ushort(__short2bfloat16_ru((short)x));
        case 35: return __bfloat16_as_ushort(__short2bfloat16_rd((short)x));
        case 36: return __bfloat16_as_ushort(__ushort2bfloat16_rn((unsigned short)x));
        case 37: return __bfloat16_as_ushort(__ushort2bfloat16_rz((unsigned short)x));
        case 38: return __bfloat16_as_ushort(__ushort2bfloat16_ru((unsigned short)x));
        case 39: return __bfloat16_as_ushort(__ushort2bfloat16_rd((unsigned short)x));
        case 40: return __bfloat16_as_ushort(__ll2bfloat16_rn((long long)x));
        case 41: return __bfloat16_as_ushort(__ll2bfloat16_rz((long long)x));
        case 42: return __bfloat16_as_ushort(__ll2bfloat16_ru((long long)x));
        case 43: return __bfloat16_as_ushort(__ll2bfloat16_rd((long long)x));
        case 44: return __bfloat16_as_ushort(__ull2bfloat16_rn(x));
        case 45: return __bfloat16_as_ushort(__ull2bfloat16_rz(x));
        case 46: return __bfloat16_as_ushort(__ull2bfloat16_ru(x));
        case 47: return __bfloat16_as_ushort(__ull2bfloat16_rd(x));
        default: return ~0ull;
    }
}

extern "C" __global__ void convert_from_half(unsigned op, u64 *out, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = from_half(op, (unsigned short)i);
}

extern "C" __global__ void convert_to_half(unsigned op, const u64 *in, u64 nin, u64 *out, u64 n) {
    if (nin < n) n = nin;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = to_half(op, in[i]);
}

// libcu++'s saturating integer conversions (SATURATING in
// kernels/tests/src/math.rs): signed results sign-extended. With a libcu++
// that has no saturation arithmetic yet (no __cccl_lib_saturation_arithmetic;
// CUDA 13.0's own may not), the clamp in 128 bits instead.
#ifdef __cccl_lib_saturation_arithmetic
#define SATURATING_CAST(T, x) cuda::std::saturating_cast<T>(x)
#else
template <class T, class F>
__device__ __forceinline__ T clamp_cast(F x) {
    __int128 v = x, lo = cuda::std::numeric_limits<T>::min(), hi = cuda::std::numeric_limits<T>::max();
    return (T)(v < lo ? lo : v > hi ? hi : v);
}
#define SATURATING_CAST(T, x) clamp_cast<T>(x)
#endif
__device__ __forceinline__ u64 saturating(unsigned op, u64 x) {
    switch (op) {
        case 0: return (u64)SATURATING_CAST(unsigned char, (signed char)x);
        case 1: return (u64)SATURATING_CAST(unsigned short, (signed char)x);
        case 2: return (u64)SATURATING_CAST(unsigned, (signed char)x);
        case 3: return (u64)SATURATING_CAST(unsigned long long, (signed char)x);
        case 4: return (u64)(long long)SATURATING_CAST(signed char, (unsigned char)x);
        case 5: return (u64)(long long)SATURATING_CAST(signed char, (short)x);
        case 6: return (u64)SATURATING_CAST(unsigned char, (short)x);
        case 7: return (u64)SATURATING_CAST(unsigned short, (short)x);
        case 8: return (u64)SATURATING_CAST(unsigned, (short)x);
        case 9: return (u64)SATURATING_CAST(unsigned long long, (short)x);
        case 10: return (u64)(long long)SATURATING_CAST(signed char, (unsigned short)x);
        case 11: return (u64)SATURATING_CAST(unsigned char, (unsigned short)x);
        case 12: return (u64)(long long)SATURATING_CAST(short, (unsigned short)x);
        case 13: return (u64)(long long)SATURATING_CAST(signed char, (int)x);
        case 14: return (u64)SATURATING_CAST(unsigned char, (int)x);
        case 15: return (u64)(long long)SATURATING_CAST(short, (int)x);
        case 16: return (u64)SATURATING_CAST(unsigned short, (int)x);
        case 17: return (u64)SATURATING_CAST(unsigned, (int)x);
        case 18: return (u64)SATURATING_CAST(unsigned long long, (int)x);
        case 19: return (u64)(long long)SATURATING_CAST(signed char, (unsigned)x);
        case 20: return (u64)SATURATING_CAST(unsigned char, (unsigned)x);
        case 21: return (u64)(long long)SATURATING_CAST(short, (unsigned)x);
        case 22: return (u64)SATURATING_CAST(unsigned short, (unsigned)x);
        case 23: return (u64)(long long)SATURATING_CAST(int, (unsigned)x);
        case 24: return (u64)(long long)SATURATING_CAST(signed char, (long long)x);
        case 25: return (u64)SATURATING_CAST(unsigned char, (long long)x);
        case 26: return (u64)(long long)SATURATING_CAST(short, (long long)x);
        case 27: return (u64)SATURATING_CAST(unsigned short, (long long)x);
        case 28: return (u64)(long long)SATURATING_CAST(int, (long long)x);
        case 29: return (u64)SATURATING_CAST(unsigned, (long long)x);
        case 30: return (u64)SATURATING_CAST(unsigned long long, (long long)x);
        case 31: return (u64)(long long)SATURATING_CAST(signed char, (unsigned long long)x);
        case 32: return (u64)SATURATING_CAST(unsigned char, (unsigned long long)x);
        case 33: return (u64)(long long)SATURATING_CAST(short, (unsigned long long)x);
        case 34: return (u64)SATURATING_CAST(unsigned short, (unsigned long long)x);
        case 35: return (u64)(long long)SATURATING_CAST(int, (unsigned long long)x);
        case 36: return (u64)SATURATING_CAST(unsigned, (unsigned long long)x);
        case 37: return (u64)(long long)SATURATING_CAST(long long, (unsigned long long)x);
        default: return ~0ull;
    }
}

extern "C" __global__ void convert_saturating(unsigned op, const u64 *in, u64 nin, u64 *out, u64 n) {
    if (nin < n) n = nin;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = saturating(op, in[i]);
}
