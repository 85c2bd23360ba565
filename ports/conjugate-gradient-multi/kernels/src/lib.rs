//! The conjugate gradient solver of CUDA's `conjugateGradientMultiDeviceCG`
//! sample on several GPUs at once: one `#[kernel(multi_grid)]`, the same
//! on every GPU of a set, each GPU solving for a contiguous band of the
//! rows, with `multi_grid.sync()` across them. Written as a Rust user
//! writes it: grid-stride loops over slices and outputs, plain `usize`
//! indexing, plain arithmetic, no `unsafe`; the column indices checked once
//! by the host (`Indices<u32>`), so the gather `p[columns[j]]` needs no
//! check.
//!
//! Each GPU holds its band of the matrix (CSR: `row_offsets`, `columns`,
//! `values`, its rows only) and its rows of `x`, `r` and `A p`. The
//! search direction `p` is the one vector the SpMV reads beyond the band:
//! each GPU's `p` is its rows after two halos of `halo` elements each,
//! `[rows of the previous GPU | rows of the next GPU | own rows]`, and the
//! band's columns are numbered in that layout (the host renumbers them).
//! After each update of `p` every GPU writes its first and last `halo`
//! rows into its neighbours' halos, through peer memory, and one
//! `multi_grid.sync()` makes them readable: a banded matrix (the sample's
//! is tridiagonal, `halo` = 1) needs nothing more.
//!
//! Each dot product is summed in a fixed order, so that a solve gives the
//! same bits run after run and, where the compilers' arithmetic agrees,
//! the same bits as the CUDA C++ version: per warp (`reduce` over a
//! `tiled_partition::<32>`), per block through shared memory into the
//! block's slot of `partials`, then, after a grid barrier, block 0's first
//! warp sums the blocks' slots into the grid's slot of `sums` (one buffer
//! on the first GPU, `num_grids()` slots per dot product), and after a
//! multi-grid barrier every thread adds the grids' slots in rank order.
#![no_std]
#![warn(missing_docs)]

use cg_core::atomic::{AtomicSlice, Ordering, System};
use cg_core::prelude::*;

/// Threads per block of [`conjugate_gradient_multi`] (the sample's).
pub const THREADS_PER_BLOCK: u32 = 512;

/// Warps per block: one shared slot each for the block's dot product.
const WARPS: usize = THREADS_PER_BLOCK as usize / 32;

/// The most iterations the solver takes (the sample's).
pub const MAX_ITERATIONS: u32 = 10_000;

/// The set of `sums` slots of `p . A p`: slots `0..num_grids()`.
pub const SUMS_P_AP: u32 = 0;

/// The set of `sums` slots of `r . r`: slots `num_grids()..2 num_grids()`.
/// Two sets, used in turn, so that a grid writing the next dot product's
/// sum never overwrites one another grid is still reading: between a set's
/// reads and its next writes there is always a multi-grid barrier.
pub const SUMS_R_R: u32 = 1;

/// `y[i] = alpha * (A v)[i]` for this GPU's rows (grid-stride). The column
/// indices were checked by the host (`Indices`), so `v` is checked once
/// here, and each row's values and gather once a row.
#[inline(always)]
fn spmv(
    row_offsets: &[u32],
    columns: Indices<u32>,
    values: &[f64],
    alpha: f64,
    v: &[f64],
    y: &mut Output<f64>,
    grid: &GridGroup,
) {
    let v_at = columns.over(v);
    for (i, y) in y.grid_stride(grid) {
        let start = row_offsets[i] as usize;
        let end = row_offsets[i + 1] as usize;
        let (a, vs) = (&values[start..end], v_at.range(start..end));
        let mut sum = 0.0;
        for j in 0..a.len() {
            sum += alpha * a[j] * vs[j];
        }
        *y = sum;
    }
}

/// This thread's share of `a . b`: its grid-stride terms, in order.
#[inline(always)]
fn dot_share(a: &[f64], b: &[f64], grid: &GridGroup) -> f64 {
    let mut sum = 0.0;
    for i in grid.stride(a.len()) {
        sum += a[i] * b[i];
    }
    sum
}

