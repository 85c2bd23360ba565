// row_normalize (corpus/SPEC.md), written plainly in CUDA C++
// (cub::BlockReduce with a maximum): the kernel the Rust kernel of the same
// name is compared with. Every parameter is the Rust kernel's in its order:
// a scalar as itself, each slice or Output a pointer and an unsigned 64-bit
// length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o row_normalize.ptx row_normalize.cu

#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

typedef unsigned long long u64;

#define THREADS 256

// b[r][c] = a[r][c] / (the largest |a[r][..]|), rows of `cols` elements.
// Launch: blocks of 256, one block per row.
extern "C" __global__ void row_normalize(const float *a, u64 a_len, float *b, u64 b_len, unsigned cols) {
    typedef cub::BlockReduce<float, THREADS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    __shared__ float row_max;

    int r = blockIdx.x;
    const float *row = a + r * cols;

    float m = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        m = fmaxf(m, fabsf(row[c]));
    }
    m = BlockReduce(temp).Reduce(m, cuda::maximum<float>());
    if (threadIdx.x == 0) {
        row_max = m;
    }
    __syncthreads();
    m = row_max;

    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        b[r * cols + c] = row[c] / m;
    }
}
