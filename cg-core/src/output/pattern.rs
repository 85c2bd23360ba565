//! The patterns an [`Output`](super::Output) is written in, as types: the
//! second parameter of `Output<T, P>`.
//!
//! A pattern says which thread owns which element. Two threads never own
//! one element within a pattern; across two patterns they can (thread 1
//! of the grid and block 1's leader both own element 1). So a buffer is
//! written in one pattern per phase (between grid barriers), and the
//! pattern is part of its type: every thread of the grid holds the same
//! type at the same barrier, whatever branch it takes, and a method of
//! another pattern does not compile. The pattern changes only at a grid
//! barrier ([`Synced::into_output_as`](super::Synced::into_output_as)).
//!
//! | pattern | methods | element(s) of this thread |
//! |---|---|---|
//! | [`Threads`] (the default) | `thread_element`, `for_thread`, `grid_stride` | `grid.thread_rank()`, then every `grid.num_threads()` |
//! | [`Grid2d`], [`Grid3d`] | `thread_element_2d`, `thread_element_3d` | `y * width + x` (`(z * height + y) * width + x`) of `grid.thread_index()` |
//! | [`Points`] | `grid_stride_window`, `walk`, `grid_stride_stencil`, `stencil` | a window's points, numbered row by row, grid-stride |
//! | [`Leaders<G>`] | `leader_element`, `for_leader` | the group's index in the grid (block, tile of `N`, cluster) |
//! | [`Chunks`] (= `Chunks<Strided>`) | `block_chunk`, `block_chunks`, then a chunk's `thread_element`, `for_thread`, `block_stride`, `block_rounds`, `copy_from` | chunk `c * len ..` of block `c`, its elements block-stride |
//! | [`Chunks<Runs>`] | `block_chunk`, `block_chunks`, then a chunk's `thread_run` | chunk `c * len ..` of block `c`, a run of consecutive elements per thread |
//! | [`Tiles2d`] (= `Tiles2d<AtBlock>`), [`Tiles2d<Transposed>`] | `block_tile`, then `for_each` | in block `(x, y)`'s 2-D tile (tile `(y, x)` of the array, or `(x, y)`), column `tx` and rows `ty`, `ty + BLOCK_ROWS`, .. of the tile |
//! | [`Selection`] | none: `grid_select` writes it | the places of the kept elements, by the data |
//!
//! The arguments that shape a pattern (a chunk's length, a width, a
//! window, a run's length) must be the same in every thread: they are
//! [`Uniform`](crate::uniform::Uniform) values. Two different values in
//! one phase (chunks of 64, then of 128, in one phase) are two patterns
//! the types do not tell apart: the simulator reports the race.

use core::convert::Infallible;
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// A pattern of [`Output`](super::Output): which thread owns which element
/// (see the [module docs](self)). Sealed: the patterns are this module's.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pattern of `Output`",
    note = "the patterns are `Threads`, `Grid2d`, `Grid3d`, `Points`, `Leaders<G>`, `Chunks`, `Chunks<Runs>`, `Tiles2d` and `Tiles2d<Transposed>` (cg_core::output::pattern)"
)]
pub trait Pattern: sealed::Sealed {}

/// One element per thread of the grid, `grid.thread_rank()`, and the
/// grid-stride loop over the buffer (element `i` belongs to thread `i mod
/// grid.num_threads()`): `Output<T>`'s default.
pub enum Threads {}

/// One element per thread of a 2-D launch: `y * width + x` of
/// `grid.thread_index()`, for one `width` in the phase.
pub enum Grid2d {}

/// One element per thread of a 3-D launch: `(z * height + y) * width +
/// x` of `grid.thread_index()`, for one `width` and `height` in the phase.
pub enum Grid3d {}

/// The points of a 2-D window (or a stencil's interior), numbered row by
/// row, grid-stride: point `k` belongs to thread `k mod
/// grid.num_threads()`, for one window in the phase.
pub enum Points {}

