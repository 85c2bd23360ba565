// How much of a small persistent Jacobi is its grid barrier, and does a
// block that runs several sweeps in shared memory between barriers win?
//
// 512 x 512 x 1000 sweeps costs ~1.8 us a sweep on an H100 at 132 x 1024,
// and ~1 us of that is grid.sync(). A block that owns a band of rows can
// run `depth` sweeps between two grid barriers: it loads its band and
// `depth` rows on each side from global memory into shared memory, sweeps
// there `depth` times (each sweep one row narrower on each side: the rows
// it needs from its neighbours' bands it computes itself, redundantly),
// writes its band back, and only then meets the other blocks at
// grid.sync(). Same sums in the same order: bit for bit the field of a
// barrier per sweep, with a barrier per `depth` sweeps.
//
//   grid_walk    the benchmark's twin: grid-stride walk, grid.sync() per sweep.
//   shared_d<d>  bands in shared memory, `d` sweeps per grid barrier; the
//                band loaded one element per thread at a time (each load
//                waits for the last: one L2 round trip per element).
//   unroll_d<d>  the same, each thread's loads 4 at a time.
//   async_d<d>   the same, loaded with cg::memcpy_async and cg::wait.
//   cp4_d<d>     the same, one 4-byte cp.async per element (what the Rust
//                library's memcpy_async issues for f32), then wait + sync.
//   cp16_d<d>    the same, one 16-byte cp.async.cg per 4 elements (rows of
//                a multiple of 4 elements: every piece 16-byte aligned).
//   once*_d<d>   (added later) the rows at fixed places in the buffers,
//                row r at r - (b R - d): the boundary values (columns 0
//                and nx - 1, rows 0 and ny - 1), which no sweep changes,
//                copied into the second buffer once at the start, so each
//                round loads into the first buffer only: half the loads.
//                onceu: 4 register loads at a time; once4: 4-byte
//                cp.async; once16: 16-byte cp.async.
//
// Every result is compared with grid_walk's bit for bit.
// Build: nvcc -O3 -arch=sm_90 -o jacobi_shared jacobi_sweeps_in_shared.cu
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>

namespace cg = cooperative_groups;

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ void walk_sweep(const float* src, float* dst, unsigned nx, unsigned ny,
                                           unsigned rank, unsigned stride) {
    unsigned w = nx - 2, n = w * (ny - 2);
    unsigned dy = stride / w, dx = stride % w;
    unsigned y = rank / w, x = rank % w;
    for (unsigned k = rank; k < n; k += stride) {
        unsigned i = (y + 1) * nx + x + 1;
        float s = ((src[i - 1] + src[i + 1]) + src[i - nx]) + src[i + nx];
        dst[i] = 0.25f * s;
        x += dx;
        y += dy;
        if (x >= w) { x -= w; y += 1; }
    }
}

__global__ void grid_walk(float* a, float* b, unsigned nx, unsigned ny, unsigned sweeps, unsigned depth) {
    cg::grid_group grid = cg::this_grid();
    unsigned rank = grid.thread_rank(), stride = grid.num_threads();
    for (unsigned s = 0; s < sweeps; s++) {
        walk_sweep(s % 2 == 0 ? a : b, s % 2 == 0 ? b : a, nx, ny, rank, stride);
        grid.sync();
    }
}

