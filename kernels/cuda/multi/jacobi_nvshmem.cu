// Jacobi on several GPUs with NVSHMEM, one process per GPU: one persistent
// kernel per GPU runs every sweep, the halo rows put straight from the
// kernel into the neighbours' symmetric buffers. What NVSHMEM gives the
// persistent form beside the Rust `jacobi_multi_gpu` (peer memory and
// multi_grid.sync()) and the NCCL baseline (jacobi_nccl.cu).
//
// The synchronisation is that of NVIDIA's multi-gpu-programming-models
// `nvshmem_opt` sample (which launches a kernel per sweep; it has no
// persistent form): a signal exchange with the neighbours only, no barrier
// of all GPUs. Per sweep, inside the kernel:
//   - block 0 computes the band's first interior row, block 1 its last,
//     and each puts its row into the neighbour's halo row of the buffer
//     this sweep writes with nvshmemx_float_put_signal_nbi_block, which
//     sets the neighbour's signal word (top or bottom) to the sweep's
//     number once the row has landed; the other blocks sweep the rows
//     between, grid-stride;
//   - thread 0 waits (nvshmem_signal_wait_until, >= the sweep's number)
//     for both neighbours' signals, then the grid barrier (grid.sync()):
//     the next sweep reads halo rows that have arrived.
// Only the boundary blocks read the halo rows, and they read them before
// they put their own rows: a neighbour's signal for sweep s therefore also
// says that it has finished reading the halo rows sweep s + 1 overwrites.
// Signal values grow over the whole program (a base added per launch), so
// that no word needs resetting between runs.
//
// Bootstrap: NVSHMEM's unique-id bootstrap (no MPI), rank and ranks from
// CG_NVSHMEM_RANK / _RANKS or CG_NCCL_RANK / _RANKS, the id through the
// file CG_NVSHMEM_ID_FILE or CG_NCCL_ID_FILE; GPU rank % count. The kernel
// is launched with nvshmemx_collective_launch (a cooperative launch on
// every GPU). Each rank checks its band bit for bit against a single-GPU
// run of the launch-per-sweep kernel over the whole field; rank 0 also
// times that and the same persistent kernel over the whole field on one
// GPU, and the cost of the synchronisation alone.
//
// Build: nvcc -O3 -rdc=true -arch=sm_90 -I<nvshmem>/include jacobi_nvshmem.cu
//        -L<nvshmem>/lib -l:libnvshmem_host.so.3 -lnvshmem_device
//        -Xlinker -rpath=<nvshmem>/lib
#include <cooperative_groups.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "jacobi_common.cuh"

namespace cg = cooperative_groups;

/// A band's neighbours: the processing elements above and below (-1: none,
/// the field's boundary) and the row of the one above's buffers that is its
/// bottom halo row (the one below's top halo row is its row 0).
struct Neighbours {
    int up, down;
    unsigned up_halo;
};

/// This band's signal words: set by the neighbour above when our top halo
/// row has arrived, and by the one below for the bottom one.
enum Signal { FROM_ABOVE = 0, FROM_BELOW = 1 };

/// Row `y` of the band, the block's threads over its columns.
__device__ __forceinline__ void block_row(const float* src, float* dst, unsigned nx, unsigned y) {
    for (unsigned x = 1 + threadIdx.x; x + 1 < nx; x += blockDim.x) {
        const float* c = src + (size_t)y * nx + x;
        dst[(size_t)y * nx + x] = 0.25f * (((c[-1] + c[1]) + *(c - nx)) + *(c + nx));
    }
}

