// CUDA C++ twins of the block-collective probes in
// kernels/tests/src/api/block_collectives.rs, for tests/gpu_block_collectives.rs:
// CUB judges cg-core's block_reduce, block_reduce_to_first and block scans.
//
// Each twin has its Rust kernel's name and PTX parameter list (`&[u32]` is
// a pointer and a 64-bit length), so the test launches both through the
// Rust kernel's typed handle on the same inputs into poisoned buffers. The
// twin does with cub::BlockReduce (BLOCK_REDUCE_WARP_REDUCTIONS, CUB's
// default) and cub::BlockScan (BLOCK_SCAN_WARP_SCANS, the algorithm
// cg-core's scans share) what the probe does with cg-core, and writes the
// same words:
//
//   per thread, 7 values of T:
//   [0] BlockReduce::Reduce's total (valid in thread 0), given to every
//       thread through shared memory      (block_reduce)
//   [1] InclusiveScan                      (block_inclusive_scan)
//   [2] ExclusiveScan without an initial value, and T{} in rank 0
//       (cg-core's rule: the warp-level exclusive_scan's, CUDA's T{})
//                                          (block_exclusive_scan)
//   [3] [4] the block's total as the last thread's inclusive scan, to
//       every thread (the totals of block_inclusive_scan_with_total and
//       block_exclusive_scan_with_total; CUB's own block_aggregate is not
//       defined when the last warp is partial)
//   [5] thread 0 only: the total of [0]    (block_reduce_to_first)
//   [6] thread 0 only: BlockReduce::Reduce of the inclusive scans, after
//       a barrier                          (a second block_reduce_to_first
//                                          on the same scratch)
//
// CUB takes the block's shape as template arguments: every shape the test
// launches is instantiated below (SHAPES); any other traps.
//
// Built by gpu-run's twins step: nvcc -O3 -arch=<the GPU's> -ptx -o twins/block_collectives.ptx.
#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include "words.cuh"

namespace cg = cooperative_groups;

/// Every twin is built for blocks of up to 1024 threads, as the test
/// launches them.
#define MAX_THREADS 1024

/// The block shapes of tests/gpu_block_collectives.rs (BLOCK_SHAPES).
#define SHAPES(F)                                                                                  \
    F(32, 1, 1) F(20, 1, 1) F(33, 1, 1) F(96, 1, 1) F(256, 1, 1) F(1000, 1, 1) F(1024, 1, 1)       \
        F(16, 8, 1) F(24, 3, 1) F(8, 4, 2) F(7, 3, 5)

/// Values per thread in the output.
#define VALUES 7

// ---- operators: cg-core's definitions -------------------------------------

