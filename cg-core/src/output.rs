//! Kernel outputs written without `unsafe`: buffers whose elements are
//! handed out only in patterns where no two threads can reach one element.
//!
//! A `#[kernel]` parameter `out: Output<T>` is a device buffer the host
//! passes as `&mut DeviceBuffer<T>` (no other parameter of the launch can
//! name it). Every thread holds its own `Output`, and gets `&mut T` to an
//! element only through a pattern derived from its own coordinates:
//!
//! | pattern | method | element(s) of this thread |
//! |---|---|---|
//! | one per thread of the grid | [`thread_element`](Output::thread_element), [`for_thread`](Output::for_thread) | `grid.thread_rank()` |
//! | one per thread of a 2-D / 3-D launch | [`thread_element_2d`](Output::thread_element_2d), [`thread_element_3d`](Output::thread_element_3d) | `y * width + x` of `grid.thread_index()` |
//! | grid-stride loop | [`grid_stride`](Output::grid_stride) | `i ≡ grid.thread_rank() (mod grid.num_threads())` |
//! | grid-stride over a 2-D window | [`grid_stride_window`](Output::grid_stride_window) | the window's points, numbered row by row, grid-stride |
//! | a 5-point stencil sweep | [`grid_stride_stencil`](Output::grid_stride_stencil) | the interior's points, grid-stride, with their neighbours in a source array |
//! | one per group, its leader writes | [`leader_element`](Output::leader_element), [`for_leader`](Output::for_leader) | the group's index in the grid (block, tile, cluster) |
//! | a contiguous chunk per block | [`block_chunk`](Output::block_chunk), [`block_chunks`](Output::block_chunks) | `[c * len, (c + 1) * len)`, then one element, a block stride or a run of consecutive elements ([`Chunk::thread_run`]) per thread |
//!
//! Each method borrows the `Output` mutably, so one thread never holds two
//! `&mut` to one element either. The `for_*` forms (`for_thread`,
//! `for_leader`, `Chunk::for_thread`) call a closure instead of returning
//! an `Option<&mut T>`: they compile to a predicated store, where the
//! compiler does not always fold the `Option`'s null test. Bounds are checked once per pattern (the
//! loop condition of a stride is its bound check); an element beyond the
//! buffer is not handed out (`None`, or the loop ends).
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
//! The guarantee rests on the rule CUDA states for its barriers as well:
//! every thread of the grid reaches the same `grid.sync()` calls (a thread
//! that writes after its own barrier while another thread reads after a
//! different one is barrier divergence, undefined in CUDA), uses one
//! pattern per buffer in a phase, and passes the same value to the
//! arguments every thread shares (a chunk's length, a width, a window, a
//! stencil's sizes). The types cannot see those; the simulator
//! (`cg_core::sim`, the `sim` feature) checks them at run time and reports
//! a race, a barrier divergence or a non-uniform argument as a fault that
//! names both threads and both lines.
//!
//! Where an ordering comes from atomics instead of a barrier (the
//! last block of a "last block done" reduction reads every block's
//! partial), [`Output::assume_synced`] is the `unsafe` escape hatch; so is
//! [`Output::as_mut_ptr`].

use crate::block::ThreadBlock;
use crate::checks::{self, Site};
use crate::grid::{this_grid, GridGroup};
use crate::group::{GroupSync, ThreadGroup};
use crate::intrinsics;
use crate::multi_grid::MultiGridGroup;
use crate::multi_warp::MultiWarpTile;
use crate::shared::SharedSlice;
use crate::tile::ThreadBlockTile;
use crate::Pod;
use core::marker::PhantomData;
use core::num::NonZeroU32;

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
/// module docs). Not `Copy`: each thread has one.
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
pub struct Output<T: Pod> {
    ptr: *mut T,
    len: usize,
}

/// A buffer every thread may read: the writes before the barrier that
/// made it are visible. Read it as a slice (`Deref<Target = [T]>`).
pub struct Synced<T: Pod> {
    ptr: *mut T,
    len: usize,
}

impl<T: Pod> Output<T> {
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
        Output { ptr, len }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
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

