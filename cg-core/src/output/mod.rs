//! Kernel outputs written without `unsafe`: buffers whose elements are
//! handed out only in patterns where no two threads can reach one element.
//!
//! A `#[kernel]` parameter `out: Output<T, P>` is a device buffer the host
//! passes as `&mut DeviceBuffer<T>` (no other parameter of the launch can
//! name it). Every thread holds its own `Output`, and gets `&mut T` to an
//! element only through the pattern `P`, derived from its own coordinates
//! ([`pattern`] lists them):
//!
//! | pattern `P` | methods | element(s) of this thread |
//! |---|---|---|
//! | [`Threads`] (the default: `Output<T>`) | [`thread_element`](Output::thread_element), [`for_thread`](Output::for_thread), [`grid_stride`](Output::grid_stride) | `grid.thread_rank()`, and every `grid.num_threads()` after it |
//! | [`Grid2d`], [`Grid3d`] | [`thread_element_2d`](Output::thread_element_2d), [`thread_element_3d`](Output::thread_element_3d) | `y * width + x` of `grid.thread_index()` |
//! | [`Points`] | [`grid_stride_window`](Output::grid_stride_window), [`walk`](Output::walk), [`grid_stride_stencil`](Output::grid_stride_stencil), [`stencil`](Output::stencil) | a window's points, numbered row by row, grid-stride (a stencil: the interior's, with their neighbours in a source array) |
//! | [`Leaders<G>`] | [`leader_element`](Output::leader_element), [`for_leader`](Output::for_leader) | the group's index in the grid (block, tile, cluster) |
//! | [`Chunks`], [`Chunks<Runs>`] | [`block_chunk`](Output::block_chunk), [`block_chunks`](Output::block_chunks) | `[c * len, (c + 1) * len)`, then a block stride of it ([`Chunk`]'s methods) or a run of consecutive elements per thread ([`Chunk::thread_run`]) |
//! | [`Tiles2d`], [`Tiles2d<Transposed>`] | [`block_tile`](Output::block_tile), then [`TileColumn::for_each`] | in block `(x, y)`'s 2-D tile, column `tx` and rows `ty`, `ty + BLOCK_ROWS`, .. |
//! | [`Selection`] | none: [`grid_select`](crate::grid_collectives::grid_select) writes it | the places of the kept elements, by the data |
//!
//! **One pattern per phase, in the type.** Within a pattern no two threads
//! own one element; across patterns they can (thread 1 of the grid and
//! block 1's leader both own element 1). So the pattern is the buffer's
//! type: a method of another pattern does not compile, in any branch of
//! any thread. The pattern changes only at a grid barrier:
//! [`Synced::into_output_as`] turns a read view into a write view of any
//! pattern. The arguments that shape a pattern (a chunk's length, a
//! width, a window, a run's length) are [`Uniform`] values: the same in
//! every thread, by construction.
//!
//! Each method borrows the `Output` mutably, so one thread never holds two
//! `&mut` to one element either. The `for_*` forms (`for_thread`,
//! `for_leader`, `Chunk::for_thread`) call a closure instead of returning
//! an `Option<&mut T>`: they compile to a predicated store, where the
//! compiler does not always fold the `Option`'s null test. Bounds are
//! checked once per pattern (the loop condition of a stride is its bound
//! check); an element beyond the buffer is not handed out (`None`, or the
//! loop ends).
//!
//! **Reading what other threads wrote** needs a grid barrier between the
//! writes and the reads. [`Output::sync`] is that barrier: it consumes the
//! write view and returns a [`Synced`] read view (`Deref<Target = [T]>`)
//! after `grid.sync()`, so no `&mut T` can outlive it (a borrow of the
//! `Output` kept across `sync` is a compile error).
//! [`Synced::into_output`] turns it back into a write view after another
//! barrier, and [`Output::sync_swap`] does both for a pair of buffers with
//! one barrier (ping-pong sweeps). A `#[kernel]` parameter can also start
//! as `Synced<T>`: readable from the start, writable after a barrier.
//! The barrier is the grid's, or a multi-grid's ([`GridBarrier`]), whose
//! barrier includes its grid's: across GPUs, a buffer another GPU writes
//! (a halo row, through peer memory) is read after `multi_grid.sync()`.
//!
//! **Atomics** need no ownership: a `#[kernel]` parameter
//! `bins: AtomicSlice<T>` (see [`atomic`](crate::atomic)) is a buffer every
//! thread may update atomically, and only atomically: a buffer is either an
//! `Output` or an `AtomicSlice` for the whole launch, so plain and atomic
//! accesses to one element cannot race.
//!
//! **What the types rest on**, as CUDA's barriers do: every thread of the
//! grid reaches the same `grid.sync()` calls. A thread that writes after
//! a raw `grid.sync()` while another reads after [`Output::sync`] at
//! another line is barrier divergence, undefined in CUDA; and two values
//! of one pattern's shape in one phase (chunks of 64, then of 128) are two
//! patterns the types do not tell apart. The simulator (`cg_core::sim`,
//! the `sim` feature) checks both at run time and reports a barrier
//! divergence or a race as a fault that names both threads and both
//! lines (docs/safety.md says what is checked where).
//!
//! Where an ordering comes from atomics instead of a barrier (the
//! last block of a "last block done" reduction reads every block's
//! partial), [`Output::assume_synced`] is the `unsafe` escape hatch; so is
//! [`Output::as_mut_ptr`].

