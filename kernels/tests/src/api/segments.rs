//! `WarpSegments<N>` against `ThreadBlockTile<N>`: the same operations on
//! the same values, which must give the same bits (the tile's results are
//! judged against CUDA elsewhere).

use super::{index, store};
use cg_core::prelude::*;

/// Words per group kind written by [`api_warp_segments`].
pub const SEGMENT_WORDS: usize = 12;

/// Every operation of a tile on `v` and `f`.
#[inline(always)]
fn probe<G: TileGroup>(g: &G, v: u32, f: f32) -> [u32; SEGMENT_WORDS] {
    let n = g.num_threads();
    [
        g.shfl(v, v % 64),
        g.shfl_up(v, 1),
        g.shfl_down(v, 1),
        g.shfl_xor(v, n / 2),
        g.any(v & 1 != 0) as u32,
        g.all(v & 1 != 0) as u32,
        g.ballot(v & 1 != 0),
        g.match_any(v & 3),
        reduce(g, f, Plus).to_bits(),
        reduce(g, v, Plus),
        inclusive_scan(g, f, Plus).to_bits(),
        exclusive_scan(g, v, Greater),
    ]
}

/// Per thread, for N = 1, 2, 4, 8, 16, 32 in turn: [`SEGMENT_WORDS`] words
/// from `warp.segments::<N>()`, then the same from `tiled_partition::<N>`
/// of the block (`v = input[i]`, `f = floats[i]`). Blocks of whole warps.
#[kernel]
pub fn api_warp_segments(input: &[u32], floats: &[f32], out: *mut u32) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let i = index();
    let (v, f) = (input[i], floats[i]);
    // Thread i's 12 results, one after the other, each stored as it
    // comes (a 144-word array would live in local memory).
    let put = |k: usize, w: [u32; SEGMENT_WORDS]| store(out, 12 * i + k, w);
    put(0, probe(&warp.segments::<1>(), v, f));
    put(1, probe(&tiled_partition::<1>(&block), v, f));
    put(2, probe(&warp.segments::<2>(), v, f));
    put(3, probe(&tiled_partition::<2>(&block), v, f));
    put(4, probe(&warp.segments::<4>(), v, f));
    put(5, probe(&tiled_partition::<4>(&block), v, f));
    put(6, probe(&warp.segments::<8>(), v, f));
    put(7, probe(&tiled_partition::<8>(&block), v, f));
    put(8, probe(&warp.segments::<16>(), v, f));
    put(9, probe(&tiled_partition::<16>(&block), v, f));
    put(10, probe(&warp.segments::<32>(), v, f));
    put(11, probe(&tiled_partition::<32>(&block), v, f));
}
