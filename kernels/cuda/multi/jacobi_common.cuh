// What the two multi-GPU Jacobi programs of this folder share (the NCCL one,
// jacobi_nccl.cu, and the NVSHMEM one, jacobi_nvshmem.cu): the problem and
// its options, the split of the field into bands of rows, the sweep kernel,
// the single-GPU reference, the hand-over of a unique id through a file,
// wall-clock timing and the printed lines.
//
// The problem is the one of the Rust sample `jacobi --gpus N`
// (src/experiments/jacobi_multi.rs): an nx x ny f32 field whose outer rows
// and columns are fixed, each interior point replaced by the mean of its
// four neighbours, 0.25f * (((west + east) + north) + south), for a number
// of sweeps; 8192 x 8192 and 1000 sweeps, or 512 x 512 and 50 with
// --quick. The interior rows are split into one band per process with the
// Rust `bands()` rule; a band's buffers hold its interior rows and a halo
// row above and below.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t status_ = (call);                                                      \
        if (status_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                    cudaGetErrorString(status_));                                          \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

/// Stops the program with a message (exit status 2: it could not run).
[[noreturn]] inline void die(const std::string& message) {
    fprintf(stderr, "%s\n", message.c_str());
    exit(2);
}

// ---- the problem and the options ------------------------------------------

/// The field, the sweeps and the timed runs.
struct Problem {
    unsigned nx, ny, sweeps;
    int runs;
};

/// `--quick` (512 x 512, 50 sweeps; else 8192 x 8192, 1000) and `--runs N`
/// (timed runs after the warm-up, at least 5; 7 by default).
inline Problem parse_problem(int argc, char** argv) {
    Problem p{8192, 8192, 1000, 7};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            p.nx = p.ny = 512;
            p.sweeps = 50;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            p.runs = std::max(5, atoi(argv[++i]));
        }
    }
    return p;
}

/// Whether `flag` is among the arguments.
inline bool has_flag(int argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], flag)) return true;
    return false;
}

/// One process's place: rank, ranks, and the file of the unique id.
struct Place {
    int rank, ranks;
    std::string id_file;
};

/// The first of `names` that is set in the environment, or null.
inline const char* first_env(std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (const char* v = getenv(n)) return v;
    return nullptr;
}

/// The rank, ranks and id file from `prefix`_RANK, _RANKS, _ID_FILE, or from
/// the CG_NCCL_ ones (which gpu-run's `Job::ranks` sets).
inline Place place_from_env(const char* prefix) {
    auto get = [&](const char* what) {
        std::string own = std::string(prefix) + what, nccl = std::string("CG_NCCL_") + what;
        const char* v = first_env({own.c_str(), nccl.c_str()});
        if (!v)
            die((own == nccl ? nccl : own + " nor " + nccl) +
                " is not set: each process needs CG_NCCL_RANK, CG_NCCL_RANKS and CG_NCCL_ID_FILE");
        return std::string(v);
    };
    Place p{atoi(get("RANK").c_str()), atoi(get("RANKS").c_str()), get("ID_FILE")};
    if (p.ranks < 1 || p.rank < 0 || p.rank >= p.ranks) die("bad rank or rank count");
    return p;
}

/// Makes this process's GPU `rank % count` current; returns its ordinal.
inline int pick_gpu(int rank) {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count < 1) die("no CUDA GPU");
    int gpu = rank % count;
    CUDA_CHECK(cudaSetDevice(gpu));
    CUDA_CHECK(cudaFree(0));
    return gpu;
}

// ---- the unique id through a file -----------------------------------------

