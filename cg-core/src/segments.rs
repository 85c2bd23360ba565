//! Converged warp segments: the tiles of a whole warp at full-warp speed.
//!
//! A [`ThreadBlockTile<N>`](crate::tile::ThreadBlockTile) with `N < 32`
//! issues its instructions with its own lanes as the member mask, as CUDA's
//! `thread_block_tile<N>` does, so a tile may run while its neighbours in
//! the warp are elsewhere. The price: a warp whose tiles all run the same
//! code issues each `shfl.sync` once per distinct mask (eight times for
//! tiles of 4), because the lanes disagree on the mask.
//!
//! [`WarpSegments<N>`] is the same partition for the common case where the
//! whole warp runs together: every instruction carries the full-warp mask
//! `0xffffffff`, and the segment width goes into the shuffle's `c`
//! operand (`((32 - N) << 8) | clamp`), so one `shfl.sync` serves every
//! segment of the warp. Votes and matches run over the warp and are cut to
//! the segment. The contract is the one a `ThreadBlockTile<32>` already
//! has: **every lane of the warp calls each operation together** (a segment
//! alone in a branch is undefined, as a lone lane of a 32-thread tile is).
//! The only way to get one is from a whole-warp tile, [`ThreadBlockTile<32>::segments`],
//! which checks with `activemask` that the warp is complete and traps if not.
//!
//! | operation | `ThreadBlockTile<4>` | `WarpSegments<4>` |
//! |---|---|---|
//! | `shfl_down(v, 1)` | `shfl.sync.down` with mask `0xf << base` | `shfl.sync.down` with mask `-1`, `c = 0x1c1f` |
//! | `reduce` of `u32` | `redux.sync` with the tile's mask | butterfly of full-warp shuffles |
//! | `ballot` | `vote.sync.ballot` with the tile's mask | `vote.sync.ballot` with `-1`, shifted to the segment |

use crate::group::sealed::{self, WarpLanes as _};
use crate::group::{sealed_groups, GroupSync, ThreadGroup, TileGroup, WarpGroup};
use crate::intrinsics::{self, ShflMode};
use crate::lanes;
use crate::shuffle::{match_any_pod, segment_c, shfl_pod};
use crate::tile::ThreadBlockTile;
use bytemuck::Pod;

/// The `N`-lane segments of a converged warp, each acting as a tile (see
/// the module docs); from [`ThreadBlockTile<32>::segments`].
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let quad = warp.segments::<4>();
/// v += quad.shfl_down(v, 2);     // one shfl.sync for the whole warp
/// v += quad.shfl_down(v, 1);
/// ```
#[derive(Clone, Copy)]
pub struct WarpSegments<const N: u32> {
    _private: (),
}

struct SegmentSize<const N: u32>;
impl<const N: u32> SegmentSize<N> {
    const VALID: () = assert!(
        N.is_power_of_two() && N <= 32,
        "a warp segment is a power of two at most 32 lanes"
    );
}

impl ThreadBlockTile<32> {
    /// This warp cut into `N`-lane segments that act as tiles at
    /// full-warp speed (see [`WarpSegments`]). Every lane of the warp must
    /// call it, and every operation of the result, together; traps when
    /// some lanes of the warp are not here (`activemask`).
    #[inline(always)]
    pub fn segments<const N: u32>(&self) -> WarpSegments<N> {
        #[allow(clippy::let_unit_value)]
        let () = SegmentSize::<N>::VALID;
        if intrinsics::activemask() != u32::MAX {
            intrinsics::trap();
        }
        // Every lane of the warp is here: the full-warp mask of the
        // segments' instructions holds every caller.
        WarpSegments { _private: () }
    }
}

impl<const N: u32> WarpSegments<N> {
    /// The lane of the caller's segment's rank 0.
    #[inline(always)]
    fn base_lane() -> u32 {
        lanes::segment_base(N, intrinsics::lane_id())
    }

    /// The segment's lanes in the warp.
    #[inline(always)]
    fn lanes() -> u32 {
        lanes::segment_lanes(N, intrinsics::lane_id())
    }

