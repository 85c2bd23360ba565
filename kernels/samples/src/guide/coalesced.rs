//! Coalesced groups: the threads that took a branch together.

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

// ANCHOR: count_odd
/// `count[0] += ` the number of odd values in `input`, with one atomic per
/// warp instead of one per odd value: in the branch, the threads that took
/// it form a coalesced group, and its rank 0 adds the group's size.
#[kernel]
pub fn guide_count_odd(input: &[u32], count: AtomicSlice<u32>) {
    let i = this_grid().thread_rank() as usize;
    if i < input.len() && input[i] % 2 == 1 {
        let active = coalesced_threads();
        if active.thread_rank() == 0 {
            count.at(0).add(active.num_threads(), Ordering::Relaxed);
        }
    }
}
// ANCHOR_END: count_odd
