//! The grid: `is_valid()` and a barrier between two phases.

use cg_core::prelude::*;

// ANCHOR: is_valid
/// `out[rank] = grid.is_valid()` for every thread of the grid: what the
/// launch looks like from inside. Launched cooperatively, every thread
/// reads 1. Launched ordinarily, see the guide's chapter on the grid: 0 on
/// the simulator, and on a GPU 0 only before the process's first
/// cooperative launch.
#[kernel]
pub fn guide_is_valid(mut out: Output<u32>) {
    let grid = this_grid();
    out.for_thread(&grid, |o| *o = grid.is_valid() as u32);
}
// ANCHOR_END: is_valid

// ANCHOR: rotate
/// `out[i] = input[(i + 1) % n]` through a buffer every block writes in a
/// first phase and every block reads, elsewhere, in the second: the grid
/// barrier between them is `copy.sync(&grid)`, which also turns the write
/// view into a read view.
#[kernel(cooperative)]
pub fn guide_rotate(input: &[u32], mut copy: Output<u32>, mut out: Output<u32>) {
    let grid = this_grid();
    copy.truncate(input.len());
    for (i, c) in copy.grid_stride(&grid) {
        *c = input[i];
    }
    let copy = copy.sync(&grid);
    let n = copy.len();
    out.truncate(n);
    for (i, o) in out.grid_stride(&grid) {
        *o = copy[(i + 1) % n];
    }
}
// ANCHOR_END: rotate

/// [`guide_is_valid`], launched cooperatively by its typed handle.
#[kernel(cooperative)]
pub fn guide_is_valid_cooperative(mut out: Output<u32>) {
    let grid = this_grid();
    out.for_thread(&grid, |o| *o = grid.is_valid() as u32);
}
