// One-kernel driver-API probe of the corpus's `exclusive_scan` (see README.md).
//
//   harness LABEL MODULE.{ptx,cubin}      run every case on GPU 0
//   harness --cpu-selftest                 check the CPU reference only (no GPU)
//
// Launches `exclusive_scan` cooperatively, as the Rust host does:
//   params (7 x u64, PTX `.entry exclusive_scan(...)`):
//     0 x ptr, 1 x len (n), 2 y ptr, 3 y len (n), 4 block_totals ptr,
//     5 block_totals len (= blocks), 6 exclusive_scan_cg_grid_barrier
//   param 6 / module global `cg_grid_barrier`: a 4 KiB-aligned, zeroed place of
//   16 counters x 4 KiB (cg_core::grid::layout::SLOT_BYTES = 64 KiB).
// Compares block_totals and y with a CPU reference; prints one line a case.
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <string>
#include <vector>

static const unsigned THREADS = 256;        // corpus/bench: THREADS
static const size_t BENCH_N = 4194304;      // corpus-bench --quick, exclusive_scan
static const size_t GUARD = 1024;           // u32 after y and block_totals, must stay 0xffffffff
static const uint64_t SLOT_BYTES = 16 * 4096; // cg_core::grid::layout::{COUNTERS * COUNTER_STRIDE}
static const double HANG_S = 5.0;           // in-process watchdog per launch

#define CK(call)                                                                      \
    do {                                                                              \
        CUresult r_ = (call);                                                         \
        if (r_ != CUDA_SUCCESS) {                                                     \
            const char *s_ = 0;                                                       \
            cuGetErrorName(r_, &s_);                                                  \
            printf("  CUDA ERROR %s (%d) in %s (line %d)\n", s_ ? s_ : "?", (int)r_, \
                   #call, __LINE__);                                                  \
            fflush(stdout);                                                           \
            _exit(3);                                                                 \
        }                                                                             \
    } while (0)

// ports_common::Lcg and corpus/bench next_u32 (seed 3): the bench's input.
struct Lcg {
    uint64_t s;
    uint32_t next_u31() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return (uint32_t)(s >> 33);
    }
    uint32_t next_u32() {
        uint32_t a = next_u31();
        uint32_t b = next_u31();
        return (a << 1) ^ (b >> 15);
    }
};

struct Case {
    std::string name;
    size_t n;
    unsigned blocks; // 0: the most co-resident blocks of 256 threads (as the bench)
};

struct Expect {
    size_t c;                     // chunk length: ceil(n / blocks)
    std::vector<uint32_t> totals; // per block
    std::vector<uint32_t> y;      // exclusive scan, wrapping
};

static Expect reference(const uint32_t *x, size_t n, unsigned blocks) {
    Expect e;
    e.c = (n + blocks - 1) / blocks;
    e.totals.assign(blocks, 0);
    e.y.resize(n);
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) {
        e.y[i] = s;
        s += x[i];
    }
    for (unsigned b = 0; b < blocks; b++) {
        size_t lo = std::min(b * e.c, n), hi = std::min(lo + e.c, n);
        uint32_t t = 0;
        for (size_t i = lo; i < hi; i++) t += x[i];
        e.totals[b] = t;
    }
    return e;
}

// Block b's sum split as phase 1's loop runs it (trip = elements of a thread,
// unrolled by 8: the first trip & ~7 in the main loop, the last trip & 7 in
// the remainder); also the trip range and the remainders (trip & 7) present.
struct Split {
    uint32_t main, rem;
    size_t trip_lo, trip_hi;
    unsigned rem_mask; // bit r set when some thread has trip & 7 == r (threads with trip 0 excluded)
    unsigned idle;     // threads with no element
};