    /// A full-warp `shfl.sync` cut into segments of `N` lanes.
    #[inline(always)]
    fn shuffle<T: Pod>(mode: ShflMode, value: T, b: u32) -> T {
        // SAFETY: the whole warp calls every operation together (the
        // contract of `WarpSegments`, whose warp was complete when it was
        // made): the full mask holds every caller.
        unsafe { shfl_pod(mode, value, b, segment_c(mode, N), u32::MAX) }
    }

    /// `vote.sync.ballot` over the whole warp.
    #[inline(always)]
    fn warp_ballot(pred: bool) -> u32 {
        // SAFETY: as for `shuffle`.
        unsafe { intrinsics::vote_ballot(pred, u32::MAX) }
    }

    /// `match.any.sync` over the whole warp.
    #[inline(always)]
    fn warp_match_any<T: Pod>(value: T) -> u32 {
        // SAFETY: as for `shuffle`.
        unsafe { match_any_pod(value, u32::MAX) }
    }
}

sealed_groups!([const N: u32] WarpSegments<N>);

impl<const N: u32> GroupSync for WarpSegments<N> {
    /// `bar.warp.sync 0xffffffff`: the whole warp (which holds the segment).
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: as for `shuffle`.
        unsafe { intrinsics::bar_warp_sync(u32::MAX) }
    }
}

impl<const N: u32> ThreadGroup for WarpSegments<N> {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        N
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        lanes::segment_rank(N, intrinsics::lane_id())
    }
}

impl<const N: u32> sealed::WarpLanes for WarpSegments<N> {
    /// The whole warp: every instruction is issued by all 32 lanes.
    #[inline(always)]
    fn sync_mask(&self) -> u32 {
        u32::MAX
    }

    #[inline(always)]
    fn lanes_to_ranks(&self, lanes: u32) -> u32 {
        (lanes & Self::lanes()) >> Self::base_lane()
    }

    #[inline(always)]
    fn segment_width(&self) -> Option<u32> {
        Some(N)
    }
}

impl<const N: u32> WarpGroup for WarpSegments<N> {
    #[inline(always)]
    fn mask(&self) -> u32 {
        Self::lanes()
    }

    #[inline(always)]
    fn meta_group_size(&self) -> u32 {
        32 / N
    }

    #[inline(always)]
    fn meta_group_rank(&self) -> u32 {
        intrinsics::lane_id() / N
    }

    #[inline(always)]
    fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T {
        Self::shuffle(ShflMode::Idx, value, src_rank)
    }

    #[inline(always)]
    fn shfl_up<T: Pod>(&self, value: T, delta: u32) -> T {
        Self::shuffle(ShflMode::Up, value, delta)
    }

    #[inline(always)]
    fn shfl_down<T: Pod>(&self, value: T, delta: u32) -> T {
        Self::shuffle(ShflMode::Down, value, delta)
    }

    #[inline(always)]
    fn any(&self, pred: bool) -> bool {
        Self::warp_ballot(pred) & Self::lanes() != 0
    }

    #[inline(always)]
    fn all(&self, pred: bool) -> bool {
        Self::warp_ballot(pred) & Self::lanes() == Self::lanes()
    }

    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        self.lanes_to_ranks(Self::warp_ballot(pred))
    }

    #[inline(always)]
    fn match_any<T: Pod>(&self, value: T) -> u32 {
        self.lanes_to_ranks(Self::warp_match_any(value))
    }

    #[inline(always)]
    fn match_all<T: Pod>(&self, value: T) -> Option<u32> {
        let same = Self::warp_match_any(value) & Self::lanes();
        (same == Self::lanes()).then(|| self.lanes_to_ranks(same))
    }
}

impl<const N: u32> TileGroup for WarpSegments<N> {
    #[inline(always)]
    fn shfl_xor<T: Pod>(&self, value: T, lane_mask: u32) -> T {
        Self::shuffle(ShflMode::Bfly, value, lane_mask)
    }
}
