//! `thread_block_tile<N>`: a compile-time-sized group of `N` consecutive
//! threads of a block (N = 1, 2, 4, 8, 16 or 32), made by
//! [`tiled_partition`].
//!
//! | method | PTX |
//! |---|---|
//! | `sync` | `bar.warp.sync` |
//! | `shfl`, `shfl_up`, `shfl_down`, `shfl_xor` | `shfl.sync.{idx,up,down,bfly}.b32` |
//! | `any`, `all`, `ballot` | `vote.sync.{any,all,ballot}` |
//!
//! For `N = 32` the member mask is the constant `0xffffffff`; for smaller
//! tiles it is `((1 << N) - 1) << (laneid & !(N - 1))`, as CUDA builds it.
//! Ranks passed to and returned by the operations are ranks in the tile.
//! A size that is not a power of two at most 32 does not compile.
//!
//! The block should hold a whole number of tiles (as in CUDA): in the last,
//! partial warp of a block, lanes past the block's end do not exist and a
//! shuffle that reads one returns an undefined value.

use crate::block::ThreadBlock;
use crate::group::ThreadGroup;
use crate::intrinsics::{self, ShflMode};
use crate::shuffle::{segment_c, shfl_pod};
use bytemuck::Pod;

/// `N` consecutive threads of a block. See the module docs.
#[derive(Clone, Copy)]
pub struct ThreadBlockTile<const N: u32> {
    meta_rank: u32,
    meta_size: u32,
}

struct TileSize<const N: u32>;
impl<const N: u32> TileSize<N> {
    const VALID: () = assert!(
        N.is_power_of_two() && N <= 32,
        "a thread_block_tile size is a power of two at most 32"
    );
}

/// A group that can be split into tiles: a block or a larger tile.
pub trait TileParent: ThreadGroup {
    /// The largest tile this parent can be split into.
    const MAX_TILE: u32;
}

impl TileParent for ThreadBlock {
    const MAX_TILE: u32 = 32;
}

impl<const M: u32> TileParent for ThreadBlockTile<M> {
    const MAX_TILE: u32 = M;
}

struct FitsIn<const N: u32, P>(core::marker::PhantomData<P>);
impl<const N: u32, P: TileParent> FitsIn<N, P> {
    const VALID: () = assert!(
        N <= P::MAX_TILE,
        "a tile is split only into tiles no larger than itself"
    );
}

/// `cg::tiled_partition<N>(parent)`: splits a block, or a larger tile, into
/// tiles of `N` threads; the calling thread gets its own tile.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let quad = tiled_partition::<4>(&warp);
/// ```
#[inline(always)]
pub fn tiled_partition<const N: u32>(parent: &impl TileParent) -> ThreadBlockTile<N> {
    #[allow(clippy::let_unit_value)]
    let () = TileSize::<N>::VALID;
    fits::<N, _>(parent);
    let parent_size = parent.num_threads();
    ThreadBlockTile {
        meta_rank: parent.thread_rank() / N,
        meta_size: parent_size.div_ceil(N),
    }
}

impl<const N: u32> ThreadBlockTile<N> {
    /// The member mask of this tile in its warp (`0xffffffff` for N = 32).
    #[inline(always)]
    pub fn mask(&self) -> u32 {
        if N == 32 {
            u32::MAX
        } else {
            (((1u64 << N) - 1) as u32) << (intrinsics::lane_id() & !(N - 1))
        }
    }

    /// The first lane of this tile in its warp.
    #[inline(always)]
    fn base_lane(&self) -> u32 {
        if N == 32 {
            0
        } else {
            intrinsics::lane_id() & !(N - 1)
        }
    }

    /// How many tiles the parent was split into.
    #[inline(always)]
    pub fn meta_group_size(&self) -> u32 {
        self.meta_size
    }

    /// This tile's index among the parent's tiles.
    #[inline(always)]
    pub fn meta_group_rank(&self) -> u32 {
        self.meta_rank
    }

    /// `tile.shfl(v, src)`: `v` from the thread of rank `src` (taken modulo N).
    #[inline(always)]
    pub fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T {
        shfl_pod(
            ShflMode::Idx,
            value,
            src_rank,
            segment_c(ShflMode::Idx, N),
            self.mask(),
        )
    }

    /// `tile.shfl_up(v, delta)`: `v` from rank `r - delta`; ranks below
    /// `delta` keep their own value.
    #[inline(always)]
    pub fn shfl_up<T: Pod>(&self, value: T, delta: u32) -> T {
        shfl_pod(
            ShflMode::Up,
            value,
            delta,
            segment_c(ShflMode::Up, N),
            self.mask(),
        )
    }

    /// `tile.shfl_down(v, delta)`: `v` from rank `r + delta`; ranks at or
    /// past `N - delta` keep their own value.
    #[inline(always)]
    pub fn shfl_down<T: Pod>(&self, value: T, delta: u32) -> T {
        shfl_pod(
            ShflMode::Down,
            value,
            delta,
            segment_c(ShflMode::Down, N),
            self.mask(),
        )
    }

    /// `tile.shfl_xor(v, lane_mask)`: `v` from rank `r ^ lane_mask`.
    #[inline(always)]
    pub fn shfl_xor<T: Pod>(&self, value: T, lane_mask: u32) -> T {
        shfl_pod(
            ShflMode::Bfly,
            value,
            lane_mask,
            segment_c(ShflMode::Bfly, N),
            self.mask(),
        )
    }

    /// `tile.ballot(pred)`: bit `r` is set when rank `r` has `pred`.
    #[inline(always)]
    pub fn ballot(&self, pred: bool) -> u32 {
        intrinsics::vote_ballot(pred, self.mask()) >> self.base_lane()
    }

    /// `tile.any(pred)`: whether any thread of the tile has `pred`.
    #[inline(always)]
    pub fn any(&self, pred: bool) -> bool {
        intrinsics::vote_any(pred, self.mask())
    }

    /// `tile.all(pred)`: whether every thread of the tile has `pred`.
    #[inline(always)]
    pub fn all(&self, pred: bool) -> bool {
        intrinsics::vote_all(pred, self.mask())
    }
}

impl<const N: u32> ThreadGroup for ThreadBlockTile<N> {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        N
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        intrinsics::lane_id() & (N - 1)
    }

    #[inline(always)]
    fn sync(&self) {
        intrinsics::bar_warp_sync(self.mask())
    }
}

#[inline(always)]
fn fits<const N: u32, P: TileParent>(_: &P) {
    #[allow(clippy::let_unit_value)]
    let () = FitsIn::<N, P>::VALID;
}
