// cub::DeviceReduce::Sum, the library reference for the whole-array sum,
// built as a shared library (scripts/gpu-run: nvcc -shared) and called from
// the Rust benchmark on the same device buffers. It times itself with CUDA
// events on the legacy default stream, as the Rust side times its kernels:
// `warmup` untimed runs, then the median of `runs`.
#include <cub/cub.cuh>
#include <algorithm>
#include <vector>

extern "C" int cg_cub_sum(const float* d_in, float* d_out, unsigned long long n, int warmup, int runs, float* median_ms) {
    size_t temp_bytes = 0;
    cudaError_t e = cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, n);
    if (e != cudaSuccess) return (int)e;
    void* temp = nullptr;
    if ((e = cudaMalloc(&temp, temp_bytes)) != cudaSuccess) return (int)e;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int i = 0; i < warmup; i++) cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
    std::vector<float> t(runs);
    for (int i = 0; i < runs; i++) {
        cudaEventRecord(start);
        cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&t[i], start, stop);
    }
    std::sort(t.begin(), t.end());
    *median_ms = runs % 2 ? t[runs / 2] : 0.5f * (t[runs / 2 - 1] + t[runs / 2]);
    e = cudaGetLastError();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(temp);
    return (int)e;
}