/// One element per group of kind `G` (a block, a static tile of `N`, a
/// cluster): the group's index in the grid, written by its leader.
pub struct Leaders<G>(PhantomData<fn() -> G>, Infallible);

/// The places a grid-wide selection writes ([`grid_select`]): where each
/// kept element lands depends on the data, so no method of the `Output`
/// writes it, and the selection writes it once per phase (a second
/// selection into the same buffer before a grid barrier would write the
/// same places from other threads: the simulator reports it).
///
/// [`grid_select`]: crate::grid_collectives::grid_select
pub enum Selection {}

/// A contiguous chunk per block, `[c * len, (c + 1) * len)` for block rank
/// `c` (and every `num_blocks`-th chunk after it), for one `len` in the
/// phase; inside a chunk the threads of the block share its elements as
/// `S` says: [`Strided`] (the default) or [`Runs`].
pub struct Chunks<S = Strided>(PhantomData<fn() -> S>, Infallible);

/// A 2-D tile of a row-major array per block, `block.dim_threads().x`
/// columns wide and `TILE_ROWS` rows high (one array width and one tile
/// height in the phase), placed by `M`: [`AtBlock`] (the default) or
/// [`Transposed`]. Inside its tile, thread `(tx, ty)` of the block owns
/// column `tx` and rows `ty`, `ty + BLOCK_ROWS`, `ty + 2 BLOCK_ROWS`, ...
/// (`BLOCK_ROWS` the block's height; CUDA's tiled transpose and copy
/// write their tiles so).
pub struct Tiles2d<M = AtBlock>(PhantomData<fn() -> M>, Infallible);

/// Block `(x, y)` of the grid owns the tile in tile row `y`, tile column
/// `x` of the array: the grid laid over the array.
pub enum AtBlock {}

/// Block `(x, y)` of the grid owns the tile in tile row `x`, tile column
/// `y`: the output of a transpose whose grid is laid over its input.
pub enum Transposed {}

/// Where a block's tile lies: [`AtBlock`] or [`Transposed`]. Each places
/// distinct blocks' tiles apart.
pub trait TileMap: sealed::Sealed {
    /// The tile (row, column) of block `(x, y)`.
    #[doc(hidden)]
    fn tile_of(x: usize, y: usize) -> (usize, usize);
}

/// A chunk's elements block-stride: element `j` of the chunk belongs to
/// thread `j mod block.num_threads()` of the block.
pub enum Strided {}

/// A chunk's elements in runs: thread `t` owns `[t * per_thread, (t + 1) *
/// per_thread)` of the chunk (CUB's blocked arrangement), for one
/// `per_thread` in the phase.
pub enum Runs {}

/// How a block's threads share a chunk's elements: [`Strided`] or
/// [`Runs`].
pub trait ChunkMap: sealed::Sealed {}

/// `Self` is the pattern `Q`: the bound of the methods of [`Threads`],
/// [`Grid2d`], [`Grid3d`] and [`Points`], which names the pattern a buffer
/// is in and the one a method needs when they differ.
#[diagnostic::on_unimplemented(
    message = "this buffer is written in the pattern `{Self}` in this phase, not `{Q}`",
    label = "a method of the `{Q}` pattern",
    note = "a buffer is written in one pattern per phase: in two, two threads could own one element. Declare the parameter `Output<T, {Q}>`, or change the pattern at a grid barrier: `let out: Output<T, {Q}> = out.sync(&grid).into_output_as(&grid);` (cg_core::output::pattern)"
)]
pub trait Is<Q>: Pattern {}

impl<P: Pattern> Is<P> for P {}

/// `Self` shares a chunk's elements as `Q` does: the bound of the
/// methods of [`Strided`] and [`Runs`] chunks.
#[diagnostic::on_unimplemented(
    message = "this buffer's chunks are shared as `{Self}` in this phase, not `{Q}`",
    label = "a method of `{Q}` chunks",
    note = "a buffer is written in one pattern per phase: in two, two threads could own one element. Declare the parameter `Output<T, Chunks<{Q}>>`, or change the pattern at a grid barrier: `let out: Output<T, Chunks<{Q}>> = out.sync(&grid).into_output_as(&grid);` (cg_core::output::pattern)"
)]
pub trait SharedAs<Q>: ChunkMap {}

