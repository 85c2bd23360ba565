//! Whole-array sums to one scalar: in one cooperative kernel with
//! `grid.sync()` (plain and vectorised), in one ordinary launch whose last
//! block adds the partials, in two launches, and with one atomic add per
//! element.

use crate::block_reduce::{block_sum, write_block_result, WarpTotals};
use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// After each thread has its partial `v`: block sums to `partials`,
/// `grid.sync()`, block 0 adds the partials into `out[0]`. Both block sums
/// use `totals`, with the grid barrier between them.
#[inline(always)]
fn finish_grid_sum(
    grid: &GridGroup,
    block: &ThreadBlock,
    totals: &WarpTotals,
    v: f32,
    mut partials: Output<f32, Leaders<ThreadBlock>>,
    mut out: Output<f32, Leaders<ThreadBlock>>,
) {
    let s = block_sum(block, totals, v);
    write_block_result(block, &mut partials, s);
    let partials = partials.sync(grid);
    if grid.block_rank() == 0 {
        let s = block_sum(
            block,
            totals,
            block_stride_sum(block, &partials, grid.num_blocks()),
        );
        write_block_result(block, &mut out, s);
    }
}

/// This thread's part of `sum(values[..n])` (`n` clipped to the slice),
/// block-stride.
#[inline(always)]
fn block_stride_sum(block: &ThreadBlock, values: &[f32], n: u32) -> f32 {
    let values = &values[..values.len().min(n as usize)];
    let mut v = 0.0f32;
    for j in block.stride(values.len()) {
        v += values[j];
    }
    v
}

/// `out[0] = sum(input)`: each thread sums a grid-stride slice, one load at
/// a time (the seed's kernel). `partials` holds one value per block.
#[kernel(cooperative, grid_1d)]
pub fn grid_sum(
    input: &[f32],
    partials: Output<f32, Leaders<ThreadBlock>>,
    out: Output<f32, Leaders<ThreadBlock>>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let mut v = 0.0f32;
    for i in grid.stride(input.len()) {
        v += input[i];
    }
    finish_grid_sum(&grid, &block, &shared_array!(f32; 32), v, partials, out);
}

/// This thread's part of `sum(input)` at memory speed: 16-byte loads
/// ([`vectorized`]), two of them in flight per iteration, over a
/// grid-stride walk (`rank` of `stride` threads).
#[inline(always)]
fn vec4_partial(input: &[f32], rank: usize, stride: usize) -> f32 {
    // Device allocations are 256-byte aligned: `head` is empty there.
    let Vectorized { head, body, tail } = vectorized(input);
    let n4 = body.len();
    let (mut a, mut b) = (0.0f32, 0.0f32);
    // A step of `n4` or more takes no second load either: clamped, the
    // compiler sees that `i + step` does not wrap, so both indices below
    // are in bounds by the loop's test.
    let step = stride.min(n4);
    let mut i = rank;
    while i + step < n4 {
        a += body[i].sum();
        b += body[i + step].sum();
        i += 2 * step;
    }
    if i < n4 {
        a += body[i].sum();
    }
    let mut t = rank;
    while t < tail.len() {
        b += tail[t];
        t += stride;
    }
    let mut h = rank;
    while h < head.len() {
        b += head[h];
        h += stride;
    }
    a + b
}

/// `out[0] = sum(input)` at memory speed: 16-byte loads, two of them in
/// flight per thread per iteration, then the cooperative finish.
#[kernel(cooperative, grid_1d)]
pub fn grid_sum_vec4(
    input: &[f32],
    partials: Output<f32, Leaders<ThreadBlock>>,
    out: Output<f32, Leaders<ThreadBlock>>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    finish_grid_sum(&grid, &block, &shared_array!(f32; 32), v, partials, out);
}

/// `out[0] = sum(input)` in one ordinary launch: the 16-byte partials of
/// [`grid_sum_vec4`], block sums to `partials`, and the last block to
/// finish (the one that takes the last ticket of `counter`, a
/// `fetch_add(AcqRel)`) adds them up and resets `counter` to 0 (CUDA's
/// "threadFenceReduction"). `counter` is 0 before the first launch.
#[kernel(grid_1d)]
pub fn sum_last_block(
    input: &[f32],
    partials: Output<f32, Leaders<ThreadBlock>>,
    counter: AtomicSlice<u32>,
    out: AtomicSlice<f32>,
) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    // Both block sums use `totals`, with the barrier before `last` is read
    // between them.
    let totals = shared_array!(f32; 32);
    let s = block_sum(&block, &totals, v);
    // Every block's leader writes its sum and takes a ticket; the block
    // that takes the last one adds the partials.
    if let Some(partials) = partials.sync_last_block(&grid, &block, s, counter.at(0)) {
        let nb = grid.num_blocks();
        let s = block_sum(&block, &totals, block_stride_sum(&block, &partials, nb));
        if block.thread_rank() == 0 {
            out.at(0).store(s, Ordering::Relaxed);
        }
    }
}

/// First launch of the two-launch sum: the 16-byte grid-stride partials
/// of [`grid_sum_vec4`] on a grid that fills the GPU once, one block sum per
/// block into `partials`.
#[kernel(grid_1d)]
pub fn sum_block_partials(input: &[f32], mut partials: Output<f32, Leaders<ThreadBlock>>) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    let s = block_sum(&block, &shared_array!(f32; 32), v);
    write_block_result(&block, &mut partials, s);
}

/// Second launch of the two-launch sum: one block adds the block partials
/// into `out[0]`.
#[kernel(grid_1d)]
pub fn sum_partials(partials: &[f32], mut out: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let v = block_stride_sum(&block, partials, u32::MAX);
    let s = block_sum(&block, &shared_array!(f32; 32), v);
    write_block_result(&block, &mut out, s);
}

/// `out[0] += input[i]` by every thread, atomically: the baseline.
#[kernel(grid_1d)]
pub fn sum_atomic(input: &[f32], out: AtomicSlice<f32>) {
    let block = this_thread_block();
    let i = block.group_index().x as usize * block.num_threads() as usize
        + block.thread_rank() as usize;
    if let Some(&x) = input.get(i) {
        out.at(0).add(x, Ordering::Relaxed);
    }
}
