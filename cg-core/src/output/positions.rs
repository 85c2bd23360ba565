//! The [`Grid2d`] and [`Grid3d`] patterns: one element per thread of a
//! 2-D or 3-D launch, at its position in a row-major array.

use super::pattern::Is;
use super::{Grid2d, Grid3d, Output, Pattern};
use crate::checks::Site;
use crate::grid::GridGroup;
use crate::intrinsics;
use crate::uniform::IntoUniform;
use crate::Pod;

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The element `y * width + x` of a row-major `width`-wide array, where
    /// `(x, y)` is this thread's position in the grid's threads
    /// (`grid.thread_index()`), or `None` when `x >= width`, the element
    /// lies beyond the buffer, or the thread is not in the launch's first
    /// plane (`z > 0`: in a 3-D launch the planes would share elements).
    /// `width` is [`Uniform`](crate::uniform::Uniform): a width per thread
    /// would hand one element to two threads.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element_2d(
        &mut self,
        grid: &GridGroup,
        width: impl IntoUniform<usize>,
    ) -> Option<&mut T>
    where
        P: Is<Grid2d>,
    {
        let width = width.into_uniform().get();
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
}

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The element `(z * height + y) * width + x` of a row-major array of
    /// `width` x `height` planes, where `(x, y, z)` is this thread's position
    /// in the grid's threads, or `None` when `x >= width`, `y >= height` or
    /// the element lies beyond the buffer. `width` and `height` are
    /// [`Uniform`](crate::uniform::Uniform).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn thread_element_3d(
        &mut self,
        grid: &GridGroup,
        width: impl IntoUniform<usize>,
        height: impl IntoUniform<usize>,
    ) -> Option<&mut T>
    where
        P: Is<Grid3d>,
    {
        let (width, height) = (width.into_uniform().get(), height.into_uniform().get());
        #[cfg(not(target_arch = "nvptx64"))]
        Site::here().uniform(
            "thread_element_3d's width, height",
            &[width as u64, height as u64],
        );
        let t = grid.thread_index();
        let (x, y, z) = (t.x as usize, t.y as usize, t.z as usize);
        self.position(true, (x, y, z), width, height)
    }
}

impl<T: Pod, P: Pattern> Output<T, P> {
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
    pub(super) fn position(
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
}
