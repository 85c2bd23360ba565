// Does loading a module again give its spread-counter grid barrier another
// L2 placement, and how many loads does it take to find a fast one?
//
// The spread-counter barrier (docs/NOTES.md, "the spread counters polled
// with a vote") costs about 1.0 us a barrier at 1056 x 256 on an H200 when
// its 8 counters, 8 KiB apart, lie in different L2 slices, and 1.8 us when
// two share one: about one placement in four (grid-barrier-placement-h200-
// 2026-11-27.txt). The library tried to choose where in a module global the
// counters start, with a word the barrier reads: that read costs 0.12 us a
// barrier from L2, and kept in a register or in shared memory it costs
// registers or shared memory. A barrier at a fixed address of its module
// needs no word; if each load of a module places its globals elsewhere in
// physical memory, the host could load a module again when the barrier of
// the first load is slow, and keep the fastest load.
//
// This file is both the kernels (compiled with -DRELOAD_KERNELS to a cubin)
// and the host program (driver API), which loads the cubin MODULES times,
// keeping every load alive so that each gets memory of its own, times the
// barrier of each load at both shapes, checks it, then times every load a
// second time (is a placement stable?). The barrier comes in several
// layouts (spread_k<K>_s<bytes>: K counters <bytes> apart from the start
// of the module's region), each timed on every load; LAYOUTS (a comma-
// separated list of their names) narrows them. fresh_k16_s4096 is
// spread_k16_s4096 on the same counters, computed at every barrier as the
// library computes it; fresh_early_k16_s4096 computes it before the block's
// __syncthreads. Build and run:
//
//   nvcc -O3 -arch=sm_90 -cubin -DRELOAD_KERNELS -o reload.cubin grid_barrier_reload.cu
//   nvcc -O3 -arch=sm_90 -o reload grid_barrier_reload.cu -lcuda
//   ./reload reload.cubin [MODULES]
//   COUNTERS=cg_grid_barrier LAYOUTS=barrier_cost_grid ./reload cg_kernels_sm_90.ptx [MODULES]
//     (the samples' module: see COUNTERS in main)
//
// ns_per_barrier = (median of 5 launches of 10000 barriers - median of 5
// of 1000) / 9000; mismatches from a checked launch of 2000 barriers in
// which every block reads what another block wrote before the barrier.

#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <chrono>
#include <vector>

typedef unsigned int u32;

#ifdef RELOAD_KERNELS
#include <cooperative_groups.h>
namespace cg = cooperative_groups;


// The counters' region, zero when the module loads, never reset: the phase
// is the top byte (the library's protocol). Each layout has a region of its
// own, so that the layouts' phases never meet: 16 counters 16 KiB apart.
constexpr u32 REGION_WORDS = 16 * 16384 / 4;
__device__ __align__(4096) u32 cg_counters[10][REGION_WORDS];

#include "gpu_scope_ops.cuh"

// Block b arrives on counter b % K of region R (the first block of each
// adding 2^24 - (its blocks - 1), the others 1); lanes 0..K-1 of warp 0
// poll one counter each until its top byte leaves the arrival's phase, in
// one loop that ends when __all_sync says every lane is done.
template <u32 R, u32 K, u32 STRIDE_BYTES>
struct SpreadBarrier {
    static constexpr u32 STRIDE = STRIDE_BYTES / 4;
    static_assert(K * STRIDE <= REGION_WORDS, "the layout fits its region");
    u32* mine;
    const u32* polled;
    u32 add;
    __device__ SpreadBarrier() {
        mine = cg_counters[R] + (blockIdx.x % K) * STRIDE;
        polled = cg_counters[R] + (threadIdx.x % K) * STRIDE;
        add = phase_arrival_add(blockIdx.x, gridDim.x, K);
    }
    __device__ __forceinline__ void sync() {
        __syncthreads();
        if (threadIdx.x < 32) {
            u32 old = 0;
            if (threadIdx.x == 0) old = atom_add_release_gpu_u32(mine, add);
            poll_phase_with_vote(ld_acquire_gpu_u32, polled, __shfl_sync(~0u, old, 0) >> 24, K);
        }
        __syncthreads();
    }
};

// A special register read at every barrier (asm volatile: never hoisted
// out of the loop nor shared with another read), as the library reads them.
#define FRESH_SREG(name)                                           \
    [] {                                                           \
        u32 v;                                                     \
        asm volatile("mov.u32 %0, %%" name ";" : "=r"(v));        \
        return v;                                                  \
    }()

