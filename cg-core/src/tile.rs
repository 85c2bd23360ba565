//! Tiles: groups of consecutive threads of a block, inside one warp.
//!
//! * [`ThreadBlockTile<N>`] (`thread_block_tile<N>`), size known at compile
//!   time (N = 1, 2, 4, 8, 16 or 32), from [`tiled_partition::<N>`];
//! * [`DynamicTile`] (the `thread_group` of CUDA's run-time
//!   `tiled_partition(parent, n)`), from [`tiled_partition_dynamic`].
//!
//! Both have every [`WarpGroup`] operation plus `shfl_xor`:
//!
//! | method | PTX |
//! |---|---|
//! | `sync` | `bar.warp.sync` |
//! | `shfl`, `shfl_up`, `shfl_down`, `shfl_xor` | `shfl.sync.{idx,up,down,bfly}.b32` with the tile's segment |
//! | `any`, `all`, `ballot` | `vote.sync.{any,all,ballot}` |
//! | `match_any`, `match_all` | `match.{any,all}.sync.{b32,b64}` |
//!
//! For `N = 32` the member mask is the constant `0xffffffff`; for smaller
//! tiles it is `((1 << N) - 1) << (laneid & !(N - 1))`, as CUDA builds it.
//! A size that is not a power of two at most 32, or a tile larger than the
//! tile it is cut from, does not compile.
//!
//! The block should hold a whole number of static tiles (as in CUDA): in the
//! last, partial warp of a block, lanes past the block's end do not exist;
//! the tile still reports `N` threads, and an operation that reads a missing
//! lane gives an undefined value. A [`DynamicTile`] cut from a block is
//! clipped to the threads that exist (as CUDA's is), so all its operations
//! stay defined.

use crate::block::ThreadBlock;
use crate::coalesced::CoalescedGroup;
use crate::group::{
    meta_group_from_fields, sealed, sealed_groups, GroupSync, ThreadGroup, TileGroup, WarpGroup,
};
use crate::intrinsics::{self, ShflMode};
use crate::lanes;
use crate::multi_warp::MultiWarpTile;
use crate::shuffle::shfl_pod;
use bytemuck::Pod;

/// An aligned segment of `width` lanes of which `mask` are members, the
/// first `clamp + 1` of the segment: the lane arithmetic both tile types
/// share.
#[derive(Clone, Copy)]
struct Segment {
    width: u32,
    mask: u32,
    clamp: u32,
}

impl Segment {
    /// The lanes of the `width`-lane segment holding the caller.
    #[inline(always)]
    fn lanes_of(width: u32) -> u32 {
        lanes::segment_lanes(width, intrinsics::lane_id())
    }

    #[inline(always)]
    fn base_lane(self) -> u32 {
        lanes::segment_base(self.width, intrinsics::lane_id())
    }

    #[inline(always)]
    fn rank(self) -> u32 {
        lanes::segment_rank(self.width, intrinsics::lane_id())
    }

    /// `shfl.sync` inside the segment. The `c` operand holds the segment
    /// mask (bits 8..13) and, except for `up`, the clamp: a source past
    /// the last member gives the caller's own value. For a whole tile the
    /// clamp is `width - 1`, which is what CUDA's `0x1f` amounts to.
    ///
    /// Every member of the tile calls it together (the tile operations'
    /// contract).
    #[inline(always)]
    fn shfl<T: Pod>(self, mode: ShflMode, value: T, b: u32) -> T {
        let segment = (32 - self.width) << 8;
        let c = match mode {
            ShflMode::Up => segment,
            _ => segment | self.clamp,
        };
        // SAFETY: `mask` is the tile's lanes, which hold the caller (a tile
        // is made for the caller's segment), and the members call together.
        unsafe { shfl_pod(mode, value, b, c, self.mask) }
    }
}

