//! Grid-wide collectives inside a cooperative kernel: a reduction whose
//! total every thread of the grid gets, and single-pass scans of a slice
//! into an [`Output`] (decoupled look-back, after Merrill and Garland), over
//! scratch the caller owns ([`GridScratch`], built from a device buffer the
//! host zeroes).
//!
//! ```ignore
//! #[kernel(cooperative)]
//! pub fn offsets(counts: &[u32], mut out: Output<u32>, words: AtomicSlice<u64>) {
//!     let grid = this_grid();
//!     let mut scratch = grid_scratch!(u32, words);
//!     let total = grid_reduce(&grid, &mut scratch, my_count(), Plus);  // every thread
//!     let used = grid_exclusive_scan(&grid, scratch, counts, &mut out, Plus);
//!     let (offsets, scratch) = (out, used).sync(&grid);          // one grid barrier
//! }
//! ```
//!
//! Every thread of the grid calls each collective, with the same operator
//! and arguments. They wait for other blocks without a grid barrier, so
//! every block must be resident at once: the kernel is
//! `#[kernel(cooperative)]` (cg-builder refuses one that is not, as for
//! `grid.sync()`), and blocks have at least 32 threads (one whole warp
//! looks back; a smaller block stops the kernel with a failed check). `T`
//! is any [`Pod`] type of 1 to 32 bytes, the operator any [`Operator`]: a
//! built-in one or an associative closure, commutative or not.
//!
//! # The look-back ladder
//!
//! Work is cut into tiles: one per block for [`grid_reduce`], and for the
//! scans `block.num_threads() * items_per_thread::<T>()` elements each,
//! which the blocks take grid-stride (tile `b`, `b + B`, `b + 2B`, ... for
//! block rank `b` of `B`). A tile's block reduces it with the block
//! collectives and publishes the aggregate `a[t]` in the scratch; warp 0
//! then computes the tile's exclusive prefix from three levels, each a
//! window of 32 slots one lane apart:
//!
//! * level 0, the aggregates of the tiles before `t` in its window of 32
//!   tiles (`S1`: a rank-order Hillis–Steele scan of the window);
//! * level 1, the aggregates of the windows before `t`'s in its window of
//!   1024 tiles (`S2`: the same scan over window aggregates `A1[w] =
//!   S1` over all 32 tiles of `w`, which the tile closing window `w`
//!   publishes);
//! * level 2, `Q[k]`, the prefix through the last tile of the 1024-tile
//!   window `k`, `op(Q[k - 1], A2[k])` with `A2[k]` the scan of its 32
//!   window aggregates, which the tile closing window `k` publishes.
//!
//! Tile `t` (`t = 1024 k + 32 m + l`) has the exclusive prefix
//! `op(op(Q[k - 1], S2[m - 1]), S1[l - 1])`, the parts that exist (none for
//! tile 0). Each part depends only on indices, never on which block got
//! there first, so **every result is deterministic**: a float sum gives the
//! same bits on every run, on the simulator and the GPU, and a CPU can
//! compute them (the tests do). It is not CUB's order, which depends on
//! timing. A tile waits only for the aggregates of its own windows and for
//! one `Q`, so the chain of waits that crosses the array has one link per
//! 1024 tiles. Warp 0 polls all of a tile's slots in one loop (each lane
//! its slot of level 0 and of level 1, lane 31 `Q`), so a look-back whose
//! slots are all there costs one round trip to L2, not one a level.
//!
//! The scans take each tile in two steps, one of the block's tiles apart:
//! a step reads a tile and publishes its aggregate (and, for a tile
//! closing a window of 32, the window's), then looks back for the tile
//! before it and writes that one's results, reading its elements again
//! (from L2). The tiles of a window are read by different blocks in the
//! same step, so a look-back a step later finds their aggregates there,
//! where one in the same step waited for the slowest of those blocks. A
//! thread reads its elements with 16-byte loads where they are 16-byte
//! aligned 4-byte values, and whole runs with one bounds check. As a step
//! starts, its block asks L2 for its next tile (`prefetch.L2`, one line a
//! thread), so that the next step's loads wait for L2, not for memory.
//!
//! # The order of combination
//!
//! Every operator combines in rank order, `op(lower, higher)`, so a
//! non-commutative one works; a float result is one fixed tree of
//! roundings, stated here:
//!
//! * [`grid_reduce`]: each block's values are reduced as
//!   [`block_reduce`] reduces them
//!   (per warp a rank-order butterfly, or a scan over a partial last warp;
//!   then the warp totals from the left); the block totals are the tiles'
//!   aggregates, and the total is `op(op(Q[K - 1], S2[M - 1]), S1[L])` for
//!   the last block `1024 K + 32 M + L` (`S1[L]`: the window scan through
//!   it).
//! * The scans: thread `r` of a tile holds `items_per_thread::<T>()`
//!   consecutive elements and folds them from the left into its
//!   aggregate; the tile's aggregate and the thread's prefix `B[r]` within
//!   the tile are
//!   [`block_exclusive_scan_with_total`]'s
//!   (rank order); the thread's elements then get `op(op(E[t], B[r]),
//!   x0)`, `op(op(op(E[t], B[r]), x0), x1)`, ... for the tile's exclusive
//!   prefix `E[t]` above (parts that do not exist are left out). The
//!   exclusive scan writes each element the value before its own; the
//!   first element of the array gets `T::zeroed()`, as
//!   [`exclusive_scan`](crate::collectives::exclusive_scan) gives rank 0.
//!
//! Integer results are exact (wrapping for `Plus`).
//!
//! # The scratch
//!
//! A [`GridScratch<T>`] is a kernel's `AtomicSlice<u64>` parameter (a
//! `DeviceBuffer<u64>` of the host) of at least
//! [`grid_scratch_words::<T>`](grid_scratch_words) words, **zeroed before
//! every launch** (`DeviceBuffer::zero`), with a block scratch and two
//! shared slots for the block's broadcasts
//! ([`grid_scratch!`](crate::grid_scratch) declares them). Each slot is a
//! status word tagged with the call that wrote it, so a slot of an earlier
//! call is never read as this one's:
//!
//! * `T` of at most 4 bytes: one word, the call's tag in the high half and
//!   the value in the low half, written with one relaxed store and polled
//!   with relaxed loads (the value travels in the word that says it is
//!   there);
//! * larger `T`: a tag word and the value in `size_of::<T>() / 8` (rounded
//!   up) words: the value with relaxed stores, then the tag with a release
//!   store; a reader polls the tag with acquire loads, then loads the value.
//!
//! [`grid_reduce`] takes the scratch by `&mut` and can run back to back on
//! it with no barrier: its calls alternate between two halves, and a block
//! writes a half again only two calls later, after every block has
//! published in the call between, which each does only after reading the
//! half. A scan hands back a [`UsedGridScratch`] instead (a slow block may
//! still read its slots): [`UsedGridScratch::sync`] is the grid barrier
//! that gives the scratch back, and `(out, used).sync(&grid)`
//! ([`SyncPhases`](crate::output::SyncPhases)) shares one barrier with the
//! output's.

