// CUDA C++ twins of the atomics probe kernels (kernels/tests/src/api/atomics.rs):
// the same kernel names and PTX parameter lists (a Rust `&[T]` is a pointer
// and a 64-bit length), the same operation selectors, written with libcu++'s
// cuda::atomic_ref<T, thread_scope> and cuda::std::memory_order, so that the
// Rust test launches both through one typed handle and compares what they
// leave behind. Built by gpu-run's twins step: nvcc -O3 -arch=<the GPU's> -ptx.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/std/type_traits>
namespace cg = cooperative_groups;
typedef unsigned long long u64;

__device__ __forceinline__ cuda::std::memory_order ordering(unsigned order) {
    switch (order) {
        case 0: return cuda::std::memory_order_relaxed;
        case 1: return cuda::std::memory_order_acquire;
        case 2: return cuda::std::memory_order_release;
        case 3: return cuda::std::memory_order_acq_rel;
        default: return cuda::std::memory_order_seq_cst;
    }
}

// The failure ordering a compare-exchange allows with `success` (as the
// Rust probe's `failure`).
__device__ __forceinline__ cuda::std::memory_order failure(cuda::std::memory_order success) {
    if (success == cuda::std::memory_order_release || success == cuda::std::memory_order_relaxed)
        return cuda::std::memory_order_relaxed;
    if (success == cuda::std::memory_order_seq_cst) return cuda::std::memory_order_seq_cst;
    return cuda::std::memory_order_acquire;
}

// Operation `op` of kernels/tests/src/api/atomics.rs (ATOMIC_OPS) on `a`; writes
// what it returned to `*out` (the result-less forms: `v`). Returns false
// for an operation the type does not have.
template <typename T, cuda::thread_scope S>
__device__ __forceinline__ bool apply(cuda::atomic_ref<T, S> a, unsigned op, T v,
                                      cuda::std::memory_order o, T* out) {
    switch (op) {
        case 0: *out = a.fetch_add(v, o); return true;
        case 1: *out = a.fetch_sub(v, o); return true;
        case 2: *out = a.fetch_min(v, o); return true;
        case 3: *out = a.fetch_max(v, o); return true;
        case 7: *out = a.exchange(v, o); return true;
        case 8:
        case 17: {
            T old = a.load(cuda::std::memory_order_relaxed);
            for (;;) {
                T seen = old;
                bool ok = op == 8 ? a.compare_exchange_strong(seen, old + v, o, failure(o))
                                  : a.compare_exchange_weak(seen, old + v, o, failure(o));
                if (ok) { *out = old; return true; }
                old = seen;
            }
        }
        case 9: {  // fetch_update: a compare-exchange loop (CUDA has no such call)
            T old = a.load(failure(o));
            while (!a.compare_exchange_weak(old, old + v, o, failure(o))) {}
            *out = old;
            return true;
        }
        case 10: a.fetch_add(v, o); *out = v; return true;
        case 11: a.fetch_sub(v, o); *out = v; return true;
        case 12: a.fetch_min(v, o); *out = v; return true;
        case 13: a.fetch_max(v, o); *out = v; return true;
        default: break;
    }
    if constexpr (cuda::std::is_integral<T>::value) {
        switch (op) {
            case 4: *out = a.fetch_and(v, o); return true;
            case 5: *out = a.fetch_or(v, o); return true;
            case 6: *out = a.fetch_xor(v, o); return true;
            case 14: a.fetch_and(v, o); *out = v; return true;
            case 15: a.fetch_or(v, o); *out = v; return true;
            case 16: a.fetch_xor(v, o); *out = v; return true;
            default: break;
        }
    }
    return false;
}