/// The `WarpGroup` hooks both tile types compute from their [`Segment`]:
/// member mask and rank mapping.
macro_rules! segment_hooks {
    () => {
        #[inline(always)]
        fn sync_mask(&self) -> u32 {
            self.segment().mask
        }

        #[inline(always)]
        fn lanes_to_ranks(&self, lanes: u32) -> u32 {
            lanes >> self.segment().base_lane()
        }
    };
}

/// The `WarpGroup` methods both tile types compute from their
/// [`Segment`]: the three ranked shuffles.
macro_rules! segment_shuffles {
    () => {
        #[inline(always)]
        fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T {
            self.segment().shfl(ShflMode::Idx, value, src_rank)
        }

        #[inline(always)]
        fn shfl_up<T: Pod>(&self, value: T, delta: u32) -> T {
            self.segment().shfl(ShflMode::Up, value, delta)
        }

        #[inline(always)]
        fn shfl_down<T: Pod>(&self, value: T, delta: u32) -> T {
            self.segment().shfl(ShflMode::Down, value, delta)
        }
    };
}

/// `TileGroup::shfl_xor` over the tile's [`Segment`].
macro_rules! segment_xor {
    () => {
        #[inline(always)]
        fn shfl_xor<T: Pod>(&self, value: T, lane_mask: u32) -> T {
            self.segment().shfl(ShflMode::Bfly, value, lane_mask)
        }
    };
}

/// `N` consecutive threads of a block (`thread_block_tile<N>`). See the
/// module docs.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let mut v = x;
/// for i in [16, 8, 4, 2, 1] { v += warp.shfl_xor(v, i); }  // every lane: the warp's sum
/// ```
#[derive(Clone, Copy)]
pub struct ThreadBlockTile<const N: u32> {
    meta_rank: u32,
    meta_size: u32,
}

/// The size of a static tile, as a type: `tiled_partition::<N>` accepts
/// the `N` for which `TileSize<N>` implements [`StaticTileSize`].
pub struct TileSize<const N: u32>;

/// What [`tiled_partition::<N>`] makes of a parent for each valid `N`:
/// a [`ThreadBlockTile<N>`] for 1 to 32 threads (one warp), a
/// [`MultiWarpTile<N>`] for 64, 128, 256 and 512 (sm_80+, as in CUDA).
#[diagnostic::on_unimplemented(
    message = "a thread_block_tile size is a power of two at most 512 (1 to 32 in one warp, 64 to 512 across warps), not {Self}",
    label = "no tile of this size"
)]
pub trait StaticTileSize {
    /// The tile type.
    type Tile: ThreadGroup;

    /// Cuts the caller's tile out of `parent`.
    #[doc(hidden)]
    fn cut<P: TileParent>(parent: &P) -> Self::Tile;
}

macro_rules! warp_tile_sizes {
    ($($n:literal)*) => {$(
        impl StaticTileSize for TileSize<$n> {
            type Tile = ThreadBlockTile<$n>;

            #[inline(always)]
            fn cut<P: TileParent>(parent: &P) -> ThreadBlockTile<$n> {
                ThreadBlockTile::partition(parent)
            }
        }
    )*};
}
warp_tile_sizes!(1 2 4 8 16 32);

macro_rules! multi_warp_tile_sizes {
    ($($n:literal)*) => {$(
        impl StaticTileSize for TileSize<$n> {
            type Tile = MultiWarpTile<$n>;

            #[inline(always)]
            fn cut<P: TileParent>(parent: &P) -> MultiWarpTile<$n> {
                MultiWarpTile::partition(parent)
            }
        }
    )*};
}
multi_warp_tile_sizes!(64 128 256 512);

/// A group that [`tiled_partition::<N>`] can split: a block or a larger
/// static tile.
pub trait TileParent: ThreadGroup {
    /// The largest tile this parent can be split into.
    const MAX_TILE: u32;
}

impl TileParent for ThreadBlock {
    const MAX_TILE: u32 = 512;
}

impl<const M: u32> TileParent for ThreadBlockTile<M> {
    const MAX_TILE: u32 = M;
}