use crate::atomic::{AtomicSlice, Ordering};
use crate::block::{this_thread_block, ThreadBlock};
use crate::block_collectives::{
    block_exclusive_scan_with_total, block_reduce, BlockScratch, RankOrder,
};
use crate::checks::Site;
use crate::collectives::{inclusive_scan, Operator, Plus};
use crate::fault;
use crate::grid::GridGroup;
use crate::group::{GroupSync, ThreadGroup, WarpGroup};
use crate::intrinsics;
use crate::output::{phase, Chunks, Output, Runs, Selection};
use crate::shared::SharedArray;
use crate::stride::strided_batches;
use crate::tile::{tiled_partition, ThreadBlockTile};
use crate::uniform::Uniform;
use crate::unrolled::unrolled;
use crate::vector::{quads, quads_mut, split_quads, Vec4};
use bytemuck::Pod;
use core::marker::PhantomData;
use core::mem::size_of;

/// Slots of one look-back window: one per lane of warp 0.
const WINDOW: usize = 32;

/// The most elements a thread takes per tile (`items_per_thread`,
/// `select_items_per_thread`): as many as [`unrolled`] writes out.
const MAX_ITEMS: usize = crate::unrolled::MAX;

/// Elements of `T` a thread takes per tile: `bytes / size_of::<T>()`, at
/// most `most` and at least 1.
const fn items_of<T>(bytes: usize, most: usize) -> usize {
    let fit = match bytes.checked_div(size_of::<T>()) {
        Some(fit) => fit,
        None => most,
    };
    if fit == 0 {
        1
    } else if fit > most {
        most
    } else {
        fit
    }
}

/// Elements each thread of a block scans per tile: `32 / size_of::<T>()`,
/// at most 8 and at least 1 (8 `u32`, 4 `u64`, 2 values of 12 or 16
/// bytes, 1 of 32). A scan's tile is `block.num_threads()` times this.
///
/// ```
/// use cg_core::grid_collectives::items_per_thread;
/// assert_eq!(items_per_thread::<u32>() * 256, 2048);   // a tile of 256 threads
/// assert_eq!(items_per_thread::<[u64; 4]>(), 1);
/// ```
pub const fn items_per_thread<T>() -> usize {
    items_of::<T>(32, 8)
}

/// Elements each thread of a block takes per tile in [`grid_select`]:
/// `64 / size_of::<T>()`, at most 16 and at least 1 (16 `u32`, 8 `u64`,
/// 5 values of 12 bytes, 2 of 32): twice a scan's for most types. A
/// selection keeps a bit per element where a scan keeps a running value,
/// so it has the registers for twice the loads in flight (on an H200,
/// 2^28 `u32`: 860 us against 1031 with a scan's tile; the scans were
/// slower with 16, 1080 us against 977).
///
/// ```
/// use cg_core::grid_collectives::select_items_per_thread;
/// assert_eq!(select_items_per_thread::<u32>() * 256, 4096);   // a tile of 256 threads
/// assert_eq!(select_items_per_thread::<[u64; 4]>(), 2);
/// ```
pub const fn select_items_per_thread<T>() -> usize {
    items_of::<T>(64, MAX_ITEMS)
}

/// Whether a slot holds its tag and value in one word (`T` of at most 4
/// bytes).
const fn packed<T>() -> bool {
    size_of::<T>() <= 4
}

/// Words of a value of `T` in a slot that is not packed.
const fn value_words<T>() -> usize {
    size_of::<T>().div_ceil(8)
}

/// `u64` words of one slot.
const fn slot_words<T>() -> usize {
    if packed::<T>() {
        1
    } else {
        1 + value_words::<T>()
    }
}

/// Slots of a ladder over `tiles` tiles: one per tile, one per closed
/// window of 32 tiles, one per closed window of 1024.
const fn ladder_slots(tiles: usize) -> usize {
    tiles + tiles / WINDOW + tiles / (WINDOW * WINDOW)
}

/// Tiles of `len` elements by blocks of `block_threads` taking `items`
/// each.
const fn tiles_of(block_threads: u32, items: usize, len: usize) -> usize {
    let tile = block_threads as usize * items;
    if tile == 0 {
        0
    } else {
        len.div_ceil(tile)
    }
}

/// The `u64` words a [`GridScratch<T>`] needs in a grid of `blocks` blocks
/// of `block_threads` threads whose scans cover at most `scan_len`
/// elements: the host allocates them (and zeroes them before every
/// launch). A scratch too small for a call stops the kernel with a failed
/// check naming the caller's line.
///
/// ```
/// use cg_core::grid_collectives::grid_scratch_words;
/// // 264 blocks of 256 threads scanning 2^24 u32: 8,192 tiles.
/// let words = grid_scratch_words::<u32>(264, 256, 1 << 24);
/// assert_eq!(words, 2 * (264 + 8) + (8192 + 256 + 8));
/// ```
pub const fn grid_scratch_words<T>(blocks: u32, block_threads: u32, scan_len: usize) -> usize {
    let tiles = tiles_of(block_threads, items_per_thread::<T>(), scan_len);
    let slots = 2 * ladder_slots(blocks as usize) + ladder_slots(tiles);
    slots * slot_words::<T>()
}

/// The scratch of the grid collectives in one thread: the device words
/// every block shares, this block's [`BlockScratch<T>`] and two shared
/// slots for the broadcasts of warp 0's results, and the count of calls
/// so far (every thread makes the same calls, so every thread's count is
/// the same). Make it with [`grid_scratch!`](crate::grid_scratch), once
/// per kernel. See the module docs for the layout and the rules of reuse.
pub struct GridScratch<'a, T: Pod> {
    words: AtomicSlice<'a, u64>,
    block: BlockScratch<T>,
    shared: SharedArray<T, 2>,
    reduces: u32,
    scans: u32,
    broadcasts: u32,
}

impl<'a, T: Pod> GridScratch<'a, T> {
    /// The scratch over `words` (a kernel's `AtomicSlice<u64>` parameter,
    /// zeroed by the host before the launch), with this block's block
    /// scratch and two shared slots
    /// ([`grid_scratch!`](crate::grid_scratch) declares both). Nothing
    /// else may write `words` or `shared` during the kernel: another
    /// user's writes would make the collectives wait forever or return
    /// wrong values (no undefined behaviour: the words are only ever
    /// accessed atomically).
    ///
    /// ```ignore
    /// let scratch = GridScratch::new(words, block_scratch!(f32), shared_array!(f32; 2));
    /// ```
    #[inline(always)]
    pub fn new(
        words: AtomicSlice<'a, u64>,
        block: BlockScratch<T>,
        shared: SharedArray<T, 2>,
    ) -> Self {
        GridScratch {
            words,
            block,
            shared,
            reduces: 0,
            scans: 0,
            broadcasts: 0,
        }
    }
}

/// Declares the shared parts of a [`GridScratch<T>`] (a block scratch and
/// two shared slots, in one `.shared` array) and makes it over `words`, a kernel's `AtomicSlice<u64>` parameter. `T` must be a
/// concrete type (shared arrays have a fixed size).
///
/// ```ignore
/// #[kernel(cooperative)]
/// pub fn total(x: &[f32], mut out: Output<f32>, words: AtomicSlice<u64>) {
///     let grid = this_grid();
///     let mut scratch = grid_scratch!(f32, words);
///     let v = x.get(grid.thread_rank() as usize).copied().unwrap_or(0.0);
///     let sum = grid_reduce(&grid, &mut scratch, v, Plus);
///     out.for_thread(&grid, |o| *o = sum);
/// }
/// ```
#[macro_export]
macro_rules! grid_scratch {
    ($ty:ty, $words:expr) => {{
        // One array for both parts: two declarations in one macro would
        // share a call site, so a `.shared` symbol.
        let array = $crate::shared_array!(
            $ty; $crate::block_collectives::BlockScratch::<$ty>::LEN + 2
        );
        let addr = array.shared_addr();
        // SAFETY: the first `LEN` values of the array just declared, 16-byte
        // aligned, reached only through this handle.
        let block = unsafe { $crate::block_collectives::BlockScratch::<$ty>::from_raw(addr) };
        let slots = addr + $crate::block_collectives::BlockScratch::<$ty>::BYTES as u32;
        // SAFETY: the array's last two values (aligned for the type: a
        // multiple of its size from an aligned start), reached only through
        // this handle.
        let slots = unsafe { $crate::shared::SharedArray::<$ty, 2>::from_raw(slots) };
        $crate::grid_collectives::GridScratch::<$ty>::new($words, block, slots)
    }};
}

