// corpus/cuda/transpose.cu with the checks the Rust kernel as first written
// (corpus/kernels/src/transpose.rs) makes, in its order and with its 64-bit
// indices: `a[r * cols + c]` against a's length, the shared tile's index
// against 32 * 33 on every set and get, and `assert!(i < len)` on every
// store. A probe, not a corpus kernel: dropped into a copy of the --cuda
// directory of corpus-bench in place of transpose.ptx, it says how much of
// Rust's time is the checks (docs/NOTES.md, 2026-11-29).
//
//   nvcc -O3 -arch=sm_90 -ptx -o transpose.ptx transpose.cu

typedef unsigned long long u64;

#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose(const float *a, u64 a_len, float *t, u64 t_len, unsigned rows,
                                     unsigned cols) {
    __shared__ float tile[TILE * (TILE + 1)];
    u64 r0 = (u64)blockIdx.y * TILE, c0 = (u64)blockIdx.x * TILE;
    u64 tx = threadIdx.x, ty = threadIdx.y;
    for (u64 j = 0; j < TILE; j += BLOCK_ROWS) {
        u64 r = r0 + ty + j, c = c0 + tx;
        if (r < rows && c < cols) {
            u64 i = r * cols + c;
            if (i >= a_len) __trap();
            u64 s = (ty + j) * (TILE + 1) + tx;
            if (s >= TILE * (TILE + 1)) __trap();
            tile[s] = a[i];
        }
    }
    __syncthreads();
    u64 len = t_len < (u64)rows * cols ? t_len : (u64)rows * cols;
    for (u64 j = 0; j < TILE; j += BLOCK_ROWS) {
        u64 r = c0 + ty + j, c = r0 + tx;
        if (r < cols && c < rows) {
            u64 i = r * rows + c;
            if (i >= len) __trap();
            u64 s = tx * (TILE + 1) + ty + j;
            if (s >= TILE * (TILE + 1)) __trap();
            t[i] = tile[s];
        }
    }
}
