//! The sum of `x`: each block sums its contiguous chunk into
//! `partials[b]`, then, after a grid barrier, block 0 sums the partials
//! into `total[0]`.

use cg_core::prelude::*;

#[kernel(cooperative)]
pub fn block_sum(
    x: &[f32],
    mut partials: Output<f32, Leaders<ThreadBlock>>,
    mut total: Output<f32, Leaders<ThreadBlock>>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let scratch = block_scratch!(f32);

    // Block b owns [b * c, min((b + 1) * c, n)), c = ceil(n / blocks).
    let n = x.len();
    let b = grid.block_rank() as usize;
    let c = n.div_ceil(grid.num_blocks() as usize);
    let start = (b * c).min(n);
    let end = (start + c).min(n);
    let chunk = &x[start..end];

    let mut sum = 0.0f32;
    for i in block.stride(chunk.len()) {
        sum += chunk[i];
    }
    let sum = block_reduce(&block, &scratch, sum, Plus);
    if let Some(p) = partials.leader_element(&block) {
        *p = sum;
    }

    let partials = partials.sync(&grid);

    if b == 0 {
        let mut sum = 0.0f32;
        for i in block.stride(partials.len()) {
            sum += partials[i];
        }
        let sum = block_reduce(&block, &scratch, sum, Plus);
        if let Some(t) = total.leader_element(&block) {
            *t = sum;
        }
    }
}