/// A [`GridScratch`] after a scan: other blocks may still read its slots.
/// [`sync`](Self::sync) (or `(out, used).sync(&grid)`) is the grid barrier
/// that gives it back.
pub struct UsedGridScratch<'a, T: Pod> {
    scratch: GridScratch<'a, T>,
}

impl<'a, T: Pod> UsedGridScratch<'a, T> {
    /// `grid.sync()`, then the scratch again: every block is done reading
    /// the scan's slots.
    ///
    /// ```ignore
    /// let used = grid_inclusive_scan(&grid, scratch, x, &mut out, Plus);
    /// let mut scratch = used.sync(&grid);
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync(self, grid: &impl crate::output::GridBarrier) -> GridScratch<'a, T> {
        grid.sync();
        self.scratch
    }
}

impl<'a, T: Pod> phase::Phase for UsedGridScratch<'a, T> {
    type Next = GridScratch<'a, T>;

    #[inline(always)]
    fn next(self) -> GridScratch<'a, T> {
        self.scratch
    }
}

/// One call's slots in the scratch: three levels of slots, tagged with
/// the call.
struct Ladder<'s, 'a, T> {
    words: &'s AtomicSlice<'a, u64>,
    /// The first word of each level.
    levels: [usize; 3],
    tag: u32,
    _t: PhantomData<T>,
}

/// The bytes of word `j` of a value of `T`: `[8 j, 8 j + 8)` clipped to
/// its size.
#[inline(always)]
fn word_bytes<T>(j: usize) -> core::ops::Range<usize> {
    let from = (8 * j).min(size_of::<T>());
    from..(from + 8).min(size_of::<T>())
}

/// Word `j` of `value`: its bytes `8 j` to `8 j + 7`, the first the least
/// significant, zero beyond its size.
#[inline(always)]
fn word<T: Pod>(value: &T, j: usize) -> u64 {
    let bytes = word_bytes::<T>(j);
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(&bytemuck::bytes_of(value)[bytes]);
    u64::from_le_bytes(w)
}

/// Sets word `j` of `value` to `w` (its bytes within the size of `T`).
#[inline(always)]
fn set_word<T: Pod>(value: &mut T, j: usize, w: u64) {
    let bytes = word_bytes::<T>(j);
    let n = bytes.len();
    bytemuck::bytes_of_mut(value)[bytes].copy_from_slice(&w.to_le_bytes()[..n]);
}

impl<'s, 'a, T: Pod> Ladder<'s, 'a, T> {
    /// The ladder of `tiles` tiles from slot `first` of `words`, tagged
    /// `tag`; stops the kernel when the words do not hold it.
    #[inline(always)]
    #[track_caller]
    fn new(words: &'s AtomicSlice<'a, u64>, first: usize, tiles: usize, tag: u32) -> Self {
        let s = slot_words::<T>();
        fault::check(
            (first + ladder_slots(tiles)) * s <= words.len(),
            "grid collectives: the scratch is too small for this grid and length; allocate \
             grid_scratch_words::<T>(blocks, block_threads, scan_len) words",
        );
        let level0 = first * s;
        let level1 = level0 + tiles * s;
        let level2 = level1 + tiles / WINDOW * s;
        Ladder {
            words,
            levels: [level0, level1, level2],
            tag,
            _t: PhantomData,
        }
    }

    /// The first word of slot `i` of `level`.
    #[inline(always)]
    fn slot(&self, level: usize, i: usize) -> usize {
        self.levels[level] + i * slot_words::<T>()
    }

    /// Publishes `value` in slot `i` of `level` (one thread).
    #[inline(always)]
    fn publish(&self, level: usize, i: usize, value: T) {
        let at = self.slot(level, i);
        if packed::<T>() {
            let word = (self.tag as u64) << 32 | word(&value, 0);
            self.words.at(at).store(word, Ordering::Relaxed);
        } else {
            unrolled(value_words::<T>(), |j| {
                self.words
                    .at(at + 1 + j)
                    .store(word(&value, j), Ordering::Relaxed);
            });
            self.words.at(at).store(self.tag as u64, Ordering::Release);
        }
    }

    /// Slot `i` of `level`, when this call has published it.
    #[inline(always)]
    fn poll(&self, level: usize, i: usize) -> Option<T> {
        self.poll_at(self.slot(level, i))
    }

    /// The slot whose first word is `at`, when this call has published
    /// it.
    #[inline(always)]
    fn poll_at(&self, at: usize) -> Option<T> {
        let mut value = T::zeroed();
        if packed::<T>() {
            let word = self.words.at(at).load(Ordering::Relaxed);
            if (word >> 32) as u32 != self.tag {
                return None;
            }
            set_word(&mut value, 0, word);
        } else {
            if self.words.at(at).load(Ordering::Acquire) != self.tag as u64 {
                return None;
            }
            unrolled(value_words::<T>(), |j| {
                set_word(
                    &mut value,
                    j,
                    self.words.at(at + 1 + j).load(Ordering::Relaxed),
                );
            });
        }
        Some(value)
    }

    /// Slot `i` of `level`, once this call has published it.
    #[inline(always)]
    fn wait(&self, level: usize, i: usize) -> T {
        loop {
            if let Some(v) = self.poll(level, i) {
                return v;
            }
        }
    }
}

/// `value` of the thread with `write` (thread 0) to every thread of the
/// block: a shared slot of `slots`, then a barrier. The two slots
/// alternate (`count` counts the broadcasts), so a slot is written again
/// only after the barrier of the broadcast between, which every thread
/// reaches after reading it.
#[inline(always)]
fn broadcast<T: Pod>(
    block: &ThreadBlock,
    slots: &SharedArray<T, 2>,
    count: &mut u32,
    value: T,
    write: bool,
) -> T {
    let slot = (*count & 1) as usize;
    *count = count.wrapping_add(1);
    if write {
        slots.set(slot, value);
    }
    block.sync();
    slots.get(slot)
}

