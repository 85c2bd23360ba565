//! The [`Threads`] pattern: one element per thread of the grid, and the
//! grid-stride loop over the buffer.

use super::pattern::Is;
use super::{element_at, Output, Pattern, Threads};
use crate::checks::Site;
use crate::grid::GridGroup;
use crate::Pod;
use core::marker::PhantomData;

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The element of this thread of the grid, `grid.thread_rank()`, or
    /// `None` when the buffer is shorter than that.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element(&mut self, grid: &GridGroup) -> Option<&mut T>
    where
        P: Is<Threads>,
    {
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
    pub fn for_thread(&mut self, grid: &GridGroup, f: impl FnOnce(&mut T))
    where
        P: Is<Threads>,
    {
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
    pub fn grid_stride(&mut self, grid: &GridGroup) -> GridStride<'_, T>
    where
        P: Is<Threads>,
    {
        GridStride::new(
            self.ptr,
            self.len,
            grid.thread_rank() as usize,
            grid.num_threads() as usize,
            Site::here(),
        )
    }
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
    pub(super) fn new(ptr: *mut T, len: usize, first: usize, stride: usize, site: Site) -> Self {
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
