// What does a grid-wide barrier cost, design by design, on sm_90 (H200)?
//
// Our grid.sync() is CUDA's design over the driver's cooperative-launch
// workspace ({u32 size; u32 barrier} at {%envreg2, %envreg1}): every block's
// thread 0 does one atom.add.release.gpu on the same word (block 0 adds
// 0x80000000 - (blocks - 1), the others 1, so the last arrival flips bit 31)
// and spins with ld.acquire.gpu until bit 31 differs from the value its atom
// returned. At 1056 x 256 on an H200 that is ~2.1 us per barrier: 1056
// arrivals serialized on one L2 line. This probe times alternatives with the
// same semantics (every write before the barrier visible to every thread
// after it; release/acquire at gpu scope):
//
//   cg_grid_sync        CUDA's cg::this_grid().sync() (reference).
//   replica_ws          ours, inline PTX, on the driver workspace's word,
//                       with the library's test for the arriving thread (see
//                       FlipAtomBarrier: the first poll waits for the atom).
//   replica_malloc      the same on a cudaMalloc'd word (control: does the
//                       workspace's location matter?).
//   replica_ws_early_poll
//                       the same with threadIdx.x == 0 as the test: the first
//                       poll leaves without waiting for the atom (control).
//   red_ws              one word in the workspace, arrival without return:
//                       thread 0 reads the word (ld.relaxed.gpu) before the
//                       block's first bar.sync, while the block has not yet
//                       arrived, so bit 31 is the current phase; after the
//                       bar.sync it does red.release.gpu (no return) and spins
//                       until bit 31 differs from what it read.
//   red_malloc          the same on a cudaMalloc'd word (control).
//   split_atom_K<k>_s<bytes>
//                       k u64 counters in a zeroed cudaMalloc'd buffer, <bytes>
//                       apart (128: one L2 line each; 4096: in case L2 slice
//                       hashing matters). Block b arrives on counter b % k
//                       with atom.release.gpu.add.u64 (result kept). At the
//                       e-th barrier of the launch (e from 0) counter g must
//                       reach (e + 1) * size_g, size_g = #{b : b % k == g};
//                       lanes 0..k-1 of warp 0 each poll one counter with
//                       ld.acquire.gpu.u64 until __all_sync says all are
//                       there (lanes >= k count as done); then bar.sync.
//                       k = 1 is a control (one u64 counter, no flip bit).
//   split_red_K<k>_s<bytes>
//                       the same, arriving with red.release.gpu.add.u64.
//   cluster_C<c>        launched with clusters of c blocks (cudaLaunchKernelEx,
//                       cooperative + cluster dimension): cluster barrier
//                       (barrier.cluster.arrive.release + wait.acquire, all
//                       threads of the cluster), then thread 0 of the
//                       cluster's rank-0 block does the flip-bit arrival
//                       (atom with return, nclusters arrivals) on a
//                       cudaMalloc'd word and spins, then a second cluster
//                       barrier.
//   phase_K<k>_lanes, phase_K<k>_thread
//                       (added later) k u32 counters 4 KiB apart in a
//                       __device__ array that is never reset: block b
//                       arrives on counter b % k with atom.add.release.gpu,
//                       the first block of each counter adding
//                       2^24 - (size - 1) and the others 1, so that each
//                       barrier moves every counter by exactly 2^24 (the
//                       flip-bit trick with an 8-bit phase in the top
//                       byte: the low 24 bits are back where they were,
//                       whatever the grid's size, so launches of any size
//                       follow one another without a reset). The arriving
//                       block's phase is the top byte of its atom's result;
//                       the barrier is complete when no counter's top byte
//                       is that phase (a counter can be at most two phases
//                       ahead of a block that has not seen the barrier
//                       complete, so 8 bits never wrap onto it). lanes:
//                       lanes 0..k-1 of warp 0 each poll one counter with
//                       ld.acquire.gpu (the phase broadcast from thread 0
//                       by SHFL), then __all_sync; thread: thread 0 polls
//                       all k with ld.relaxed.gpu and then fence.acq_rel.gpu.
//                       Each variant has counters of its own; they keep
//                       their values from shape to shape (the launches of
//                       every shape, timed and checked, run on them).
//   flag_s<bytes>, tree_K<k>_s<bytes>
//                       (beyond the brief) arrivals on counters that nobody
//                       polls; the arrival that completes the count publishes
//                       the barrier's number on a flag word <bytes> away,
//                       which everyone polls. flag: one counter; tree: k
//                       counters, whose completing arrivals count on a top
//                       counter (see FlagBarrier).
//
// Each variant runs in one templated kernel: ITER barriers in a loop. Cost per
// barrier = (median time of a launch of ITER barriers - median time of a
// launch of ITER_SMALL barriers) / (ITER - ITER_SMALL), 5 launches each after a
// warm-up launch, cudaEvents around each launch. Buffers are reset before each
// launch, outside the timed events.
//
// Correctness is checked in a SEPARATE launch of the same barrier (CHECK_ITER
// barriers, kernel instantiated with CHECK = true), so the timed loops contain
// nothing but barriers: at the e-th barrier block b's thread 0 stores e to
// data[e & 1][b] (a plain store) before the barrier; after it, the block's
// last thread loads data[e & 1][(b + 1 + e) % blocks] (a plain load) and must
// see exactly e; misses are counted with atomicAdd. The buffer is double
// (indexed by e & 1) so the store of barrier e + 1 cannot race with the load
// of barrier e; it starts as 0xffffffff so a stale value is never mistaken.
//
// A barrier that never completes would hang its launch: the host waits for
// each launch at most LAUNCH_DEADLINE_S, then prints 'HUNG' and exits (run
// again with a filter that leaves the variant out). Built with
// -DSPIN_GUARD=1, every spin (not cg's) also gives up after SPIN_LIMIT polls,
// counts a timeout and stops waiting for the rest of the launch, so that the
// probe can go on past a broken variant; off by default because the counter
// changes the spin loops' machine code (ptxas unrolls them and drops their
// YIELD), and with it the polling rate, which moves the timings.
//
// The probe also reads the driver workspace's first word (its "size") from a
// cooperative launch of each shape, the workspace pointer an ordinary launch
// sees (before and after any cooperative launch), and whether the barrier word
// keeps its value from one cooperative launch to the next.
//
// Build and run (sm_90; logs: grid-barrier-h200-2026-11-26.txt, grid-barrier-phases-h100-2026-11-26.txt):
//   nvcc -O3 -arch=sm_90 -std=c++17 -o gbv docs/probes/grid_barrier_variants.cu -lcuda
//   ./gbv            # all variants
//   ./gbv split_red  # only the variants whose name contains "split_red"
//   SLEEPS=0,50 SPACINGS=4096,8192 ./gbv placement
//                    # the 8-counter barrier with its counters at fixed offsets
//                    # of one 64 MiB pool, per spacing (default 4096, 8192,
//                    # 65536, 4352 bytes) and per __nanosleep between polls
//                    # (default 0), at 1056x256 and 132x1024; then CUDA's
//                    # grid.sync() (log: grid-barrier-placement-h200-2026-11-27.txt)
//   OFFSETS=0,1048576 SPACINGS=4096 ./gbv phase
//                    # the library's phase barrier (PoolPhaseBarrier) in each
//                    # of its modes, beside the split counters, at offsets of
//                    # one pool, 1056x256 and 132x1024 (also K = 1, the word
//                    # alone, there); then CUDA's grid.sync()
//                    # (log: grid-barrier-phase-polls-h200-2026-11-27.txt)
//
// Output: per variant and shape
//   variant=<name> shape=<blocks>x<threads> ns_per_barrier=<x> mismatches=<n>
// followed by a '#' line with the medians and their spread; a variant that
// cannot run prints 'variant=<name> shape=<..> SKIPPED: <why>' or
// '... ERROR: <why>' and the probe goes on.

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace cg = cooperative_groups;
typedef unsigned int u32;
typedef unsigned long long u64;

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

