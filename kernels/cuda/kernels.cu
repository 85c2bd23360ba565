// CUDA C++ twins of the Rust kernels in kernels/src, for the side-by-side
// benchmarks. Same algorithms, same PTX parameter lists (a Rust `&[T]` is a
// pointer and a 64-bit length), so the Rust host launches both through the
// same typed handles. Built by gpu-run's twins step: nvcc -O3 -arch=<the GPU's> -ptx.
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/atomic>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

// ---- block_reduce.rs -------------------------------------------------------

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

// The library's block reduction: CUB's BlockReduce (warp reductions, the
// default algorithm), for the 256-thread blocks the benchmark launches.
extern "C" __global__ void block_reduce_library(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    using BlockReduce = cub::BlockReduce<float, 256>;
    __shared__ typename BlockReduce::TempStorage temp;
    cg::thread_block block = cg::this_thread_block();
    float sum = BlockReduce(temp).Sum(block_element(block, input, n));
    write_block_result(block, block_sums, sum);
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

// The strongest CUDA form of the 4-lane step: a full-warp shuffle with a
// 4-lane width (cg::thread_block_tile<4>::shfl_down issues one shuffle per
// tile mask, eight per warp).
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

// The three kernels above for blocks of exactly FIXED_THREADS threads, as
// CUDA C++ writes a block size known at compile time: a compile-time constant
// in place of blockDim (the tree's steps unrolled, the warps' count a
// constant), one-dimensional thread indices, __launch_bounds__ for ptxas;
// and with the shortest last steps that add in the seed's order (the same
// sums, bit for bit): thread 0 adds the eight warp totals (two 16-byte
// shared loads) where the seed's first warp shuffles them, and the classic
// tree's first warp adds its last 64 values in registers where the seed's
// takes six more block barriers. The twins of the Rust kernels declared
// #[kernel(block_size(256))].
#define FIXED_THREADS 256

__device__ __forceinline__ float fixed_block_element(const float* input, u64 n) {
    u64 i = (u64)blockIdx.x * FIXED_THREADS + threadIdx.x;
    return i < n ? input[i] : 0.0f;
}

// Valid in thread 0: the eight warp totals added pairwise in the order of
// warp_sum's shuffles over them (4 apart, then 2, then 1); + 0.0f as the
// shuffles' zero lanes past the eighth (a -0.0 sum comes out +0.0).
__device__ __forceinline__ float fixed_first_thread_sums_warp_totals(cg::thread_block block, float v) {
    static_assert(FIXED_THREADS / 32 == 8, "two float4 loads of warp totals");
    __shared__ __align__(16) float partials[FIXED_THREADS / 32];
    if (threadIdx.x % 32 == 0) partials[threadIdx.x / 32] = v;
    block.sync();
    if (threadIdx.x == 0) {
        float4 a = reinterpret_cast<const float4*>(partials)[0];
        float4 b = reinterpret_cast<const float4*>(partials)[1];
        v = (((a.x + b.x) + (a.z + b.z)) + ((a.y + b.y) + (a.w + b.w))) + 0.0f;
    }
    return v;
}

__device__ __forceinline__ void fixed_write_block_result(float* out, float s) {
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_warp_256(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = warp_sum(warp, fixed_block_element(input, n));
    fixed_write_block_result(block_sums, fixed_first_thread_sums_warp_totals(block, v));
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_classic_256(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sdata[FIXED_THREADS];
    unsigned tid = threadIdx.x;
    sdata[tid] = fixed_block_element(input, n);
    block.sync();
#pragma unroll
    for (unsigned s = FIXED_THREADS / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        block.sync();
    }
    if (tid < 32) {
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
        fixed_write_block_result(block_sums, warp_sum(warp, sdata[tid] + sdata[tid + 32]));
    }
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_hierarchical_256(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = fixed_block_element(input, n);
    v += __shfl_down_sync(0xffffffffu, v, 2, 4);
    v += __shfl_down_sync(0xffffffffu, v, 1, 4);
    v += warp.shfl_down(v, 16);
    v += warp.shfl_down(v, 8);
    v += warp.shfl_down(v, 4);
    fixed_write_block_result(block_sums, fixed_first_thread_sums_warp_totals(block, v));
}

// The same sums, CHUNKS chunks of FIXED_THREADS elements per block: each
// thread loads its element of every chunk first, the block reduces them
// together (chunk k's values FIXED_THREADS or 32 floats apart in shared
// memory: no bank conflicts). Blocks of exactly FIXED_THREADS threads, as
// the Rust kernels' block_size(256).
#define CHUNKS 8

struct ChunkValues { float v[CHUNKS]; };

__device__ __forceinline__ ChunkValues chunk_elements(const float* input, u64 n) {
    u64 first = (u64)blockIdx.x * CHUNKS * FIXED_THREADS + threadIdx.x;
    ChunkValues c;
#pragma unroll
    for (int k = 0; k < CHUNKS; k++) {
        u64 i = first + k * FIXED_THREADS;
        c.v[k] = i < n ? input[i] : 0.0f;
    }
    return c;
}

__device__ __forceinline__ void write_chunk_results(float* out, u64 out_len, float s) {
    u64 i = (u64)blockIdx.x * CHUNKS + threadIdx.x;
    if (threadIdx.x < CHUNKS && i < out_len) out[i] = s;
}

__device__ __forceinline__ ChunkValues warp_sums(cg::thread_block_tile<32> warp, ChunkValues c) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < CHUNKS; k++) c.v[k] += warp.shfl_down(c.v[k], offset);
    }
    return c;
}

// Chunk k's sum in lane k of the first warp.
__device__ __forceinline__ float sum_chunk_totals(cg::thread_block block, cg::thread_block_tile<32> warp, ChunkValues c) {
    __shared__ float totals[CHUNKS][32];
    unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < CHUNKS; k++) totals[k][w] = c.v[k];
    }
    block.sync();
    float mine = 0.0f;
    if (w == 0) {
        ChunkValues t = {};
        if (lane < FIXED_THREADS / 32) {
#pragma unroll
            for (int k = 0; k < CHUNKS; k++) t.v[k] = totals[k][lane];
        }
        t = warp_sums(warp, t);
#pragma unroll
        for (int k = 0; k < CHUNKS; k++) {
            float s = warp.shfl(t.v[k], 0);
            if (lane == k) mine = s;
        }
    }
    return mine;
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_classic_chunks(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sdata[CHUNKS][FIXED_THREADS];
    unsigned tid = threadIdx.x;
    ChunkValues c = chunk_elements(input, n);
#pragma unroll
    for (int k = 0; k < CHUNKS; k++) sdata[k][tid] = c.v[k];
    block.sync();
#pragma unroll
    for (unsigned s = FIXED_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            // Every load of the step before its first store (nvcc keeps the
            // load-add-store order per chunk otherwise: 374 us against 320
            // at 2^28 on the H200).
            float a[CHUNKS], b[CHUNKS];
#pragma unroll
            for (int k = 0; k < CHUNKS; k++) { a[k] = sdata[k][tid]; b[k] = sdata[k][tid + s]; }
#pragma unroll
            for (int k = 0; k < CHUNKS; k++) sdata[k][tid] = a[k] + b[k];
        }
        block.sync();
    }
    write_chunk_results(block_sums, block_sums_len, tid < CHUNKS ? sdata[tid][0] : 0.0f);
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_warp_chunks(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    ChunkValues c = warp_sums(warp, chunk_elements(input, n));
    write_chunk_results(block_sums, block_sums_len, sum_chunk_totals(block, warp, c));
}

