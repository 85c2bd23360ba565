// The H200 records of cg-core/tests/half_math.rs: every input of CUDA's
// half-precision math functions on the GPU. Writes one file per type
// (`f16_<tag>.bin`, `bf16_<tag>.bin`) of raw little-endian results: for each
// function of SCALARS, 65536 u16 (input i); for each of PAIRS, 65536 u32 (the
// pair i | perm(i) << 16); for each of BINS and TERS, NB x 65536 u16 (b the
// j-th of BS, c = b).
//
// Built here and run on the GPU (2026-11-29, nvcc 13.0, H200, driver 580):
//   nvcc -O3 -gencode arch=compute_90,code=sm_90 -o probe90 half_math_probe.cu
//   nvcc -O3 -gencode arch=compute_80,code=compute_80 -o probe80 half_math_probe.cu
//   ./probe90 DIR sm90; ./probe80 DIR sm80   (sm_80's PTX, JIT-compiled)
// then `CG_HALF_MATH_RECORDS=DIR cargo test -p cg-core --test half_math`
// rewrites tests/data/half_math_h200.txt and the exception files from them.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define NB 24
__constant__ unsigned short BS[NB];
__device__ __host__ unsigned perm(unsigned i) { return (i * 40503u + 12345u) & 0xffff; }

#define SCALARS(X) X(hsqrt) X(hrsqrt) X(hrcp) X(hexp) X(hexp2) X(hexp10) X(hlog) X(hlog2) X(hlog10) X(hsin) X(hcos) X(htanh) X(htanh_approx) X(hfloor) X(hceil) X(htrunc) X(hrint)
#define PAIRS(X) X(h2sqrt) X(h2rsqrt) X(h2rcp) X(h2exp) X(h2exp2) X(h2exp10) X(h2log) X(h2log2) X(h2log10) X(h2sin) X(h2cos) X(h2tanh) X(h2tanh_approx) X(h2floor) X(h2ceil) X(h2trunc) X(h2rint)
#define BINS(X) X(__hmax_nan) X(__hmin_nan) X(__hadd_sat) X(__hsub_sat) X(__hmul_sat)
#define TERS(X) X(__hfma_relu) X(__hfma_sat)
#define COUNT(f) +1
const int NS = 0 SCALARS(COUNT), NP = 0 PAIRS(COUNT), N2 = 0 BINS(COUNT), N3 = 0 TERS(COUNT);

template <class H, class H2> __device__ H fromb(unsigned short b) { H h; *(unsigned short*)&h = b; return h; }
template <class H> __device__ unsigned short tob(H h) { return *(unsigned short*)&h; }
template <class H2> __device__ H2 fromw(unsigned w) { H2 h; *(unsigned*)&h = w; return h; }
template <class H2> __device__ unsigned tow(H2 h) { return *(unsigned*)&h; }

template <class H, class H2>
__global__ void run(unsigned short *s, unsigned *p, unsigned short *t) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536) return;
  H x = fromb<H, H2>(i);
  int k = 0;
#define S(f) s[(k++) * 65536 + i] = tob(f(x));
  SCALARS(S)
  H2 w = fromw<H2>(i | perm(i) << 16);
  k = 0;
#define P(f) p[(k++) * 65536 + i] = tow(f(w));
  PAIRS(P)
  for (int j = 0; j < NB; j++) {
    H y = fromb<H, H2>(BS[j]);
    k = 0;
#define B(f) t[((k++) * NB + j) * 65536 + i] = tob(f(x, y));
    BINS(B)
#define T(f) t[((k++) * NB + j) * 65536 + i] = tob(f(x, y, y));
    TERS(T)
  }
}

template <class H, class H2> void one(const char *dir, const char *name) {
  unsigned short *s; unsigned *p; unsigned short *t;
  size_t ns = NS * 65536, np = NP * 65536, nt = (N2 + N3) * NB * 65536;
  cudaMalloc(&s, ns * 2); cudaMalloc(&p, np * 4); cudaMalloc(&t, nt * 2);
  run<H, H2><<<256, 256>>>(s, p, t);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(e)); exit(1); }
  std::vector<char> buf(ns * 2 + np * 4 + nt * 2);
  cudaMemcpy(buf.data(), s, ns * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(buf.data() + ns * 2, p, np * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(buf.data() + ns * 2 + np * 4, t, nt * 2, cudaMemcpyDeviceToHost);
  char path[512]; snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "wb"); fwrite(buf.data(), 1, buf.size(), f); fclose(f);
  printf("%s: %zu bytes\n", path, buf.size());
}

int main(int argc, char **argv) {
  // Zeros, subnormals, ones, extremes, infinities, NaNs of both formats;
  // values near the saturation edges 0 and 1.
  unsigned short bs[NB] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3f80, 0xbf80, 0x7c00, 0xfc00,
                           0x7f80, 0xff80, 0x7fff, 0x7e00, 0x7fc0, 0x0001, 0x8001, 0x3800,
                           0x3f00, 0x4000, 0x4000 | 0x8000, 0x7bff, 0x7f7f, 0x3bff, 0x3f7f, 0x1234};
  cudaMemcpyToSymbol(BS, bs, sizeof bs);
  const char *dir = argc > 1 ? argv[1] : ".";
  const char *tag = argc > 2 ? argv[2] : "sm";
  char n1[64], n2[64];
  snprintf(n1, 64, "f16_%s", tag); snprintf(n2, 64, "bf16_%s", tag);
  one<__half, __half2>(dir, n1);
  one<__nv_bfloat16, __nv_bfloat162>(dir, n2);
  printf("NS %d NP %d N2 %d N3 %d NB %d\n", NS, NP, N2, N3, NB);
}
