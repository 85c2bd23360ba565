//! What thread groups have in common: the traits generic code is written
//! against, and the free function [`sync`].
//!
//! ```text
//! GroupSync      sync()                               every group, the grid included
//! └─ ThreadGroup num_threads(), thread_rank()         groups inside one block (CUDA's thread_group)
//!    └─ WarpGroup shfl*, any, all, ballot, match_*    groups inside one warp: tiles, coalesced groups
//!       └─ TileGroup shfl_xor                         tiles (aligned runs of lanes)
//! ```
//!
//! Ranks and sizes of groups inside a block are `u32`; the grid's are `u64`
//! (as in CUDA), which is why [`GridGroup`](crate::grid::GridGroup) has
//! only [`GroupSync`].
//!
//! The traits are sealed: only this crate's group types implement them,
//! because their operations trust what a group says about its lanes (a
//! member mask that did not hold the caller would make the warp
//! instructions undefined).

use crate::intrinsics;
use crate::shuffle::{match_all_pod, match_any_pod};
use bytemuck::Pod;

/// `meta_group_size` and `meta_group_rank` of a group that keeps them in
/// `meta_size` and `meta_rank` fields (tiles and coalesced groups).
macro_rules! meta_group_from_fields {
    () => {
        #[inline(always)]
        fn meta_group_size(&self) -> u32 {
            self.meta_size
        }

        #[inline(always)]
        fn meta_group_rank(&self) -> u32 {
            self.meta_rank
        }
    };
}
pub(crate) use meta_group_from_fields;

/// A 3-D extent or index (`dim3` in CUDA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

impl From<[u32; 3]> for Dim3 {
    #[inline(always)]
    fn from([x, y, z]: [u32; 3]) -> Self {
        Dim3 { x, y, z }
    }
}

impl Dim3 {
    /// `x * y * z`.
    #[inline(always)]
    pub fn volume(self) -> u32 {
        self.x * self.y * self.z
    }

    /// The linear rank of `index` inside this extent, x fastest.
    #[inline(always)]
    pub fn linear(self, index: Dim3) -> u32 {
        (index.z * self.y + index.y) * self.x + index.x
    }
}

pub(crate) mod sealed {
    /// Keeps the group traits to this crate's group types.
    pub trait Sealed {}

    /// What the [`WarpGroup`](super::WarpGroup) operations are computed
    /// from: hooks of this crate's warp groups, not part of the API.
    pub trait WarpLanes {
        /// The member mask of the instructions the group issues: its own
        /// lanes, except for
        /// [`WarpSegments`](crate::segments::WarpSegments), whose whole warp
        /// issues every instruction together.
        fn sync_mask(&self) -> u32;

        /// Turns a set of the group's lanes into the same set of group ranks
        /// (the inverse of the rank-to-lane mapping, applied bit by bit).
        fn lanes_to_ranks(&self, lanes: u32) -> u32;

        /// `Some(w)` when the group is exactly the aligned segment of `w`
        /// lanes that holds the caller, with rank = lane mod `w` (tiles; a
        /// coalesced group of the whole warp). Collectives then use
        /// butterfly shuffles.
        fn segment_width(&self) -> Option<u32>;
    }
}

/// Implements the seal for group types.
macro_rules! sealed_groups {
    ($([$($generics:tt)*] $group:ty),* $(,)?) => {$(
        impl<$($generics)*> $crate::group::sealed::Sealed for $group {}
    )*};
}
pub(crate) use sealed_groups;

/// A group with a barrier: every group type, the grid included. Sealed (see
/// the module docs).
pub trait GroupSync: sealed::Sealed {
    /// Barrier over the group's threads, with memory ordering among them:
    /// writes before it are visible to the group's threads after it.
    ///
    /// | group | PTX |
    /// |---|---|
    /// | block | `bar.sync 0` |
    /// | tile, coalesced group | `bar.warp.sync mask` |
    /// | grid | `bar.sync`, then an atomic arrive and spin on the grid workspace |
    fn sync(&self);
}

/// `cg::sync(group)`: the free-function form of [`GroupSync::sync`].
///
/// ```ignore
/// let block = this_thread_block();
/// shared.set(block.thread_rank() as usize, v);
/// sync(&block);
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync<G: GroupSync>(group: &G) {
    group.sync()
}

/// A group of threads inside one block (CUDA's `thread_group`): the block,
/// its tiles and coalesced groups. Generic code can take any of them:
///
/// ```ignore
/// fn leader_writes<G: ThreadGroup>(g: &G, out: *mut u32, v: u32) {
///     if g.thread_rank() == 0 { unsafe { *out = v } }
///     g.sync();
/// }
/// ```
pub trait ThreadGroup: GroupSync {
    /// Number of threads in the group (`num_threads()`).
    fn num_threads(&self) -> u32;

    /// This thread's rank in the group, `0..num_threads()`.
    fn thread_rank(&self) -> u32;

    /// `size()`: CUDA's older name for [`num_threads`](Self::num_threads).
    #[inline(always)]
    fn size(&self) -> u32 {
        self.num_threads()
    }
}

