// exch.b64, add.f64 and add.f32 on distributed shared memory, contended.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

__global__ void __cluster_dims__(2, 1, 1) probe(int which, int cells, const u64* vals, u64* init, u64* out, u64* olds) {
    __shared__ u64 c64[512];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = cluster.thread_rank();
    unsigned base = blockIdx.x / 2 * 512;
    if (cluster.block_rank() == 0) for (int k = threadIdx.x; k < cells; k += 256) c64[k] = init[base + k];
    cluster.sync();
    unsigned local = (unsigned)__cvta_generic_to_shared(&c64[t % cells]);
    unsigned a;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(a) : "r"(local));
    u64 v = vals[base + t], old = 0;
    if (which == 0) asm volatile("atom.relaxed.cluster.shared::cluster.exch.b64 %0, [%1], %2;" : "=l"(old) : "r"(a), "l"(v) : "memory");
    else if (which == 1) { double d; asm volatile("atom.relaxed.cluster.shared::cluster.add.f64 %0, [%1], %2;" : "=d"(d) : "r"(a), "d"((double)(v % 1000)) : "memory"); old = (u64)d; }
    else { float f; asm volatile("atom.relaxed.cluster.shared::cluster.add.f32 %0, [%1], %2;" : "=f"(f) : "r"(a), "f"((float)(v % 100)) : "memory"); old = (u64)f; }
    olds[base + t] = old;
    cluster.sync();
    if (cluster.block_rank() == 0) for (int k = threadIdx.x; k < cells; k += 256) out[base + k] = c64[k];
}

int main() {
    const char* names[] = {"exch.b64", "add.f64", "add.f32"};
    const int clusters = 64, n = clusters * 512;
    std::vector<u64> h(n), init(n);
    srand(9);
    auto r64 = [] { return ((u64)rand() << 42) ^ ((u64)rand() << 21) ^ (u64)rand(); };
    for (auto& x : h) x = r64();
    for (auto& x : init) x = r64();
    u64 *dv, *di, *dout, *dolds;
    cudaMalloc(&dv, n * 8); cudaMalloc(&di, n * 8); cudaMalloc(&dout, n * 8); cudaMalloc(&dolds, n * 8);
    cudaMemcpy(dv, h.data(), n * 8, cudaMemcpyHostToDevice);
    for (int which = 0; which < 3; which++) {
        std::vector<u64> in = init;
        if (which == 1) for (auto& x : in) { double d = (double)(x % 1000); memcpy(&x, &d, 8); }
        if (which == 2) for (auto& x : in) { float f = (float)(x % 100); unsigned b; memcpy(&b, &f, 4); x = b; }
        cudaMemcpy(di, in.data(), n * 8, cudaMemcpyHostToDevice);
        for (int cells : {3, 64}) {
            probe<<<clusters * 2, 256>>>(which, cells, dv, di, dout, dolds);
            cudaError_t e = cudaDeviceSynchronize();
            std::vector<u64> o(n), ol(n);
            cudaMemcpy(o.data(), dout, n * 8, cudaMemcpyDeviceToHost);
            cudaMemcpy(ol.data(), dolds, n * 8, cudaMemcpyDeviceToHost);
            int wrong = 0;
            for (int c = 0; c < clusters; c++) for (int k = 0; k < cells; k++) {
                if (which == 0) {
                    std::vector<u64> have, want;
                    for (int t = k; t < 512; t += cells) { have.push_back(ol[c * 512 + t]); want.push_back(h[c * 512 + t]); }
                    have.push_back(o[c * 512 + k]); want.push_back(in[c * 512 + k]);
                    std::sort(have.begin(), have.end()); std::sort(want.begin(), want.end());
                    if (have != want) wrong++;
                } else if (which == 1) {
                    double s; memcpy(&s, &in[c * 512 + k], 8);
                    for (int t = k; t < 512; t += cells) s += (double)(h[c * 512 + t] % 1000);
                    double g; memcpy(&g, &o[c * 512 + k], 8);
                    if (g != s) wrong++;
                } else {
                    float s; unsigned b = (unsigned)in[c * 512 + k]; memcpy(&s, &b, 4);
                    for (int t = k; t < 512; t += cells) s += (float)(h[c * 512 + t] % 100);
                    float g; b = (unsigned)o[c * 512 + k]; memcpy(&g, &b, 4);
                    if (g != s) wrong++;
                }
            }
            printf("%-10s %3d cells: %s: %5d of %5d cells wrong\n", names[which], cells, cudaGetErrorString(e), wrong, clusters * cells);
        }
    }
    return 0;
}