mod chunks;
mod leaders;
pub mod pattern;
mod positions;
mod threads;
mod tiles;
mod window;

pub use chunks::{BlockChunks, Chunk, Owned, Round, RoundReading, Rounds, RoundsReading};
pub use leaders::LeaderSlot;
pub use pattern::{
    AtBlock, Chunks, Grid2d, Grid3d, Leaders, Pattern, Points, Runs, Selection, Strided, Threads,
    Tiles2d, Transposed,
};
pub use threads::GridStride;
pub use tiles::TileColumn;
pub use window::{Neighbours, Point, StencilStride, StencilWalk, Walk, Window, WindowStride};

use crate::checks::{self, Site};
use crate::grid::GridGroup;
use crate::group::GroupSync;
use crate::multi_grid::MultiGridGroup;
#[cfg(doc)]
use crate::uniform::Uniform;
use crate::Pod;
use core::marker::PhantomData;

/// A barrier every thread of the grid takes part in, which is what the
/// phases of an [`Output`] need: [`GridGroup`]'s, or [`MultiGridGroup`]'s
/// (a barrier over every GPU's grid, its own included). Only these two
/// (the trait's supertrait is sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a barrier over the whole grid",
    label = "an `Output` may be written by any thread of the grid, so only a barrier every thread of the grid takes part in orders its writes before the reads",
    note = "pass the grid (`this_grid()`), or the multi-grid (`this_multi_grid()`) in a #[kernel(multi_grid)]"
)]
pub trait GridBarrier: GroupSync {}

impl GridBarrier for GridGroup {}
impl GridBarrier for MultiGridGroup {}

