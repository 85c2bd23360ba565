// How fast can a block reduction produce one float sum per 256 consecutive
// input elements on sm_90 (H200), as a function of how many 256-element
// chunks each block of 256 threads handles?
//
// The benchmark kernels (cg-samples/cuda/kernels.cu, block_reduce_*; their
// Rust twins in cg-sample-kernels/src/block_reduce.rs) give each block of 256
// threads one chunk, one element per thread: 2^28 floats -> 2^20 blocks. On an
// H200 they take ~1280 us (classic shared tree) and ~912 us (warp tiles,
// hierarchical 4/32) against ~240 us for a bandwidth-bound read of the 1 GiB:
// each thread has a single 4-byte load in flight and then waits on barriers
// and shuffles, so the memory system is latency bound. Here each block takes
// CHUNKS consecutive chunks: every thread first loads all CHUNKS of its
// elements (all loads in flight together), then the block reduces the CHUNKS
// values at once, so the fixed costs (barriers, shuffle chains, block launch)
// are shared by CHUNKS sums.
//
//   classic<K>       shared tree sdata[K][256]: steps s = 128 .. 1, each
//                    `if (t < s) for k: sdata[k][t] += sdata[k][t + s]` and a
//                    __syncthreads (9 barriers whatever K is); threads t < K
//                    write chunk t's sum.
//   warp_tiles<K>    each warp reduces its K values with
//                    thread_block_tile<32>::shfl_down 16 .. 1 (K independent
//                    chains, interleaved); lane 0 stores totals[k][warp]; one
//                    barrier; warp 0 adds each chunk's 8 warp totals with a
//                    shfl_xor butterfly (4, 2, 1; lane l reads warp total
//                    l % 8, so every lane ends with every chunk's sum) and
//                    lane k < K writes chunk k's sum.
//   hierarchical<K>  as warp_tiles, but the first two steps are within 4-lane
//                    segments (__shfl_down_sync by 2 and 1 with width 4 on the
//                    full warp: what a converged warp of thread_block_tile<4>
//                    computes), then full-warp shfl_down 16, 8, 4.
//   block_reduce_{classic,warp,hierarchical}
//                    the one-chunk kernels copied verbatim from kernels.cu
//                    (reference rows, chunks=1; they should match K = 1).
//
// Block b handles chunks b*K .. b*K + K - 1; thread t's elements are
// in[(b*K + k)*256 + t] (0 past n). A chunk past the last one (ceil(n/256)
// chunks) is not written: sums has exactly ceil(n/256) elements.
//
// Timing: inputs of 2^24 and 2^28 floats, uniform in [-1, 1) (the 2^24 input is
// the first 2^24 elements of the 2^28 one). Each measurement: wait for the GPU
// to be idle; read a separate 256 MiB buffer (flush_l2) so no input line is
// left in the L2 (50-60 MB); enqueue a ~20 us one-block clock64 spin; record
// the start event; launch the timed kernel; record the stop event. The start
// event is enqueued while the spin runs, and the kernel right after it, so the
// host's launch latency is hidden behind the spin and only the kernel is
// between the events. 5 warm-up measurements (discarded), then 30 timed:
//   us      median of the 30 (mean of the 15th and 16th smallest)
//   spread  (p90 - p10) / median, p10 and p90 the 4th and 27th smallest
//   GBps    4n bytes / us, in 10^9 bytes per second (input bytes read)
// A device-to-device cudaMemcpyAsync of the same input (n floats) is timed the
// same way (row kernel=memcpy_d2d chunks=0) as a bandwidth ceiling; its GBps
// counts the 4n bytes read like the kernels' rows, so the bytes moved (read +
// written) are twice that (printed on a '#' line after it).
//
// Verification: before each variant's runs the sums buffer (2^20 floats plus
// GUARD floats past the end) is filled with 0xff bytes (a NaN); after the last
// timed run, every chunk's sum must be within 1e-4 * (sum of |x| over the
// chunk) of a float64 CPU sum, and the GUARD words after the last chunk must
// be untouched. mismatches = bad sums + overwritten guard words (must be 0);
// the first few are printed on '#' lines. The memcpy row's mismatches are the
// copied floats that differ bitwise from the source. A separate untimed check
// (lines 'tail_check ...') runs every kernel once at n = 1000003 (not a
// multiple of 256, and 3907 chunks: not a multiple of 2, 4 or 8) to show the
// partial last chunk is summed right and no block writes past ceil(n/256).
//
// Build and run (H200, sm_90):
//   nvcc -O3 -arch=sm_90 -std=c++17 -o brc docs/probes/block_reduce_chunks.cu
//   ./brc
//
// Output: 'device=<name> ...' first, then one line per variant and size
//   kernel=<name> chunks=<K> n=2^<e> us=<median> spread=<x%> GBps=<4n/us> mismatches=<m>
// plus the tail_check lines and '#' comment lines.
#include <cooperative_groups.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),       \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                        \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

