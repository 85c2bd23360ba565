//! Atomics of every operation, type, ordering and scope, on global and
//! shared memory, and a release/acquire message-passing litmus test.
//!
//! [`api_atomic`] (one instance per type: `api_atomic_u32` ..) has every
//! thread `i`
//! applies operation `op` with `values[i]` to cell `i % cells` (contended
//! when `cells` is small), with the ordering `order` and the scope
//! `scope`, and writes the value the operation returned (or the value it
//! read) to `olds[i]`. On shared memory (`space` 1) each block works on its
//! own copy of the cells, loaded from and stored back to
//! `cells[block * cells ..]` around the updates; on distributed shared
//! memory (`space` 2, sm_90, a launch in clusters) each cluster works on
//! one copy in its first block's shared memory, which every block of the
//! cluster updates.

use super::index;
use cg_core::atomic::{
    AtomicArith, AtomicBits, AtomicRef, AtomicSlice, Block, Device, Ordering, Scope, System,
};
use cg_core::prelude::*;

/// The operations, by `op`.
///
/// | `op` | call |
/// |---|---|
/// | 0 | `fetch_add(v)` |
/// | 1 | `fetch_sub(v)` |
/// | 2 | `fetch_min(v)` |
/// | 3 | `fetch_max(v)` |
/// | 4 | `fetch_and(v)` (integers) |
/// | 5 | `fetch_or(v)` (integers) |
/// | 6 | `fetch_xor(v)` (integers) |
/// | 7 | `swap(v)` |
/// | 8 | a `compare_exchange` loop adding `v` (returns the value replaced) |
/// | 9 | `fetch_update` adding `v` |
/// | 10 | `add(v)` (no result: `red`) |
/// | 11 | `sub(v)` |
/// | 12 | `min(v)` |
/// | 13 | `max(v)` |
/// | 14 | `and(v)` (integers) |
/// | 15 | `or(v)` (integers) |
/// | 16 | `xor(v)` (integers) |
/// | 17 | `compare_exchange_weak` loop adding `v` |
pub const ATOMIC_OPS: u32 = 18;

/// Rust's orderings by index: 0 Relaxed, 1 Acquire, 2 Release, 3 AcqRel,
/// 4 SeqCst.
#[inline(always)]
fn ordering(order: u32) -> Ordering {
    match order {
        0 => Ordering::Relaxed,
        1 => Ordering::Acquire,
        2 => Ordering::Release,
        3 => Ordering::AcqRel,
        _ => Ordering::SeqCst,
    }
}

/// The failure ordering `compare_exchange` allows with `success`.
#[inline(always)]
fn failure(success: Ordering) -> Ordering {
    match success {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::SeqCst => Ordering::SeqCst,
        _ => Ordering::Acquire,
    }
}