    /// The element of this thread of the grid, `grid.thread_rank()`, or
    /// `None` when the buffer is shorter than that.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element(&mut self, grid: &GridGroup) -> Option<&mut T> {
        let site = Site::here();
        self.thread_index(grid)
            // SAFETY: see `thread_index`.
            .map(|i| unsafe { self.element(i, site) })
    }

    /// Calls `f` with this thread's element, `grid.thread_rank()`, when the
    /// buffer has it ([`thread_element`](Self::thread_element) without the
    /// `Option`: a predicated store).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn for_thread(&mut self, grid: &GridGroup, f: impl FnOnce(&mut T)) {
        if let Some(i) = self.thread_index(grid) {
            // SAFETY: see `thread_index`.
            f(unsafe { self.element(i, Site::here()) })
        }
    }

    /// This thread's element in the one-per-thread pattern, when the
    /// buffer has it: in bounds, and its alone (thread ranks are unique in
    /// the grid).
    #[inline(always)]
    fn thread_index(&self, grid: &GridGroup) -> Option<usize> {
        let i = grid.thread_rank();
        (i < self.len as u64).then_some(i as usize)
    }

    /// The element `y * width + x` of a row-major `width`-wide array, where
    /// `(x, y)` is this thread's position in the grid's threads
    /// (`grid.thread_index()`), or `None` when `x >= width`, the element
    /// lies beyond the buffer, or the thread is not in the launch's first
    /// plane (`z > 0`: in a 3-D launch the planes would share elements).
    /// Every thread passes the same `width` (the simulator checks it: a
    /// width per thread hands one element to two threads).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element_2d(&mut self, grid: &GridGroup, width: usize) -> Option<&mut T> {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform("thread_element_2d's width", &[width as u64]);
        let t = grid.thread_index();
        // `z == 0` exactly when the block's and the thread's `z` are both 0
        // (`z = ctaid.z * ntid.z + tid.z`, `ntid.z >= 1`, no wrap): one
        // `or` of two special registers, where `z` itself also reads
        // `ntid.z` and multiplies.
        let [_, _, bz] = intrinsics::block_idx();
        let [_, _, tz] = intrinsics::thread_idx();
        let (x, y) = (t.x as usize, t.y as usize);
        self.position(bz | tz == 0, (x, y, 0), width, usize::MAX)
    }

    /// The element `(z * height + y) * width + x` of a row-major array of
    /// `width` x `height` planes, where `(x, y, z)` is this thread's position
    /// in the grid's threads, or `None` when `x >= width`, `y >= height` or
    /// the element lies beyond the buffer. Every thread passes the same
    /// `width` and `height` (the simulator checks it).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element_3d(
        &mut self,
        grid: &GridGroup,
        width: usize,
        height: usize,
    ) -> Option<&mut T> {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform(
            "thread_element_3d's width, height",
            &[width as u64, height as u64],
        );
        let t = grid.thread_index();
        let (x, y, z) = (t.x as usize, t.y as usize, t.z as usize);
        self.position(true, (x, y, z), width, height)
    }

    /// Element `(z * height + y) * width + x` when `in_launch`, `x <
    /// width`, `y < height` and the index is inside the buffer, as one
    /// test: the tests joined by `&` (no branch between them), and the
    /// element's address known non-null, so that the caller's `if let
    /// Some` compiles to a branch on that test. Through separate early
    /// returns the `Option` met the caller as a select of the address or
    /// null, tested against null again in every thread (jacobi_step of
    /// the corpus: 8 SASS instructions and a convergence region more than
    /// the test itself).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn position(
        &mut self,
        in_launch: bool,
        (x, y, z): (usize, usize, usize),
        width: usize,
        height: usize,
    ) -> Option<&mut T> {
        // SAFETY: an `Output`'s address is not null (`from_raw_parts`).
        unsafe { core::hint::assert_unchecked(!self.ptr.is_null()) };
        let i = z
            .checked_mul(height)
            .and_then(|p| p.checked_add(y))
            .and_then(|r| r.checked_mul(width))
            .and_then(|r| r.checked_add(x));
        let i_fits = matches!(i, Some(i) if i < self.len);
        if in_launch & (x < width) & (y < height) & i_fits {
            // SAFETY: in bounds (`i_fits`); distinct (x, y, z) with x <
            // width and y < height give distinct indices, and each thread
            // has its own (x, y, z).
            Some(unsafe { self.element(i.unwrap_or(0), Site::here()) })
        } else {
            None
        }
    }

    /// This thread's elements in a grid-stride loop: `(i, &mut out[i])`
    /// for `i = grid.thread_rank()`, then every `grid.num_threads()` after
    /// it, below `len()`.
    ///
    /// ```ignore
    /// for (i, y) in out.grid_stride(&grid) {
    ///     *y = a * x[i] + *y;
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn grid_stride(&mut self, grid: &GridGroup) -> GridStride<'_, T> {
        GridStride::new(
            self.ptr,
            self.len,
            grid.thread_rank() as usize,
            grid.num_threads() as usize,
            Site::here(),
        )
    }

    /// This thread's points of a 2-D window of a row-major array `width`
    /// elements wide, grid-stride: the window's points are numbered row by
    /// row and thread `r` of `S` takes numbers `r, r + S, ...`. Each item is
    /// the point (with its index in the buffer) and `&mut` to its element.
    /// Index arithmetic is 32-bit, with one division before the loop.
    ///
    /// Panics (a fault the host reports, at the caller's line) unless the
    /// window lies inside the buffer (`x.end <= width`,
    /// `y.end * width <= len()`) and its rows fit in `u32`
    /// (`y.end * width <= u32::MAX`). A loop that walks the same window
    /// many times (sweeps between grid barriers) makes a [`Walk`] once and
    /// passes it to [`walk`](Self::walk). Every thread passes the same
    /// window (the simulator checks it).
    #[inline(always)]
    #[track_caller]
    pub fn grid_stride_window(&mut self, grid: &GridGroup, window: Window) -> WindowStride<'_, T> {
        #[cfg(not(target_arch = "nvptx64"))]
        window.check_uniform(Site::here());
        let rows_end = (window.y.end as u64) * (window.width as u64);
        // One branch to a cold panic (`&`, not `&&`): every thread makes
        // these checks before its first point.
        let fits =
            window.is_ordered() & (rows_end <= self.len as u64) & (rows_end <= u32::MAX as u64);
        if !fits {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        let walk = unsafe { Walk::new_unchecked(grid, window) };
        // SAFETY: the window's rows end inside the buffer (checked).
        unsafe { self.walk_unchecked(&walk, Site::here()) }
    }

    /// This thread's points of the window of `walk` (made once by
    /// [`Walk::new`], its divisions and shape checks done), as
    /// [`grid_stride_window`](Self::grid_stride_window) gives them. Checks
    /// only that the window's rows end inside the buffer.
    ///
    /// ```ignore
    /// let walk = Walk::new(&grid, window);
    /// for _ in 0..sweeps {
    ///     out.walk(&walk).for_each(|(p, x)| *x = f(p));
    ///     // ..
    /// }
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn walk(&mut self, walk: &Walk) -> WindowStride<'_, T> {
        if walk.rows_end as usize > self.len {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        unsafe { self.walk_unchecked(walk, Site::here()) }
    }

    /// # Safety
    /// `walk.rows_end <= len()`.
    #[inline(always)]
    unsafe fn walk_unchecked(&mut self, walk: &Walk, site: Site) -> WindowStride<'_, T> {
        WindowStride {
            ptr: self.ptr,
            walk: *walk,
            site,
            _out: PhantomData,
        }
    }

    /// A 5-point stencil sweep, grid-stride: this thread's points of the
    /// interior of a `width` x `height` row-major array
    /// ([`Window::interior`]), each with its four neighbours in `src` (an
    /// array of the same shape) and `&mut` to its element here.
    ///
    /// ```ignore
    /// for (n, u) in dst.grid_stride_stencil(&grid, &src, nx, ny) {
    ///     *u = 0.25 * (((n.west() + n.east()) + n.north()) + n.south());
    /// }
    /// ```
    ///
    /// Checked once: both arrays hold `width * height` elements (panics
    /// otherwise), and the window's conditions of
    /// [`grid_stride_window`](Self::grid_stride_window); the neighbours'
    /// loads then need no checks. A loop of sweeps makes a [`StencilWalk`]
    /// once and passes it to [`stencil`](Self::stencil). Every thread
    /// passes the same sizes (the simulator checks it).
    #[inline(always)]
    #[track_caller]
    pub fn grid_stride_stencil<'s>(
        &mut self,
        grid: &GridGroup,
        src: &'s [T],
        width: u32,
        height: u32,
    ) -> StencilStride<'_, 's, T> {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform(
            "the stencil's width, height",
            &[width as u64, height as u64],
        );
        let points = width as u64 * height as u64;
        let fits = (points <= self.len as u64)
            & (points <= src.len() as u64)
            & (points <= u32::MAX as u64);
        if !fits {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        let walk = unsafe { StencilWalk::new_unchecked(grid, width, height) };
        // SAFETY: both arrays hold the points (checked).
        unsafe { self.stencil_unchecked(&walk, src, Site::here()) }
    }

    /// One sweep of the stencil of `walk` (made once by
    /// [`StencilWalk::new`], its divisions and shape checks done) from
    /// `src` into this buffer, as
    /// [`grid_stride_stencil`](Self::grid_stride_stencil) gives it. Checks
    /// only that both arrays hold `width * height` elements: what a
    /// persistent kernel's loop of sweeps repeats.
    ///
    /// ```ignore
    /// let walk = StencilWalk::new(&grid, nx, ny);
    /// for _ in 0..sweeps {
    ///     dst.stencil(&walk, &src).for_each(|(n, u)| *u = 0.25 * (n.west() + n.east() + n.north() + n.south()));
    ///     (src, dst) = dst.sync_swap(src, &grid);
    /// }
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn stencil<'s>(&mut self, walk: &StencilWalk, src: &'s [T]) -> StencilStride<'_, 's, T> {
        let points = walk.points as usize;
        if (points > self.len) | (points > src.len()) {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        unsafe { self.stencil_unchecked(walk, src, Site::here()) }
    }

    /// # Safety
    /// Both this buffer and `src` hold `walk.points` elements.
    #[inline(always)]
    unsafe fn stencil_unchecked<'s>(
        &mut self,
        walk: &StencilWalk,
        src: &'s [T],
        site: Site,
    ) -> StencilStride<'_, 's, T> {
        StencilStride {
            // SAFETY: the interior's rows end before width * height,
            // which the buffer holds (the caller's contract).
            points: unsafe { self.walk_unchecked(&walk.walk, site) },
            src: src.as_ptr(),
            width: walk.walk.width,
            _src: PhantomData,
        }
    }

    /// The element of `group` (a block, a static tile, a cluster): `Some`
    /// for the group's leader (its rank 0 thread) when the group's index
    /// in the grid is below `len()`, `None` for every other thread.
    ///
    /// ```ignore
    /// let s = block_reduce(&block, &scratch, v, Plus);
    /// if let Some(slot) = block_sums.leader_element(&block) {
    ///     *slot = s;
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn leader_element<G: LeaderSlot>(&mut self, group: &G) -> Option<&mut T> {
        let site = Site::here();
        self.leader_index(group)
            // SAFETY: see `leader_index`.
            .map(|i| unsafe { self.element(i, site) })
    }

    /// Calls `f` with the element of `group` if this thread is the group's
    /// leader and the element exists ([`leader_element`](Self::leader_element)
    /// without the `Option`: compiles to a predicated store where the
    /// `Option` form may keep a second test).
    ///
    /// ```ignore
    /// block_sums.for_leader(&block, |slot| *slot = s);
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn for_leader<G: LeaderSlot>(&mut self, group: &G, f: impl FnOnce(&mut T)) {
        if let Some(i) = self.leader_index(group) {
            // SAFETY: see `leader_index`.
            f(unsafe { self.element(i, Site::here()) })
        }
    }

    /// The element of `group` when this thread is its leader and the
    /// buffer has it: in bounds, and the leader's alone (each group of the
    /// grid has its own slot, `LeaderSlot`, and one leader).
    #[inline(always)]
    fn leader_index<G: LeaderSlot>(&self, group: &G) -> Option<usize> {
        if !group.is_leader() {
            return None;
        }
        let i = group.slot();
        (i < self.len as u64).then_some(i as usize)
    }

    /// The chunk `[c * len, (c + 1) * len)` of this block, `c` its rank in
    /// the grid (clipped to the buffer; `None` when it starts beyond it or
    /// `len` is 0: a chunk is never empty).
    /// Its threads then take one element each or a block stride of it.
    /// Every thread of the grid passes the same `len` (the simulator checks
    /// it: a length per block makes chunks overlap).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_chunk(&mut self, block: &ThreadBlock, len: usize) -> Option<Chunk<'_, T>> {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform("block_chunk's len", &[len as u64]);
        let c = this_grid().block_rank() as usize;
        let start = c.checked_mul(len).filter(|_| len > 0)?;
        if start >= self.len {
            return None;
        }
        Some(Chunk {
            ptr: self.ptr,
            start,
            len,
            buffer: self.len,
            rank: block.thread_rank() as usize,
            threads: block.num_threads() as usize,
            _out: PhantomData,
        })
    }

    /// This block's chunks of `len` elements, grid-stride: chunks `c`,
    /// `c + B`, `c + 2B`, ... for block rank `c` of `B` blocks (the last
    /// chunk clipped to the buffer). Every thread of the grid passes the
    /// same `len` (the simulator checks it).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_chunks(&mut self, block: &ThreadBlock, len: usize) -> BlockChunks<'_, T> {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform("block_chunks' len", &[len as u64]);
        let grid = this_grid();
        let (c, blocks) = (grid.block_rank() as usize, grid.num_blocks() as usize);
        BlockChunks {
            ptr: self.ptr,
            buffer: self.len,
            len,
            next: c.saturating_mul(len),
            // A block with one chunk at most steps past the buffer at once
            // (and `next + step` cannot wrap: both are below isize::MAX).
            step: blocks.saturating_mul(len).min(self.len),
            rank: block.thread_rank() as usize,
            threads: block.num_threads() as usize,
            _out: PhantomData,
        }
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
        }
    }

    /// One `grid.sync()` for a pair of ping-pong buffers: this one becomes
    /// readable and `read` (done being read) writable.
    ///
    /// ```ignore
    /// for _ in 0..sweeps {
    ///     sweep(&src, &mut dst);
    ///     (src, dst) = dst.sync_swap(src, &grid);
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn sync_swap(self, read: Synced<T>, grid: &impl GridBarrier) -> (Synced<T>, Output<T>) {
        grid.sync();
        (
            Synced {
                ptr: self.ptr,
                len: self.len,
            },
            Output {
                ptr: read.ptr,
                len: read.len,
            },
        )
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
        }
    }
}