impl<const M: u32> TileParent for MultiWarpTile<M> {
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
/// tiles of `N` threads; the calling thread gets its own tile. Its
/// `meta_group_rank()` is `parent.thread_rank() / N` and its
/// `meta_group_size()` is `ceil(parent.num_threads() / N)`.
///
/// `N` is 1, 2, 4, 8, 16 or 32 ([`ThreadBlockTile`]) or 64, 128, 256 or 512
/// ([`MultiWarpTile`]: cutting one is collective over the parent, which it
/// synchronizes once; the parent must hold a whole number of tiles). Any
/// other `N`, or a tile larger than its parent, does not compile.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let quad = tiled_partition::<4>(&warp);
/// let wide = tiled_partition::<128>(&this_thread_block());
/// ```
///
/// Each warp's sum, written by its leader, run on the simulator (the
/// `sim` feature):
///
#[cfg_attr(feature = "sim", doc = "```")]
#[cfg_attr(not(feature = "sim"), doc = "```ignore")]
/// use cg_core::prelude::*;
/// use cg_core::sim::{self, Buffer, Shape};
///
/// #[kernel]
/// pub fn warp_sums(input: &[u32], mut sums: Output<u32, Leaders<ThreadBlockTile<32>>>) {
///     let warp = tiled_partition::<32>(&this_thread_block());
///     let i = this_grid().thread_rank() as usize;
///     let total = reduce(&warp, input[i], Plus);
///     sums.for_leader(&warp, |s| *s = total);
/// }
///
/// let input: Vec<u32> = (0..128).collect();
/// let sums = Buffer::<u32>::zeroed(4);
/// sim::launch(Shape::new(2, 64), || warp_sums(&input, sums.view())).unwrap();
/// let want: Vec<u32> = input.chunks(32).map(|w| w.iter().sum()).collect();
/// assert_eq!(sums.to_vec(), want);
/// ```
#[inline(always)]
pub fn tiled_partition<const N: u32>(
    parent: &impl TileParent,
) -> <TileSize<N> as StaticTileSize>::Tile
where
    TileSize<N>: StaticTileSize,
{
    fits::<N, _>(parent);
    <TileSize<N> as StaticTileSize>::cut(parent)
}

#[inline(always)]
fn fits<const N: u32, P: TileParent>(_: &P) {
    #[allow(clippy::let_unit_value)]
    let () = FitsIn::<N, P>::VALID;
}

/// `cg::this_thread()`: the calling thread as a group of one
/// (`thread_block_tile<1>`). Like CUDA's, it is meta group 0 of 1: it was
/// not cut out of a parent.
#[inline(always)]
pub fn this_thread() -> ThreadBlockTile<1> {
    ThreadBlockTile {
        meta_rank: 0,
        meta_size: 1,
    }
}

impl<const N: u32> ThreadBlockTile<N> {
    /// `tiled_partition::<N>(parent)` for a tile of one warp or less, with
    /// no bound to write in generic code: a function generic over `N`
    /// calls it as a CUDA `template <int N>` calls `tiled_partition<N>`,
    /// and every method of the tile is there.
    ///
    /// ```ignore
    /// fn tile_sum<const N: u32>(x: f32) -> f32 {
    ///     let tile = ThreadBlockTile::<N>::partition(&this_thread_block());
    ///     reduce(&tile, x, Plus)
    /// }
    /// ```
    ///
    /// `N` is checked when the function is instantiated: a size that is
    /// not 1, 2, 4, 8, 16 or 32, or larger than `parent`, fails the build
    /// there (a `MultiWarpTile` comes from [`tiled_partition`] or
    /// [`MultiWarpTile::partition`]).
    #[inline(always)]
    pub fn partition<P: TileParent>(parent: &P) -> Self {
        const {
            assert!(
                N.is_power_of_two() && N <= 32,
                "a ThreadBlockTile has 1, 2, 4, 8, 16 or 32 threads (MultiWarpTile for 64 to 512)"
            )
        };
        fits::<N, P>(parent);
        let (rank, size) = lanes::piece_meta(parent.thread_rank(), parent.num_threads(), N);
        ThreadBlockTile::with_meta(rank, size)
    }

