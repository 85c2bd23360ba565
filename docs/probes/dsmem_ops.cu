// Which atomic operations on distributed shared memory (another block's
// shared memory, through mapa) give the serial result? Every thread of a
// cluster of 2 x 256 applies its operand to cell t % CELLS of block 0.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

#define OP64(name, insn)                                                                       \
    __device__ void name(unsigned a, u64 v) {                                                  \
        u64 old;                                                                               \
        asm volatile(insn " %0, [%1], %2;" : "=l"(old) : "r"(a), "l"(v) : "memory");        \
    }
#define OP32(name, insn)                                                                       \
    __device__ void name(unsigned a, u64 v) {                                                  \
        unsigned old;                                                                          \
        asm volatile(insn " %0, [%1], %2;" : "=r"(old) : "r"(a), "r"((unsigned)v) : "memory"); \
    }
OP64(min_u64, "atom.relaxed.cluster.shared::cluster.min.u64")
OP64(max_u64, "atom.relaxed.cluster.shared::cluster.max.u64")
OP64(min_s64, "atom.relaxed.cluster.shared::cluster.min.s64")
OP64(max_s64, "atom.relaxed.cluster.shared::cluster.max.s64")
OP64(and_b64, "atom.relaxed.cluster.shared::cluster.and.b64")
OP64(or_b64, "atom.relaxed.cluster.shared::cluster.or.b64")
OP64(xor_b64, "atom.relaxed.cluster.shared::cluster.xor.b64")
OP64(add_u64, "atom.relaxed.cluster.shared::cluster.add.u64")
OP64(min_u64_gpu, "atom.relaxed.gpu.shared::cluster.min.u64")
OP32(min_u32, "atom.relaxed.cluster.shared::cluster.min.u32")
OP32(max_s32, "atom.relaxed.cluster.shared::cluster.max.s32")
OP32(and_b32, "atom.relaxed.cluster.shared::cluster.and.b32")
OP32(xor_b32, "atom.relaxed.cluster.shared::cluster.xor.b32")
__device__ void red_min_u64(unsigned a, u64 v) {
    asm volatile("red.relaxed.cluster.shared::cluster.min.u64 [%0], %1;" ::"r"(a), "l"(v) : "memory");
}
__device__ void cas_min_u64(unsigned a, u64 v) {  // a cas loop doing min
    u64 old;
    asm volatile("ld.relaxed.cluster.shared::cluster.b64 %0, [%1];" : "=l"(old) : "r"(a) : "memory");
    while (v < old) {
        u64 seen;
        asm volatile("atom.relaxed.cluster.shared::cluster.cas.b64 %0, [%1], %2, %3;" : "=l"(seen) : "r"(a), "l"(old), "l"(v) : "memory");
        if (seen == old) break;
        old = seen;
    }
}

__global__ void __cluster_dims__(2, 1, 1) probe(int which, int cells, int wide, const u64* vals, u64* init, u64* out) {
    __shared__ u64 c64[512];
    __shared__ unsigned c32[512];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = cluster.thread_rank();
    unsigned base = blockIdx.x / 2 * 512;
    if (cluster.block_rank() == 0) for (int k = threadIdx.x; k < cells; k += 256) { c64[k] = init[base + k]; c32[k] = (unsigned)init[base + k]; }
    cluster.sync();
    unsigned local = wide ? (unsigned)__cvta_generic_to_shared(&c64[t % cells]) : (unsigned)__cvta_generic_to_shared(&c32[t % cells]);
    unsigned a;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(a) : "r"(local));
    u64 v = vals[base + t];
    switch (which) {
        case 0: min_u64(a, v); break;
        case 1: max_u64(a, v); break;
        case 2: min_s64(a, v); break;
        case 3: max_s64(a, v); break;
        case 4: and_b64(a, v); break;
        case 5: or_b64(a, v); break;
        case 6: xor_b64(a, v); break;
        case 7: add_u64(a, v); break;
        case 8: min_u64_gpu(a, v); break;
        case 9: red_min_u64(a, v); break;
        case 10: cas_min_u64(a, v); break;
        case 11: min_u32(a, v); break;
        case 12: max_s32(a, v); break;
        case 13: and_b32(a, v); break;
        default: xor_b32(a, v); break;
    }
    cluster.sync();
    if (cluster.block_rank() == 0) for (int k = threadIdx.x; k < cells; k += 256) out[base + k] = wide ? c64[k] : c32[k];
}

int main() {
    const char* names[] = {"min.u64", "max.u64", "min.s64", "max.s64", "and.b64", "or.b64", "xor.b64", "add.u64", "min.u64 at .gpu scope", "red.min.u64", "cas loop doing min.u64", "min.u32", "max.s32", "and.b32", "xor.b32"};
    const int clusters = 64, n = clusters * 512;
    std::vector<u64> h(n), init(n);
    srand(7);
    auto r64 = [] { return ((u64)rand() << 42) ^ ((u64)rand() << 21) ^ (u64)rand(); };
    for (auto& x : h) x = r64();
    for (auto& x : init) x = r64();
    u64 *dv, *di, *dout;
    cudaMalloc(&dv, n * 8); cudaMalloc(&di, n * 8); cudaMalloc(&dout, n * 8);
    cudaMemcpy(dv, h.data(), n * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(di, init.data(), n * 8, cudaMemcpyHostToDevice);
    for (int which = 0; which < 15; which++) {
        int wide = which <= 10;
        for (int cells : {3, 64, 512}) {
            probe<<<clusters * 2, 256>>>(which, cells, wide, dv, di, dout);
            cudaError_t e = cudaDeviceSynchronize();
            std::vector<u64> o(n);
            cudaMemcpy(o.data(), dout, n * 8, cudaMemcpyDeviceToHost);
            int wrong = 0, subset = 0;
            for (int c = 0; c < clusters; c++) for (int k = 0; k < cells; k++) {
                u64 acc = wide ? init[c * 512 + k] : (unsigned)init[c * 512 + k];
                bool is_operand = false;
                for (int t = k; t < 512; t += cells) {
                    u64 v = wide ? h[c * 512 + t] : (unsigned)h[c * 512 + t];
                    switch (which) {
                        case 0: case 8: case 9: case 10: case 11: acc = v < acc ? v : acc; break;
                        case 1: acc = v > acc ? v : acc; break;
                        case 2: acc = (long long)v < (long long)acc ? v : acc; break;
                        case 3: acc = (long long)v > (long long)acc ? v : acc; break;
                        case 12: acc = (unsigned)((int)v > (int)acc ? v : acc); break;
                        case 4: case 13: acc &= v; break;
                        case 5: acc |= v; break;
                        case 6: case 14: acc ^= v; break;
                        default: acc += v; break;
                    }
                    if (o[c * 512 + k] == v) is_operand = true;
                }
                if (o[c * 512 + k] != acc) { wrong++; if (is_operand) subset++; }
            }
            printf("%-24s %3d cells: %s: %5d of %5d cells wrong (%d of them hold another operand)\n", names[which], cells, cudaGetErrorString(e), wrong, clusters * cells, subset);
        }
    }
    return 0;
}
