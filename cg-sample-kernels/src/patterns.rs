//! The seed guide's other patterns: a reduction over the active threads of
//! a divergent branch (`coalesced_threads`), per-category sums with
//! `labeled_partition`, and a prefix sum over the whole array in one
//! cooperative kernel.

use cg_core::atomic::{atomic_add_f32, AtomicRef, Ordering};
use cg_core::prelude::*;

/// `results[w] += sum of data[i]` over the elements `i` of warp `w` (32
/// consecutive grid threads) whose flag is set: the threads with a set
/// flag form a coalesced group in the branch, reduce, and one of them adds.
#[kernel]
pub fn divergent_sum(flags: &[u32], data: &[f32], results: *mut f32) {
    let i = this_grid().thread_rank() as usize;
    if i < data.len() && flags[i] != 0 {
        let active = coalesced_threads();
        let s = reduce(&active, data[i], Plus);
        if active.thread_rank() == 0 {
            unsafe { atomic_add_f32(results.add(i / 32), s) };
        }
    }
}

/// Stream compaction: the elements of `input` above zero land in `out`
/// (in no particular order), and `count` ends as their number. Inside the
/// branch the threads that keep an element form a coalesced group; one of
/// them takes the group's slots with a single `fetch_add` and broadcasts
/// the base (the Programming Guide's warp-aggregated atomic). `count` is 0
/// before the launch.
#[kernel]
pub fn compact_positive(input: &[f32], out: *mut f32, count: *mut u32) {
    let i = this_grid().thread_rank() as usize;
    if i < input.len() && input[i] > 0.0 {
        let active = coalesced_threads();
        // SAFETY: `count` is one u32, touched only atomically.
        let slots = unsafe { AtomicRef::<u32>::from_ptr(count) };
        let base = invoke_one_broadcast(&active, || {
            slots.fetch_add(active.num_threads(), Ordering::Relaxed)
        });
        unsafe { *out.add((base + active.thread_rank()) as usize) = input[i] };
    }
}

/// Threads per block of [`compact_positive_tiles`].
pub const COMPACT_THREADS: u32 = 256;
/// Elements per thread of [`compact_positive_tiles`].
pub const COMPACT_PER_THREAD: u32 = 16;

/// Stream compaction with one `fetch_add` per block: block `b` takes the
/// `256 * 16` elements from `b * 4096` (thread `t` the elements `t, t + 256,
/// ...` of them, coalesced), counts what each thread keeps, scans the counts
/// over the block (warp `exclusive_scan`, then the eight warp totals
/// through shared memory), takes the block's slots with a single
/// `fetch_add`, and each thread writes its elements there (in no particular
/// order across blocks). Launch `ceil(n / 4096)` blocks of 256 threads;
/// `count` is 0 before the launch.
#[kernel]
pub fn compact_positive_tiles(input: &[f32], out: *mut f32, count: *mut u32) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let t = block.thread_rank();
    let first = block.group_index().x as usize * (COMPACT_THREADS * COMPACT_PER_THREAD) as usize;
    let at = |k: u32| first + (k * COMPACT_THREADS + t) as usize;
    let mut kept = 0u32;
    for k in 0..COMPACT_PER_THREAD {
        if input.get(at(k)).is_some_and(|&x| x > 0.0) {
            kept += 1;
        }
    }
    let within_warp = exclusive_scan(&warp, kept, Plus);
    let totals = shared_array!(u32; 9);
    if warp.thread_rank() == 31 {
        totals.set(warp.meta_group_rank() as usize, within_warp + kept);
    }
    block.sync();
    let mut before = 0u32;
    let mut all = 0u32;
    for w in 0..COMPACT_THREADS / 32 {
        let n = totals.get(w as usize);
        if w < warp.meta_group_rank() {
            before += n;
        }
        all += n;
    }
    if t == 0 {
        // SAFETY: `count` is one u32, touched only atomically.
        let slots = unsafe { AtomicRef::<u32>::from_ptr(count) };
        totals.set(8, slots.fetch_add(all, Ordering::Relaxed));
    }
    block.sync();
    let mut slot = totals.get(8) + before + within_warp;
    for k in 0..COMPACT_PER_THREAD {
        if let Some(&x) = input.get(at(k)) {
            if x > 0.0 {
                unsafe { *out.add(slot as usize) = x };
                slot += 1;
            }
        }
    }
}