constexpr int THREADS = 256;              // threads per block = elements per chunk
constexpr int WARPS = THREADS / 32;       // 8
constexpr int GUARD = 256;                // floats past the sums checked untouched
constexpr int WARMUP = 5, RUNS = 30;
constexpr u64 N_MAX = 1ull << 28;
constexpr u64 FLUSH_BYTES = 256ull << 20;
constexpr double SPIN_US = 20.0;
constexpr u64 N_TAIL = 1000003;           // untimed tail check

// ---- reference: the one-chunk kernels, verbatim from cg-samples/cuda/kernels.cu

__device__ __forceinline__ float warp_sum(cg::thread_block_tile<32> warp, float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += warp.shfl_down(v, offset);
    return v;
}

__device__ __forceinline__ float sum_warp_totals(cg::thread_block block, cg::thread_block_tile<32> warp, float v) {
    __shared__ float partials[32];
    if (warp.thread_rank() == 0) partials[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? partials[warp.thread_rank()] : 0.0f;
        v = warp_sum(warp, v);
    }
    return v;
}

__device__ __forceinline__ float block_sum(cg::thread_block block, float v) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    return sum_warp_totals(block, warp, warp_sum(warp, v));
}

__device__ __forceinline__ float block_element(cg::thread_block block, const float* input, u64 n) {
    u64 i = (u64)block.group_index().x * block.num_threads() + block.thread_rank();
    return i < n ? input[i] : 0.0f;
}

__device__ __forceinline__ void write_block_result(cg::thread_block block, float* out, float s) {
    if (block.thread_rank() == 0) out[block.group_index().x] = s;
}

extern "C" __global__ void block_reduce_warp(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    write_block_result(block, block_sums, block_sum(block, block_element(block, input, n)));
}

extern "C" __global__ void block_reduce_classic(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sdata[1024];
    unsigned tid = block.thread_rank();
    sdata[tid] = block_element(block, input, n);
    block.sync();
    for (unsigned s = block.num_threads() / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        block.sync();
    }
    write_block_result(block, block_sums, sdata[0]);
}

extern "C" __global__ void block_reduce_hierarchical(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = block_element(block, input, n);
    v += __shfl_down_sync(0xffffffffu, v, 2, 4);
    v += __shfl_down_sync(0xffffffffu, v, 1, 4);
    v += warp.shfl_down(v, 16);
    v += warp.shfl_down(v, 8);
    v += warp.shfl_down(v, 4);
    write_block_result(block, block_sums, sum_warp_totals(block, warp, v));
}

// ---- the CHUNKS-per-block kernels (blocks of exactly THREADS threads) ------

__host__ __device__ __forceinline__ u64 chunk_count(u64 n) { return (n + THREADS - 1) / THREADS; }

// Thread t's CHUNKS elements, in[(b*CHUNKS + k)*256 + t] or 0 past n. The loop
// is unrolled and nothing between the loads depends on them, so all CHUNKS
// loads are issued before the first is used.
template <int CHUNKS>
__device__ __forceinline__ void load_chunks(const float* in, u64 n, float (&v)[CHUNKS]) {
    const u64 first = ((u64)blockIdx.x * CHUNKS) * THREADS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const u64 i = first + (u64)k * THREADS;
        v[k] = i < n ? in[i] : 0.0f;
    }
}

