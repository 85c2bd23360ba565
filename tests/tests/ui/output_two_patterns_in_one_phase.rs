// Two patterns of one buffer in one phase: thread 1 of the grid
// (`for_thread`) and block 1's leader (`for_leader`) would both write
// element 1. The pattern is the buffer's type (`Output<u32>` is written one
// element per thread), so the second pattern does not compile.
use cg_core::prelude::*;

fn mixed_patterns(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1);
    out.for_leader(&block, |y| *y = 2);
}

fn main() {}
