//! Probes of `MultiGridGroup`: what each thread sees of the multi-grid
//! (ranks, sizes, validity), and markers passed around the ring of GPUs
//! through peer memory, one barrier per round, with `sync()` or the split
//! barrier.

use cg_core::prelude::*;

// ANCHOR: multi_grid_ranks
/// Each thread writes `[grid_rank, num_grids, thread_rank, num_threads,
/// is_valid]` (the 64-bit values' low words; the test's grids are small)
/// and the high words of the two 64-bit values.
#[kernel(multi_grid)]
pub fn multi_grid_ranks(mut out: Output<[u32; 7]>) {
    let mg = this_multi_grid();
    let (t, n) = (mg.thread_rank(), mg.num_threads());
    out.for_thread(&mg.grid(), |x| {
        *x = [
            mg.grid_rank(),
            mg.num_grids(),
            t as u32,
            n as u32,
            mg.is_valid() as u32,
            (t >> 32) as u32,
            (n >> 32) as u32,
        ]
    });
    // The multi-grid barrier as an `Output` phase: what every thread wrote
    // is readable after it.
    let written = out.sync(&mg);
    let _ = written.len();
}
// ANCHOR_END: multi_grid_ranks

/// The marker grid `g` writes in round `r` for the thread of grid rank
/// `t`: unique per round, grid and thread.
#[inline(always)]
fn marker(round: u32, grid: u32, thread: u32) -> u32 {
    round
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(grid.wrapping_mul(0x85eb_ca6b))
        .wrapping_add(thread)
        | 1
}

/// `rounds` rounds: in round `r` every thread writes its marker into slot
/// `r % 2` of its element of `next_inbox` (the inbox of the next GPU of the
/// ring, by device address: with one GPU, its own), crosses one multi-grid
/// barrier (`split` = 1: `barrier_arrive`, a local write, `barrier_wait`),
/// and reads slot `r % 2` of its element of `inbox`, which the previous GPU
/// wrote. Each thread counts the rounds whose marker was wrong and writes
/// `[failures, last marker read, sum of the rounds]` (the sum is the work
/// between a split barrier's halves: 0 without `split`). Slots alternate, so one barrier a round
/// keeps a round's writes apart from the reads of the round before.
#[kernel(multi_grid)]
pub fn multi_grid_markers(
    inbox: Synced<[u32; 2]>,
    next_inbox: u64,
    next_len: u64,
    rounds: u32,
    split: u32,
    mut out: Output<[u32; 3]>,
) {
    let mg = this_multi_grid();
    let grid = mg.grid();
    let me = grid.thread_rank() as usize;
    let (g, n) = (mg.grid_rank(), mg.num_grids());
    let from = (g + n - 1) % n;
    let mut failures = 0u32;
    let mut last = 0u32;
    let mut local = 0u32;
    for r in 0..rounds {
        let slot = (r % 2) as usize;
        if (me as u64) < next_len {
            // SAFETY: the next GPU's inbox (peer memory the set made
            // reachable) holds `next_len` elements; this thread alone
            // writes element `me`, and the next GPU reads slot `slot` of it
            // only after the barrier below.
            unsafe { (*(next_inbox as *mut [u32; 2]).add(me))[slot] = marker(r, g, me as u32) };
        }
        if split == 1 {
            let token = mg.barrier_arrive();
            local = local.wrapping_add(r);
            mg.barrier_wait(token);
        } else {
            mg.sync();
        }
        if let Some(x) = inbox.get(me) {
            last = x[slot];
            failures += (last != marker(r, from, me as u32)) as u32;
        }
    }
    out.for_thread(&grid, |o| *o = [failures, last, local]);
}
