use cg_core::prelude::*;

/// `out[i] = factor * (input[i] + input[(i + 1) % n])`, in two phases with a
/// grid-wide barrier between them: each thread's second phase reads what
/// another block wrote in the first.
#[kernel(cooperative)]
pub fn scale_neighbour_sum(input: &[f32], scaled: *mut f32, out: *mut f32, factor: f32) {
    let grid = this_grid();
    let n = input.len();
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    while i < n {
        unsafe { *scaled.add(i) = factor * input[i] };
        i += stride;
    }
    grid.sync();
    let mut i = grid.thread_rank() as usize;
    while i < n {
        unsafe { *out.add(i) = *scaled.add(i) + *scaled.add((i + 1) % n) };
        i += stride;
    }
}
