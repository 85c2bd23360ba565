//! Tiles larger than a warp (64 to 512 threads), and a warp cut from one.

use super::{index, store, Key};
use cg_core::prelude::*;

/// Words per thread written by [`api_multi_warp`].
pub const MW_WORDS: usize = 14;

/// What the probe does with a multi-warp tile or a warp: every operation
/// both have, on this thread's inputs.
struct MultiWarpProbe {
    shared: SharedArray<u32, 1024>,
    block_rank: u32,
    value: u32,
    float: f32,
    vote: bool,
    arg: u32,
}

/// The operations both kinds of tile offer, so one probe body serves both.
trait WideTile: Collective + Copy {
    fn meta(&self) -> (u32, u32);
    fn broadcast(&self, v: u32, src: u32) -> u32;
    fn any_of(&self, p: bool) -> bool;
    fn all_of(&self, p: bool) -> bool;
}

/// `WideTile` from the tile's own methods of the same names.
macro_rules! wide_tile {
    ($([$($generics:tt)*] $tile:ty),*) => {$(
        impl<$($generics)*> WideTile for $tile {
            #[inline(always)]
            fn meta(&self) -> (u32, u32) {
                (self.meta_group_rank(), self.meta_group_size())
            }
            #[inline(always)]
            fn broadcast(&self, v: u32, src: u32) -> u32 {
                self.shfl(v, src)
            }
            #[inline(always)]
            fn any_of(&self, p: bool) -> bool {
                self.any(p)
            }
            #[inline(always)]
            fn all_of(&self, p: bool) -> bool {
                self.all(p)
            }
        }
    )*};
}
wide_tile!([const N: u32] MultiWarpTile<N>, [] ThreadBlockTile<32>);

impl MultiWarpProbe {
    #[inline(always)]
    fn run<G: WideTile>(&self, g: &G) -> [u32; MW_WORDS] {
        let rank = g.thread_rank();
        let n = g.num_threads();
        self.shared
            .set(self.block_rank as usize, self.block_rank + 1);
        g.sync();
        let partner = self
            .shared
            .get((self.block_rank - rank + (rank + 1) % n) as usize);
        let (meta_rank, meta_size) = g.meta();
        [
            rank,
            n,
            meta_rank,
            meta_size,
            partner,
            g.broadcast(self.value, self.arg % n),
            g.any_of(self.vote) as u32,
            g.all_of(self.vote) as u32,
            reduce(g, self.value, Plus),
            reduce(g, self.float, Plus).to_bits(),
            inclusive_scan(g, self.float, Plus).to_bits(),
            exclusive_scan(g, self.float, Plus).to_bits(),
            inclusive_scan(g, self.value, Plus),
            exclusive_scan(g, self.value, Greater),
        ]
    }
}

/// Per thread, [`MW_WORDS`] words for the tile `sel` names, with
/// `v = input[i]`, `f = floats[i]`: `[thread_rank, num_threads,
/// meta_group_rank, meta_group_size, partner, shfl(v, arg % size),
/// any(vote), all(vote), reduce(v, Plus), reduce(f, Plus),
/// inclusive_scan(f, Plus), exclusive_scan(f, Plus), inclusive_scan(v,
/// Plus), exclusive_scan(v, Greater)]` (floats as bits), where `partner` is
/// what the member of the next rank (cyclically) wrote to shared memory
/// before `sync()`: its block rank + 1, and `vote` is [`Key::vote`].
///
/// | `sel` | tile |
/// |---|---|
/// | 0..=3 | `tiled_partition::<{64 << sel}>(&block)` |
/// | 4 | `tiled_partition::<64>(&tiled_partition::<256>(&block))` |
/// | 5 | `tiled_partition::<32>(&tiled_partition::<128>(&block))` |
///
/// The block must hold a whole number of the tiles used (512 threads or a
/// multiple).
#[kernel]
pub fn api_multi_warp(
    input: &[u32],
    floats: &[f32],
    keys: &[u32],
    out: *mut u32,
    sel: u32,
    arg: u32,
) {
    let block = this_thread_block();
    let i = index();
    let probe = MultiWarpProbe {
        shared: shared_array!(u32; 1024),
        block_rank: block.thread_rank(),
        value: input[i],
        float: floats[i],
        vote: Key(keys[i]).vote(),
        arg,
    };
    let words = match sel {
        0 => probe.run(&tiled_partition::<64>(&block)),
        1 => probe.run(&tiled_partition::<128>(&block)),
        2 => probe.run(&tiled_partition::<256>(&block)),
        3 => probe.run(&tiled_partition::<512>(&block)),
        4 => probe.run(&tiled_partition::<64>(&tiled_partition::<256>(&block))),
        5 => probe.run(&tiled_partition::<32>(&tiled_partition::<128>(&block))),
        _ => return,
    };
    store(out, i, words);
}