/// `op(a, b)` of the parts that exist.
#[inline(always)]
fn then<T, Op: Operator<T>>(op: &Op, a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(op.apply(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The rank-order inclusive scan of window `window` of `level` (warp 0,
/// every lane): lanes below `n` wait for their slot, lane `n` holds `own`
/// when given. Returns the scan at lane `n - 1` (when `n > 0`) and at
/// lane `n` (when `own` is given; then `n < 32`), to every lane. A lane's
/// scan depends only on the lanes below it, so every block that scans a
/// window's first lanes gets the same bits.
#[inline(always)]
fn window_scan<T: Pod, Op: Operator<T>>(
    warp: &ThreadBlockTile<32>,
    ladder: &Ladder<'_, '_, T>,
    level: usize,
    window: usize,
    n: usize,
    own: Option<T>,
    op: &Op,
) -> (Option<T>, Option<T>) {
    let lane = warp.thread_rank() as usize;
    let got = (lane < n).then(|| ladder.wait(level, window * WINDOW + lane));
    scan_window(warp, got, n, own, op)
}

/// The slots a look-back reads, each by its own lane of warp 0, all
/// polled in one loop: level 0's slots `32 w + lane` for lanes below
/// `n`, level 1's `32 k + lane` for lanes below `m`, and `Q[k - 1]` in
/// lane 31 (which has no slot of level 1: `m < 32`) when `k > 0`, for
/// the tile at `p` (`n` is `l`, or `l + 1` for a total through it).
/// When every slot is there, that is one round trip to L2, where waiting
/// level by level took one a level. Every lane; a lane without a slot of
/// a level gets `None` there.
#[inline(always)]
fn gather<T: Pod>(
    warp: &ThreadBlockTile<32>,
    ladder: &Ladder<'_, '_, T>,
    p: Place,
    n: usize,
) -> [Option<T>; 2] {
    let lane = warp.thread_rank() as usize;
    let q = lane == WINDOW - 1;
    let (want0, want1) = (lane < n, lane < p.m || (q && p.k > 0));
    // The word, not the level, chosen: a level chosen at run time is
    // a variable index into the ladder's `levels`, which ptxas put in
    // local memory. With `k == 0` lane 31 polls nothing, so its word,
    // wrapped, is never read (`saturating_sub` cost 8 instructions).
    let at1 = if q {
        ladder.slot(2, p.k.wrapping_sub(1))
    } else {
        ladder.slot(1, p.k * WINDOW + lane)
    };
    let (mut got0, mut got1) = (None, None);
    loop {
        if want0 && got0.is_none() {
            got0 = ladder.poll(0, p.w * WINDOW + lane);
        }
        if want1 && got1.is_none() {
            got1 = ladder.poll_at(at1);
        }
        if (!want0 || got0.is_some()) && (!want1 || got1.is_some()) {
            return [got0, got1];
        }
    }
}

/// [`window_scan`] of slots already [`gather`]ed (`got`, lanes below
/// `n`).
#[inline(always)]
fn scan_window<T: Pod, Op: Operator<T>>(
    warp: &ThreadBlockTile<32>,
    got: Option<T>,
    n: usize,
    own: Option<T>,
    op: &Op,
) -> (Option<T>, Option<T>) {
    if n == 0 {
        return (None, own);
    }
    let lane = warp.thread_rank() as usize;
    let v = if lane < n { got } else { own }.unwrap_or_else(T::zeroed);
    let scan = inclusive_scan(warp, v, RankOrder(op));
    let before = warp.shfl(scan, (n - 1) as u32);
    let through = own.map(|_| warp.shfl(scan, n as u32));
    (Some(before), through)
}

/// `Q[k - 1]` from lane 31's [`gather`] to every lane, when `k > 0`.
#[inline(always)]
fn q_before<T: Pod>(warp: &ThreadBlockTile<32>, k: usize, got: Option<T>) -> Option<T> {
    (k > 0).then(|| warp.shfl(got.unwrap_or_else(T::zeroed), WINDOW as u32 - 1))
}

/// Tile `t = 1024 k + 32 m + l` split into its places in the windows.
#[derive(Clone, Copy)]
struct Place {
    l: usize,
    w: usize,
    m: usize,
    k: usize,
}

impl Place {
    #[inline(always)]
    fn of(t: usize) -> Self {
        let w = t / WINDOW;
        Place {
            l: t % WINDOW,
            w,
            m: w % WINDOW,
            k: w / WINDOW,
        }
    }
}

/// Tile `t`'s exclusive prefix (`None` for tile 0), after its aggregate
/// `agg` is published and, for a tile closing a window of 32, the
/// window's aggregate ([`publish_window`]), with its last duty: the tile
/// closing a window of 1024 publishes the prefix through it. Warp 0 of
/// the tile's block, every lane.
#[inline(always)]
fn tile_prefix<T: Pod, Op: Operator<T>>(
    warp: &ThreadBlockTile<32>,
    ladder: &Ladder<'_, '_, T>,
    t: usize,
    agg: T,
    op: &Op,
) -> Option<T> {
    let p = Place::of(t);
    let Place { l, m, k, .. } = p;
    let lead = warp.thread_rank() == 0;
    let closes_32 = l == WINDOW - 1;
    let closes_1024 = closes_32 && m == WINDOW - 1;
    let [g0, g1] = gather(warp, ladder, p, l);
    let (s1, a1) = scan_window(warp, g0, l, closes_32.then_some(agg), op);
    let own = if closes_1024 { a1 } else { None };
    let (s2, a2) = scan_window(warp, g1, m, own, op);
    let q = q_before(warp, k, g1);
    if let (Some(a2), true) = (a2, lead) {
        ladder.publish(2, k, then(op, q, Some(a2)).unwrap_or(a2));
    }
    then(op, then(op, q, s2), s1)
}

/// The first duty of a tile closing a window of 32 (none for another
/// tile), done as soon as its aggregate `agg` is published: the window's
/// aggregate, at level 1. Every thread of the block (warp 0 works). The
/// scans do it a step before the tile's look-back, so that the tiles of
/// the windows after it, which look back a step later, find it there.
/// (Doing a window of 1024's duty there too, the prefix through it, was
/// measured slower: the closing tile's block then waits in the step that
/// publishes aggregates, for the windows of 32 closed in that step.)
#[inline(always)]
fn close_window<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    ladder: &Ladder<'_, '_, T>,
    t: usize,
    agg: T,
    op: &Op,
) {
    if Place::of(t).l == WINDOW - 1 && block.thread_rank() < WINDOW as u32 {
        publish_window(&tiled_partition::<32>(block), ladder, t, agg, op);
    }
}

/// [`close_window`]'s work, for tile `t` closing a window of 32: the
/// window's aggregate `A1` from its level-0 slots and `agg`, published
/// before anything else is waited for (a wait for the windows before it
/// first, as the look-back's, would chain the windows' publications one
/// after the other). Warp 0, every lane.
#[inline(always)]
fn publish_window<T: Pod, Op: Operator<T>>(
    warp: &ThreadBlockTile<32>,
    ladder: &Ladder<'_, '_, T>,
    t: usize,
    agg: T,
    op: &Op,
) {
    let Place { l, w, .. } = Place::of(t);
    let (_, a1) = window_scan(warp, ladder, 0, w, l, Some(agg), op);
    if let (Some(a1), 0) = (a1, warp.thread_rank()) {
        ladder.publish(1, w, a1);
    }
}

/// `op` over the aggregates of all `tiles` tiles (`tiles > 0`):
/// `op(op(Q[K - 1], S2[M - 1]), S1[L])` for the last tile. Warp 0, every
/// lane; every tile's duties must be done or under way.
#[inline(always)]
fn ladder_total<T: Pod, Op: Operator<T>>(
    warp: &ThreadBlockTile<32>,
    ladder: &Ladder<'_, '_, T>,
    tiles: usize,
    op: &Op,
) -> T {
    let p = Place::of(tiles - 1);
    let [g0, g1] = gather(warp, ladder, p, p.l + 1);
    let (s1, _) = scan_window(warp, g0, p.l + 1, None, op);
    let (s2, _) = scan_window(warp, g1, p.m, None, op);
    let q = q_before(warp, p.k, g1);
    let total = then(op, then(op, q, s2), s1);
    // `s1` is there: the window scan covers at least the last tile.
    total.unwrap_or_else(T::zeroed)
}

/// Thread 0 publishes tile `t`'s aggregate `total`.
#[inline(always)]
fn publish_tile<T: Pod>(block: &ThreadBlock, ladder: &Ladder<'_, '_, T>, t: usize, total: T) {
    if block.thread_rank() == 0 {
        ladder.publish(0, t, total);
    }
}

/// Tile `t`'s exclusive prefix (`None` for tile 0) to every thread of its
/// block, its aggregate `tile_total` published before
/// ([`publish_tile`]). Every thread of the block; one broadcast unless
/// `t == 0`.
#[inline(always)]
fn tile_prefix_to_block<T: Pod, Op: Operator<T>>(
    block: &ThreadBlock,
    ladder: &Ladder<'_, '_, T>,
    slots: &SharedArray<T, 2>,
    count: &mut u32,
    t: usize,
    tile_total: T,
    op: &Op,
) -> Option<T> {
    if t == 0 {
        return None;
    }
    let rank = block.thread_rank();
    let mut found = T::zeroed();
    if rank < WINDOW as u32 {
        let warp = tiled_partition::<32>(block);
        found = tile_prefix(&warp, ladder, t, tile_total, op).unwrap_or(found);
    }
    Some(broadcast(block, slots, count, found, rank == 0))
}

/// What every grid collective checks first: a cooperative launch (every
/// block resident, so waiting for another block ends) and a whole warp 0.
#[inline(always)]
#[track_caller]
fn require(grid: &GridGroup, block: &ThreadBlock, what: &'static str) {
    grid.require_cooperative(what);
    fault::check(
        block.num_threads() >= WINDOW as u32,
        "grid collectives need blocks of at least 32 threads (warp 0 looks back over 32 slots)",
    );
}

/// `op` over the `value` of every thread of the grid, returned to every
/// thread (CUDA has no such call; CUB's `DeviceReduce` from inside a
/// kernel). The order of combination is fixed (see the module docs), so a
/// float total has the same bits on every run. Back to back on one
/// scratch needs no barrier.
///
/// ```ignore
/// let mut scratch = grid_scratch!(u32, words);
/// let n = grid_reduce(&grid, &mut scratch, count, Plus);
/// let top = grid_reduce(&grid, &mut scratch, count, Greater);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_reduce<T: Pod, Op: Operator<T>>(
    grid: &GridGroup,
    scratch: &mut GridScratch<'_, T>,
    value: T,
    op: Op,
) -> T {
    let block = this_thread_block();
    require(grid, &block, "grid_reduce");
    let agg = block_reduce(&block, &scratch.block, value, RankOrder(&op));
    scratch.reduces = scratch.reduces.wrapping_add(1);
    let blocks = grid.num_blocks() as usize;
    let first = (scratch.reduces & 1) as usize * ladder_slots(blocks);
    let b = grid.block_rank() as usize;
    let ladder = Ladder::new(&scratch.words, first, blocks, scratch.reduces);
    if block.thread_rank() == 0 {
        ladder.publish(0, b, agg);
    }
    let mut total = T::zeroed();
    if block.thread_rank() < WINDOW as u32 {
        let warp = tiled_partition::<32>(&block);
        // The block's duties as a tile (its prefix is not needed): a
        // window of 32's aggregate, and a window of 1024's prefix `Q`.
        if b % WINDOW == WINDOW - 1 {
            publish_window(&warp, &ladder, b, agg, &op);
            if Place::of(b).m == WINDOW - 1 {
                tile_prefix(&warp, &ladder, b, agg, &op);
            }
        }
        total = ladder_total(&warp, &ladder, blocks, &op);
    }
    let write = block.thread_rank() == 0;
    broadcast(
        &block,
        &scratch.shared,
        &mut scratch.broadcasts,
        total,
        write,
    )
}

/// Accumulators of a thread in [`grid_reduce_slice`].
const SLICE_LANES: usize = 8;

/// 16-byte groups a thread loads an iteration in [`grid_reduce_slice`]
/// (4-byte values): 64 bytes in flight, as CUB's `DeviceReduce` (16
/// values a thread, four vector loads).
const SLICE_GROUPS: usize = 4;

/// `op` over every element of `input`, returned to every thread (CUB's
/// `DeviceReduce::Reduce` inside a cooperative kernel; with `Plus`, the
/// sum of a slice): `identity` for an empty slice. Every thread of the
/// grid calls it with the same arguments, as [`grid_reduce`] (the same
/// scratch rules; the scratch needs no scan words).
///
/// `identity` must be an identity of `op` (`0` for a sum, the smallest
/// value for a maximum): threads without elements contribute it. The
/// elements are combined in grid-stride order, not index order, so `op`
/// must be commutative as well as associative (CUB's `DeviceReduce` asks
/// the same). The order is still fixed, so a float sum has the same bits
/// on every run. Thread `g` of `S` starts eight accumulators `a0..a7`
/// from `identity`, and then:
///
/// * **4-byte `T`** at a 4-byte aligned address (as every device
///   buffer is), `input` split at 16-byte boundaries into a head (at
///   most three elements; none for a device buffer, which starts
///   aligned), groups of four and a tail (`len % 4` for an aligned
///   slice): `a0` takes head element `g`; the thread takes groups `g + k
///   S'` (`S'`, `S` clamped to the number of groups), element `e` of its
///   `k`-th into `a[4 (k % 2) + e]` (four 16-byte loads in flight an
///   iteration); then `a4` takes tail element `g`.
/// * **Any other `T`**: elements `g + k S` (`S` clamped to the length),
///   the `k`-th into `a[k % 8]` (eight loads in flight).
///
/// The thread's value is the pairwise tree `op(op(op(a0, a1), op(a2,
/// a3)), op(op(a4, a5), op(a6, a7)))`, and [`grid_reduce`] takes it from
/// there.
///
/// ```ignore
/// let mut scratch = grid_scratch!(f32, words);
/// let sum = grid_reduce_slice(&grid, &mut scratch, x, 0.0, Plus);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_reduce_slice<T: Pod, Op: Operator<T>>(
    grid: &GridGroup,
    scratch: &mut GridScratch<'_, T>,
    input: &[T],
    identity: T,
    op: Op,
) -> T {
    let g = grid.thread_rank() as usize;
    let threads = grid.num_threads() as usize;
    let mut acc = [identity; SLICE_LANES];
    let mut fold = |a: usize, x: T| acc[a] = op.apply(acc[a], x);
    match split_quads(input) {
        Some((head, groups, tail)) => {
            if let Some(&x) = head.get(g) {
                fold(0, x);
            }
            // Batches of an even number of groups, so the `k`-th of a
            // batch is the thread's group of that parity.
            strided_batches::<_, SLICE_GROUPS>(groups, g, threads, |k, q| {
                unrolled(4, |e| fold(4 * (k % 2) + e, bytemuck::cast(q.0[e])));
            });
            if let Some(&x) = tail.get(g) {
                fold(4, x);
            }
        }
        None => strided_batches::<_, SLICE_LANES>(input, g, threads, &mut fold),
    }
    let pair = |a: usize| op.apply(acc[a], acc[a + 1]);
    let own = op.apply(op.apply(pair(0), pair(2)), op.apply(pair(4), pair(6)));
    grid_reduce(grid, scratch, own, op)
}

/// The elements of `input[at..at + items]` that exist into `x[..items]`
/// (`unrolled`: constant indices, so `x` stays in registers), and how
/// many exist. A whole run (every thread of every tile but the last) is
/// one bounds check and loads issued back to back, 16 bytes each where
/// the run is 16-byte aligned 4-byte values: with a test per element,
/// each load sat in a branch after the use of the one before, so the
/// loads ran one memory latency apart.
#[inline(always)]
fn thread_items<T: Pod>(input: &[T], at: usize, items: usize, x: &mut [T; MAX_ITEMS]) -> usize {
    match input.get(at..at.saturating_add(items)) {
        Some(run) => {
            match quads(run) {
                Some(q) => {
                    // Whole groups, each one `ld.global.v4`.
                    let mut g = [Vec4([0u32; 4]); MAX_ITEMS / 4];
                    unrolled(items / 4, |k| g[k] = q[k]);
                    unrolled(items, |j| x[j] = bytemuck::cast(g[j / 4].0[j % 4]));
                }
                None => unrolled(items, |j| x[j] = run[j]),
            }
            items
        }
        None => {
            let present = input.len().saturating_sub(at).min(items);
            unrolled(items, |j| {
                if j < present {
                    x[j] = input[at + j];
                }
            });
            present
        }
    }
}

/// `y[..present]` into `run`, the thread's run of the output (at least
/// `present` long): a whole run of 16-byte aligned 4-byte values as
/// `st.global.v4`s, any other one value by value.
#[inline(always)]
fn store_items<T: Pod>(run: &mut [T], present: usize, items: usize, y: &[T; MAX_ITEMS]) {
    if present == items {
        let groups = run.get_mut(..items).and_then(quads_mut);
        if let Some(q) = groups.and_then(|q| q.get_mut(..items / 4)) {
            let mut g = [Vec4([0u32; 4]); MAX_ITEMS / 4];
            unrolled(items, |j| g[j / 4].0[j % 4] = bytemuck::cast(y[j]));
            unrolled(items / 4, |k| q[k] = g[k]);
            return;
        }
    }
    // Last to first: were the last store here the groups' last value's,
    // LLVM would sink the two into one store after the branch and split
    // the group it came from.
    unrolled(items, |i| {
        let j = items - 1 - i;
        if j < present {
            run[j] = y[j];
        }
    });
}

/// How a selection's threads take a tile: warp-striped when every warp
/// of the block is whole (the block's thread count a multiple of 32, the
/// same in every thread), so that each of a warp's loads is 32
/// consecutive elements and so is each of its stores ([`Kept::write_rows`]);
/// else blocked, each thread `items` consecutive elements, as the scans.
#[derive(Clone, Copy)]
struct SelectLayout {
    striped: bool,
    /// The block's rank of the thread.
    rank: usize,
    /// Elements a thread takes per tile.
    items: usize,
}

impl SelectLayout {
    /// The thread's elements of the tile that starts at `tile`, into
    /// `x[..items]`, and which exist (a bit each). Striped: lane `l` of
    /// the warp whose part starts at `at` takes `at + 32 j + l` for
    /// `j < items`; blocked: thread `r` takes `tile + r items + j`.
    #[inline(always)]
    fn load<T: Pod>(self, input: &[T], tile: usize, x: &mut [T; MAX_ITEMS]) -> u32 {
        let items = self.items;
        let mut present = 0;
        let mut take = |j: usize, i: usize| {
            if let Some(&v) = input.get(i) {
                x[j] = v;
                present |= 1 << j;
            }
        };
        // Each path's loads at constant offsets from one address (with
        // the stride a variable, ptxas kept each load's address in
        // registers: 96 where the selection had 70), and each load
        // checked alone, so that the two paths together stay within the
        // kernels' 64 registers.
        if self.striped {
            let lane = self.rank % 32;
            let at = tile + (self.rank - lane) * items + lane;
            unrolled(items, |j| take(j, at.saturating_add(32 * j)));
        } else {
            let at = tile + self.rank * items;
            unrolled(items, |j| take(j, at.saturating_add(j)));
        }
        present
    }
}

/// A thread's elements of a selection's tile ([`SelectLayout::load`]),
/// which of them it keeps (bit `j` for `x[j]`), and where they go.
struct Kept<'x, T> {
    x: &'x [T; MAX_ITEMS],
    keep: u32,
    items: usize,
    /// The output's first element.
    dst: *mut T,
    site: Site,
}