impl<S: ChunkMap> SharedAs<S> for S {}

/// `Self` is [`Leaders<G>`]: the bound of `leader_element` and
/// `for_leader`.
#[diagnostic::on_unimplemented(
    message = "this buffer is written in the pattern `{Self}` in this phase, not by the leaders of a group",
    label = "a method of the `Leaders<G>` pattern",
    note = "a buffer is written in one pattern per phase: in two, two threads could own one element. Declare the parameter `Output<T, Leaders<G>>` for the group whose leaders write (`ThreadBlock`, `ThreadBlockTile<N>`, `MultiWarpTile<N>`, `ClusterGroup`), or change the pattern at a grid barrier: `let out: Output<T, Leaders<ThreadBlock>> = out.sync(&grid).into_output_as(&grid);` (cg_core::output::pattern)"
)]
pub trait InLeaders<G>: Pattern {}

impl<G: super::LeaderSlot> InLeaders<G> for Leaders<G> {}

/// `Self` is [`Chunks<S>`]: the bound of `block_chunk` and
/// `block_chunks`.
#[diagnostic::on_unimplemented(
    message = "this buffer is written in the pattern `{Self}` in this phase, not in chunks",
    label = "a method of the `Chunks` pattern",
    note = "a buffer is written in one pattern per phase: in two, two threads could own one element. Declare the parameter `Output<T, Chunks>` (or `Chunks<Runs>`), or change the pattern at a grid barrier: `let out: Output<T, Chunks> = out.sync(&grid).into_output_as(&grid);` (cg_core::output::pattern)"
)]
pub trait InChunks<S>: Pattern {}

impl<S: ChunkMap> InChunks<S> for Chunks<S> {}

/// `Self` is [`Tiles2d<M>`]: the bound of `block_tile`.
#[diagnostic::on_unimplemented(
    message = "this buffer is written in the pattern `{Self}` in this phase, not in 2-D tiles",
    label = "a method of the `Tiles2d` pattern",
    note = "a buffer is written in one pattern per phase: in two, two threads could own one element. Declare the parameter `Output<T, Tiles2d>` (or `Tiles2d<Transposed>`), or change the pattern at a grid barrier: `let out: Output<T, Tiles2d> = out.sync(&grid).into_output_as(&grid);` (cg_core::output::pattern)"
)]
pub trait InTiles<M>: Pattern {}

impl<M: TileMap> InTiles<M> for Tiles2d<M> {}

impl sealed::Sealed for Threads {}
impl sealed::Sealed for Grid2d {}
impl sealed::Sealed for Grid3d {}
impl sealed::Sealed for Points {}
impl sealed::Sealed for Selection {}
impl<G> sealed::Sealed for Leaders<G> {}
impl<S> sealed::Sealed for Chunks<S> {}
impl sealed::Sealed for Strided {}
impl sealed::Sealed for Runs {}
impl<M> sealed::Sealed for Tiles2d<M> {}
impl sealed::Sealed for AtBlock {}
impl sealed::Sealed for Transposed {}

impl Pattern for Threads {}
impl Pattern for Grid2d {}
impl Pattern for Grid3d {}
impl Pattern for Points {}
impl Pattern for Selection {}
impl<G: super::LeaderSlot> Pattern for Leaders<G> {}
impl<S: ChunkMap> Pattern for Chunks<S> {}
impl ChunkMap for Strided {}
impl ChunkMap for Runs {}
impl<M: TileMap> Pattern for Tiles2d<M> {}

impl TileMap for AtBlock {
    #[inline(always)]
    fn tile_of(x: usize, y: usize) -> (usize, usize) {
        (y, x)
    }
}

impl TileMap for Transposed {
    #[inline(always)]
    fn tile_of(x: usize, y: usize) -> (usize, usize) {
        (x, y)
    }
}
