//! Kernels that expose group queries and warp operations to the GPU tests:
//! each thread writes what it saw, and the host compares every thread with a
//! CPU model of CUDA's semantics.

use cg_core::prelude::*;

/// Per thread, 4 words: block `thread_rank`, block `num_threads`, grid
/// `thread_rank` (low 32 bits), grid `is_valid`; indexed by grid thread rank.
#[kernel]
pub fn probe_groups(out: *mut u32) {
    let block = this_thread_block();
    let grid = this_grid();
    let r = grid.thread_rank() as usize;
    // SAFETY: `out` holds 4 words per thread of the grid (the test's launch):
    // this thread's own 4.
    unsafe {
        *out.add(4 * r) = block.thread_rank();
        *out.add(4 * r + 1) = block.num_threads();
        *out.add(4 * r + 2) = grid.thread_rank() as u32;
        *out.add(4 * r + 3) = grid.is_valid() as u32;
    }
}

/// A kernel with launch bounds (blocks of at most 96 threads, room for 4
/// on a multiprocessor): `out[i] = block.thread_rank() + 1000 *
/// block.num_threads()` for the grid thread rank `i`, so a launch shows the
/// block shape it ran with.
#[kernel(launch_bounds(96, 4))]
pub fn probe_launch_bounds(mut out: Output<u32>) {
    let block = this_thread_block();
    let seen = block.thread_rank() + 1000 * block.num_threads();
    if let Some(o) = out.thread_element(&this_grid()) {
        *o = seen;
    }
}

/// A kernel for blocks of exactly 16 x 4 x 2 threads: `out[i] =
/// block.thread_rank() + 1000 * block.num_threads()` for the grid thread
/// rank `i`, as [`probe_launch_bounds`], where the block's size is a
/// constant of the compiled body.
#[kernel(block_size(16, 4, 2))]
pub fn probe_block_size(mut out: Output<u32>) {
    let block = this_thread_block();
    let seen = block.thread_rank() + 1000 * block.num_threads();
    if let Some(o) = out.thread_element(&this_grid()) {
        *o = seen;
    }
}

/// `out[i] = warp.shfl_down(input[i], delta)` on 32-thread tiles, with `i`
/// the grid thread rank.
#[kernel]
pub fn probe_warp_shfl_down(input: &[u32], out: *mut u32, delta: u32) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let i = this_grid().thread_rank() as usize;
    let v = warp.shfl_down(input[i], delta);
    // SAFETY: `input` and `out` hold one value per thread of the grid (the
    // test's launch; `input[i]` above checked it): this thread's own slot.
    unsafe { *out.add(i) = v };
}

/// A grid barrier between two phases: `out[i] = input[(i + 1) % n]` where
/// `input` was written by other blocks before the barrier. Launched without
/// a cooperative launch (through the raw API), it must trap.
#[kernel(cooperative)]
pub fn probe_grid_rotate(input: *mut u32, out: *mut u32, n: u32) {
    let grid = this_grid();
    let i = grid.thread_rank() as u32;
    if i < n {
        // SAFETY: `input` holds `n` values (the test's launch) and `i < n`:
        // this thread's own slot, read by others only after the grid barrier
        // below.
        unsafe { *input.add(i as usize) = i.wrapping_mul(2_654_435_761) };
    }
    grid.sync();
    if i < n {
        // SAFETY: `out` and `input` hold `n` values and `i < n`: this thread's
        // own slot of `out`; every slot of `input` was written before the grid
        // barrier above.
        unsafe { *out.add(i as usize) = *input.add(((i + 1) % n) as usize) };
    }
}

/// A tile's sum in a function generic over the tile's size, with no
/// bound: `ThreadBlockTile::<N>::partition` as CUDA's `template <int N>`
/// code calls `tiled_partition<N>`.
#[inline(always)]
fn generic_tile_sum<const N: u32>(x: u32) -> u32 {
    let tile = ThreadBlockTile::<N>::partition(&this_thread_block());
    reduce(&tile, x, Plus)
}

/// `out[rank] = ` the sum of `values` over the caller's tile of `N`.
#[kernel(instances(probe_generic_tile_4 = <4>, probe_generic_tile_32 = <32>))]
pub fn probe_generic_tile<const N: u32>(values: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    let rank = grid.thread_rank() as usize;
    let x = values.get(rank).copied().unwrap_or(0);
    let s = generic_tile_sum::<N>(x);
    out.for_thread(&grid, |o| *o = s);
}