/// Stores the block's sum of `partial` (each thread's share of a dot
/// product) in the block's slot of `partials`: a sum per warp, the warps'
/// sums in shared memory, the first warp sums those, its first thread
/// stores the block's sum.
#[inline(always)]
fn store_block_sum(
    partial: f64,
    partials: &AtomicSlice<f64>,
    grid: &GridGroup,
    block: &ThreadBlock,
) {
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
            partials
                .at(grid.block_rank() as usize)
                .store(block_sum, Ordering::Relaxed);
        }
    }
}

/// After a grid barrier (every block's slot of `partials` stored): block
/// 0's first warp sums the blocks' slots, lane `l` the blocks `l, l + 32,
/// ...` in order, then the warp's `reduce`, and stores the grid's sum in
/// its slot of the set `set` of `sums`.
#[inline(always)]
fn store_grid_sum(
    partials: &AtomicSlice<f64>,
    sums: &AtomicSlice<f64, System>,
    set: u32,
    mg: &MultiGridGroup,
    block: &ThreadBlock,
) {
    let grid = mg.grid();
    if grid.block_rank() != 0 {
        return;
    }
    let warp = tiled_partition::<32>(block);
    if warp.meta_group_rank() != 0 {
        return;
    }
    let lane = warp.thread_rank();
    let blocks = grid.num_blocks();
    let mut sum = 0.0;
    let mut b = lane;
    while b < blocks {
        sum += partials.at(b as usize).load(Ordering::Relaxed);
        b += 32;
    }
    let grid_sum = reduce(&warp, sum, Plus);
    if lane == 0 {
        let slot = set * mg.num_grids() + mg.grid_rank();
        sums.at(slot as usize).store(grid_sum, Ordering::Relaxed);
    }
}

/// After a multi-grid barrier (every grid's sum stored): the dot product,
/// the grids' sums of the set `set` added in rank order. Read with
/// `load_after_sync` (a plain load, served by L1 after a multiprocessor's
/// first warp): the barrier ordered the stores, and no grid writes this
/// set again before the next one.
#[inline(always)]
fn total(sums: &AtomicSlice<f64, System>, set: u32, mg: &MultiGridGroup) -> f64 {
    let grids = mg.num_grids();
    let mut sum = 0.0;
    let mut g = 0;
    while g < grids {
        sum += sums.at((set * grids + g) as usize).load_after_sync();
        g += 1;
    }
    sum
}

/// Writes this GPU's first `halo` rows of `p` (`own`) into the previous
/// GPU's second halo (elements `halo..2 halo` of its `p`: `up`), and its
/// last `halo` rows into the next GPU's first halo (elements `0..halo` of
/// `down`): thread `t` of the grid writes element `t` of each (the launch
/// has more threads than `2 halo`: checked once).
///
/// Kept out of line: inlined into the solver's loop (this form, or a
/// grid-stride `Window` over the halos), `ptxas` gives the kernel 72 to
/// 104 registers, one block of 512 threads per SM; out of line, 64: two
/// (docs/NOTES.md, 2026-11-29).
#[inline(never)]
fn push_halos(
    own: &[f64],
    up: &mut Output<f64>,
    down: &mut Output<f64>,
    halo: usize,
    mg: &MultiGridGroup,
) {
    let grid = mg.grid();
    let t = grid.thread_rank() as usize;
    if mg.grid_rank() > 0 && t >= halo && t < 2 * halo {
        up.for_thread(&grid, |v| *v = own[t - halo]);
    }
    if mg.grid_rank() + 1 < mg.num_grids() && t < halo {
        down.for_thread(&grid, |v| *v = own[own.len() - halo + t]);
    }
}

#[cold]
#[track_caller]
fn halo_wider_than_the_grid() -> ! {
    panic!("conjugate_gradient_multi: 2 halo is more than the grid's threads")
}

