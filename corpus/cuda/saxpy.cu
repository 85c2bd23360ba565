// saxpy (corpus/SPEC.md), written plainly in CUDA C++: the kernel the Rust
// kernel of the same name is compared with. Every parameter is the Rust
// kernel's in its order: a scalar as itself, each slice or Output a pointer
// and an unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o saxpy.ptx saxpy.cu

typedef unsigned long long u64;

// z[i] = a * x[i] + y[i], grid-stride. Launch: blocks of 256,
// min(ceil(n / 256), 1056) blocks.
extern "C" __global__ void saxpy(float a, const float *x, u64 n, const float *y, u64 y_len, float *z,
                                 u64 z_len) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        z[i] = a * x[i] + y[i];
    }
}
