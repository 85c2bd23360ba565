//! Tiles larger than a warp: `thread_block_tile<N>` for N = 64, 128, 256
//! and 512 (CUDA 12's multi-warp tiles, sm_80 and newer).
//!
//! ```text
//! ThreadBlock
//! └─ MultiWarpTile<256>        tiled_partition::<256>(&block)
//!    ├─ MultiWarpTile<64>      tiled_partition::<64>(&tile256)
//!    └─ ThreadBlockTile<32>    tiled_partition::<32>(&tile256)  (a warp, meta group of the tile)
//! ```
//!
//! A multi-warp tile has the queries, `sync`, a broadcast `shfl` (the
//! source rank is the same in every thread), `any`, `all`, and `reduce`,
//! `inclusive_scan` and `exclusive_scan` for values of at most 8 bytes
//! (CUDA's limits). Its collectives work in two levels, as CUDA's do: each
//! warp combines its values (the warp-level collective, with the same
//! combine order), one 8-byte slot per warp in shared memory carries the
//! warp results, and the first `N / 32` lanes of every warp combine those
//! with a tile of `N / 32` lanes. A float `reduce(&tile, x, Plus)` therefore
//! has the bits of nvcc's `cg::reduce` on the same tile.
//!
//! The barrier is a word of arrival bits in shared memory, one word per
//! tile size and one bit per warp: lane 0 of each warp sets its bit
//! (`atom.acq_rel.cta.shared.or`); the warp that completes the tile's bits
//! clears them, and the others spin (`ld.acquire.cta.shared`) until their
//! bit is clear. The words and slots take 272 bytes of static shared memory
//! in kernels that use multi-warp tiles, and nothing in others.
//!
//! Cutting a multi-warp tile is collective over the parent: each warp
//! clears its bit, then the parent synchronizes once (CUDA does the same).
//! The block must hold a whole number of tiles (CUDA's rule too); a block
//! that does not traps at `tiled_partition` instead of hanging at the
//! first `sync`.

use crate::block::this_thread_block;
use crate::collectives::{butterfly, segment_inclusive_scan, Collective, Operator};
use crate::group::{sealed_groups, GroupSync, ThreadGroup};
use crate::intrinsics::{self, ShflMode};
use crate::lanes;
use crate::shared::{ld_shared, st_shared};
use crate::shuffle::{segment_c, shfl_pod};
use crate::tile::TileParent;
use bytemuck::Pod;
use core::mem::size_of;

/// `N` consecutive threads of a block, N = 64, 128, 256 or 512
/// (`thread_block_tile<N>` with `N > 32`), from
/// [`tiled_partition::<N>`](crate::tile::tiled_partition). See the module
/// docs.
///
/// ```ignore
/// let block = this_thread_block();
/// let tile = tiled_partition::<128>(&block);
/// let total = reduce(&tile, x, Plus);                // every thread of the 128
/// let first = tile.shfl(x, 0);                       // a broadcast from rank 0
/// let warp = tiled_partition::<32>(&tile);           // meta group 0..4 of the tile
/// ```
#[derive(Clone, Copy)]
pub struct MultiWarpTile<const N: u32> {
    meta_rank: u32,
    meta_size: u32,
}

/// This block's multi-warp scratch: 4 arrival words (one per tile size),
/// then 32 slots of 8 bytes (one per warp).
#[derive(Clone, Copy)]
struct Scratch {
    base: u32,
}

impl Scratch {
    #[inline(always)]
    fn get() -> Self {
        let words = crate::shared_array!(u64; 2 + 32);
        Scratch {
            base: words.shared_addr(),
        }
    }

    /// The arrival word of tiles of `n` threads.
    #[inline(always)]
    fn arrivals(self, n: u32) -> u32 {
        self.base + 4 * (n / 64).trailing_zeros()
    }

    /// The slot of the block's warp `warp`.
    #[inline(always)]
    fn slot(self, warp: u32) -> u32 {
        self.base + 16 + 8 * warp
    }
}

struct ValueSize<T>(T);
impl<T> ValueSize<T> {
    const AT_MOST_8_BYTES: () = assert!(
        size_of::<T>() <= 8,
        "collectives of a tile larger than 32 threads move at most 8 bytes (CUDA's limit)"
    );
}

