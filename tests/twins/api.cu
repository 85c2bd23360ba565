// CUDA C++ twins of the probe kernels in kernels/tests/src/api, for
// tests/gpu_differential.rs: CUDA judges our Cooperative Groups semantics.
//
// Each twin has its Rust kernel's name and exactly its PTX parameter list (a
// Rust `&[T]` is a pointer and a 64-bit length, `*mut T` a pointer, `u32` a
// u32), so the test launches both through the Rust kernel's typed handle on
// the same inputs. Each calls the same Cooperative Groups operation through
// nvcc's cooperative_groups on the same group and writes the same words in
// the same layout. What CUDA cannot express (shuffles, votes and
// collectives of the thread_group that cg::tiled_partition(parent, n)
// returns, a mask query, ...) the twin leaves unwritten, and the test
// excludes it by a named rule.
//
// Built by gpu-run's twins step: nvcc -O3 -arch=<the GPU's> -ptx -o twins/api.ptx.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <utility>

#include "words.cuh"

namespace cg = cooperative_groups;

/// Every twin is built for blocks of up to 1024 threads, as the tests launch
/// them (without the bound, nvcc may use more registers than such a block
/// can have).
#define MAX_THREADS 1024

// ---- mod.rs ----------------------------------------------------------------

/// The bits of a thread's key (`Key` in kernels/tests/src/api/mod.rs).
struct Key {
    u32 bits;
    /// The predicate that splits groups: bit 0.
    __device__ bool split() const { return (bits & 1) != 0; }
    /// The label of `labeled_partition`: bits 1..3.
    __device__ u32 label() const { return (bits >> 1) & 3; }
    /// The predicate of the votes: bit 3.
    __device__ bool vote() const { return (bits & 8) != 0; }
    /// The 32-bit value of the matches: bits 4..6.
    __device__ u32 matched() const { return (bits >> 4) & 3; }
    /// A 64-bit label: `label()` in the high word, the same low word for
    /// every thread.
    __device__ u64 wide_label() const { return ((u64)label() << 32) | 7; }
};

/// This thread's rank in the grid: the index of its inputs and outputs.
__device__ __forceinline__ u64 index() { return cg::this_grid().thread_rank(); }

