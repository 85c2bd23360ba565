// Does a 64-bit atomic min on distributed shared memory give the minimum?
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

template <int MODE>
__global__ void __cluster_dims__(2, 1, 1) kmin(const u64* vals, u64* out, unsigned* out32) {
    __shared__ u64 cell[4];
    __shared__ unsigned cell32[4];
    cg::cluster_group cluster = cg::this_cluster();
    if (cluster.block_rank() == 0 && threadIdx.x < 4) { cell[threadIdx.x] = ~0ull; cell32[threadIdx.x] = ~0u; }
    cluster.sync();
    unsigned t = cluster.thread_rank();
    u64 v = vals[blockIdx.x / 2 * 512 + t];
    u64* remote = cluster.map_shared_rank(cell, 0);
    unsigned* remote32 = cluster.map_shared_rank(cell32, 0);
    if (MODE == 0) {  // libcu++ atomic_ref at device scope on the generic pointer
        cuda::atomic_ref<u64, cuda::thread_scope_device> a(remote[t % 3]);
        a.fetch_min(v, cuda::std::memory_order_relaxed);
    } else if (MODE == 1) {  // atomicMin on the generic pointer
        atomicMin(&remote[t % 3], v);
    } else if (MODE == 2) {  // PTX: atom.relaxed.cluster.shared::cluster.min.u64 on the mapa address
        unsigned local = (unsigned)__cvta_generic_to_shared(&cell[t % 3]);
        unsigned addr;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(addr) : "r"(local));
        u64 old;
        asm volatile("atom.relaxed.cluster.shared::cluster.min.u64 %0, [%1], %2;" : "=l"(old) : "r"(addr), "l"(v) : "memory");
    } else if (MODE == 3) {  // the same, 32 bits
        unsigned local = (unsigned)__cvta_generic_to_shared(&cell32[t % 3]);
        unsigned addr;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(addr) : "r"(local));
        unsigned old;
        asm volatile("atom.relaxed.cluster.shared::cluster.min.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"((unsigned)(v >> 32)) : "memory");
    } else if (MODE == 4) {  // PTX max.s64 / add.u64 controls: add
        unsigned local = (unsigned)__cvta_generic_to_shared(&cell[t % 3]);
        unsigned addr;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(addr) : "r"(local));
        u64 old;
        asm volatile("atom.relaxed.cluster.shared::cluster.add.u64 %0, [%1], %2;" : "=l"(old) : "r"(addr), "l"(v & 0xffff) : "memory");
    } else {  // atom.min.u64 on local shared memory, only block 0's threads
        if (cluster.block_rank() == 0) atomicMin(&cell[t % 3], v);
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x < 3) { out[blockIdx.x / 2 * 3 + threadIdx.x] = cell[threadIdx.x]; out32[blockIdx.x / 2 * 3 + threadIdx.x] = cell32[threadIdx.x]; }
}

int main() {
    const int clusters = 64, n = clusters * 512;
    std::vector<u64> h(n);
    srand(1);
    for (auto& x : h) x = ((u64)rand() << 40) ^ ((u64)rand() << 20) ^ rand();
    u64 *dv, *dout; unsigned* dout32;
    cudaMalloc(&dv, n * 8); cudaMalloc(&dout, clusters * 3 * 8); cudaMalloc(&dout32, clusters * 3 * 4);
    cudaMemcpy(dv, h.data(), n * 8, cudaMemcpyHostToDevice);
    const char* names[] = {"atomic_ref<device>.fetch_min generic", "atomicMin generic", "PTX atom.shared::cluster.min.u64", "PTX atom.shared::cluster.min.u32", "PTX atom.shared::cluster.add.u64 (low 16 bits, start ~0)", "local atomicMin.u64, block 0 only"};
    for (int mode = 0; mode < 6; mode++) {
        switch (mode) {
            case 0: kmin<0><<<clusters * 2, 256>>>(dv, dout, dout32); break;
            case 1: kmin<1><<<clusters * 2, 256>>>(dv, dout, dout32); break;
            case 2: kmin<2><<<clusters * 2, 256>>>(dv, dout, dout32); break;
            case 3: kmin<3><<<clusters * 2, 256>>>(dv, dout, dout32); break;
            case 4: kmin<4><<<clusters * 2, 256>>>(dv, dout, dout32); break;
            default: kmin<5><<<clusters * 2, 256>>>(dv, dout, dout32); break;
        }
        cudaError_t e = cudaDeviceSynchronize();
        std::vector<u64> o(clusters * 3); std::vector<unsigned> o32(clusters * 3);
        cudaMemcpy(o.data(), dout, clusters * 3 * 8, cudaMemcpyDeviceToHost);
        cudaMemcpy(o32.data(), dout32, clusters * 3 * 4, cudaMemcpyDeviceToHost);
        int wrong = 0;
        for (int c = 0; c < clusters; c++) for (int k = 0; k < 3; k++) {
            u64 want = ~0ull; unsigned want32 = ~0u; u64 sum = ~0ull;
            for (int t = k; t < 512; t += 3) {
                u64 v = h[c * 512 + t];
                if (mode == 5 && t >= 256) continue;
                if (v < want) want = v;
                if ((unsigned)(v >> 32) < want32) want32 = (unsigned)(v >> 32);
                sum += v & 0xffff;
            }
            if (mode == 3) { if (o32[c * 3 + k] != want32) wrong++; }
            else if (mode == 4) { if (o[c * 3 + k] != sum) wrong++; }
            else if (o[c * 3 + k] != want) wrong++;
        }
        printf("%-58s %s: %d of %d cells wrong\n", names[mode], cudaGetErrorString(e), wrong, clusters * 3);
    }
    return 0;
}
