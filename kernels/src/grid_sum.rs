//! Whole-array sum in one cooperative kernel: every block reduces a
//! grid-stride slice, `grid.sync()`, block 0 reduces the block partials.

use crate::block_reduce::block_sum;
use cg_core::prelude::*;

/// `out[0] = sum(input)`. `partials` holds one value per block.
#[kernel(cooperative)]
pub fn grid_sum(input: &[f32], partials: *mut f32, out: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let n = input.len();
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    let mut v = 0.0f32;
    while i < n {
        v += unsafe { *input.get_unchecked(i) };
        i += stride;
    }
    let s = block_sum(&block, v);
    if block.thread_rank() == 0 {
        unsafe { *partials.add(grid.block_rank() as usize) = s };
    }
    grid.sync();
    if grid.block_rank() == 0 {
        let nb = grid.num_blocks();
        let mut j = block.thread_rank();
        let mut v = 0.0f32;
        while j < nb {
            v += unsafe { *partials.add(j as usize) };
            j += block.num_threads();
        }
        let s = block_sum(&block, v);
        if block.thread_rank() == 0 {
            unsafe { *out = s };
        }
    }
}
