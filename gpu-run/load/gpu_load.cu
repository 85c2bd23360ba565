// A load for the GPU, in a process of its own, while the tests of the
// decoupled look-back run (gpu-run's step `loaded`): a memory-bound kernel
// over 1 GiB, launched back to back (eight in flight) until SIGTERM, each
// batch checked. The driver then switches between the two processes'
// contexts in the middle of the tests' kernels. Prints "load: running"
// once its first batch is done, and at the end how many launches ran.
//
//   nvcc -O3 -arch=sm_90 -o gpu_load gpu_load.cu

#include <csignal>
#include <cstdio>
#include <cuda_runtime.h>

static volatile sig_atomic_t stop = 0;

static void on_term(int) { stop = 1; }

__global__ void churn(float *x, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        x[i] = x[i] * 0.999f + 1.0f;
    }
}

static bool ok(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "load: %s: %s\n", what, cudaGetErrorString(e));
    }
    return e == cudaSuccess;
}

int main() {
    signal(SIGTERM, on_term);
    const size_t n = (size_t)1 << 28;
    float *x;
    if (!ok(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc") ||
        !ok(cudaMemset(x, 0, n * sizeof(float)), "cudaMemset")) {
        return 1;
    }
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long launches = 0;
    bool first = true;
    while (!stop) {
        for (int k = 0; k < 8; k++) {
            churn<<<sms * 8, 256>>>(x, n);
        }
        if (!ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "kernel")) {
            return 1;
        }
        launches += 8;
        if (first) {
            printf("load: running\n");
            fflush(stdout);
            first = false;
        }
    }
    printf("load: %ld launches\n", launches);
    return 0;
}