impl<T: Pod> Kept<'_, T> {
    /// Striped: the kept elements of the caller's (whole) warp to
    /// consecutive places from `first`, in element order: row `j` (the
    /// warp's elements `x[j]`, consecutive) after the rows before it,
    /// each kept element after the kept ones of the lower lanes of its row
    /// (`ballot`), so that each row's stores are consecutive.
    #[inline(always)]
    fn write_rows(&self, warp: &ThreadBlockTile<32>, first: u32) {
        let below = (1u32 << warp.thread_rank()) - 1;
        let mut to = first;
        unrolled(self.items, |j| {
            let kept = self.keep & (1 << j) != 0;
            let row = warp.ballot(kept);
            if kept {
                self.put(to + (row & below).count_ones(), j);
            }
            to += row.count_ones();
        });
    }

    /// Blocked: the thread's kept elements to consecutive places from
    /// `first`.
    #[inline(always)]
    fn write_run(&self, first: u32) {
        let mut to = first;
        unrolled(self.items, |j| {
            if self.keep & (1 << j) != 0 {
                self.put(to, j);
                to += 1;
            }
        });
    }

    /// `x[j]` to place `to`, one of the tile's places, which
    /// `grid_select` checked are below `room`.
    #[inline(always)]
    fn put(&self, to: u32, j: usize) {
        let to = to as usize;
        self.site.exclusive(self.dst.wrapping_add(to));
        // SAFETY: `to` is one of the tile's places, below the tile's
        // prefix plus its count, at most `room` (checked in
        // `grid_select`), the output's length, so in its allocation; the
        // places are the kept elements' ranks in element order (an
        // exclusive scan of the kept counts), so each is written by one
        // thread once; the output is this kernel's alone (an `Output`
        // parameter), `&mut` in `grid_select`, and in the `Selection`
        // pattern, which nothing else writes.
        unsafe { self.dst.add(to).write(self.x[j]) };
    }
}

