// Does a persistent Jacobi kernel need a grid barrier between sweeps?
//
// Sweep s reads one buffer and writes the other; a point depends only on
// its four neighbours, so a block that owns a band of whole rows depends
// only on the bands above and below it. Instead of grid.sync() after every
// sweep, each block publishes the number of sweeps it has finished in a
// flag of its own (release, at gpu scope, by thread 0 after a block
// barrier) and, before sweep s, waits until both neighbours' flags reach s
// (acquire, thread 0, then a block barrier). That also orders the writes of
// sweep s + 1 after the neighbours' reads of sweep s - 1 (they set their
// flag after them), so the ping-pong stays correct. A last grid.sync()
// lets every block reset its flag for the next launch.
//
//   grid_walk   the benchmark's twin: grid-stride walk, grid.sync() per sweep.
//   band_grid   bands of rows per block, grid.sync() per sweep (control: is
//               it the decomposition or the barrier?).
//   band_flags  bands of rows per block, neighbour flags per sweep.
//
// Every method's result is compared with grid_walk's bit for bit. The walk
// is the benchmark twin's (cg-samples/cuda/kernels.cu), copied so that this
// file builds on its own.
// Build: nvcc -O3 -arch=sm_90 -o jacobi_flags jacobi_neighbour_flags.cu
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>
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

__global__ void grid_walk(float* a, float* b, unsigned* flags, unsigned nx, unsigned ny, unsigned sweeps) {
    cg::grid_group grid = cg::this_grid();
    unsigned rank = grid.thread_rank(), stride = grid.num_threads();
    for (unsigned s = 0; s < sweeps; s++) {
        walk_sweep(s % 2 == 0 ? a : b, s % 2 == 0 ? b : a, nx, ny, rank, stride);
        grid.sync();
    }
}

// Rows [r0, r1) of the interior for block `b` of `nb`, the walk over them
// block-stride (the same quotient/remainder steps as the grid walk).
__device__ __forceinline__ void band_sweep(const float* src, float* dst, unsigned nx, unsigned r0,
                                           unsigned r1, unsigned t, unsigned T) {
    unsigned w = nx - 2, n = w * (r1 - r0);
    unsigned dy = T / w, dx = T % w;
    unsigned y = r0 + t / w, x = t % w;
    for (unsigned k = t; k < n; k += T) {
        unsigned i = y * nx + x + 1;
        float s = ((src[i - 1] + src[i + 1]) + src[i - nx]) + src[i + nx];
        dst[i] = 0.25f * s;
        x += dx;
        y += dy;
        if (x >= w) { x -= w; y += 1; }
    }
}

__device__ __forceinline__ void band_of(unsigned ny, unsigned& r0, unsigned& r1) {
    unsigned rows = ny - 2, nb = gridDim.x, b = blockIdx.x;
    r0 = 1 + (unsigned)((unsigned long long)rows * b / nb);
    r1 = 1 + (unsigned)((unsigned long long)rows * (b + 1) / nb);
}

__global__ void band_grid(float* a, float* b, unsigned* flags, unsigned nx, unsigned ny, unsigned sweeps) {
    cg::grid_group grid = cg::this_grid();
    unsigned r0, r1;
    band_of(ny, r0, r1);
    for (unsigned s = 0; s < sweeps; s++) {
        band_sweep(s % 2 == 0 ? a : b, s % 2 == 0 ? b : a, nx, r0, r1, threadIdx.x, blockDim.x);
        grid.sync();
    }
}

__device__ __forceinline__ void wait_at_least(unsigned* flag, unsigned v) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    while (f.load(cuda::memory_order_acquire) < v) {
    }
}

