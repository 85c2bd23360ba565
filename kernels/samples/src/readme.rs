use cg_core::prelude::*;

/// `out[i] = factor * (input[i] + input[(i + 1) % n])`, in two phases with a
/// grid-wide barrier between them: each thread's second phase reads what
/// another block wrote in the first.
#[kernel(cooperative)]
pub fn scale_neighbour_sum(
    input: &[f32],
    mut scaled: Output<f32>,
    mut out: Output<f32>,
    factor: f32,
) {
    let grid = this_grid();
    scaled.truncate(input.len());
    for (i, s) in scaled.grid_stride(&grid) {
        *s = factor * input[i];
    }
    // The barrier: every thread's `scaled` is written, and from here on
    // every thread may read all of it (and none may write it).
    let scaled = scaled.sync(&grid);
    let n = scaled.len();
    out.truncate(n);
    for (i, o) in out.grid_stride(&grid) {
        *o = scaled[i] + scaled[(i + 1) % n];
    }
}
