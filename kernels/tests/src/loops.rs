//! Strided loops as a newcomer writes them, for the offline check that
//! each issues several loads per iteration once compiled
//! (`tests/tests/loads_in_flight.rs`): a block's chunk with
//! `block.stride`, the same as a plain `while` loop, a grid-stride loop,
//! `step_by` with a checked index, a checked gather, the same gather through
//! host-checked `Indices`, a tile-stride
//! `while` loop, a saxpy over `Output::grid_stride`; and a pointer chase, whose loads depend on each other and whose end
//! depends on them, which the check must report at one load per iteration.

use cg_core::indices::IndexValue;
use cg_core::prelude::*;

/// Block `b`'s contiguous chunk of `x`: `[b * c, min((b + 1) * c, n))`,
/// `c = ceil(n / blocks)`.
#[inline(always)]
fn chunk_of_block(x: &[f32]) -> (usize, usize) {
    let grid = this_grid();
    let n = x.len();
    let c = n.div_ceil(grid.num_blocks() as usize);
    let start = (grid.block_rank() as usize * c).min(n);
    (start, (start + c).min(n))
}

/// `out[rank] = ` this thread's block-stride sum of its block's chunk.
#[kernel]
pub fn loop_block_stride_chunk(x: &[f32], mut out: Output<f32>) {
    let block = this_thread_block();
    let (start, end) = chunk_of_block(x);
    let chunk = &x[start..end];
    let mut s = 0.0f32;
    for i in block.stride(chunk.len()) {
        s += chunk[i];
    }
    out.for_thread(&this_grid(), |o| *o = s);
}

/// The same sum as a plain `while` loop over indices into `x`.
#[kernel]
pub fn loop_while_chunk(x: &[f32], mut out: Output<f32>) {
    let block = this_thread_block();
    let (start, end) = chunk_of_block(x);
    let mut s = 0.0f32;
    let mut i = start + block.thread_rank() as usize;
    while i < end {
        s += x[i];
        i += block.num_threads() as usize;
    }
    out.for_thread(&this_grid(), |o| *o = s);
}

/// `out[rank] = ` this thread's grid-stride sum of `x`.
#[kernel]
pub fn loop_grid_stride(x: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let mut s = 0.0f32;
    for i in grid.stride(x.len()) {
        s += x[i];
    }
    out.for_thread(&grid, |o| *o = s);
}

/// A grid-stride sum written with `step_by` (each `x[i]` checked).
#[kernel]
pub fn loop_step_by(x: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let mut s = 0.0f32;
    for i in (grid.thread_rank() as usize..x.len()).step_by(grid.num_threads() as usize) {
        s += x[i];
    }
    out.for_thread(&grid, |o| *o = s);
}

/// A grid-stride sum of `x[idx[k]]`: the gather's index checked each time.
#[kernel]
pub fn loop_checked_gather(x: &[f32], idx: &[u32], mut out: Output<f32>) {
    let grid = this_grid();
    let mut s = 0.0f32;
    for k in grid.stride(idx.len()) {
        s += x[idx[k] as usize];
    }
    out.for_thread(&grid, |o| *o = s);
}

/// `out[i] = a * x[i] + out[i]` over `Output::grid_stride` (each `x[i]`
/// checked: `x` may be shorter than `out`).
#[kernel]
pub fn loop_output_grid_stride(x: &[f32], a: f32, mut out: Output<f32>) {
    let grid = this_grid();
    for (i, y) in out.grid_stride(&grid) {
        *y = a * x[i] + *y;
    }
}

/// [`loop_checked_gather`] through index values the host checked: the
/// gather's one check is `Indices::over`'s, before the loop.
#[kernel]
pub fn loop_validated_gather(x: &[f32], idx: Indices<u32>, mut out: Output<f32>) {
    let grid = this_grid();
    let xs = idx.over(x);
    let mut s = 0.0f32;
    for k in grid.stride(xs.len()) {
        s += xs[k];
    }
    out.for_thread(&grid, |o| *o = s);
}

/// `y[r] = sum of values[k] * x[columns[k]]` over row `r` of a CSR matrix
/// whose row offsets and column indices the host checked
/// (`Indices::rows`), summed by `Row::fold`: a `u32` counter for `u32`
/// offsets (`loop_csr_rows_fold`), a `usize` one for `u64` offsets
/// (`loop_csr_rows_u64`).
#[kernel(instances(loop_csr_rows_fold = <u32>, loop_csr_rows_u64 = <u64>))]
pub fn loop_csr_rows<I: IndexValue>(
    row_offsets: Indices<I>,
    columns: Indices<u32>,
    values: &[f32],
    x: &[f32],
    mut y: Output<f32>,
) {
    let grid = this_grid();
    let rows = row_offsets.rows(values, columns.over(x));
    for (r, y) in y.grid_stride(&grid) {
        *y = rows.row(r).fold(0.0, |s, (a, v)| a.mul_add(v, s));
    }
}

/// [`loop_csr_rows`] through a `for` loop over each row (`Row::next`),
/// which stays rolled.
#[kernel]
pub fn loop_csr_rows_for(
    offsets: Indices<u32>,
    columns: Indices<u32>,
    a: &[f32],
    x: &[f32],
    mut y: Output<f32>,
) {
    let grid = this_grid();
    let rows = offsets.rows(a, columns.over(x));
    for (r, y) in y.grid_stride(&grid) {
        let mut s = 0.0f32;
        for (a, v) in rows.row(r) {
            s = a.mul_add(v, s);
        }
        *y = s;
    }
}

/// One warp per row of `x` (`cols` wide): its lanes' stride over the row,
/// a plain `while` loop, then the warp's sum.
#[kernel]
pub fn loop_tile_stride(x: &[f32], cols: u32, mut out: Output<f32>) {
    let grid = this_grid();
    let warp = tiled_partition::<32>(&this_thread_block());
    let cols = cols as usize;
    let row = (grid.thread_rank() / 32) as usize;
    let mut s = 0.0f32;
    if (row + 1) * cols <= x.len() {
        let mut j = row * cols + warp.thread_rank() as usize;
        while j < (row + 1) * cols {
            s += x[j];
            j += 32;
        }
    }
    let s = reduce(&warp, s, Plus);
    out.for_thread(&grid, |o| *o = s);
}

/// The hops of `i = next[i]` from this thread's rank until an index past
/// the end: each load needs the one before and the loop's end depends on
/// what it loads, so every iteration waits for its load whatever the build
/// does (the check's one-load case; `next` must hold no cycle).
#[kernel]
pub fn loop_pointer_chase(next: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    let mut i = grid.thread_rank() as usize;
    let mut hops = 0u32;
    while i < next.len() {
        i = next[i] as usize;
        hops += 1;
    }
    out.for_thread(&grid, |o| *o = hops);
}