impl<T: Pod> Output<T> {
    /// CUDA's "threadFenceReduction" finish, without `unsafe`: the leader
    /// of each block writes `value` to the block's element (its rank in
    /// the grid, as [`for_leader`](Self::for_leader)) and takes a ticket of
    /// `tickets` (`fetch_add(1, AcqRel)`); the block that takes the last
    /// of `grid.num_blocks()` tickets gets the whole buffer to read, every
    /// other block `None`. The last block sets `tickets` back to 0 for the
    /// next launch (it must be 0 before the first). Collective over the
    /// block: every thread calls it (it synchronizes the block once).
    ///
    /// ```ignore
    /// if let Some(partials) = partials.sync_last_block(&grid, &block, s, counter.at(0)) {
    ///     // every block's `s` is here: this block adds them up
    /// }
    /// ```
    ///
    /// The ordering is the tickets': each leader's write comes before its
    /// ticket (release), the last ticket's taker acquires every earlier
    /// one, and a device-scope acquire fence after the block barrier
    /// extends that to the block's other threads. Consuming the write view
    /// keeps every block from writing the buffer again in the launch.
    #[inline(always)]
    pub fn sync_last_block(
        mut self,
        grid: &GridGroup,
        block: &ThreadBlock,
        value: T,
        tickets: crate::atomic::AtomicRef<'_, u32>,
    ) -> Option<Synced<T>> {
        use crate::atomic::{fence, Device, Ordering};
        let last = crate::shared_array!(u32; 1);
        let blocks = grid.num_blocks();
        if let Some(slot) = self.leader_element(block) {
            *slot = value;
            let ticket = tickets.fetch_add(1, Ordering::AcqRel);
            let is_last = ticket == blocks - 1;
            if is_last {
                // Every block has taken its ticket: the counter is free.
                tickets.store(0, Ordering::Relaxed);
            }
            last.set(0, is_last as u32);
        }
        block.sync();
        if last.get(0) == 0 {
            return None;
        }
        fence::<Device>(Ordering::Acquire);
        // SAFETY: every block's leader wrote its element before its ticket
        // (release); this block's leader took the last ticket (acquire),
        // and the fence after the barrier extends that to this block's
        // threads. No thread writes the buffer again: `self` is consumed
        // here by every thread of every block.
        Some(unsafe { self.assume_synced() })
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
        Synced { ptr, len }
    }