extern "C" __global__ void __launch_bounds__(FIXED_THREADS) block_reduce_hierarchical_chunks(const float* input, u64 n, float* block_sums, u64 block_sums_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    ChunkValues c = chunk_elements(input, n);
#pragma unroll
    for (int k = 0; k < CHUNKS; k++) c.v[k] += __shfl_down_sync(0xffffffffu, c.v[k], 2, 4);
#pragma unroll
    for (int k = 0; k < CHUNKS; k++) c.v[k] += __shfl_down_sync(0xffffffffu, c.v[k], 1, 4);
#pragma unroll
    for (int offset = 16; offset >= 4; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < CHUNKS; k++) c.v[k] += warp.shfl_down(c.v[k], offset);
    }
    write_chunk_results(block_sums, block_sums_len, sum_chunk_totals(block, warp, c));
}

// ---- grid_sum.rs -----------------------------------------------------------

__device__ __forceinline__ void finish_grid_sum(cg::grid_group grid, cg::thread_block block, float v, float* partials, float* out) {
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

extern "C" __global__ void grid_sum(const float* input, u64 n, float* partials, u64 partials_len, float* out, u64 out_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    u64 stride = grid.num_threads();
    float v = 0.0f;
    for (u64 i = grid.thread_rank(); i < n; i += stride) v += input[i];
    finish_grid_sum(grid, block, v, partials, out);
}

__device__ __forceinline__ float sum4(float4 x) { return (x.x + x.y) + (x.z + x.w); }

__device__ __forceinline__ float vec4_partial(const float* input, u64 n, u64 rank, u64 stride) {
    float a = 0.0f, b = 0.0f;
    u64 n4 = ((u64)input % 16 == 0) ? n / 4 : 0;
    const float4* v4 = reinterpret_cast<const float4*>(input);
    u64 i = rank;
    for (; i + stride < n4; i += 2 * stride) {
        float4 x = v4[i], y = v4[i + stride];
        a += sum4(x);
        b += sum4(y);
    }
    if (i < n4) a += sum4(v4[i]);
    for (u64 t = 4 * n4 + rank; t < n; t += stride) b += input[t];
    return a + b;
}

extern "C" __global__ void grid_sum_vec4(const float* input, u64 n, float* partials, u64 partials_len, float* out, u64 out_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    finish_grid_sum(grid, block, vec4_partial(input, n, grid.thread_rank(), grid.num_threads()), partials, out);
}

// The last block to take a ticket adds the partials (CUDA's
// threadFenceReduction with libcu++'s atomic_ref).
extern "C" __global__ void sum_last_block(const float* input, u64 n, float* partials, u64 partials_len, unsigned* counter, u64 counter_len, float* out, u64 out_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    float s = block_sum(block, vec4_partial(input, n, grid.thread_rank(), grid.num_threads()));
    __shared__ bool last;
    unsigned nb = grid.num_blocks();
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> tickets(*counter);
    if (block.thread_rank() == 0) {
        partials[grid.block_rank()] = s;
        last = tickets.fetch_add(1, cuda::std::memory_order_acq_rel) == nb - 1;
    }
    block.sync();
    if (last) {
        cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
        float w = 0.0f;
        for (unsigned j = block.thread_rank(); j < nb; j += block.num_threads()) w += partials[j];
        float t = block_sum(block, w);
        if (block.thread_rank() == 0) {
            *out = t;
            tickets.store(0, cuda::std::memory_order_relaxed);
        }
    }
}

extern "C" __global__ void sum_block_partials(const float* input, u64 n, float* partials, u64 partials_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    write_block_result(block, partials, block_sum(block, vec4_partial(input, n, grid.thread_rank(), grid.num_threads())));
}

extern "C" __global__ void sum_partials(const float* partials, u64 n, float* out, u64 out_len) {
    cg::thread_block block = cg::this_thread_block();
    float v = 0.0f;
    for (u64 j = block.thread_rank(); j < n; j += block.num_threads()) v += partials[j];
    write_block_result(block, out, block_sum(block, v));
}

extern "C" __global__ void sum_atomic(const float* input, u64 n, float* out, u64 out_len) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, input[i]);
}

