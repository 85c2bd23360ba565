//! Each row of a `rows` x `cols` row-major matrix divided by its largest
//! absolute value, one block per row.

use cg_core::prelude::*;

#[kernel]
pub fn row_normalize(a: &[f32], mut b: Output<f32, Chunks>, cols: Uniform<u32>) {
    let grid = this_grid();
    let block = this_thread_block();
    let scratch = block_scratch!(f32);
    let row_len = cols;
    let cols = cols.get() as usize;
    let r = grid.block_rank() as usize;
    let row = &a[r * cols..(r + 1) * cols];

    let mut m = 0.0f32;
    for c in block.stride(row.len()) {
        m = m.max(row[c].abs());
    }
    let m = block_reduce(&block, &scratch, m, Greater);

    if let Some(out) = b.block_chunk(&block, row_len) {
        for (c, o) in out.block_stride() {
            *o = row[c] / m;
        }
    }
}