// Block b owns rows [b R, (b + 1) R) of the field (R = ceil(ny / blocks);
// the boundary rows among them are never changed). Each round of k sweeps
// loads rows [b R - k, (b + 1) R + k) (clipped to the field) into both
// shared buffers, sweeps between them, and writes rows [b R, (b + 1) R)
// back. Rounds alternate the global buffers as single sweeps do, so the
// field ends in `b` after an odd number of sweeps exactly when the number
// of rounds is odd: where it would not be, the first round is split in two
// (one sweep, then the rest).
template <int LOAD>
__global__ void shared_rounds(float* a, float* b, unsigned nx, unsigned ny, unsigned sweeps, unsigned depth) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ float smem[];
    unsigned R = (ny + gridDim.x - 1) / gridDim.x;
    unsigned band0 = blockIdx.x * R, band1 = min(band0 + R, ny);
    bool idle = band0 >= ny;
    unsigned span = R + 2 * depth;
    float* buf0 = smem;
    float* buf1 = smem + span * nx;
    unsigned T = blockDim.x, t = threadIdx.x, w = nx - 2;
    unsigned c = min(T, w), q = T / c, col = 1 + t % c, row = t / c;
    bool lane = t < q * c;
    unsigned rounds = (sweeps + depth - 1) / depth;
    bool split = (rounds % 2) != (sweeps % 2);
    float* src = a;
    float* dst = b;
    for (unsigned done = 0, r = 0; done < sweeps; r++) {
        unsigned k = min(depth, sweeps - done);
        if (split && r == 0) k = 1;
        else if (split && r == 1) k = min(depth, sweeps) - 1;
        if (!idle) {
            unsigned g0 = band0 > k ? band0 - k : 0, g1 = min(band1 + k, ny);
            unsigned n = (g1 - g0) * nx;
            const float* from = src + (size_t)g0 * nx;
            if (LOAD >= 5) {
                // Rows at fixed places: row r at r - origin.
                unsigned origin = band0 > depth ? band0 - depth : 0;
                float* b0 = smem + (g0 - origin) * nx;
                float* b1 = smem + span * nx;
                if (r == 0) {
                    // Once: every row this block will ever hold, into the
                    // second buffer (its boundary values stay there).
                    unsigned h1 = min(band1 + depth, ny);
                    unsigned m = (h1 - origin) * nx;
                    const float* f = src + (size_t)origin * nx;
                    for (unsigned j = t; j < m; j += T) b1[j] = f[j];
                }
                if (LOAD == 5) {
                    unsigned j = t;
                    for (; j + 3 * T < n; j += 4 * T) {
                        float v0 = from[j], v1 = from[j + T], v2 = from[j + 2 * T], v3 = from[j + 3 * T];
                        b0[j] = v0; b0[j + T] = v1; b0[j + 2 * T] = v2; b0[j + 3 * T] = v3;
                    }
                    for (; j < n; j += T) b0[j] = from[j];
                } else if (LOAD == 6) {
                    for (unsigned j = t; j < n; j += T) __pipeline_memcpy_async(b0 + j, from + j, 4);
                    __pipeline_commit();
                    __pipeline_wait_prior(0);
                } else {
                    for (unsigned j = 4 * t; j < n; j += 4 * T) __pipeline_memcpy_async(b0 + j, from + j, 16);
                    __pipeline_commit();
                    __pipeline_wait_prior(0);
                }
                block.sync();
                g0 = origin;
            } else if (LOAD == 0) {
                for (unsigned j = t; j < n; j += T) {
                    float v = from[j];
                    buf0[j] = v;
                    buf1[j] = v;
                }
            } else if (LOAD == 1) {
                unsigned j = t;
                for (; j + 3 * T < n; j += 4 * T) {
                    float v0 = from[j], v1 = from[j + T], v2 = from[j + 2 * T], v3 = from[j + 3 * T];
                    buf0[j] = v0; buf0[j + T] = v1; buf0[j + 2 * T] = v2; buf0[j + 3 * T] = v3;
                    buf1[j] = v0; buf1[j + T] = v1; buf1[j + 2 * T] = v2; buf1[j + 3 * T] = v3;
                }
                for (; j < n; j += T) {
                    float v = from[j];
                    buf0[j] = v;
                    buf1[j] = v;
                }
            } else if (LOAD == 3) {
                for (unsigned j = t; j < n; j += T) {
                    __pipeline_memcpy_async(buf0 + j, from + j, 4);
                    __pipeline_memcpy_async(buf1 + j, from + j, 4);
                }
                __pipeline_commit();
                __pipeline_wait_prior(0);
            } else if (LOAD == 4) {
                for (unsigned j = 4 * t; j < n; j += 4 * T) {
                    __pipeline_memcpy_async(buf0 + j, from + j, 16);
                    __pipeline_memcpy_async(buf1 + j, from + j, 16);
                }
                __pipeline_commit();
                __pipeline_wait_prior(0);
            } else {
                cg::memcpy_async(block, buf0, from, n * sizeof(float));
                cg::memcpy_async(block, buf1, from, n * sizeof(float));
                cg::wait(block);
            }
            if (LOAD < 5) block.sync();
            float* cur = buf0;
            float* nxt = buf1;
            for (unsigned s = 0; s < k; s++) {
                unsigned e = k - 1 - s;
                unsigned lo = max(band0 > e ? band0 - e : 0, 1u), hi = min(band1 + e, ny - 1);
                if (lane) {
                    for (unsigned y = lo + row; y < hi; y += q) {
                        unsigned base = (y - g0) * nx;
                        for (unsigned x = col; x < nx - 1; x += c) {
                            unsigned i = base + x;
                            nxt[i] = 0.25f * (((cur[i - 1] + cur[i + 1]) + cur[i - nx]) + cur[i + nx]);
                        }
                    }
                }
                block.sync();
                float* tmp = cur; cur = nxt; nxt = tmp;
            }
            unsigned m = (band1 - band0) * nx, off = (band0 - g0) * nx;
            float* to = dst + (size_t)band0 * nx;
            for (unsigned j = t; j < m; j += T) to[j] = cur[off + j];
        }
        grid.sync();
        float* tmp = src; src = dst; dst = tmp;
        done += k;
    }
}

