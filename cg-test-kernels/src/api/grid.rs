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
    let grid = this_grid();
    let i = grid.thread_rank() as u32;
    for r in 0..rounds {
        let buf = unsafe { scratch.add(((r % 2) * n) as usize) };
        let slot = (r * n + i) as usize;
        if i < n {
            unsafe { *buf.add(i as usize) = published(i, r) };
        }
        if r % 2 == 0 {
            let token = grid.barrier_arrive();
            if i < n {
                unsafe { *out.add(slot) = u32::MAX };
            }
            grid.barrier_wait(token);
        } else {
            sync(&grid);
        }
        if i < n {
            unsafe { *out.add(slot) = *buf.add(((i + 1 + r) % n) as usize) };
        }
    }
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
