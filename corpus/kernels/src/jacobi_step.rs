//! One Jacobi sweep of an `nx` x `ny` row-major field, one thread per
//! point: interior points the average of their four neighbours, boundary
//! points copied.

use cg_core::prelude::*;

#[kernel]
pub fn jacobi_step(src: &[f32], mut dst: Output<f32, Grid2d>, nx: Uniform<u32>, ny: u32) {
    let grid = this_grid();
    let width = nx;
    let (nx, ny) = (nx.get() as usize, ny as usize);
    let p = grid.thread_index();
    let (x, y) = (p.x as usize, p.y as usize);
    dst.truncate(nx * ny);
    if let Some(d) = dst.thread_element_2d(&grid, width) {
        let i = y * nx + x;
        if x == 0 || y == 0 || x == nx - 1 || y == ny - 1 {
            *d = src[i];
        } else {
            let w = src[i - 1];
            let e = src[i + 1];
            let n = src[i - nx];
            let s = src[i + nx];
            *d = 0.25 * (((w + e) + n) + s);
        }
    }
}