/// A group whose threads all lie in one warp: [`ThreadBlockTile`],
/// [`DynamicTile`], [`CoalescedGroup`] and [`WarpSegments`]. Its operations
/// are the warp's `.sync` instructions with the group's member mask; every
/// rank taken or returned is a rank in the group, and every bit mask
/// returned has bit `r` for rank `r`.
///
/// Every member must call an operation (they are collective, like CUDA's);
/// threads outside the group must not.
///
/// ```ignore
/// let tile = tiled_partition::<8>(&this_thread_block());
/// let left = tile.shfl_up(v, 1);                 // shfl.sync.up.b32
/// let voters = tile.ballot(v > 0.0);             // vote.sync.ballot.b32, bits by rank
/// let same = tile.match_any(key);                // match.any.sync.b32
/// ```
///
/// [`ThreadBlockTile`]: crate::tile::ThreadBlockTile
/// [`DynamicTile`]: crate::tile::DynamicTile
/// [`CoalescedGroup`]: crate::coalesced::CoalescedGroup
/// [`WarpSegments`]: crate::segments::WarpSegments
pub trait WarpGroup:
    ThreadGroup + Copy + crate::collectives::Collective + sealed::WarpLanes
{
    /// The group's lanes in the warp: bit `l` is set when lane `l` is a
    /// member (a query; CUDA keeps it internal).
    fn mask(&self) -> u32;

    /// How many groups the parent was split into (`meta_group_size()`).
    fn meta_group_size(&self) -> u32;

    /// This group's index among the parent's groups (`meta_group_rank()`).
    fn meta_group_rank(&self) -> u32;

    /// `g.shfl(v, src_rank)`: `v` of the member of rank `src_rank`. Tiles
    /// take `src_rank` modulo their size; a coalesced group needs
    /// `src_rank < num_threads()` (as in CUDA).
    fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T;

    /// `g.shfl_up(v, delta)`: `v` of rank `thread_rank() - delta`; ranks
    /// below `delta` get their own `v` back.
    fn shfl_up<T: Pod>(&self, value: T, delta: u32) -> T;

    /// `g.shfl_down(v, delta)`: `v` of rank `thread_rank() + delta`; ranks
    /// with no such member get their own `v` back.
    fn shfl_down<T: Pod>(&self, value: T, delta: u32) -> T;

    /// `g.any(pred)`: whether `pred` holds for any member
    /// (`vote.sync.any.pred`).
    #[inline(always)]
    fn any(&self, pred: bool) -> bool {
        // SAFETY: the group's lanes hold the caller (every group value is
        // made for the lanes it holds), and its members call together
        // (this trait's contract).
        unsafe { intrinsics::vote_any(pred, self.mask()) }
    }

    /// `g.all(pred)`: whether `pred` holds for every lane of the group's
    /// mask: `vote.sync.ballot` compared with the mask, as CUDA computes it.
    /// A static tile in the partial last warp of a block names lanes that
    /// do not exist; they never vote, so `all` is `false` there (CUDA's
    /// result, see the README's partial-warp rules).
    #[inline(always)]
    fn all(&self, pred: bool) -> bool {
        // SAFETY: as for `any`.
        unsafe { intrinsics::vote_ballot(pred, self.mask()) == self.mask() }
    }

    /// `g.ballot(pred)`: bit `r` is set when the member of rank `r` has
    /// `pred` (`vote.sync.ballot.b32`; a sparse coalesced group's lanes are
    /// packed into ranks, as CUDA does).
    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        // SAFETY: as for `any`.
        self.lanes_to_ranks(unsafe { intrinsics::vote_ballot(pred, self.mask()) })
    }

    /// `g.match_any(v)`: the ranks of the members whose `v` has the same
    /// bits as the caller's (`match.any.sync.b32`/`.b64`). `T` is 4 or 8
    /// bytes; any other size does not compile.
    #[inline(always)]
    fn match_any<T: Pod>(&self, value: T) -> u32 {
        // SAFETY: as for `any`.
        self.lanes_to_ranks(unsafe { match_any_pod(value, self.mask()) })
    }

    /// `g.match_all(v)`: `Some(ranks of every member)` when all members'
    /// `v` have the same bits, `None` otherwise (`match.all.sync`; CUDA
    /// returns the mask and sets a predicate). `T` is 4 or 8 bytes.
    #[inline(always)]
    fn match_all<T: Pod>(&self, value: T) -> Option<u32> {
        // SAFETY: as for `any`.
        unsafe { match_all_pod(value, self.mask()) }.map(|lanes| self.lanes_to_ranks(lanes))
    }
}

/// A tile: [`ThreadBlockTile`](crate::tile::ThreadBlockTile) or
/// [`DynamicTile`](crate::tile::DynamicTile), an aligned run of lanes in
/// which rank = lane mod tile size. Adds the butterfly shuffle.
///
/// ```ignore
/// fn tile_max<G: TileGroup>(g: &G, mut v: u32) -> u32 {
///     let mut i = g.num_threads() / 2;
///     while i > 0 { v = v.max(g.shfl_xor(v, i)); i /= 2; }
///     v
/// }
/// ```
pub trait TileGroup: WarpGroup {
    /// `tile.shfl_xor(v, lane_mask)`: `v` of rank `thread_rank() ^
    /// lane_mask` (`shfl.sync.bfly.b32`); `lane_mask` must be below the
    /// tile's size.
    fn shfl_xor<T: Pod>(&self, value: T, lane_mask: u32) -> T;
}
