//! Generic kernels: instances, and a function generic over a tile size.

use cg_core::prelude::*;

// ANCHOR: fill
/// `out[i] = value` for every element: one entry point per listed
/// instance, each with a typed handle of its own.
#[kernel(instances(guide_fill_u32 = <u32>, guide_fill_f64 = <f64>))]
pub fn guide_fill<T: Pod>(value: T, mut out: Output<T>) {
    for (_, o) in out.grid_stride(&this_grid()) {
        *o = value;
    }
}
// ANCHOR_END: fill

// ANCHOR: tile_sum
/// The sum of `x` over this thread's tile of `N` threads: what CUDA's
/// `template <int N>` code writes with `tiled_partition<N>`.
#[inline(always)]
fn tile_sum<const N: u32>(x: u32) -> u32 {
    let tile = ThreadBlockTile::<N>::partition(&this_thread_block());
    reduce(&tile, x, Plus)
}

/// `out[i]`: the sum of `input` over thread `i`'s tile of 4 plus 1000
/// times the sum over its tile of 16 (a launch of whole tiles of 16).
#[kernel]
pub fn guide_tile_sizes(input: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    let i = grid.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let (four, sixteen) = (tile_sum::<4>(x), tile_sum::<16>(x));
    out.for_thread(&grid, |o| *o = four + 1000 * sixteen);
}
// ANCHOR_END: tile_sum