/// A tile between its two steps. A block publishes a tile's aggregate
/// in one step and looks back for its prefix (and writes its results) in
/// the next, after publishing its next tile's aggregate: by then the
/// tiles before it in its window, which other blocks took in the same
/// step, have published theirs, so the look-back rarely waits. (Done in
/// one step, every tile waited for the slowest of the blocks that took
/// its window's earlier tiles.) The elements are read again in the
/// second step, from L2, rather than kept in registers.
#[derive(Clone, Copy)]
struct Lagged<T> {
    /// The tile's index.
    t: usize,
    /// The thread's exclusive prefix within the tile.
    before: T,
    /// The tile's aggregate.
    total: T,
    /// Which of the thread's elements a selection keeps (a bit each).
    keep: u32,
}

/// Asks L2 for tile `t` of `input` (tiles of `tile_len` elements), the
/// block's next: one 128-byte line a thread from the tile's first
/// element, so that the block's loads of it a step later wait for L2, not
/// for memory. The lines in flight toward L2 take no registers. Nothing
/// past the input or the tile is asked for; a block of `r` threads
/// covers `128 r` bytes, more than a tile of at most 32 bytes a thread.
#[inline(always)]
fn prefetch_tile<T>(input: &[T], t: usize, tile_len: usize, rank: usize) {
    const LINE: usize = 128;
    let start = t.saturating_mul(tile_len);
    let at = start.saturating_add(rank * (LINE / size_of::<T>().max(1)));
    if at < input.len() && at < start.saturating_add(tile_len) {
        intrinsics::prefetch_l2(input.as_ptr().wrapping_add(at));
    }
}