// ---- barrier_cost.rs -------------------------------------------------------

extern "C" __global__ void barrier_cost_grid(unsigned iters, unsigned* out, u64 out_len) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned k = 0; k < iters; k++) grid.sync();
    if (grid.thread_rank() == 0) *out = iters;
}

extern "C" __global__ void barrier_cost_block(unsigned iters, unsigned* out, u64 out_len) {
    cg::thread_block block = cg::this_thread_block();
    for (unsigned k = 0; k < iters; k++) block.sync();
    if (block.thread_rank() == 0 && blockIdx.x == 0) *out = iters;
}

extern "C" __global__ void barrier_cost_tile(unsigned iters, unsigned* out, u64 out_len) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    for (unsigned k = 0; k < iters; k++) warp.sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) *out = iters;
}

// ---- jacobi.rs -------------------------------------------------------------

// The interior points, row by row, walked with a grid stride whose
// quotient and remainder advance the coordinates: no division in the loop,
// 32-bit indices (the same walk as the Rust kernels): the divisions only
// for a thread with a point, the first point's loads before the stride's
// division, the index stepped with the column (`dy * nx + dx`, plus 2
// where a row wraps), a count of the points left instead of a point
// number (nothing to overflow), neighbours addressed from the point.
__device__ __forceinline__ void sweep(const float* src, float* dst, unsigned nx, unsigned ny, unsigned rank, unsigned stride) {
    if (nx < 3 || ny < 3) return;
    unsigned w = nx - 2, n = w * (ny - 2);
    if (rank >= n) return;
    unsigned x = rank % w, i = (rank / w + 1) * nx + x + 1;
    unsigned dx = stride % w, di = (stride / w) * nx + dx;
    for (unsigned left = n - rank;; left -= stride) {
        const float* c = src + i;
        dst[i] = 0.25f * (((c[-1] + c[1]) + *(c - nx)) + *(c + nx));
        if (left <= stride) break;
        x += dx;
        i += di;
        if (x >= w) { x -= w; i += 2; }
    }
}

