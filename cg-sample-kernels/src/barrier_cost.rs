//! Barriers in a loop, to measure what one costs: time `iters` barriers,
//! subtract the time of none, divide.

use cg_core::prelude::*;

/// `iters` grid barriers (cooperative launch).
#[kernel(cooperative)]
pub fn barrier_cost_grid(iters: u32, out: *mut u32) {
    let grid = this_grid();
    for _ in 0..iters {
        grid.sync();
    }
    if grid.thread_rank() == 0 {
        unsafe { *out = iters };
    }
}

/// `iters` block barriers.
#[kernel]
pub fn barrier_cost_block(iters: u32, out: *mut u32) {
    let block = this_thread_block();
    for _ in 0..iters {
        block.sync();
    }
    if block.thread_rank() == 0 && block.group_index().x == 0 {
        unsafe { *out = iters };
    }
}

/// `iters` warp-tile barriers.
#[kernel]
pub fn barrier_cost_tile(iters: u32, out: *mut u32) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    for _ in 0..iters {
        warp.sync();
    }
    if block.thread_rank() == 0 && block.group_index().x == 0 {
        unsafe { *out = iters };
    }
}
