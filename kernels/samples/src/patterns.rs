//! The seed guide's other patterns: a reduction over the active threads of
//! a divergent branch (`coalesced_threads`), per-category sums with
//! `labeled_partition`, and a prefix sum over the whole array in one
//! cooperative kernel: written by hand in three phases, and as the grid
//! collective `grid_inclusive_scan`.

use crate::select::pick;
use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// `results[w] += sum of data[i]` over the elements `i` of warp `w` (32
/// consecutive grid threads) whose flag is set: the threads with a set
/// flag form a coalesced group in the branch, reduce, and one of them adds.
#[kernel(grid_1d)]
pub fn divergent_sum(flags: &[u32], data: &[f32], results: AtomicSlice<f32>) {
    let i = this_grid().thread_rank() as usize;
    if i < data.len() && flags[i] != 0 {
        let active = coalesced_threads();
        let s = reduce(&active, data[i], Plus);
        if active.thread_rank() == 0 {
            results.at(i / 32).add(s, Ordering::Relaxed);
        }
    }
}

/// Stream compaction: the elements of `input` above zero land in `out`
/// (in no particular order), and `count` ends as their number. Inside the
/// branch the threads that keep an element form a coalesced group; one of
/// them takes the group's slots with a single `fetch_add` and broadcasts
/// the base (the Programming Guide's warp-aggregated atomic). `count` is 0
/// before the launch.
#[kernel(grid_1d)]
pub fn compact_positive(input: &[f32], mut out: Output<f32>, count: AtomicSlice<u32>) {
    let i = this_grid().thread_rank() as usize;
    if i < input.len() && input[i] > 0.0 {
        let active = coalesced_threads();
        let slots = count.at(0);
        let base = invoke_one_broadcast(&active, || {
            slots.fetch_add(active.num_threads(), Ordering::Relaxed)
        });
        let slot = (base + active.thread_rank()) as usize;
        assert!(
            slot < out.len(),
            "compact_positive: `out` is shorter than the input"
        );
        // SAFETY: ownership from an atomic, which `Output` cannot see: the
        // group's `fetch_add` reserved `num_threads` slots from `base` for
        // this group alone (`count` only grows during the launch), and
        // each member takes the slot of its rank; in bounds (checked).
        unsafe { *out.as_mut_ptr().add(slot) = input[i] };
    }
}

/// Threads per block of [`compact_positive_tiles`].
pub const COMPACT_THREADS: u32 = 256;
/// Elements per thread of [`compact_positive_tiles`].
pub const COMPACT_PER_THREAD: u32 = 16;

/// Rounds of [`compact_positive_tiles`] (one element per thread each) and
/// warps per block.
const ROUNDS: usize = COMPACT_PER_THREAD as usize;
const WARPS: usize = COMPACT_THREADS as usize / 32;

