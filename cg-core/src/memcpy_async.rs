//! Asynchronous copies from global to shared memory:
//! `cooperative_groups::memcpy_async`, `wait` and `wait_prior`.
//!
//! ```ignore
//! let block = this_thread_block();
//! let smem = dynamic_shared::<f32>();
//! let (sa, sb) = (smem.subslice(0, n), smem.subslice(n, n));
//! memcpy_async(&block, sa, &a[start..start + n]);   // batch 1
//! memcpy_async(&block, sb, &b[start..start + n]);   // batch 2
//! wait(&block);                                     // both landed, block synced
//! ```
//!
//! The threads of the group share the copy out among themselves. Each call
//! is one batch (`cp.async.commit_group`): [`wait`] waits for all of the
//! group's batches, [`wait_prior::<N>`](wait_prior) for all but the newest
//! `N`; both then synchronize the group, so that every thread sees what
//! every other thread's share of the copy wrote.
//!
//! How a copy moves (the choice CUDA's headers make): when the element
//! type is a legal `cp.async` unit (4, 8 or 16 bytes and as aligned), one
//! `cp.async` per element, shared out over the group's threads; else, when
//! destination, source and length are 16-byte aligned, one 16-byte
//! `cp.async.cg` per piece; else the widest unit (16, 8 or 4 bytes) that
//! source and destination share an offset in (checked at run time), with
//! the unaligned head and tail (and any copy whose ends share no 4-byte
//! offset) copied by ordinary loads and stores. Those are complete once the
//! group has synchronized, so every copy is correct whatever its alignment
//! and length.
//!
//! [`Barrier::memcpy_async`](crate::barrier::Barrier::memcpy_async) and
//! [`Pipeline::memcpy_async`](crate::pipeline::Pipeline::memcpy_async)
//! complete the same copies on a barrier or a pipeline stage instead.

use crate::block::ThreadBlock;
use crate::coalesced::CoalescedGroup;
use crate::group::ThreadGroup;
use crate::intrinsics;
use crate::shared::{st_shared, SharedSlice};
use crate::tile::{DynamicTile, ThreadBlockTile};
use bytemuck::Pod;
use core::mem::{align_of, size_of};

/// Groups whose threads all belong to one block, so that they share its
/// shared memory: the groups `memcpy_async` accepts (as in CUDA, not the
/// grid or a cluster).
pub trait AsyncCopyGroup: ThreadGroup {}

impl AsyncCopyGroup for ThreadBlock {}
impl<const N: u32> AsyncCopyGroup for ThreadBlockTile<N> {}
impl AsyncCopyGroup for DynamicTile {}
impl AsyncCopyGroup for CoalescedGroup {}

/// `cg::memcpy_async(group, dst, dst_count, src, src_count)`: the group
/// copies the first `min(dst.len(), src.len())` elements of `src` to the
/// start of `dst` as one batch and returns that count. Every thread of the
/// group must call it with the same arguments. (Taking what fits, as
/// CUDA's element-count form does, means a chunked walk passes `&a[start..]`
/// and needs no bounds check of its own.) The copy is
/// shared out over `group.num_threads()` ranks, so a static tile must be
/// whole (a block of whole tiles, as for every tile operation); cut tiles
/// of a partial warp with `tiled_partition_dynamic`.
#[inline(always)]
pub fn memcpy_async<G: AsyncCopyGroup, T: Pod>(group: &G, dst: SharedSlice<T>, src: &[T]) -> usize {
    let n = issue(group, dst, src);
    intrinsics::cp_async_commit();
    n
}

/// `cg::memcpy_async(group, dst, src, cuda::aligned_size_t<16>(bytes))`:
/// [`memcpy_async`] in 16-byte `cp.async.cg` pieces, whatever the element
/// type, when both ends and the length are 16-byte aligned (checked at run
/// time; otherwise exactly [`memcpy_async`]). For copies of several pieces
/// a thread (rows of a field into shared memory) a quarter of the copies
/// that one per 4-byte element makes, and faster (`docs/NOTES.md`, "sweeps
/// in shared memory"); for one element a thread, as in a pipeline, keep to
/// [`memcpy_async`], whose copies are spread over every thread.
#[inline(always)]
pub fn memcpy_async_aligned<G: AsyncCopyGroup, T: Pod>(
    group: &G,
    dst: SharedSlice<T>,
    src: &[T],
) -> usize {
    let n = src.len().min(dst.len());
    let (d, s, bytes) = (
        dst.shared_addr(),
        src.as_ptr() as *const u8,
        (n * size_of::<T>()) as u32,
    );
    if aligned16(d, s, bytes) {
        units::<16>(group.thread_rank(), group.num_threads(), d, s, bytes / 16);
    } else {
        issue(group, dst, src);
    }
    intrinsics::cp_async_commit();
    n
}

