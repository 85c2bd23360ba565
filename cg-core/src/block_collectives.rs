//! Block-wide collectives over scratch the caller owns: CUB's
//! `BlockReduce` and `BlockScan` (`cub::BlockReduce<T, ...>::TempStorage`
//! becomes a [`BlockScratch<T>`]).
//!
//! ```ignore
//! let block = this_thread_block();
//! let scratch = block_scratch!(u32);                       // one per kernel, not per call
//! let total = block_reduce(&block, &scratch, x, Plus);     // every thread gets it
//! let slot = block_exclusive_scan(&block, &scratch, n, Plus);
//! let (upto, all) = block_inclusive_scan_with_total(&block, &scratch, n, Plus);
//! ```
//!
//! Every thread of the block calls each collective, with the same
//! operator (they contain `bar.sync`); blocks of any shape up to 1024
//! threads, partial last warps and 2-D and 3-D blocks included (ranks are
//! [`ThreadBlock::thread_rank`]). `T` is any [`Pod`] type of at most 32
//! bytes, the operator any [`Operator`]: a built-in one or an associative
//! closure, commutative or not.
//!
//! # How
//!
//! 1. Each warp runs the warp collective ([`reduce`] or [`inclusive_scan`])
//!    on its threads (a partial last warp on the lanes that exist), so a
//!    built-in operator on `u32`/`i32` is one `redux.sync` on sm_80+. One
//!    thread per warp stores the warp's total in the scratch.
//! 2. `bar.sync`; thread `w` of the first warp folds the totals of warps
//!    `0..=w`, left to right, into running total `w`.
//! 3. `bar.sync`; every thread reads what it needs: the last running total
//!    (the block's), and for a scan the running total of the warps before
//!    its own, combined with its warp's scan.
//!
//! Every operator combines in rank order (`op(lower ranks, higher ranks)`),
//! as CUB does, also the built-in ones (the warp collectives combine those
//! in `cg::reduce`'s order). Integer results are exact; float results
//! equal CUB's `BLOCK_REDUCE_WARP_REDUCTIONS` and `BLOCK_SCAN_WARP_SCANS`
//! bit for bit, except a reduction over a partial last warp, which this
//! module combines as a scan (`(x0 + (x1 + x2))` where CUB adds pairs
//! `((x0 + x1) + x2)`).
//!
//! # Reuse without a barrier
//!
//! The scratch has two halves: the warp totals, written before the first
//! barrier and read only between the two, and the running totals, written
//! only between the two barriers and read after the second. A thread
//! reaches the next collective's first write to either half only after
//! every thread has finished reading it, so [`block_reduce`] and the scans
//! can run back to back on one scratch, in any order and on any mix of
//! call sites, with no barrier in between (CUB needs a `__syncthreads()`
//! before `TempStorage` is reused).
//!
//! [`block_reduce_to_first`] is CUB's `BlockReduce::Reduce`: one barrier,
//! the total in thread 0 only. Its thread 0 reads the warp totals after
//! the last barrier, so it takes the scratch by value and returns a
//! [`UsedScratch`]: the only way back to a [`BlockScratch`] is
//! [`UsedScratch::sync`], a barrier.
//!
//! A declaration ([`block_scratch!`](crate::block_scratch)) names one
//! array: when it runs again (in a loop, or in a function called twice)
//! it hands out the same memory again. That is harmless for
//! [`block_reduce`] and the scans; for [`block_reduce_to_first`], declare
//! the scratch once in the kernel and pass it down (or pass the
//! [`UsedScratch`] back through [`UsedScratch::sync`]).

use crate::block::ThreadBlock;
use crate::collectives::{inclusive_scan, reduce, Operator};
use crate::grid::GridGroup;
use crate::group::{GroupSync, ThreadGroup, WarpGroup};
use crate::shared::{ld_shared, st_shared};
use crate::tile::{tiled_partition_dynamic, DynamicTile};
use crate::unrolled::unrolled;
use bytemuck::Pod;
use core::marker::PhantomData;
use core::mem::size_of;

/// Warps of the largest block (1024 threads): one slot each.
const MAX_WARPS: u32 = 32;

