//! Group queries and `sync` on every way of making a group.

use super::{index, store, with_group, Key, Probe};
use cg_core::prelude::*;

/// Words per thread written by [`api_group_queries`].
pub const QUERY_WORDS: usize = 6;

/// The lane of the `k`-th member of `mask`.
#[inline(always)]
fn nth_lane(mut mask: u32, k: u32) -> u32 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

struct Queries {
    shared: SharedArray<u32, 1024>,
    block_rank: u32,
}

impl Queries {
    /// Publishes this thread's block rank + 1, synchronizes `g` through
    /// the free `sync`, and reads what the member of the next rank
    /// published.
    #[inline(always)]
    fn after_sync<G: ThreadGroup>(&self, g: &G, partner_block_rank: impl Fn(u32) -> u32) -> u32 {
        self.shared
            .set(self.block_rank as usize, self.block_rank + 1);
        sync(g);
        let next = (g.thread_rank() + 1) % g.num_threads();
        self.shared.get(partner_block_rank(next) as usize)
    }
}

impl Probe for Queries {
    type Out = [u32; QUERY_WORDS];

    #[inline(always)]
    fn group<G: WarpGroup>(&self, g: &G) -> [u32; QUERY_WORDS] {
        let warp_base = self.block_rank & !31;
        let mask = g.mask();
        let partner = self.after_sync(g, |r| warp_base + nth_lane(mask, r));
        [
            g.thread_rank(),
            g.num_threads(),
            mask,
            g.meta_group_rank(),
            g.meta_group_size(),
            partner,
        ]
    }
}

/// Per thread, [`QUERY_WORDS`] words: `[thread_rank, num_threads, mask,
/// meta_group_rank, meta_group_size, partner]` of the group `sel` names,
/// where `partner` is what the member of the next rank (cyclically) wrote
/// to shared memory before `sync(&group)`: its block rank + 1.
///
/// `sel` 0..=20 are those of [`with_group`]; further:
///
/// | `sel` | group |
/// |---|---|
/// | 21..=26 | `tiled_partition::<1 << (sel - 21)>(&tiled_partition::<32>(&block))` |
/// | 27..=32 | `tiled_partition_dynamic(&tiled_partition::<8>(&block), 1 << (sel - 27))` |
/// | 33..=38 | `tiled_partition_dynamic(&tiled_partition_dynamic(&block, 16), 1 << (sel - 33))` |
/// | 39 | the block: `[thread_rank, num_threads, 0, 0, 0, partner]` |
/// | 40 | `this_thread()` |
#[kernel]
pub fn api_group_queries(keys: &[u32], out: *mut u32, sel: u32) {
    let block = this_thread_block();
    let i = index();
    let q = Queries {
        shared: shared_array!(u32; 1024),
        block_rank: block.thread_rank(),
    };
    let words = match sel {
        0..=20 => with_group(sel, Key(keys[i]), &q, core::ptr::null_mut(), i),
        21 => Some(q.tile(&tiled_partition::<1>(&tiled_partition::<32>(&block)))),
        22 => Some(q.tile(&tiled_partition::<2>(&tiled_partition::<32>(&block)))),
        23 => Some(q.tile(&tiled_partition::<4>(&tiled_partition::<32>(&block)))),
        24 => Some(q.tile(&tiled_partition::<8>(&tiled_partition::<32>(&block)))),
        25 => Some(q.tile(&tiled_partition::<16>(&tiled_partition::<32>(&block)))),
        26 => Some(q.tile(&tiled_partition::<32>(&tiled_partition::<32>(&block)))),
        27..=32 => Some(q.tile(&tiled_partition_dynamic(
            &tiled_partition::<8>(&block),
            1 << (sel - 27),
        ))),
        33..=38 => Some(q.tile(&tiled_partition_dynamic(
            &tiled_partition_dynamic(&block, 16),
            1 << (sel - 33),
        ))),
        39 => {
            let n = block.num_threads();
            let partner = q.after_sync(&block, |r| r);
            Some([q.block_rank, n, 0, 0, 0, partner])
        }
        40 => Some(q.tile(&this_thread())),
        _ => None,
    };
    if let Some(w) = words {
        store(out, i, w);
    }
}

/// Per thread, one word: after a split block barrier
/// (`barrier_arrive` + `barrier_wait`), what the thread of block rank
/// `(r + 1) % n` wrote to shared memory before it: its block rank + 1.
#[kernel]
pub fn api_block_split_barrier(out: *mut u32) {
    let block = this_thread_block();
    let shared = shared_array!(u32; 1024);
    let r = block.thread_rank();
    let n = block.num_threads();
    shared.set(r as usize, r + 1);
    let token = block.barrier_arrive();
    block.barrier_wait(token);
    let partner = shared.get(((r + 1) % n) as usize);
    store(out, index(), partner);
}