/// `sweeps` sweeps of a band (`rows` rows with the halos, `nx` wide) from
/// `a`, ping-ponging with `b` (a -> b on even sweeps), exchanging halo rows
/// with `nb` through `sig` (signal values base + sweep + 1). On one GPU
/// (no neighbours) a plain persistent Jacobi over the whole field. Needs a
/// cooperative launch of at least 3 blocks.
__global__ void jacobi_persistent(float* a, float* b, unsigned nx, unsigned rows, unsigned sweeps,
                                  Neighbours nb, uint64_t* sig, uint64_t base) {
    cg::grid_group grid = cg::this_grid();
    unsigned last = rows - 2;
    for (unsigned s = 0; s < sweeps; s++) {
        const float* src = s % 2 ? b : a;
        float* dst = s % 2 ? a : b;
        uint64_t v = base + s + 1;
        if (blockIdx.x == 0) {
            block_row(src, dst, nx, 1);
            __syncthreads();
            if (nb.up >= 0)
                nvshmemx_float_put_signal_nbi_block(dst + (size_t)nb.up_halo * nx + 1, dst + nx + 1,
                                                    nx - 2, sig + FROM_BELOW, v, NVSHMEM_SIGNAL_SET,
                                                    nb.up);
            if (last == 1 && nb.down >= 0)
                nvshmemx_float_put_signal_nbi_block(dst + 1, dst + nx + 1, nx - 2, sig + FROM_ABOVE,
                                                    v, NVSHMEM_SIGNAL_SET, nb.down);
        } else if (blockIdx.x == 1) {
            if (last > 1) {
                block_row(src, dst, nx, last);
                __syncthreads();
                if (nb.down >= 0)
                    nvshmemx_float_put_signal_nbi_block(dst + 1, dst + (size_t)last * nx + 1,
                                                        nx - 2, sig + FROM_ABOVE, v,
                                                        NVSHMEM_SIGNAL_SET, nb.down);
            }
        } else if (last > 2) {
            // Rows 2 .. last - 1: the interior of the sub-field of rows
            // 1 ..= last.
            sweep(src + nx, dst + nx, nx, last, (blockIdx.x - 2) * blockDim.x + threadIdx.x,
                  (gridDim.x - 2) * blockDim.x);
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            if (nb.up >= 0) nvshmem_signal_wait_until(sig + FROM_ABOVE, NVSHMEM_CMP_GE, v);
            if (nb.down >= 0) nvshmem_signal_wait_until(sig + FROM_BELOW, NVSHMEM_CMP_GE, v);
        }
        grid.sync();
    }
}

/// `iters` of the kernel's synchronisation alone: thread 0 signals the
/// neighbours and waits for their signals, then the grid barrier.
__global__ void neighbour_barriers(unsigned iters, Neighbours nb, uint64_t* sig, uint64_t base) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned i = 0; i < iters; i++) {
        uint64_t v = base + i + 1;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            if (nb.up >= 0) nvshmemx_signal_op(sig + FROM_BELOW, v, NVSHMEM_SIGNAL_SET, nb.up);
            if (nb.down >= 0) nvshmemx_signal_op(sig + FROM_ABOVE, v, NVSHMEM_SIGNAL_SET, nb.down);
            if (nb.up >= 0) nvshmem_signal_wait_until(sig + FROM_ABOVE, NVSHMEM_CMP_GE, v);
            if (nb.down >= 0) nvshmem_signal_wait_until(sig + FROM_BELOW, NVSHMEM_CMP_GE, v);
        }
        grid.sync();
    }
}

/// `iters` barriers of every block of every GPU: grid barrier, NVSHMEM's
/// barrier of all processing elements in block 0, grid barrier.
__global__ void global_barriers(unsigned iters) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned i = 0; i < iters; i++) {
        grid.sync();
        if (blockIdx.x == 0) nvshmemx_barrier_all_block();
        grid.sync();
    }
}

/// A grid of `threads`-thread blocks for `f`: every co-resident block
/// (`max`), or at most one per SM.
dim3 grid_for(const void* f, unsigned threads, bool one_per_sm, void** args) {
    int blocks = 0;
    if (nvshmemx_collective_launch_query_gridsize(f, dim3(threads), args, 0, &blocks) != 0 ||
        blocks < 3)
        die("nvshmemx_collective_launch_query_gridsize failed or gave fewer than 3 blocks");
    if (one_per_sm) {
        int device, sms;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        blocks = std::min(blocks, sms);
    }
    return dim3(blocks);
}

