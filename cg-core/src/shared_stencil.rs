//! A 5-point stencil over rows of a field held twice in shared memory,
//! swept back and forth between the two copies by a block's threads, its
//! bounds checked once per launch.
//!
//! A block that keeps part of a field in shared memory (a band of rows,
//! say, swept several times between two grid barriers) sweeps it from one
//! buffer into the other and back. [`SharedStencil::new`] takes the two
//! buffers and the field's width, finds the rows both hold and gives each
//! thread its points, once; each [`SharedStencil::sweep`] compares its
//! rows with the rows held (two 32-bit comparisons), then reads the
//! neighbours and writes each point without a bounds check, and makes the
//! buffer it wrote the newest:
//!
//! ```ignore
//! let mut field = SharedStencil::new(&block, nx, buf0, buf1);
//! // ... the field into buf0 (`field.newest()`), block.sync() ...
//! for _ in 0..k {
//!     field.sweep(1..rows - 1, |n| {
//!         0.25 * (((n.west() + n.east()) + n.north()) + n.south())
//!     });
//!     block.sync();
//! }
//! // field.newest() holds the field after k sweeps.
//! ```
//!
//! Each thread takes one column (when a row's interior fits the block;
//! else columns a block apart) and rows as many apart as the block holds
//! rows' worth of threads, so neighbouring threads take neighbouring
//! points: `ld.shared` without bank conflicts, 32-bit addresses, no
//! division in the loop.

use crate::block::ThreadBlock;
use crate::group::ThreadGroup;
use crate::shared::{ld_shared, st_shared, SharedSlice};
use bytemuck::Pod;
use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::Range;

/// A field `width` values wide held in two shared buffers, and this
/// thread's share of a sweep between them (see the [module](self)).
#[derive(Clone, Copy)]
pub struct SharedStencil<T: Pod> {
    /// The buffer the first sweep reads (and [`restart`](Self::restart)
    /// makes read again).
    first: SharedSlice<T>,
    /// The buffer the next sweep reads.
    src: SharedSlice<T>,
    /// The buffer the next sweep writes.
    dst: SharedSlice<T>,
    width: u32,
    /// Rows both buffers hold whole.
    rows: u32,
    /// This thread's first column (1-based: column 0 is the boundary).
    col: u32,
    /// Columns between this thread's points in a row.
    col_step: u32,
    /// This thread's first row, counted from a sweep's first row.
    row: u32,
    /// Rows between this thread's points.
    row_step: u32,
    /// Whether this thread takes points at all (the block's last threads
    /// do not when its size is not a multiple of the row's interior).
    active: bool,
}

impl<T: Pod> SharedStencil<T> {
    /// The field `width` values wide in `first` and `second` (row `r` at
    /// `r * width` of each; `first` the one the first sweep reads), and the
    /// points of this thread of `block` in each row: the interior columns
    /// `1..width - 1` shared out over the block's threads. The buffers must
    /// not overlap.
    #[inline(always)]
    pub fn new(
        block: &ThreadBlock,
        width: u32,
        first: SharedSlice<T>,
        second: SharedSlice<T>,
    ) -> Self {
        let (t, threads) = (block.thread_rank(), block.num_threads());
        // A field without interior columns has no points: every thread
        // inactive (and no division by zero).
        let interior = width.saturating_sub(2).max(1);
        let col_step = threads.min(interior);
        let row_step = threads / col_step;
        let held = first.len().min(second.len()) as u32;
        SharedStencil {
            first,
            src: first,
            dst: second,
            width,
            rows: held / width.max(1),
            col: 1 + t % col_step,
            col_step,
            row: t / col_step,
            row_step,
            active: width >= 3 && t < row_step * col_step,
        }
    }

    /// The buffer the next sweep reads: the newest field.
    #[inline(always)]
    pub fn newest(&self) -> SharedSlice<T> {
        self.src
    }

    /// The buffer the next sweep writes.
    #[inline(always)]
    pub fn oldest(&self) -> SharedSlice<T> {
        self.dst
    }