/// The tiles a block takes, grid-stride from its rank, below `tiles`.
#[inline(always)]
fn block_tiles(grid: &GridGroup, tiles: usize) -> impl Iterator<Item = usize> {
    let (first, step) = (grid.block_rank() as usize, grid.num_blocks() as usize);
    (first..tiles).step_by(step.max(1))
}

/// [`grid_exclusive_scan`] and [`grid_inclusive_scan`].
#[inline(always)]
#[track_caller]
fn grid_scan<'a, T: Pod, Op: Operator<T>>(
    grid: &GridGroup,
    mut scratch: GridScratch<'a, T>,
    input: &[T],
    out: &mut Output<T, Chunks<Runs>>,
    op: Op,
    inclusive: bool,
    what: &'static str,
) -> UsedGridScratch<'a, T> {
    let block = this_thread_block();
    require(grid, &block, what);
    let n = input.len();
    fault::check(
        out.len() >= n,
        "grid scan: the output is shorter than the input",
    );
    // SAFETY: a function of `T` alone, so the same in every thread.
    let per_thread = unsafe { Uniform::new_unchecked(items_per_thread::<T>()) };
    let tile_len = Uniform::<usize>::from(block.uniform_num_threads()) * per_thread;
    let items = per_thread.get();
    let tiles = n.div_ceil(tile_len.get());
    scratch.scans = scratch.scans.wrapping_add(1);
    let first = 2 * ladder_slots(grid.num_blocks() as usize);
    let ladder = Ladder::new(&scratch.words, first, tiles, scratch.scans);
    let rank = block.thread_rank() as usize;
    // Every block takes the same tiles in the same order, each in two
    // steps a tile apart (see `Lagged`): its aggregate, then its prefix and
    // results. The output's chunks are the tiles (one length, grid-stride
    // by block rank), taken at the second step.
    let mut chunks = out.block_chunks(&block, tile_len);
    let mut tiles_here = block_tiles(grid, tiles);
    let blocks = grid.num_blocks() as usize;
    let mut lagged: Option<Lagged<T>> = None;
    loop {
        // Not a closure: LLVM left these out of line in some kernels.
        let fresh = match tiles_here.next() {
            Some(t) => {
                prefetch_tile(input, t + blocks, tile_len.get(), rank);
                let at = t * tile_len.get() + rank * items;
                // The thread's elements, in registers. Threads past the end
                // scan a zero value; only the last tile has them, above every
                // element, so no result of an element sees it.
                let mut x = [T::zeroed(); MAX_ITEMS];
                let present = thread_items(input, at, items, &mut x);
                let mut own = None;
                unrolled(items, |j| {
                    if j < present {
                        own = then(&op, own, Some(x[j]));
                    }
                });
                let (before, total) = block_exclusive_scan_with_total(
                    &block,
                    &scratch.block,
                    own.unwrap_or_else(T::zeroed),
                    RankOrder(&op),
                );
                if tiles > 1 {
                    publish_tile(&block, &ladder, t, total);
                    close_window(&block, &ladder, t, total, &op);
                }
                Some(Lagged {
                    t,
                    before,
                    total,
                    keep: 0,
                })
            }
            None => None,
        };
        // The lagged tile's chunk is the next one: both go in the same
        // order.
        if let Some(l) = lagged.take() {
            if let Some(chunk) = chunks.next() {
                let (slots, count) = (&scratch.shared, &mut scratch.broadcasts);
                let prefix = tile_prefix_to_block(&block, &ladder, slots, count, l.t, l.total, &op);
                // The elements again (from L2: the tile was read one step
                // ago).
                let at = l.t * tile_len.get() + rank * items;
                let mut x = [T::zeroed(); MAX_ITEMS];
                let present = thread_items(input, at, items, &mut x);
                let mut running = then(&op, prefix, (rank > 0).then_some(l.before));
                unrolled(items, |j| {
                    let next = then(&op, running, Some(x[j]));
                    x[j] = if inclusive { next } else { running }.unwrap_or_else(T::zeroed);
                    running = next;
                });
                let (_, run) = chunk.thread_run(per_thread);
                store_items(run, present, items, &x);
            }
        }
        match fresh {
            Some(f) => lagged = Some(f),
            None => break,
        }
    }
    UsedGridScratch { scratch }
}

/// The exclusive scan of `input` into `out[..input.len()]` (CUB's
/// `DeviceScan::ExclusiveScan` inside a cooperative kernel, one pass):
/// element `i` gets `op` over `input[..i]`, element 0 `T::zeroed()`.
/// Every thread of the grid calls it with the same arguments; `out` must
/// be at least as long as `input`. Returns the scratch as used: a grid
/// barrier gives it back (and makes `out` readable: `(out, used).sync(&grid)`).
///
/// ```ignore
/// let used = grid_exclusive_scan(&grid, scratch, counts, &mut offsets, Plus);
/// let (offsets, scratch) = (offsets, used).sync(&grid);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_exclusive_scan<'a, T: Pod, Op: Operator<T>>(
    grid: &GridGroup,
    scratch: GridScratch<'a, T>,
    input: &[T],
    out: &mut Output<T, Chunks<Runs>>,
    op: Op,
) -> UsedGridScratch<'a, T> {
    grid_scan(grid, scratch, input, out, op, false, "grid_exclusive_scan")
}

/// The inclusive scan of `input` into `out[..input.len()]`: element `i`
/// gets `op` over `input[..=i]`. As [`grid_exclusive_scan`] otherwise.
///
/// ```ignore
/// let used = grid_inclusive_scan(&grid, scratch, x, &mut running, Plus);
/// let mut scratch = used.sync(&grid);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_inclusive_scan<'a, T: Pod, Op: Operator<T>>(
    grid: &GridGroup,
    scratch: GridScratch<'a, T>,
    input: &[T],
    out: &mut Output<T, Chunks<Runs>>,
    op: Op,
) -> UsedGridScratch<'a, T> {
    grid_scan(grid, scratch, input, out, op, true, "grid_inclusive_scan")
}

/// The `u64` words the [`GridScratch<u32>`] of a [`grid_select`] of at
/// most `len` values of `T` needs in a grid of `blocks` blocks of
/// `block_threads` threads (its tiles are those of a scan of `T`; the
/// counts it scans are `u32`), zeroed before every launch as for
/// [`grid_scratch_words`].
///
/// ```
/// use cg_core::grid_collectives::{grid_scratch_words, grid_select_scratch_words};
/// // 264 blocks of 256 threads selecting from 2^24 f32: 4,096 tiles.
/// let words = grid_select_scratch_words::<f32>(264, 256, 1 << 24);
/// assert_eq!(words, 2 * (264 + 8) + (4096 + 128 + 4));
/// assert_eq!(grid_select_scratch_words::<u64>(1, 32, 257), 2 + 2);   // 2 tiles of 256
/// ```
pub const fn grid_select_scratch_words<T>(blocks: u32, block_threads: u32, len: usize) -> usize {
    let tiles = tiles_of(block_threads, select_items_per_thread::<T>(), len);
    2 * ladder_slots(blocks as usize) + ladder_slots(tiles)
}