/// An atomic type and what the integer-only operations do for it.
pub trait Probed: AtomicArith + core::ops::Add<Output = Self> {
    /// `op` 4..=6 and 14..=16, where the type has them.
    fn bits<S: Scope>(a: &AtomicRef<'_, Self, S>, op: u32, v: Self, o: Ordering) -> Option<Self>;
}

macro_rules! probed_int {
    ($($t:ty)*) => {$(
        impl Probed for $t {
            #[inline(always)]
            fn bits<S: Scope>(a: &AtomicRef<'_, Self, S>, op: u32, v: Self, o: Ordering) -> Option<Self> {
                bits_of(a, op, v, o)
            }
        }
    )*};
}
probed_int!(u32 i32 u64 i64);

macro_rules! probed_float {
    ($($t:ty)*) => {$(
        impl Probed for $t {
            #[inline(always)]
            fn bits<S: Scope>(_: &AtomicRef<'_, Self, S>, _: u32, _: Self, _: Ordering) -> Option<Self> {
                None
            }
        }
    )*};
}
probed_float!(f32 f64);

#[inline(always)]
fn bits_of<T: AtomicBits, S: Scope>(
    a: &AtomicRef<'_, T, S>,
    op: u32,
    v: T,
    o: Ordering,
) -> Option<T> {
    Some(match op {
        4 => a.fetch_and(v, o),
        5 => a.fetch_or(v, o),
        6 => a.fetch_xor(v, o),
        14 => {
            a.and(v, o);
            v
        }
        15 => {
            a.or(v, o);
            v
        }
        _ => {
            a.xor(v, o);
            v
        }
    })
}

/// Applies `op` to `a`; the result-less forms return `v`.
#[inline(always)]
fn apply<T: Probed, S: Scope>(a: &AtomicRef<'_, T, S>, op: u32, v: T, o: Ordering) -> Option<T> {
    Some(match op {
        0 => a.fetch_add(v, o),
        1 => a.fetch_sub(v, o),
        2 => a.fetch_min(v, o),
        3 => a.fetch_max(v, o),
        4..=6 | 14..=16 => return T::bits(a, op, v, o),
        7 => a.swap(v, o),
        8 | 17 => {
            let mut old = a.load(Ordering::Relaxed);
            loop {
                let r = if op == 8 {
                    a.compare_exchange(old, old + v, o, failure(o))
                } else {
                    a.compare_exchange_weak(old, old + v, o, failure(o))
                };
                match r {
                    Ok(prev) => break prev,
                    Err(seen) => old = seen,
                }
            }
        }
        9 => match a.fetch_update(o, failure(o), |x| Some(x + v)) {
            Ok(prev) | Err(prev) => prev,
        },
        10 => {
            a.add(v, o);
            v
        }
        11 => {
            a.sub(v, o);
            v
        }
        12 => {
            a.min(v, o);
            v
        }
        13 => {
            a.max(v, o);
            v
        }
        _ => return None,
    })
}

/// Atomics on `T`, one instance per type: see the module docs and
/// [`ATOMIC_OPS`]; `scope` 0 Block, 1 Cluster (sm_90 builds only),
/// 2 Device, 3 System.
#[allow(clippy::too_many_arguments)]
#[kernel(instances(
    api_atomic_u32 = <u32>,
    api_atomic_i32 = <i32>,
    api_atomic_u64 = <u64>,
    api_atomic_i64 = <i64>,
    api_atomic_f32 = <f32>,
    api_atomic_f64 = <f64>,
))]
pub fn api_atomic<T: Probed>(
    values: &[T],
    cells: *mut T,
    olds: *mut T,
    ncells: u32,
    op: u32,
    order: u32,
    scope: u32,
    space: u32,
) {
    match scope {
        0 => atomic_probe_in::<T, Block>(values, cells, olds, ncells, op, order, space),
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        1 => atomic_probe_in::<T, cg_core::atomic::Cluster>(
            values, cells, olds, ncells, op, order, space,
        ),
        2 => atomic_probe_in::<T, Device>(values, cells, olds, ncells, op, order, space),
        3 => atomic_probe_in::<T, System>(values, cells, olds, ncells, op, order, space),
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn atomic_probe_in<T: Probed, S: Scope>(
    values: &[T],
    cells: *mut T,
    olds: *mut T,
    ncells: u32,
    op: u32,
    order: u32,
    space: u32,
) {
    let i = index();
    let o = ordering(order);
    let v = values[i];
    let n = ncells as usize;
    if space == 0 {
        // SAFETY: `cells` holds `ncells` values, touched only atomically.
        let a = unsafe { AtomicRef::<T, S>::from_ptr(cells.add(i % n)) };
        if let Some(old) = apply(&a, op, v, o) {
            // SAFETY: `olds` holds one value per thread of the grid (the test's
            // launch), and `i` is this thread's rank: its own slot.
            unsafe { *olds.add(i) = old };
        }
        return;
    }
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    if space == 2 {
        return distributed_probe::<T, S>(v, cells, olds, n, op, o);
    }
    let block = this_thread_block();
    let shared = shared_array!(u64; 64);
    // SAFETY: 64 u64 words hold at least 64 values of T (4 or 8 bytes).
    let base = shared.shared_addr();
    let cell = |k: usize| base + (k * core::mem::size_of::<T>()) as u32;
    let offset = block.group_index().x as usize * n;
    let r = block.thread_rank() as usize;
    if r < n {
        // SAFETY: cell r < ncells <= 64 of the shared array.
        unsafe { cg_core::shared::st_shared(cell(r), *cells.add(offset + r)) };
    }
    block.sync();
    // SAFETY: as above; shared atomics at scope S (block scope at least
    // covers the block's own threads).
    let a = unsafe { AtomicRef::<T, S>::from_shared_addr(cell(r % n)) };
    if let Some(old) = apply(&a, op, v, o) {
        // SAFETY: as above: this thread's own slot of `olds`.
        unsafe { *olds.add(i) = old };
    }
    block.sync();
    if r < n {
        // SAFETY: `cells` holds `ncells` values per block (the test's launch)
        // and `r < n`: this block's cell `r`, written by thread `r` alone;
        // `cell(r)` is that cell of the block's shared array, written only
        // before the barrier above.
        unsafe { *cells.add(offset + r) = cg_core::shared::ld_shared(cell(r)) };
    }
}

/// `space` 2 (sm_90, launched in clusters along x): the cells live in the
/// shared memory of block rank 0 of each cluster, loaded from and stored
/// back to `cells[cluster * ncells ..]`, and every thread of the cluster
/// updates cell `cluster.thread_rank() % ncells` through distributed shared
/// memory (`.shared::cluster`).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
fn distributed_probe<T: Probed, S: Scope>(
    v: T,
    cells: *mut T,
    olds: *mut T,
    n: usize,
    op: u32,
    o: Ordering,
) {
    let cluster = this_cluster();
    let block = this_thread_block();
    let shared = shared_array!(u64; 64);
    let size = core::mem::size_of::<T>();
    let base = shared.shared_addr();
    let leader = cluster.block_rank() == 0;
    let offset = (block.group_index().x / cluster.num_blocks()) as usize * n;
    let r = block.thread_rank() as usize;
    if leader && r < n {
        // SAFETY: cell r < ncells <= 64 of the shared array.
        unsafe { cg_core::shared::st_shared(base + (r * size) as u32, *cells.add(offset + r)) };
    }
    cluster.sync();
    let remote = cluster.map_shared_rank(&shared, 0).shared_addr();
    let k = cluster.thread_rank() as usize % n;
    // SAFETY: cell k < ncells <= 64 of rank 0's array, which stays alive
    // until the cluster barrier below; touched only atomically meanwhile.
    let a = unsafe { AtomicRef::<T, S>::from_cluster_shared_addr(remote + (k * size) as u32) };
    if let Some(old) = apply(&a, op, v, o) {
        // SAFETY: `olds` holds one value per thread of the grid (the test's
        // launch): this thread's own slot.
        unsafe { *olds.add(index()) = old };
    }
    cluster.sync();
    if leader && r < n {
        // SAFETY: `cells` holds `ncells` values per cluster and `r < n`: this
        // cluster's cell `r`, written by thread `r` of the leader block alone;
        // the shared cell is read after the cluster barrier ended the updates.
        unsafe { *cells.add(offset + r) = cg_core::shared::ld_shared(base + (r * size) as u32) };
    }
}

/// Message passing across blocks, `trials` times per pair: block `2k`
/// writes `data[t] = t + 1` (a plain store) and then releases `flag[t]`;
/// block `2k + 1` spins until it acquires the flag and reads `data[t]`. Thread
/// 0 of each consumer block counts the reads that saw stale data in
/// `stale[k]`. Launched cooperatively, so producer and consumer are resident
/// together. `sc` 1 uses `SeqCst` on both sides and `fence` 1 a release
/// fence + relaxed flag store / relaxed load + acquire fence instead.
#[kernel(cooperative)]
pub fn api_message_passing(
    data: *mut u32,
    flags: *mut u32,
    stale: *mut u32,
    trials: u32,
    mode: u32,
) {
    let grid = this_grid();
    let block = this_thread_block();
    if block.thread_rank() != 0 {
        return;
    }
    let pair = grid.block_rank() / 2;
    let producer = grid.block_rank() % 2 == 0;
    let mut misses = 0;
    for t in 0..trials {
        let slot = (pair * trials + t) as usize;
        // SAFETY: each (pair, trial) slot belongs to one producer and one
        // consumer; the flag is touched only atomically.
        let flag = unsafe { AtomicRef::<u32, Device>::from_ptr(flags.add(slot)) };
        if producer {
            // SAFETY: `data` holds `pairs * trials` values (the test's launch);
            // slot `slot` is written only by this pair's producer, before it
            // sets the flag.
            unsafe { *data.add(slot) = t + 1 };
            match mode {
                0 => flag.store(1, Ordering::Release),
                1 => flag.store(1, Ordering::SeqCst),
                _ => {
                    cg_core::atomic::fence::<Device>(Ordering::Release);
                    flag.store(1, Ordering::Relaxed);
                }
            }
        } else {
            match mode {
                0 => while flag.load(Ordering::Acquire) == 0 {},
                1 => while flag.load(Ordering::SeqCst) == 0 {},
                _ => {
                    while flag.load(Ordering::Relaxed) == 0 {}
                    cg_core::atomic::fence::<Device>(Ordering::Acquire);
                }
            }
            // SAFETY: the same slot, read by this pair's consumer after the
            // flag (acquire) said the producer wrote it; a stale read is what
            // the test counts.
            if unsafe { *data.add(slot) } != t + 1 {
                misses += 1;
            }
        }
    }
    if !producer {
        // SAFETY: `stale` holds one value per pair (the test's launch); only
        // this pair's consumer writes slot `pair`.
        unsafe { *stale.add(pair as usize) = misses };
    }
}

/// Shared cells of [`api_load_after_sync`] a block.
const SHARED_CELLS: usize = 4;

/// [`AtomicRef::load_after_sync`] after barriers, `rounds` times: in round
/// `r` one thread of the grid (a different one each round) stores
/// `after_sync_value(r, c)` into each global cell `c` (relaxed), and one
/// thread of each block into the block's shared cells; after `grid.sync()`
/// (and so `block.sync()`) every thread reads every cell with
/// `load_after_sync` and counts the cells that do not hold this round's
/// value; a second barrier ends the round's reads before the next round's
/// stores. Each thread writes its count of misses to `misses`. The cells
/// keep their addresses, so a stale line of an earlier round in L1 would
/// be read as a miss.
#[kernel(cooperative)]
pub fn api_load_after_sync(cells: AtomicSlice<u32>, mut misses: Output<u32>, rounds: u32) {
    let grid = this_grid();
    let block = this_thread_block();
    let shared = shared_array!(u32; SHARED_CELLS);
    let threads = grid.num_threads();
    let mut missed = 0u32;
    for r in 0..rounds {
        let writer = (r as u64).wrapping_mul(7919) % threads;
        if grid.thread_rank() == writer {
            for c in 0..cells.len() {
                cells
                    .at(c)
                    .store(after_sync_value(r, c as u32), Ordering::Relaxed);
            }
        }
        if block.thread_rank() == r % block.num_threads() {
            for c in 0..SHARED_CELLS {
                shared
                    .atomic(c)
                    .store(after_sync_value(r, c as u32), Ordering::Relaxed);
            }
        }
        grid.sync();
        for c in 0..cells.len() {
            missed += (cells.at(c).load_after_sync() != after_sync_value(r, c as u32)) as u32;
        }
        for c in 0..SHARED_CELLS {
            missed += (shared.atomic(c).load_after_sync() != after_sync_value(r, c as u32)) as u32;
        }
        grid.sync();
    }
    misses.for_thread(&grid, |m| *m = missed);
}

/// What [`api_load_after_sync`] stores in cell `c` in round `r` (never 0,
/// the cells' value before the first round).
#[inline(always)]
fn after_sync_value(r: u32, c: u32) -> u32 {
    r.wrapping_mul(0x9e37_79b9)
        .wrapping_add(c.wrapping_mul(0x85eb_ca6b))
        | 1
}

/// One call of each form with constant orderings and scopes, for the PTX
/// tests (tests/ptx.rs checks the instruction each one becomes).
#[kernel]
pub fn api_atomic_forms(cells: *mut u32, wide: *mut u64, floats: *mut f32, out: *mut u32) {
    // SAFETY: the test passes buffers of at least 4 elements each.
    let (a, b, w, f) = unsafe {
        (
            AtomicRef::<u32>::from_ptr(cells),
            AtomicRef::<u32, System>::from_ptr(cells.add(1)),
            AtomicRef::<u64, Block>::from_ptr(wide),
            AtomicRef::<f32>::from_ptr(floats),
        )
    };
    let counts = shared_array!(u32; 4);
    let old = a.fetch_add(1, Ordering::AcqRel);
    a.add(2, Ordering::Relaxed);
    f.add(1.5, Ordering::Relaxed);
    let bits = b.fetch_or(old, Ordering::Relaxed);
    let swapped = w.compare_exchange(7, 9, Ordering::Acquire, Ordering::Acquire);
    counts.atomic(0).add(1, Ordering::Relaxed);
    cg_core::atomic::fence::<Device>(Ordering::SeqCst);
    cg_core::atomic::threadfence_block();
    let seen = a.load(Ordering::Acquire);
    b.store(seen, Ordering::Release);
    let plain = b.load_after_sync() ^ w.load_after_sync() as u32;
    let result = bits ^ swapped.is_ok() as u32 ^ counts.get(0) ^ plain;
    // SAFETY: never launched (tests/ptx.rs reads only the PTX); a launch must
    // give `out` at least one element, which every thread overwrites.
    unsafe { *out = result };
}

/// Atomics on distributed shared memory (block rank 0's counters, from
/// every block of a cluster of 2), for the PTX tests: each becomes one
/// `.shared::cluster` instruction at cluster scope.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[kernel(cluster(2))]
pub fn api_atomic_cluster_forms(out: *mut u32) {
    let cluster = this_cluster();
    let counts = shared_array!(u32; 4);
    if cluster.block_rank() == 0 && this_thread_block().thread_rank() == 0 {
        counts.set(0, 0);
    }
    cluster.sync();
    let leader = cluster.map_shared_rank(&counts, 0);
    let a = leader.atomic(0);
    let old = a.fetch_add(1, Ordering::Relaxed);
    a.max(old, Ordering::Release);
    let seen = a.load(Ordering::Acquire);
    // A 64-bit min there is a compare-and-swap loop (see cg-core's
    // `cluster_rmw!`).
    let wide = shared_array!(u64; 2);
    if cluster.block_rank() == 0 && this_thread_block().thread_rank() == 0 {
        wide.set(0, u64::MAX);
    }
    cluster.sync();
    let least = cluster
        .map_shared_rank(&wide, 0)
        .atomic(0)
        .fetch_min(seen as u64, Ordering::Relaxed);
    cluster.sync();
    // SAFETY: never launched (tests/ptx.rs reads only the PTX); a launch must
    // give `out` one element per thread of a cluster, each thread writing its
    // own.
    unsafe { *out.add(cluster.thread_rank() as usize) = seen ^ least as u32 };
}