/// This thread's lane in its warp.
__device__ __forceinline__ u32 lane_id() {
    u32 lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/// `g.num_threads()`.
template <class G>
__device__ u32 num_threads(const G& g) {
    return g.num_threads();
}

/// A thread_group's `size()`: CUDA declares `thread_group::num_threads()`
/// but does not define it.
__device__ u32 num_threads(const cg::thread_group& g) { return (u32)g.size(); }

/// The lanes of `g`'s members: CUDA has no mask query, so each member's
/// lane id is fetched with the group's own `shfl` from every rank.
template <class G>
__device__ u32 lanes_of(const G& g) {
    u32 lanes = 0;
    for (u32 k = 0; k < g.num_threads(); ++k) lanes |= 1u << g.shfl(lane_id(), k);
    return lanes;
}

/// The block rank of the member of rank `k`: a tile (static or cut at run
/// time) holds consecutive block ranks.
template <class G>
__device__ u32 member_block_rank(const G& g, u32 k) {
    return cg::this_thread_block().thread_rank() - (u32)g.thread_rank() + k;
}

/// The block rank of the member of rank `k` of a coalesced group: its warp's
/// first block rank plus the lane `shfl` finds at rank `k`.
__device__ u32 member_block_rank(const cg::coalesced_group& g, u32 k) {
    return (cg::this_thread_block().thread_rank() & ~31u) + g.shfl(lane_id(), k);
}

/// Words of `write_info` per thread.
constexpr u32 INFO_WORDS = 5;

/// `[thread_rank, num_threads, mask, meta_group_rank, meta_group_size]` of a
/// tile or coalesced group for thread `i` (`write_info` in mod.rs); the mask
/// as `lanes_of` finds it.
template <class G>
__device__ void write_info(const G& g, u32* info, u64 i) {
    u32 w[INFO_WORDS] = {g.thread_rank(), g.num_threads(), lanes_of(g), g.meta_group_rank(),
                         g.meta_group_size()};
    store(info, i, w);
}

/// The same for the thread_group of cg::tiled_partition(parent, n), which
/// answers only thread_rank and num_threads: the other words stay unwritten.
__device__ void write_info(const cg::thread_group& g, u32* info, u64 i) {
    info[i * INFO_WORDS] = (u32)g.thread_rank();
    info[i * INFO_WORDS + 1] = num_threads(g);
}

/// Writes the group's info (when `info` is not null), then runs the probe.
template <class G, class Probe>
__device__ void visit(const G& g, Probe& probe, u32* info, u64 i) {
    if (info) write_info(g, info, i);
    probe(g);
}

/// Runs `probe` on the group `sel` names (`with_group` in mod.rs), after
/// writing its info for thread `i` to `info` (unless null); nothing when
/// the thread has no such group.
///
/// `warp` is `cg::coalesced_threads()` taken at the top of the kernel, before
/// any branch: every lane of the warp that exists, which in a partial last
/// warp is what the Rust `tiled_partition_dynamic(&block, 32)` holds.
/// `tiled_partition_dynamic(&block, n)` is `cg::tiled_partition(block, n)`, a
/// thread_group; `tiled_partition_dynamic` of a coalesced group is
/// `cg::tiled_partition(coalesced_group, n)`, a coalesced group. As in the
/// Rust kernel, the coalesced groups (12..=20) are made first and the probe
/// runs on them from one call site.
template <class Probe>
__device__ void with_group(u32 sel, Key key, const cg::coalesced_group& warp, Probe& probe,
                           u32* info, u64 i) {
    cg::thread_block block = cg::this_thread_block();
    switch (sel) {
    case 0: return visit(cg::tiled_partition<1>(block), probe, info, i);
    case 1: return visit(cg::tiled_partition<2>(block), probe, info, i);
    case 2: return visit(cg::tiled_partition<4>(block), probe, info, i);
    case 3: return visit(cg::tiled_partition<8>(block), probe, info, i);
    case 4: return visit(cg::tiled_partition<16>(block), probe, info, i);
    case 5: return visit(cg::tiled_partition<32>(block), probe, info, i);
    case 6: case 7: case 8: case 9: case 10: case 11:
        return visit(cg::tiled_partition(block, 1u << (sel - 6)), probe, info, i);
    }
    if (sel > 20 || ((sel == 14 || sel == 20) && !key.split())) return;
    auto make = [&]() -> cg::coalesced_group {
        switch (sel) {
        case 12: return cg::binary_partition(warp, key.split());
        case 13: return cg::labeled_partition(warp, key.label());
        case 14: return cg::coalesced_threads();
        case 15: return cg::tiled_partition(cg::binary_partition(warp, key.split()), 4);
        case 16: return cg::labeled_partition(cg::tiled_partition<8>(block), key.label());
        case 17: return cg::binary_partition(cg::tiled_partition<16>(block), key.split());
        case 18: return cg::labeled_partition(warp, key.wide_label());
        case 19: return cg::binary_partition(cg::labeled_partition(warp, key.label()), key.split());
        default: return cg::labeled_partition(cg::coalesced_threads(), key.label());
        }
    };
    visit(make(), probe, info, i);
}

// ---- groups.rs ---------------------------------------------------------------

/// Words per thread of `api_group_queries`.
constexpr u32 QUERY_WORDS = 6;

/// `[thread_rank, num_threads, mask, meta_group_rank, meta_group_size,
/// partner]`, where `partner` is what the member of the next rank
/// (cyclically) wrote to shared memory before `cg::sync(g)`: its block rank + 1.
struct Queries {
    u32* shared;
    u32 block_rank;
    u32* out;
    u64 i;

    /// Publishes this thread's block rank + 1, synchronizes `g`, and reads
    /// what the member of the next rank published.
    template <class G>
    __device__ u32 after_sync(const G& g) {
        shared[block_rank] = block_rank + 1;
        cg::sync(g);
        u32 next = ((u32)g.thread_rank() + 1) % num_threads(g);
        return shared[member_block_rank(g, next)];
    }

    template <class G>
    __device__ void operator()(const G& g) {
        u32 partner = after_sync(g);
        u32 w[QUERY_WORDS] = {g.thread_rank(),     g.num_threads(),     lanes_of(g),
                              g.meta_group_rank(), g.meta_group_size(), partner};
        store(out, i, w);
    }

    /// A thread_group: no mask and no meta group to ask.
    __device__ void operator()(const cg::thread_group& g) {
        u32 partner = after_sync(g);
        out[i * QUERY_WORDS] = (u32)g.thread_rank();
        out[i * QUERY_WORDS + 1] = num_threads(g);
        out[i * QUERY_WORDS + 5] = partner;
    }
};

/// Calls `f(cg::tiled_partition<1 << log2>(parent))` for `log2` up to
/// `Log2Below - 1` (CUDA refuses a tile as large as its static parent).
template <unsigned Log2Below, class Parent, class F>
__device__ void static_tile(u32 log2, const Parent& parent, F& f) {
    switch (log2) {
    case 0: if constexpr (Log2Below > 0) f(cg::tiled_partition<1>(parent)); return;
    case 1: if constexpr (Log2Below > 1) f(cg::tiled_partition<2>(parent)); return;
    case 2: if constexpr (Log2Below > 2) f(cg::tiled_partition<4>(parent)); return;
    case 3: if constexpr (Log2Below > 3) f(cg::tiled_partition<8>(parent)); return;
    case 4: if constexpr (Log2Below > 4) f(cg::tiled_partition<16>(parent)); return;
    case 5: if constexpr (Log2Below > 5) f(cg::tiled_partition<32>(parent)); return;
    }
}

/// Twin of `api_group_queries` (kernels/tests/src/api/groups.rs). Selectors 0..=20
/// as `with_group`; 21..=25 `cg::tiled_partition<1 << (sel - 21)>` of the
/// warp tile; 26, a warp tile of the warp tile, CUDA refuses at compile time
/// (nothing written); 27..=32 `cg::tiled_partition(tile<8>, n)` and 33..=38
/// `cg::tiled_partition(cg::tiled_partition(block, 16), n)`, thread_groups;
/// 39 the block `[thread_rank, num_threads, 0, 0, 0, partner]`; 40
/// `cg::this_thread()`.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_group_queries(const u32* keys, u64 keys_len, u32* out, u32 sel) {
    cg::coalesced_group warp = cg::coalesced_threads();
    cg::thread_block block = cg::this_thread_block();
    __shared__ u32 shared[1024];
    u64 i = index();
    Queries q{shared, block.thread_rank(), out, i};
    if (sel <= 20) {
        with_group(sel, Key{keys[i]}, warp, q, nullptr, i);
    } else if (sel <= 26) {
        static_tile<5>(sel - 21, cg::tiled_partition<32>(block), q);
    } else if (sel <= 32) {
        cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
        q(cg::tiled_partition(tile8, 1u << (sel - 27)));
    } else if (sel <= 38) {
        q(cg::tiled_partition(cg::tiled_partition(block, 16), 1u << (sel - 33)));
    } else if (sel == 39) {
        u32 partner = q.after_sync(block);
        u32 w[QUERY_WORDS] = {block.thread_rank(), block.num_threads(), 0, 0, 0, partner};
        store(out, i, w);
    } else if (sel == 40) {
        q(cg::this_thread());
    }
}

