//! `z[i] = a * x[i] + y[i]` in a grid-stride loop.

use cg_core::prelude::*;

#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &[f32], mut z: Output<f32>) {
    let grid = this_grid();
    z.truncate(x.len());
    for (i, z) in z.grid_stride(&grid) {
        *z = a * x[i] + y[i];
    }
}