/// `sums[c] += sum of values[i]` over the elements with `categories[i] ==
/// c`: each warp splits by category with `labeled_partition`, each part
/// reduces, and its first thread adds. Launch whole warps (the grid may run
/// past the data: those threads add nothing).
#[kernel]
pub fn category_sums(categories: &[u32], values: &[f32], sums: *mut f32) {
    let warp = tiled_partition::<32>(&this_thread_block());
    let i = this_grid().thread_rank() as usize;
    let (c, v) = if i < values.len() {
        (categories[i], values[i])
    } else {
        (u32::MAX, 0.0)
    };
    let same = labeled_partition(&warp, c);
    let s = reduce(&same, v, Plus);
    if same.thread_rank() == 0 && c != u32::MAX {
        unsafe { atomic_add_f32(sums.add(c as usize), s) };
    }
}

/// Inclusive scan of `v` over the calling block (at most 1024 threads, a
/// whole number of warps); also returns the block's total to every thread.
#[inline(always)]
fn block_inclusive_scan(block: &ThreadBlock, v: u32) -> (u32, u32) {
    let warp = tiled_partition::<32>(block);
    let before = shared_array!(u32; 32);
    let total = shared_array!(u32; 1);
    let x = inclusive_scan(&warp, v, Plus);
    // SAFETY (all accesses): at most 32 warps, lane ranks below 32.
    if warp.thread_rank() == 31 {
        unsafe { before.set_unchecked(warp.meta_group_rank() as usize, x) };
    }
    block.sync();
    if warp.meta_group_rank() == 0 {
        let lane = warp.thread_rank() as usize;
        let t = if warp.thread_rank() < warp.meta_group_size() {
            unsafe { before.get_unchecked(lane) }
        } else {
            0
        };
        let up_to = inclusive_scan(&warp, t, Plus);
        unsafe { before.set_unchecked(lane, up_to - t) };
        if lane == 31 {
            unsafe { total.set_unchecked(0, up_to) };
        }
    }
    block.sync();
    let r = unsafe {
        (
            before
                .get_unchecked(warp.meta_group_rank() as usize)
                .wrapping_add(x),
            total.get_unchecked(0),
        )
    };
    // The arrays are reused by the next call.
    block.sync();
    r
}

/// `out[i] = input[0] + ... + input[i]` (wrapping), in one cooperative
/// kernel: each block scans a contiguous chunk, tile by tile with a running
/// carry; `grid.sync()`; each block adds the totals of the blocks before it.
/// `block_totals` holds one value per block.
#[kernel(cooperative)]
pub fn grid_prefix_sum(input: &[u32], block_totals: *mut u32, out: *mut u32) {
    let grid = this_grid();
    let block = this_thread_block();
    let n = input.len();
    let nb = grid.num_blocks() as usize;
    let b = grid.block_rank() as usize;
    let bt = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let chunk = n.div_ceil(nb).div_ceil(bt) * bt;
    let (start, end) = ((b * chunk).min(n), ((b + 1) * chunk).min(n));
    let mut carry = 0u32;
    let mut base = start;
    while base < end {
        let i = base + t;
        let v = if i < end {
            unsafe { *input.get_unchecked(i) }
        } else {
            0
        };
        let (x, total) = block_inclusive_scan(&block, v);
        if i < end {
            unsafe { *out.add(i) = carry.wrapping_add(x) };
        }
        carry = carry.wrapping_add(total);
        base += bt;
    }
    if t == 0 {
        unsafe { *block_totals.add(b) = carry };
    }
    grid.sync();
    let mut j = t;
    let mut before = 0u32;
    while j < b {
        before = before.wrapping_add(unsafe { *block_totals.add(j) });
        j += bt;
    }
    let offset = block_reduce(&block, &block_scratch!(u32), before, Plus);
    let mut i = start + t;
    while i < end {
        unsafe { *out.add(i) = (*out.add(i)).wrapping_add(offset) };
        i += bt;
    }
}
