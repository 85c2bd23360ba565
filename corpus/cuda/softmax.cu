// softmax (SPEC.md): row-wise softmax of a row-major matrix, one block of
// 256 threads per row: the row's max, the sum of exp(a - max), then
// b = exp(a - max) / sum. The Rust kernel's PTX parameters: a (pointer,
// length), b (pointer, length), cols.
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

namespace cg = cooperative_groups;

extern "C" __global__ void softmax(const float* a, unsigned long long a_len, float* b,
                                   unsigned long long b_len, unsigned int cols) {
    typedef cub::BlockReduce<float, 256> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    __shared__ float row_max;
    __shared__ float row_sum;

    cg::thread_block block = cg::this_thread_block();
    int r = blockIdx.x;
    if ((unsigned long long)(r + 1) * cols > a_len) return;
    const float* row = a + r * cols;

    float m = -INFINITY;
    for (int c = block.thread_rank(); c < cols; c += block.size()) {
        m = fmaxf(m, row[c]);
    }
    m = BlockReduce(temp).Reduce(m, cuda::maximum<>{});
    if (block.thread_rank() == 0) row_max = m;
    block.sync();
    m = row_max;

    float s = 0.0f;
    for (int c = block.thread_rank(); c < cols; c += block.size()) {
        s += expf(row[c] - m);
    }
    s = BlockReduce(temp).Sum(s);
    if (block.thread_rank() == 0) row_sum = s;
    block.sync();
    s = row_sum;

    float* out = b + r * cols;
    for (int c = block.thread_rank(); c < cols; c += block.size()) {
        out[c] = expf(row[c] - m) / s;
    }
}
