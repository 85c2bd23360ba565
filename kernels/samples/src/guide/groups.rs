//! Groups and tiles: the block, its warps as tiles, a tile's sum.

use cg_core::prelude::*;

// ANCHOR: tile_sums
/// `sums[w]` is the sum of `input` over the 32 threads of warp `w` of the
/// grid (threads past the end add 0): each block splits into tiles of 32,
/// each tile reduces with shuffles, and its leader writes.
#[kernel]
pub fn guide_tile_sums(input: &[u32], mut sums: Output<u32, Leaders<ThreadBlockTile<32>>>) {
    let grid = this_grid();
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let i = grid.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let total = reduce(&warp, x, Plus);
    sums.for_leader(&warp, |s| *s = total);
}
// ANCHOR_END: tile_sums