extern "C" __global__ void jacobi_persistent(float* a, u64 a_len, float* b, u64 b_len, unsigned nx, unsigned ny, unsigned sweeps) {
    cg::grid_group grid = cg::this_grid();
    unsigned rank = grid.thread_rank(), stride = grid.num_threads();
    for (unsigned s = 0; s < sweeps; s++) {
        float* src = s % 2 == 0 ? a : b;
        float* dst = s % 2 == 0 ? b : a;
        sweep(src, dst, nx, ny, rank, stride);
        grid.sync();
    }
}

// Several sweeps in shared memory between grid barriers (the Rust
// kernel's comments say how). The copies into shared memory are those of
// the Rust library's memcpy_async_aligned: 16-byte cp.async.cg pieces when
// both ends and the length are 16-byte aligned, else one 4-byte cp.async
// per element (the fastest of the forms tried:
// docs/probes/jacobi_sweeps_in_shared.cu).
__device__ __forceinline__ void copy_rows(float* to, const float* from, unsigned n, unsigned t, unsigned T) {
    unsigned bytes = n * 4;
    if ((((unsigned)__cvta_generic_to_shared(to) | (unsigned)(size_t)from | bytes) & 15) == 0) {
        for (unsigned j = 4 * t; j < n; j += 4 * T) __pipeline_memcpy_async(to + j, from + j, 16);
    } else {
        for (unsigned j = t; j < n; j += T) __pipeline_memcpy_async(to + j, from + j, 4);
    }
    __pipeline_commit();
}

extern "C" __global__ void jacobi_in_shared(float* a, u64 a_len, float* b, u64 b_len, unsigned nx, unsigned ny, unsigned sweeps, unsigned depth) {
    if (nx < 3 || ny < 3) return;
    if ((u64)nx * ny > a_len || (u64)nx * ny > b_len) __trap();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ float region[];
    depth = min(max(depth, 1u), ny);
    unsigned rows = (ny + gridDim.x - 1) / gridDim.x;
    unsigned band0 = blockIdx.x * rows, band1 = min(band0 + rows, ny);
    unsigned origin = band0 > depth ? band0 - depth : 0;
    unsigned span = (rows + 2 * depth) * nx;
    float* buf0 = region;
    float* buf1 = region + span;
    unsigned t = threadIdx.x, T = blockDim.x;
    unsigned c = min(T, nx - 2), q = T / c, col = 1 + t % c, row = t / c;
    bool active = t < q * c;
    unsigned end = min(band1 + depth, ny), held = (end - origin) * nx;
    if (band0 < ny && sweeps > 0) copy_rows(buf1, a + (u64)origin * nx, held, t, T);
    unsigned rounds = (sweeps + depth - 1) / depth;
    bool split = rounds % 2 != sweeps % 2;
    float* src = a;
    float* dst = b;
    for (unsigned done = 0, round = 0; done < sweeps; round++) {
        unsigned k = split && round == 0 ? 1 : split && round == 1 ? min(depth, sweeps) - 1 : min(depth, sweeps - done);
        if (band0 < ny) {
            copy_rows(buf0, src + (u64)origin * nx, held, t, T);
            __pipeline_wait_prior(0);
            block.sync();
            float* cur = buf0;
            float* next = buf1;
            for (unsigned s = 0; s < k; s++) {
                unsigned e = k - 1 - s;
                unsigned lo = max(band0 > e ? band0 - e : 0, 1u) - origin, hi = min(band1 + e, ny - 1) - origin;
                if (active) {
                    for (unsigned y = lo + row; y < hi; y += q) {
                        for (unsigned x = col; x < nx - 1; x += c) {
                            unsigned i = y * nx + x;
                            next[i] = 0.25f * (((cur[i - 1] + cur[i + 1]) + cur[i - nx]) + cur[i + nx]);
                        }
                    }
                }
                block.sync();
                float* tmp = cur; cur = next; next = tmp;
            }
            unsigned len = (band1 - band0) * nx, off = (band0 - origin) * nx;
            float* to = dst + (u64)band0 * nx;
            for (unsigned j = t; j < len; j += T) to[j] = cur[off + j];
        }
        grid.sync();
        float* tmp = src; src = dst; dst = tmp;
        done += k;
    }
}