/// The scratch of the block-wide collectives: room for one value of `T`
/// per warp of the largest block, twice (warp totals and running totals,
/// see the module docs), in this block's shared memory. Declare it with
/// [`block_scratch!`](crate::block_scratch); it is CUB's `TempStorage`.
///
/// `T` is at most 32 bytes (a larger `T` does not compile); the scratch
/// takes [`BlockScratch::BYTES`] bytes of static shared memory (`64 *
/// size_of::<T>()`). It is neither `Copy` nor `Clone`: a collective that
/// leaves it busy ([`block_reduce_to_first`]) takes it by value.
pub struct BlockScratch<T: Pod> {
    addr: u32,
    _t: PhantomData<T>,
}

impl<T: Pod> BlockScratch<T> {
    /// Values of `T` the scratch holds: a warp total and a running total
    /// for each of 32 warps.
    pub const LEN: usize = 2 * MAX_WARPS as usize;

    /// Bytes of shared memory the scratch takes.
    pub const BYTES: usize = Self::LEN * size_of::<T>();

    /// Wraps a shared-window address ([`block_scratch!`](crate::block_scratch)
    /// is the safe way to get one).
    ///
    /// # Safety
    /// `addr` must be the start of at least [`BYTES`](Self::BYTES) bytes of
    /// this block's `.shared` memory, aligned for `T`, that nothing but
    /// `BlockScratch<T>` handles touches while the kernel runs.
    #[inline(always)]
    pub unsafe fn from_raw(addr: u32) -> Self {
        const {
            assert!(
                size_of::<T>() > 0 && size_of::<T>() <= 32,
                "block collectives take values of 1 to 32 bytes"
            )
        };
        Self {
            addr,
            _t: PhantomData,
        }
    }

    /// The scratch's address in the shared window.
    #[inline(always)]
    pub fn shared_addr(&self) -> u32 {
        self.addr
    }

    /// The address of slot `i` (`i < LEN`).
    #[inline(always)]
    fn slot(&self, i: u32) -> u32 {
        self.addr + i * size_of::<T>() as u32
    }

    /// Stores the total of warp `w` (`w < 32`).
    #[inline(always)]
    fn set_warp_total(&self, w: u32, value: T) {
        // SAFETY: slot w < 32 of the scratch's 64 (a block has at most 32
        // warps), aligned for T (`from_raw`'s contract).
        unsafe { st_shared(self.slot(w), value) }
    }

    /// The total of warp `w` (`w < 32`).
    #[inline(always)]
    fn warp_total(&self, w: u32) -> T {
        // SAFETY: as in `set_warp_total`.
        unsafe { ld_shared(self.slot(w)) }
    }

    /// Stores running total `w` (`w < 32`).
    #[inline(always)]
    fn set_running_total(&self, w: u32, value: T) {
        // SAFETY: slot 32 + w < 64, aligned for T (`from_raw`'s contract).
        unsafe { st_shared(self.slot(MAX_WARPS + w), value) }
    }

    /// Running total `w`: the totals of warps `0..=w` combined (`w < 32`).
    #[inline(always)]
    fn running_total(&self, w: u32) -> T {
        // SAFETY: as in `set_running_total`.
        unsafe { ld_shared(self.slot(MAX_WARPS + w)) }
    }

    /// The totals of warps `0..n` combined left to right (`1 <= n <= 32`):
    /// CUB's order (`op(op(t0, t1), t2) ...`). The totals are read eight
    /// at a time, all eight loads before the first is combined: one
    /// shared-memory latency per eight warps, not one per warp.
    #[inline(always)]
    fn fold_warp_totals<Op: Operator<T>>(&self, n: u32, op: &Op) -> T {
        // Written out (`unrolled`): with constant indices the batch stays in
        // registers for every `T`.
        const AT_ONCE: usize = crate::unrolled::MAX;
        let mut acc = self.warp_total(0);
        let mut w = 1;
        while w < n {
            let mut totals = [T::zeroed(); AT_ONCE];
            unrolled(AT_ONCE, |i| {
                if w + (i as u32) < n {
                    totals[i] = self.warp_total(w + i as u32);
                }
            });
            unrolled(AT_ONCE, |i| {
                if w + (i as u32) < n {
                    acc = op.apply(acc, totals[i]);
                }
            });
            w += AT_ONCE as u32;
        }
        acc
    }
}

