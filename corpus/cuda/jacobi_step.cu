// jacobi_step (corpus/SPEC.md), written plainly in CUDA C++: the kernel the
// Rust kernel of the same name is compared with. Every parameter is the
// Rust kernel's in its order: a scalar as itself, each slice or Output a
// pointer and an unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o jacobi_step.ptx jacobi_step.cu

typedef unsigned long long u64;

// One Jacobi sweep of the nx x ny grid src (row-major) into dst: interior
// points the average of their four neighbours, boundary points copied.
// Launch: blocks of 32 x 8, ceil(nx / 32) x ceil(ny / 8) blocks.
extern "C" __global__ void jacobi_step(const float *src, u64 src_len, float *dst, u64 dst_len, unsigned nx,
                                       unsigned ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny) {
        int i = y * nx + x;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
            dst[i] = src[i];
        } else {
            float w = src[i - 1];
            float e = src[i + 1];
            float n = src[i - nx];
            float s = src[i + nx];
            dst[i] = 0.25f * (((w + e) + n) + s);
        }
    }
}
