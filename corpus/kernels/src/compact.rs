//! The elements of `x` greater than zero, in any order, into `out`, and
//! their number into `count[0]` (zeroed by the host).

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

#[kernel]
pub fn compact(x: &[i32], mut out: Output<i32>, count: AtomicSlice<u32>) {
    let grid = this_grid();
    // The slots come from the atomic counter, which the Output patterns
    // cannot see (the README leaves this write `unsafe`).
    let len = out.len();
    let out = out.as_mut_ptr();
    for i in grid.stride(x.len()) {
        let v = x[i];
        if v > 0 {
            let kept = coalesced_threads();
            let start = invoke_one_broadcast(&kept, || {
                count.at(0).fetch_add(kept.num_threads(), Ordering::Relaxed)
            });
            let slot = (start + kept.thread_rank()) as usize;
            assert!(slot < len);
            // SAFETY: slot < len, and the fetch_add reserved
            // [start, start + kept.num_threads()) for this group alone,
            // each member taking the slot of its rank.
            unsafe { *out.add(slot) = v };
        }
    }
}
