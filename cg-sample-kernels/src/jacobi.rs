//! Jacobi sweeps of the 2-D Laplace equation on an `nx` x `ny` grid with
//! fixed boundary values: one persistent cooperative kernel with a grid
//! barrier between sweeps, or one launch per sweep.

use cg_core::prelude::*;

/// One sweep over the interior points owned by thread `rank` of `stride`:
/// the mean of each point's four neighbours, from `src` into `dst`.
///
/// The interior points are numbered row by row (`k = y * w + x` over the
/// `w = nx - 2` by `ny - 2` interior), and the thread walks them with a
/// grid stride; its coordinates advance by the stride's own quotient and
/// remainder, so the loop has one division before it and none inside, and
/// all index arithmetic is 32-bit.
#[inline(always)]
fn sweep(src: *const f32, dst: *mut f32, nx: u32, ny: u32, rank: u32, stride: u32) {
    if nx < 3 || ny < 3 {
        return;
    }
    let w = nx - 2;
    let n = w * (ny - 2);
    let (dy, dx) = (stride / w, stride % w);
    let (mut y, mut x) = (rank / w, rank % w);
    let mut k = rank;
    while k < n {
        let i = ((y + 1) * nx + x + 1) as usize;
        let nx = nx as usize;
        unsafe {
            let s = ((*src.add(i - 1) + *src.add(i + 1)) + *src.add(i - nx)) + *src.add(i + nx);
            *dst.add(i) = 0.25 * s;
        }
        k += stride;
        x += dx;
        y += dy;
        if x >= w {
            x -= w;
            y += 1;
        }
    }
}

/// `sweeps` sweeps in one launch, ping-ponging between `a` and `b` (the
/// result is in `b` after an odd number of sweeps, in `a` after an even
/// one). Both must hold the same boundary values. The grid has at most
/// 2^32 threads and the field at most 2^32 points.
#[kernel(cooperative)]
pub fn jacobi_persistent(a: *mut f32, b: *mut f32, nx: u32, ny: u32, sweeps: u32) {
    let grid = this_grid();
    let (rank, stride) = (grid.thread_rank() as u32, grid.num_threads() as u32);
    for s in 0..sweeps {
        let (src, dst) = if s % 2 == 0 { (a, b) } else { (b, a) };
        sweep(src, dst, nx, ny, rank, stride);
        grid.sync();
    }
}

/// One sweep from `u` into `u_new` (launch at least as many threads as
/// interior points, or rely on the grid-stride loop).
#[kernel]
pub fn jacobi_sweep(u: &[f32], u_new: *mut f32, nx: u32, ny: u32) {
    let grid = this_grid();
    if u.len() < nx as usize * ny as usize {
        return;
    }
    sweep(
        u.as_ptr(),
        u_new,
        nx,
        ny,
        grid.thread_rank() as u32,
        grid.num_threads() as u32,
    );
}
