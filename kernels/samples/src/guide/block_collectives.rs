//! Block-wide collectives: CUB's `BlockReduce` and `BlockScan`.

use cg_core::prelude::*;

// ANCHOR: block_sums
/// `sums[b]` is the sum of block `b`'s elements of `input` (one per
/// thread, any block shape), and `offsets[i]` the sum of the elements of
/// the threads of its block before thread `i`.
#[kernel]
pub fn guide_block_sums(
    input: &[u32],
    mut sums: Output<u32, Leaders<ThreadBlock>>,
    mut offsets: Output<u32>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let scratch = block_scratch!(u32);
    let i = grid.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let total = block_reduce(&block, &scratch, x, Plus);
    let before = block_exclusive_scan(&block, &scratch, x, Plus);
    sums.for_leader(&block, |s| *s = total);
    offsets.for_thread(&grid, |o| *o = before);
}
// ANCHOR_END: block_sums
