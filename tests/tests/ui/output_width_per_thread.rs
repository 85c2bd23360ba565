// A width per thread hands one element of a 2-D output to two threads.
// The width must be a `Uniform`.
use cg_core::prelude::*;

fn width(mut out: Output<u32, Grid2d>, width: Uniform<usize>) {
    let grid = this_grid();
    let width = width.get() + (grid.thread_rank() % 2) as usize;
    if let Some(y) = out.thread_element_2d(&grid, width) {
        *y = 1;
    }
}

fn main() {}