/// Solves `A x = b` by conjugate gradients on every GPU of the launch,
/// this grid for its band of rows, from `x = 0` (the sample's start, so
/// that `r = b - A x = b`: the host passes `r = b`, `x = 0`, and the
/// sample's first SpMV, of a zero vector, is left out); stops when
/// `r . r <= tol^2` or after [`MAX_ITERATIONS`].
///
/// - `row_offsets`, `columns`, `values`: the band's rows, in CSR, the
///   columns numbered in the layout of `p` (see the crate's docs);
/// - `x`, `ax`, `r`: the band's rows of `x`, `A p` and `r`;
/// - `p`: `2 halo` halo elements, then the band's rows; `up` and `down`:
///   the previous and the next GPU's `p` (ignored on the first and the
///   last GPU: any buffer of at least `2 halo` elements);
/// - `partials`: a slot per block of this grid; `sums`: one buffer, on the
///   first GPU, given to every grid, `2 num_grids()` slots;
/// - `arrived`: the arrival flags of the CUDA C++ version's barrier (the
///   sample's, in CUDA 13 with no `multi_grid_group`), not used here:
///   `multi_grid.sync()` has the set's counters;
/// - `iterations[0]`: the iterations taken, on exit.
///
/// On exit `sums[num_grids()..]` hold the grids' sums of `r . r`, whose sum
/// in rank order is the last residual's square. Launch with
/// [`THREADS_PER_BLOCK`] threads per block through `GpuSet`.
#[allow(clippy::too_many_arguments)]
#[kernel(multi_grid)]
pub fn conjugate_gradient_multi(
    row_offsets: &[u32],
    columns: Indices<u32>,
    values: &[f64],
    mut x: Output<f64>,
    mut ax: Output<f64>,
    mut p: Output<f64>,
    mut up: Output<f64>,
    mut down: Output<f64>,
    r: Synced<f64>,
    partials: AtomicSlice<f64>,
    sums: AtomicSlice<f64, System>,
    _arrived: AtomicSlice<u32, System>,
    mut iterations: Output<u32>,
    halo: u32,
    tol: f64,
) {
    let mg = this_multi_grid();
    let grid = mg.grid();
    let block = this_thread_block();
    let alpha = 1.0;
    // Where the band's rows start in `p`; the neighbours' elements this
    // grid writes lie before `2 halo` (their halos).
    let halo = halo as usize;
    let own = 2 * halo;
    if (own as u64) > grid.num_threads() {
        halo_wider_than_the_grid();
    }

    let mut r_read = r;
    store_block_sum(dot_share(&r_read, &r_read, &grid), &partials, &grid, &block);
    grid.sync();
    store_grid_sum(&partials, &sums, SUMS_R_R, &mg, &block);
    mg.sync();
    let mut r1 = total(&sums, SUMS_R_R, &mg);
    let mut r0 = 0.0;

    let mut k = 1;
    while r1 > tol * tol && k <= MAX_ITERATIONS {
        // p = r + (r1 / r0) p, or r the first time: the band's rows (the
        // halos are the neighbours' to write).
        if k > 1 {
            let b = r1 / r0;
            for (e, p) in p.grid_stride(&grid) {
                if e >= own {
                    *p = alpha * r_read[e - own] + b * *p;
                }
            }
        } else {
            for (e, p) in p.grid_stride(&grid) {
                if e >= own {
                    *p = r_read[e - own];
                }
            }
        }
        let p_read = p.sync(&grid);
        let p_own = &p_read[own..];
        push_halos(p_own, &mut up, &mut down, halo, &mg);
        // Every GPU's halos are written.
        mg.sync();

        spmv(row_offsets, columns, values, alpha, &p_read, &mut ax, &grid);
        let ax_read = ax.sync(&grid);

        store_block_sum(dot_share(p_own, &ax_read, &grid), &partials, &grid, &block);
        let mut r = r_read.into_output(&grid);
        store_grid_sum(&partials, &sums, SUMS_P_AP, &mg, &block);
        mg.sync();

        // x += a p, r -= a A p
        let a = r1 / total(&sums, SUMS_P_AP, &mg);
        for (i, x) in x.grid_stride(&grid) {
            *x = a * p_own[i] + *x;
        }
        let na = -a;
        for (i, r) in r.grid_stride(&grid) {
            *r = na * ax_read[i] + *r;
        }
        r0 = r1;
        r_read = r.sync(&grid);

        store_block_sum(dot_share(&r_read, &r_read, &grid), &partials, &grid, &block);
        ax = ax_read.into_output(&grid);
        store_grid_sum(&partials, &sums, SUMS_R_R, &mg, &block);
        p = p_read.into_output(&mg);

        r1 = total(&sums, SUMS_R_R, &mg);
        k += 1;
    }
    iterations.for_thread(&grid, |n| *n = k - 1);
}