/// Rank 0 writes `bytes` to `path` (hex, through `path.tmp` and a rename, so
/// that no reader sees half a file); the others wait up to 120 s for the
/// file and read the bytes from it.
inline void share_id(const Place& place, void* bytes, size_t n) {
    auto* b = static_cast<unsigned char*>(bytes);
    if (place.rank == 0) {
        std::string tmp = place.id_file + ".tmp";
        FILE* f = fopen(tmp.c_str(), "w");
        if (!f) die("cannot write " + tmp);
        for (size_t i = 0; i < n; i++) fprintf(f, "%02x", b[i]);
        fclose(f);
        if (rename(tmp.c_str(), place.id_file.c_str()) != 0)
            die("cannot rename " + tmp + " to " + place.id_file);
        return;
    }
    auto start = std::chrono::steady_clock::now();
    for (;;) {
        if (FILE* f = fopen(place.id_file.c_str(), "r")) {
            std::vector<char> text(2 * n + 1, 0);
            size_t got = fread(text.data(), 1, 2 * n, f);
            fclose(f);
            if (got != 2 * n) die(place.id_file + " is too short for the unique id");
            for (size_t i = 0; i < n; i++) {
                unsigned v = 0;
                sscanf(&text[2 * i], "%2x", &v);
                b[i] = static_cast<unsigned char>(v);
            }
            return;
        }
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(120))
            die(place.id_file + " did not appear within 120 s: is rank 0 running?");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

// ---- the field and its bands ----------------------------------------------

/// A band: its first interior row in the field and its interior rows.
struct BandRows {
    unsigned first, interior;
    /// Rows in the band's buffers: the interior and two halo rows.
    unsigned rows() const { return interior + 2; }
};

/// The interior rows 1..ny-1 split into `parts` contiguous bands as even as
/// can be (the Rust sample's `bands()`).
inline std::vector<BandRows> bands(unsigned ny, unsigned parts) {
    unsigned interior = ny >= 2 ? ny - 2 : 0, first = 1;
    std::vector<BandRows> out;
    for (unsigned p = 0; p < parts; p++) {
        unsigned rows = interior / parts + (p < interior % parts ? 1 : 0);
        out.push_back({first, rows});
        first += rows;
    }
    return out;
}

/// The initial field: uniform in [-1, 1) from a fixed seed (splitmix64), the
/// same in every process. Never zeros: they would hide unwritten points.
inline std::vector<float> initial_field(unsigned nx, unsigned ny) {
    std::vector<float> f((size_t)nx * ny);
    uint64_t state = 0x5eed;
    for (auto& x : f) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        x = (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
    return f;
}

// ---- the sweep --------------------------------------------------------------

// One sweep over the interior points of an nx x ny field, walked with a grid
// stride: kernels/cuda/kernels.cu's `sweep` (the CUDA twin of the Rust
// kernels' walk), unchanged, so that these programs run the same code per
// point as the single-GPU twins.
__device__ __forceinline__ void sweep(const float* src, float* dst, unsigned nx, unsigned ny,
                                      unsigned rank, unsigned stride) {
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
        if (x >= w) {
            x -= w;
            i += 2;
        }
    }
}

/// One sweep of the interior of an nx x ny field (kernels.cu's
/// `jacobi_sweep` without the lengths): one launch per sweep.
__global__ void jacobi_sweep(const float* u, float* u_new, unsigned nx, unsigned ny) {
    sweep(u, u_new, nx, ny, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

/// Launches [`jacobi_sweep`] over rows `y0 .. y1` (exclusive) of an `nx`-wide
/// buffer pair: the sub-field of rows `y0 - 1 ..= y1`, whose interior they
/// are; one thread per point, blocks of 256. Nothing when the range is empty.
inline void sweep_rows(const float* src, float* dst, unsigned nx, unsigned y0, unsigned y1,
                       cudaStream_t stream) {
    if (y1 <= y0 || nx < 3) return;
    size_t at = (size_t)(y0 - 1) * nx;
    unsigned points = (nx - 2) * (y1 - y0);
    jacobi_sweep<<<(points + 255) / 256, 256, 0, stream>>>(src + at, dst + at, nx, y1 - y0 + 2);
    CUDA_CHECK(cudaGetLastError());
}

// ---- timing -----------------------------------------------------------------

/// A median over runs and its spread, (p90 - p10) / median.
struct Timing {
    double ms, spread;
};

/// The median wall-clock time of `runs` runs of `run` (after one warm-up),
/// each ended by `wait` (a cudaStreamSynchronize); `before`, if given, runs
/// before each, outside the time (a barrier of all processes).
template <class Run, class Wait, class Before>
Timing wall_time(int runs, Run run, Wait wait, Before before) {
    before();
    run();
    wait();
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        before();
        auto start = std::chrono::steady_clock::now();
        run();
        wait();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                              start)
                        .count());
    }
    std::sort(t.begin(), t.end());
    auto at = [&](double q) { return t[(size_t)((t.size() - 1) * q + 0.5)]; };
    double median = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    return {median, (at(0.9) - at(0.1)) / median};
}