typedef void (*Kernel)(float*, float*, unsigned, unsigned, unsigned, unsigned);

static float run(Kernel k, int blocks, int threads, size_t smem, float* a, float* b, unsigned nx,
                 unsigned ny, unsigned sweeps, unsigned depth, const std::vector<float>& init) {
    size_t bytes = (size_t)nx * ny * sizeof(float);
    CHECK(cudaMemcpy(a, init.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, init.data(), bytes, cudaMemcpyHostToDevice));
    void* args[] = {&a, &b, &nx, &ny, &sweeps, &depth};
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    CHECK(cudaLaunchCooperativeKernel((void*)k, blocks, threads, args, smem, 0));
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0f;
}

int main() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<5>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<6>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute((void*)shared_rounds<7>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    struct Case { unsigned n, sweeps; } cases[] = {{512, 1000}, {512, 999}, {1024, 1000}, {520, 1000}};
    struct Shape { int blocks, threads; } shapes[] = {{132, 1024}, {264, 512}};
    unsigned depths[] = {0, 1, 2, 3, 4, 6, 8};
    for (auto c : cases) {
        unsigned nx = c.n, ny = c.n;
        size_t cnt = (size_t)nx * ny;
        std::vector<float> init(cnt);
        srand(7);
        for (size_t i = 0; i < cnt; i++) init[i] = (float)(rand() % 1000) / 100.0f;
        float *a, *b;
        CHECK(cudaMalloc(&a, cnt * 4));
        CHECK(cudaMalloc(&b, cnt * 4));
        std::vector<float> ref(cnt), got(cnt);
        bool have_ref = false;
        for (auto sh : shapes) {
            for (unsigned d : depths) {
              for (int load = 0; load < (d == 0 ? 1 : 8); load++) {
                Kernel kernels[] = {shared_rounds<0>, shared_rounds<1>, shared_rounds<2>, shared_rounds<3>, shared_rounds<4>,
                                    shared_rounds<5>, shared_rounds<6>, shared_rounds<7>};
                const char* loads[] = {"shared", "unroll", "async", "cp4", "cp16", "onceu", "once4", "once16"};
                Kernel k = d == 0 ? grid_walk : kernels[load];
                unsigned R = (ny + sh.blocks - 1) / sh.blocks;
                size_t smem = d == 0 ? 0 : (size_t)2 * (R + 2 * d) * nx * 4;
                char name[32];
                if (d == 0) snprintf(name, sizeof name, "grid_walk");
                else snprintf(name, sizeof name, "%s_d%u", loads[load], d);
                int per_sm = 0;
                if (smem > 227 * 1024 ||
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (void*)k, sh.threads, smem) != cudaSuccess ||
                    per_sm * p.multiProcessorCount < sh.blocks) {
                    printf("%4ux%-4u x%4u %-10s %4dx%-4d: not co-resident (%zu B shared)\n", nx, ny, c.sweeps, name, sh.blocks, sh.threads, smem);
                    continue;
                }
                std::vector<float> t;
                for (int r = 0; r < 9; r++)
                    t.push_back(run(k, sh.blocks, sh.threads, smem, a, b, nx, ny, c.sweeps, d, init));
                CHECK(cudaDeviceSynchronize());
                float* res = c.sweeps % 2 ? b : a;
                CHECK(cudaMemcpy(got.data(), res, cnt * 4, cudaMemcpyDeviceToHost));
                if (!have_ref) { ref = got; have_ref = true; }
                size_t bad = 0;
                for (size_t i = 0; i < cnt; i++) bad += memcmp(&got[i], &ref[i], 4) != 0;
                std::sort(t.begin() + 1, t.end());
                printf("%4ux%-4u x%4u %-10s %4dx%-4d: median %8.1f us  min %8.1f  max %8.1f  (%.3f us/sweep, %6zu B shared)  differing from the first grid_walk: %zu\n",
                       nx, ny, c.sweeps, name, sh.blocks, sh.threads, t[5], t[1], t[8], t[5] / c.sweeps, smem, bad);
              }
            }
        }
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
    }
    return 0;
}