/// Twin of `api_block_split_barrier` (groups.rs): after
/// `barrier_arrive` + `barrier_wait`, what the thread of block rank
/// `(r + 1) % n` wrote before them: its block rank + 1.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_block_split_barrier(u32* out) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ u32 shared[1024];
    u32 r = block.thread_rank();
    u32 n = block.num_threads();
    shared[r] = r + 1;
    cg::thread_block::arrival_token token = block.barrier_arrive();
    block.barrier_wait(std::move(token));
    out[index()] = shared[(r + 1) % n];
}

// ---- shuffles.rs -------------------------------------------------------------

/// A 12-byte struct (`Mixed12`).
struct Mixed12 {
    u32 a;
    float b;
    int c;
};

/// A 32-byte struct (`Wide32`), CUDA's largest shuffled size.
struct Wide32 {
    u64 words[4];
};

/// `op` 0 `shfl(v, src)` (a coalesced group: `src % num_threads`), 1
/// `shfl_up(v, arg)`, 2 `shfl_down(v, arg)`, 3 `shfl_xor(v, arg)` (tiles only).
template <class T>
struct Shuffle {
    T value;
    u32 src, op, arg;
    u32* out;
    u64 i;

    template <unsigned N, class P>
    __device__ void operator()(const cg::thread_block_tile<N, P>& g) {
        switch (op) {
        case 0: return store(out, i, g.shfl(value, (int)src));
        case 1: return store(out, i, g.shfl_up(value, arg));
        case 2: return store(out, i, g.shfl_down(value, arg));
        case 3: return store(out, i, g.shfl_xor(value, arg));
        }
    }

