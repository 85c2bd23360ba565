// cub::DeviceSelect::If (elements above zero, order kept), the library
// reference for stream compaction, built as a shared library
// (scripts/gpu-run: nvcc -shared) and called from the Rust benchmark on the
// same device buffers. It times itself as kernels/cuda/lib_cub_sum.cu does.
#include <cub/cub.cuh>
#include <algorithm>
#include <vector>

struct Positive {
    __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};

extern "C" int cg_cub_select_positive(const float* d_in, float* d_out, unsigned* d_count, unsigned long long n,
                                      int warmup, int runs, float* median_ms) {
    size_t temp_bytes = 0;
    cudaError_t e = cub::DeviceSelect::If(nullptr, temp_bytes, d_in, d_out, d_count, (int64_t)n, Positive());
    if (e != cudaSuccess) return (int)e;
    void* temp = nullptr;
    if ((e = cudaMalloc(&temp, temp_bytes)) != cudaSuccess) return (int)e;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int i = 0; i < warmup; i++) cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, (int64_t)n, Positive());
    std::vector<float> t(runs);
    for (int i = 0; i < runs; i++) {
        cudaEventRecord(start);
        cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, (int64_t)n, Positive());
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&t[i], start, stop);
    }
    std::sort(t.begin(), t.end());
    *median_ms = runs % 2 ? t[runs / 2] : 0.5f * (t[runs / 2 - 1] + t[runs / 2]);
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(temp);
    return (int)e;
}
