// A pattern per branch: the threads of block 0's first warp as leaders,
// the others one element each. Every branch of every thread holds the same
// type, so one of the two does not compile.
use cg_core::prelude::*;

fn branches(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    if block.thread_rank() < 32 {
        out.for_leader(&block, |y| *y = 2);
    } else {
        out.for_thread(&grid, |y| *y = 1);
    }
}

fn main() {}
