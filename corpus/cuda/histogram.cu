// histogram (corpus/SPEC.md), written plainly in CUDA C++: the kernel the
// Rust kernel of the same name is compared with. Every parameter is the
// Rust kernel's in its order: each slice or AtomicSlice a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o histogram.ptx histogram.cu

typedef unsigned long long u64;

#define BINS 256

// bins[v >> 24] += 1 for every v of x (bins zeroed by the host). Launch:
// blocks of 256, 1056 blocks.
extern "C" __global__ void histogram(const unsigned *x, u64 n, unsigned *bins, u64 bins_len) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[x[i] >> 24], 1);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}