    /// Keeps only the first `len` elements (no change when the buffer is
    /// shorter), as [`Output::truncate`]: the write view it becomes after a
    /// barrier ends there too.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// `grid.sync()` (every thread is done reading), then the buffer as a
    /// write view again.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn into_output(self, grid: &impl GridBarrier) -> Output<T> {
        grid.sync();
        Output {
            ptr: self.ptr,
            len: self.len,
        }
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

impl<T: Pod> phase::Phase for Output<T> {
    type Next = Synced<T>;

    #[inline(always)]
    fn next(self) -> Synced<T> {
        Synced {
            ptr: self.ptr,
            len: self.len,
        }
    }
}

impl<T: Pod> phase::Phase for Synced<T> {
    type Next = Output<T>;

    #[inline(always)]
    fn next(self) -> Output<T> {
        Output {
            ptr: self.ptr,
            len: self.len,
        }
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

/// The one failure of the window patterns, out of the way of their hot
/// path.
#[cold]
#[inline(never)]
#[track_caller]
fn window_does_not_fit() -> ! {
    panic!(
        "Output: the window (or the stencil's arrays) does not fit: it must lie inside the \
         buffer, both arrays of a stencil must hold width * height elements, and the window's \
         rows must stay below 2^32 elements"
    )
}

/// The elements of one thread in a grid-stride loop
/// ([`Output::grid_stride`]).
pub struct GridStride<'a, T> {
    ptr: *mut T,
    /// This thread's indices: the step clamped as every strided loop's
    /// is ([`Stride`](crate::stride::Stride)), so the loop unrolls.
    indices: crate::stride::Stride,
    site: Site,
    _out: PhantomData<&'a mut T>,
}

impl<T> GridStride<'_, T> {
    /// Indices `first`, `first + stride`, ... below `len` of the array at
    /// `ptr`.
    #[inline(always)]
    fn new(ptr: *mut T, len: usize, first: usize, stride: usize, site: Site) -> Self {
        GridStride {
            ptr,
            indices: crate::stride::Stride::new(first, stride, len),
            site,
            _out: PhantomData,
        }
    }
}

crate::zip::inherent_zip! {
    GridStride<'a, T>;
    WindowStride<'a, T>;
    StencilStride<'a, 's, T: Copy>;
}

impl<'a, T> Iterator for GridStride<'a, T> {
    type Item = (usize, &'a mut T);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let i = self.indices.next()?;
        // SAFETY: below the buffer's length; this thread's indices are
        // distinct from every other thread's (distinct ranks modulo the
        // stride) and from each other.
        Some((i, unsafe { element_at(self.ptr, i, self.site) }))
    }
}

/// A rectangle of a row-major array `width` elements wide: columns `x`,
/// rows `y` ([`Output::grid_stride_window`]).
#[derive(Clone, Debug)]
pub struct Window {
    /// Elements per row of the array.
    pub width: u32,
    /// The window's columns.
    pub x: core::ops::Range<u32>,
    /// The window's rows.
    pub y: core::ops::Range<u32>,
}

impl Window {
    /// Whether the window lies inside a row: `x.start <= x.end <= width`
    /// and `y.start <= y.end`.
    #[inline(always)]
    fn is_ordered(&self) -> bool {
        (self.x.start <= self.x.end) & (self.y.start <= self.y.end) & (self.x.end <= self.width)
    }

    /// The simulator's check that every thread passes this window.
    #[cfg(not(target_arch = "nvptx64"))]
    fn check_uniform(&self, site: Site) {
        site.uniform(
            "the window's width, x.start, x.end, y.start, y.end",
            &[
                self.width as u64,
                self.x.start as u64,
                self.x.end as u64,
                self.y.start as u64,
                self.y.end as u64,
            ],
        );
    }

    /// The interior of a `width` x `height` array: every point but the
    /// outermost rows and columns (a stencil's points with all four
    /// neighbours). Empty when either side is below 3.
    #[inline(always)]
    pub fn interior(width: u32, height: u32) -> Self {
        // `1 + (n - 2)` rather than a branch on the sides: one
        // instruction each, and the window's width `n - 2` (or 0) is then
        // what a walk divides by, not a chain of selects.
        Window {
            width,
            x: 1..1 + width.saturating_sub(2),
            y: 1..1 + height.saturating_sub(2),
        }
    }
}

/// One thread's grid-stride walk over a [`Window`], made once: its
/// divisions done (the thread's first point and the stride's quotient and
/// remainder) and the window's shape checked. A kernel that walks the same
/// window in every sweep of a loop makes it before the loop and hands it
/// to [`Output::walk`] in each sweep, which checks only the buffer's
/// length.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    width: u32,
    x_start: u32,
    w: u32,
    /// The window's points from this thread's next one on (0: none left):
    /// counts down by `stride`, so no sum of point number and stride has
    /// to fit in `u32`.
    left: u32,
    stride: u32,
    dx: u32,
    dy: u32,
    x: u32,
    y: u32,
    /// `y * width + x_start + x`.
    index: u32,
    /// The index's step: `dy * width + dx`.
    dindex: u32,
    /// `y.end * width`: the elements a buffer must hold.
    rows_end: u32,
}

