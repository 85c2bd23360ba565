//! Jacobi sweeps of the 2-D Laplace equation on an `nx` x `ny` grid with
//! fixed boundary values: one persistent cooperative kernel with a grid
//! barrier between sweeps, or one launch per sweep.

use cg_core::output::Neighbours;
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
    dst.grid_stride_stencil(grid, src, nx, ny).for_each(mean);
}

/// A point's new value: the mean of its four neighbours.
#[inline(always)]
fn mean((n, u): (Neighbours<'_, f32>, &mut f32)) {
    *u = 0.25 * (((n.west() + n.east()) + n.north()) + n.south());
}

/// `sweeps` sweeps in one launch, ping-ponging between `a` and `b` (the
/// result is in `b` after an odd number of sweeps, in `a` after an even
/// one). Both must hold the same boundary values. The field and the grid's
/// threads together stay below 2^32 (checked).
#[kernel(cooperative, grid_1d)]
pub fn jacobi_persistent(a: Synced<f32>, b: Output<f32>, nx: u32, ny: u32, sweeps: u32) {
    let grid = this_grid();
    // The thread's walk over the interior, its divisions and checks done
    // once for every sweep.
    let walk = StencilWalk::new(&grid, nx, ny);
    let (mut src, mut dst) = (a, b);
    for _ in 0..sweeps {
        // `for_each` (internal iteration) rather than `for`: inside the
        // loop of sweeps it compiles to the hand-written loop, where `for`
        // would keep one never-taken branch per point.
        dst.stencil(&walk, &src).for_each(mean);
        // One barrier: what this sweep wrote becomes the next one's
        // source, and the old source the next one's destination.
        (src, dst) = dst.sync_swap(src, &grid);
    }
}

/// One sweep from `u` into `u_new` (launch at least as many threads as
/// interior points, or rely on the grid-stride loop).
#[kernel(grid_1d)]
pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32>, nx: u32, ny: u32) {
    sweep(&this_grid(), u, &mut u_new, nx, ny);
}

/// Copies row `from` of `band` (`nx` wide) into row `to` of `halo`, a
/// neighbouring GPU's band: grid-stride over the row.
#[inline(always)]
fn copy_row(grid: &GridGroup, band: &[f32], from: u32, halo: &mut Output<f32>, to: u32, nx: u32) {
    let row = Window {
        width: nx,
        x: 0..nx,
        y: to..to + 1,
    };
    let start = (from * nx) as usize;
    let src = &band[start..start + nx as usize];
    halo.grid_stride_window(grid, row)
        .for_each(|(p, x)| *x = src[p.x as usize]);
}

/// Jacobi on several GPUs, one band of rows each: this GPU's band of the
/// field, `nx` wide and `rows` high with one halo row above and below (the
/// first GPU's top row and the last one's bottom row are the field's
/// fixed boundary). Each sweep updates the band's interior as
/// [`jacobi_persistent`] does; after a grid barrier (the ping-pong's),
/// copies its first and last interior rows into the halo rows of the
/// neighbouring GPUs' bands of the same parity (`up_*`: the previous GPU's
/// band, whose bottom halo row receives ours; `down_*`: the next GPU's),
/// through peer memory; then one multi-grid barrier. `up_*` is ignored on
/// the first GPU and `down_*` on the last (pass empty buffers). After
/// `sweeps` sweeps the band is in `b` for an odd count and in `a` for an
/// even one, bit for bit what one GPU computes.
#[allow(clippy::too_many_arguments)]
#[kernel(multi_grid)]
pub fn jacobi_multi_gpu(
    a: Synced<f32>,
    b: Output<f32>,
    up_a: Output<f32>,
    up_b: Output<f32>,
    down_a: Output<f32>,
    down_b: Output<f32>,
    nx: u32,
    rows: u32,
    sweeps: u32,
) {
    let mg = this_multi_grid();
    let grid = mg.grid();
    let (first, last) = (mg.grid_rank() == 0, mg.grid_rank() + 1 == mg.num_grids());
    let (mut src, mut dst) = (a, b);
    // The neighbours' bands of the parity this sweep writes.
    let (mut up, mut up_next) = (up_b, up_a);
    let (mut down, mut down_next) = (down_b, down_a);
    for _ in 0..sweeps {
        sweep(&grid, &src, &mut dst, nx, rows);
        // This GPU's sweep is complete and readable; the old source free.
        let (done, free) = dst.sync_swap(src, &grid);
        if !first {
            let to = (up.len() / nx as usize) as u32 - 1;
            copy_row(&grid, &done, 1, &mut up, to, nx);
        }
        if !last {
            copy_row(&grid, &done, rows - 2, &mut down, 0, nx);
        }
        // Every GPU's halo rows are written.
        mg.sync();
        (src, dst) = (done, free);
        core::mem::swap(&mut up, &mut up_next);
        core::mem::swap(&mut down, &mut down_next);
    }
}
