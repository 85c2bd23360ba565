//! `y = A x` for a CSR matrix: one 32-thread tile per row, the tiles
//! grid-stride over the rows.

use cg_core::prelude::*;

#[kernel]
pub fn spmv_csr(row_ptr: &[u32], cols: &[u32], vals: &[f32], x: &[f32], mut y: Output<f32>) {
    let grid = this_grid();
    let tile = tiled_partition::<32>(&this_thread_block());
    let lane = tile.thread_rank() as usize;
    let rows = row_ptr.len().saturating_sub(1);
    y.truncate(rows);

    // The Output patterns have no "one element per group, grid-stride"
    // form: the row's element is written through the raw pointer.
    let rows = y.len();
    let y = y.as_mut_ptr();

    let tiles = (grid.num_threads() / 32) as usize;
    let mut r = (grid.thread_rank() / 32) as usize;
    while r < rows {
        let (lo, hi) = (row_ptr[r] as usize, row_ptr[r + 1] as usize);
        let mut sum = 0.0f32;
        let mut k = lo + lane;
        while k < hi {
            sum += vals[k] * x[cols[k] as usize];
            k += 32;
        }
        let sum = reduce(&tile, sum, Plus);
        if lane == 0 {
            // SAFETY: r < rows = y's length, and row r is this tile's
            // alone (tiles take rows r, r + tiles, ...), written by its
            // lane 0 only.
            unsafe { *y.add(r) = sum };
        }
        r += tiles;
    }
}