impl Walk {
    /// This thread's walk over `window` in the grid-stride order of
    /// [`Output::grid_stride_window`].
    ///
    /// Panics (a fault the host reports, at the caller's line) unless
    /// `x.start <= x.end <= width`, `y.start <= y.end` and the window's
    /// rows fit in `u32` (`y.end * width <= u32::MAX`). Every thread
    /// passes the same window (the simulator checks it).
    #[inline(always)]
    #[track_caller]
    pub fn new(grid: &GridGroup, window: Window) -> Self {
        #[cfg(not(target_arch = "nvptx64"))]
        window.check_uniform(Site::here());
        let rows_end = (window.y.end as u64) * (window.width as u64);
        if !(window.is_ordered() & (rows_end <= u32::MAX as u64)) {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        unsafe { Walk::new_unchecked(grid, window) }
    }

    /// # Safety
    /// `x.start <= x.end <= width`, `y.start <= y.end` and
    /// `y.end * width <= u32::MAX`.
    #[inline(always)]
    unsafe fn new_unchecked(grid: &GridGroup, window: Window) -> Self {
        let Window { width, x, y } = window;
        let w = x.end - x.start;
        let points = w * (y.end - y.start);
        // Points are numbered in `u32`; a grid of 2^32 threads or more
        // (possible: 2^31 - 1 blocks of 1024) still takes each number
        // once: a rank past the last point has none, and a stride of
        // `u32::MAX` or more leaves every thread one point at most.
        let rank = grid.thread_rank();
        let stride = grid.num_threads().min(u32::MAX as u64) as u32;
        let left = (points as u64).saturating_sub(rank) as u32;
        let rank = rank as u32;
        // The divisions only for a thread with a point (a thread past the
        // last point leaves before them): then `w > 0`, and the divisor
        // needs no select before the division starts. One division each
        // for the quotient and remainder pairs.
        let (dy, dx, y0, x0) = if left > 0 {
            // SAFETY: a point exists, so the window is at least 1 wide.
            let wd = unsafe { NonZeroU32::new_unchecked(w) };
            (stride / wd, stride % wd, rank / wd, rank % wd)
        } else {
            (0, 0, 0, 0)
        };
        Walk {
            width,
            x_start: x.start,
            w,
            left,
            stride,
            dx,
            dy,
            x: x0,
            y: y0 + y.start,
            index: (y0 + y.start)
                .wrapping_mul(width)
                .wrapping_add(x.start + x0),
            dindex: dy.wrapping_mul(width).wrapping_add(dx),
            rows_end: y.end * width,
        }
    }

    /// Takes this thread's next point: `false` past the window's last
    /// (external iteration; [`fold_points`](Self::fold_points) saves the
    /// saturation's instruction per point).
    #[inline(always)]
    fn advance(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left = self.left.saturating_sub(self.stride);
        true
    }

    /// Hands `f` each of this thread's remaining points (coordinates and
    /// index), in order: the internal iteration of the window iterators.
    /// The count steps as `if left <= stride break; left -= stride`, one
    /// instruction fewer per point than [`advance`](Self::advance)'s
    /// saturation, and the first point comes before the stride's division
    /// is needed (a thread with one point loads it sooner).
    #[inline(always)]
    fn fold_points<B>(&mut self, init: B, mut f: impl FnMut(B, (u32, u32, u32)) -> B) -> B {
        let mut acc = init;
        if self.left == 0 {
            return acc;
        }
        // Each point is made one step ahead, before the exit test: the
        // next point's index is then ready when its loads issue.
        let mut point = self.point();
        loop {
            acc = f(acc, point);
            if self.left <= self.stride {
                self.left = 0;
                return acc;
            }
            self.left -= self.stride;
            point = self.point();
        }
    }

    /// The walk's current point (coordinates and index); moves on to the
    /// next one. The index steps with the coordinates (`dy * width + dx`,
    /// plus `width - w` where a row wraps) rather than being recomputed
    /// as `y * width + x`.
    #[inline(always)]
    fn point(&mut self) -> (u32, u32, u32) {
        let (x, y, index) = (self.x_start + self.x, self.y, self.index);
        // The next point: `stride` further in row-major window order.
        // (Past the last point these may wrap: they are not read again.)
        self.x = self.x.wrapping_add(self.dx);
        self.y = self.y.wrapping_add(self.dy);
        self.index = self.index.wrapping_add(self.dindex);
        if self.x >= self.w {
            self.x -= self.w;
            self.y = self.y.wrapping_add(1);
            self.index = self.index.wrapping_add(self.width - self.w);
        }
        (x, y, index)
    }
}

/// One thread's walk over the interior of a `width` x `height` array (a
/// 5-point stencil's points), made once: see [`Walk`] and
/// [`Output::stencil`].
#[derive(Clone, Copy, Debug)]
pub struct StencilWalk {
    walk: Walk,
    /// `width * height`: the elements both arrays must hold.
    points: u32,
}

impl StencilWalk {
    /// This thread's walk over the interior of a `width` x `height` array
    /// ([`Window::interior`]), in the order of
    /// [`Output::grid_stride_stencil`].
    ///
    /// Panics (a fault the host reports, at the caller's line) unless
    /// `width * height <= u32::MAX`. Every thread passes the same sizes
    /// (the simulator checks it).
    #[inline(always)]
    #[track_caller]
    pub fn new(grid: &GridGroup, width: u32, height: u32) -> Self {
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform(
            "the stencil walk's width, height",
            &[width as u64, height as u64],
        );
        if width as u64 * height as u64 > u32::MAX as u64 {
            window_does_not_fit();
        }
        // SAFETY: just checked.
        unsafe { StencilWalk::new_unchecked(grid, width, height) }
    }

    /// # Safety
    /// `width * height <= u32::MAX`.
    #[inline(always)]
    unsafe fn new_unchecked(grid: &GridGroup, width: u32, height: u32) -> Self {
        StencilWalk {
            // SAFETY: the interior lies inside the array, and its rows
            // end before width * height (the caller's bound).
            walk: unsafe { Walk::new_unchecked(grid, Window::interior(width, height)) },
            points: width * height,
        }
    }
}

/// A point of a [`Window`]: its coordinates and its index in the array.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// `y * width + x`.
    pub index: u32,
    _niche: Niche,
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

/// One thread's points of a window ([`Output::grid_stride_window`],
/// [`Output::walk`]).
pub struct WindowStride<'a, T> {
    ptr: *mut T,
    walk: Walk,
    site: Site,
    _out: PhantomData<&'a mut T>,
}

impl<'a, T> Iterator for WindowStride<'a, T> {
    type Item = (Point, &'a mut T);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if !self.walk.advance() {
            return None;
        }
        // SAFETY: the walk's point, taken once.
        Some(unsafe { window_item(self.ptr, self.walk.point(), self.site) })
    }

    /// Internal iteration (what `for_each` uses): one instruction fewer
    /// per point than `next`, and the first point's loads before the
    /// stride's division.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let (ptr, site) = (self.ptr, self.site);
        self.walk
            // SAFETY: each of the walk's points, once.
            .fold_points(init, |acc, p| f(acc, unsafe { window_item(ptr, p, site) }))
    }
}

/// The item of [`WindowStride`] at the walk's point `(x, y, index)`.
///
/// # Safety
/// The point is one of this thread's points of a window that lies inside
/// the buffer at `ptr`, and is handed out once.
#[inline(always)]
unsafe fn window_item<'a, T>(
    ptr: *mut T,
    (x, y, index): (u32, u32, u32),
    site: Site,
) -> (Point, &'a mut T) {
    // SAFETY: the window lies inside the buffer (checked when the
    // iterator was made); points are numbered one-to-one and each thread
    // takes its own residue class of numbers.
    let element = unsafe { element_at(ptr, index as usize, site) };
    let point = Point {
        x,
        y,
        index,
        _niche: Niche::Some,
    };
    (point, element)
}