/// Stream compaction (CUB's `DeviceSelect::If` inside a cooperative
/// kernel, one pass): the elements of `input` that `keep` keeps, in their
/// order, into `out[..count]`, and `count` to every thread. Every thread
/// of the grid calls it with the same arguments; `out` needs room for the
/// kept elements only (one more stops the kernel with a failed check).
/// `out[count..]` is left as it was.
///
/// A tile is [`select_items_per_thread::<T>()`](select_items_per_thread)
/// elements a thread; each block counts what its threads keep, and the
/// counts are scanned with the same decoupled look-back as [`grid_exclusive_scan`]
/// (`u32` sums, so at most `u32::MAX` elements), over a
/// [`GridScratch<u32>`] of [`grid_select_scratch_words::<T>`](grid_select_scratch_words)
/// words. Where every warp of the block is whole, a warp takes its part
/// of a tile warp-striped (each of its loads 32 consecutive elements)
/// and writes the kept ones of each such row to consecutive places (a
/// `ballot` a row): rows of consecutive stores, as CUB's shared-memory
/// exchange gives, without the exchange. Otherwise each thread takes
/// consecutive elements and writes its kept ones straight to their
/// places.
/// Returns the count and the scratch as used: a grid barrier gives it back
/// and makes `out` readable (`(out, used).sync(&grid)`).
///
/// ```ignore
/// let (count, used) = grid_select(&grid, scratch, x, &mut kept, |v: &f32| *v > 0.0);
/// let (kept, scratch) = (kept, used).sync(&grid);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_select<'a, T: Pod>(
    grid: &GridGroup,
    mut scratch: GridScratch<'a, u32>,
    input: &[T],
    out: &mut Output<T, Selection>,
    keep: impl Fn(&T) -> bool,
) -> (usize, UsedGridScratch<'a, u32>) {
    let site = Site::here();
    let block = this_thread_block();
    require(grid, &block, "grid_select");
    let n = input.len();
    fault::check(
        n <= u32::MAX as usize,
        "grid_select counts in u32: at most u32::MAX elements",
    );
    let items = select_items_per_thread::<T>();
    let tile_len = block.num_threads() as usize * items;
    let tiles = n.div_ceil(tile_len);
    scratch.scans = scratch.scans.wrapping_add(1);
    let first = 2 * ladder_slots(grid.num_blocks() as usize);
    let ladder = Ladder::new(&scratch.words, first, tiles, scratch.scans);
    let rank = block.thread_rank() as usize;
    let layout = SelectLayout {
        striped: block.num_threads() % 32 == 0,
        rank,
        items,
    };
    let (room, dst) = (out.len(), out.as_mut_ptr());
    // Each tile in two steps a tile apart, as the scans' (`Lagged`).
    let mut tiles_here = block_tiles(grid, tiles);
    let blocks = grid.num_blocks() as usize;
    let mut lagged: Option<Lagged<u32>> = None;
    loop {
        // Not a closure: LLVM left these out of line in some kernels.
        let fresh = match tiles_here.next() {
            Some(t) => {
                prefetch_tile(input, t + blocks, tile_len, rank);
                // Which of the thread's elements it keeps, a bit each.
                let mut x = [T::zeroed(); MAX_ITEMS];
                let present = layout.load(input, t * tile_len, &mut x);
                let (mut kept, mut own) = (0u32, 0u32);
                unrolled(items, |j| {
                    if present & (1 << j) != 0 && keep(&x[j]) {
                        kept |= 1 << j;
                        own += 1;
                    }
                });
                // Threads in rank order, so a warp's first lane's
                // `before` is its warp's first place in the tile (striped),
                // and each thread's its own (blocked).
                let (before, total) =
                    block_exclusive_scan_with_total(&block, &scratch.block, own, RankOrder(&Plus));
                publish_tile(&block, &ladder, t, total);
                close_window(&block, &ladder, t, total, &Plus);
                Some(Lagged {
                    t,
                    before: if rank > 0 { before } else { 0 },
                    total,
                    keep: kept,
                })
            }
            None => None,
        };
        if let Some(l) = lagged.take() {
            let (slots, count) = (&scratch.shared, &mut scratch.broadcasts);
            let prefix = tile_prefix_to_block(&block, &ladder, slots, count, l.t, l.total, &Plus);
            // The elements again (from L2).
            let mut x = [T::zeroed(); MAX_ITEMS];
            layout.load(input, l.t * tile_len, &mut x);
            // In `u32`: every place is below the count, at most
            // `u32::MAX` (checked above).
            let first = prefix.unwrap_or(0);
            // The tile's places, `first..first + total`: one check for
            // all of them, the same in every thread.
            fault::check(
                (first + l.total) as usize <= room,
                "grid_select: the output is shorter than the selection",
            );
            let kept = Kept {
                x: &x,
                keep: l.keep,
                items,
                dst,
                site,
            };
            if layout.striped {
                let warp = tiled_partition::<32>(&block);
                kept.write_rows(&warp, first + warp.shfl(l.before, 0));
            } else {
                kept.write_run(first + l.before);
            }
        }
        match fresh {
            Some(f) => lagged = Some(f),
            None => break,
        }
    }
    let mut total = 0;
    if tiles > 0 {
        if rank < WINDOW {
            let warp = tiled_partition::<32>(&block);
            total = ladder_total(&warp, &ladder, tiles, &Plus);
        }
        let (slots, count) = (&scratch.shared, &mut scratch.broadcasts);
        total = broadcast(&block, slots, count, total, rank == 0);
    }
    (total as usize, UsedGridScratch { scratch })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value` through its words, as a slot carries it.
    fn through_words<T: Pod>(value: T) -> T {
        let mut back = T::zeroed();
        unrolled(value_words::<T>(), |j| {
            set_word(&mut back, j, word(&value, j))
        });
        back
    }

    #[test]
    fn values_round_trip_through_words() {
        let v = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        assert_eq!(through_words(v), v);
        assert_eq!(word(&v, 1), 0x0c0b_0a09);
        assert_eq!(through_words(0xbeefu16), 0xbeef);
        assert_eq!(word(&0xbeefu16, 0), 0xbeef);
        assert_eq!(through_words([7u8, 8, 9]), [7, 8, 9]);
        let w = [u64::MAX, 1, 2, 3];
        assert_eq!(through_words(w), w);
        assert_eq!(word(&w, 3), 3);
        assert_eq!(through_words(-1.5f64), -1.5);
    }

    #[test]
    fn slots_and_items_by_size() {
        assert_eq!(slot_words::<u32>(), 1);
        assert_eq!(slot_words::<u8>(), 1);
        assert_eq!(slot_words::<u64>(), 2);
        assert_eq!(slot_words::<[u32; 3]>(), 3);
        assert_eq!(slot_words::<[u64; 4]>(), 5);
        assert_eq!(items_per_thread::<u8>(), 8);
        assert_eq!(items_per_thread::<u64>(), 4);
        assert_eq!(items_per_thread::<[u32; 3]>(), 2);
        assert_eq!(items_per_thread::<[u64; 4]>(), 1);
    }

    #[test]
    fn ladder_slots_count_closed_windows() {
        assert_eq!(ladder_slots(0), 0);
        assert_eq!(ladder_slots(31), 31);
        assert_eq!(ladder_slots(32), 33);
        assert_eq!(ladder_slots(1024), 1024 + 32 + 1);
        assert_eq!(grid_scratch_words::<u32>(7, 32, 0), 2 * 7);
        assert_eq!(grid_scratch_words::<u64>(7, 32, 129), 2 * (2 * 7 + 2));
    }
}
