// The odd/even count and sum of CUDA's binaryPartitionCG sample in CUDA
// C++, in the sample's style: the kernel the Rust kernel of
// ../kernels/src/lib.rs is compared with. Every parameter is the Rust
// kernel's in its order: each slice or AtomicSlice is a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o binary_partition.ptx binary_partition.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

extern "C" __global__ void odd_even_count_and_sum(const int *inputArr, u64 size, unsigned *numOfOdds,
                                                  u64 numOfOdds_len, int *sumOfOddAndEvens,
                                                  u64 sumOfOddAndEvens_len) {
    cg::thread_block cta = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);

    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        int elem = inputArr[i];
        auto subTile = cg::binary_partition(tile32, elem & 1);
        if (elem & 1) {
            int oddGroupSum = cg::reduce(subTile, elem, cg::plus<int>());
            if (subTile.thread_rank() == 0) {
                atomicAdd(numOfOdds, subTile.num_threads());
                atomicAdd(&sumOfOddAndEvens[0], oddGroupSum);
            }
        } else {
            int evenGroupSum = cg::reduce(subTile, elem, cg::plus<int>());
            if (subTile.thread_rank() == 0) {
                atomicAdd(&sumOfOddAndEvens[1], evenGroupSum);
            }
        }
        cg::sync(tile32);
    }
}