/// Launches `f` on every GPU at once with `args`.
void collective_launch(const void* f, dim3 grid, unsigned threads, void** args,
                       cudaStream_t stream) {
    int status = nvshmemx_collective_launch(f, grid, dim3(threads), args, 0, stream);
    if (status != 0) die("nvshmemx_collective_launch failed: " + std::to_string(status));
    CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
    Problem p = parse_problem(argc, argv);
    Place place = place_from_env("CG_NVSHMEM_");
    // NVLink multicast stays off (no cuMulticastCreate).
    setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
    int gpu = pick_gpu(place.rank);

    // Two symmetric buffers of the tallest band (the first), and room.
    std::vector<BandRows> all = bands(p.ny, place.ranks);
    BandRows rows = all[place.rank];
    if (rows.interior < 1) die("a band without rows: fewer rows than processes");
    size_t band_len = (size_t)all[0].rows() * p.nx;
    if (!getenv("NVSHMEM_SYMMETRIC_SIZE")) {
        size_t heap = 2 * band_len * sizeof(float) + (64u << 20);
        setenv("NVSHMEM_SYMMETRIC_SIZE", std::to_string(heap).c_str(), 1);
    }

    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (place.rank == 0 && nvshmemx_get_uniqueid(&id) != 0) die("nvshmemx_get_uniqueid failed");
    share_id(place, &id, sizeof id);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(place.rank, place.ranks, &id, &attr) != 0)
        die("nvshmemx_set_attr_uniqueid_args failed");
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (nvshmem_my_pe() != place.rank || nvshmem_n_pes() != place.ranks)
        die("NVSHMEM's processing element differs from the rank");

    float* a = (float*)nvshmem_malloc(band_len * sizeof(float));
    float* b = (float*)nvshmem_malloc(band_len * sizeof(float));
    uint64_t* sig = (uint64_t*)nvshmem_malloc(4 * sizeof(uint64_t));
    if (!a || !b || !sig) die("nvshmem_malloc failed (NVSHMEM_SYMMETRIC_SIZE too small?)");
    CUDA_CHECK(cudaMemset(sig, 0, 4 * sizeof(uint64_t)));
    uint64_t* barrier_sig = sig + 2;
    Neighbours nb{place.rank > 0 ? place.rank - 1 : -1,
                  place.rank + 1 < place.ranks ? place.rank + 1 : -1,
                  place.rank > 0 ? all[place.rank - 1].interior + 1 : 0};
    Neighbours none{-1, -1, 0};
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto wait = [&] { CUDA_CHECK(cudaStreamSynchronize(stream)); };
    auto barrier = [] { nvshmem_barrier_all(); };
    CUDA_CHECK(cudaDeviceSynchronize());
    barrier();

    std::vector<float> init = initial_field(p.nx, p.ny);
    unsigned band_rows = rows.rows();
    uint64_t base = 0;
    void* args[] = {&a, &b, (void*)&p.nx, &band_rows, &p.sweeps, &nb, &sig, &base};
    const void* kernel = (const void*)jacobi_persistent;
    dim3 full = grid_for(kernel, 256, false, args), lean = grid_for(kernel, 1024, true, args);

    bool all_verified = true;
    // The single-GPU field, on this rank's GPU; rank 0 times it, one launch
    // per sweep and the persistent kernel over the whole field.
    double single_ms = 0;
    std::vector<float> whole;
    {
        Whole w(init);
        whole = reference_field(w, init, p, stream);
        if (place.rank == 0) {
            Timing t = wall_time(p.runs, [&] { single_gpu_sweeps(w, p, stream); }, wait);
            single_ms = t.ms;
            print_line(place, gpu, p, "1 GPU, launch per sweep", t, "", 0, true);
            for (auto shape : {std::pair{full, 256u}, std::pair{lean, 1024u}}) {
                dim3 grid = shape.first;
                unsigned threads = shape.second;
                uint64_t zero = 0;
                void* one[] = {&w.a, &w.b, (void*)&p.nx, (void*)&p.ny, &p.sweeps, &none, &sig, &zero};
                auto run = [&] {
                    CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, grid, dim3(threads), one, 0, stream));
                };
                w.reset(init);
                run();
                wait();
                std::vector<float> got = to_host(w.result(p.sweeps), w.n);
                std::string mismatch = compare_band(got, whole, BandRows{1, p.ny - 2}, p.nx);
                // compare_band reads rows 1.. of `got` as the band's: the
                // whole field's rows 1 .. ny - 2, against themselves.
                all_verified = all_verified && mismatch.empty();
                Timing tp = wall_time(p.runs, run, wait);
                single_ms = std::min(single_ms, tp.ms);
                print_line(place, gpu, p,
                           "1 GPU, persistent " + std::to_string(grid.x) + "x" +
                               std::to_string(threads),
                           tp, mismatch, 0);
            }
        }
    }

    auto reset = [&] {
        const float* from = &init[(size_t)(rows.first - 1) * p.nx];
        size_t len = (size_t)band_rows * p.nx;
        CUDA_CHECK(cudaMemcpy(a, from, len * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b, from, len * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
    };
    for (auto shape : {std::pair{full, 256u}, std::pair{lean, 1024u}}) {
        dim3 grid = shape.first;
        unsigned threads = shape.second;
        auto run = [&] {
            collective_launch(kernel, grid, threads, args, stream);
            base += p.sweeps;  // the launch has read its arguments
        };
        reset();
        barrier();  // no neighbour puts into a buffer not yet reset
        run();
        wait();
        std::string mismatch =
            compare_band(to_host(p.sweeps % 2 ? b : a, (size_t)band_rows * p.nx), whole, rows, p.nx);
        all_verified = all_verified && mismatch.empty();
        Timing t = wall_time(p.runs, run, wait, barrier);
        print_line(place, gpu, p,
                   "NVSHMEM persistent " + std::to_string(grid.x) + "x" + std::to_string(threads) +
                       " (put_signal, neighbour signals, grid.sync)",
                   t, mismatch, place.rank == 0 ? single_ms / t.ms : 0.0);
    }

    // The synchronisation alone: 10,000 in one launch minus none, on the
    // Jacobi kernel's full grid (or fewer blocks if these kernels fit fewer).
    const unsigned iters = 10000;
    uint64_t barrier_base = 0;
    unsigned count = 0;
    void* neighbour_args[] = {&count, &nb, &barrier_sig, &barrier_base};
    void* global_args[] = {&count};
    auto per_barrier = [&](const void* f, void** f_args) {
        dim3 grid(std::min(full.x, grid_for(f, 256, false, f_args).x));
        auto timed = [&](unsigned n) {
            auto run = [&] {
                count = n;
                collective_launch(f, grid, 256, f_args, stream);
                barrier_base += n;  // the launch has read its arguments
            };
            return wall_time(5, run, wait, barrier).ms;
        };
        double none_ms = timed(0), some_ms = timed(iters);
        return (some_ms - none_ms) * 1e6 / iters;
    };
    double neighbour_ns = per_barrier((const void*)neighbour_barriers, neighbour_args);
    double global_ns = per_barrier((const void*)global_barriers, global_args);
    if (place.rank == 0) {
        printf("nvshmem barrier: %.0f ns (the Jacobi kernel's per-sweep synchronisation alone: "
               "signals to and from the neighbours + grid.sync, %ux256 grid, %d GPUs)\n",
               neighbour_ns, full.x, place.ranks);
        printf("nvshmem barrier_all: %.0f ns (grid.sync + nvshmemx_barrier_all_block + grid.sync, "
               "every block of every GPU)\n",
               global_ns);
        fflush(stdout);
    }

    barrier();
    nvshmem_free(sig);
    nvshmem_free(b);
    nvshmem_free(a);
    nvshmem_finalize();
    return all_verified ? 0 : 1;
}
