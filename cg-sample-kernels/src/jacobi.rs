//! Jacobi sweeps of the 2-D Laplace equation on an `nx` x `ny` grid with
//! fixed boundary values: one persistent cooperative kernel with a grid
//! barrier between sweeps, or one launch per sweep.

use cg_core::prelude::*;

/// One sweep over this thread's interior points: the mean of each point's
/// four neighbours, from `src` into `dst`.
///
/// The interior points are numbered row by row and the thread walks them
/// with a grid stride ([`Output::grid_stride_stencil`]): its coordinates
/// advance by the stride's own quotient and remainder, so the loop has one
/// division before it and none inside, all index arithmetic is 32-bit,
/// and the array bounds are checked once, before the loop.
#[inline(always)]
fn sweep(grid: &GridGroup, src: &[f32], dst: &mut Output<f32>, nx: u32, ny: u32) {
    // `for_each` (internal iteration) rather than `for`: inside the
    // persistent kernel's loop of sweeps it compiles to the hand-written
    // loop, where `for` would keep one never-taken branch per point.
    dst.grid_stride_stencil(grid, src, nx, ny)
        .for_each(|(n, u)| *u = 0.25 * (((n.west() + n.east()) + n.north()) + n.south()));
}

/// `sweeps` sweeps in one launch, ping-ponging between `a` and `b` (the
/// result is in `b` after an odd number of sweeps, in `a` after an even
/// one). Both must hold the same boundary values. The field and the grid's
/// threads together stay below 2^32 (checked).
#[kernel(cooperative)]
pub fn jacobi_persistent(a: Synced<f32>, b: Output<f32>, nx: u32, ny: u32, sweeps: u32) {
    let grid = this_grid();
    let (mut src, mut dst) = (a, b);
    for _ in 0..sweeps {
        sweep(&grid, &src, &mut dst, nx, ny);
        // One barrier: what this sweep wrote becomes the next one's
        // source, and the old source the next one's destination.
        (src, dst) = dst.sync_swap(src, &grid);
    }
}

/// One sweep from `u` into `u_new` (launch at least as many threads as
/// interior points, or rely on the grid-stride loop).
#[kernel]
pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32>, nx: u32, ny: u32) {
    sweep(&this_grid(), u, &mut u_new, nx, ny);
}