static const u32 ITER = 10000;       // barriers in a long timed launch
static const u32 ITER_SMALL = 1000;  // barriers in a short timed launch
static const u32 CHECK_ITER = 2000;  // barriers in the checked launch
static const int RUNS = 5;           // timed launches of each length (median)
static const u32 SPIN_LIMIT = 1u << 22;  // polls before a spin gives up
static const double LAUNCH_DEADLINE_S = 30;  // host watchdog per launch
#ifndef SPIN_GUARD
#define SPIN_GUARD 0  // 1: device-side spin guard (see the header)
#endif

// Shapes: blocks per SM x threads per block; grid = blocks per SM * SMs.
struct Shape {
    int blocks_per_sm;
    int threads;
};
static const Shape SHAPES[] = {{8, 256}, {1, 1024}, {2, 512}, {3, 512}, {4, 256}, {2, 1024}, {1, 256}};

// ---------------------------------------------------------------------------
// PTX helpers
// ---------------------------------------------------------------------------

// The driver's grid workspace of a cooperative launch, as CUDA's headers read
// it (driver_abi.h: high word %envreg1, low word %envreg2). 0 under an
// ordinary launch in a process that has made no cooperative launch.
__device__ __forceinline__ u64 workspace_ptr() {
    u64 r;
    asm("mov.b64 %0, {%%envreg2, %%envreg1};" : "=l"(r));
    return r;
}

// atom_add_release_gpu_u32, ld_acquire_gpu_u32: the spelling CUDA's sync.h
// and our library use (generic address).
#include "gpu_scope_ops.cuh"