static Split split(const uint32_t *x, size_t n, size_t c, unsigned b) {
    Split s = {0, 0, (size_t)-1, 0, 0, 0};
    size_t lo = std::min(b * c, n), len = std::min(lo + c, n) - lo;
    for (unsigned t = 0; t < THREADS; t++) {
        size_t trip = t < len ? (len - 1 - t) / THREADS + 1 : 0;
        if (trip == 0) { s.idle++; continue; }
        s.trip_lo = std::min(s.trip_lo, trip);
        s.trip_hi = std::max(s.trip_hi, trip);
        s.rem_mask |= 1u << (trip & 7);
        for (size_t k = 0; k < trip; k++) {
            uint32_t v = x[lo + t + k * THREADS];
            if (k < (trip & ~(size_t)7)) s.main += v; else s.rem += v;
        }
    }
    if (s.trip_lo == (size_t)-1 || s.idle) s.trip_lo = 0; // 0: some thread has no element
    return s;
}

static std::string rems(unsigned mask) {
    std::string r;
    for (int i = 0; i < 8; i++)
        if (mask >> i & 1) { if (!r.empty()) r += ","; r += std::to_string(i); }
    return r.empty() ? "-" : r;
}

static int cpu_selftest(const std::vector<uint32_t> &x) {
    // The bench's log: n=4194304, 792 x 256; the CPU's value at 5296 is 1370564733.
    Expect e = reference(x.data(), BENCH_N, 792);
    int ok = e.c == 5296 && e.y[5296] == 1370564733u && e.y[5296] == e.totals[0];
    printf("cpu selftest: chunk %zu (want 5296), y[5296] = %u (want 1370564733), totals[0] = %u: %s\n",
           e.c, e.y[5296], e.totals[0], ok ? "ok" : "MISMATCH");
    Split s = split(x.data(), BENCH_N, e.c, 0);
    printf("  block 0: trips %zu-%zu, remainders {%s}, main+rem = %u (+%u) = %u\n", s.trip_lo,
           s.trip_hi, rems(s.rem_mask).c_str(), s.main, s.rem, s.main + s.rem);
    return ok && s.main + s.rem == e.totals[0] ? 0 : 1;
}