/// `cg::wait(group)`: waits for every batch the calling threads started,
/// then synchronizes the group.
#[inline(always)]
pub fn wait<G: AsyncCopyGroup>(group: &G) {
    intrinsics::cp_async_wait_group::<0>();
    group.sync();
}

/// `cg::wait_prior<N>(group)`: waits until at most the newest `N` batches
/// are still in flight, then synchronizes the group.
#[inline(always)]
pub fn wait_prior<const N: u32>(group: &impl AsyncCopyGroup) {
    intrinsics::cp_async_wait_group::<N>();
    group.sync();
}

/// Starts the group's copy of what fits of `src` into `dst` without
/// closing a batch, and returns the element count. Pieces too small or
/// misaligned for `cp.async` are copied at once.
#[inline(always)]
pub(crate) fn issue<G: AsyncCopyGroup, T: Pod>(group: &G, dst: SharedSlice<T>, src: &[T]) -> usize {
    let n = src.len().min(dst.len());
    issue_bytes(
        group.thread_rank(),
        group.num_threads(),
        dst.shared_addr(),
        src.as_ptr() as *const u8,
        (n * size_of::<T>()) as u32,
        size_of::<T>(),
        align_of::<T>(),
    );
    n
}

/// Whether a copy can go to the bulk copy engine (sm_90): both ends and
/// the length 16-byte aligned.
#[inline(always)]
pub(crate) fn aligned16(d: u32, s: *const u8, bytes: u32) -> bool {
    (d | s as usize as u32 | bytes) & 15 == 0
}

/// Thread `rank` of `size` issues its share of copying `bytes` from `s`
/// (global) to `d` (shared), elements of `elem` bytes aligned to `align`.
#[inline(always)]
fn issue_bytes(rank: u32, size: u32, d: u32, s: *const u8, bytes: u32, elem: usize, align: usize) {
    if matches!(elem, 4 | 8 | 16) && align >= elem {
        // Every element is a legal cp.async unit: one per element, spread
        // over every thread of the group (faster in a pipeline than fewer,
        // wider copies from a quarter of the threads).
        match elem {
            16 => units::<16>(rank, size, d, s, bytes / 16),
            8 => units::<8>(rank, size, d, s, bytes / 8),
            _ => units::<4>(rank, size, d, s, bytes / 4),
        }
        return;
    }
    if aligned16(d, s, bytes) {
        return units::<16>(rank, size, d, s, bytes / 16);
    }
    let diff = (d ^ s as usize as u32) & 15;
    let unit = if diff == 0 {
        16
    } else if diff & 7 == 0 {
        8
    } else if diff & 3 == 0 {
        4
    } else {
        // The ends share no 4-byte offset: no cp.async can serve.
        return by_hand(rank, size, d, s, bytes, bytes, bytes);
    };
    let head = ((unit - (s as usize as u32 & (unit - 1))) & (unit - 1)).min(bytes);
    let body = (bytes - head) & !(unit - 1);
    // SAFETY: head + body <= bytes.
    let (d_body, s_body) = (d + head, unsafe { s.add(head as usize) });
    match unit {
        16 => units::<16>(rank, size, d_body, s_body, body / 16),
        8 => units::<8>(rank, size, d_body, s_body, body / 8),
        _ => units::<4>(rank, size, d_body, s_body, body / 4),
    }
    by_hand(rank, size, d, s, head, head + body, bytes);
}

/// `count` copies of `U` bytes each, shared out round-robin.
#[inline(always)]
fn units<const U: u32>(rank: u32, size: u32, d: u32, s: *const u8, count: u32) {
    // About one piece a thread: rolled, as nvcc's is (unrolled, the trip
    // count's division and 8 pieces' registers cost the pipelines 40-65%).
    let size = intrinsics::keep_rolled(size);
    let mut i = rank;
    while i < count {
        // SAFETY: piece `i` lies inside both ranges, aligned to `U`.
        unsafe { intrinsics::cp_async::<U>(d + i * U, s.add((i * U) as usize)) };
        i += size;
    }
}

/// Copies bytes `0..head` and `tail..bytes` with ordinary loads and stores,
/// shared out round-robin.
#[inline(always)]
fn by_hand(rank: u32, size: u32, d: u32, s: *const u8, head: u32, tail: u32, bytes: u32) {
    let n = head + (bytes - tail);
    let size = intrinsics::keep_rolled(size);
    let mut i = rank;
    while i < n {
        let at = if i < head { i } else { tail + (i - head) };
        // SAFETY: `at < bytes`, inside both ranges.
        unsafe { st_shared::<u8>(d + at, *s.add(at as usize)) };
        i += size;
    }
}