template <int CHUNKS>
__global__ void __launch_bounds__(THREADS) classic(const float* in, u64 n, float* sums) {
    __shared__ float sdata[CHUNKS][THREADS];
    const unsigned t = threadIdx.x;
    float v[CHUNKS];
    load_chunks<CHUNKS>(in, n, v);
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) sdata[k][t] = v[k];
    __syncthreads();
    // One barrier per step for all chunks: 1 + 8 barriers, as in the reference.
#pragma unroll
    for (unsigned s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k) sdata[k][t] += sdata[k][t + s];
        }
        __syncthreads();
    }
    const u64 c = (u64)blockIdx.x * CHUNKS + t;
    if (t < CHUNKS && c < chunk_count(n)) sums[c] = sdata[t][0];
}

// Cross-warp step shared by warp_tiles and hierarchical: v[k] is valid in lane
// 0 of each warp (the warp's total of chunk k). Lane 0 stores it, one barrier,
// then warp 0 adds the 8 warp totals of every chunk: lane l reads warp
// (l % 8)'s totals (a broadcast read, no bank conflicts), and the butterfly
// over xor 4, 2, 1 stays inside aligned groups of 8 lanes, so afterwards every
// lane holds every chunk's sum. Lane k < CHUNKS writes chunk k's sum (picked
// with a select chain: no dynamic indexing of the register array).
template <int CHUNKS>
__device__ __forceinline__ void finish_chunks(cg::thread_block block, cg::thread_block_tile<32> warp,
                                              float (&v)[CHUNKS], u64 n, float* sums) {
    static_assert(CHUNKS <= 32, "one writing lane per chunk");
    __shared__ float totals[CHUNKS][WARPS];
    const unsigned w = warp.meta_group_rank(), lane = warp.thread_rank();
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) totals[k][w] = v[k];
    }
    block.sync();
    if (w == 0) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) v[k] = totals[k][lane % WARPS];
#pragma unroll
        for (int mask = WARPS / 2; mask > 0; mask >>= 1) {
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k) v[k] += warp.shfl_xor(v[k], mask);
        }
        float mine = v[0];
#pragma unroll
        for (int k = 1; k < CHUNKS; ++k) mine = lane == (unsigned)k ? v[k] : mine;
        const u64 c = (u64)blockIdx.x * CHUNKS + lane;
        if (lane < CHUNKS && c < chunk_count(n)) sums[c] = mine;
    }
}

template <int CHUNKS>
__global__ void __launch_bounds__(THREADS) warp_tiles(const float* in, u64 n, float* sums) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v[CHUNKS];
    load_chunks<CHUNKS>(in, n, v);
    // CHUNKS independent shuffle chains, interleaved step by step.
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) v[k] += warp.shfl_down(v[k], offset);
    }
    finish_chunks<CHUNKS>(block, warp, v, n, sums);
}

template <int CHUNKS>
__global__ void __launch_bounds__(THREADS) hierarchical(const float* in, u64 n, float* sums) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v[CHUNKS];
    load_chunks<CHUNKS>(in, n, v);
    // 4-lane segments: full-warp shuffles of width 4 (lane 4j ends with the
    // sum of lanes 4j .. 4j+3) ...
#pragma unroll
    for (int offset = 2; offset > 0; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) v[k] += __shfl_down_sync(0xffffffffu, v[k], offset, 4);
    }
    // ... then the 8 segment leaders of the warp (lanes 0, 4, .., 28).
#pragma unroll
    for (int offset = 16; offset >= 4; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) v[k] += warp.shfl_down(v[k], offset);
    }
    finish_chunks<CHUNKS>(block, warp, v, n, sums);
}

// ---- timing helpers ----------------------------------------------------------

// Reads the whole buffer (n4 float4s). The store never happens (the buffer is
// zero) but depends on every load, so none can be removed.
__global__ void flush_l2(const float4* buf, u64 n4, float* sink) {
    float acc = 0.0f;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
        const float4 x = buf[i];
        acc += (x.x + x.y) + (x.z + x.w);
    }
    if (acc == 1234.5f) *sink = acc;
}

