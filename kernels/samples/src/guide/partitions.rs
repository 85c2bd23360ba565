//! Partitions: a warp split by a label and by a predicate.

use cg_core::prelude::*;

// ANCHOR: same_key
/// For each thread of a launch of whole warps, `out[i]` is how many
/// threads of its warp hold the same key as it (`labeled_partition`), plus
/// 1000 times how many of its warp are at least 10 (`binary_partition`:
/// the size of the part it is in, when it is at least 10). Threads past
/// the end take the key `u32::MAX`.
#[kernel]
pub fn guide_same_key(keys: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    let warp = tiled_partition::<32>(&this_thread_block());
    let i = grid.thread_rank() as usize;
    let key = if i < keys.len() { keys[i] } else { u32::MAX };
    let same = labeled_partition(&warp, key);
    let big = binary_partition(&warp, key >= 10 && key != u32::MAX);
    let bigs = if key >= 10 && key != u32::MAX {
        big.num_threads()
    } else {
        0
    };
    out.for_thread(&grid, |o| *o = same.num_threads() + 1000 * bigs);
}
// ANCHOR_END: same_key
