// compact (corpus/SPEC.md), written plainly in CUDA C++ (a Cooperative
// Groups coalesced group per atomic add): the kernel the Rust kernel of the
// same name is compared with. Every parameter is the Rust kernel's in its
// order: each slice, Output or AtomicSlice a pointer and an unsigned 64-bit
// length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o compact.ptx compact.cu

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

// The elements of x above zero into out (any order), count[0] grown by
// their number (zeroed by the host). Launch: blocks of 256, 1056 blocks.
extern "C" __global__ void compact(const int *x, u64 n, int *out, u64 out_len, unsigned *count,
                                   u64 count_len) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (x[i] > 0) {
            cg::coalesced_group g = cg::coalesced_threads();
            unsigned start = 0;
            if (g.thread_rank() == 0) {
                start = atomicAdd(count, g.size());
            }
            start = g.shfl(start, 0);
            out[start + g.thread_rank()] = x[i];
        }
    }
}
