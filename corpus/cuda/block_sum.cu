// block_sum (corpus/SPEC.md), written plainly in CUDA C++ (Cooperative
// Groups for the grid barrier, cub::BlockReduce for the block's sum): the
// kernel the Rust kernel of the same name is compared with. Every parameter
// is the Rust kernel's in its order: each slice or Output a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o block_sum.ptx block_sum.cu

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

#define THREADS 256

// partials[b] = the sum of block b's chunk of x, total[0] = the sum of the
// partials. Launch cooperatively: blocks of 256, the most co-resident.
extern "C" __global__ void block_sum(const float *x, u64 n, float *partials, u64 partials_len, float *total,
                                     u64 total_len) {
    typedef cub::BlockReduce<float, THREADS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    cg::grid_group grid = cg::this_grid();

    int blocks = gridDim.x;
    int chunk = (n + blocks - 1) / blocks;
    int start = blockIdx.x * chunk;
    int end = min(start + chunk, (int)n);

    float sum = 0.0f;
    for (int i = start + threadIdx.x; i < end; i += blockDim.x) {
        sum += x[i];
    }
    sum = BlockReduce(temp).Sum(sum);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
    }

    grid.sync();

    if (blockIdx.x == 0) {
        float s = 0.0f;
        for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
            s += partials[i];
        }
        s = BlockReduce(temp).Sum(s);
        if (threadIdx.x == 0) {
            total[0] = s;
        }
    }
}