/// Declares a [`BlockScratch<T>`] for the block-wide collectives: a
/// 16-byte aligned `.shared` array of [`BlockScratch::LEN`] values of `T`,
/// one per declaration (as [`shared_array!`](crate::shared_array)).
///
/// ```ignore
/// let scratch = block_scratch!(f32);
/// let sum = block_reduce(&block, &scratch, x, Plus);
/// ```
///
/// Declare it once in the kernel and pass it down: a declaration that runs
/// again (in a loop, or in a function called twice) hands out the same
/// array (see the module docs of
/// [`block_collectives`](crate::block_collectives) for when that matters).
/// `T` must be a concrete type (a `.shared` array has a fixed size), so a
/// function generic over `T` takes its scratch as a parameter.
#[macro_export]
macro_rules! block_scratch {
    ($ty:ty) => {{
        let array =
            $crate::shared_array!($ty; $crate::block_collectives::BlockScratch::<$ty>::LEN);
        // SAFETY: the array just declared: `LEN` values of the type, 16-byte
        // aligned, reached only through this handle.
        unsafe { $crate::block_collectives::BlockScratch::<$ty>::from_raw(array.shared_addr()) }
    }};
}

/// A [`BlockScratch`] that a [`block_reduce_to_first`] may still be
/// reading (its thread 0 reads the warp totals after the last barrier).
/// [`sync`](Self::sync) gives the scratch back after a barrier; dropping
/// it just gives the scratch up.
pub struct UsedScratch<T: Pod> {
    scratch: BlockScratch<T>,
}

impl<T: Pod> UsedScratch<T> {
    /// A barrier over the whole block (`block.sync()`, or the block
    /// barrier inside `grid.sync()` or `cluster.sync()`), then the scratch
    /// again: every read of the collective that used it is behind the
    /// barrier.
    ///
    /// ```ignore
    /// let (sum, used) = block_reduce_to_first(&block, scratch, x, Plus);
    /// let scratch = used.sync(&block);                   // bar.sync
    /// let (top, _) = block_reduce_to_first(&block, scratch, x, Greater);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn sync<G: BlockBarrier>(self, group: &G) -> BlockScratch<T> {
        group.sync();
        self.scratch
    }
}

/// A group whose `sync()` is a barrier for every thread of the caller's
/// block, with the block's memory ordering: [`ThreadBlock`], [`GridGroup`]
/// and (sm_90) `ClusterGroup`. What [`UsedScratch::sync`] takes. Sealed.
pub trait BlockBarrier: GroupSync + sealed::Sealed {}

mod sealed {
    /// Keeps [`BlockBarrier`](super::BlockBarrier) to this crate's groups.
    pub trait Sealed {}
}

impl sealed::Sealed for ThreadBlock {}
impl BlockBarrier for ThreadBlock {}
impl sealed::Sealed for GridGroup {}
impl BlockBarrier for GridGroup {}
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl sealed::Sealed for crate::cluster::ClusterGroup {}
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl BlockBarrier for crate::cluster::ClusterGroup {}

/// An operator combined in rank order whatever its kind (as CUB combines),
/// with its hardware reduction (`redux.sync`) kept: the warp collectives
/// combine the built-in operators in `cg::reduce`'s order otherwise.
pub(crate) struct RankOrder<'a, Op>(pub(crate) &'a Op);

impl<T, Op: Operator<T>> Operator<T> for RankOrder<'_, Op> {
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        self.0.apply(a, b)
    }

    #[inline(always)]
    unsafe fn reduce_in_hardware(&self, value: T, mask: u32) -> Option<T> {
        // SAFETY: the same contract, passed on unchanged.
        unsafe { self.0.reduce_in_hardware(value, mask) }
    }
}

/// The caller's warp as a tile of the threads that exist: a partial last
/// warp holds only its lanes, so every warp collective on it is defined.
/// Its meta group is the warp's index and the block's warp count.
#[inline(always)]
fn warp_of(block: &ThreadBlock) -> DynamicTile {
    tiled_partition_dynamic(block, 32)
}

