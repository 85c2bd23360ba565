//! Kernel faults: a panic in a kernel.

use cg_core::prelude::*;

// ANCHOR: checked_copy
/// `out[i] = input[index[i]]`: an index past the end of `input` panics,
/// as it would on the host, and the launch reports which thread, where.
#[kernel]
pub fn guide_checked_gather(input: &[f32], index: &[u32], mut out: Output<f32>) {
    let grid = this_grid();
    out.truncate(index.len());
    for (i, o) in out.grid_stride(&grid) {
        *o = input[index[i] as usize];
    }
}
// ANCHOR_END: checked_copy
