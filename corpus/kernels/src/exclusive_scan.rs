//! The exclusive prefix sum of `x` (wrapping), in three phases: each block
//! sums its chunk into `block_totals[b]`; grid barrier; each block adds up
//! the totals of the blocks before it (its offset) and scans its chunk in
//! rounds of one element per thread.

use cg_core::prelude::*;

#[kernel(cooperative)]
pub fn exclusive_scan(
    x: &[u32],
    mut y: Output<u32, Chunks>,
    mut block_totals: Output<u32, Leaders<ThreadBlock>>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let scratch = block_scratch!(u32);

    // Chunks as block_sum's: block b owns [b * c, min((b + 1) * c, n)).
    // The chunk length from the output's launch length (as long as `x`):
    // the same in every thread, as a chunk per block needs.
    let chunk_len = y.launch_len().div_ceil(grid.uniform_num_blocks());
    let n = x.len();
    let b = grid.block_rank() as usize;
    let c = chunk_len.get();
    let start = (b * c).min(n);
    let end = (start + c).min(n);
    let chunk = &x[start..end];

    // Phase 1: the chunk's sum.
    let mut sum = 0u32;
    for i in block.stride(chunk.len()) {
        sum = sum.wrapping_add(chunk[i]);
    }
    let sum = block_reduce(&block, &scratch, sum, Plus);
    if let Some(t) = block_totals.leader_element(&block) {
        *t = sum;
    }

    let block_totals = block_totals.sync(&grid);

    // Phase 2: this block's offset, the sum of the totals before it.
    let mut before = 0u32;
    for i in block.stride(b.min(block_totals.len())) {
        before = before.wrapping_add(block_totals[i]);
    }
    let offset = block_reduce(&block, &scratch, before, Plus);

    // Phase 3: the chunk in rounds of one element per thread.
    y.truncate(n);
    if let Some(out) = y.block_chunk(&block, chunk_len) {
        let mut running = 0u32;
        out.block_rounds().reading(x).for_each(|round| {
            let v = round.input.unwrap_or(0);
            let (scan, round_total) = block_exclusive_scan_with_total(&block, &scratch, v, Plus);
            if let Some(o) = round.value {
                *o = offset.wrapping_add(running).wrapping_add(scan);
            }
            running = running.wrapping_add(round_total);
        });
    }
}
