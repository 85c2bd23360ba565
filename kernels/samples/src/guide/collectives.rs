//! Collectives: scans over a tile.

use cg_core::prelude::*;

// ANCHOR: tile_scans
/// Per thread `i` of a launch of whole tiles of 8: `inclusive[i]` is the
/// sum of `input` over its tile's ranks up to and including its own,
/// `exclusive[i]` up to its own, excluded, and `largest[i]` the tile's
/// largest value (threads past the end hold 0).
#[kernel]
pub fn guide_tile_scans(
    input: &[u32],
    mut inclusive: Output<u32>,
    mut exclusive: Output<u32>,
    mut largest: Output<u32>,
) {
    let grid = this_grid();
    let tile = tiled_partition::<8>(&this_thread_block());
    let i = grid.thread_rank() as usize;
    let x = if i < input.len() { input[i] } else { 0 };
    let up_to = inclusive_scan(&tile, x, Plus);
    let before = exclusive_scan(&tile, x, Plus);
    let max = reduce(&tile, x, Greater);
    inclusive.for_thread(&grid, |o| *o = up_to);
    exclusive.for_thread(&grid, |o| *o = before);
    largest.for_thread(&grid, |o| *o = max);
}
// ANCHOR_END: tile_scans
