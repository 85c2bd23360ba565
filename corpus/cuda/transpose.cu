// transpose (corpus/SPEC.md), written plainly in CUDA C++ (a 32 x 32 tile
// through shared memory, padded to 33 columns): the kernel the Rust kernel
// of the same name is compared with. Every parameter is the Rust kernel's
// in its order: a scalar as itself, each slice or Output a pointer and an
// unsigned 64-bit length.
//
//   nvcc -O3 -arch=sm_90 -ptx -o transpose.ptx transpose.cu

typedef unsigned long long u64;

#define TILE 32
#define BLOCK_ROWS 8

// t = the transpose of the rows x cols matrix a (row-major). Launch: blocks
// of 32 x 8, ceil(cols / 32) x ceil(rows / 32) blocks.
extern "C" __global__ void transpose(const float *a, u64 a_len, float *t, u64 t_len, unsigned rows,
                                     unsigned cols) {
    __shared__ float tile[TILE][TILE + 1];

    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = a[(y + j) * cols + x];
        }
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) {
            t[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}