__global__ void band_flags(float* a, float* b, unsigned* flags, unsigned nx, unsigned ny, unsigned sweeps) {
    cg::grid_group grid = cg::this_grid();
    unsigned r0, r1;
    band_of(ny, r0, r1);
    unsigned bid = blockIdx.x, nb = gridDim.x, t = threadIdx.x;
    for (unsigned s = 0; s < sweeps; s++) {
        if (s > 0) {
            // Lane 0 of warp 0 waits for the block above, lane 0 of warp 1
            // for the block below, at the same time.
            if (t == 0 && bid > 0) wait_at_least(&flags[bid - 1], s);
            if (t == 32 && bid + 1 < nb) wait_at_least(&flags[bid + 1], s);
            __syncthreads();
        }
        band_sweep(s % 2 == 0 ? a : b, s % 2 == 0 ? b : a, nx, r0, r1, t, blockDim.x);
        __syncthreads();
        if (t == 0) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[bid]);
            f.store(s + 1, cuda::memory_order_release);
        }
    }
    grid.sync();
    if (t == 0) flags[bid] = 0;
}

typedef void (*Kernel)(float*, float*, unsigned*, unsigned, unsigned, unsigned);

static float run(Kernel k, int blocks, int threads, float* a, float* b, unsigned* flags, unsigned nx,
                 unsigned ny, unsigned sweeps, const std::vector<float>& init) {
    size_t bytes = (size_t)nx * ny * sizeof(float);
    CHECK(cudaMemcpy(a, init.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, init.data(), bytes, cudaMemcpyHostToDevice));
    void* args[] = {&a, &b, &flags, &nx, &ny, &sweeps};
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    CHECK(cudaLaunchCooperativeKernel((void*)k, blocks, threads, args, 0, 0));
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
    struct Case { unsigned n, sweeps; } cases[] = {{512, 1000}, {4096, 100}};
    struct Shape { int blocks, threads; } shapes[] = {{132, 1024}, {264, 1024}, {1056, 256}, {264, 512}, {132, 512}};
    struct Method { const char* name; Kernel k; } methods[] = {
        {"grid_walk", grid_walk}, {"band_grid", band_grid}, {"band_flags", band_flags}};
    for (auto c : cases) {
        unsigned nx = c.n, ny = c.n;
        size_t cnt = (size_t)nx * ny;
        std::vector<float> init(cnt);
        srand(7);
        for (size_t i = 0; i < cnt; i++) init[i] = (float)(rand() % 1000) / 100.0f;
        float *a, *b;
        unsigned* flags;
        CHECK(cudaMalloc(&a, cnt * 4));
        CHECK(cudaMalloc(&b, cnt * 4));
        CHECK(cudaMalloc(&flags, 4096 * 4));
        CHECK(cudaMemset(flags, 0, 4096 * 4));
        std::vector<float> ref(cnt), got(cnt);
        for (auto sh : shapes) {
            for (int m = 0; m < 3; m++) {
                int per_sm = 0;
                CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (void*)methods[m].k, sh.threads, 0));
                if (per_sm * p.multiProcessorCount < sh.blocks) {
                    printf("%4ux%-4u x%4u %-10s %4dx%-4d: not co-resident\n", nx, ny, c.sweeps, methods[m].name, sh.blocks, sh.threads);
                    continue;
                }
                std::vector<float> t;
                for (int r = 0; r < 9; r++)
                    t.push_back(run(methods[m].k, sh.blocks, sh.threads, a, b, flags, nx, ny, c.sweeps, init));
                CHECK(cudaDeviceSynchronize());
                float* res = c.sweeps % 2 ? b : a;
                CHECK(cudaMemcpy(got.data(), res, cnt * 4, cudaMemcpyDeviceToHost));
                size_t bad = 0;
                if (m == 0 && sh.blocks == 132) ref = got;
                for (size_t i = 0; i < cnt; i++) bad += memcmp(&got[i], &ref[i], 4) != 0;
                std::sort(t.begin() + 1, t.end());
                printf("%4ux%-4u x%4u %-10s %4dx%-4d: median %8.1f us  min %8.1f  max %8.1f  (%.3f us/sweep)  differing from grid_walk 132x1024: %zu\n",
                       nx, ny, c.sweeps, methods[m].name, sh.blocks, sh.threads, t[5], t[1], t[8], t[5] / c.sweeps, bad);
            }
        }
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(flags));
    }
    return 0;
}