    /// The next sweep reads `first` (as given to [`new`](Self::new)) again:
    /// for a field copied into it anew.
    #[inline(always)]
    pub fn restart(&mut self) {
        if self.src.shared_addr() != self.first.shared_addr() {
            core::mem::swap(&mut self.src, &mut self.dst);
        }
    }

    /// One sweep of the interior points of `rows` (rows of the field as
    /// held in the buffers): each point of the oldest buffer becomes `f` of
    /// its neighbours in the newest, which it then becomes itself. Separate
    /// this sweep's writes from the reads of the next with `block.sync()`.
    ///
    /// Panics (a fault the host reports, at the caller's line) unless the
    /// rows and the rows above and below them lie inside both buffers
    /// (`rows.start >= 1`, `rows.end + 1 <= ` the rows held) or `rows` is
    /// empty.
    #[inline(always)]
    #[track_caller]
    pub fn sweep(&mut self, rows: Range<u32>, mut f: impl FnMut(SharedNeighbours<T>) -> T) {
        let (src, dst) = (self.src, self.dst);
        (self.src, self.dst) = (dst, src);
        if rows.start >= rows.end {
            return;
        }
        if rows.start == 0 || rows.end >= self.rows {
            rows_outside_buffers();
        }
        if !self.active {
            return;
        }
        // Both buffers hold the rows and their neighbours, so every address
        // below is inside them (and below 2^32: a shared address).
        let size = size_of::<T>() as u32;
        let pitch = self.width * size;
        let mut y = rows.start + self.row;
        while y < rows.end {
            let mut x = self.col;
            while x < self.width - 1 {
                let offset = (y * self.width + x) * size;
                let value = f(SharedNeighbours {
                    addr: src.shared_addr() + offset,
                    pitch,
                    _t: PhantomData,
                });
                // SAFETY: a point of `rows`, inside `dst` (checked above).
                unsafe { st_shared(dst.shared_addr() + offset, value) };
                x += self.col_step;
            }
            y += self.row_step;
        }
    }
}

#[cold]
#[track_caller]
fn rows_outside_buffers() -> ! {
    panic!(
        "SharedStencil::sweep: the rows do not fit: they must start at row 1 or later and, with \
         the row below them, lie inside both shared buffers"
    )
}

/// A point of a [`SharedStencil`] sweep: its four neighbours in the buffer
/// it reads, read without a bounds check (the sweep checked its rows).
#[derive(Clone, Copy)]
pub struct SharedNeighbours<T> {
    /// The point's shared address.
    addr: u32,
    /// Bytes from one row to the next.
    pitch: u32,
    _t: PhantomData<T>,
}

impl<T: Pod> SharedNeighbours<T> {
    /// `(x - 1, y)`.
    #[inline(always)]
    pub fn west(&self) -> T {
        // SAFETY: the sweep's rows are inside the buffer, and the point is
        // an interior column (see `SharedStencil::sweep`).
        unsafe { ld_shared(self.addr - size_of::<T>() as u32) }
    }

    /// `(x + 1, y)`.
    #[inline(always)]
    pub fn east(&self) -> T {
        // SAFETY: as `west`.
        unsafe { ld_shared(self.addr + size_of::<T>() as u32) }
    }

    /// `(x, y - 1)`.
    #[inline(always)]
    pub fn north(&self) -> T {
        // SAFETY: as `west` (the row above is inside the buffer).
        unsafe { ld_shared(self.addr - self.pitch) }
    }

    /// `(x, y + 1)`.
    #[inline(always)]
    pub fn south(&self) -> T {
        // SAFETY: as `west` (the row below is inside the buffer).
        unsafe { ld_shared(self.addr + self.pitch) }
    }

    /// The point itself, `(x, y)`.
    #[inline(always)]
    pub fn centre(&self) -> T {
        // SAFETY: as `west`.
        unsafe { ld_shared(self.addr) }
    }
}