    __device__ void operator()(const cg::coalesced_group& g) {
        switch (op) {
        case 0: return store(out, i, g.shfl(value, (int)(src % g.num_threads())));
        case 1: return store(out, i, g.shfl_up(value, (int)arg));
        case 2: return store(out, i, g.shfl_down(value, arg));
        }
    }

    /// A thread_group has no shuffles.
    __device__ void operator()(const cg::thread_group&) {}
};

/// The body every `api_shfl_*` twin shares (`shuffle_probe` in shuffles.rs).
template <class T>
__device__ void shuffle_twin(const u32* input, const u32* src, const u32* keys, u32* out, u32* info,
                             u32 sel, u32 op, u32 arg) {
    cg::coalesced_group warp = cg::coalesced_threads();
    u64 i = index();
    Shuffle<T> probe{load<T>(input, i), src[i], op, arg, out, i};
    with_group(sel, Key{keys[i]}, warp, probe, info, i);
}

/// Twins of the `api_shfl_*` kernels (shuffles.rs).
#define SHUFFLE_TWIN(name, T)                                                                   \
    extern "C" __global__ void __launch_bounds__(MAX_THREADS)                                   \
    name(const u32* input, u64 input_len, const u32* src, u64 src_len, const u32* keys,         \
         u64 keys_len, u32* out, u32* info, u32 sel, u32 op, u32 arg) {                         \
        shuffle_twin<T>(input, src, keys, out, info, sel, op, arg);                             \
    }
SHUFFLE_TWIN(api_shfl_u32, u32)
SHUFFLE_TWIN(api_shfl_i32, int)
SHUFFLE_TWIN(api_shfl_f32, float)
SHUFFLE_TWIN(api_shfl_u64, u64)
SHUFFLE_TWIN(api_shfl_f64, double)
SHUFFLE_TWIN(api_shfl_mixed12, Mixed12)
SHUFFLE_TWIN(api_shfl_wide32, Wide32)

// ---- votes.rs ----------------------------------------------------------------

/// Words per thread of `api_votes`.
constexpr u32 VOTE_WORDS = 12;

/// `any(vote)`, `all(vote)`, `ballot(vote)`, `match_any(m)`, `match_all(m)`
/// as `[pred, ranks]`, `match_any(wide)`, `match_all(wide)` as `[pred, ranks]`,
/// `match_any(float(m))`, `thread_rank`, mask.
struct Votes {
    Key key;
    u64 wide;
    u32* out;
    u64 i;

    template <class G>
    __device__ void operator()(const G& g) {
        bool p = key.vote();
        int all32 = 0, all64 = 0;
        u32 ranks32 = g.match_all(key.matched(), all32);
        u32 ranks64 = g.match_all(wide, all64);
        u32 w[VOTE_WORDS] = {(u32)g.any(p),
                             (u32)g.all(p),
                             g.ballot(p),
                             g.match_any(key.matched()),
                             (u32)all32,
                             ranks32,
                             g.match_any(wide),
                             (u32)all64,
                             ranks64,
                             g.match_any((float)key.matched()),
                             g.thread_rank(),
                             lanes_of(g)};
        store(out, i, w);
    }

    /// A thread_group has no votes.
    __device__ void operator()(const cg::thread_group&) {}
};

/// Twin of `api_votes` (votes.rs).
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_votes(const u32* keys, u64 keys_len, const u64* wide, u64 wide_len, u32* out, u32* info,
          u32 sel) {
    cg::coalesced_group warp = cg::coalesced_threads();
    u64 i = index();
    Votes probe{Key{keys[i]}, wide[i], out, i};
    with_group(sel, probe.key, warp, probe, info, i);
}

// ---- collectives.rs ----------------------------------------------------------

/// `a + b` as the Rust closure `|a, b| a + b` computes it: wrapping for
/// integers.
template <class T>
__device__ T add(T a, T b) {
    return a + b;
}
template <>
__device__ int add<int>(int a, int b) {
    return (int)((u32)a + (u32)b);
}