/// A stencil point: reads its four neighbours from the source array
/// ([`Output::grid_stride_stencil`]), each without a bounds check (the
/// window was checked once).
#[derive(Clone, Copy)]
pub struct Neighbours<'s, T> {
    src: *const T,
    // 32-bit, as the walk's arithmetic (a neighbour's index is below
    // width * height, which fits: checked when the walk was made). The
    // neighbours are reached from the point's address (`index as usize`,
    // then `± 1` and `± width`): west and east fold into the loads'
    // offsets, one address multiply per point instead of four.
    index: u32,
    width: u32,
    _src: PhantomData<&'s [T]>,
    _niche: Niche,
}

impl<T: Copy> Neighbours<'_, T> {
    /// The point's index in the arrays.
    #[inline(always)]
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// `(x - 1, y)`.
    #[inline(always)]
    pub fn west(&self) -> T {
        // SAFETY: see `StencilStride::next`.
        unsafe { *self.src.add(self.index as usize).sub(1) }
    }

    /// `(x + 1, y)`.
    #[inline(always)]
    pub fn east(&self) -> T {
        // SAFETY: see `StencilStride::next`.
        unsafe { *self.src.add(self.index as usize).add(1) }
    }

    /// `(x, y - 1)`.
    #[inline(always)]
    pub fn north(&self) -> T {
        // SAFETY: see `StencilStride::next`.
        unsafe { *self.src.add(self.index as usize).sub(self.width as usize) }
    }

    /// `(x, y + 1)`.
    #[inline(always)]
    pub fn south(&self) -> T {
        // SAFETY: see `StencilStride::next`.
        unsafe { *self.src.add(self.index as usize).add(self.width as usize) }
    }
}

/// One thread's points of a stencil sweep ([`Output::grid_stride_stencil`]).
pub struct StencilStride<'a, 's, T> {
    points: WindowStride<'a, T>,
    src: *const T,
    width: u32,
    _src: PhantomData<&'s [T]>,
}

/// The item of [`StencilStride`] at the walk's point `index`.
///
/// # Safety
/// As [`window_item`]'s, for an interior point of a `width`-wide array
/// that `src` holds, borrowed shared for `'s`.
#[inline(always)]
unsafe fn stencil_item<'a, 's, T>(
    ptr: *mut T,
    src: *const T,
    width: u32,
    index: u32,
    site: Site,
) -> (Neighbours<'s, T>, &'a mut T) {
    // SAFETY: as in `window_item`.
    let element = unsafe { element_at(ptr, index as usize, site) };
    // The neighbours' reads are in bounds: the point is an interior one
    // (1 <= x < width - 1, 1 <= y < height - 1) and `src` holds width *
    // height elements (both checked when the iterator was made).
    let n = Neighbours {
        src,
        index,
        width,
        _src: PhantomData,
        _niche: Niche::Some,
    };
    (n, element)
}

impl<'a, 's, T: Copy> Iterator for StencilStride<'a, 's, T> {
    type Item = (Neighbours<'s, T>, &'a mut T);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if !self.points.walk.advance() {
            return None;
        }
        let (_, _, index) = self.points.walk.point();
        // SAFETY: the walk's point, taken once.
        Some(unsafe {
            stencil_item(
                self.points.ptr,
                self.src,
                self.width,
                index,
                self.points.site,
            )
        })
    }

    /// Internal iteration (what `for_each` uses): no `Option` per point
    /// for the compiler to see through. Inside an outer loop with a
    /// barrier (a persistent kernel's sweeps) `for_each` compiles to the
    /// hand-written loop where `for` keeps one extra never-taken branch
    /// per point.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let (ptr, src, width, site) = (self.points.ptr, self.src, self.width, self.points.site);
        self.points.walk.fold_points(init, |acc, (_, _, index)| {
            // SAFETY: each of the walk's points, once.
            f(acc, unsafe { stencil_item(ptr, src, width, index, site) })
        })
    }
}

/// A block's chunk of an output ([`Output::block_chunk`]).
pub struct Chunk<'a, T> {
    ptr: *mut T,
    start: usize,
    /// The chunk's length as asked for (the buffer may end before).
    len: usize,
    /// The buffer's length: the chunk ends at `min(start + len, buffer)`.
    buffer: usize,
    rank: usize,
    threads: usize,
    _out: PhantomData<&'a mut T>,
}

impl<'a, T> Chunk<'a, T> {
    /// Where the chunk starts in the buffer.
    #[inline(always)]
    pub fn start(&self) -> usize {
        self.start
    }

    /// Number of elements (the last chunk may be short).
    #[inline(always)]
    pub fn len(&self) -> usize {
        let len = self.clipped_len();
        // SAFETY: a chunk starts inside the buffer (`block_chunk` and
        // `block_chunks` make none that does not) and asks for at least
        // one element, so it holds 1 to `self.len` of them; said in one
        // compare, so that `stage[chunk.len() - 1]` needs no check.
        unsafe { core::hint::assert_unchecked(len.wrapping_sub(1) < self.len) };
        len
    }

    /// The length without the promise `len` makes: the loops over a
    /// chunk's elements compile to longer code with it.
    #[inline(always)]
    fn clipped_len(&self) -> usize {
        self.len.min(self.buffer - self.start)
    }

