// CUDA C++ twin of kernels/src/grid_sum.rs, for the side-by-side benchmark.
// Same algorithm, same PTX parameter list (input, n, partials, out), so the
// Rust host launches both through one typed handle.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ float warp_sum(cg::thread_block_tile<32> warp, float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += warp.shfl_down(v, offset);
    return v;
}

__device__ __forceinline__ float block_sum(cg::thread_block block, float v) {
    __shared__ float partials[32];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    v = warp_sum(warp, v);
    if (warp.thread_rank() == 0) partials[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? partials[warp.thread_rank()] : 0.0f;
        v = warp_sum(warp, v);
    }
    return v;
}

extern "C" __global__ void grid_sum(const float* input, unsigned long long n, float* partials, float* out) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    unsigned long long stride = grid.num_threads();
    float v = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < n; i += stride) v += input[i];
    float s = block_sum(block, v);
    if (block.thread_rank() == 0) partials[grid.block_rank()] = s;
    grid.sync();
    if (grid.block_rank() == 0) {
        unsigned nb = grid.num_blocks();
        float w = 0.0f;
        for (unsigned j = block.thread_rank(); j < nb; j += block.num_threads()) w += partials[j];
        float t = block_sum(block, w);
        if (block.thread_rank() == 0) *out = t;
    }
}
