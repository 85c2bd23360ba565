//! `softmax`: row-wise softmax of a row-major matrix, one block per row.

use cg_core::prelude::*;

/// `b[r][c] = exp(a[r][c] - m) / s` for each row `r` of the row-major
/// matrix `a` (rows of `cols` elements), where `m` is the row's largest
/// value and `s` the sum of `exp(a[r][c] - m)` over the row. Block `r`
/// handles row `r`: a block-stride loop and a block reduce (max) for `m`,
/// another (sum) for `s`, then a block-stride loop for the row of `b`.
/// Launch one block per row; a block past the last row does nothing.
#[kernel]
pub fn softmax(a: &[f32], mut b: Output<f32, Chunks>, cols: Uniform<u32>) {
    let block = this_thread_block();
    let grid = this_grid();
    let row_len = cols;
    let cols = cols.get() as usize;
    let r = grid.block_rank() as usize;
    // The whole block takes this branch or none of it: no thread misses
    // a barrier of the reductions below.
    let Some(row) = a.get(r * cols..(r + 1) * cols) else {
        return;
    };
    let scratch = block_scratch!(f32);

    let mut m = f32::NEG_INFINITY;
    for c in block.stride(row.len()) {
        m = m.max(row[c]);
    }
    let m = block_reduce(&block, &scratch, m, Greater);

    let mut s = 0.0f32;
    for c in block.stride(row.len()) {
        s += (row[c] - m).exp();
    }
    let s = block_reduce(&block, &scratch, s, Plus);

    if let Some(chunk) = b.block_chunk(&block, row_len) {
        for (c, y) in chunk.block_stride() {
            *y = (row[c] - m).exp() / s;
        }
    }
}