template <class Run, class Wait>
Timing wall_time(int runs, Run run, Wait wait) {
    return wall_time(runs, run, wait, [] {});
}

// ---- the single-GPU reference ----------------------------------------------

/// The whole field on this process's GPU: two buffers holding `init`.
struct Whole {
    float *a = nullptr, *b = nullptr;
    size_t n = 0;
    Whole(const std::vector<float>& init) : n(init.size()) {
        CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
        reset(init);
    }
    /// Both buffers back to `init`, complete before anything else runs (a
    /// copy from pageable memory may return before its last DMA, and our
    /// streams do not wait for the legacy one).
    void reset(const std::vector<float>& init) {
        CUDA_CHECK(cudaMemcpy(a, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    /// The buffer holding the field after `sweeps` sweeps from `a`.
    float* result(unsigned sweeps) const { return sweeps % 2 ? b : a; }
    ~Whole() {
        cudaFree(a);
        cudaFree(b);
    }
};

/// `p.sweeps` sweeps of the whole field, one launch of [`jacobi_sweep`] each.
inline void single_gpu_sweeps(Whole& w, const Problem& p, cudaStream_t stream) {
    for (unsigned s = 0; s < p.sweeps; s++) {
        const float* src = s % 2 ? w.b : w.a;
        float* dst = s % 2 ? w.a : w.b;
        sweep_rows(src, dst, p.nx, 1, p.ny - 1, stream);
    }
}

/// The single-GPU field after `p.sweeps` sweeps from `init`, one launch per
/// sweep over the whole field on this process's GPU.
inline std::vector<float> reference_field(Whole& w, const std::vector<float>& init,
                                          const Problem& p, cudaStream_t stream) {
    w.reset(init);
    single_gpu_sweeps(w, p, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> out(w.n);
    CUDA_CHECK(cudaMemcpy(out.data(), w.result(p.sweeps), w.n * sizeof(float),
                          cudaMemcpyDeviceToHost));
    return out;
}

// ---- checking and printing --------------------------------------------------

/// Compares the interior rows of `band` (a buffer of the band's rows, copied
/// to the host) with the same rows of the single-GPU field, bit for bit;
/// empty when they match, else where they first differ.
inline std::string compare_band(const std::vector<float>& band, const std::vector<float>& whole,
                                const BandRows& b, unsigned nx) {
    for (unsigned r = 1; r <= b.interior; r++) {
        const float* got = &band[(size_t)r * nx];
        const float* want = &whole[(size_t)(b.first + r - 1) * nx];
        if (memcmp(got, want, nx * sizeof(float)) == 0) continue;
        for (unsigned x = 0; x < nx; x++) {
            if (memcmp(&got[x], &want[x], sizeof(float)) != 0) {
                char text[160];
                snprintf(text, sizeof text, "row %u, column %u: %.9g, one GPU %.9g",
                         b.first + r - 1, x, got[x], want[x]);
                return text;
            }
        }
    }
    return "";
}

/// The device buffer `d` of `n` floats on the host.
inline std::vector<float> to_host(const float* d, size_t n) {
    std::vector<float> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

/// One result line, in the form of the Rust `jacobi --nccl-process` lines:
/// `rank R of N (GPU g): Jacobi NX x NY, S sweeps, FORM: X ms (spread Y%),
/// Z sweeps/s, verified`; `mismatch` empty when verified; `speedup` > 0
/// appended (rank 0); `reference` for the run the others are checked
/// against, which says so instead of "verified".
inline void print_line(const Place& place, int gpu, const Problem& p, const std::string& form,
                       Timing t, const std::string& mismatch, double speedup,
                       bool reference = false) {
    char extra[64] = "";
    if (speedup > 0) snprintf(extra, sizeof extra, ", %.2fx over 1 GPU", speedup);
    printf("rank %d of %d (GPU %d): Jacobi %u x %u, %u sweeps, %s: %.2f ms (spread %.1f%%), %.0f "
           "sweeps/s, %s%s\n",
           place.rank, place.ranks, gpu, p.nx, p.ny, p.sweeps, form.c_str(), t.ms,
           100.0 * t.spread, p.sweeps / (t.ms * 1e-3),
           reference          ? "the reference"
           : mismatch.empty() ? "verified"
                              : ("FAILED: differs from one GPU at " + mismatch).c_str(),
           extra);
    fflush(stdout);
}
