// Jacobi on several GPUs with NCCL, one process per GPU, in the design of
// NVIDIA's multi-gpu-programming-models `nccl_overlap` and `nccl_graphs`
// samples (written anew here for our problem; none of their code): the
// baseline of the Rust sample's NCCL method (`jacobi --nccl-process`, which
// sweeps the whole band, then exchanges its halo rows on the same stream).
//
// Per sweep, on a high-priority "push" stream: the band's first and last
// interior rows (two small launches), then their exchange with the
// neighbours (ncclGroupStart, ncclSend/ncclRecv, ncclGroupEnd); meanwhile,
// on the low-priority compute stream, the rows between them. Events join
// the two before the next sweep: the push stream waits for the compute
// stream's previous sweep (whose rows its boundary rows read), the compute
// stream for the push stream's exchange (the halo rows the next sweep
// reads). Two forms: these calls issued sweep by sweep, and the same two
// sweeps (a -> b, b -> a) captured once as a CUDA graph, replayed sweeps/2
// times. `--graph` runs only the graph, `--streams` only the other; both
// by default.
//
// Rank and ranks from CG_NCCL_RANK / CG_NCCL_RANKS, the NCCL unique id
// through the file CG_NCCL_ID_FILE (rank 0 writes it), GPU rank % count.
// Each rank checks its band bit for bit against the same kernel run over
// the whole field on its own GPU (one launch per sweep); rank 0 also times
// that single-GPU run, the speed-up's base.
//
// Build: nvcc -O3 -arch=sm_90 -I<nccl>/include jacobi_nccl.cu
//        -L<nccl>/lib -l:libnccl.so.2 -Xlinker -rpath=<nccl>/lib
#include <nccl.h>

#include "jacobi_common.cuh"

#define NCCL_CHECK(call)                                                                   \
    do {                                                                                   \
        ncclResult_t status_ = (call);                                                     \
        if (status_ != ncclSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                    ncclGetErrorString(status_));                                          \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

/// One rank's band, its neighbours, streams and events.
struct Band {
    BandRows rows;
    unsigned nx;
    int rank, ranks;
    float *a = nullptr, *b = nullptr;
    ncclComm_t comm;
    cudaStream_t compute, push;
    /// Recorded on the compute stream when a sweep may start (the previous
    /// one complete there); the push stream waits for it.
    cudaEvent_t ready;
    /// Recorded on the push stream when the halo exchange is done; the
    /// compute stream waits for it.
    cudaEvent_t pushed;

    size_t len() const { return (size_t)rows.rows() * nx; }

    /// The band's rows of `init` in both buffers, complete (see
    /// `Whole::reset`).
    void reset(const std::vector<float>& init) {
        const float* from = &init[(size_t)(rows.first - 1) * nx];
        CUDA_CHECK(cudaMemcpy(a, from, len() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b, from, len() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    /// One sweep from `src` into `dst`, issued on the two streams.
    void sweep_once(const float* src, float* dst) {
        unsigned last = rows.rows() - 2;  // the last interior row
        CUDA_CHECK(cudaEventRecord(ready, compute));
        CUDA_CHECK(cudaStreamWaitEvent(push, ready, 0));
        // The boundary rows first, on the high-priority stream.
        sweep_rows(src, dst, nx, 1, 2, push);
        if (last > 1) sweep_rows(src, dst, nx, last, last + 1, push);
        // Their exchange, while the compute stream sweeps the rest.
        NCCL_CHECK(ncclGroupStart());
        if (rank > 0) {
            NCCL_CHECK(ncclSend(dst + nx, nx, ncclFloat, rank - 1, comm, push));
            NCCL_CHECK(ncclRecv(dst, nx, ncclFloat, rank - 1, comm, push));
        }
        if (rank + 1 < ranks) {
            NCCL_CHECK(ncclSend(dst + (size_t)last * nx, nx, ncclFloat, rank + 1, comm, push));
            NCCL_CHECK(ncclRecv(dst + (size_t)(last + 1) * nx, nx, ncclFloat, rank + 1, comm, push));
        }
        NCCL_CHECK(ncclGroupEnd());
        CUDA_CHECK(cudaEventRecord(pushed, push));
        sweep_rows(src, dst, nx, 2, last, compute);
        CUDA_CHECK(cudaStreamWaitEvent(compute, pushed, 0));
    }

    /// Sweeps `s0 .. s1` issued one by one (a -> b on even sweeps).
    void sweeps(unsigned s0, unsigned s1) {
        for (unsigned s = s0; s < s1; s++) {
            if (s % 2 == 0)
                sweep_once(a, b);
            else
                sweep_once(b, a);
        }
    }

    /// The buffer holding the band after `n` sweeps.
    float* result(unsigned n) const { return n % 2 ? b : a; }
};

/// Two sweeps, a -> b -> a, captured from the compute stream (the push
/// stream joining through the events) and instantiated keeping the push
/// kernels' priority. Two sweeps run first, uncaptured: NCCL connects to a
/// peer at the first transfer, which must not happen during a capture
/// (NVIDIA's sample warms NCCL up the same way).
cudaGraphExec_t capture_two_sweeps(Band& band) {
    band.sweeps(0, 2);
    CUDA_CHECK(cudaStreamSynchronize(band.compute));
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(band.compute, cudaStreamCaptureModeGlobal));
    band.sweeps(0, 2);
    CUDA_CHECK(cudaStreamEndCapture(band.compute, &graph));
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagUseNodePriority));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaGraphUpload(exec, band.compute));
    return exec;
}

