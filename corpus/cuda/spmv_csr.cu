// spmv_csr (corpus/SPEC.md), written plainly in CUDA C++ (a Cooperative
// Groups tile of 32 per row): the kernel the Rust kernel of the same name
// is compared with. Every parameter is the Rust kernel's in its order: each
// slice or Output a pointer and an unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o spmv_csr.ptx spmv_csr.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

// y = A x for the CSR matrix A (row_ptr, cols, vals): one 32-thread tile
// per row, tiles grid-stride over the rows. Launch: blocks of 256, 1056
// blocks.
extern "C" __global__ void spmv_csr(const unsigned *row_ptr, u64 row_ptr_len, const unsigned *cols,
                                    u64 cols_len, const float *vals, u64 vals_len, const float *x, u64 x_len,
                                    float *y, u64 rows) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

    int tiles = gridDim.x * blockDim.x / 32;
    int lane = tile.thread_rank();
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows; r += tiles) {
        float sum = 0.0f;
        for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32) {
            sum += vals[k] * x[cols[k]];
        }
        sum = cg::reduce(tile, sum, cg::plus<float>());
        if (lane == 0) {
            y[r] = sum;
        }
    }
}