    /// The caller's tile, as meta group `meta_rank` of `meta_size`.
    #[inline(always)]
    pub(crate) fn with_meta(meta_rank: u32, meta_size: u32) -> Self {
        ThreadBlockTile {
            meta_rank,
            meta_size,
        }
    }

    #[inline(always)]
    fn segment(&self) -> Segment {
        Segment {
            width: N,
            mask: Segment::lanes_of(N),
            clamp: N - 1,
        }
    }
}

impl<const N: u32> TileGroup for ThreadBlockTile<N> {
    segment_xor!();
}

sealed_groups!([const N: u32] ThreadBlockTile<N>, [] DynamicTile);

impl<const N: u32> GroupSync for ThreadBlockTile<N> {
    /// `bar.warp.sync` with the tile's mask.
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: the tile's lanes hold the caller and its members call
        // together (`GroupSync`'s contract).
        unsafe { intrinsics::bar_warp_sync(self.mask()) }
    }
}

impl<const N: u32> ThreadGroup for ThreadBlockTile<N> {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        N
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        self.segment().rank()
    }
}

impl<const N: u32> sealed::WarpLanes for ThreadBlockTile<N> {
    segment_hooks!();

    #[inline(always)]
    fn segment_width(&self) -> Option<u32> {
        Some(N)
    }
}

impl<const N: u32> WarpGroup for ThreadBlockTile<N> {
    #[inline(always)]
    fn mask(&self) -> u32 {
        Segment::lanes_of(N)
    }

    meta_group_from_fields!();
    segment_shuffles!();
}

/// A tile whose size is chosen at run time, from
/// [`tiled_partition_dynamic`] (CUDA's `thread_group` returned by
/// `tiled_partition(parent, tilesz)`). It has the same operations as
/// [`ThreadBlockTile`] (CUDA's has only the queries and `sync`).
///
/// Cut from a block, it holds only the threads that exist, so in a partial
/// last warp `num_threads()` can be less than the requested size `n`; then
/// `shfl(v, src)` takes `src` modulo `n` and, like `shfl_down` and
/// `shfl_xor`, gives the caller its own value when the source rank is past
/// the last member.
///
/// ```ignore
/// let tile = tiled_partition_dynamic(&this_thread_block(), n);
/// let sum = reduce(&tile, x, Plus);
/// ```
#[derive(Clone, Copy)]
pub struct DynamicTile {
    width: u32,
    mask: u32,
    meta_rank: u32,
    meta_size: u32,
}

impl DynamicTile {
    #[inline(always)]
    fn segment(&self) -> Segment {
        Segment {
            width: self.width,
            mask: self.mask,
            clamp: self.mask.count_ones() - 1,
        }
    }

    /// Cuts the caller's `width`-lane tile out of a parent made of the lanes
    /// `parent_lanes`.
    #[inline(always)]
    fn cut(width: u32, parent_lanes: u32, meta_rank: u32, meta_size: u32) -> Self {
        DynamicTile {
            width,
            mask: parent_lanes & Segment::lanes_of(width),
            meta_rank,
            meta_size,
        }
    }
}

impl TileGroup for DynamicTile {
    segment_xor!();
}

impl GroupSync for DynamicTile {
    /// `bar.warp.sync` with the tile's mask.
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: the tile's lanes hold the caller and its members call
        // together (`GroupSync`'s contract).
        unsafe { intrinsics::bar_warp_sync(self.mask) }
    }
}

impl ThreadGroup for DynamicTile {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        self.mask.count_ones()
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        self.segment().rank()
    }
}

impl sealed::WarpLanes for DynamicTile {
    segment_hooks!();

    #[inline(always)]
    fn segment_width(&self) -> Option<u32> {
        if self.mask.count_ones() == self.width {
            Some(self.width)
        } else {
            None
        }
    }
}

impl WarpGroup for DynamicTile {
    #[inline(always)]
    fn mask(&self) -> u32 {
        self.mask
    }

    meta_group_from_fields!();
    segment_shuffles!();
}