/// Stream compaction with one `fetch_add` per block: block `b` takes the
/// `256 * 16` elements from `b * 4096` in 16 rounds (round `k` is the
/// elements `b * 4096 + k * 256 + t` of the block's threads `t`: coalesced
/// loads, held in registers), each warp counts what it keeps in each round
/// (one `ballot`), the first warp scans those 128 counts and takes the
/// block's slots with a single `fetch_add`, and each kept element is
/// written at the block's base plus its round's and warp's offset plus the
/// kept lanes before it: the elements of a block keep their order and each
/// round's writes are contiguous (coalesced); blocks land in no particular
/// order. Launch `ceil(n / 4096)` blocks of 256 threads; `count` is 0
/// before the launch.
#[kernel(grid_1d)]
pub fn compact_positive_tiles(input: &[f32], mut out: Output<f32>, count: AtomicSlice<u32>) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    assert!(
        block.num_threads() == COMPACT_THREADS,
        "compact_positive_tiles: launch blocks of COMPACT_THREADS threads"
    );
    // `% WARPS` changes nothing after that check, and shows the compiler
    // that every shared index below is in bounds.
    let (lane, w) = (warp.thread_rank(), warp.meta_group_rank() as usize % WARPS);
    let first = block.group_index().x as usize * (COMPACT_THREADS * COMPACT_PER_THREAD) as usize
        + block.thread_rank() as usize;
    // Kept lanes of this warp below this one, in a ballot.
    let below = (1u32 << lane) - 1;
    // At `w * ROUNDS + k`, for warp `w` and round `k`: which lanes keep
    // their element, and (after the scan) the slot of the first of them;
    // `end[0]`: the end of the block's slots.
    let kept = shared_array!(u32; WARPS * ROUNDS);
    let slots = shared_array!(u32; WARPS * ROUNDS);
    let end = shared_array!(u32; 1);
    let mine = |k: usize| w * ROUNDS + k;
    // This thread's element of every round, all loads in flight at once,
    // held in registers (past the end: 0.0, which is not kept); then the
    // warp's ballot of each round, lane `k` storing round `k`'s.
    let x: [f32; ROUNDS] = core::array::from_fn(|k| {
        input
            .get(first + k * COMPACT_THREADS as usize)
            .copied()
            .unwrap_or(0.0)
    });
    let lanes: [u32; ROUNDS] = core::array::from_fn(|k| warp.ballot(x[k] > 0.0));
    if (lane as usize) < ROUNDS {
        kept.set(mine(lane as usize), pick(&lanes, lane as usize));
    }
    block.sync();
    if w == 0 {
        // The 128 counts in input order (round, then warp), four per lane.
        const PER_LANE: usize = ROUNDS * WARPS / 32;
        let at = |j: usize| {
            let entry = lane as usize * PER_LANE + j;
            (entry % WARPS) * ROUNDS + entry / WARPS
        };
        let counts: [u32; PER_LANE] = core::array::from_fn(|j| kept.get(at(j)).count_ones());
        let sum: u32 = counts.iter().sum();
        let before = exclusive_scan(&warp, sum, Plus);
        let mut base = 0;
        if lane == 31 {
            base = count.at(0).fetch_add(before + sum, Ordering::Relaxed);
            end.set(0, base + before + sum);
        }
        let mut next = warp.shfl(base, 31) + before;
        for (j, n) in counts.iter().enumerate() {
            slots.set(at(j), next);
            next += n;
        }
    }
    block.sync();
    assert!(
        end.get(0) as usize <= out.len(),
        "compact_positive_tiles: `out` is shorter than the input"
    );
    // Each round's slot for this thread (meaningful where it keeps its
    // element); the loop below then touches no shared memory.
    let slot: [u32; ROUNDS] =
        core::array::from_fn(|k| slots.get(mine(k)) + (kept.get(mine(k)) & below).count_ones());
    let out = out.as_mut_ptr();
    for k in 0..ROUNDS {
        if x[k] > 0.0 {
            // SAFETY: ownership from an atomic, which `Output` cannot see:
            // the block's `fetch_add` reserved its slots up to the end
            // checked above, and the scan gave each kept element of the
            // block its own slot among them.
            unsafe { *out.add(slot[k] as usize) = x[k] };
        }
    }
}

/// `sums[c] += sum of values[i]` over the elements with `categories[i] ==
/// c`: each warp splits by category with `labeled_partition`, each part
/// reduces, and its first thread adds. Launch whole warps (the grid may run
/// past the data: those threads add nothing).
#[kernel(grid_1d)]
pub fn category_sums(categories: &[u32], values: &[f32], sums: AtomicSlice<f32>) {
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
        sums.at(c as usize).add(s, Ordering::Relaxed);
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
    // Every index is a warp's rank or a lane (below 32, which the compiler
    // knows: no bounds checks).
    if warp.thread_rank() == 31 {
        before.set(warp.meta_group_rank() as usize, x);
    }
    block.sync();
    if warp.meta_group_rank() == 0 {
        let lane = warp.thread_rank() as usize;
        let t = if warp.thread_rank() < warp.meta_group_size() {
            before.get(lane)
        } else {
            0
        };
        let up_to = inclusive_scan(&warp, t, Plus);
        before.set(lane, up_to - t);
        if lane == 31 {
            total.set(0, up_to);
        }
    }
    block.sync();
    let r = (
        before.get(warp.meta_group_rank() as usize).wrapping_add(x),
        total.get(0),
    );
    // The arrays are reused by the next call.
    block.sync();
    r
}

