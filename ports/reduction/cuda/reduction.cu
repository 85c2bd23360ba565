// The single-pass reduction of CUDA's reductionMultiBlockCG sample in CUDA
// C++, in the sample's style: the kernel the Rust kernel of
// ../kernels/src/lib.rs is compared with. Every parameter is the Rust
// kernel's in its order: each slice or Output is a pointer and an unsigned
// 64-bit length. The grand total goes to `sum` (the Rust kernel cannot
// write `g_odata[0]` once every thread may read it).
//
//   nvcc -O3 -arch=sm_90 -ptx -o reduction.ptx reduction.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

#define MAX_THREADS 1024

__device__ void reduceBlock(double *sdata, const cg::thread_block &cta) {
    const unsigned int tid = cta.thread_rank();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);

    sdata[tid] = cg::reduce(tile32, sdata[tid], cg::plus<double>());
    cg::sync(cta);

    double beta = 0.0;
    if (cta.thread_rank() == 0) {
        beta = 0;
        for (int i = 0; i < blockDim.x; i += tile32.size()) {
            beta += sdata[i];
        }
        sdata[0] = beta;
    }
    cg::sync(cta);
}

extern "C" __global__ void reduce_single_pass(const float *g_idata, u64 n, float *g_odata, u64 g_odata_len,
                                              float *sum, u64 sum_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();

    __shared__ double sdata[MAX_THREADS];

    sdata[block.thread_rank()] = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        sdata[block.thread_rank()] += g_idata[i];
    }
    cg::sync(block);

    reduceBlock(sdata, block);
    if (block.thread_rank() == 0) {
        g_odata[blockIdx.x] = sdata[0];
    }
    cg::sync(grid);

    if (grid.thread_rank() == 0) {
        float total = g_odata[0];
        for (int block = 1; block < gridDim.x; block++) {
            total += g_odata[block];
        }
        *sum = total;
    }
}