/// A kernel output buffer of `T`, written by its owners only (see the
/// module docs), in the pattern `P` for this phase. Not `Copy`: each
/// thread has one.
///
/// A grid-stride loop over an output, each element reached as `&mut T` by
/// the one thread it belongs to, run on the simulator (the `sim` feature;
/// on the host the kernel's parameter is a `&mut DeviceBuffer<f32>`):
///
#[cfg_attr(feature = "sim", doc = "```")]
#[cfg_attr(not(feature = "sim"), doc = "```ignore")]
/// use cg_core::prelude::*;
/// use cg_core::sim::{self, Buffer, Shape};
///
/// #[kernel]
/// pub fn saxpy(a: f32, x: &[f32], y: &[f32], mut out: Output<f32>) {
///     let y = &y[..x.len()];
///     out.truncate(x.len());
///     for (i, o) in out.grid_stride(&this_grid()) {
///         *o = a * x[i] + y[i];
///     }
/// }
///
/// let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
/// let y = vec![1.0f32; 1000];
/// let out = Buffer::<f32>::filled(1000, f32::NAN);
/// sim::launch(Shape::new(2, 128), || saxpy(0.5, &x, &y, out.view())).unwrap();
/// assert!(out.to_vec().iter().enumerate().all(|(i, z)| *z == 0.5 * i as f32 + 1.0));
/// ```
pub struct Output<T: Pod, P: Pattern = Threads> {
    ptr: *mut T,
    len: usize,
    /// The length the launch passed, which no `truncate` changes: the same
    /// in every thread.
    launch_len: usize,
    pattern: PhantomData<fn() -> P>,
}