/// `[reduce, inclusive_scan, exclusive_scan]` of one value with one operator.
template <class T, class Op>
struct Collect {
    T value;
    Op op;
    u32* out;
    u64 i;

    template <class G>
    __device__ void operator()(const G& g) {
        T r[3] = {cg::reduce(g, value, op), cg::inclusive_scan(g, value, op),
                  cg::exclusive_scan(g, value, op)};
        store(out, i, r);
    }

    /// A thread_group has no collectives.
    __device__ void operator()(const cg::thread_group&) {}
};

/// Calls `run(operator)` with the operator `op` names for integers: 0
/// `cg::plus`, 1 `cg::less`, 2 `cg::greater`, 3 `cg::bit_and`, 4 `cg::bit_or`,
/// 5 `cg::bit_xor`, 6 a lambda `a + b`.
template <class T, class Run>
__device__ void integer_operator(u32 op, Run&& run) {
    switch (op) {
    case 0: return run(cg::plus<T>());
    case 1: return run(cg::less<T>());
    case 2: return run(cg::greater<T>());
    case 3: return run(cg::bit_and<T>());
    case 4: return run(cg::bit_or<T>());
    case 5: return run(cg::bit_xor<T>());
    case 6: return run([](T a, T b) { return add(a, b); });
    }
}

/// The same for floating point: 0 `cg::plus`, 1 `cg::less`, 2 `cg::greater`,
/// 6 a lambda `a + b`.
template <class T, class Run>
__device__ void float_operator(u32 op, Run&& run) {
    switch (op) {
    case 0: return run(cg::plus<T>());
    case 1: return run(cg::less<T>());
    case 2: return run(cg::greater<T>());
    case 6: return run([](T a, T b) { return a + b; });
    }
}

/// The body of the `api_collective_*` twins: `T` values (`Integer`: with the
/// integer operators), the operator `op` names, the group `sel` names.
template <class T, bool Integer>
__device__ void collective_twin(const u32* input, const u32* keys, u32* out, u32* info, u32 sel,
                                u32 op) {
    cg::coalesced_group warp = cg::coalesced_threads();
    u64 i = index();
    Key key{keys[i]};
    T value = load<T>(input, i);
    auto run = [&](auto f) {
        Collect<T, decltype(f)> probe{value, f, out, i};
        with_group(sel, key, warp, probe, info, i);
    };
    if constexpr (Integer) {
        integer_operator<T>(op, run);
    } else {
        float_operator<T>(op, run);
    }
}

/// Twins of `api_collective_{u32,i32,u64,f32,f64}` (collectives.rs).
#define COLLECTIVE_TWIN(name, T, Integer)                                                       \
    extern "C" __global__ void __launch_bounds__(MAX_THREADS)                                   \
    name(const u32* input, u64 input_len, const u32* keys, u64 keys_len, u32* out, u32* info,   \
         u32 sel, u32 op) {                                                                     \
        collective_twin<T, Integer>(input, keys, out, info, sel, op);                           \
    }
COLLECTIVE_TWIN(api_collective_u32, u32, true)
COLLECTIVE_TWIN(api_collective_i32, int, true)
COLLECTIVE_TWIN(api_collective_u64, u64, true)
COLLECTIVE_TWIN(api_collective_f32, float, false)
COLLECTIVE_TWIN(api_collective_f64, double, false)

/// Sum, minimum and maximum at once (`Stats`).
struct Stats {
    u32 sum, min, max;
};

/// A probe that does nothing: the group (and its info) without an operation.
struct NoProbe {
    template <class G>
    __device__ void operator()(const G&) {}
};

/// Twin of `api_collective_struct` (collectives.rs) for `op` 1, the `Stats`
/// merge, which commutes, so CUDA's combination order gives the same words.
/// `op` 0 composes `Affine` maps, which do not commute: CUDA combines a
/// member's own value with its partner's in tree order, not rank order, and
/// cannot judge it (only the group info is written).
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_collective_struct(const u32* input, u64 input_len, const u32* keys, u64 keys_len, u32* out,
                      u32* info, u32 sel, u32 op) {
    cg::coalesced_group warp = cg::coalesced_threads();
    u64 i = index();
    Key key{keys[i]};
    if (op != 1) {
        NoProbe none;
        return with_group(sel, key, warp, none, info, i);
    }
    auto merge = [](Stats x, Stats y) {
        return Stats{x.sum + y.sum, min(x.min, y.min), max(x.max, y.max)};
    };
    Collect<Stats, decltype(merge)> probe{load<Stats>(input, i), merge, out, i};
    with_group(sel, key, warp, probe, info, i);
}