__device__ __forceinline__ u32 ld_relaxed_gpu_u32(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// Global-space forms: a generic address of global memory is its global
// address (the identity CUDA code relies on for .global with "l" operands).
__device__ __forceinline__ void red_release_gpu_u32(u32* p, u32 v) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ u64 atom_add_release_gpu_u64(u64* p, u64 v) {
    u64 old;
    asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}

__device__ __forceinline__ u32 atom_add_acq_rel_gpu_u32(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ u32 atom_add_release_gpu_global_u32(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ u32 ld_acquire_gpu_global_u32(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release_gpu_u32(u32* p, u32 v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void red_release_gpu_u64(u64* p, u64 v) {
    asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ u64 ld_acquire_gpu_u64(const u64* p) {
    u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Barrier over all threads of all blocks of the cluster, ordering their memory
// operations (release on arrival, acquire on wait). Every thread executes it
// (.aligned: all threads of a warp execute the same instruction).
__device__ __forceinline__ void cluster_barrier() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ u32 cluster_ctarank() {
    u32 r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ u32 cluster_id_x() {
    u32 r;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ u32 ncluster_id_x() {
    u32 r;
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}

// ---------------------------------------------------------------------------
// Barriers. Each is constructed once per thread at kernel start and its
// sync() is called by every thread of the grid. All grids here are 1-D.
// ---------------------------------------------------------------------------

struct Args {
    u32 iters;        // barriers in this launch
    u32* data;        // 2 * blocks words: the check's double buffer
    u32* mismatches;  // the check's miss count
    u32* timeouts;    // spins that gave up
    u32* word;        // a cudaMalloc'd flip-bit word (zeroed before each launch)
    u64* counters;    // split counters, or flag/tree words (zeroed before each launch)
    u32 stride;       // distance between two counters, in u64
    u32 K;            // number of arrival counters (1..32)
    u64* sink;        // never written in practice: keeps atom results live
    u32 sleep_ns;     // split counters: __nanosleep between two polls (0: none)
};

// The spin guard (see the header; only with SPIN_GUARD=1): after SPIN_LIMIT
// polls the spinning thread counts a timeout and, through `broken`, stops
// waiting in later barriers. With SPIN_GUARD=0 `broken` stays false and the
// compiler drops it.
struct Guard {
    u32* timeouts;
    bool broken;
    __device__ explicit Guard(u32* t) : timeouts(t), broken(false) {}
    // Call once per poll; true when the spin must stop.
    __device__ __forceinline__ bool expired(u32& polls, bool count) {
        if (++polls < SPIN_LIMIT) return false;
        if (count) atomicAdd(timeouts, 1u);
        broken = true;
        return true;
    }
};

// Flip-bit arrival: block 0 adds 0x80000000 - (arrivals - 1), the others 1,
// so the sum of one barrier's arrivals is 0x80000000: the last arrival flips
// bit 31 and the low 31 bits are back where they were.
__device__ __forceinline__ u32 flip_add(bool first, u32 arrivals) {
    return first ? 0x80000000u - (arrivals - 1) : 1u;
}

// 0: CUDA's cg::this_grid().sync().
struct CgBarrier {
    cg::grid_group g;
    __device__ explicit CgBarrier(const Args&) : g(cg::this_grid()) {}
    __device__ __forceinline__ void sync() { g.sync(); }
    __device__ void finish(const Args&) {}
};

// 1: our barrier (replica): atom with return, spin on bit 31.
// WS: the driver workspace's word; else Args::word.
// EARLY = false: the arriving thread is found as our library and CUDA's
// sync.h find it, (threadIdx.x | .y | .z) == 0. ptxas cannot prove that this
// is one lane, so it aggregates the atom over the warp's active lanes and
// broadcasts its result with SHFL: the first poll waits for the atom's
// result (as in the SASS of our library's barrier_cost_grid and of cg).
// EARLY = true: threadIdx.x == 0, one lane as far as ptxas knows: no
// aggregation, and the first poll is issued without waiting for the atom, so
// each block puts one more load on the barrier's L2 line while the arrivals
// are still coming in (a control: this is not what our library compiles to).
template <bool WS, bool EARLY>
struct FlipAtomBarrier {
    u32* word;
    u32 add;
    Guard guard;
    __device__ explicit FlipAtomBarrier(const Args& a) : guard(a.timeouts) {
        word = WS ? reinterpret_cast<u32*>(workspace_ptr()) + 1 : a.word;
        add = flip_add(blockIdx.x == 0, gridDim.x);
    }
    __device__ __forceinline__ void sync() {
        __syncthreads();
        if (EARLY ? threadIdx.x == 0 : (threadIdx.x | threadIdx.y | threadIdx.z) == 0) {
            u32 old = atom_add_release_gpu_u32(word, add);
            if (!guard.broken) {
                u32 polls = 0;
#pragma unroll 1
                while (((old ^ ld_acquire_gpu_u32(word)) & 0x80000000u) == 0)
                    if (SPIN_GUARD && guard.expired(polls, true)) break;
            }
        }
        __syncthreads();
    }
    __device__ void finish(const Args&) {}
};

// 2: arrival without return. Thread 0 reads the phase before the block's first
// bar.sync: the block has not arrived, so this barrier cannot have completed,
// and thread 0 itself saw the previous one complete (read-read coherence), so
// bit 31 of what it reads is the phase of this barrier.
template <bool WS>
struct FlipRedBarrier {
    u32* word;
    u32 add;
    Guard guard;
    __device__ explicit FlipRedBarrier(const Args& a) : guard(a.timeouts) {
        word = WS ? reinterpret_cast<u32*>(workspace_ptr()) + 1 : a.word;
        add = flip_add(blockIdx.x == 0, gridDim.x);
    }
    __device__ __forceinline__ void sync() {
        u32 phase = 0;
        if (threadIdx.x == 0) phase = ld_relaxed_gpu_u32(word);
        __syncthreads();
        if (threadIdx.x == 0) {
            red_release_gpu_u32(word, add);
            if (!guard.broken) {
                u32 polls = 0;
#pragma unroll 1
                while (((phase ^ ld_acquire_gpu_u32(word)) & 0x80000000u) == 0)
                    if (SPIN_GUARD && guard.expired(polls, true)) break;
            }
        }
        __syncthreads();
    }
    __device__ void finish(const Args&) {}
};

// 3 (RED = false) and 4 (RED = true): split counters, polled by K lanes of
// warp 0. Counters only grow, so ">= target" is immune to a fast block having
// already arrived for the next barrier.
template <bool RED>
struct SplitBarrier {
    u64* mine;    // thread 0: the counter this block arrives on
    u64* polled;  // warp 0, lane < K: the counter this lane polls
    u64 target;   // warp 0, lane < K: what the polled counter must reach
    u64 step;     // warp 0, lane < K: blocks arriving on the polled counter
    u64 acc;      // thread 0: sum of the atom results (kept live)
    u32 K;
    u32 sleep_ns;
    Guard guard;
    __device__ explicit SplitBarrier(const Args& a)
        : target(0), step(0), acc(0), K(a.K), sleep_ns(a.sleep_ns), guard(a.timeouts) {
        const u32 n = gridDim.x;
        mine = a.counters + (size_t)(blockIdx.x % K) * a.stride;
        polled = mine;
        if (threadIdx.x < K) {
            polled = a.counters + (size_t)threadIdx.x * a.stride;
            step = n / K + (threadIdx.x < n % K ? 1 : 0);
        }
    }
    __device__ __forceinline__ void sync() {
        __syncthreads();
        if (threadIdx.x == 0) {
            if (RED)
                red_release_gpu_u64(mine, 1);
            else
                acc += atom_add_release_gpu_u64(mine, 1);
        }
        if (threadIdx.x < 32) {  // warp 0: the loop is warp-uniform
            target += step;
            bool done = threadIdx.x >= K || guard.broken;
            u32 polls = 0;
#pragma unroll 1
            for (;;) {
                if (!done) done = ld_acquire_gpu_u64(polled) >= target;
                if (__all_sync(0xffffffffu, done)) break;
                if (sleep_ns) __nanosleep(sleep_ns);
                if (SPIN_GUARD && guard.expired(polls, threadIdx.x == 0)) break;
            }
        }
        __syncthreads();
    }
    __device__ void finish(const Args& a) {
        if (!RED && threadIdx.x == 0 && acc == ~0ull) *a.sink = acc;  // never true
    }
};

// 6: phase counters (see the header): never reset, any grid size after any
// other.
static const u32 PHASE_STRIDE = 1024;  // u32s between counters: 4 KiB
static const u32 PHASE_SLOTS = 8;  // one set of counters per variant
__device__ __align__(4096) u32 phase_counters[PHASE_SLOTS * 32 * PHASE_STRIDE];

template <u32 K, bool LANES, u32 SLOT>
struct PhaseBarrier {
    static_assert(K <= 32 && SLOT < PHASE_SLOTS, "one set of 32 counters per slot");
    u32* base;
    u32* mine;
    u32 add;
    Guard guard;
    __device__ explicit PhaseBarrier(const Args& a) : guard(a.timeouts) {
        const u32 g = blockIdx.x % K;
        base = phase_counters + SLOT * 32 * PHASE_STRIDE;
        mine = base + g * PHASE_STRIDE;
        add = phase_arrival_add(blockIdx.x, gridDim.x, K);
    }
    __device__ __forceinline__ void sync() {
        __syncthreads();
        u32 old = 0;
        if (threadIdx.x == 0) old = atom_add_release_gpu_u32(mine, add);
        if (LANES) {
            if (threadIdx.x < 32) {
                const u32 phase = __shfl_sync(0xffffffffu, old, 0) >> 24;
                const u32* polled = base + (threadIdx.x % K) * PHASE_STRIDE;
                bool done = threadIdx.x >= K || guard.broken;
                u32 polls = 0;
#pragma unroll 1
                for (;;) {
                    if (!done) done = (ld_acquire_gpu_u32(polled) >> 24) != phase;
                    if (__all_sync(0xffffffffu, done)) break;
                    if (SPIN_GUARD && guard.expired(polls, threadIdx.x == 0)) break;
                }
            }
        } else if (threadIdx.x == 0 && !guard.broken) {
            const u32 phase = old >> 24;
            u32 polls = 0;
#pragma unroll 1
            for (;;) {
                bool all = true;
#pragma unroll
                for (u32 k = 0; k < K; ++k) all &= (ld_relaxed_gpu_u32(base + k * PHASE_STRIDE) >> 24) != phase;
                if (all) break;
                if (SPIN_GUARD && guard.expired(polls, true)) break;
            }
            fence_acq_rel_gpu();
        }
        __syncthreads();
    }
    __device__ void finish(const Args&) {}
};

// 7: the phase counters of 6 at an address of the host's (Args::counters,
// Args::stride apart), lane k < K of warp 0 polling counter k until its top
// byte is no longer the phase. In the first four modes each lane spins on
// its own (no vote; the block's bar.sync joins them), and the mode is where
// the phase comes from:
//   TOKEN    thread 0's atom result, passed on by shfl: the library's barrier;
//   SPEC     the same, but each lane issues its first poll before the shfl,
//            so that the poll travels with the atom;
//   PREREAD  thread 0 reads its own counter (ld.relaxed.gpu) before the
//            block's bar.sync: no other block can complete this barrier on
//            that counter before this block arrives, and every block has
//            seen the last one complete, so its top byte is the phase; the
//            atom's result is then not waited for (kept live in `acc`);
//   CARRIED  the phase kept from the previous barrier (the top byte that
//            lane blockIdx % K last polled on its counter, the block's own,
//            is the next barrier's phase; read once at the start): what a
//            barrier with state across calls would cost.
// In the last two the phase is TOKEN's and the lanes poll in one loop:
//   VOTE     as SplitBarrier polls: the whole of warp 0 in one loop, a lane
//            whose counter is done polls no more, and the loop ends when
//            __all_sync says every lane is done;
//   VOTE_ALL the K lanes, each polling at every round, done or not (one
//            basic block).
// K = 1: thread 0 alone, on one word (CUDA's protocol for TOKEN). GLOBAL:
// the atom and the polls in the .global state space (ATOMG, LDG) instead of
// generic addresses (ATOM, LD) as the library's and CUDA's sync.h spell them.
enum PhaseMode { TOKEN, SPEC, PREREAD, CARRIED, VOTE, VOTE_ALL };
template <u32 K, PhaseMode MODE, bool GLOBAL = false>
struct PoolPhaseBarrier {
    static constexpr u32 MASK = K == 32 ? ~0u : (1u << K) - 1;  // the polling lanes
    static __device__ __forceinline__ u32 atom(u32* p, u32 v) {
        return GLOBAL ? atom_add_release_gpu_global_u32(p, v) : atom_add_release_gpu_u32(p, v);
    }
    static __device__ __forceinline__ u32 poll(const u32* p) {
        return GLOBAL ? ld_acquire_gpu_global_u32(p) : ld_acquire_gpu_u32(p);
    }
    u32* mine;
    const u32* polled;
    u32 add;
    u32 acc;    // PREREAD, CARRIED: sum of the atom results (kept live)
    u32 phase;  // CARRIED: the next barrier's phase
    __device__ explicit PoolPhaseBarrier(const Args& a) : acc(0), phase(0) {
        const u32 stride = a.stride * 2;  // Args::stride is in u64
        const u32 g = blockIdx.x % K;
        u32* base = reinterpret_cast<u32*>(a.counters);
        mine = base + g * stride;
        polled = base + (threadIdx.x % K) * stride;
        add = phase_arrival_add(blockIdx.x, gridDim.x, K);
        if (MODE == CARRIED) phase = ld_relaxed_gpu_u32(mine) >> 24;
    }
    __device__ __forceinline__ void sync() {
        u32 before = 0;
        if (MODE == PREREAD && threadIdx.x == 0) before = ld_relaxed_gpu_u32(mine);
        __syncthreads();
        if (MODE == VOTE) {
            if (threadIdx.x < 32) {
                u32 old = 0;
                if (threadIdx.x == 0) old = atom(mine, add);
                poll_phase_with_vote(poll, polled, __shfl_sync(~0u, old, 0) >> 24, K);
            }
        } else if (MODE == VOTE_ALL) {
            if (threadIdx.x < K) {
                u32 old = 0;
                if (threadIdx.x == 0) old = atom(mine, add);
                const u32 p = (K == 1 ? old : __shfl_sync(MASK, old, 0)) >> 24;
                bool done = false;
#pragma unroll 1
                for (;;) {
                    done |= (poll(polled) >> 24) != p;
                    if (__all_sync(MASK, done)) break;
                }
            }
        } else if (threadIdx.x < K) {
            u32 old = 0;
            if (threadIdx.x == 0) old = atom(mine, add);
            u32 v = MODE == SPEC || MODE == CARRIED ? poll(polled) : 0;
            u32 p;
            if (MODE == CARRIED) {
                p = phase;
            } else if (MODE == PREREAD) {
                p = (K == 1 ? before : __shfl_sync(MASK, before, 0)) >> 24;
            } else {
                p = (K == 1 ? old : __shfl_sync(MASK, old, 0)) >> 24;
            }
            if (MODE == TOKEN || MODE == PREREAD) v = poll(polled);
#pragma unroll 1
            while ((v >> 24) == p) v = poll(polled);
            if (MODE == CARRIED) phase = __shfl_sync(MASK, v, blockIdx.x % K) >> 24;
            acc += old;  // after the spin: the atom's return is not waited for before it
        }
        __syncthreads();
    }
    __device__ void finish(const Args& a) {
        if (threadIdx.x == 0 && acc == ~0u) *a.sink = acc;  // never true
    }
};

// 5: cluster barrier, one flip-bit arrival per cluster on Args::word, cluster
// barrier. Needs a launch with a cluster dimension.
struct ClusterBarrier {
    u32* word;
    u32 add;
    bool leader;  // thread 0 of the cluster's rank-0 block
    Guard guard;
    __device__ explicit ClusterBarrier(const Args& a) : word(a.word), guard(a.timeouts) {
        leader = threadIdx.x == 0 && cluster_ctarank() == 0;
        add = flip_add(cluster_id_x() == 0, ncluster_id_x());
    }
    __device__ __forceinline__ void sync() {
        cluster_barrier();
        if (leader) {
            u32 old = atom_add_release_gpu_u32(word, add);
            if (!guard.broken) {
                u32 polls = 0;
#pragma unroll 1
                while (((old ^ ld_acquire_gpu_u32(word)) & 0x80000000u) == 0)
                    if (SPIN_GUARD && guard.expired(polls, true)) break;
            }
        }
        cluster_barrier();
    }
    __device__ void finish(const Args&) {}
};

// Extra: arrival counters and a separate flag (not in the brief's list: added
// because the arrival line's cost depends on the loads that poll it). Words
// are u32, Args::stride u64s apart in the counter buffer: K arrival counters,
// then (K > 1) a top counter, then the flag. Block b's thread 0 arrives on
// counter b % K with atom.acq_rel.gpu; the arrival that completes its counter
// for this barrier (old == e * size_g - 1, e counted from 1 in the launch)
// arrives on the top counter (K > 1) the same way, and the one that completes
// that publishes e on the flag with st.release.gpu; everyone else polls the
// flag with ld.acquire.gpu until it reaches e. Nobody polls a counter, so
// the polls never queue with the arrivals at a counter's line. acq_rel: the
// completing arrival acquires the earlier arrivals' releases (they are RMWs
// on the same word, a release sequence), so its own release passes all of
// them on, as the flip-bit scheme's spin relies on too. Launch-relative
// counts: u32 suffices up to 2^32 / blocks barriers per launch.
struct FlagBarrier {
    u32* mine;    // thread 0: this block's arrival counter
    u32* top;     // the top counter (K > 1)
    u32* flag;
    u32 mine_size;  // blocks arriving on `mine`
    u32 K;
    u32 e;        // barriers begun in this launch
    Guard guard;
    __device__ explicit FlagBarrier(const Args& a) : K(a.K), e(0), guard(a.timeouts) {
        u32* base = reinterpret_cast<u32*>(a.counters);
        const u32 s = a.stride * 2;  // u64 -> u32 units
        const u32 g = blockIdx.x % K;
        mine = base + (size_t)g * s;
        top = base + (size_t)K * s;
        flag = base + (size_t)(K > 1 ? K + 1 : K) * s;
        mine_size = gridDim.x / K + (g < gridDim.x % K ? 1 : 0);
    }
    __device__ __forceinline__ void sync() {
        __syncthreads();
        if (threadIdx.x == 0) {
            ++e;
            bool last = atom_add_acq_rel_gpu_u32(mine, 1) == e * mine_size - 1;
            if (last && K > 1) last = atom_add_acq_rel_gpu_u32(top, 1) == e * K - 1;
            if (last) {
                st_release_gpu_u32(flag, e);
            } else if (!guard.broken) {
                u32 polls = 0;
#pragma unroll 1
                while ((int)(ld_acquire_gpu_u32(flag) - e) < 0)
                    if (SPIN_GUARD && guard.expired(polls, true)) break;
            }
        }
        __syncthreads();
    }
    __device__ void finish(const Args&) {}
};

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

// Timing (CHECK = false) or checked (CHECK = true) loop of a.iters barriers.
// __launch_bounds__(1024, 2): at most 32 registers, so that 2048 threads fit
// on an SM at every block size used here (8 x 256, 2 x 1024, 4 x 512).
template <class Barrier, bool CHECK>
__global__ void __launch_bounds__(1024, 2) bench_kernel(Args a) {
    Barrier bar(a);
    const u32 n = gridDim.x, b = blockIdx.x;
    for (u32 e = 0; e < a.iters; ++e) {
        if (CHECK && threadIdx.x == 0) a.data[(e & 1) * n + b] = e;
        bar.sync();
        if (CHECK && threadIdx.x == blockDim.x - 1) {
            const u32 got = a.data[(e & 1) * n + (b + 1 + e) % n];
            if (got != e) atomicAdd(a.mismatches, 1u);
        }
    }
    bar.finish(a);
}

// Block 0's thread 0 reports the workspace pointer and its two words (no
// barrier runs in this kernel, so neither word changes while it reads).
__global__ void workspace_probe(u64* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const u64 ws = workspace_ptr();
        out[0] = ws;
        out[1] = ws ? reinterpret_cast<volatile u32*>(ws)[0] : ~0ull;
        out[2] = ws ? reinterpret_cast<volatile u32*>(ws)[1] : ~0ull;
    }
}

// ---------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------

typedef void (*Kernel)(Args);

struct Variant {
    std::string name;
    Kernel timed, checked;
    u32 K = 0;        // split counters (0: none)
    u32 stride = 16;  // u64 between split counters
    int cluster = 0;  // cluster size (0: plain cooperative launch)
};

template <class B>
static Variant make_variant(const std::string& name, u32 K = 0, u32 stride_bytes = 128, int cluster = 0) {
    Variant v;
    v.name = name;
    v.timed = bench_kernel<B, false>;
    v.checked = bench_kernel<B, true>;
    v.K = K;
    v.stride = stride_bytes / sizeof(u64);
    v.cluster = cluster;
    return v;
}

static std::vector<Variant> all_variants() {
    std::vector<Variant> vs;
    vs.push_back(make_variant<CgBarrier>("cg_grid_sync"));
    vs.push_back(make_variant<FlipAtomBarrier<true, false>>("replica_ws"));
    vs.push_back(make_variant<FlipAtomBarrier<false, false>>("replica_malloc"));
    vs.push_back(make_variant<FlipAtomBarrier<true, true>>("replica_ws_early_poll"));
    vs.push_back(make_variant<FlipRedBarrier<true>>("red_ws"));
    vs.push_back(make_variant<FlipRedBarrier<false>>("red_malloc"));
    const u32 Ks[] = {1, 2, 4, 8, 16, 32};
    for (int red = 0; red < 2; ++red)
        for (u32 K : Ks)
            for (u32 bytes : {128u, 4096u}) {
                if (K == 1 && bytes != 128) continue;  // spacing is moot for one counter
                const std::string name = std::string(red ? "split_red" : "split_atom") + "_K" + std::to_string(K) +
                                         "_s" + std::to_string(bytes);
                vs.push_back(red ? make_variant<SplitBarrier<true>>(name, K, bytes)
                                 : make_variant<SplitBarrier<false>>(name, K, bytes));
            }
    vs.push_back(make_variant<PhaseBarrier<4, true, 0>>("phase_K4_lanes", 4));
    vs.push_back(make_variant<PhaseBarrier<8, true, 1>>("phase_K8_lanes", 8));
    vs.push_back(make_variant<PhaseBarrier<16, true, 2>>("phase_K16_lanes", 16));
    vs.push_back(make_variant<PhaseBarrier<4, false, 3>>("phase_K4_thread", 4));
    vs.push_back(make_variant<PhaseBarrier<8, false, 4>>("phase_K8_thread", 8));
    vs.push_back(make_variant<PhaseBarrier<16, false, 5>>("phase_K16_thread", 16));
    for (int C : {2, 4, 8}) vs.push_back(make_variant<ClusterBarrier>("cluster_C" + std::to_string(C), 0, 128, C));
    for (u32 K : Ks)
        for (u32 bytes : {128u, 4096u}) {
            const std::string name = (K == 1 ? std::string("flag") : "tree_K" + std::to_string(K)) + "_s" +
                                     std::to_string(bytes);
            vs.push_back(make_variant<FlagBarrier>(name, K, bytes));
        }
    return vs;
}

// Launch k cooperatively (cudaLaunchCooperativeKernel); with a cluster size,
// through cudaLaunchKernelEx with the cluster-dimension attribute and, unless
// coop is false (the fallback when the driver refuses a cooperative cluster
// launch), the cooperative attribute.
static cudaError_t launch(Kernel k, const Args& a, int blocks, int threads, int cluster, bool coop = true) {
    if (cluster == 0) {
        void* params[] = {const_cast<Args*>(&a)};
        return cudaLaunchCooperativeKernel((const void*)k, dim3(blocks), dim3(threads), params, 0, 0);
    }
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = cluster;
    attrs[0].val.clusterDim.y = 1;
    attrs[0].val.clusterDim.z = 1;
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = 0;
    cfg.attrs = attrs;
    cfg.numAttrs = coop ? 2 : 1;
    return cudaLaunchKernelEx(&cfg, k, a);
}

// Whether `blocks` blocks of k (in clusters of `cluster`, if any) can all be
// resident at once; else the reason in *why.
static bool fits(Kernel k, int blocks, int threads, int cluster, int sms, std::string* why) {
    char buf[256];
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, 0);
    if (e != cudaSuccess) {
        *why = std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor: ") + cudaGetErrorString(e);
        return false;
    }
    if (per_sm * sms < blocks) {
        snprintf(buf, sizeof buf, "%d blocks/SM x %d SMs < %d blocks", per_sm, sms, blocks);
        *why = buf;
        return false;
    }
    if (cluster == 0) return true;
    if (blocks % cluster != 0) {
        snprintf(buf, sizeof buf, "grid of %d blocks not divisible by cluster size %d", blocks, cluster);
        *why = buf;
        return false;
    }
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    e = cudaOccupancyMaxActiveClusters(&clusters, k, &cfg);
    if (e != cudaSuccess) {
        *why = std::string("cudaOccupancyMaxActiveClusters: ") + cudaGetErrorString(e);
        return false;
    }
    if (clusters * cluster < blocks) {
        snprintf(buf, sizeof buf, "at most %d clusters of %d co-resident (%d blocks) < %d blocks", clusters, cluster,
                 clusters * cluster, blocks);
        *why = buf;
        return false;
    }
    return true;
}

// Placement sweep (argv[1] == "placement"): the split counters at a chosen
// address inside one pool, instead of a cudaMalloc of their own.
static u64* g_counters_at = nullptr;
static u32 g_sleep_ns = 0;  // Args::sleep_ns of the sweep's runs

// The comma-separated numbers of the environment variable `name`, or of
// `fallback` where it is unset.
static std::vector<u32> env_list(const char* name, const char* fallback) {
    const char* text = getenv(name);
    std::vector<u32> out;
    for (const char* q = text ? text : fallback; *q;) {
        out.push_back((u32)strtoul(q, (char**)&q, 10));
        if (*q == ',') ++q;
    }
    return out;
}

// The 64 MiB pool in which the placement and phase sweeps put their
// counters at chosen offsets (its address printed), or null after saying
// that it could not be allocated.
static char* counter_pool(const char* mode) {
    char* pool = nullptr;
    if (cudaMalloc(&pool, 64u << 20) != cudaSuccess) {
        printf("%s: cudaMalloc of the pool failed\n", mode);
        return nullptr;
    }
    printf("%s pool=%p\n", mode, (void*)pool);
    return pool;
}

// Device buffers of one variant run.
struct Buffers {
    u32* data = nullptr;
    u32* counts = nullptr;  // [0] mismatches, [1] timeouts
    u32* word = nullptr;
    u64* counters = nullptr;
    u64* sink = nullptr;
    size_t data_bytes = 0, counter_bytes = 0;
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;
    bool keep = false;  // after a device reset the pointers are gone: don't free
    ~Buffers() {
        if (keep) return;
        cudaFree(data);
        cudaFree(counts);
        cudaFree(word);
        if (counters != g_counters_at) cudaFree(counters);
        cudaFree(sink);
        if (ev0) cudaEventDestroy(ev0);
        if (ev1) cudaEventDestroy(ev1);
    }
};

// A failed CUDA call of a variant run: print it and clear it; after a sticky
// error (the context is unusable) reset the device, so that the next variant
// runs in a fresh context (its buffers are allocated per run).
static bool check_call(cudaError_t err, const char* what, const Variant& v, const char* shape, Buffers* buf) {
    if (err == cudaSuccess) return true;
    printf("variant=%s shape=%s ERROR: %s: %s (%s)\n", v.name.c_str(), shape, what, cudaGetErrorName(err),
           cudaGetErrorString(err));
    cudaGetLastError();  // clears a non-sticky error
    const cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky != cudaSuccess) {
        printf("# sticky error (%s): resetting the device and going on\n", cudaGetErrorName(sticky));
        buf->keep = true;
        cudaDeviceReset();
    }
    fflush(stdout);
    return false;
}
#define CK(call) check_call((call), #call, v, shape, &buf)

// Waits for ev, polling; a launch that has not ended after LAUNCH_DEADLINE_S
// is a barrier that never completes: say so and end the process (the driver
// then ends the kernel).
static cudaError_t wait_event(cudaEvent_t ev, const Variant& v, const char* shape) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        const cudaError_t e = cudaEventQuery(ev);
        if (e != cudaErrorNotReady) return e;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > LAUNCH_DEADLINE_S) {
            printf("variant=%s shape=%s HUNG: a launch did not end within %.0f s; exiting (run again with a "
                   "filter that leaves this variant out)\n",
                   v.name.c_str(), shape, LAUNCH_DEADLINE_S);
            fflush(stdout);
            std::_Exit(3);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

// cudaGetLastError, less the cudaErrorNotReady that polling may leave.
static cudaError_t last_error() {
    const cudaError_t e = cudaGetLastError();
    return e == cudaErrorNotReady ? cudaSuccess : e;
}

static float median(std::vector<float> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

static void run_variant(const Variant& v, const Shape& s, int sms) {
    const int blocks = s.blocks_per_sm * sms, threads = s.threads;
    char shape[32];
    snprintf(shape, sizeof shape, "%dx%d", blocks, threads);
    Buffers buf;

    if (v.K > (u32)blocks) {
        printf("variant=%s shape=%s SKIPPED: K=%u > %d blocks\n", v.name.c_str(), shape, v.K, blocks);
        return;
    }
    std::string why;
    if (!fits(v.timed, blocks, threads, v.cluster, sms, &why) ||
        !fits(v.checked, blocks, threads, v.cluster, sms, &why)) {
        printf("variant=%s shape=%s SKIPPED: not co-resident: %s\n", v.name.c_str(), shape, why.c_str());
        cudaGetLastError();
        return;
    }

    buf.data_bytes = 2 * (size_t)blocks * sizeof(u32);
    buf.counter_bytes = (size_t)(std::max(v.K, 1u) + 2) * v.stride * sizeof(u64);  // (+ top and flag)
    if (!CK(cudaMalloc(&buf.data, buf.data_bytes)) || !CK(cudaMalloc(&buf.counts, 2 * sizeof(u32))) ||
        !CK(cudaMalloc(&buf.word, sizeof(u32))) ||
        !(g_counters_at ? (buf.counters = g_counters_at, true) : CK(cudaMalloc(&buf.counters, buf.counter_bytes))) ||
        !CK(cudaMalloc(&buf.sink, sizeof(u64))) || !CK(cudaMemset(buf.counts, 0, 2 * sizeof(u32))) ||
        !CK(cudaEventCreate(&buf.ev0)) || !CK(cudaEventCreate(&buf.ev1)))
        return;

    Args a = {};
    a.data = buf.data;
    a.mismatches = buf.counts;
    a.timeouts = buf.counts + 1;
    a.word = buf.word;
    a.counters = buf.counters;
    a.stride = v.stride;
    a.K = std::max(v.K, 1u);
    a.sink = buf.sink;
    a.sleep_ns = g_sleep_ns;

    // One launch of k with `iters` barriers, its time in *ms (when ms is not
    // null). The flip word and the split counters are zeroed first, outside
    // the timed events (the workspace variants leave them alone).
    bool coop = true;
    auto launch_once = [&](Kernel k, u32 iters, float* ms) -> bool {
        a.iters = iters;
        return CK(cudaMemsetAsync(buf.word, 0, sizeof(u32))) &&
               CK(cudaMemsetAsync(buf.counters, 0, buf.counter_bytes)) && CK(cudaEventRecord(buf.ev0)) &&
               CK(launch(k, a, blocks, threads, v.cluster, coop)) && CK(cudaEventRecord(buf.ev1)) &&
               CK(wait_event(buf.ev1, v, shape)) && CK(last_error()) &&
               (!ms || CK(cudaEventElapsedTime(ms, buf.ev0, buf.ev1)));
    };

    // A cluster variant whose cooperative launch the driver refuses runs as a
    // plain cluster launch, named <name>_nocoop: all its blocks are then
    // resident only as far as cudaOccupancyMaxActiveClusters says (and nothing
    // else runs on the GPU); if a block never comes, the host watchdog (or,
    // with SPIN_GUARD=1, the spin guard) reports it instead of hanging.
    std::string name = v.name;
    if (v.cluster) {
        a.iters = 0;
        cudaError_t e = launch(v.timed, a, blocks, threads, v.cluster, true);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("# variant=%s shape=%s: cooperative cluster launch refused: %s (%s); trying a plain cluster "
                   "launch\n",
                   v.name.c_str(), shape, cudaGetErrorName(e), cudaGetErrorString(e));
            cudaGetLastError();
            if (cudaDeviceSynchronize() != cudaSuccess) {  // sticky: not a refusal
                check_call(cudaDeviceSynchronize(), "cooperative cluster launch", v, shape, &buf);
                return;
            }
            coop = false;
            name += "_nocoop";
        }
    }

    // Timing: a warm-up launch, then RUNS short and RUNS long launches,
    // interleaved.
    std::vector<float> t_small, t_big;
    if (!launch_once(v.timed, ITER_SMALL, nullptr)) return;
    for (int r = 0; r < RUNS; ++r) {
        float ms = 0;
        if (!launch_once(v.timed, ITER_SMALL, &ms)) return;
        t_small.push_back(ms);
        if (!launch_once(v.timed, ITER, &ms)) return;
        t_big.push_back(ms);
    }
    u32 counts[2] = {0, 0};
    if (!CK(cudaMemcpy(counts, buf.counts, sizeof counts, cudaMemcpyDeviceToHost))) return;
    const u32 timed_timeouts = counts[1];

    // Correctness: a separate launch of the CHECK = true kernel.
    if (!CK(cudaMemset(buf.data, 0xff, buf.data_bytes)) || !CK(cudaMemset(buf.counts, 0, sizeof counts))) return;
    if (!launch_once(v.checked, CHECK_ITER, nullptr)) return;
    if (!CK(cudaMemcpy(counts, buf.counts, sizeof counts, cudaMemcpyDeviceToHost))) return;

    const float small_ms = median(t_small), big_ms = median(t_big);
    const double ns = (double)(big_ms - small_ms) * 1e6 / (double)(ITER - ITER_SMALL);
    printf("variant=%s shape=%s ns_per_barrier=%.1f mismatches=%u\n", name.c_str(), shape, ns, counts[0]);
    printf("#   median ms: %u barriers %.3f [%.3f..%.3f], %u barriers %.3f [%.3f..%.3f]; "
           "checked launch: %u barriers; timeouts: timed %u, checked %u\n",
           ITER_SMALL, small_ms, *std::min_element(t_small.begin(), t_small.end()),
           *std::max_element(t_small.begin(), t_small.end()), ITER, big_ms,
           *std::min_element(t_big.begin(), t_big.end()), *std::max_element(t_big.begin(), t_big.end()), CHECK_ITER,
           timed_timeouts, counts[1]);
    if (timed_timeouts || counts[1])
        printf("# WARNING: variant=%s shape=%s: spins gave up, its numbers are not a working barrier's%s\n",
               name.c_str(), shape,
               v.name.find("_ws") != std::string::npos || v.name == "cg_grid_sync"
                   ? " (and the workspace word may now be off for later workspace variants)"
                   : "");
    fflush(stdout);
}
#undef CK

// ---------------------------------------------------------------------------
// The driver workspace (item 6)
// ---------------------------------------------------------------------------

// Runs workspace_probe (cooperatively or not) and reads {ptr, size, barrier}.
static bool read_workspace(int blocks, int threads, bool coop, u64* dev, u64 out[3]) {
    cudaError_t e;
    if (coop) {
        void* params[] = {&dev};
        e = cudaLaunchCooperativeKernel((const void*)workspace_probe, dim3(blocks), dim3(threads), params, 0, 0);
    } else {
        workspace_probe<<<blocks, threads>>>(dev);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(out, dev, 3 * sizeof(u64), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        printf("workspace probe (%s, %dx%d) ERROR: %s (%s)\n", coop ? "cooperative" : "ordinary", blocks, threads,
               cudaGetErrorName(e), cudaGetErrorString(e));
        cudaGetLastError();
        return false;
    }
    return true;
}

static void probe_workspace(int sms) {
    u64* dev = nullptr;
    u32* counts = nullptr;
    if (cudaMalloc(&dev, 3 * sizeof(u64)) != cudaSuccess || cudaMalloc(&counts, 2 * sizeof(u32)) != cudaSuccess ||
        cudaMemset(counts, 0, 2 * sizeof(u32)) != cudaSuccess) {
        printf("workspace probe ERROR: cudaMalloc/cudaMemset failed\n");
        cudaGetLastError();
        return;
    }
    u64 w[3];
    // Before any cooperative launch of this process (only the first call of
    // probe_workspace comes before one).
    if (read_workspace(1, 32, false, dev, w))
        printf("workspace ordinary_launch ptr=0x%llx (first launch of the process)\n", w[0]);
    for (const Shape& s : SHAPES) {
        const int blocks = s.blocks_per_sm * sms;
        if (read_workspace(blocks, s.threads, true, dev, w))
            printf("workspace shape=%dx%d ptr=0x%llx size=%llu (0x%llx) barrier=0x%08llx\n", blocks, s.threads, w[0],
                   w[1], w[1], w[2]);
    }
    if (read_workspace(1, 32, false, dev, w))
        printf("workspace ordinary_launch ptr=0x%llx (after cooperative launches)\n", w[0]);

    // Does the barrier word keep its value from one cooperative launch to
    // the next? Between reads, a cooperative launch of the replica with one
    // barrier: if the word persists, each one flips bit 31.
    const int blocks = SHAPES[0].blocks_per_sm * sms, threads = SHAPES[0].threads;
    Args a = {};
    a.iters = 1;
    a.mismatches = counts;
    a.timeouts = counts + 1;
    const Kernel one_barrier = bench_kernel<FlipAtomBarrier<true, false>, false>;
    u64 word[3], ptr[3];
    for (int i = 0; i < 3; ++i) {
        if (i > 0) {
            cudaError_t e = launch(one_barrier, a, blocks, threads, 0);
            if (e == cudaSuccess) e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("workspace persistence ERROR: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
                cudaGetLastError();
                return;
            }
        }
        if (!read_workspace(blocks, threads, true, dev, w)) return;
        ptr[i] = w[0];
        word[i] = w[2];
    }
    const bool same_ptr = ptr[0] == ptr[1] && ptr[1] == ptr[2];
    const bool flips = word[1] == (word[0] ^ 0x80000000ull) && word[2] == word[0];
    const bool fixed = word[1] == word[0] && word[2] == word[0];
    printf("workspace barrier word across cooperative launches (%dx%d): 0x%08llx, after a launch of 1 barrier "
           "0x%08llx, after another 0x%08llx; ptr %s => %s\n",
           blocks, threads, word[0], word[1], word[2], same_ptr ? "unchanged" : "CHANGED",
           flips ? "kept across launches" : fixed ? "reset (or replaced) at each launch" : "neither pattern");
    cudaFree(dev);
    cudaFree(counts);
}

// ---------------------------------------------------------------------------

// CUDA's grid.sync() at the two shapes of the placement and phase sweeps.
static void run_cg_grid_sync(int sms) {
    const Variant v = make_variant<CgBarrier>("cg_grid_sync");
    for (const Shape& s : {SHAPES[0], SHAPES[1]}) run_variant(v, s, sms);
}

int main(int argc, char** argv) {
    const char* filter = argc > 1 ? argv[1] : nullptr;

    int dev = 0, drv = 0, rt = 0;
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, dev);
    if (e != cudaSuccess) {
        printf("cudaGetDeviceProperties: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    int coop = 0, cluster = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, dev);
    printf("device=\"%s\" sm_%d%d SMs=%d cooperativeLaunch=%d clusterLaunch=%d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, coop, cluster);
    printf("driver_api_version=%d runtime_version=%d\n", drv, rt);
    if (FILE* f = fopen("/proc/driver/nvidia/version", "r")) {  // the kernel module's version line
        char line[256];
        if (fgets(line, sizeof line, f)) printf("driver: %s", line);
        fclose(f);
    }
    printf("# ns_per_barrier = (median of %d launches of %u barriers - median of %d launches of %u) / %u; "
           "mismatches from a separate checked launch of %u barriers\n",
           RUNS, ITER, RUNS, ITER_SMALL, ITER - ITER_SMALL, CHECK_ITER);
    fflush(stdout);

    const int sms = prop.multiProcessorCount;
    if (filter && std::string(filter) == "placement") {
        // The same barrier (8 counters, 8 lanes polling, atom arrival) with
        // its counters at offsets inside one 64 MiB pool, for spacings of 4,
        // 8 and 64 KiB and 4 KiB + 256 B: does its cost depend on where the
        // counters land, and does some spacing not?
        char* pool = counter_pool("placement");
        if (!pool) return 1;
        // 0 first and again last: the second run of the same place says
        // whether the sweep drifted.
        const size_t offsets[] = {0,        512,       2048,      64 << 10, 256 << 10, 1 << 20,
                                  2 << 20,  (2 << 20) + (64 << 10), 3 << 20, 5 << 20, 17 << 20, 33 << 20, 0};
        const std::vector<u32> sleeps = env_list("SLEEPS", "0");  // e.g. "0,32,100": a sweep per value
        const std::vector<u32> spacings = env_list("SPACINGS", "4096,8192,65536,4352");
        for (u32 sleep : sleeps)
            for (u32 spacing : spacings)
                for (const Shape& s : {SHAPES[0], SHAPES[1]})
                    for (size_t off : offsets) {
                        Variant v = make_variant<SplitBarrier<false>>("split_atom_K8", 8, spacing);
                        v.name += "_s" + std::to_string(spacing) + "_at" + std::to_string(off) + "_sleep" +
                                  std::to_string(sleep);
                        g_counters_at = reinterpret_cast<u64*>(pool + off);
                        g_sleep_ns = sleep;
                        run_variant(v, s, sms);
                    }
        g_sleep_ns = 0;
        g_counters_at = nullptr;
        run_cg_grid_sync(sms);
        return 0;
    }
    if (filter && std::string(filter) == "phase") {
        // The library's phase barrier in each of its modes
        // (PoolPhaseBarrier), beside the split counters of the placement
        // sweep, at the same offsets of one pool; then CUDA's grid.sync().
        char* pool = counter_pool("phase");
        if (!pool) return 1;
        const std::vector<u32> offsets = env_list("OFFSETS", "0,1048576,2097152,3145728,5242880,17825792");
        const std::vector<u32> spacings = env_list("SPACINGS", "4096");
        for (u32 spacing : spacings)
            for (const Shape& s : {SHAPES[0], SHAPES[1]})
                for (u32 off : offsets) {
                    const std::string at = "_s" + std::to_string(spacing) + "_at" + std::to_string(off);
                    std::vector<Variant> vs = {
                        make_variant<SplitBarrier<false>>("split_atom_K8" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, TOKEN>>("phase_K8" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, SPEC>>("phase_K8_spec" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, PREREAD>>("phase_K8_preread" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, CARRIED>>("phase_K8_carried" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, TOKEN, true>>("phase_K8_global" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, VOTE>>("phase_K8_vote" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, VOTE, true>>("phase_K8_vote_global" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, VOTE_ALL>>("phase_K8_vote_all" + at, 8, spacing),
                        make_variant<PoolPhaseBarrier<8, PREREAD, true>>("phase_K8_preread_global" + at, 8, spacing)};
                    if (s.threads == 1024) {
                        vs.push_back(make_variant<PoolPhaseBarrier<1, TOKEN>>("phase_K1" + at, 1, spacing));
                        vs.push_back(make_variant<PoolPhaseBarrier<1, SPEC>>("phase_K1_spec" + at, 1, spacing));
                        vs.push_back(make_variant<PoolPhaseBarrier<1, PREREAD>>("phase_K1_preread" + at, 1, spacing));
                        vs.push_back(make_variant<PoolPhaseBarrier<1, CARRIED>>("phase_K1_carried" + at, 1, spacing));
                        vs.push_back(make_variant<PoolPhaseBarrier<1, TOKEN, true>>("phase_K1_global" + at, 1, spacing));
                        vs.push_back(make_variant<PoolPhaseBarrier<1, VOTE_ALL>>("phase_K1_vote_all" + at, 1, spacing));
                    }
                    g_counters_at = reinterpret_cast<u64*>(pool + off);
                    for (const Variant& v : vs) run_variant(v, s, sms);
                }
        g_counters_at = nullptr;
        run_cg_grid_sync(sms);
        return 0;
    }
    probe_workspace(sms);
    fflush(stdout);

    const std::vector<Variant> variants = all_variants();
    for (const Shape& s : SHAPES)
        for (const Variant& v : variants)
            if (!filter || v.name.find(filter) != std::string::npos) run_variant(v, s, sms);
    return 0;
}