/// A buffer every thread may read: the writes before the barrier that
/// made it are visible. Read it as a slice (`Deref<Target = [T]>`).
pub struct Synced<T: Pod> {
    ptr: *mut T,
    len: usize,
    /// As [`Output`]'s.
    launch_len: usize,
}

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The `len` elements at `ptr` as an output.
    ///
    /// # Safety
    /// `ptr` is not null (even when `len` is 0: a slice's rule, which
    /// [`Synced`]'s slice view relies on too) and points to `len` valid
    /// elements of `T` that, during the kernel,
    /// no thread reaches except through this `Output` (or the copies other
    /// threads of the launch hold of it). `#[kernel]` builds its `Output`
    /// parameters with this, from a `&mut DeviceBuffer` of the host.
    #[inline(always)]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        checks::buffer(ptr, len);
        Output::phase(ptr, len, len)
    }

    /// The buffer in a new phase: the barrier (or the launch) that starts
    /// it is the caller's.
    #[inline(always)]
    fn phase(ptr: *mut T, len: usize, launch_len: usize) -> Self {
        Output {
            ptr,
            len,
            launch_len,
            pattern: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of elements the launch passed (before any
    /// [`truncate`](Self::truncate)), as a [`Uniform`] value: the same in
    /// every thread, so a pattern's shape may be made from it (a chunk per
    /// block: `out.launch_len().div_ceil(grid.uniform_num_blocks())`).
    #[inline(always)]
    pub fn launch_len(&self) -> crate::uniform::Uniform<usize> {
        // SAFETY: the launch's length, which no method changes, and every
        // thread's `Output` of the buffer starts from the launch's.
        unsafe { crate::uniform::Uniform::new_unchecked(self.launch_len) }
    }

    /// Whether the buffer is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps only the first `len` elements (no change when the buffer is
    /// shorter): every pattern after it stops there.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The buffer's address, for code the patterns do not cover. Writing
    /// through it is `unsafe`: the caller shows that no other thread writes
    /// or reads the same element meanwhile.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }

    /// # Safety
    /// `i < self.len`, and no other live reference reaches element `i`.
    #[inline(always)]
    unsafe fn element(&mut self, i: usize, site: Site) -> &mut T {
        // SAFETY: the caller's contract.
        unsafe { element_at(self.ptr, i, site) }
    }

    /// `grid.sync()`, then the buffer as every thread may read it. The
    /// write view is consumed: no element can be written again until
    /// [`Synced::into_output`] (another barrier).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync(self, grid: &impl GridBarrier) -> Synced<T> {
        grid.sync();
        Synced {
            ptr: self.ptr,
            len: self.len,
            launch_len: self.launch_len,
        }
    }

    /// One `grid.sync()` for a pair of ping-pong buffers: this one becomes
    /// readable and `read` (done being read) writable, in this one's
    /// pattern.
    ///
    /// ```ignore
    /// for _ in 0..sweeps {
    ///     sweep(&src, &mut dst);
    ///     (src, dst) = dst.sync_swap(src, &grid);
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_swap(self, read: Synced<T>, grid: &impl GridBarrier) -> (Synced<T>, Self) {
        grid.sync();
        (
            Synced {
                ptr: self.ptr,
                len: self.len,
                launch_len: self.launch_len,
            },
            Output::phase(read.ptr, read.len, read.launch_len),
        )
    }

    /// The buffer in the pattern `Q` from here on, without a barrier: for
    /// a kernel that picks its pattern by a launch parameter.
    ///
    /// # Safety
    /// No thread of the grid writes or reads the buffer in another pattern
    /// in this phase (every thread makes the same choice: the parameter it
    /// picks by is the same in every thread).
    #[inline(always)]
    pub unsafe fn into_pattern<Q: Pattern>(self) -> Output<T, Q> {
        Output::phase(self.ptr, self.len, self.launch_len)
    }

    /// The buffer as a read view, without a barrier. On the simulator it is
    /// an acquire of the buffer: the race check takes every access to it
    /// so far as ordered before this thread's reads, as the caller vouches.
    ///
    /// # Safety
    /// Every write to the buffer by other threads happens before this
    /// thread's reads (an atomic's acquire, a fence), and no thread writes
    /// the buffer while the view is alive.
    #[inline(always)]
    pub unsafe fn assume_synced(self) -> Synced<T> {
        checks::acquire(self.ptr);
        Synced {
            ptr: self.ptr,
            len: self.len,
            launch_len: self.launch_len,
        }
    }
}

impl<T: Pod> Synced<T> {
    /// The `len` elements at `ptr` as a read view.
    ///
    /// # Safety
    /// `ptr` points to `len` valid elements of `T` that no thread writes
    /// while this view or a copy of the buffer's `Output` could read them.
    /// `#[kernel]` builds its `Synced` parameters with this, from a
    /// `&mut DeviceBuffer` of the host.
    #[inline(always)]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        checks::buffer(ptr, len);
        Synced {
            ptr,
            len,
            launch_len: len,
        }
    }

    /// Keeps only the first `len` elements (no change when the buffer is
    /// shorter), as [`Output::truncate`]: the write view it becomes after a
    /// barrier ends there too.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The number of elements the launch passed, as
    /// [`Output::launch_len`].
    #[inline(always)]
    pub fn launch_len(&self) -> crate::uniform::Uniform<usize> {
        // SAFETY: as in `Output::launch_len`.
        unsafe { crate::uniform::Uniform::new_unchecked(self.launch_len) }
    }

    /// `grid.sync()` (every thread is done reading), then the buffer as a
    /// write view again, one element per thread ([`Threads`]; another
    /// pattern: [`into_output_as`](Self::into_output_as)).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn into_output(self, grid: &impl GridBarrier) -> Output<T> {
        self.into_output_as(grid)
    }

    /// `grid.sync()` (every thread is done reading), then the buffer as a
    /// write view in the pattern `P` (the one place a buffer's pattern
    /// changes: every thread of the grid reaches the barrier, and holds
    /// the same type after it).
    ///
    /// ```ignore
    /// let mut sums: Output<u32, Leaders<ThreadBlock>> = counts.into_output_as(&grid);
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn into_output_as<P: Pattern>(self, grid: &impl GridBarrier) -> Output<T, P> {
        grid.sync();
        Output::phase(self.ptr, self.len, self.launch_len)
    }
}

/// Several buffers' phases changed at one grid barrier: in a tuple of
/// [`Output`]s and [`Synced`]s, `sync` makes every `Output` readable
/// (`Synced`: the writes before the barrier are visible) and every
/// `Synced` writable (`Output`: every read before the barrier is done) —
/// what [`Output::sync`] and [`Synced::into_output`] do one buffer at a
/// time, each with a barrier of its own.
///
/// ```ignore
/// // p was written, ax read: one barrier turns both around.
/// let (p, mut ax) = (p, ax).sync(&grid);
/// ```
pub trait SyncPhases: Sized {
    /// The tuple after the barrier.
    type Next;

