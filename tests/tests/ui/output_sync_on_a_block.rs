// A block barrier orders only its own block's threads, and an `Output` is
// written by every thread of the grid: its phases take the grid's barrier
// (or the multi-grid's), never a smaller group's.
use cg_core::prelude::*;

fn phases(mut out: Output<f32>) -> f32 {
    let block = this_thread_block();
    out.for_thread(&this_grid(), |x| *x = 1.0);
    let all = out.sync(&block);
    all[0]
}

fn main() {}