impl<const N: u32> MultiWarpTile<N> {
    const WARPS: u32 = N / 32;

    /// `tiled_partition::<N>(parent)` for a tile of 64 to 512 threads,
    /// with no bound to write in generic code (the multi-warp counterpart
    /// of [`ThreadBlockTile::partition`](crate::tile::ThreadBlockTile::partition)):
    /// collective over `parent`, which must hold a whole number of tiles.
    /// A size that is not 64, 128, 256 or 512, or larger than `parent`,
    /// fails the build where the function is instantiated.
    #[inline(always)]
    pub fn partition<P: TileParent>(parent: &P) -> Self {
        const {
            assert!(
                N.is_power_of_two() && N >= 64 && N <= 512,
                "a MultiWarpTile has 64, 128, 256 or 512 threads (ThreadBlockTile for 1 to 32)"
            )
        };
        const {
            assert!(
                N <= P::MAX_TILE,
                "a tile is split only into tiles no larger than itself"
            )
        };
        Self::cut(parent)
    }

    /// Cuts the caller's tile out of `parent` (a block or a larger
    /// multi-warp tile); collective over the parent.
    #[inline(always)]
    pub(crate) fn cut<P: ThreadGroup>(parent: &P) -> Self {
        if parent.num_threads() & (N - 1) != 0 {
            // CUDA's rule: the parent holds a whole number of tiles. A
            // partial tile would wait forever for warps that do not exist.
            crate::fault::check_failed(
                "tiled_partition::<N>() of a multi-warp tile: the parent's size is not a multiple of N",
            );
        }
        let scratch = Scratch::get();
        if intrinsics::lane_id() == 0 {
            // SAFETY: the arrival word lies in the scratch array; only this
            // warp writes its own bit, and it is in no barrier now.
            unsafe {
                intrinsics::red_and_relaxed_cta_shared(
                    scratch.arrivals(N),
                    !(1 << Self::block_warp()),
                )
            };
        }
        parent.sync();
        MultiWarpTile {
            meta_rank: parent.thread_rank() / N,
            meta_size: parent.num_threads() / N,
        }
    }

    /// The caller's warp among the block's warps.
    #[inline(always)]
    fn block_warp() -> u32 {
        this_thread_block().thread_rank() / 32
    }

    /// The block warp index of this tile's first warp.
    #[inline(always)]
    fn first_warp() -> u32 {
        lanes::first_warp_of_tile(this_thread_block().thread_rank(), N)
    }

    /// The caller's warp within the tile.
    #[inline(always)]
    fn warp_in_tile() -> u32 {
        Self::block_warp() - Self::first_warp()
    }

    /// `meta_group_size()`: how many tiles the parent was split into.
    #[inline(always)]
    pub fn meta_group_size(&self) -> u32 {
        self.meta_size
    }

    /// `meta_group_rank()`: this tile's index among the parent's tiles.
    #[inline(always)]
    pub fn meta_group_rank(&self) -> u32 {
        self.meta_rank
    }

    /// `tile.shfl(v, src_rank)`: every thread gets `value` of the thread of
    /// rank `src_rank % N`. As in CUDA, `src_rank` must be the same in every
    /// thread of the tile (a broadcast); a warp whose lanes pass different
    /// sources traps. `T` is at most 8 bytes.
    #[inline(always)]
    pub fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T {
        #[allow(clippy::let_unit_value)]
        let () = ValueSize::<T>::AT_MOST_8_BYTES;
        let src = src_rank % N;
        // SAFETY: the tile's warps are whole (its parent holds a whole
        // number of tiles, checked when it was cut) and every thread of the
        // tile calls its operations together: the full mask holds every
        // caller.
        if unsafe { intrinsics::match_all_b32(src, u32::MAX) }.is_none() {
            crate::fault::check_failed(
                "MultiWarpTile::shfl: the source rank differs between the lanes of a warp (it must be the same in every thread)",
            );
        }
        let slot = Scratch::get().slot(Self::first_warp() + src / 32);
        if self.thread_rank() == src {
            // SAFETY: the source warp's slot, read only after the barrier.
            unsafe { st_shared(slot, value) };
        }
        self.sync();
        // SAFETY: written before the barrier above.
        let out = unsafe { ld_shared(slot) };
        // Nobody writes the slot again before every thread has read it.
        self.sync();
        out
    }