// SpreadBarrier<R, K, S> as the library computes it: nothing kept from one
// barrier to the next; the ranks, the grid's size and the counters'
// addresses computed at every barrier, the region's address taken in an
// asm statement with effects (the library's `grid_barrier_counters`).
// EARLY = false computes them after the block's __syncthreads (where the
// first warp needs them), true before it (their latency under the block
// barrier's).
template <u32 R, u32 K, u32 STRIDE_BYTES, bool EARLY>
struct FreshSpreadBarrier {
    static constexpr u32 STRIDE = STRIDE_BYTES / 4;
    struct Values {
        u32* mine;
        const u32* polled;
        u32 add, lanes;
    };
    static __device__ __forceinline__ Values values(u32 rank) {
        u32* base;
        asm volatile("mov.u64 %0, cg_counters;\n\tcvta.global.u64 %0, %0;" : "=l"(base));
        base += R * REGION_WORDS;
        const u32 n = FRESH_SREG("nctaid.x"), b = FRESH_SREG("ctaid.x");
        return {base + (b % K) * STRIDE, base + (rank % K) * STRIDE, phase_arrival_add(b, n, K), K < n ? K : n};
    }
    __device__ __forceinline__ void sync() {
        const u32 rank = FRESH_SREG("tid.x");
        Values v = {};
        if (EARLY && rank < 32) v = values(rank);
        __syncthreads();
        if (rank < 32) {
            if (!EARLY) v = values(rank);
            u32 old = 0;
            if (rank == 0) old = atom_add_release_gpu_u32(v.mine, v.add);
            poll_phase_with_vote(ld_acquire_gpu_u32, v.polled, __shfl_sync(~0u, old, 0) >> 24, v.lanes);
        }
        __syncthreads();
    }
};

struct CudaBarrier {
    cg::grid_group g;
    __device__ CudaBarrier() : g(cg::this_grid()) {}
    __device__ __forceinline__ void sync() { g.sync(); }
};

// `iters` barriers; with `data`, block b writes the barrier's number to its
// slot before it and reads the slot of another block after it.
template <class Barrier>
__device__ void barriers(u32 iters, u32* data, u32* mismatches) {
    Barrier bar;
    const u32 n = gridDim.x, b = blockIdx.x;
    for (u32 e = 0; e < iters; ++e) {
        if (data && threadIdx.x == 0) data[(e & 1) * n + b] = e;
        bar.sync();
        if (data && threadIdx.x == blockDim.x - 1 && data[(e & 1) * n + (b + 1 + e) % n] != e)
            atomicAdd(mismatches, 1u);
    }
}

// __launch_bounds__(1024, 2): at most 32 registers, 2048 threads an SM.
#define LAYOUT(R, K, S)                                                                                   \
    extern "C" __global__ void __launch_bounds__(1024, 2) spread_k##K##_s##S(u32 iters, u32* data,      \
                                                                             u32* mismatches) {        \
        barriers<SpreadBarrier<R, K, S>>(iters, data, mismatches);                                       \
    }
LAYOUT(0, 8, 8192)
LAYOUT(1, 8, 4096)
LAYOUT(2, 8, 16384)
LAYOUT(3, 16, 4096)
LAYOUT(4, 16, 8192)
// Spacings that are not powers of two, and 32 counters: layouts that might
// depend less on where the region lands.
LAYOUT(5, 16, 3072)
LAYOUT(6, 16, 4224)
LAYOUT(7, 16, 5120)
LAYOUT(8, 32, 4096)
LAYOUT(9, 32, 2048)
// The layout of spread_k16_s4096, on the same counters, computed as the
// library computes it.
extern "C" __global__ void __launch_bounds__(1024, 2) fresh_k16_s4096(u32 iters, u32* data, u32* mismatches) {
    barriers<FreshSpreadBarrier<3, 16, 4096, false>>(iters, data, mismatches);
}
// The same, computed before the block's __syncthreads.
extern "C" __global__ void __launch_bounds__(1024, 2) fresh_early_k16_s4096(u32 iters, u32* data,
                                                                            u32* mismatches) {
    barriers<FreshSpreadBarrier<3, 16, 4096, true>>(iters, data, mismatches);
}
extern "C" __global__ void __launch_bounds__(1024, 2) cuda_grid_sync(u32 iters, u32* data, u32* mismatches) {
    barriers<CudaBarrier>(iters, data, mismatches);
}

#else  // the host program

#define CHECK(call)                                                                  \
    do {                                                                             \
        CUresult r_ = (call);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                    \
            const char* s_ = nullptr;                                                \
            cuGetErrorString(r_, &s_);                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);       \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

struct Shape {
    u32 blocks, threads;
};

// One cooperative launch of `f`: `iters` barriers (checked when data is set).
static void launch(CUfunction f, Shape s, u32 iters, CUdeviceptr data, CUdeviceptr mismatches) {
    void* params[] = {&iters, &data, &mismatches};
    CHECK(cuLaunchCooperativeKernel(f, s.blocks, 1, 1, s.threads, 1, 1, 0, 0, params));
}

