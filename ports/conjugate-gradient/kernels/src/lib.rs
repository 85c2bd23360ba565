//! The conjugate gradient solver of CUDA's `conjugateGradientMultiBlockCG`
//! sample, in one cooperative kernel, written as a Rust user writes it:
//! grid-stride loops over slices and outputs, plain `usize` indexing,
//! plain arithmetic, no `unsafe`; the row offsets and the column indices
//! checked once by the host (`Indices<u32>`), so a row of the matrix
//! (`row_offsets.rows(values, columns.over(v))`) and its gather
//! `v[columns[j]]` need no check per element.
//!
//! The matrix is sparse (CSR: `row_offsets`, `columns`, `values`),
//! symmetric and positive definite; every vector is `f64`. Each dot product
//! is reduced per warp (`tiled_partition::<32>` and `reduce`), then per block
//! through shared memory, and each block adds its sum to `dot[0]` with one
//! `f64` atomic add.
#![no_std]
#![warn(missing_docs)]

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// Threads per block of [`conjugate_gradient`] (the sample's).
pub const THREADS_PER_BLOCK: u32 = 512;

/// Warps per block: one shared slot each for the block's dot product.
const WARPS: usize = THREADS_PER_BLOCK as usize / 32;

/// The most iterations the solver takes (the sample's).
pub const MAX_ITERATIONS: u32 = 10_000;

// ANCHOR: spmv
/// `y[i] = alpha * (A v)[i]` for this thread's rows (grid-stride). The row
/// offsets and the column indices were checked by the host (`Indices`), so
/// `rows` checks `values` and `v` once here, `row(i)` checks `i`, and no
/// element is checked; the row's `fold` counts in `u32`, as nvcc's `int`
/// loop.
#[inline(always)]
fn spmv(
    row_offsets: Indices<u32>,
    columns: Indices<u32>,
    values: &[f64],
    alpha: f64,
    v: &[f64],
    y: &mut Output<f64>,
    grid: &GridGroup,
) {
    let rows = row_offsets.rows(values, columns.over(v));
    for (i, y) in y.grid_stride(grid) {
        *y = rows.row(i).fold(0.0, |sum, (a, v)| sum + alpha * a * v);
    }
}
// ANCHOR_END: spmv

/// This thread's share of `a . b`: its grid-stride terms, in order.
#[inline(always)]
fn dot_share(a: &[f64], b: &[f64], grid: &GridGroup) -> f64 {
    let mut sum = 0.0;
    for i in grid.stride(a.len()) {
        sum += a[i] * b[i];
    }
    sum
}

/// Adds `partial` (this thread's share of a dot product) of every thread of
/// the block to `dot[0]`: a sum per warp, the warps' sums in shared memory,
/// the first warp sums those, and its first thread adds the block's sum.
#[inline(always)]
fn add_block_sum(partial: f64, dot: &AtomicSlice<f64>, block: &ThreadBlock) {
    let warp = tiled_partition::<32>(block);
    let warp_sums = shared_array!(f64; WARPS);
    let sum = reduce(&warp, partial, Plus);
    if warp.thread_rank() == 0 {
        warp_sums.set(warp.meta_group_rank() as usize, sum);
    }
    block.sync();
    if warp.meta_group_rank() == 0 {
        let lane = warp.thread_rank();
        let mine = if lane < warp.meta_group_size() {
            warp_sums.get(lane as usize)
        } else {
            0.0
        };
        let block_sum = reduce(&warp, mine, Plus);
        if lane == 0 {
            dot.at(0).add(block_sum, Ordering::Relaxed);
        }
    }
}

/// Solves `A x = b` by conjugate gradients, from `x` (read first, written
/// after the first barrier) and `r = b` on entry; stops when `r . r <=
/// tol^2` or after [`MAX_ITERATIONS`]. On exit `x` is the solution, `dot[0]`
/// is `r . r`, and `iterations[0]` the number of iterations taken. `dot[0]`
/// is 0 on entry. Launch cooperatively with [`THREADS_PER_BLOCK`] threads
/// per block.
#[allow(clippy::too_many_arguments)]
#[kernel(cooperative)]
pub fn conjugate_gradient(
    row_offsets: Indices<u32>,
    columns: Indices<u32>,
    values: &[f64],
    x: Synced<f64>,
    mut ax: Output<f64>,
    mut p: Output<f64>,
    mut r: Output<f64>,
    dot: AtomicSlice<f64>,
    mut iterations: Output<u32>,
    tol: f64,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let alpha = 1.0;
    let alpham1 = -1.0;

    // r = b - A x
    spmv(row_offsets, columns, values, alpha, &x, &mut ax, &grid);
    // One barrier: A x readable, x writable.
    let (ax_read, mut x) = ax.sync_swap(x, &grid);
    for (i, r) in r.grid_stride(&grid) {
        *r = alpham1 * ax_read[i] + *r;
    }
    let mut r_read = r.sync(&grid);
    add_block_sum(dot_share(&r_read, &r_read, &grid), &dot, &block);
    let mut ax = ax_read.into_output(&grid);
    let mut r1 = dot.at(0).load_after_sync();
    let mut r0 = 0.0;

    let mut k = 1;
    while r1 > tol * tol && k <= MAX_ITERATIONS {
        // p = r + (r1 / r0) p, or r the first time
        if k > 1 {
            let b = r1 / r0;
            for (i, p) in p.grid_stride(&grid) {
                *p = alpha * r_read[i] + b * *p;
            }
        } else {
            for (i, p) in p.grid_stride(&grid) {
                *p = r_read[i];
            }
        }
        let p_read = p.sync(&grid);

        spmv(row_offsets, columns, values, alpha, &p_read, &mut ax, &grid);
        if grid.thread_rank() == 0 {
            dot.at(0).store(0.0, Ordering::Relaxed);
        }
        let ax_read = ax.sync(&grid);

        add_block_sum(dot_share(&p_read, &ax_read, &grid), &dot, &block);
        let mut r = r_read.into_output(&grid);

        // x += a p, r -= a A p
        let a = r1 / dot.at(0).load_after_sync();
        for (i, x) in x.grid_stride(&grid) {
            *x = a * p_read[i] + *x;
        }
        let na = -a;
        for (i, r) in r.grid_stride(&grid) {
            *r = na * ax_read[i] + *r;
        }
        r0 = r1;
        r_read = r.sync(&grid);

        if grid.thread_rank() == 0 {
            dot.at(0).store(0.0, Ordering::Relaxed);
        }
        p = p_read.into_output(&grid);

        add_block_sum(dot_share(&r_read, &r_read, &grid), &dot, &block);
        ax = ax_read.into_output(&grid);

        r1 = dot.at(0).load_after_sync();
        k += 1;
    }
    iterations.for_thread(&grid, |n| *n = k - 1);
}