    /// `tile.any(pred)`: whether `pred` holds for any thread of the tile.
    #[inline(always)]
    pub fn any(&self, pred: bool) -> bool {
        // SAFETY: whole warps that call together, as in `shfl`.
        self.vote(
            unsafe { intrinsics::vote_any(pred, u32::MAX) },
            false,
            |v| {
                // SAFETY: as above.
                unsafe { intrinsics::vote_any(v, u32::MAX) }
            },
        )
    }

    /// `tile.all(pred)`: whether `pred` holds for every thread of the tile.
    #[inline(always)]
    pub fn all(&self, pred: bool) -> bool {
        // SAFETY: whole warps that call together, as in `shfl`.
        self.vote(unsafe { intrinsics::vote_all(pred, u32::MAX) }, true, |v| {
            // SAFETY: as above.
            unsafe { intrinsics::vote_all(v, u32::MAX) }
        })
    }

    /// Combines one flag per warp: each warp's lane 0 publishes `warp`,
    /// then every warp votes over the published flags with `combine`
    /// (lanes past the tile's warps vote `pad`).
    #[inline(always)]
    fn vote(&self, warp: bool, pad: bool, combine: impl Fn(bool) -> bool) -> bool {
        let scratch = Scratch::get();
        let lane = intrinsics::lane_id();
        if lane == 0 {
            // SAFETY: this warp's slot, read by the tile after the barrier.
            unsafe { st_shared(scratch.slot(Self::block_warp()), warp as u32) };
        }
        self.sync();
        let flag = if lane < Self::WARPS {
            // SAFETY: the tile's warps wrote these slots before the barrier.
            unsafe { ld_shared::<u32>(scratch.slot(Self::first_warp() + lane)) != 0 }
        } else {
            pad
        };
        let out = combine(flag);
        self.sync();
        out
    }

    /// Publishes one value per warp (from `lane`), then gives every lane
    /// `l < N / 32` the value of the tile's warp `l` (others: `value`).
    #[inline(always)]
    fn exchange<T: Pod>(&self, value: T, lane: u32) -> T {
        let scratch = Scratch::get();
        if intrinsics::lane_id() == lane {
            // SAFETY: this warp's slot (T is at most 8 bytes), read by the
            // tile after the barrier.
            unsafe { st_shared(scratch.slot(Self::block_warp()), value) };
        }
        self.sync();
        let l = intrinsics::lane_id();
        let out = if l < Self::WARPS {
            // SAFETY: written before the barrier.
            unsafe { ld_shared(scratch.slot(Self::first_warp() + l)) }
        } else {
            value
        };
        // The slots are free again only when every warp has read them.
        self.sync();
        out
    }

    /// The warp the caller is in, as a tile of this tile.
    #[inline(always)]
    fn warp(&self) -> crate::tile::ThreadBlockTile<32> {
        crate::tile::ThreadBlockTile::with_meta(Self::warp_in_tile(), Self::WARPS)
    }
}

sealed_groups!([const N: u32] MultiWarpTile<N>);

impl<const N: u32> GroupSync for MultiWarpTile<N> {
    /// The tile's barrier: `bar.warp.sync`, then lane 0 of each warp
    /// arrives on the tile size's arrival word (see the module docs), then
    /// `bar.warp.sync`.
    #[inline(always)]
    fn sync(&self) {
        let word = Scratch::get().arrivals(N);
        let bit = 1u32 << Self::block_warp();
        let group = lanes::warp_run(Self::WARPS, Self::first_warp());
        // SAFETY: whole warps that call together, as in `shfl`.
        unsafe { intrinsics::bar_warp_sync(u32::MAX) };
        if intrinsics::lane_id() == 0 {
            // SAFETY: the arrival word lies in the scratch array; every warp
            // touches only its own bit, and the warp completing the tile
            // clears the tile's bits.
            unsafe {
                let old = intrinsics::atom_or_acq_rel_cta_shared(word, bit);
                if (old | bit) & group == group {
                    intrinsics::red_and_relaxed_cta_shared(word, !group);
                } else {
                    while intrinsics::ld_acquire_cta_shared(word) & bit != 0 {}
                }
            }
        }
        // SAFETY: as above.
        unsafe { intrinsics::bar_warp_sync(u32::MAX) };
    }
}

