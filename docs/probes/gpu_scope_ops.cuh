// The arrival and the poll of a grid barrier at gpu scope, as CUDA's sync.h
// and our library spell them (generic addresses), for the probes that time
// grid barriers (grid_barrier_variants.cu, grid_barrier_reload.cu).
#pragma once

// What one barrier adds to each phase counter: the phase is the top byte.
constexpr unsigned PHASE_STEP = 1u << 24;

// What block `b` of `n` adds to its phase counter (`b % k` of `k`): the
// first block of each counter 2^24 - (the counter's blocks - 1), the others
// 1, so that every barrier moves every counter by exactly PHASE_STEP.
__device__ __forceinline__ unsigned phase_arrival_add(unsigned b, unsigned n, unsigned k) {
    const unsigned blocks = n / k + (b % k < n % k ? 1 : 0);
    return b < k ? PHASE_STEP - (blocks - 1) : 1u;
}

__device__ __forceinline__ unsigned atom_add_release_gpu_u32(unsigned* p, unsigned v) {
    unsigned old;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ unsigned ld_acquire_gpu_u32(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// The wait of the phase barrier polled with a vote: each lane of warp 0
// below `lanes` polls its counter (`poll(polled)`) until the counter's top
// byte is no longer `phase`, the lanes in one loop that ends when
// __all_sync says every lane is done (a lane done polls no more). Lanes
// spinning each on their own diverge as the counters finish, and diverged
// lanes issue their polls one by one (docs/NOTES.md). All of warp 0 calls
// it.
template <class Poll>
__device__ __forceinline__ void poll_phase_with_vote(Poll poll, const unsigned* polled, unsigned phase,
                                                     unsigned lanes) {
    bool done = threadIdx.x >= lanes;
#pragma unroll 1
    for (;;) {
        if (!done) done = (poll(polled) >> 24) != phase;
        if (__all_sync(~0u, done)) break;
    }
}
