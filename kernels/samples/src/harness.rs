//! Kernels of the benchmark harness, not samples: one that evicts the L2
//! cache by reading a buffer larger than it, and one that keeps the GPU
//! busy for a while so that the timed launch queued behind it starts with
//! no launch latency in its time.

use cg_core::prelude::*;

/// Reads every word of `lines` (a buffer twice the L2's size), so that
/// nothing an earlier run left in L2 is there for the next one; writes its
/// element of `out` only if the sum is a value that random data never
/// gives, so the reads cannot be optimised away.
#[kernel]
pub fn harness_evict_l2(lines: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    let mut acc = 0u32;
    while i < lines.len() {
        acc ^= lines[i];
        i += stride;
    }
    if acc == 0x5EED_F00D {
        if let Some(o) = out.thread_element(&grid) {
            *o = acc;
        }
    }
}

/// One thread spins for `ns` nanoseconds of `%globaltimer`.
#[kernel]
pub fn harness_spin(ns: u64) {
    let start = cg_core::clock::globaltimer();
    while cg_core::clock::globaltimer().wrapping_sub(start) < ns {}
}