// One thread busy-waits `cycles` SM clocks.
__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// Counts the floats of b that differ bitwise from a.
__global__ void count_diff(const unsigned* a, const unsigned* b, u64 n, u64* count) {
    u64 local = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        local += a[i] != b[i];
    if (local) atomicAdd(count, local);
}

typedef void (*ChunkKernel)(const float*, u64, float*);
typedef void (*RefKernel)(const float*, u64, float*, u64);

struct Variant {
    const char* name;
    int chunks;
    ChunkKernel chunked;  // one of these two is set
    RefKernel ref;
};

struct Gpu {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int sms;
    long long spin_cycles;
    float4* flush_buf;
    float* sink;
};

static void launch_variant(const Variant& v, const Gpu& g, const float* in, u64 n, float* sums) {
    const u64 blocks = (chunk_count(n) + v.chunks - 1) / v.chunks;
    if (blocks == 0 || blocks > 0x7fffffffull) {
        fprintf(stderr, "bad grid of %llu blocks\n", blocks);
        exit(1);
    }
    if (v.ref)
        v.ref<<<(unsigned)blocks, THREADS, 0, g.stream>>>(in, n, sums, chunk_count(n));
    else
        v.chunked<<<(unsigned)blocks, THREADS, 0, g.stream>>>(in, n, sums);
    CK(cudaGetLastError());
}

// One measurement in microseconds of what `op` enqueues on g.stream.
template <class Op>
static float measure_once(const Gpu& g, Op op) {
    CK(cudaStreamSynchronize(g.stream));
    flush_l2<<<g.sms * 8, 256, 0, g.stream>>>(g.flush_buf, FLUSH_BYTES / sizeof(float4), g.sink);
    CK(cudaGetLastError());
    spin<<<1, 1, 0, g.stream>>>(g.spin_cycles);
    CK(cudaGetLastError());
    CK(cudaEventRecord(g.start, g.stream));
    op();
    CK(cudaEventRecord(g.stop, g.stream));
    CK(cudaEventSynchronize(g.stop));
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, g.start, g.stop));
    return ms * 1000.0f;
}

struct Stats {
    double median, spread;
};

template <class Op>
static Stats measure(const Gpu& g, Op op) {
    for (int i = 0; i < WARMUP; ++i) measure_once(g, op);
    std::vector<float> us(RUNS);
    for (int i = 0; i < RUNS; ++i) us[i] = measure_once(g, op);
    std::sort(us.begin(), us.end());
    const double median = 0.5 * (us[RUNS / 2 - 1] + us[RUNS / 2]);
    const double p10 = us[(int)std::lround(0.1 * (RUNS - 1))];  // 4th smallest of 30
    const double p90 = us[(int)std::lround(0.9 * (RUNS - 1))];  // 27th smallest of 30
    return {median, (p90 - p10) / median};
}

// ---- host reference and checks ------------------------------------------------

// float64 sum and sum of |x| of each 256-element chunk of x[0 .. n).
static void cpu_sums(const std::vector<float>& x, u64 n, std::vector<double>& sum, std::vector<double>& abs_sum) {
    const u64 chunks = chunk_count(n);
    sum.assign(chunks, 0.0);
    abs_sum.assign(chunks, 0.0);
    for (u64 c = 0; c < chunks; ++c) {
        double s = 0.0, a = 0.0;
        for (u64 i = c * THREADS; i < std::min(n, (c + 1) * THREADS); ++i) {
            s += x[i];
            a += std::fabs((double)x[i]);
        }
        sum[c] = s;
        abs_sum[c] = a;
    }
}