/// `out[i]`: the ticket `cg::invoke_one_broadcast` handed the group (one
/// `atomicAdd` on `counters[0]` per group); `cg::invoke_one` adds 1 to
/// `counters[1]` once per group.
struct InvokeOne {
    u32* counters;
    u32* out;
    u64 i;

    template <class G>
    __device__ void operator()(const G& g) {
        u32 ticket = cg::invoke_one_broadcast(g, [&] { return atomicAdd(&counters[0], 1u); });
        cg::invoke_one(g, [&] { atomicAdd(&counters[1], 1u); });
        out[i] = ticket;
    }

    /// A thread_group has `cg::invoke_one` but no `invoke_one_broadcast`.
    __device__ void operator()(const cg::thread_group& g) {
        cg::invoke_one(g, [&] { atomicAdd(&counters[1], 1u); });
    }
};

/// Twin of `api_invoke_one` (collectives.rs).
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_invoke_one(const u32* keys, u64 keys_len, u32* counters, u32* out, u32* info, u32 sel) {
    cg::coalesced_group warp = cg::coalesced_threads();
    u64 i = index();
    InvokeOne probe{counters, out, i};
    with_group(sel, Key{keys[i]}, warp, probe, info, i);
}

// `api_block_reduce` has no twin: Cooperative Groups has no block-wide reduce.

// ---- full_warp.rs ------------------------------------------------------------

/// Twin of `api_full_warp_ops` (full_warp.rs): with `v = input[i]`,
/// `w = wide[i]`: `shfl(v, 5)`, `shfl_up(v, 1)`, `shfl_down(v, 2)`,
/// `shfl_xor(v, 3)`, `any(v odd)`, `all(v odd)`, `ballot(v odd)`,
/// `match_any(v & 3)`, `match_any(w)`, `match_all(v & 3)` as `[pred, ranks]`,
/// `reduce(v, plus)`, `reduce(v, less)`, `reduce(v, bit_xor)`,
/// `inclusive_scan(v, plus)`, `exclusive_scan(v, plus)`.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_full_warp_ops(const u32* input, u64 input_len, const u64* wide, u64 wide_len, u32* out) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    u64 i = index();
    u32 v = input[i];
    bool odd = (v & 1) != 0;
    int all = 0;
    u32 all_ranks = warp.match_all(v & 3, all);
    u32 w[16] = {warp.shfl(v, 5),
                 warp.shfl_up(v, 1),
                 warp.shfl_down(v, 2),
                 warp.shfl_xor(v, 3),
                 (u32)warp.any(odd),
                 (u32)warp.all(odd),
                 warp.ballot(odd),
                 warp.match_any(v & 3),
                 warp.match_any(wide[i]),
                 (u32)all,
                 all_ranks,
                 cg::reduce(warp, v, cg::plus<u32>()),
                 cg::reduce(warp, v, cg::less<u32>()),
                 cg::reduce(warp, v, cg::bit_xor<u32>()),
                 cg::inclusive_scan(warp, v, cg::plus<u32>()),
                 cg::exclusive_scan(warp, v, cg::plus<u32>())};
    store(out, i, w);
}

// ---- multi_warp.rs -----------------------------------------------------------

/// Words per thread of `api_multi_warp`.
constexpr u32 MW_WORDS = 14;

/// `[thread_rank, num_threads, meta_group_rank, meta_group_size, partner,
/// shfl(v, arg % size), any(vote), all(vote), reduce(v, plus), reduce(f,
/// plus), inclusive_scan(f, plus), exclusive_scan(f, plus),
/// inclusive_scan(v, plus), exclusive_scan(v, greater)]`, floats as bits.
struct MultiWarp {
    u32* shared;
    u32 block_rank;
    u32 value;
    float f;
    bool vote;
    u32 arg;
    u32* out;
    u64 i;

