// The conjugate gradient solver of CUDA's conjugateGradientMultiBlockCG
// sample in CUDA C++, in the sample's style (int indices, plain
// expressions), f64 throughout like the Rust port: the kernel the Rust
// kernel of ../kernels/src/lib.rs is compared with. Every parameter is the
// Rust kernel's in its order: each slice, Output or AtomicSlice is a
// pointer and an unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o conjugate_gradient.ptx conjugate_gradient.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

#define THREADS_PER_BLOCK 512
#define MAX_ITERATIONS 10000

__device__ void gpuSpMV(const unsigned *I, const unsigned *J, const double *val, int num_rows,
                        double alpha, const double *inputVecX, double *outputVecY,
                        const cg::grid_group &grid) {
    for (int i = grid.thread_rank(); i < num_rows; i += grid.size()) {
        int row_elem = I[i];
        int next_row_elem = I[i + 1];
        int num_elems_this_row = next_row_elem - row_elem;

        double output = 0.0;
        for (int j = 0; j < num_elems_this_row; j++) {
            output += alpha * val[row_elem + j] * inputVecX[J[row_elem + j]];
        }
        outputVecY[i] = output;
    }
}

__device__ void gpuSaxpy(const double *x, double *y, double a, int size, const cg::grid_group &grid) {
    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        y[i] = a * x[i] + y[i];
    }
}

__device__ void gpuDotProduct(const double *vecA, const double *vecB, double *result, int size,
                              const cg::thread_block &cta, const cg::grid_group &grid) {
    __shared__ double tmp[THREADS_PER_BLOCK / 32];

    double temp_sum = 0.0;
    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        temp_sum += vecA[i] * vecB[i];
    }

    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    temp_sum = cg::reduce(tile32, temp_sum, cg::plus<double>());
    if (tile32.thread_rank() == 0) {
        tmp[tile32.meta_group_rank()] = temp_sum;
    }
    cg::sync(cta);

    if (tile32.meta_group_rank() == 0) {
        temp_sum = tile32.thread_rank() < tile32.meta_group_size() ? tmp[tile32.thread_rank()] : 0.0;
        temp_sum = cg::reduce(tile32, temp_sum, cg::plus<double>());
        if (tile32.thread_rank() == 0) {
            atomicAdd(result, temp_sum);
        }
    }
}

__device__ void gpuCopyVector(const double *srcA, double *destB, int size, const cg::grid_group &grid) {
    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        destB[i] = srcA[i];
    }
}

__device__ void gpuScaleVectorAndSaxpy(const double *x, double *y, double a, double scale, int size,
                                       const cg::grid_group &grid) {
    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        y[i] = a * x[i] + scale * y[i];
    }
}

extern "C" __global__ void conjugate_gradient(
    const unsigned *I, u64 I_len, u64 I_bound, const unsigned *J, u64 J_len, u64 J_bound,
    const double *val, u64 val_len, double *x, u64 x_len, double *Ax, u64 Ax_len, double *p,
    u64 p_len, double *r, u64 r_len, double *dot_result, u64 dot_result_len,
    unsigned *iterations, u64 iterations_len, double tol) {
    cg::thread_block cta = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    int N = r_len;

    double alpha = 1.0;
    double alpham1 = -1.0;
    double r0 = 0.0, r1, b, a, na;

    gpuSpMV(I, J, val, N, alpha, x, Ax, grid);
    cg::sync(grid);
    gpuSaxpy(Ax, r, alpham1, N, grid);
    cg::sync(grid);
    gpuDotProduct(r, r, dot_result, N, cta, grid);
    cg::sync(grid);
    r1 = *dot_result;

    int k = 1;
    while (r1 > tol * tol && k <= MAX_ITERATIONS) {
        if (k > 1) {
            b = r1 / r0;
            gpuScaleVectorAndSaxpy(r, p, alpha, b, N, grid);
        } else {
            gpuCopyVector(r, p, N, grid);
        }
        cg::sync(grid);

        gpuSpMV(I, J, val, N, alpha, p, Ax, grid);
        if (threadIdx.x == 0 && blockIdx.x == 0) *dot_result = 0.0;
        cg::sync(grid);

        gpuDotProduct(p, Ax, dot_result, N, cta, grid);
        cg::sync(grid);

        a = r1 / *dot_result;
        gpuSaxpy(p, x, a, N, grid);
        na = -a;
        gpuSaxpy(Ax, r, na, N, grid);
        r0 = r1;
        cg::sync(grid);

        if (threadIdx.x == 0 && blockIdx.x == 0) *dot_result = 0.0;
        cg::sync(grid);

        gpuDotProduct(r, r, dot_result, N, cta, grid);
        cg::sync(grid);

        r1 = *dot_result;
        k++;
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) *iterations = k - 1;
}