// Median time of 5 launches of `iters` barriers, in ms.
static float median_ms(CUfunction f, Shape s, u32 iters, CUevent e0, CUevent e1) {
    std::vector<float> t;
    for (int r = 0; r < 5; ++r) {
        CHECK(cuEventRecord(e0, 0));
        launch(f, s, iters, 0, 0);
        CHECK(cuEventRecord(e1, 0));
        CHECK(cuEventSynchronize(e1));
        float ms = 0;
        CHECK(cuEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[2];
}

static double ns_per_barrier(CUfunction f, Shape s, CUevent e0, CUevent e1) {
    launch(f, s, 1000, 0, 0);  // warm-up
    const float few = median_ms(f, s, 1000, e0, e1), many = median_ms(f, s, 10000, e0, e1);
    return (many - few) * 1e6 / 9000.0;
}

// Mismatches of a checked launch of 2000 barriers.
static u32 mismatches(CUfunction f, Shape s, CUdeviceptr data, CUdeviceptr count) {
    CHECK(cuMemsetD32(data, ~0u, 2 * s.blocks));
    CHECK(cuMemsetD32(count, 0, 1));
    launch(f, s, 2000, data, count);
    CHECK(cuCtxSynchronize());
    u32 n = 0;
    CHECK(cuMemcpyDtoH(&n, count, sizeof n));
    return n;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s reload.cubin [MODULES]\n", argv[0]);
        return 2;
    }
    const int modules = argc > 2 ? atoi(argv[2]) : 8;
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    int driver = 0;
    CHECK(cuDriverGetVersion(&driver));
    printf("device=\"%s\" driver_api_version=%d modules=%d\n", name, driver, modules);
    printf("# ns_per_barrier = (median of 5 launches of 10000 barriers - median of 5 of 1000) / 9000\n");
    const Shape shapes[] = {{1056, 256}, {132, 1024}};
    CUdeviceptr data, count;
    CHECK(cuMemAlloc(&data, 2 * 1056 * sizeof(u32)));
    CHECK(cuMemAlloc(&count, sizeof(u32)));
    CUevent e0, e1;
    CHECK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    std::vector<std::string> layouts;
    for (const char* q = getenv("LAYOUTS") ? getenv("LAYOUTS") : "spread_k8_s8192"; *q;) {
        const char* end = strchr(q, ',');
        layouts.emplace_back(q, end ? end - q : strlen(q));
        q = end ? end + 1 : q + strlen(q);
    }
    // COUNTERS names the module's counter global, for another module than
    // this probe's: the samples' PTX (`cg_grid_barrier`), whose kernel
    // `barrier_cost_grid(iters, out: Output<u32>)` takes the same three
    // words (its `out` empty in the timed launches). There the checked
    // launch and CUDA's reference are left out.
    const char* counters_symbol = getenv("COUNTERS") ? getenv("COUNTERS") : "cg_counters";
    const bool reference = !getenv("COUNTERS");
    std::vector<CUmodule> mods(modules);
    std::vector<std::vector<CUfunction>> spreads(modules, std::vector<CUfunction>(layouts.size()));
    CUfunction cuda_sync = nullptr;
    for (int m = 0; m < modules; ++m) {
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(cuModuleLoad(&mods[m], argv[1]));
        const auto t1 = std::chrono::steady_clock::now();
        for (size_t l = 0; l < layouts.size(); ++l) CHECK(cuModuleGetFunction(&spreads[m][l], mods[m], layouts[l].c_str()));
        if (m == 0 && reference) CHECK(cuModuleGetFunction(&cuda_sync, mods[m], "cuda_grid_sync"));
        CUdeviceptr counters;
        size_t bytes;
        CHECK(cuModuleGetGlobal(&counters, &bytes, mods[m], counters_symbol));
        printf("module=%d counters=0x%llx load_ms=%.2f\n", m, (unsigned long long)counters,
               std::chrono::duration<double, std::milli>(t1 - t0).count());
        for (size_t l = 0; l < layouts.size(); ++l)
            for (const Shape& s : shapes) {
                const auto t2 = std::chrono::steady_clock::now();
                const double ns = ns_per_barrier(spreads[m][l], s, e0, e1);
                const auto t3 = std::chrono::steady_clock::now();
                printf("module=%d layout=%s shape=%ux%u ns_per_barrier=%.1f time_ms=%.1f mismatches=%s\n", m,
                       layouts[l].c_str(), s.blocks, s.threads, ns,
                       std::chrono::duration<double, std::milli>(t3 - t2).count(),
                       reference ? std::to_string(mismatches(spreads[m][l], s, data, count)).c_str() : "-");
            }
        fflush(stdout);
    }
    for (const Shape& s : shapes)
        if (reference)
            printf("cuda_grid_sync shape=%ux%u ns_per_barrier=%.1f mismatches=%u\n", s.blocks, s.threads,
                   ns_per_barrier(cuda_sync, s, e0, e1), mismatches(cuda_sync, s, data, count));
    printf("# again, every load in turn (a placement's cost over time)\n");
    for (int m = 0; m < modules; ++m)
        for (size_t l = 0; l < layouts.size(); ++l)
            printf("module=%d layout=%s again shape=1056x256 ns_per_barrier=%.1f\n", m, layouts[l].c_str(),
                   ns_per_barrier(spreads[m][l], shapes[0], e0, e1));
    for (CUmodule mod : mods) CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
#endif
