// exclusive_scan (corpus/SPEC.md), written plainly in CUDA C++ (Cooperative
// Groups for the grid barrier, cub::BlockReduce and cub::BlockScan): the
// kernel the Rust kernel of the same name is compared with. Every parameter
// is the Rust kernel's in its order: each slice or Output a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o exclusive_scan.ptx exclusive_scan.cu

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

#define THREADS 256

// y = the exclusive prefix sums of x (wrapping), block_totals[b] = the sum
// of block b's chunk. Launch cooperatively: blocks of 256, the most
// co-resident.
extern "C" __global__ void exclusive_scan(const unsigned *x, u64 n, unsigned *y, u64 y_len,
                                          unsigned *block_totals, u64 block_totals_len) {
    typedef cub::BlockReduce<unsigned, THREADS> BlockReduce;
    typedef cub::BlockScan<unsigned, THREADS> BlockScan;
    __shared__ typename BlockReduce::TempStorage reduce_temp;
    __shared__ typename BlockScan::TempStorage scan_temp;
    cg::grid_group grid = cg::this_grid();

    int blocks = gridDim.x;
    int chunk = (n + blocks - 1) / blocks;
    int start = blockIdx.x * chunk;
    int end = min(start + chunk, (int)n);

    // Phase 1: the chunk's sum.
    unsigned sum = 0;
    for (int i = start + threadIdx.x; i < end; i += blockDim.x) {
        sum += x[i];
    }
    sum = BlockReduce(reduce_temp).Sum(sum);
    if (threadIdx.x == 0) {
        block_totals[blockIdx.x] = sum;
    }

    grid.sync();

    // Phase 2: the sum of the earlier blocks' chunks (block-stride and a
    // block reduce, as phase 1), shared with every thread.
    __shared__ unsigned block_offset;
    unsigned before = 0;
    for (int b = threadIdx.x; b < blockIdx.x; b += blockDim.x) {
        before += block_totals[b];
    }
    before = BlockReduce(reduce_temp).Sum(before);
    if (threadIdx.x == 0) {
        block_offset = before;
    }
    __syncthreads();
    unsigned offset = block_offset;

    // Phase 3: the chunk in rounds of one element per thread.
    unsigned running = 0;
    for (int base = start; base < end; base += blockDim.x) {
        int i = base + threadIdx.x;
        unsigned v = i < end ? x[i] : 0;
        unsigned prefix, round_total;
        BlockScan(scan_temp).ExclusiveSum(v, prefix, round_total);
        if (i < end) {
            y[i] = offset + running + prefix;
        }
        running += round_total;
        __syncthreads();
    }
}