/// `Plus` and the closure `|a, b| a + b` (wrapping for integers).
struct Plus {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return a + b; }
    __device__ int operator()(int a, int b) const { return (int)((u32)a + (u32)b); }
};
/// `Less`: `if b < a { b } else { a }`.
struct Less {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
/// `Greater`: `if a < b { b } else { a }`.
struct Greater {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct BitAnd {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
struct BitOr {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
struct BitXor {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

/// `Affine` of kernels/tests/src/api/collectives.rs: `x -> a * x + b`.
struct Affine {
    u32 a, b;
};
/// `then(f, g)`: `f` first, then `g` (associative, not commutative).
struct Then {
    __device__ Affine operator()(const Affine& f, const Affine& g) const {
        return Affine{g.a * f.a, g.a * f.b + g.b};
    }
};
/// `Stats`: wrapping sum, minimum, maximum (12 bytes).
struct Stats {
    u32 sum, min, max;
};
/// `merge`.
struct Merge {
    __device__ Stats operator()(const Stats& x, const Stats& y) const {
        return Stats{x.sum + y.sum, x.min < y.min ? x.min : y.min, x.max > y.max ? x.max : y.max};
    }
};

// ---- the probe ---------------------------------------------------------------

/// Bytes of the kernels' shared buffer, which every shape's CUB storage
/// shares (each instantiation declaring its own would add them all up).
#define SMEM_BYTES 16384

template <class T, int X, int Y, int Z>
struct Storage {
    typename cub::BlockReduce<T, X, cub::BLOCK_REDUCE_WARP_REDUCTIONS, Y, Z>::TempStorage reduce;
    typename cub::BlockScan<T, X, cub::BLOCK_SCAN_WARP_SCANS, Y, Z>::TempStorage scan;
    T shared;
};

template <class T, int X, int Y, int Z, class Op>
__device__ void probe(const u32* input, u32* out, Op op, unsigned char* smem) {
    using Reduce = cub::BlockReduce<T, X, cub::BLOCK_REDUCE_WARP_REDUCTIONS, Y, Z>;
    using Scan = cub::BlockScan<T, X, cub::BLOCK_SCAN_WARP_SCANS, Y, Z>;
    static_assert(sizeof(Storage<T, X, Y, Z>) <= SMEM_BYTES, "SMEM_BYTES is too small");
    Storage<T, X, Y, Z>& s = *reinterpret_cast<Storage<T, X, Y, Z>*>(smem);
    const u64 i = cg::this_grid().thread_rank();
    const u32 rank = cg::this_thread_block().thread_rank();
    const T v = load<T>(input, i);

    const T total = Reduce(s.reduce).Reduce(v, op);
    if (rank == 0) s.shared = total;
    __syncthreads();
    const T everyone = s.shared;
    T inclusive;
    Scan(s.scan).InclusiveScan(v, inclusive, op);
    __syncthreads();
    T exclusive;
    Scan(s.scan).ExclusiveScan(v, exclusive, op);
    if (rank == 0) exclusive = T{};
    __syncthreads();
    if (rank == X * Y * Z - 1) s.shared = inclusive;
    __syncthreads();
    const T scan_total = s.shared;
    __syncthreads();
    const T again = Reduce(s.reduce).Reduce(inclusive, op);

    store(out, VALUES * i + 0, everyone);
    store(out, VALUES * i + 1, inclusive);
    store(out, VALUES * i + 2, exclusive);
    store(out, VALUES * i + 3, scan_total);
    store(out, VALUES * i + 4, scan_total);
    if (rank == 0) {
        store(out, VALUES * i + 5, total);
        store(out, VALUES * i + 6, again);
    }
}

/// `probe` instantiated for the launch's block shape.
template <class T, class Op>
__device__ void by_shape(const u32* input, u32* out, Op op, unsigned char* smem) {
#define SHAPE_CASE(X, Y, Z)                                                                        \
    if (blockDim.x == X && blockDim.y == Y && blockDim.z == Z) {                                   \
        probe<T, X, Y, Z>(input, out, op, smem);                                                   \
        return;                                                                                    \
    }
    SHAPES(SHAPE_CASE)
#undef SHAPE_CASE
    __trap();
}

/// `integer_probe`'s operators, chosen at run time (one instantiation of
/// each shape serves them all): 0 plus, 1 less, 2 greater, 3 bit_and,
/// 4 bit_or, 5 bit_xor, 6 the closure `|a, b| a + b`.
struct IntegerOp {
    u32 op;
    template <class T>
    __device__ __noinline__ T operator()(const T& a, const T& b) const {
        switch (op) {
            case 1: return Less{}(a, b);
            case 2: return Greater{}(a, b);
            case 3: return BitAnd{}(a, b);
            case 4: return BitOr{}(a, b);
            case 5: return BitXor{}(a, b);
            default: return Plus{}(a, b);
        }
    }
};

/// `float_probe`'s operators: 0 plus, 1 less, 2 greater, 6 the closure.
struct FloatOp {
    u32 op;
    template <class T>
    __device__ __noinline__ T operator()(const T& a, const T& b) const {
        switch (op) {
            case 1: return Less{}(a, b);
            case 2: return Greater{}(a, b);
            default: return Plus{}(a, b);
        }
    }
};

template <class T>
__device__ void integers(const u32* input, u32* out, u32 op, unsigned char* smem) {
    if (op <= 6) by_shape<T>(input, out, IntegerOp{op}, smem);
}

template <class T>
__device__ void floats(const u32* input, u32* out, u32 op, unsigned char* smem) {
    if (op <= 2 || op == 6) by_shape<T>(input, out, FloatOp{op}, smem);
}

#define SMEM __shared__ __align__(128) unsigned char smem[SMEM_BYTES]

extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_u32(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    integers<u32>(input, out, op, smem);
}

extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_i32(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    integers<int>(input, out, op, smem);
}

extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_u64(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    integers<u64>(input, out, op, smem);
}

extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_f32(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    floats<float>(input, out, op, smem);
}

extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_f64(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    floats<double>(input, out, op, smem);
}

/// `op` 0 composes `Affine` maps (2 words per value), 1 merges `Stats`
/// (3 words per value).
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
    api_block_collectives_struct(const u32* input, u64, u32* out, u32 op) {
    SMEM;
    switch (op) {
        case 0: by_shape<Affine>(input, out, Then{}, smem); break;
        case 1: by_shape<Stats>(input, out, Merge{}, smem); break;
    }
}
