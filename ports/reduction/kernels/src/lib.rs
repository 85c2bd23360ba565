//! The single-pass reduction of CUDA's `reductionMultiBlockCG` sample, as
//! a Rust user writes it: every thread sums a grid-stride share of the
//! input, each block sums its threads' sums (per warp with `reduce`, then
//! the warps' sums in order by the block's first thread), the blocks'
//! sums are written one per block, and after `grid.sync()` the grid's
//! first thread adds them up.
#![no_std]
#![warn(missing_docs)]

use cg_core::prelude::*;

/// The sum of `v` over the calling block, in the block's first thread
/// (`Some` there, `None` elsewhere): a sum per warp, then the warps' sums
/// one after the other. Every thread of the block calls it.
#[inline(always)]
fn block_sum(v: f64, block: &ThreadBlock) -> Option<f64> {
    let warp = tiled_partition::<32>(block);
    let warp_sums = shared_array!(f64; 32);
    let sum = reduce(&warp, v, Plus);
    if warp.thread_rank() == 0 {
        warp_sums.set(warp.meta_group_rank() as usize, sum);
    }
    block.sync();
    let total = if block.thread_rank() == 0 {
        let mut total = 0.0;
        for w in 0..warp.meta_group_size() as usize {
            total += warp_sums.get(w);
        }
        Some(total)
    } else {
        None
    };
    block.sync();
    total
}

/// `sum[0]` = the sum of `input`, accumulated in `f64` within each block and
/// in `f32` across blocks; `block_sums[b]` is block `b`'s sum (one element
/// per block). Launch cooperatively, any whole number of warps per block.
#[kernel(cooperative)]
pub fn reduce_single_pass(
    input: &[f32],
    mut block_sums: Output<f32, Leaders<ThreadBlock>>,
    mut sum: Output<f32>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let mut mine = 0.0f64;
    for i in grid.stride(input.len()) {
        mine += input[i] as f64;
    }
    if let Some(total) = block_sum(mine, &block) {
        block_sums.for_leader(&block, |s| *s = total as f32);
    }
    let block_sums = block_sums.sync(&grid);
    sum.for_thread(&grid, |s| {
        let blocks = (grid.num_blocks() as usize).min(block_sums.len());
        let mut total = block_sums[0];
        for b in 1..blocks {
            total += block_sums[b];
        }
        *s = total;
    });
}
