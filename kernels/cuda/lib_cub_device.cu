// The CUB device-wide calls the grid collectives replace, for the benchmark's
// "primitives" rows (src/experiments/primitives.rs): DeviceScan::ExclusiveSum,
// DeviceReduce::Sum, DeviceSelect::If (values above an operand, order kept)
// and DeviceHistogram::HistogramEven, of u32 and f32. Built as a shared
// library (scripts/gpu-run: nvcc -shared) and called on the Rust side's device
// buffers. Each times itself as kernels/cuda/lib_cub_sum.cu does: `warmup`
// untimed calls, then the median of `runs` timed with CUDA events on the
// legacy default stream; its temporary storage is allocated once, outside
// the timing. Returns the CUDA error code (0: success).
#include <cub/cub.cuh>
#include <algorithm>
#include <vector>

// Times `call(temp, temp_bytes)` after sizing its temporary storage with a
// call on a null pointer.
template <typename Call>
static int timed(Call call, int warmup, int runs, float* median_ms) {
    size_t temp_bytes = 0;
    cudaError_t e = call(nullptr, temp_bytes);
    if (e != cudaSuccess) return (int)e;
    void* temp = nullptr;
    if ((e = cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1)) != cudaSuccess) return (int)e;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int i = 0; i < warmup; i++) call(temp, temp_bytes);
    std::vector<float> t(runs > 0 ? runs : 1);
    for (int i = 0; i < runs; i++) {
        cudaEventRecord(start);
        call(temp, temp_bytes);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&t[i], start, stop);
    }
    std::sort(t.begin(), t.begin() + runs);
    *median_ms = runs % 2 ? t[runs / 2] : 0.5f * (t[runs / 2 - 1] + t[runs / 2]);
    e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(temp);
    return (int)e;
}

template <typename T>
struct Above {
    T operand;
    __host__ __device__ bool operator()(T x) const { return x > operand; }
};

#define CG_CUB_DEVICE(T, S)                                                                            \
    extern "C" int cg_cub_exclusive_sum_##S(const T* in, T* out, unsigned long long n, int warmup,      \
                                            int runs, float* ms) {                                    \
        return timed([=](void* t, size_t& b) {                                                        \
            return cub::DeviceScan::ExclusiveSum(t, b, in, out, (int64_t)n);                          \
        }, warmup, runs, ms);                                                                          \
    }                                                                                                  \
    extern "C" int cg_cub_reduce_sum_##S(const T* in, T* out, unsigned long long n, int warmup,         \
                                         int runs, float* ms) {                                       \
        return timed([=](void* t, size_t& b) {                                                        \
            return cub::DeviceReduce::Sum(t, b, in, out, (int64_t)n);                                 \
        }, warmup, runs, ms);                                                                          \
    }                                                                                                  \
    extern "C" int cg_cub_select_above_##S(const T* in, T* out, unsigned* count, unsigned long long n,  \
                                           T operand, int warmup, int runs, float* ms) {              \
        return timed([=](void* t, size_t& b) {                                                        \
            return cub::DeviceSelect::If(t, b, in, out, count, (int64_t)n, Above<T>{operand});        \
        }, warmup, runs, ms);                                                                          \
    }                                                                                                  \
    extern "C" int cg_cub_histogram_even_##S(const T* in, unsigned* bins, int nbins, T lower, T upper,  \
                                             unsigned long long n, int warmup, int runs, float* ms) { \
        return timed([=](void* t, size_t& b) {                                                        \
            return cub::DeviceHistogram::HistogramEven(t, b, in, bins, nbins + 1, lower, upper,       \
                                                       (int64_t)n);                                   \
        }, warmup, runs, ms);                                                                          \
    }

CG_CUB_DEVICE(unsigned, u32)
CG_CUB_DEVICE(float, f32)