/// `out[i] = input[0] + ... + input[i]` (wrapping) for `i` below both
/// lengths (the rest of `out` is left as it was), in one cooperative
/// kernel: each block scans a contiguous chunk, tile by tile with a running
/// carry; `grid.sync()`; each block adds the totals of the blocks before it.
/// `block_totals` holds one value per block.
#[kernel(cooperative, grid_1d)]
pub fn grid_prefix_sum(
    input: &[u32],
    mut block_totals: Output<u32, Leaders<ThreadBlock>>,
    mut out: Output<u32, Chunks>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    out.truncate(input.len());
    let bt = block.uniform_num_threads();
    // A whole number of rounds per block, from the launch's length (the
    // same in every thread: a chunk per block).
    let chunk = out
        .launch_len()
        .div_ceil(grid.uniform_num_blocks())
        .div_ceil(bt)
        * bt;
    let bt = bt.get() as usize;
    let mut carry = 0u32;
    if let Some(mine) = out.block_chunk(&block, chunk) {
        // Every thread takes every round: the scan inside is collective.
        // (`reading`: the input at each round's place, checked once for
        // the chunk; `for_each`: internal iteration, one test per round.)
        mine.block_rounds().reading(input).for_each(|round| {
            let (x, total) = block_inclusive_scan(&block, round.input.unwrap_or(0));
            if let Some(out) = round.value {
                *out = carry.wrapping_add(x);
            }
            carry = carry.wrapping_add(total);
        });
    }
    if let Some(total) = block_totals.leader_element(&block) {
        *total = carry;
    }
    let block_totals = block_totals.sync(&grid);
    let b = grid.block_rank() as usize;
    let mut j = block.thread_rank() as usize;
    let mut before = 0u32;
    while j < b.min(block_totals.len()) {
        before = before.wrapping_add(block_totals[j]);
        j += bt;
    }
    let offset = block_reduce(&block, &block_scratch!(u32), before, Plus);
    if let Some(mine) = out.block_chunk(&block, chunk) {
        for (_, x) in mine.block_stride() {
            *x = x.wrapping_add(offset);
        }
    }
}

/// `out[i] = input[0] + ... + input[i]` (wrapping) for `i` below
/// `input.len()`, in one cooperative kernel and one pass over the input:
/// [`grid_prefix_sum`]'s three hand-written phases (each block's chunk,
/// `grid.sync()`, the offsets) become the grid collective
/// [`grid_inclusive_scan`] (tiles with decoupled look-back, no grid
/// barrier). `words` is its scratch, [`grid_scratch_words::<u32>`]`(blocks,
/// 256, input.len())` words zeroed before the launch; `out` is at least as
/// long as `input`. Launch blocks of 256 threads: the kernel is held to
/// 64 registers (`launch_bounds(256, 4)`), four blocks an SM, since the
/// scan keeps a tile a block in flight and its speed follows the blocks
/// resident (66 registers free: three).
#[kernel(cooperative, grid_1d, launch_bounds(256, 4))]
pub fn grid_prefix_sum_one_pass(
    input: &[u32],
    mut out: Output<u32, Chunks<Runs>>,
    words: AtomicSlice<u64>,
) {
    let grid = this_grid();
    let scratch = grid_scratch!(u32, words);
    // The scan's result is `out`, readable after the launch; the scratch
    // it hands back is not used again.
    let _ = grid_inclusive_scan(&grid, scratch, input, &mut out, Plus);
}
