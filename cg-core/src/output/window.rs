//! The [`Points`] pattern: the points of a 2-D window of a row-major
//! array, numbered row by row, grid-stride; and the 5-point stencil sweep
//! over an array's interior, with each point's neighbours in a source
//! array.

use super::pattern::Is;
use super::{element_at, window_does_not_fit, Niche, Output, Pattern, Points};
use crate::checks::Site;
use crate::grid::GridGroup;
use crate::uniform::{IntoUniform, Uniform};
use crate::Pod;
use core::marker::PhantomData;
use core::num::NonZeroU32;

impl<T: Pod, P: Pattern> Output<T, P> {
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
    pub fn grid_stride_window(&mut self, grid: &GridGroup, window: Window) -> WindowStride<'_, T>
    where
        P: Is<Points>,
    {
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
    pub fn walk(&mut self, walk: &Walk) -> WindowStride<'_, T>
    where
        P: Is<Points>,
    {
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
    /// once and passes it to [`stencil`](Self::stencil). The sizes are
    /// [`Uniform`]: every thread sweeps the same array.
    #[inline(always)]
    #[track_caller]
    pub fn grid_stride_stencil<'s>(
        &mut self,
        grid: &GridGroup,
        src: &'s [T],
        width: impl IntoUniform<u32>,
        height: impl IntoUniform<u32>,
    ) -> StencilStride<'_, 's, T>
    where
        P: Is<Points>,
    {
        let (width, height) = (width.into_uniform().get(), height.into_uniform().get());
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
    pub fn stencil<'s>(&mut self, walk: &StencilWalk, src: &'s [T]) -> StencilStride<'_, 's, T>
    where
        P: Is<Points>,
    {
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
}

/// A rectangle of a row-major array `width` elements wide: columns `x`,
/// rows `y` ([`Output::grid_stride_window`]), made of [`Uniform`]
/// values: every thread of the grid has the same window.
#[derive(Clone, Debug)]
pub struct Window {
    width: u32,
    x: core::ops::Range<u32>,
    y: core::ops::Range<u32>,
}

impl Window {
    /// Columns `x` and rows `y` of a row-major array `width` elements wide.
    #[inline(always)]
    pub fn new(
        width: impl IntoUniform<u32>,
        x: core::ops::Range<Uniform<u32>>,
        y: core::ops::Range<Uniform<u32>>,
    ) -> Self {
        Window {
            width: width.into_uniform().get(),
            x: x.start.get()..x.end.get(),
            y: y.start.get()..y.end.get(),
        }
    }

    /// Elements per row of the array.
    #[inline(always)]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The window's columns.
    #[inline(always)]
    pub fn x(&self) -> core::ops::Range<u32> {
        self.x.clone()
    }

    /// The window's rows.
    #[inline(always)]
    pub fn y(&self) -> core::ops::Range<u32> {
        self.y.clone()
    }

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
    pub fn interior(width: impl IntoUniform<u32>, height: impl IntoUniform<u32>) -> Self {
        Window::interior_of(width.into_uniform().get(), height.into_uniform().get())
    }

    /// [`interior`](Self::interior) of plain sizes, for the stencil's walk
    /// (whose sizes are uniform already).
    #[inline(always)]
    fn interior_of(width: u32, height: u32) -> Self {
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
    /// rows fit in `u32` (`y.end * width <= u32::MAX`).
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
    /// `width * height <= u32::MAX`. The sizes are [`Uniform`]: every
    /// thread walks the same interior.
    #[inline(always)]
    #[track_caller]
    pub fn new(grid: &GridGroup, width: Uniform<u32>, height: Uniform<u32>) -> Self {
        let (width, height) = (width.get(), height.get());
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
            walk: unsafe { Walk::new_unchecked(grid, Window::interior_of(width, height)) },
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

crate::zip::inherent_zip! {
    WindowStride<'a, T>;
    StencilStride<'a, 's, T: Copy>;
}