/// `$body` with `$warp` the caller's warp: a [`ThreadBlockTile<32>`]
/// when every warp of the block is whole (the block's thread count a
/// multiple of 32, the same in every thread), else [`warp_of`]'s tile.
/// The results are the same; the whole warp's collectives have a
/// constant mask, which ptxas turns into plain `SHFL`s in unrolled
/// loops, where a mask in a register costs a convergence test
/// (`MATCH`, `REDUX`, `VOTE`) at every shuffle and a loop. `$body` is the
/// warp's part only: the barriers stay after it, once in the code.
///
/// [`ThreadBlockTile<32>`]: crate::tile::ThreadBlockTile
macro_rules! with_warp {
    ($block:expr, |$warp:ident| $body:expr) => {
        if $block.num_threads() % 32 == 0 {
            let $warp = crate::tile::tiled_partition::<32>($block);
            $body
        } else {
            let $warp = warp_of($block);
            $body
        }
    };
}

/// The total of `value` over the caller's warp, for the block
/// collectives: one `redux.sync` where the operator and type have one,
/// whatever the block's shape (its mask a value: all 32 lanes, or a
/// partial last warp's), else [`reduce`] over [`with_warp!`]'s warp.
///
/// One hardware reduction in the code, not one a kind of warp: with two
/// (a whole warp's with a constant mask, a partial warp's with one in a
/// register), ptxas 13.0 (and the driver's JIT of CUDA 13.0) merged them
/// into one predicated `REDUX` after a loop and set the predicate only
/// after it, so that warps summed a stale register: a kernel's block
/// sums wrong on an H200 with no error (`docs/probes/unroll-remainder`).
#[inline(always)]
fn warp_total<T: Pod, Op: Operator<T>>(block: &ThreadBlock, value: T, op: &Op) -> T {
    let mask = if block.num_threads() % 32 == 0 {
        u32::MAX
    } else {
        warp_of(block).mask()
    };
    // SAFETY: a block collective: every thread of the block calls this,
    // so every lane of the caller's warp that exists (`mask`, which holds
    // the caller) calls it, with that mask.
    if let Some(total) = unsafe { RankOrder(op).reduce_in_hardware(value, mask) } {
        return total;
    }
    with_warp!(block, |warp| reduce(&warp, value, RankOrder(op)))
}

/// Steps 1 and 2 of the module docs, with both barriers: `total` of each
/// warp (stored by the thread with `stores` set, of warp `w` of `warps`)
/// to the warp totals, then the running totals. Afterwards, until the
/// next collective on `scratch`, every thread may read any running total
/// below the warp count.
#[inline(always)]
fn share_warp_totals<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    (w, warps): (u32, u32),
    total: T,
    stores: bool,
    op: &Op,
) {
    if stores {
        scratch.set_warp_total(w, total);
    }
    block.sync();
    let r = block.thread_rank();
    if r < warps {
        scratch.set_running_total(r, scratch.fold_warp_totals(r + 1, op));
    }
    block.sync();
}

/// CUB's `BlockReduce::Reduce` given to every thread: `op` over the `value`
/// of every thread of the block, in rank order. Two `bar.sync`s; `scratch`
/// can serve the next collective at once (see the module docs).
///
/// ```ignore
/// let scratch = block_scratch!(u32);
/// let total = block_reduce(&block, &scratch, x, Plus);
/// let top = block_reduce(&block, &scratch, x, Greater);   // same scratch, no barrier needed
/// ```
#[inline(always)]
pub fn block_reduce<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: Op,
) -> T {
    let total = warp_total(block, value, &op);
    let (first, place) = with_warp!(block, |warp| (
        warp.thread_rank() == 0,
        (warp.meta_group_rank(), warp.meta_group_size())
    ));
    share_warp_totals(block, scratch, place, total, first, &op);
    scratch.running_total(place.1 - 1)
}

/// CUB's `BlockReduce::Reduce`: `op` over the `value` of every thread of
/// the block, in rank order, as `Some` in thread 0 (rank 0) and `None` in
/// every other thread. One `bar.sync`, after which thread 0 combines the
/// warp totals; so the scratch comes back as a [`UsedScratch`], whose
/// [`sync`](UsedScratch::sync) is the barrier before its next use.
///
/// ```ignore
/// let (sum, _) = block_reduce_to_first(&block, scratch, x, Plus);
/// if let Some(sum) = sum {
///     unsafe { *block_sums.add(block.group_index().x as usize) = sum };
/// }
/// ```
#[inline(always)]
pub fn block_reduce_to_first<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: BlockScratch<T>,
    value: T,
    op: Op,
) -> (Option<T>, UsedScratch<T>) {
    let total = warp_total(block, value, &op);
    let warps = with_warp!(block, |warp| {
        if warp.thread_rank() == 0 {
            scratch.set_warp_total(warp.meta_group_rank(), total);
        }
        warp.meta_group_size()
    });
    block.sync();
    let first = if block.thread_rank() == 0 {
        Some(scratch.fold_warp_totals(warps, &op))
    } else {
        None
    };
    (first, UsedScratch { scratch })
}

