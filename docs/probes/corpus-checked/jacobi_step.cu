// corpus/cuda/jacobi_step.cu with the checks and the 64-bit index
// arithmetic of the Rust kernel as first written
// (corpus/kernels/src/jacobi_step.rs, `usize` indices): the output element
// tested as `thread_element_2d` tests it (x < nx, the index below the
// truncated length, the launch's first plane), every `src[..]` against
// src's length. A probe, not a corpus kernel: dropped into a copy of the
// --cuda directory of corpus-bench in place of jacobi_step.ptx, it says how
// much of Rust's time is the checks and the 64-bit arithmetic
// (docs/NOTES.md, 2026-11-29).
//
//   nvcc -O3 -arch=sm_90 -ptx -o jacobi_step.ptx jacobi_step.cu

typedef unsigned long long u64;

extern "C" __global__ void jacobi_step(const float *src, u64 src_len, float *dst, u64 dst_len, unsigned nx,
                                       unsigned ny) {
    u64 x = blockIdx.x * blockDim.x + threadIdx.x;
    u64 y = blockIdx.y * blockDim.y + threadIdx.y;
    u64 len = dst_len < (u64)nx * ny ? dst_len : (u64)nx * ny;
    u64 i = y * nx + x;
    if ((blockIdx.z | threadIdx.z) == 0 && x < nx && i < len) {
        float v;
        if (x == 0 || y == 0 || x == (u64)nx - 1 || y == (u64)ny - 1) {
            if (i >= src_len) __trap();
            v = src[i];
        } else {
            if (i - 1 >= src_len) __trap();
            float w = src[i - 1];
            if (i + 1 >= src_len) __trap();
            float e = src[i + 1];
            if (i - nx >= src_len) __trap();
            float n = src[i - nx];
            if (i + nx >= src_len) __trap();
            float s = src[i + nx];
            v = 0.25f * (((w + e) + n) + s);
        }
        dst[i] = v;
    }
}