    template <class G>
    __device__ void operator()(const G& g) {
        u32 rank = g.thread_rank();
        u32 n = g.num_threads();
        shared[block_rank] = block_rank + 1;
        g.sync();
        u32 partner = shared[block_rank - rank + (rank + 1) % n];
        u32 w[MW_WORDS] = {rank,
                           n,
                           g.meta_group_rank(),
                           g.meta_group_size(),
                           partner,
                           g.shfl(value, arg % n),
                           (u32)g.any(vote),
                           (u32)g.all(vote),
                           cg::reduce(g, value, cg::plus<u32>()),
                           __float_as_uint(cg::reduce(g, f, cg::plus<float>())),
                           __float_as_uint(cg::inclusive_scan(g, f, cg::plus<float>())),
                           __float_as_uint(cg::exclusive_scan(g, f, cg::plus<float>())),
                           cg::inclusive_scan(g, value, cg::plus<u32>()),
                           cg::exclusive_scan(g, value, cg::greater<u32>())};
        store(out, i, w);
    }
};

/// Twin of `api_multi_warp` (multi_warp.rs): `sel` 0..=3
/// `cg::tiled_partition<64 << sel>(block)`, 4 a tile of 64 of a tile of 256,
/// 5 a warp tile of a tile of 128.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_multi_warp(const u32* input, u64 input_len, const float* floats, u64 floats_len,
               const u32* keys, u64 keys_len, u32* out, u32 sel, u32 arg) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ u32 shared[1024];
    u64 i = index();
    MultiWarp probe{
        shared, block.thread_rank(), input[i], floats[i], Key{keys[i]}.vote(), arg, out, i};
    switch (sel) {
    case 0: return probe(cg::tiled_partition<64>(block));
    case 1: return probe(cg::tiled_partition<128>(block));
    case 2: return probe(cg::tiled_partition<256>(block));
    case 3: return probe(cg::tiled_partition<512>(block));
    case 4: return probe(cg::tiled_partition<64>(cg::tiled_partition<256>(block)));
    case 5: return probe(cg::tiled_partition<32>(cg::tiled_partition<128>(block)));
    }
}

// ---- grid.rs -----------------------------------------------------------------

/// Twin of `api_grid_split_barrier` (grid.rs), launched cooperatively:
/// `rounds` rounds; in round `r` thread `i < n` publishes `published(i, r)`
/// (grid.rs) in buffer `r % 2` of `scratch`,
/// crosses a grid barrier (`barrier_arrive` + `barrier_wait` in even rounds,
/// with a write to `out` in between; `cg::sync(grid)` in odd rounds) and
/// stores `out[r * n + i]` = what thread `(i + 1 + r) % n` published.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_grid_split_barrier(u32* scratch, u32* out, u32 n, u32 rounds) {
    cg::grid_group grid = cg::this_grid();
    u32 i = (u32)grid.thread_rank();
    for (u32 r = 0; r < rounds; ++r) {
        u32* buf = scratch + (r % 2) * n;
        u64 slot = (u64)r * n + i;
        if (i < n) buf[i] = (i ^ (r * 0x9E3779B9u)) * 2654435761u;
        if (r % 2 == 0) {
            cg::grid_group::arrival_token token = grid.barrier_arrive();
            if (i < n) out[slot] = 0xFFFFFFFFu;
            grid.barrier_wait(std::move(token));
        } else {
            cg::sync(grid);
        }
        if (i < n) out[slot] = buf[(i + 1 + r) % n];
    }
}

/// Words per thread of `api_grid_queries`.
constexpr u32 GRID_WORDS = 16;

/// Twin of `api_grid_queries` (grid.rs): `thread_rank` (low, high word),
/// `num_threads` (low, high), `block_rank`, `num_blocks`, `thread_index()`,
/// `dim_threads()`, `dim_blocks()` (x, y, z each), `is_valid()`.
extern "C" __global__ void __launch_bounds__(MAX_THREADS)
api_grid_queries(u32* out) {
    cg::grid_group grid = cg::this_grid();
    u64 rank = grid.thread_rank();
    u64 n = grid.num_threads();
    dim3 ti = grid.thread_index();
    dim3 dt = grid.dim_threads();
    dim3 db = grid.dim_blocks();
    u32 w[GRID_WORDS] = {(u32)rank, (u32)(rank >> 32), (u32)n, (u32)(n >> 32),
                         (u32)grid.block_rank(), (u32)grid.num_blocks(),
                         ti.x, ti.y, ti.z, dt.x, dt.y, dt.z, db.x, db.y, db.z,
                         (u32)grid.is_valid()};
    store(out, rank, w);
}