    /// Whether the chunk is empty (never: an iterator or `block_chunk`
    /// yields only chunks with at least one element).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element of this thread, `block.thread_rank()` of the chunk
    /// (`None` beyond it).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element(self) -> Option<Owned<'a, T>> {
        // Two tests rather than one against `len()`: the first is the same
        // for every chunk of a loop.
        if self.rank < self.len && self.start + self.rank < self.buffer {
            // SAFETY: in the chunk; thread ranks are unique in the block,
            // and the chunk is this block's alone.
            Some(unsafe { Owned::new(self.ptr, self.start, self.rank, Site::here()) })
        } else {
            None
        }
    }

    /// Calls `f` with this thread's element and its index in the chunk
    /// when the chunk has one for it ([`thread_element`](Self::thread_element)
    /// without the `Option`, which the compiler tests a second time inside a
    /// loop over chunks).
    ///
    /// ```ignore
    /// chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn for_thread(self, f: impl FnOnce(&'a mut T, usize)) {
        // The test of `thread_element`, written out again: through a
        // shared helper the compiler lays out the loops over chunks
        // differently (a few more instructions per chunk in the async-copy
        // kernels). Both compares always, joined by `&`: one predicate,
        // computed ahead of a barrier wait, no branch between the wait and
        // the store (`&&` branched on the first compare; the async-copy
        // rows 0.5-1.6% slower, `docs/NOTES.md`).
        if (self.rank < self.len) & (self.start + self.rank < self.buffer) {
            // SAFETY: as in `thread_element` (element `start + rank`).
            // Addressed from `ptr + rank`, which no chunk changes: the
            // compiler keeps that base in a register, where from `ptr +
            // (start + rank)` it reloaded the pointer after the barrier
            // wait, on the store's path (vector addition on a barrier 3%
            // faster, a pipeline 8 deep 1.6-1.9% slower; NOTES 2026-11-27).
            f(
                unsafe { element_at(self.ptr.add(self.rank), self.start, Site::here()) },
                self.rank,
            )
        }
    }

    /// The block copies `src[..len]` into the chunk (`len` its length),
    /// each thread its block-stride elements, as from a tile of results
    /// staged in shared memory. Checked once: panics (a fault the host
    /// reports, at the caller's line) when `src` is shorter than the chunk.
    #[inline(always)]
    #[track_caller]
    pub fn copy_from(self, src: SharedSlice<T>)
    where
        T: Pod,
    {
        let len = self.clipped_len();
        let src = src.subslice(0, len);
        // SAFETY: `start` is inside the buffer.
        let ptr = unsafe { self.ptr.add(self.start) };
        let mut j = self.rank;
        while j < len {
            #[cfg(not(target_arch = "nvptx64"))]
            Site::here().exclusive(ptr.wrapping_add(j));
            // SAFETY: `j < len`, inside the chunk (this block's alone, and
            // element `j` this thread's alone) and inside `src` (checked).
            unsafe { *ptr.add(j) = src.get_unchecked(j) };
            j += self.threads;
        }
    }

    /// This thread's elements of the chunk, block-stride: `(j, &mut
    /// chunk[j])` for `j = rank, rank + threads, ...`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_stride(self) -> GridStride<'a, T> {
        // SAFETY: `start` is inside the buffer.
        let ptr = unsafe { self.ptr.add(self.start) };
        GridStride::new(
            ptr,
            self.clipped_len(),
            self.rank,
            self.threads,
            Site::here(),
        )
    }

    /// This thread's run of `per_thread` consecutive elements of the chunk
    /// (CUB's blocked arrangement): `[rank * per_thread, (rank + 1) *
    /// per_thread)` of the chunk, clipped to it (empty past its end), and
    /// where the run starts in the chunk. Every thread of the grid passes
    /// the same `per_thread` (the simulator checks it: runs of different
    /// lengths overlap).
    ///
    /// ```ignore
    /// let (at, run) = chunk.thread_run(4);
    /// for (k, x) in run.iter_mut().enumerate() {
    ///     *x = input[chunk_start + at + k] * 2;
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_run(self, per_thread: usize) -> (usize, &'a mut [T]) {
        let site = Site::here();
        #[cfg(not(target_arch = "nvptx64"))]
        site.uniform("thread_run's per_thread", &[per_thread as u64]);
        let len = self.clipped_len();
        let from = self.rank.saturating_mul(per_thread).min(len);
        let to = from.saturating_add(per_thread).min(len);
        // SAFETY: `start + from <= start + len`, inside the buffer or one
        // past its end (a chunk starts inside the buffer).
        let p = unsafe { self.ptr.add(self.start + from) };
        for j in 0..to - from {
            site.exclusive(p.wrapping_add(j));
        }
        // SAFETY: `[start + from, start + to)` lies in the chunk, this
        // block's alone; threads of distinct ranks get disjoint runs (all
        // pass one `per_thread`), and `p` is a live buffer's element
        // address (non-null, aligned) even for an empty run.
        let run = unsafe { core::slice::from_raw_parts_mut(p, to - from) };
        (from, run)
    }
}

impl<'a, T> Chunk<'a, T> {
    /// The chunk in rounds of one element per thread, every thread of the
    /// block taking every round (so a block collective can run inside the
    /// loop): round `k` gives a [`Round`] of index `j = k * threads + rank`
    /// in the chunk, with element `j` when `j` is inside the chunk.
    ///
    /// ```ignore
    /// let scratch = block_scratch!(u32);
    /// let start = chunk.start();
    /// chunk.block_rounds().for_each(|round| {
    ///     let v = input.get(start + round.index).copied().unwrap_or(0);
    ///     let (x, total) = block_inclusive_scan_with_total(&block, &scratch, v, Plus);
    ///     if let Some(out) = round.value {
    ///         *out = x;
    ///     }
    /// });
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_rounds(self) -> Rounds<'a, T> {
        let len = self.clipped_len();
        Rounds {
            ptr: self.ptr,
            start: self.start,
            len,
            next: self.rank,
            end: len.div_ceil(self.threads) * self.threads + self.rank,
            stride: self.threads,
            site: Site::here(),
            _out: PhantomData,
        }
    }
}

/// A chunk in rounds ([`Chunk::block_rounds`]).
pub struct Rounds<'a, T> {
    ptr: *mut T,
    start: usize,
    len: usize,
    next: usize,
    end: usize,
    stride: usize,
    site: Site,
    _out: PhantomData<&'a mut T>,
}

/// One round of [`Chunk::block_rounds`] for one thread.
pub struct Round<'a, T> {
    /// This thread's index in the chunk this round (past the chunk's end
    /// in a last round the chunk does not fill).
    pub index: usize,
    /// Element `index` of the chunk, `None` past its end.
    pub value: Option<&'a mut T>,
}

impl<'a, T> Iterator for Rounds<'a, T> {
    type Item = Round<'a, T>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let j = self.step()?;
        Some(self.round(j))
    }

    /// Internal iteration (what `for_each` uses): the loop tests `j`
    /// itself, with no `Option` around the round for the compiler to
    /// encode and test in every round.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.fold_indices(init, |acc, j| f(acc, self.round(j)))
    }
}

