// Does compute-sanitizer's racecheck report hazards for nvcc's own
// multi-warp tiles (thread_block_tile<64>, CUDA 12+)? Their collectives
// pass warp results through shared memory and synchronise the tile's warps
// with a barrier built from shared-memory atomics, as cg-core's do.
//
//   nvcc -O3 -arch=sm_90 -o mwr multi_warp_racecheck.cu
//   compute-sanitizer --tool racecheck ./mwr
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void tiles64(const unsigned* in, unsigned* out, int rounds) {
    cg::thread_block block = cg::this_thread_block();
    // CUDA's multi-warp tiles need this scratch block (as the guide shows).
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block b = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(b);
    unsigned v = in[block.group_index().x * block.num_threads() + block.thread_rank()];
    for (int r = 0; r < rounds; r++) {
        v = cg::reduce(tile, v, cg::plus<unsigned>()) + tile.thread_rank();
        v = cg::inclusive_scan(tile, v, cg::plus<unsigned>());
        v += tile.shfl(v, r % 64);
        tile.sync();
    }
    out[block.group_index().x * block.num_threads() + block.thread_rank()] = v;
}

int main() {
    const int blocks = 4, threads = 256, n = blocks * threads;
    unsigned *in, *out;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMemset(in, 1, n * 4);
    tiles64<<<blocks, threads>>>(in, out, 8);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned host[4];
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    printf("tiles64: %s, out[0..4] = %u %u %u %u\n", cudaGetErrorString(e), host[0], host[1], host[2], host[3]);
    return e != cudaSuccess;
}
