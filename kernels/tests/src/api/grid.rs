//! The split grid barrier.

use cg_core::prelude::*;

/// What thread `i` publishes in round `r`.
#[inline(always)]
pub fn published(i: u32, r: u32) -> u32 {
    (i ^ r.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761)
}

/// `rounds` rounds; in round `r` thread `i < n` publishes
/// [`published`]`(i, r)` in buffer `r % 2` of `scratch` (2n words), crosses
/// a grid barrier (`barrier_arrive` + `barrier_wait` in even rounds, with a
/// write to `out` in between; `sync(&grid)` in odd rounds) and stores
/// `out[r * n + i]` = what thread `(i + 1 + r) % n` published.
#[kernel(cooperative)]
pub fn api_grid_split_barrier(scratch: *mut u32, out: *mut u32, n: u32, rounds: u32) {
    barrier_rounds(scratch, out, n, rounds, split_barrier, |grid| sync(grid));
}

/// [`api_grid_split_barrier`] with each barrier in a device function the
/// compiler does not inline: its barriers read the counters' place from
/// the module word, where the kernel's own read it from the parameter
/// cg-builder adds.
#[kernel(cooperative)]
pub fn api_grid_barrier_not_inlined(scratch: *mut u32, out: *mut u32, n: u32, rounds: u32) {
    barrier_rounds(
        scratch,
        out,
        n,
        rounds,
        |grid, slot| split_barrier_not_inlined(*grid, slot),
        |grid| sync_not_inlined(*grid),
    );
}

/// The rounds of [`api_grid_split_barrier`], crossing the barriers of even
/// rounds with `split(grid, slot)` (`slot` null where the thread has none)
/// and those of odd rounds with `whole(grid)`.
#[inline(always)]
fn barrier_rounds(
    scratch: *mut u32,
    out: *mut u32,
    n: u32,
    rounds: u32,
    split: impl Fn(&GridGroup, *mut u32),
    whole: impl Fn(&GridGroup),
) {
    let grid = this_grid();
    let i = grid.thread_rank() as u32;
    for r in 0..rounds {
        // SAFETY: `scratch` holds `2 * n` values (the test's launch): this
        // round's half.
        let buf = unsafe { scratch.add(((r % 2) * n) as usize) };
        let slot = (r * n + i) as usize;
        if i < n {
            // SAFETY: `i < n`: this thread's own slot of this round's half,
            // which no thread reads until the grid barrier of this round.
            unsafe { *buf.add(i as usize) = published(i, r) };
        }
        if r % 2 == 0 {
            let mine = if i < n {
                // SAFETY: `out` holds `rounds * n` values (the test's launch)
                // and `i < n`: this thread's own slot of round `r`.
                unsafe { out.add(slot) }
            } else {
                core::ptr::null_mut()
            };
            split(&grid, mine);
        } else {
            whole(&grid);
        }
        if i < n {
            // SAFETY: `slot` as above; the read is another thread's slot of
            // this round's half, written before this round's grid barrier, and
            // overwritten only two rounds later, after another barrier.
            unsafe { *out.add(slot) = *buf.add(((i + 1 + r) % n) as usize) };
        }
    }
}

/// `barrier_arrive`, a write of `u32::MAX` to `slot` (unless null), then
/// `barrier_wait`.
#[inline(always)]
fn split_barrier(grid: &GridGroup, slot: *mut u32) {
    let token = grid.barrier_arrive();
    if !slot.is_null() {
        // SAFETY: `slot` is null or this thread's own slot of `out`
        // (`grid_rounds`).
        unsafe { *slot = u32::MAX };
    }
    grid.barrier_wait(token);
}

/// [`split_barrier`] in a device function of its own (the group passed by
/// value: a reference would put it in local memory).
#[inline(never)]
fn split_barrier_not_inlined(grid: GridGroup, slot: *mut u32) {
    split_barrier(&grid, slot)
}

/// `sync(&grid)` in a device function of its own.
#[inline(never)]
fn sync_not_inlined(grid: GridGroup) {
    sync(&grid)
}

/// Words per thread written by [`api_grid_queries`].
pub const GRID_WORDS: usize = 16;

/// Per thread (at its grid rank), [`GRID_WORDS`] words: `thread_rank`
/// (low, high word), `num_threads` (low, high), `block_rank`, `num_blocks`,
/// `thread_index()` x y z, `dim_threads()` x y z, `dim_blocks()` x y z,
/// `is_valid()`.
#[kernel]
pub fn api_grid_queries(out: *mut u32) {
    let grid = this_grid();
    let rank = grid.thread_rank();
    let n = grid.num_threads();
    let ti = grid.thread_index();
    let dt = grid.dim_threads();
    let db = grid.dim_blocks();
    let words: [u32; GRID_WORDS] = [
        rank as u32,
        (rank >> 32) as u32,
        n as u32,
        (n >> 32) as u32,
        grid.block_rank(),
        grid.num_blocks(),
        ti.x,
        ti.y,
        ti.z,
        dt.x,
        dt.y,
        dt.z,
        db.x,
        db.y,
        db.z,
        grid.is_valid() as u32,
    ];
    super::store(out, rank as usize, words);
}
