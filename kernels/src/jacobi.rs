//! Jacobi sweeps of the 2-D Laplace equation on an `nx` x `ny` grid with
//! fixed boundary values: one persistent cooperative kernel with a grid
//! barrier between sweeps, or one launch per sweep.

use cg_core::prelude::*;

/// One point of one sweep: the mean of the four neighbours, interior only.
#[inline(always)]
fn relax(src: *const f32, dst: *mut f32, i: usize, nx: usize, ny: usize) {
    let (x, y) = (i % nx, i / nx);
    if x > 0 && x < nx - 1 && y > 0 && y < ny - 1 {
        unsafe {
            let s = ((*src.add(i - 1) + *src.add(i + 1)) + *src.add(i - nx)) + *src.add(i + nx);
            *dst.add(i) = 0.25 * s;
        }
    }
}

/// `sweeps` sweeps in one launch, ping-ponging between `a` and `b` (the
/// result is in `b` after an odd number of sweeps, in `a` after an even
/// one). Both must hold the same boundary values.
#[kernel(cooperative)]
pub fn jacobi_persistent(a: *mut f32, b: *mut f32, nx: u32, ny: u32, sweeps: u32) {
    let grid = this_grid();
    let (nx, ny) = (nx as usize, ny as usize);
    let stride = grid.num_threads() as usize;
    for s in 0..sweeps {
        let (src, dst) = if s % 2 == 0 { (a, b) } else { (b, a) };
        let mut i = grid.thread_rank() as usize;
        while i < nx * ny {
            relax(src, dst, i, nx, ny);
            i += stride;
        }
        grid.sync();
    }
}

/// One sweep from `u` into `u_new` (launch at least `nx * ny` threads or
/// rely on the grid-stride loop).
#[kernel]
pub fn jacobi_sweep(u: &[f32], u_new: *mut f32, nx: u32, ny: u32) {
    let grid = this_grid();
    let (nx, ny) = (nx as usize, ny as usize);
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    while i < nx * ny {
        relax(u.as_ptr(), u_new, i, nx, ny);
        i += stride;
    }
}