/// The inclusive scan's value for the caller, and the block's warp count.
#[inline(always)]
fn inclusive_parts<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: &Op,
) -> (T, u32) {
    let (within, last, (w, warps)) = with_warp!(block, |warp| (
        inclusive_scan(&warp, value, RankOrder(op)),
        warp.thread_rank() + 1 == warp.num_threads(),
        (warp.meta_group_rank(), warp.meta_group_size())
    ));
    share_warp_totals(block, scratch, (w, warps), within, last, op);
    let up_to = if w == 0 {
        within
    } else {
        op.apply(scratch.running_total(w - 1), within)
    };
    (up_to, warps)
}

/// The exclusive scan's value for the caller, and the block's warp count.
#[inline(always)]
fn exclusive_parts<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: &Op,
) -> (T, u32) {
    let (within, lower, lane, last, (w, warps)) = with_warp!(block, |warp| {
        let within = inclusive_scan(&warp, value, RankOrder(op));
        // Lane 0 gets its own value back; it is replaced below.
        let lower = warp.shfl_up(within, 1);
        let lane = warp.thread_rank();
        let last = lane + 1 == warp.num_threads();
        let place = (warp.meta_group_rank(), warp.meta_group_size());
        (within, lower, lane, last, place)
    });
    share_warp_totals(block, scratch, (w, warps), within, last, op);
    let before = if w == 0 {
        if lane == 0 {
            T::zeroed()
        } else {
            lower
        }
    } else {
        let warps_before = scratch.running_total(w - 1);
        if lane == 0 {
            warps_before
        } else {
            op.apply(warps_before, lower)
        }
    };
    (before, warps)
}

/// CUB's `BlockScan::InclusiveScan`: thread of rank `r` gets `op` over the
/// `value`s of ranks `0..=r`, in rank order. Two `bar.sync`s; `scratch` can
/// serve the next collective at once.
///
/// ```ignore
/// let running = block_inclusive_scan(&block, &scratch, x, Plus);
/// ```
#[inline(always)]
pub fn block_inclusive_scan<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: Op,
) -> T {
    inclusive_parts(block, scratch, value, &op).0
}

/// [`block_inclusive_scan`] and the block's total (`op` over every
/// thread's value, CUB's `block_aggregate`), to every thread.
///
/// ```ignore
/// let (x, total) = block_inclusive_scan_with_total(&block, &scratch, v, Plus);
/// carry += total;
/// ```
#[inline(always)]
pub fn block_inclusive_scan_with_total<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: Op,
) -> (T, T) {
    let (up_to, warps) = inclusive_parts(block, scratch, value, &op);
    (up_to, scratch.running_total(warps - 1))
}

/// CUB's `BlockScan::ExclusiveScan`: thread of rank `r > 0` gets `op` over
/// the `value`s of ranks `0..r`, in rank order; rank 0 gets `T::zeroed()`
/// (the warp-level [`exclusive_scan`](crate::collectives::exclusive_scan)'s
/// rule, CUDA's `T{}`; CUB leaves it undefined without an initial value).
/// Two `bar.sync`s; `scratch` can serve the next collective at once.
///
/// ```ignore
/// let slot = block_exclusive_scan(&block, &scratch, count, Plus);
/// ```
#[inline(always)]
pub fn block_exclusive_scan<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: Op,
) -> T {
    exclusive_parts(block, scratch, value, &op).0
}

/// [`block_exclusive_scan`] and the block's total (`op` over every
/// thread's value), to every thread.
///
/// ```ignore
/// let (slot, kept) = block_exclusive_scan_with_total(&block, &scratch, count, Plus);
/// ```
#[inline(always)]
pub fn block_exclusive_scan_with_total<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    scratch: &BlockScratch<T>,
    value: T,
    op: Op,
) -> (T, T) {
    let (before, warps) = exclusive_parts(block, scratch, value, &op);
    (before, scratch.running_total(warps - 1))
}