/// A group that [`tiled_partition_dynamic`] can split, and what it splits
/// into: blocks and tiles give [`DynamicTile`]s, a coalesced group gives
/// coalesced groups (as CUDA's overloads do).
pub trait DynamicTileParent: ThreadGroup {
    /// The type of the pieces.
    type Tile: WarpGroup;

    /// Splits the group into pieces of `n` threads; see
    /// [`tiled_partition_dynamic`].
    fn tiled_partition_dynamic(&self, n: u32) -> Self::Tile;
}

/// Traps unless `n` is a power of two at most 32 (CUDA aborts the same way).
#[inline(always)]
fn check_tile_size(n: u32) {
    if !n.is_power_of_two() || n > 32 {
        crate::fault::check_failed(
            "tiled_partition_dynamic(parent, n): n is not a power of two from 1 to 32",
        );
    }
}

impl DynamicTileParent for ThreadBlock {
    type Tile = DynamicTile;

    #[inline(always)]
    fn tiled_partition_dynamic(&self, n: u32) -> DynamicTile {
        check_tile_size(n);
        let (rank, size) = lanes::piece_meta(self.thread_rank(), self.num_threads(), n);
        DynamicTile::cut(n, self.warp_lanes(), rank, size)
    }
}

/// Static and dynamic tiles split alike (as CUDA splits them): when `n` is
/// at least the parent's size the piece is the parent itself (with its meta
/// group); otherwise there are `parent size / n` pieces.
#[inline(always)]
fn split_tile<P: WarpGroup>(parent: &P, width: u32, n: u32) -> DynamicTile {
    check_tile_size(n);
    if parent.num_threads() <= n {
        DynamicTile::cut(
            width,
            parent.mask(),
            parent.meta_group_rank(),
            parent.meta_group_size(),
        )
    } else {
        DynamicTile::cut(
            n,
            parent.mask(),
            parent.thread_rank() / n,
            parent.num_threads() / n,
        )
    }
}

impl<const M: u32> DynamicTileParent for ThreadBlockTile<M> {
    type Tile = DynamicTile;

    #[inline(always)]
    fn tiled_partition_dynamic(&self, n: u32) -> DynamicTile {
        split_tile(self, M, n)
    }
}

impl DynamicTileParent for DynamicTile {
    type Tile = DynamicTile;

    #[inline(always)]
    fn tiled_partition_dynamic(&self, n: u32) -> DynamicTile {
        split_tile(self, self.width, n)
    }
}

impl DynamicTileParent for CoalescedGroup {
    type Tile = CoalescedGroup;

    #[inline(always)]
    fn tiled_partition_dynamic(&self, n: u32) -> CoalescedGroup {
        check_tile_size(n);
        self.tiled(n)
    }
}

/// `cg::tiled_partition(parent, n)`: splits `parent` into pieces of `n`
/// threads (a power of two at most 32, chosen at run time; anything else
/// traps) by rank: the piece holds the ranks `k * n .. (k + 1) * n` of the
/// parent with `k = parent.thread_rank() / n`, which is its
/// `meta_group_rank()`.
///
/// * a block gives a [`DynamicTile`] with `meta_group_size() =
///   ceil(block size / n)`, clipped to the block's threads;
/// * a tile gives a [`DynamicTile`] with `meta_group_size() = tile size /
///   n`; when `n` is at least the tile's size, the tile itself (its meta
///   group included);
/// * a [`CoalescedGroup`] gives a coalesced group of the ranks above, with
///   `meta_group_size() = ceil(size / n)`; when `n` is at least its size,
///   the group itself.
///
/// ```ignore
/// let n = if wide { 16 } else { 4 };
/// let tile = tiled_partition_dynamic(&this_thread_block(), n);
/// let first = tile.shfl(v, 0);
/// ```
#[inline(always)]
pub fn tiled_partition_dynamic<P: DynamicTileParent>(parent: &P, n: u32) -> P::Tile {
    parent.tiled_partition_dynamic(n)
}