// The Rust kernel is declared grid_1d (launched on one row of blocks), so
// its ranks read blockIdx.x alone; so do these, where cg::this_grid()'s
// would read the three dimensions of the grid in every launch.
extern "C" __global__ void jacobi_sweep(const float* u, u64 len, float* u_new, u64 u_new_len, unsigned nx, unsigned ny) {
    if (len < (u64)nx * ny) return;
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    sweep(u, u_new, nx, ny, blockIdx.x * threads + t, gridDim.x * threads);
}

// ---- cluster.rs (sm_90) ------------------------------------------------------

extern "C" __global__ void cluster_neighbour_sum(const float* data, u64 n, float* out, u64 out_len) {
    cg::cluster_group cluster = cg::this_cluster();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float local[1024];
    unsigned t = block.thread_rank();
    local[t] = block_element(block, data, n);
    cluster.sync();
    float* peer = cluster.map_shared_rank(local, (cluster.block_rank() + 1) % cluster.num_blocks());
    u64 i = (u64)block.group_index().x * block.num_threads() + t;
    if (i < n) out[i] = local[t] + peer[t];
    cluster.sync();
}

extern "C" __global__ void cluster_reduce(const float* input, u64 n, float* cluster_sums, u64 cluster_sums_len) {
    cg::cluster_group cluster = cg::this_cluster();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float slots[8];
    auto started = cluster.barrier_arrive();
    float s = block_sum(block, block_element(block, input, n));
    cluster.barrier_wait(std::move(started));
    if (block.thread_rank() == 0) cluster.map_shared_rank(slots, 0)[cluster.block_rank()] = s;
    cluster.sync();
    if (cluster.block_rank() == 0 && block.thread_rank() == 0) {
        float total = 0.0f;
        for (unsigned r = 0; r < cluster.num_blocks(); r++) total += slots[r];
        unsigned cid = blockIdx.x / cluster.dim_blocks().x;  // 1-D grids
        cluster_sums[cid] = total;
    }
}

#define HISTOGRAM_BINS_PER_BLOCK 2048
extern "C" __global__ void cluster_histogram(const unsigned* values, u64 n, unsigned* bins, u64 bins_len) {
    cg::cluster_group cluster = cg::this_cluster();
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned local[HISTOGRAM_BINS_PER_BLOCK];
    for (unsigned b = block.thread_rank(); b < HISTOGRAM_BINS_PER_BLOCK; b += block.num_threads()) local[b] = 0;
    cluster.sync();
    u64 stride = grid.num_threads();
    for (u64 i = grid.thread_rank(); i < n; i += stride) {
        unsigned v = values[i];
        unsigned* owner = cluster.map_shared_rank(local, v / HISTOGRAM_BINS_PER_BLOCK);
        atomicAdd(owner + v % HISTOGRAM_BINS_PER_BLOCK, 1u);
    }
    cluster.sync();
    unsigned base = cluster.block_rank() * HISTOGRAM_BINS_PER_BLOCK;
    for (unsigned b = block.thread_rank(); b < HISTOGRAM_BINS_PER_BLOCK; b += block.num_threads()) {
        unsigned c = local[b];
        if (c != 0) atomicAdd(bins + base + b, c);
    }
}