    /// One barrier over the grid (`grid.sync()`), then every buffer of
    /// the tuple in its other phase.
    fn sync(self, grid: &impl GridBarrier) -> Self::Next;
}

pub(crate) mod phase {
    /// A buffer's change of phase at a grid barrier ([`super::Output`],
    /// [`super::Synced`], and the grid collectives' used scratch,
    /// `UsedGridScratch`; outside this crate it cannot be named, so the
    /// change happens only through [`super::SyncPhases::sync`]).
    pub trait Phase {
        /// The other phase.
        type Next;
        /// The buffer in its other phase. Sound only after a grid barrier.
        fn next(self) -> Self::Next;
    }
}

impl<T: Pod, P: Pattern> phase::Phase for Output<T, P> {
    type Next = Synced<T>;

    #[inline(always)]
    fn next(self) -> Synced<T> {
        Synced {
            ptr: self.ptr,
            len: self.len,
            launch_len: self.launch_len,
        }
    }
}

impl<T: Pod> phase::Phase for Synced<T> {
    type Next = Output<T>;

    #[inline(always)]
    fn next(self) -> Output<T> {
        Output::phase(self.ptr, self.len, self.launch_len)
    }
}

/// `SyncPhases` for tuples of two, three and four buffers.
macro_rules! sync_phases {
    ($($b:ident),+) => {
        impl<$($b: phase::Phase),+> SyncPhases for ($($b,)+) {
            type Next = ($($b::Next,)+);

            #[inline(always)]
            #[allow(non_snake_case)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            fn sync(self, grid: &impl GridBarrier) -> Self::Next {
                grid.sync();
                let ($($b,)+) = self;
                ($(phase::Phase::next($b),)+)
            }
        }
    };
}
sync_phases!(A, B);
sync_phases!(A, B, C);
sync_phases!(A, B, C, D);

impl<T: Pod> core::ops::Deref for Synced<T> {
    type Target = [T];

    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn deref(&self) -> &[T] {
        Site::here().read(self.ptr);
        // SAFETY: `len` valid elements that nobody writes while the view
        // lives (the barrier that made it, or the constructor's contract).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// `&mut` to element `i` of the array at `ptr`, for a caller that hands
/// out references in one of this module's patterns.
///
/// # Safety
/// `i` is in bounds of a live array at `ptr` that no other reference
/// reaches at that element for `'a`.
#[inline(always)]
unsafe fn element_at<'a, T>(ptr: *mut T, i: usize, site: Site) -> &'a mut T {
    // SAFETY: an array with an element in bounds is live, so its address
    // is not null. Saying so (of the loop-invariant base, and of the
    // element) lets the compiler drop the null test an `Option<&mut T>`
    // would otherwise cost per element (its `None` is the null pointer).
    unsafe { core::hint::assert_unchecked(!ptr.is_null()) };
    // SAFETY: the caller's contract.
    let p = unsafe { ptr.add(i) };
    // SAFETY: as above.
    unsafe { core::hint::assert_unchecked(!p.is_null()) };
    site.exclusive(p);
    // SAFETY: the caller's contract.
    unsafe { &mut *p }
}

/// A byte with one valid value. An item that holds one gives `Option` of
/// it a tag of its own (a constant the compiler folds into the branch
/// that made it) instead of the null pointer of the `&mut T` beside it,
/// which the compiler cannot always prove non-null and would then test
/// per element.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
enum Niche {
    Some = 1,
}

/// The one failure of the window patterns ([`window`]), out of the way of
/// their hot path. (Here, not in `window`: the kernels' PTX names it, and
/// ptxas's code for a kernel that calls it was seen to change with the
/// name alone.)
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn window_does_not_fit() -> ! {
    panic!(
        "Output: the window (or the stencil's arrays) does not fit: it must lie inside the \
         buffer, both arrays of a stencil must hold width * height elements, and the window's \
         rows must stay below 2^32 elements"
    )
}
