// The warp-aggregated atomics of CUDA's warpAggregatedAtomicsCG sample in
// CUDA C++, in the sample's style: the kernels the Rust kernels of
// ../kernels/src/lib.rs are compared with. Every parameter is the Rust
// kernel's in its order: each slice or AtomicSlice is a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o warp_aggregated_atomics.ptx warp_aggregated_atomics.cu

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

// warp-aggregated atomic increment
__device__ unsigned atomicAggInc(unsigned *counter) {
    cg::coalesced_group active = cg::coalesced_threads();

    // leader does the update
    unsigned res = 0;
    if (active.thread_rank() == 0) {
        res = atomicAdd(counter, active.num_threads());
    }

    // broadcast result
    res = active.shfl(res, 0);

    // each thread computes its own value
    return res + active.thread_rank();
}

extern "C" __global__ void filter_positive(const int *src, u64 n, int *dst, u64 dst_len, unsigned *nres,
                                           u64 nres_len) {
    int id = threadIdx.x + blockIdx.x * blockDim.x;

    for (int i = id; i < n; i += gridDim.x * blockDim.x) {
        if (src[i] > 0) dst[atomicAggInc(nres)] = src[i];
    }
}

// warp-aggregated atomic increment of one of several buckets
__device__ unsigned atomicAggIncMulti(const unsigned bucket, unsigned *counter) {
    cg::coalesced_group active = cg::coalesced_threads();
    // group all threads with same bucket value.
    auto labeledGroup = cg::labeled_partition(active, bucket);

    unsigned res = 0;
    if (labeledGroup.thread_rank() == 0) {
        res = atomicAdd(&counter[bucket], labeledGroup.num_threads());
    }

    // broadcast result
    res = labeledGroup.shfl(res, 0);

    // each thread computes its own value
    return res + labeledGroup.thread_rank();
}

extern "C" __global__ void map_to_buckets(const unsigned *srcArr, u64 srcSize, unsigned *indicesBuckets,
                                          u64 indicesBuckets_len, unsigned *bucketCounters,
                                          u64 numOfBuckets) {
    cg::grid_group grid = cg::this_grid();

    for (int i = grid.thread_rank(); i < srcSize; i += grid.size()) {
        const unsigned bucket = srcArr[i];
        if (bucket < numOfBuckets) {
            indicesBuckets[atomicAggIncMulti(bucket, bucketCounters)] = i;
        }
    }
}
