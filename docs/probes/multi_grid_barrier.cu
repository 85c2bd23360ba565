// Multi-grid barrier designs on two GPUs: what multi_grid.sync() spends,
// and what a barrier with one counter per GPU (remote reductions, local
// polling) would. One process, both GPUs, one cooperative launch each.
// nvcc -O3 -arch=sm_90 -o mgb multi_grid_barrier.cu && ./mgb
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1);} } while (0)

__device__ __forceinline__ unsigned atom_add_rel_gpu(unsigned *p, unsigned v) {
  unsigned old; asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); return old; }
__device__ __forceinline__ unsigned atom_add_rel_sys(unsigned *p, unsigned v) {
  unsigned old; asm volatile("atom.add.release.sys.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); return old; }
__device__ __forceinline__ unsigned atom_add_acqrel_gpu(unsigned *p, unsigned v) {
  unsigned old; asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); return old; }
__device__ __forceinline__ void red_add_rel_sys(unsigned *p, unsigned v) {
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void red_add_rlx_sys(unsigned *p, unsigned v) {
  asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void fence_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ unsigned ld_acq_gpu(const unsigned *p) {
  unsigned v; asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ unsigned ld_acq_sys(const unsigned *p) {
  unsigned v; asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ unsigned ld_rlx_sys(const unsigned *p) {
  unsigned v; asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }

struct Ws {
  unsigned *word;        // this GPU's grid word (driver-style)
  unsigned *spread;      // 16 counters, 64 words apart, this GPU
  unsigned *set;         // the set's counter on GPU 0 (current design)
  unsigned *mine;        // this GPU's counter (new design)
  unsigned *peers[8];    // every GPU's counter (new design)
  unsigned *flat[8];     // every GPU's 16 spread counters of the flat design
  int rank, grids;
};

// Driver-word gather: the other blocks add 1, block 0 waits for them.
__device__ __forceinline__ unsigned word_arrive(const Ws &w) {
  unsigned old = 0;
  if (blockIdx.x != 0) old = atom_add_rel_gpu(w.word, 1);
  else while ((ld_acq_gpu(w.word) & 0x7fffffff) != gridDim.x - 1) {}
  return old;
}
__device__ __forceinline__ void word_release(const Ws &w) {
  atom_add_rel_gpu(w.word, 0x80000000u - (gridDim.x - 1));
}
__device__ __forceinline__ void word_wait(const Ws &w, unsigned old) {
  while (((old ^ ld_acq_gpu(w.word)) & 0x80000000u) == 0) {}
}

// Spread gather (cg-core's grid.sync(): 16 counters, block b on b % 16);
// `k` barriers so far: counter c expects k * share(c) arrivals.
__device__ __forceinline__ void spread_arrive(const Ws &w) {
  if (threadIdx.x == (blockIdx.x % 16)) atom_add_rel_gpu(w.spread + 64 * (blockIdx.x % 16), 1);
}
__device__ __forceinline__ void spread_wait(const Ws &w, unsigned k) {
  unsigned lane = threadIdx.x;
  bool done = lane >= 16;
  unsigned share = gridDim.x / 16 + (lane < gridDim.x % 16);
  unsigned want = k * share;
  while (true) {
    if (!done) done = (int)(ld_acq_gpu(w.spread + 64 * lane) - want) >= 0;
    if (__all_sync(0xffffffff, done)) break;
  }
}

// What grid `w.rank` adds to GPU `j`'s counter as it arrives: the grids'
// arrivals sum to bit 31 flipped, the low bits as they were.
__device__ __forceinline__ unsigned grid_arrival(const Ws &w, int j) {
  return j == w.rank ? 0x80000000u - (w.grids - 1) : 1;
}
// The grid's arrival on every GPU's counter, relaxed (block 0's thread 0,
// once its grid has arrived; after fence_sys() where it must be ordered).
__device__ __forceinline__ void arrive_on_every_gpu(const Ws &w) {
#pragma unroll
  for (int j = 0; j < 8; j++)
    if (j < w.grids) red_add_rlx_sys(w.peers[j], grid_arrival(w, j));
}
// V13/V14: what the last block of spread counter `c` of grid `w.rank` adds
// to GPU `j`'s counter: 16 leaders a grid, their adds summing to bit 31.
__device__ __forceinline__ unsigned leader_arrival(const Ws &w, int j, unsigned c) {
  return (j == w.rank && c == 0) ? 0x80000000u - (16 * w.grids - 1) : 1;
}
// Polls this GPU's counter until bit 31 differs from `ph`'s, at system
// scope (at gpu scope with `gpu`: a measurement only).
__device__ __forceinline__ void wait_flip(const Ws &w, unsigned ph, bool gpu = false) {
  if (gpu) while (((ph ^ ld_acq_gpu(w.mine)) & 0x80000000u) == 0) {}
  else while (((ph ^ ld_acq_sys(w.mine)) & 0x80000000u) == 0) {}
}

// The phase of this GPU's counter before barrier `i` (thread 0's value):
// read from the counter (the warp synchronized after the read), or, when
// `tracked` (V12, V14), from `ph0`, read once at the start, with bit 31
// flipped once a barrier.
__device__ __forceinline__ unsigned phase_before_arrival(const Ws &w, bool tracked, unsigned ph0, int i) {
  if (tracked) return ph0 ^ ((i & 1) ? 0x80000000u : 0u);
  unsigned ph = 0;
  if (threadIdx.x == 0) ph = ld_rlx_sys(w.mine);
  __syncwarp();
  return ph;
}

template <int V>
__global__ void barriers(Ws w, int iters, unsigned *out) {
  unsigned k0 = 0;
  if (V == 1 || V == 4 || V == 5 || V == 6) {
    // Where the spread counters stand at the start (they are never reset).
    k0 = 0;
  }
  // V12: the counter's phase read once, at the start (no barrier can be in
  // flight: this block has not arrived), then tracked.
  unsigned ph0 = 0;
  if ((V == 12 || V == 14) && threadIdx.x == 0) ph0 = ld_rlx_sys(w.mine);
  for (int i = 0; i < iters; i++) {
    __syncthreads();
    if (V == 0) {  // driver-word grid barrier alone
      if (threadIdx.x == 0) {
        unsigned old = word_arrive(w);
        if (blockIdx.x == 0) word_release(w); else word_wait(w, old);
      }
    } else if (V == 1) {  // spread grid barrier alone (every block polls)
      spread_arrive(w);
      if (threadIdx.x < 32) spread_wait(w, *(volatile unsigned *)&out[1] + i + 1);
    } else if (V == 2) {  // current multi_grid.sync()
      if (threadIdx.x == 0) {
        unsigned old = word_arrive(w);
        if (blockIdx.x == 0) {
          unsigned add = grid_arrival(w, 0);
          unsigned o = atom_add_rel_sys(w.set, add);
          while (((o ^ ld_acq_sys(w.set)) & 0x80000000u) == 0) {}
          word_release(w);
        } else word_wait(w, old);
      }
    } else if (V == 3) {  // word gather; per-GPU counters; every block polls its GPU's
      if (threadIdx.x == 0) {
        unsigned ph = ld_rlx_sys(w.mine);
        word_arrive(w);
        if (blockIdx.x == 0) {
          fence_sys();
          arrive_on_every_gpu(w);
          // clear the word's arrivals (no flip needed: nobody waits on it)
          atom_add_rel_gpu(w.word, 0u - (gridDim.x - 1));
        }
        wait_flip(w, ph);
      }
    } else if (V == 7) {  // flat: every block arrives on its counter of every GPU
      if (threadIdx.x == (blockIdx.x % 16)) {
        unsigned c = 64 * (blockIdx.x % 16);
        fence_sys();
#pragma unroll
        for (int j = 0; j < 8; j++) if (j < w.grids) red_add_rlx_sys(w.flat[j] + c, 1);
      }
      if (threadIdx.x < 32) {
        unsigned lane = threadIdx.x;
        bool done = lane >= 16;
        unsigned share = gridDim.x / 16 + (lane < gridDim.x % 16);
        unsigned want = (*(volatile unsigned *)&out[4] + (i + 1) * w.grids) * share;
        unsigned *own = w.flat[0];
#pragma unroll
        for (int j = 1; j < 8; j++) if (w.rank == j) own = w.flat[j];
        while (true) {
          if (!done) done = (int)(ld_acq_sys(own + 64 * lane) - want) >= 0;
          if (__all_sync(0xffffffff, done)) break;
        }
      }
    } else if (V == 8 || V == 9) {  // as V4, but only block 0 polls the GPU's counter (V8:
                                    // acquire.sys; V9: acquire.gpu, a measurement only), then
                                    // releases its grid through a word the others poll at gpu scope
      spread_arrive(w);
      if (blockIdx.x == 0) {
        if (threadIdx.x < 32) {
          unsigned ph = 0;
          if (threadIdx.x == 0) ph = ld_rlx_sys(w.mine);
          spread_wait(w, *(volatile unsigned *)&out[1] + i + 1);
          if (threadIdx.x == 0) {
            fence_sys();
            arrive_on_every_gpu(w);
            wait_flip(w, ph, V == 9);
            atom_add_rel_gpu(w.word + 256, 1);
          }
        }
      } else if (threadIdx.x == 0) {
        unsigned want = *(volatile unsigned *)&out[5] + i + 1;
        while ((int)(ld_acq_gpu(w.word + 256) - want) < 0) {}
      }
    } else if (V == 13 || V == 14) {
      // No block 0 hop: the last block to arrive on each spread counter
      // (its acq_rel atomic sees every other arrival there) fences at
      // system scope and arrives for its counter's blocks on every GPU's
      // counter; every block polls its GPU's. V14: the phase tracked, as V12.
      unsigned ph = phase_before_arrival(w, V == 14, ph0, i);
      unsigned c = blockIdx.x % 16;
      if (threadIdx.x == c) {
        unsigned share = gridDim.x / 16 + (c < gridDim.x % 16);
        unsigned want = (*(volatile unsigned *)&out[1] + i + 1) * share;
        if (atom_add_acqrel_gpu(w.spread + 64 * c, 1) + 1 == want) {
          fence_sys();
#pragma unroll
          for (int j = 0; j < 8; j++)
            if (j < w.grids) red_add_rlx_sys(w.peers[j], leader_arrival(w, j, c));
        }
      }
      if (threadIdx.x == 0) wait_flip(w, ph);
    } else if (V == 4 || V == 5 || V == 6 || V == 10 || V == 11 || V == 12) {
      // Spread gather, block 0 only; per-GPU counters; every block polls its
      // GPU's. V5: release reds; V6: a lane per GPU; V10: the polls at gpu
      // scope, V11: no fence (measurements only: not ordered); V12: the
      // phase read once at the start, not before each arrival.
      unsigned ph = phase_before_arrival(w, V == 12, ph0, i);
      spread_arrive(w);
      if (blockIdx.x == 0 && threadIdx.x < 32) {
        spread_wait(w, *(volatile unsigned *)&out[1] + i + 1);
        if (threadIdx.x == 0) {
          if (V == 5) {
#pragma unroll
            for (int j = 0; j < 8; j++)
              if (j < w.grids) red_add_rel_sys(w.peers[j], grid_arrival(w, j));
          } else if (V != 6) {
            if (V != 11) fence_sys();
            arrive_on_every_gpu(w);
          }
        }
        if (V == 6) {  // one lane per GPU
          __syncwarp();
          if (threadIdx.x < w.grids) {
            fence_sys();
            unsigned *p = w.peers[0];
#pragma unroll
            for (int j = 1; j < 8; j++) if (threadIdx.x == j) p = w.peers[j];
            red_add_rlx_sys(p, grid_arrival(w, threadIdx.x));
          }
        }
      }
      if (threadIdx.x == 0) wait_flip(w, ph, V == 10);
    }
    __syncthreads();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] += iters;
}

// One-way latency: GPU `rank` bumps the peer's counter, waits for its own.
__global__ void pingpong(Ws w, int iters) {
  unsigned *peer = w.rank ? w.peers[0] : w.peers[1];
  for (int i = 0; i < iters; i++) {
    if (w.rank == 0) {
      red_add_rel_sys(peer, 1);
      while ((int)(ld_acq_sys(w.mine) - (unsigned)(i + 1)) < 0) {}
    } else {
      while ((int)(ld_acq_sys(w.mine) - (unsigned)(i + 1)) < 0) {}
      red_add_rel_sys(peer, 1);
    }
  }
}
// Round trip of a remote atomic (returns a value).
__global__ void remote_atomic(Ws w, int iters, unsigned *out) {
  unsigned *peer = w.rank ? w.peers[0] : w.peers[1];
  unsigned s = 0;
  for (int i = 0; i < iters; i++) s += atom_add_rel_sys(peer, 0);
  out[2] = s;
}
__global__ void fences(int iters, unsigned *out) {
  unsigned s = 0;
  for (int i = 0; i < iters; i++) { fence_sys(); s += i; }
  out[3] = s;
}

int main() {
  int n; CK(cudaGetDeviceCount(&n));
  if (n < 2) { printf("needs 2 GPUs, found %d\n", n); return 1; }
  const int G = 2;
  CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaSetDevice(1)); CK(cudaDeviceEnablePeerAccess(0, 0));
  Ws w[G]; unsigned *outs[G]; cudaStream_t st[G];
  unsigned *counters[G];
  for (int g = 0; g < G; g++) {
    CK(cudaSetDevice(g));
    CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
    unsigned *mem; CK(cudaMalloc(&mem, 64 * 1024)); CK(cudaMemset(mem, 0, 64 * 1024));
    w[g].word = mem; w[g].spread = mem + 1024; w[g].mine = mem + 4096; counters[g] = mem + 4096;
    w[g].rank = g; w[g].grids = G;
    CK(cudaMalloc(&outs[g], 64)); CK(cudaMemset(outs[g], 0, 64));
  }
  for (int g = 0; g < G; g++) { w[g].set = counters[0] + 512; for (int j = 0; j < G; j++) { w[g].peers[j] = counters[j]; w[g].flat[j] = counters[j] + 4096; } }
  CK(cudaSetDevice(0)); CK(cudaDeviceSynchronize()); CK(cudaSetDevice(1)); CK(cudaDeviceSynchronize());

  const int BLOCKS = 1056, THREADS = 256, ITERS = 10000;
  auto sync_all = [&] { for (int g = 0; g < G; g++) { CK(cudaSetDevice(g)); CK(cudaStreamSynchronize(st[g])); } };
  // The spread counters count arrivals since the start: keep the count
  // of barriers run so far in out[1] (host-written between launches).
  unsigned done_spread[G] = {0, 0};
  unsigned done_word[G] = {0, 0};  // V8/V9's release word: one add a barrier
  unsigned done_flat[G] = {0, 0};
  auto run = [&](auto kernel, int gpus, int iters, bool spread) {
    bool flat = (void *)kernel == (void *)barriers<7>;
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      CK(cudaMemcpyAsync(outs[g] + 1, &done_spread[g], 4, cudaMemcpyHostToDevice, st[g]));
      CK(cudaMemcpyAsync(outs[g] + 4, &done_flat[g], 4, cudaMemcpyHostToDevice, st[g]));
      CK(cudaMemcpyAsync(outs[g] + 5, &done_word[g], 4, cudaMemcpyHostToDevice, st[g]));
    }
    sync_all();
    auto t0 = std::chrono::steady_clock::now();
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      Ws ww = w[g]; ww.grids = gpus;
      void *args[] = {&ww, &iters, &outs[g]};
      CK(cudaLaunchCooperativeKernel((void *)kernel, BLOCKS, THREADS, args, 0, st[g]));
    }
    sync_all();
    auto t1 = std::chrono::steady_clock::now();
    bool word = (void *)kernel == (void *)barriers<8> || (void *)kernel == (void *)barriers<9>;
    if (flat) { for (int g = 0; g < gpus; g++) done_flat[g] += iters * gpus; }
    else if (spread) for (int g = 0; g < gpus; g++) done_spread[g] += iters;
    if (word) for (int g = 0; g < gpus; g++) done_word[g] += iters;
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  auto per_barrier = [&](const char *name, auto kernel, int gpus, bool spread) {
    std::vector<double> a, b;
    run(kernel, gpus, ITERS, spread);
    for (int r = 0; r < 5; r++) { a.push_back(run(kernel, gpus, 0, spread)); b.push_back(run(kernel, gpus, ITERS, spread)); }
    std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
    printf("%-64s %8.0f ns  (launch+sync alone %6.1f us)\n", name, (b[2] - a[2]) * 1e3 / ITERS, a[2]);
  };
  printf("grids of %d x %d on each GPU, %d barriers\n", BLOCKS, THREADS, ITERS);
  per_barrier("V0 one GPU: grid barrier on one word (CUDA's)", barriers<0>, 1, false);
  per_barrier("V1 one GPU: spread grid barrier (cg-core's grid.sync)", barriers<1>, 1, true);
  per_barrier("V2 two GPUs: multi_grid.sync() as now (word, set counter on GPU 0)", barriers<2>, 2, false);
  per_barrier("V3 two GPUs: word gather, counter per GPU, every block polls", barriers<3>, 2, false);
  per_barrier("V4 two GPUs: spread gather, fence + relaxed reds, every block polls", barriers<4>, 2, true);
  per_barrier("V5 two GPUs: spread gather, release reds, every block polls", barriers<5>, 2, true);
  per_barrier("V6 two GPUs: spread gather, a lane per GPU, every block polls", barriers<6>, 2, true);
  per_barrier("V7 two GPUs: flat, every block arrives on every GPU's counter", barriers<7>, 2, false);
  per_barrier("V8 two GPUs: V4, block 0 alone polls (acquire.sys), releases its grid at gpu scope", barriers<8>, 2, true);
  per_barrier("V9 two GPUs: V8 polling at gpu scope (measurement only)", barriers<9>, 2, true);
  per_barrier("V10 two GPUs: V4 with every block polling at gpu scope (measurement only)", barriers<10>, 2, true);
  per_barrier("V11 two GPUs: V4 without block 0's fence.sys (measurement only)", barriers<11>, 2, true);
  per_barrier("V12 two GPUs: V4, the phase read once at the start, not before each arrival", barriers<12>, 2, true);
  per_barrier("V13 two GPUs: the last block of each spread counter arrives on every GPU's", barriers<13>, 2, true);
  per_barrier("V14 two GPUs: V13, the phase tracked as V12", barriers<14>, 2, true);
  per_barrier("V4 two GPUs again", barriers<4>, 2, true);
  per_barrier("V13 two GPUs again", barriers<13>, 2, true);
  per_barrier("V13 one GPU (grids = 1)", barriers<13>, 1, true);
  per_barrier("V12 one GPU (grids = 1)", barriers<12>, 1, true);
  per_barrier("V8 one GPU (grids = 1)", barriers<8>, 1, true);
  per_barrier("V4 one GPU (grids = 1)", barriers<4>, 1, true);
  per_barrier("V7 one GPU (grids = 1)", barriers<7>, 1, false);
  per_barrier("V2 one GPU (grids = 1)", barriers<2>, 1, false);
  // Latencies, one thread.
  {
    for (int g = 0; g < G; g++) { CK(cudaSetDevice(g)); CK(cudaMemset(counters[g], 0, 4)); CK(cudaDeviceSynchronize()); }
    auto t0 = std::chrono::steady_clock::now();
    for (int g = 0; g < G; g++) { CK(cudaSetDevice(g)); pingpong<<<1, 1, 0, st[g]>>>(w[g], ITERS); }
    sync_all();
    auto t1 = std::chrono::steady_clock::now();
    printf("ping-pong over NVLink (red.release.sys, local ld.acquire.sys): %.0f ns one way\n",
           std::chrono::duration<double, std::nano>(t1 - t0).count() / ITERS / 2);
    CK(cudaSetDevice(0));
    t0 = std::chrono::steady_clock::now();
    remote_atomic<<<1, 1, 0, st[0]>>>(w[0], ITERS, outs[0]); sync_all();
    t1 = std::chrono::steady_clock::now();
    printf("remote atom.add.release.sys round trip: %.0f ns\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / ITERS);
    t0 = std::chrono::steady_clock::now();
    fences<<<1, 1, 0, st[0]>>>(ITERS, outs[0]); sync_all();
    t1 = std::chrono::steady_clock::now();
    printf("fence.acq_rel.sys, one thread, nothing outstanding: %.0f ns\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / ITERS);
  }
  return 0;
}