template <typename T, cuda::thread_scope S>
__device__ __forceinline__ void atomic_probe_in(const T* values, T* cells, T* olds, unsigned ncells,
                                                unsigned op, unsigned order, unsigned space) {
    cg::thread_block block = cg::this_thread_block();
    unsigned long long i = cg::this_grid().thread_rank();
    cuda::std::memory_order o = ordering(order);
    T v = values[i];
    T old;
    if (space == 0) {
        cuda::atomic_ref<T, S> a(cells[i % ncells]);
        if (apply<T, S>(a, op, v, o, &old)) olds[i] = old;
        return;
    }
    if (space == 2) {  // distributed shared memory: rank 0's cells, every block of the cluster
        __shared__ u64 dshared[64];
        cg::cluster_group cluster = cg::this_cluster();
        T* local = reinterpret_cast<T*>(dshared);
        bool leader = cluster.block_rank() == 0;
        unsigned offset = blockIdx.x / cluster.num_blocks() * ncells;
        unsigned r = block.thread_rank();
        if (leader && r < ncells) local[r] = cells[offset + r];
        cluster.sync();
        T* remote = cluster.map_shared_rank(local, 0);
        cuda::atomic_ref<T, S> a(remote[cluster.thread_rank() % ncells]);
        if (apply<T, S>(a, op, v, o, &old)) olds[i] = old;
        cluster.sync();
        if (leader && r < ncells) cells[offset + r] = local[r];
        return;
    }
    __shared__ u64 shared[64];
    T* cell = reinterpret_cast<T*>(shared);
    unsigned offset = blockIdx.x * ncells;
    unsigned r = block.thread_rank();
    if (r < ncells) cell[r] = cells[offset + r];
    block.sync();
    cuda::atomic_ref<T, S> a(cell[r % ncells]);
    if (apply<T, S>(a, op, v, o, &old)) olds[i] = old;
    block.sync();
    if (r < ncells) cells[offset + r] = cell[r];
}

template <typename T>
__device__ __forceinline__ void atomic_probe(const T* values, T* cells, T* olds, unsigned ncells,
                                             unsigned op, unsigned order, unsigned scope, unsigned space) {
    switch (scope) {
        case 0: atomic_probe_in<T, cuda::thread_scope_block>(values, cells, olds, ncells, op, order, space); break;
        case 1: break;  // libcu++ has no thread_scope_cluster: judged by the CPU model only
        case 2: atomic_probe_in<T, cuda::thread_scope_device>(values, cells, olds, ncells, op, order, space); break;
        default: atomic_probe_in<T, cuda::thread_scope_system>(values, cells, olds, ncells, op, order, space); break;
    }
}

#define ATOMIC_TWIN(name, T)                                                                     \
    /* Twin of kernels/tests/src/api/atomics.rs `name`. */                                             \
    extern "C" __global__ void name(const T* values, u64 n, T* cells, T* olds, unsigned ncells, \
                                    unsigned op, unsigned order, unsigned scope, unsigned space) { \
        (void)n;                                                                                 \
        atomic_probe<T>(values, cells, olds, ncells, op, order, scope, space);                   \
    }

ATOMIC_TWIN(api_atomic_u32, unsigned)
ATOMIC_TWIN(api_atomic_i32, int)
ATOMIC_TWIN(api_atomic_u64, unsigned long long)
ATOMIC_TWIN(api_atomic_i64, long long)
ATOMIC_TWIN(api_atomic_f32, float)
ATOMIC_TWIN(api_atomic_f64, double)

// Twin of `api_message_passing`: mode 0 release store / acquire load, 1
// seq_cst on both sides, 2 __threadfence-style fences around relaxed flags.
extern "C" __global__ void api_message_passing(unsigned* data, unsigned* flags, unsigned* stale,
                                               unsigned trials, unsigned mode) {
    cg::grid_group grid = cg::this_grid();
    if (cg::this_thread_block().thread_rank() != 0) return;
    unsigned pair = grid.block_rank() / 2;
    bool producer = grid.block_rank() % 2 == 0;
    unsigned misses = 0;
    for (unsigned t = 0; t < trials; ++t) {
        unsigned slot = pair * trials + t;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(flags[slot]);
        if (producer) {
            data[slot] = t + 1;
            if (mode == 0) flag.store(1, cuda::std::memory_order_release);
            else if (mode == 1) flag.store(1, cuda::std::memory_order_seq_cst);
            else {
                cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_device);
                flag.store(1, cuda::std::memory_order_relaxed);
            }
        } else {
            if (mode == 0) while (flag.load(cuda::std::memory_order_acquire) == 0) {}
            else if (mode == 1) while (flag.load(cuda::std::memory_order_seq_cst) == 0) {}
            else {
                while (flag.load(cuda::std::memory_order_relaxed) == 0) {}
                cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
            }
            if (data[slot] != t + 1) ++misses;
        }
    }
    if (!producer) stale[pair] = misses;
}
