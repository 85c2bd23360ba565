//! `gelu`: the Gaussian error linear unit, element by element.

use cg_core::prelude::*;
use core::f32::consts::SQRT_2;

/// `y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2)))` for every `i` below
/// `x.len()`, in a grid-stride loop (any grid covers all of `x`). `erf`
/// is CUDA's `erff`.
#[kernel]
pub fn gelu(x: &[f32], mut y: Output<f32>) {
    let grid = this_grid();
    y.truncate(x.len());
    for (i, out) in y.grid_stride(&grid) {
        let v = x[i];
        *out = 0.5 * v * (1.0 + FloatMath::erf(v / SQRT_2));
    }
}