int main(int argc, char** argv) {
    Problem p = parse_problem(argc, argv);
    bool want_graph = !has_flag(argc, argv, "--streams");
    bool want_streams = !has_flag(argc, argv, "--graph");
    Place place = place_from_env("CG_NCCL_");
    // NVLink multicast stays off (no cuMulticastCreate).
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    int gpu = pick_gpu(place.rank);

    ncclUniqueId id;
    if (place.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    share_id(place, &id, sizeof id);

    Band band;
    NCCL_CHECK(ncclCommInitRank(&band.comm, place.ranks, id, place.rank));
    band.rank = place.rank;
    band.ranks = place.ranks;
    band.nx = p.nx;
    band.rows = bands(p.ny, place.ranks)[place.rank];
    if (band.rows.interior < 1) die("a band without rows: fewer rows than processes");
    int least, greatest;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&band.compute, cudaStreamNonBlocking, least));
    CUDA_CHECK(cudaStreamCreateWithPriority(&band.push, cudaStreamNonBlocking, greatest));
    CUDA_CHECK(cudaEventCreateWithFlags(&band.ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&band.pushed, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&band.a, band.len() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&band.b, band.len() * sizeof(float)));

    std::vector<float> init = initial_field(p.nx, p.ny);
    auto wait = [&] { CUDA_CHECK(cudaStreamSynchronize(band.compute)); };

    // The single-GPU field, on this rank's GPU; rank 0 times it.
    double single_ms = 0;
    std::vector<float> whole;
    {
        Whole w(init);
        whole = reference_field(w, init, p, band.compute);
        if (place.rank == 0) {
            Timing t = wall_time(p.runs, [&] { single_gpu_sweeps(w, p, band.compute); }, wait);
            single_ms = t.ms;
            print_line(place, gpu, p, "1 GPU, launch per sweep (no NCCL)", t, "", 0, true);
        }
    }

    bool all_verified = true;
    auto check = [&] {
        std::string m = compare_band(to_host(band.result(p.sweeps), band.len()), whole, band.rows,
                                     p.nx);
        all_verified = all_verified && m.empty();
        return m;
    };
    auto speedup = [&](Timing t) { return place.rank == 0 ? single_ms / t.ms : 0.0; };
    const char* name = "NCCL, boundary rows first, halo exchange overlapped";

    if (want_streams) {
        band.reset(init);
        band.sweeps(0, p.sweeps);
        wait();
        std::string mismatch = check();
        Timing t = wall_time(p.runs, [&] { band.sweeps(0, p.sweeps); }, wait);
        print_line(place, gpu, p, name, t, mismatch, speedup(t));
    }
    if (want_graph) {
        cudaGraphExec_t two = capture_two_sweeps(band);
        auto run = [&] {
            for (unsigned s = 0; s + 1 < p.sweeps; s += 2)
                CUDA_CHECK(cudaGraphLaunch(two, band.compute));
            if (p.sweeps % 2) band.sweeps(p.sweeps - 1, p.sweeps);
        };
        band.reset(init);
        run();
        wait();
        std::string mismatch = check();
        Timing t = wall_time(p.runs, run, wait);
        print_line(place, gpu, p, std::string(name) + ", CUDA graph", t, mismatch,
                   speedup(t));
        CUDA_CHECK(cudaGraphExecDestroy(two));
    }

    CUDA_CHECK(cudaFree(band.a));
    CUDA_CHECK(cudaFree(band.b));
    NCCL_CHECK(ncclCommDestroy(band.comm));
    return all_verified ? 0 : 1;
}