impl<'a, T> Rounds<'a, T> {
    /// The rounds with the element of `input` at each round's place in the
    /// buffer (index `chunk.start() + round.index`), for the common
    /// `out[i] = f(input[i])` of a block-wide loop: a round has the input
    /// exactly where it has the element. The bounds are checked once,
    /// here: the input must cover the chunk (truncate the output to the
    /// input's length first), else the kernel stops with a failed check
    /// naming the caller's line.
    ///
    /// ```ignore
    /// let scratch = block_scratch!(u32);
    /// chunk.block_rounds().reading(input).for_each(|round| {
    ///     let v = round.input.unwrap_or(0);
    ///     let (x, total) = block_inclusive_scan_with_total(&block, &scratch, v, Plus);
    ///     if let Some(out) = round.value {
    ///         *out = x;
    ///     }
    /// });
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn reading<'s, U: Copy>(self, input: &'s [U]) -> RoundsReading<'a, 's, T, U> {
        crate::fault::check(
            input.len() >= self.start + self.len,
            "Rounds::reading: the input ends inside the chunk; truncate the output to the input's length first",
        );
        RoundsReading {
            // The input at the chunk's start (inside it, checked above).
            input: input.as_ptr().wrapping_add(self.start),
            rounds: self,
            _input: PhantomData,
        }
    }

    /// This thread's next round index, if any.
    #[inline(always)]
    fn step(&mut self) -> Option<usize> {
        let j = self.next;
        if j >= self.end {
            return None;
        }
        self.next = j + self.stride;
        Some(j)
    }

    /// `f` over this thread's remaining round indices.
    #[inline(always)]
    fn fold_indices<B>(&self, init: B, mut f: impl FnMut(B, usize) -> B) -> B {
        let mut acc = init;
        let mut j = self.next;
        while j < self.end {
            acc = f(acc, j);
            j += self.stride;
        }
        acc
    }

    /// Round item for index `j` of the chunk (this thread's, below `end`).
    /// The index stays outside the `Option`: a kernel that reads its input
    /// at it tests the index itself, where an index inside the `Option`
    /// would be tested again behind the select that built it.
    #[inline(always)]
    fn round(&self, j: usize) -> Round<'a, T> {
        // The element's address, for every round: where it is said not to
        // be null only inside the `then` (as `element_at` says it), the
        // compiler hoists the address out of the branch and drops the
        // promise, and then tests the address for null in every round (the
        // `Option`'s `None`).
        let p = self.ptr.wrapping_add(self.start + j);
        // SAFETY: a chunk starts inside a non-empty buffer, so `ptr` is a
        // live allocation's address, and `start + j` elements past it (at
        // most a round past the chunk's end) stay far from wrapping to 0.
        unsafe { core::hint::assert_unchecked(!p.is_null()) };
        Round {
            index: j,
            value: (j < self.len).then(|| {
                self.site.exclusive(p);
                // SAFETY: in bounds; `j` is this thread's (its rank modulo
                // the block's size) in this block's chunk.
                unsafe { &mut *p }
            }),
        }
    }
}

/// A chunk in rounds, each with the input element at its place
/// ([`Rounds::reading`]).
pub struct RoundsReading<'a, 's, T, U> {
    rounds: Rounds<'a, T>,
    input: *const U,
    _input: PhantomData<&'s [U]>,
}

/// One round of [`Rounds::reading`] for one thread: `input` and `value`
/// are both present (the round is inside the chunk and the input) or both
/// absent.
pub struct RoundReading<'a, T, U> {
    /// This thread's index in the chunk this round.
    pub index: usize,
    /// The input element at the round's place in the buffer.
    pub input: Option<U>,
    /// Element `index` of the chunk.
    pub value: Option<&'a mut T>,
}

impl<'a, T, U: Copy> Iterator for RoundsReading<'a, '_, T, U> {
    type Item = RoundReading<'a, T, U>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let j = self.rounds.step()?;
        Some(self.round(j))
    }

    /// Internal iteration, as [`Rounds`]'.
    #[inline(always)]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.rounds
            .fold_indices(init, |acc, j| f(acc, self.round(j)))
    }
}

impl<'a, T, U: Copy> RoundsReading<'a, '_, T, U> {
    /// Round item for index `j` of the chunk (this thread's, below `end`).
    #[inline(always)]
    fn round(&self, j: usize) -> RoundReading<'a, T, U> {
        let Round { index, value } = self.rounds.round(j);
        RoundReading {
            index,
            // SAFETY: `j < len` puts `start + j` inside the input too
            // (`reading` checked that the input covers the chunk); read
            // under the same test as the element's, so that one compare
            // serves both.
            input: (j < self.rounds.len).then(|| unsafe { *self.input.add(j) }),
            value,
        }
    }
}

/// An element a thread owns in a block's chunk, and its index in the
/// chunk ([`Chunk::thread_element`]).
pub struct Owned<'a, T> {
    /// The element's index in the chunk.
    pub index: usize,
    /// The element.
    pub value: &'a mut T,
    _niche: Niche,
}

impl<'a, T> Owned<'a, T> {
    /// # Safety
    /// As [`element_at`] for element `start + index`.
    #[inline(always)]
    unsafe fn new(ptr: *mut T, start: usize, index: usize, site: Site) -> Self {
        Owned {
            index,
            // SAFETY: the caller's contract.
            value: unsafe { element_at(ptr, start + index, site) },
            _niche: Niche::Some,
        }
    }
}

/// One block's chunks, grid-stride ([`Output::block_chunks`]).
pub struct BlockChunks<'a, T> {
    ptr: *mut T,
    buffer: usize,
    len: usize,
    next: usize,
    step: usize,
    rank: usize,
    threads: usize,
    _out: PhantomData<&'a mut T>,
}

impl<'a, T> Iterator for BlockChunks<'a, T> {
    type Item = Chunk<'a, T>;

    #[inline(always)]
    fn next(&mut self) -> Option<Chunk<'a, T>> {
        let start = self.next;
        if start >= self.buffer || self.len == 0 {
            return None;
        }
        self.next = start + self.step;
        Some(Chunk {
            ptr: self.ptr,
            start,
            len: self.len,
            buffer: self.buffer,
            rank: self.rank,
            threads: self.threads,
            _out: PhantomData,
        })
    }
}

/// A group with one output slot of its own in the grid and one leader to
/// write it ([`Output::leader_element`]): the block (slot: its rank in the
/// grid), a static tile of `N` threads (slot: its index among the grid's
/// tiles of `N`, block by block) and, on sm_90, a cluster (slot: its rank
/// among the grid's clusters). Coalesced groups, labeled partitions and
/// dynamic tiles have no slot: many of them can share indices.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no output slot of its own",
    label = "several groups of this kind can share an index, so their leaders could write one element",
    note = "give each block, static tile or cluster an element with `leader_element`, or add into one element through an `AtomicSlice`"
)]
pub trait LeaderSlot: GroupSync {
    /// The group's slot: unique among the grid's groups of this kind.
    fn slot(&self) -> u64;
    /// Whether this thread is the group's leader (rank 0).
    fn is_leader(&self) -> bool;
}

impl LeaderSlot for ThreadBlock {
    #[inline(always)]
    fn slot(&self) -> u64 {
        this_grid().block_rank() as u64
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

/// The slot of this thread's `n`-thread tile: tiles of `n` cover a block
/// in rank order, `ceil(threads / n)` per block.
#[inline(always)]
fn tile_slot(n: u32) -> u64 {
    let block = crate::block::this_thread_block();
    let per_block = block.num_threads().div_ceil(n) as u64;
    this_grid().block_rank() as u64 * per_block + (block.thread_rank() / n) as u64
}

impl<const N: u32> LeaderSlot for ThreadBlockTile<N> {
    #[inline(always)]
    fn slot(&self) -> u64 {
        tile_slot(N)
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

impl<const N: u32> LeaderSlot for MultiWarpTile<N> {
    #[inline(always)]
    fn slot(&self) -> u64 {
        tile_slot(N)
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl LeaderSlot for crate::cluster::ClusterGroup {
    #[inline(always)]
    fn slot(&self) -> u64 {
        self.dim_clusters().linear(self.cluster_index()) as u64
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}