#define SHARED_HISTOGRAM_BINS (4 * HISTOGRAM_BINS_PER_BLOCK)

extern "C" __global__ void shared_histogram(const unsigned* values, u64 n, unsigned* bins, u64 bins_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned local[SHARED_HISTOGRAM_BINS];
    for (unsigned b = block.thread_rank(); b < SHARED_HISTOGRAM_BINS; b += block.num_threads()) local[b] = 0;
    block.sync();
    u64 stride = grid.num_threads();
    for (u64 i = grid.thread_rank(); i < n; i += stride) {
        unsigned v = values[i];
        if (v < SHARED_HISTOGRAM_BINS) atomicAdd(&local[v], 1u);  // out of range: not counted
    }
    block.sync();
    for (unsigned b = block.thread_rank(); b < SHARED_HISTOGRAM_BINS; b += block.num_threads()) {
        unsigned c = local[b];
        if (c != 0) atomicAdd(bins + b, c);
    }
}

// ---- patterns.rs -------------------------------------------------------------

extern "C" __global__ void compact_positive(const float* input, u64 n, float* out, u64 out_len, unsigned* count, u64 count_len) {
    u64 i = cg::this_grid().thread_rank();
    if (i < n && input[i] > 0.0f) {
        cg::coalesced_group active = cg::coalesced_threads();
        unsigned base = cg::invoke_one_broadcast(active, [&] { return atomicAdd(count, active.num_threads()); });
        out[base + active.thread_rank()] = input[i];
    }
}

#define COMPACT_THREADS 256
#define COMPACT_PER_THREAD 16

// Round k of a block is the elements first + k * COMPACT_THREADS + t; each
// warp counts what it keeps per round (ballot), warp 0 scans the counts and
// takes the block's slots with one atomicAdd, each kept element goes to its
// round's and warp's slot plus the kept lanes before it (coalesced writes).
extern "C" __global__ void __launch_bounds__(COMPACT_THREADS) compact_positive_tiles(const float* input, u64 n, float* out, u64 out_len, unsigned* count, u64 count_len) {
    constexpr unsigned WARPS = COMPACT_THREADS / 32, PER_LANE = COMPACT_PER_THREAD * WARPS / 32;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned lane = warp.thread_rank(), w = warp.meta_group_rank();
    u64 first = (u64)blockIdx.x * (COMPACT_THREADS * COMPACT_PER_THREAD) + block.thread_rank();
    unsigned below = (1u << lane) - 1;
    __shared__ unsigned slots[COMPACT_PER_THREAD * WARPS];
    float x[COMPACT_PER_THREAD];
#pragma unroll
    for (unsigned k = 0; k < COMPACT_PER_THREAD; k++) {
        u64 i = first + k * COMPACT_THREADS;
        x[k] = i < n ? input[i] : 0.0f;
        unsigned kept = warp.ballot(x[k] > 0.0f);
        if (lane == 0) slots[k * WARPS + w] = __popc(kept);
    }
    block.sync();
    if (w == 0) {
        unsigned c[PER_LANE], sum = 0;
#pragma unroll
        for (unsigned j = 0; j < PER_LANE; j++) sum += c[j] = slots[lane * PER_LANE + j];
        unsigned before = cg::exclusive_scan(warp, sum, cg::plus<unsigned>());
        unsigned base = 0;
        if (lane == 31) base = atomicAdd(count, before + sum);
        unsigned at = warp.shfl(base, 31) + before;
#pragma unroll
        for (unsigned j = 0; j < PER_LANE; j++) { slots[lane * PER_LANE + j] = at; at += c[j]; }
    }
    block.sync();
#pragma unroll
    for (unsigned k = 0; k < COMPACT_PER_THREAD; k++) {
        unsigned kept = warp.ballot(x[k] > 0.0f);
        if (x[k] > 0.0f) out[slots[k * WARPS + w] + __popc(kept & below)] = x[k];
    }
}

extern "C" __global__ void divergent_sum(const unsigned* flags, u64 nflags, const float* data, u64 n, float* results, u64 results_len) {
    u64 i = cg::this_grid().thread_rank();
    if (i < n && flags[i] != 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        float s = cg::reduce(active, data[i], cg::plus<float>());
        if (active.thread_rank() == 0) atomicAdd(results + i / 32, s);
    }
}

