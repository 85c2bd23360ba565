// The conjugate gradient solver of CUDA's conjugateGradientMultiDeviceCG
// sample in CUDA C++, in the sample's style (int indices, plain
// expressions, its PeerGroup barrier), f64 throughout like the Rust port:
// the kernel the Rust kernel of ../kernels/src/lib.rs is compared with,
// launched the same way (one cooperative grid per GPU, through GpuSet), on
// the same buffers. Every parameter is the Rust kernel's in its order: each
// slice, Output or AtomicSlice is a pointer and an unsigned 64-bit length,
// Indices<u32> a pointer, a length and the bound of its values.
//
// The cross-GPU barrier is the sample's (CUDA 13 has no multi_grid_group):
// grid.sync(), then one thread of each grid: the first grid's waits for
// the other grids' arrival flags and clears them, the others raise their
// flag and wait for it to be cleared; then grid.sync() again. The flags
// are 32-bit words (the sample's are bytes) in the first GPU's memory,
// which the others reach through peer access (the sample's are in
// host-mapped memory): `arrived`, which the Rust kernel takes and leaves
// alone. The grid's rank and the number of grids (the sample's
// MultiDeviceData, a kernel parameter there) come from the workspace
// GpuSet writes into every module that declares `cg_multi_grid`.
//
// The data are the Rust port's: each GPU holds its band of rows (CSR, the
// columns numbered in the layout of p), p is [2 halo halo elements | the
// band's rows], and each dot product is summed in a fixed order (each
// block's sum into its slot of `partials`, block 0 sums those into the
// grid's slot of `sums`, every thread adds the grids' slots in rank order)
// where the sample adds each block's sum atomically.
//
//   nvcc -O3 -arch=sm_90 -ptx -o conjugate_gradient_multi.ptx conjugate_gradient_multi.cu

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

typedef unsigned long long u64;

#define THREADS_PER_BLOCK 512
#define MAX_ITERATIONS 10000
#define SUMS_P_AP 0
#define SUMS_R_R 1

// The multi-grid workspace (host/src/module.rs): word 1 holds the grid's
// rank (low 32 bits) and the number of grids (high 32 bits).
extern "C" {
__device__ u64 cg_multi_grid[10];
}

// What the sample's host fills in for each GPU.
struct MultiDeviceData {
    unsigned *arrivedList;
    unsigned numDevices;
    unsigned deviceRank;
};

// The sample's class for the coordination of the GPUs.
class PeerGroup {
    const MultiDeviceData &data;
    const cg::grid_group &grid;

    __device__ unsigned load_arrived(unsigned *arrived) const {
        unsigned result;
        asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(result) : "l"(arrived) : "memory");
        return result;
    }

    __device__ void store_arrived(unsigned *arrived, unsigned val) const {
        asm volatile("st.release.sys.global.u32 [%1], %0;" ::"r"(val), "l"(arrived) : "memory");
    }

public:
    __device__ PeerGroup(const MultiDeviceData &data, const cg::grid_group &grid) : data(data), grid(grid) {}

    __device__ void sync() const {
        grid.sync();

        // One thread of each grid takes part.
        if (grid.thread_rank() == 0) {
            if (data.deviceRank == 0) {
                // The first grid waits for the others, in any order, then
                // releases them.
                for (int i = 0; i < data.numDevices - 1; i++) {
                    while (load_arrived(&data.arrivedList[i]) == 0)
                        ;
                }
                for (int i = 0; i < data.numDevices - 1; i++) {
                    store_arrived(&data.arrivedList[i], 0);
                }
                __threadfence_system();
            } else {
                // The others note their arrival and wait to be released.
                store_arrived(&data.arrivedList[data.deviceRank - 1], 1);
                while (load_arrived(&data.arrivedList[data.deviceRank - 1]) == 1)
                    ;
            }
        }

        grid.sync();
    }
};

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

// The block's sum of vecA . vecB into partials[blockIdx.x].
__device__ void gpuDotProduct(const double *vecA, const double *vecB, double *partials, int size,
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
            partials[blockIdx.x] = temp_sum;
        }
    }
}

// Block 0's first warp: the sum of the blocks' partials into sums[slot].
__device__ void gpuGridSum(const double *partials, double *sums, int slot, const cg::thread_block &cta) {
    if (blockIdx.x != 0) return;
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (tile32.meta_group_rank() != 0) return;

    double temp_sum = 0.0;
    for (int b = tile32.thread_rank(); b < gridDim.x; b += 32) {
        temp_sum += partials[b];
    }
    temp_sum = cg::reduce(tile32, temp_sum, cg::plus<double>());
    if (tile32.thread_rank() == 0) {
        sums[slot] = temp_sum;
    }
}