impl<const N: u32> ThreadGroup for MultiWarpTile<N> {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        N
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        this_thread_block().thread_rank() % N
    }
}

impl<const N: u32> crate::collectives::sealed::Sealed for MultiWarpTile<N> {}

impl<const N: u32> Collective for MultiWarpTile<N> {
    #[inline(always)]
    fn reduce_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
        #[allow(clippy::let_unit_value)]
        let () = ValueSize::<T>::AT_MOST_8_BYTES;
        let partial = self.warp().reduce_with(value, op);
        let partials = self.exchange(partial, 0);
        // Lanes 0..N/32 hold the warp results: a tile of N/32 lanes
        // combines them (the other lanes' segments are discarded).
        // SAFETY: whole warps that call together, as in `shfl`.
        unsafe {
            let total = butterfly(partials, op, Self::WARPS, u32::MAX);
            shfl_pod(
                ShflMode::Idx,
                total,
                0,
                segment_c(ShflMode::Idx, 32),
                u32::MAX,
            )
        }
    }

    #[inline(always)]
    fn inclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
        self.scan(value, op, false)
    }

    #[inline(always)]
    fn exclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
        self.scan(value, op, true)
    }
}

impl<const N: u32> MultiWarpTile<N> {
    /// CUDA's two-level scan: each warp scans, the warp totals are
    /// scanned exclusively by a tile of N/32 lanes, and each warp after the
    /// first combines its scan with the total of the warps before it.
    #[inline(always)]
    fn scan<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op, exclusive: bool) -> T {
        #[allow(clippy::let_unit_value)]
        let () = ValueSize::<T>::AT_MOST_8_BYTES;
        let warp = self.warp();
        let mut in_warp = warp.inclusive_scan_with(value, op);
        let totals = self.exchange(in_warp, 31);
        let lane = intrinsics::lane_id();
        let w = Self::warp_in_tile();
        // SAFETY: whole warps that call together, as in `shfl`.
        let prior = unsafe {
            if exclusive {
                in_warp = shfl_pod(
                    ShflMode::Up,
                    in_warp,
                    1,
                    segment_c(ShflMode::Up, 32),
                    u32::MAX,
                );
            }
            let running = segment_inclusive_scan(totals, op, Self::WARPS);
            let before = shfl_pod(
                ShflMode::Up,
                running,
                1,
                segment_c(ShflMode::Up, Self::WARPS),
                u32::MAX,
            );
            let before = if lane & (Self::WARPS - 1) == 0 {
                T::zeroed()
            } else {
                before
            };
            shfl_pod(
                ShflMode::Idx,
                before,
                w,
                segment_c(ShflMode::Idx, 32),
                u32::MAX,
            )
        };
        if exclusive && lane == 0 {
            prior
        } else if w == 0 {
            in_warp
        } else if Op::CUDA_ORDER {
            op.apply(in_warp, prior)
        } else {
            op.apply(prior, in_warp)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;

    #[test]
    fn the_scratch_words_and_slots_do_not_overlap_and_fit_in_272_bytes() {
        let s = Scratch { base: 0 };
        let words: std::vec::Vec<u32> = [64, 128, 256, 512].map(|n| s.arrivals(n)).to_vec();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(*w, 4 * i as u32, "one 4-byte arrival word per tile size");
        }
        for warp in 0..32 {
            let slot = s.slot(warp);
            assert!(
                slot >= 16 && slot.is_multiple_of(8),
                "slots follow the words, 8-byte aligned"
            );
            assert!(slot + 8 <= core::mem::size_of::<[u64; 2 + 32]>() as u32);
        }
        assert_eq!(s.slot(31) + 8, 272);
    }
}
