// Does a module that holds a __constant__ word of its own make its kernels
// slower to launch from a graph? The same sweep kernel in three modules
// (translation units: plain.cu, with_const.cu, with_global.cu: a 96 KiB
// __device__ array instead), each captured as a graph of 1000 launches over
// a 512 x 512 field, replayed in turn.
//   nvcc -O3 -arch=sm_90 -o gcb main.cu plain.cu with_const.cu with_global.cu && ./gcb
#include <cstdio>
#include <vector>
#include <algorithm>
__global__ void sweep_plain(const float* in, float* out, int n);
__global__ void sweep_const(const float* in, float* out, int n);
__global__ void reads_word(unsigned* out);
__global__ void sweep_global(const float* in, float* out, int n);
__global__ void reads_region(unsigned* out);
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main() {
    const int n = 512, total = n * n, threads = 256, blocks = (total + threads - 1) / threads, launches = 1000;
    float *a, *b; unsigned* w;
    CK(cudaMalloc(&a, total * 4)); CK(cudaMalloc(&b, total * 4)); CK(cudaMalloc(&w, 4));
    CK(cudaMemset(a, 0, total * 4)); CK(cudaMemset(b, 0, total * 4));
    reads_word<<<1, 1>>>(w); reads_region<<<1, 1>>>(w); CK(cudaDeviceSynchronize());
    cudaStream_t s; CK(cudaStreamCreate(&s));
    cudaGraphExec_t exec[3];
    for (int v = 0; v < 3; ++v) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        for (int k = 0; k < launches; ++k) {
            float* in = k % 2 ? b : a; float* out = k % 2 ? a : b;
            if (v == 0) sweep_plain<<<blocks, threads, 0, s>>>(in, out, n);
            else if (v == 1) sweep_const<<<blocks, threads, 0, s>>>(in, out, n);
            else sweep_global<<<blocks, threads, 0, s>>>(in, out, n);
        }
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&exec[v], g, 0));
    }
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> t[3];
    for (int r = 0; r < 42; ++r)
        for (int v = 0; v < 3; ++v) {
            CK(cudaEventRecord(e0, s)); CK(cudaGraphLaunch(exec[v], s)); CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 2) t[v].push_back(ms * 1000.0f / launches);
        }
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    const char* what[3] = {"module without a word of its own", "module with a __constant__ word", "module with a 96 KiB __device__ array"};
    for (int v = 0; v < 3; ++v) {
        std::sort(t[v].begin(), t[v].end());
        printf("%s: %s graph of %d launches: %.3f us a launch (p10 %.3f, p90 %.3f, %zu replays)\n", p.name,
               what[v], launches, t[v][t[v].size() / 2],
               t[v][t[v].size() / 10], t[v][t[v].size() * 9 / 10], t[v].size());
    }
    return 0;
}