// The grids' sums of set `set`, added in rank order.
__device__ double gpuTotal(const double *sums, int set, int numDevices) {
    double sum = 0.0;
    for (int g = 0; g < numDevices; g++) {
        sum += sums[set * numDevices + g];
    }
    return sum;
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

// This GPU's first halo rows of p into the previous GPU's second halo, its
// last halo rows into the next GPU's first halo.
__device__ void gpuPushHalos(const double *own, int rows, double *up, double *down, int halo,
                             const MultiDeviceData &data, const cg::grid_group &grid) {
    if (data.deviceRank > 0) {
        for (int i = grid.thread_rank(); i < halo; i += grid.size()) {
            up[halo + i] = own[i];
        }
    }
    if (data.deviceRank + 1 < data.numDevices) {
        for (int i = grid.thread_rank(); i < halo; i += grid.size()) {
            down[i] = own[rows - halo + i];
        }
    }
}

// __launch_bounds__: two blocks of 512 threads per SM, 64 registers
// (without it nvcc takes 72, and one block fits; the Rust kernel takes 64
// without a bound).
extern "C" __global__ void __launch_bounds__(THREADS_PER_BLOCK, 2) conjugate_gradient_multi(
    const unsigned *I, u64 I_len, const unsigned *J, u64 J_len, u64 J_bound, const double *val,
    u64 val_len, double *x, u64 x_len, double *Ax, u64 Ax_len, double *p, u64 p_len, double *up,
    u64 up_len, double *down, u64 down_len, double *r, u64 r_len, double *partials,
    u64 partials_len, double *sums, u64 sums_len, unsigned *arrived, u64 arrived_len,
    unsigned *iterations, u64 iterations_len, unsigned halo, double tol) {
    cg::thread_block cta = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    MultiDeviceData multi_device_data;
    multi_device_data.arrivedList = arrived;
    multi_device_data.numDevices = (unsigned)(cg_multi_grid[1] >> 32);
    multi_device_data.deviceRank = (unsigned)cg_multi_grid[1];
    PeerGroup peer_group(multi_device_data, grid);
    int rank = multi_device_data.deviceRank;
    int numDevices = multi_device_data.numDevices;
    int N = r_len;
    double *p_own = p + 2 * halo;

    double alpha = 1.0;
    double r0 = 0.0, r1, b, a, na;

    // x = 0 and r = b on entry: the sample's first SpMV and saxpy (of x =
    // 0) are left out.
    gpuDotProduct(r, r, partials, N, cta, grid);
    cg::sync(grid);
    gpuGridSum(partials, sums, SUMS_R_R * numDevices + rank, cta);
    peer_group.sync();
    r1 = gpuTotal(sums, SUMS_R_R, numDevices);

    int k = 1;
    while (r1 > tol * tol && k <= MAX_ITERATIONS) {
        if (k > 1) {
            b = r1 / r0;
            gpuScaleVectorAndSaxpy(r, p_own, alpha, b, N, grid);
        } else {
            gpuCopyVector(r, p_own, N, grid);
        }
        cg::sync(grid);

        gpuPushHalos(p_own, N, up, down, halo, multi_device_data, grid);
        peer_group.sync();

        gpuSpMV(I, J, val, N, alpha, p, Ax, grid);
        cg::sync(grid);

        gpuDotProduct(p_own, Ax, partials, N, cta, grid);
        cg::sync(grid);
        gpuGridSum(partials, sums, SUMS_P_AP * numDevices + rank, cta);
        peer_group.sync();

        a = r1 / gpuTotal(sums, SUMS_P_AP, numDevices);
        gpuSaxpy(p_own, x, a, N, grid);
        na = -a;
        gpuSaxpy(Ax, r, na, N, grid);
        r0 = r1;
        cg::sync(grid);

        gpuDotProduct(r, r, partials, N, cta, grid);
        cg::sync(grid);
        gpuGridSum(partials, sums, SUMS_R_R * numDevices + rank, cta);
        peer_group.sync();

        r1 = gpuTotal(sums, SUMS_R_R, numDevices);
        k++;
    }
    if (grid.thread_rank() == 0) *iterations = k - 1;
}