// Bad sums among the first `chunks` (against the references) plus overwritten
// guard words after them; the first few are printed.
static u64 check_sums(const char* what, float* d_sums, u64 chunks, const std::vector<double>& ref,
                      const std::vector<double>& ref_abs) {
    std::vector<float> got(chunks + GUARD);
    CK(cudaMemcpy(got.data(), d_sums, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    u64 bad = 0;
    for (u64 c = 0; c < chunks; ++c) {
        const double err = std::fabs((double)got[c] - ref[c]);
        if (!(err <= 1e-4 * ref_abs[c])) {  // NaN (never written) fails too
            if (bad < 5) printf("# MISMATCH %s chunk %llu: got %.9g want %.9g (tol %.3g)\n", what, c, got[c], ref[c], 1e-4 * ref_abs[c]);
            ++bad;
        }
    }
    for (u64 c = chunks; c < chunks + GUARD; ++c) {
        unsigned bits;
        memcpy(&bits, &got[c], sizeof bits);
        if (bits != 0xffffffffu) {
            if (bad < 5) printf("# GUARD OVERWRITTEN %s: word %llu past the last chunk = %.9g\n", what, c - chunks, got[c]);
            ++bad;
        }
    }
    return bad;
}

static int log2_exact(u64 n) {
    int e = 0;
    while ((1ull << e) < n) ++e;
    return e;
}

int main() {
    int dev = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    Gpu g;
    int clock_khz = 0, l2_bytes = 0;
    CK(cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev));
    g.spin_cycles = (long long)(SPIN_US * 1e-6 * clock_khz * 1e3);
    printf("device=\"%s\" sm=%d.%d sms=%d l2_MB=%.1f clock_MHz=%d\n", prop.name, prop.major, prop.minor, g.sms,
           l2_bytes / 1e6, clock_khz / 1000);

    // Input: 2^28 floats uniform in [-1, 1) (24-bit mantissas from splitmix64),
    // and the float64 reference sums of its 2^20 chunks.
    std::vector<float> h_in(N_MAX);
    u64 state = 0x9e3779b97f4a7c15ull;
    for (u64 i = 0; i < N_MAX; ++i) {
        u64 z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        h_in[i] = (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
    std::vector<double> ref, ref_abs, tail_ref, tail_abs;
    cpu_sums(h_in, N_MAX, ref, ref_abs);
    cpu_sums(h_in, N_TAIL, tail_ref, tail_abs);

    float *d_in, *d_copy, *d_sums;
    u64* d_count;
    CK(cudaMalloc(&d_in, N_MAX * sizeof(float)));
    CK(cudaMalloc(&d_copy, N_MAX * sizeof(float)));
    CK(cudaMalloc(&d_sums, (chunk_count(N_MAX) + GUARD) * sizeof(float)));
    CK(cudaMalloc(&d_count, sizeof(u64)));
    CK(cudaMalloc(&g.flush_buf, FLUSH_BYTES));
    CK(cudaMalloc(&g.sink, sizeof(float)));
    CK(cudaMemset(g.flush_buf, 0, FLUSH_BYTES));
    CK(cudaMemcpy(d_in, h_in.data(), N_MAX * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g.start));
    CK(cudaEventCreate(&g.stop));

    // How long the spin really takes (it must outlast the host's enqueueing of
    // the start event and the timed launch).
    {
        std::vector<float> us(5);
        for (float& u : us) {
            CK(cudaEventRecord(g.start, g.stream));
            spin<<<1, 1, 0, g.stream>>>(g.spin_cycles);
            CK(cudaGetLastError());
            CK(cudaEventRecord(g.stop, g.stream));
            CK(cudaEventSynchronize(g.stop));
            float ms;
            CK(cudaEventElapsedTime(&ms, g.start, g.stop));
            u = ms * 1000.0f;
        }
        std::sort(us.begin(), us.end());
        printf("# spin: %lld cycles, median %.1f us; flush: %llu MiB; %d warm-ups, %d timed runs\n", g.spin_cycles,
               us[2], FLUSH_BYTES >> 20, WARMUP, RUNS);
    }

    const Variant variants[] = {
        {"block_reduce_classic", 1, nullptr, block_reduce_classic},
        {"classic", 1, classic<1>, nullptr},
        {"classic", 2, classic<2>, nullptr},
        {"classic", 4, classic<4>, nullptr},
        {"classic", 8, classic<8>, nullptr},
        {"block_reduce_warp", 1, nullptr, block_reduce_warp},
        {"warp_tiles", 1, warp_tiles<1>, nullptr},
        {"warp_tiles", 2, warp_tiles<2>, nullptr},
        {"warp_tiles", 4, warp_tiles<4>, nullptr},
        {"warp_tiles", 8, warp_tiles<8>, nullptr},
        {"block_reduce_hierarchical", 1, nullptr, block_reduce_hierarchical},
        {"hierarchical", 1, hierarchical<1>, nullptr},
        {"hierarchical", 2, hierarchical<2>, nullptr},
        {"hierarchical", 4, hierarchical<4>, nullptr},
        {"hierarchical", 8, hierarchical<8>, nullptr},
    };
    const u64 sums_bytes = (chunk_count(N_MAX) + GUARD) * sizeof(float);

    u64 total_bad = 0;

    // Tail check: n not a multiple of 256, chunk count not a multiple of K.
    for (const Variant& v : variants) {
        CK(cudaMemset(d_sums, 0xff, sums_bytes));
        launch_variant(v, g, d_in, N_TAIL, d_sums);
        CK(cudaStreamSynchronize(g.stream));
        char what[96];
        snprintf(what, sizeof what, "tail %s<%d>", v.name, v.chunks);
        const u64 bad = check_sums(what, d_sums, chunk_count(N_TAIL), tail_ref, tail_abs);
        total_bad += bad;
        printf("tail_check kernel=%s chunks=%d n=%llu mismatches=%llu\n", v.name, v.chunks, N_TAIL, bad);
    }

    for (const u64 n : {1ull << 24, 1ull << 28}) {
        const int e = log2_exact(n);
        for (const Variant& v : variants) {
            CK(cudaMemset(d_sums, 0xff, sums_bytes));
            const Stats st = measure(g, [&] { launch_variant(v, g, d_in, n, d_sums); });
            CK(cudaStreamSynchronize(g.stream));
            char what[96];
            snprintf(what, sizeof what, "%s<%d> n=2^%d", v.name, v.chunks, e);
            const u64 bad = check_sums(what, d_sums, chunk_count(n), ref, ref_abs);
            total_bad += bad;
            printf("kernel=%s chunks=%d n=2^%d us=%.1f spread=%.1f%% GBps=%.0f mismatches=%llu\n", v.name, v.chunks,
                   e, st.median, 100.0 * st.spread, 4.0 * n / (st.median * 1e3), bad);
            fflush(stdout);
        }
        // Bandwidth ceiling: device-to-device copy of the same n floats.
        CK(cudaMemset(d_copy, 0, n * sizeof(float)));
        const Stats st = measure(g, [&] {
            CK(cudaMemcpyAsync(d_copy, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, g.stream));
        });
        CK(cudaMemsetAsync(d_count, 0, sizeof(u64), g.stream));
        count_diff<<<g.sms * 8, 256, 0, g.stream>>>((const unsigned*)d_in, (const unsigned*)d_copy, n, d_count);
        CK(cudaGetLastError());
        u64 bad = 0;
        CK(cudaMemcpyAsync(&bad, d_count, sizeof(u64), cudaMemcpyDeviceToHost, g.stream));
        CK(cudaStreamSynchronize(g.stream));
        total_bad += bad;
        printf("kernel=memcpy_d2d chunks=0 n=2^%d us=%.1f spread=%.1f%% GBps=%.0f mismatches=%llu\n", e, st.median,
               100.0 * st.spread, 4.0 * n / (st.median * 1e3), bad);
        printf("# memcpy_d2d n=2^%d moves %.0f GB/s (read + write)\n", e, 8.0 * n / (st.median * 1e3));
        fflush(stdout);
    }
    printf("# total mismatches %llu\n", total_bad);

    CK(cudaEventDestroy(g.start));
    CK(cudaEventDestroy(g.stop));
    CK(cudaStreamDestroy(g.stream));
    CK(cudaFree(d_in));
    CK(cudaFree(d_copy));
    CK(cudaFree(d_sums));
    CK(cudaFree(d_count));
    CK(cudaFree(g.flush_buf));
    CK(cudaFree(g.sink));
    return total_bad == 0 ? 0 : 1;
}