extern "C" __global__ void category_sums(const unsigned* categories, u64 ncat, const float* values, u64 n, float* sums, u64 sums_len) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    u64 i = cg::this_grid().thread_rank();
    unsigned c = i < n ? categories[i] : 0xffffffffu;
    float v = i < n ? values[i] : 0.0f;
    cg::coalesced_group same = cg::labeled_partition(warp, c);
    float s = cg::reduce(same, v, cg::plus<float>());
    if (same.thread_rank() == 0 && c != 0xffffffffu) atomicAdd(sums + c, s);
}

__device__ __forceinline__ void block_inclusive_scan(cg::thread_block block, unsigned v, unsigned& x_out, unsigned& total_out) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ unsigned before[32];
    __shared__ unsigned total;
    unsigned x = cg::inclusive_scan(warp, v, cg::plus<unsigned>());
    if (warp.thread_rank() == 31) before[warp.meta_group_rank()] = x;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        unsigned lane = warp.thread_rank();
        unsigned t = lane < warp.meta_group_size() ? before[lane] : 0;
        unsigned up_to = cg::inclusive_scan(warp, t, cg::plus<unsigned>());
        before[lane] = up_to - t;
        if (lane == 31) total = up_to;
    }
    block.sync();
    x_out = before[warp.meta_group_rank()] + x;
    total_out = total;
    block.sync();
}

extern "C" __global__ void grid_prefix_sum(const unsigned* input, u64 n, unsigned* block_totals, u64 block_totals_len, unsigned* out, u64 out_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    u64 nb = grid.num_blocks(), b = grid.block_rank(), bt = block.num_threads(), t = block.thread_rank();
    u64 chunk = ((n + nb - 1) / nb + bt - 1) / bt * bt;
    u64 start = b * chunk < n ? b * chunk : n, end = (b + 1) * chunk < n ? (b + 1) * chunk : n;
    unsigned carry = 0;
    for (u64 base = start; base < end; base += bt) {
        u64 i = base + t;
        unsigned v = i < end ? input[i] : 0, x, total;
        block_inclusive_scan(block, v, x, total);
        if (i < end) out[i] = carry + x;
        carry += total;
    }
    if (t == 0) block_totals[b] = carry;
    grid.sync();
    unsigned before = 0;
    for (u64 j = t; j < b; j += bt) before += block_totals[j];
    __shared__ unsigned warp_sums[32];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned w = cg::reduce(warp, before, cg::plus<unsigned>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = w;
    block.sync();
    unsigned offset = 0;
    for (unsigned k = 0; k < warp.meta_group_size(); k++) offset += warp_sums[k];
    for (u64 i = start + t; i < end; i += bt) out[i] += offset;
}

// ---- async_copy.rs: the async-copy guide's kernels -------------------------
// c = a + b through dynamic shared memory, block-sized chunks, grid-stride.

extern __shared__ float smem[];
// `__shared__ cuda::barrier` as CUDA's documentation writes it: its
// constructor does nothing and init() sets it up.
#pragma nv_diag_suppress static_var_with_dynamic_init

struct Chunks {
    u64 first, stride, n;
    unsigned block, t;
    __device__ Chunks(cg::thread_block b, u64 n_)
        : first((u64)b.group_index().x * b.num_threads()),
          stride((u64)gridDim.x * b.num_threads()), n(n_),
          block(b.num_threads()), t(b.thread_rank()) {}
    __device__ unsigned len(u64 start) const {
        return start >= n ? 0u : (unsigned)min((u64)block, n - start);
    }
};

extern "C" __global__ void vadd_sync(const float* a, u64 na, const float* b, u64 nb, float* c, u64 c_len) {
    auto block = cg::this_thread_block();
    Chunks w(block, na);
    float *sa = smem, *sb = smem + w.block;
    for (u64 start = w.first; start < w.n; start += w.stride) {
        u64 i = start + w.t;
        if (i < w.n) { sa[w.t] = a[i]; sb[w.t] = b[i]; }
        block.sync();
        if (i < w.n) c[i] = sa[w.t] + sb[w.t];
        block.sync();
    }
}

extern "C" __global__ void vadd_memcpy_async(const float* a, u64 na, const float* b, u64 nb, float* c, u64 c_len) {
    auto block = cg::this_thread_block();
    Chunks w(block, na);
    float *sa = smem, *sb = smem + w.block;
    for (u64 start = w.first; start < w.n; start += w.stride) {
        unsigned len = w.len(start);
        cg::memcpy_async(block, sa, a + start, sizeof(float) * len);
        cg::memcpy_async(block, sb, b + start, sizeof(float) * len);
        cg::wait(block);
        if (w.t < len) c[start + w.t] = sa[w.t] + sb[w.t];
        block.sync();
    }
}

extern "C" __global__ void vadd_barrier(const float* a, u64 na, const float* b, u64 nb, float* c, u64 c_len) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    Chunks w(block, na);
    float *sa = smem, *sb = smem + w.block;
    if (block.thread_rank() == 0) init(&bar, block.num_threads());
    block.sync();
    for (u64 start = w.first; start < w.n; start += w.stride) {
        unsigned len = w.len(start);
        cuda::memcpy_async(block, sa, a + start, sizeof(float) * len, bar);
        cuda::memcpy_async(block, sb, b + start, sizeof(float) * len, bar);
        bar.arrive_and_wait();
        if (w.t < len) c[start + w.t] = sa[w.t] + sb[w.t];
        bar.arrive_and_wait();
    }
}