static double now_s() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    std::vector<uint32_t> x(BENCH_N);
    {
        Lcg rng = {3};
        for (auto &v : x) v = rng.next_u32();
    }
    if (argc == 2 && !strcmp(argv[1], "--cpu-selftest")) return cpu_selftest(x);
    if (argc != 3) {
        fprintf(stderr, "usage: %s LABEL MODULE.{ptx,cubin} | --cpu-selftest\n", argv[0]);
        return 2;
    }
    const char *label = argv[1], *path = argv[2];
    setvbuf(stdout, 0, _IOLBF, 0);

    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int sms = 0, coop = 0;
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CK(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));

    // Load: PTX through the driver's JIT (what corpus-bench does: cuModuleLoadData),
    // a cubin as it is.
    CUmodule mod;
    std::string p(path);
    if (p.size() > 4 && p.substr(p.size() - 4) == ".ptx") {
        FILE *f = fopen(path, "rb");
        if (!f) { printf("  cannot open %s\n", path); return 2; }
        std::string src;
        char buf[65536];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) src.append(buf, k);
        fclose(f);
        static char log[16384], elog[16384];
        CUjit_option o[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *v[] = {log, (void *)(uintptr_t)sizeof log, elog, (void *)(uintptr_t)sizeof elog};
        double t0 = now_s();
        CUresult r = cuModuleLoadDataEx(&mod, src.c_str(), 4, o, v);
        if (r != CUDA_SUCCESS) { printf("  JIT failed (%d): %s\n", (int)r, elog); return 3; }
        printf("  loaded PTX through the driver JIT in %.2f s\n", now_s() - t0);
    } else {
        CK(cuModuleLoad(&mod, path));
    }
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, "exclusive_scan"));
    int regs = 0, smem = 0, local = 0, per_sm = 0;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CK(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    CK(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
    CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, THREADS, 0));
    unsigned auto_blocks = (unsigned)(per_sm * sms);
    printf("  %s: %d registers, %d B static smem, %d B local; %d blocks of 256 per SM x %d SMs = %u "
           "co-resident; cooperative launch %s\n",
           label, regs, smem, local, per_sm, sms, auto_blocks, coop ? "yes" : "NO");

    // The grid barrier's place: as host/src/grid_barrier.rs, SLOTS places + 4 KiB,
    // zeroed, the first place aligned to 4 KiB; slot 0 used.
    CUdeviceptr region;
    size_t region_bytes = 32 * SLOT_BYTES + 4096;
    CK(cuMemAlloc(&region, region_bytes));
    CK(cuMemsetD8(region, 0, region_bytes));
    uint64_t place = (region + 4095) & ~(uint64_t)4095;
    // The module word too (host/src/module.rs connect_grid_barrier); the entry
    // reads the parameter, a non-inlined barrier would read the word.
    CUdeviceptr gword;
    size_t gsize = 0;
    if (cuModuleGetGlobal(&gword, &gsize, mod, "cg_grid_barrier") == CUDA_SUCCESS && gsize == 8) {
        CK(cuMemcpyHtoD(gword, &place, 8));
    } else {
        printf("  note: no 8-byte module global cg_grid_barrier (set only the parameter)\n");
    }

    std::vector<Case> cases;
    cases.push_back({"bench", BENCH_N, 0});
    unsigned B = (unsigned)sms; // one block an SM
    for (unsigned t = 1; t <= 16; t++)
        cases.push_back({"chunk=256*" + std::to_string(t), (size_t)B * THREADS * t, B});
    cases.push_back({"chunk=256*4+128", (size_t)B * (THREADS * 4 + 128), B});
    cases.push_back({"chunk=256*8+128", (size_t)B * (THREADS * 8 + 128), B});
    cases.push_back({"chunk=100", (size_t)B * 100, B});
    cases.push_back({"chunk=16", (size_t)B * 16, B});
    cases.push_back({"ragged", 1000003, B});
    cases.push_back({"bench-n,132blk", BENCH_N, B});

    size_t max_n = BENCH_N, max_blocks = std::max<size_t>(auto_blocks, B);
    CUdeviceptr dx, dy, dt;
    CK(cuMemAlloc(&dx, max_n * 4));
    CK(cuMemAlloc(&dy, (max_n + GUARD) * 4));
    CK(cuMemAlloc(&dt, (max_blocks + GUARD) * 4));
    CK(cuMemcpyHtoD(dx, x.data(), max_n * 4));
    CUstream st;
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));

    printf("  %-16s %8s %9s %6s %7s %-7s | %-12s %-18s %s\n", "case", "n", "grid", "chunk", "trips",
           "rem8", "totals bad", "y bad (own tot.)", "guards");
    int good = 0, ran = 0, shown = 0;
    std::string bad_cases;
    for (const Case &cs : cases) {
        unsigned blocks = cs.blocks ? cs.blocks : auto_blocks;
        size_t n = cs.n;
        Expect e = reference(x.data(), n, blocks);
        Split s0 = split(x.data(), n, e.c, 0);
        if (blocks > auto_blocks || blocks == 0) {
            printf("  %-16s skipped: %u blocks, at most %u co-resident\n", cs.name.c_str(), blocks, auto_blocks);
            continue;
        }
        CK(cuMemsetD32Async(dy, 0xffffffffu, n + GUARD, st));
        CK(cuMemsetD32Async(dt, 0xffffffffu, blocks + GUARD, st));
        CK(cuMemsetD8Async(place, 0, SLOT_BYTES, st));
        uint64_t xp = dx, yp = dy, tp = dt, nl = n, bl = blocks, pl = place;
        void *params[] = {&xp, &nl, &yp, &nl, &tp, &bl, &pl};
        CK(cuLaunchCooperativeKernel(fn, blocks, 1, 1, THREADS, 1, 1, 0, st, params));
        double t0 = now_s();
        CUresult q;
        while ((q = cuStreamQuery(st)) == CUDA_ERROR_NOT_READY) {
            if (now_s() - t0 > HANG_S) {
                printf("  %-16s HANG: the launch did not finish in %.0f s; giving up on this module\n",
                       cs.name.c_str(), HANG_S);
                fflush(stdout);
                _exit(4);
            }
            usleep(200);
        }
        CK(q);
        std::vector<uint32_t> y(n + GUARD), tot(blocks + GUARD);
        CK(cuMemcpyDtoH(y.data(), dy, (n + GUARD) * 4));
        CK(cuMemcpyDtoH(tot.data(), dt, (blocks + GUARD) * 4));
        ran++;

        size_t tbad = 0, ybad = 0, yown = 0, first_t = (size_t)-1, first_y = (size_t)-1;
        for (unsigned b = 0; b < blocks; b++)
            if (tot[b] != e.totals[b]) { tbad++; if (first_t == (size_t)-1) first_t = b; }
        for (size_t i = 0; i < n; i++)
            if (y[i] != e.y[i]) { ybad++; if (first_y == (size_t)-1) first_y = i; }
        // y as phases 2-3 would make it from the GPU's own block totals.
        {
            uint32_t off = 0;
            for (unsigned b = 0; b < blocks; b++) {
                size_t lo = std::min(b * e.c, n), hi = std::min(lo + e.c, n);
                uint32_t s = off;
                for (size_t i = lo; i < hi; i++) { if (y[i] != s) yown++; s += x[i]; }
                off += tot[b];
            }
        }
        bool guards = true;
        for (size_t i = 0; i < GUARD; i++)
            guards = guards && y[n + i] == 0xffffffffu && tot[blocks + i] == 0xffffffffu;
        char trips[32], grid[32];
        snprintf(trips, sizeof trips, "%zu-%zu", s0.trip_lo, s0.trip_hi);
        snprintf(grid, sizeof grid, "%ux256", blocks);
        char tb[32], yb[48];
        snprintf(tb, sizeof tb, "%zu/%u", tbad, blocks);
        snprintf(yb, sizeof yb, "%zu (%zu)", ybad, yown);
        bool ok = tbad == 0 && ybad == 0 && guards;
        printf("  %-16s %8zu %9s %6zu %7s %-7s | %-12s %-18s %s%s\n", cs.name.c_str(), n, grid, e.c, trips,
               rems(s0.rem_mask).c_str(), tb, yb, guards ? "ok" : "OVERWRITTEN", ok ? "" : "   <-- WRONG");
        if (ok) { good++; continue; }
        bad_cases += " " + cs.name;
        if (++shown > 5) continue; // details for the first 5 wrong cases only
        if (first_t != (size_t)-1) {
            unsigned b = (unsigned)first_t;
            Split s = split(x.data(), n, e.c, b);
            printf("      first bad total: block %u gpu=%u (0x%08x) cpu=%u [main-loop part %u, remainder part %u, "
                   "idle threads %u]\n",
                   b, tot[b], tot[b], e.totals[b], s.main, s.rem, s.idle);
            printf("      totals[0..4] gpu:");
            for (unsigned i = 0; i < 4 && i < blocks; i++) printf(" %u", tot[i]);
            printf("  cpu:");
            for (unsigned i = 0; i < 4 && i < blocks; i++) printf(" %u", e.totals[i]);
            printf("\n");
        }
        if (first_y != (size_t)-1) {
            size_t i = first_y;
            printf("      first bad y: [%zu] (block %zu +%zu) gpu=%u cpu=%u\n", i, i / e.c, i % e.c, y[i], e.y[i]);
        }
    }
    printf("  SUMMARY %s: %d of %d cases right;%s%s\n", label, good, ran, bad_cases.empty() ? "" : " wrong:",
           bad_cases.c_str());
    return good == ran ? 0 : 1;
}