template <int STAGES>
__device__ __forceinline__ void vadd_pipelined(const float* a, u64 na, const float* b, float* c) {
    auto block = cg::this_thread_block();
    Chunks w(block, na);
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    auto produce = [&](int slot, u64 start) {
        pipe.producer_acquire();
        unsigned len = w.len(start);
        if (len > 0) {
            cuda::memcpy_async(block, smem + 2 * slot * w.block, a + start, sizeof(float) * len, pipe);
            cuda::memcpy_async(block, smem + (2 * slot + 1) * w.block, b + start, sizeof(float) * len, pipe);
        }
        pipe.producer_commit();
    };
    for (int s = 0; s < STAGES; ++s) produce(s, w.first + s * w.stride);
    int slot = 0;
    for (u64 start = w.first; start < w.n; start += w.stride) {
        cuda::pipeline_consumer_wait_prior<STAGES - 1>(pipe);
        block.sync();
        if (w.t < w.len(start)) c[start + w.t] = smem[2 * slot * w.block + w.t] + smem[(2 * slot + 1) * w.block + w.t];
        block.sync();
        pipe.consumer_release();
        produce(slot, start + STAGES * w.stride);
        slot = (slot + 1) % STAGES;
    }
}

extern "C" __global__ void vadd_pipelined_4(const float* a, u64 na, const float* b, u64 nb, float* c, u64 c_len) {
    vadd_pipelined<4>(a, na, b, c);
}

extern "C" __global__ void vadd_pipelined_8(const float* a, u64 na, const float* b, u64 nb, float* c, u64 c_len) {
    vadd_pipelined<8>(a, na, b, c);
}

extern "C" __global__ void in_between_pipelined(const int* src, u64 n, int* dest, u64 dest_len) {
    constexpr int STAGES = 4;
    int* ismem = reinterpret_cast<int*>(smem);
    auto block = cg::this_thread_block();
    Chunks w(block, n);
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int s = 0; s < STAGES; ++s) {
        pipe.producer_acquire();
        u64 i = w.first + s * w.stride + w.t;
        if (i < n) cuda::memcpy_async(&ismem[s * w.block + w.t], &src[i], sizeof(int), pipe);
        pipe.producer_commit();
    }
    int stage = 0;
    for (u64 start = w.first; start < n; start += w.stride) {
        cuda::pipeline_consumer_wait_prior<STAGES - 1>(pipe);
        block.sync();
        unsigned len = w.len(start);
        const int* s = ismem + stage * w.block;
        if (w.t < len) dest[start + w.t] = (int)(s[0] < s[w.t] && s[w.t] < s[len - 1]);
        block.sync();
        pipe.consumer_release();
        pipe.producer_acquire();
        u64 next = start + STAGES * w.stride + w.t;
        if (next < n) cuda::memcpy_async(&ismem[stage * w.block + w.t], &src[next], sizeof(int), pipe);
        pipe.producer_commit();
        stage = (stage + 1) % STAGES;
    }
}
