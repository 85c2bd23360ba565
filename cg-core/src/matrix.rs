//! A row-major matrix read from a slice, its size checked once.
//!
//! `a[r * cols + c]` checks `r * cols + c < a.len()` at every read: a
//! compare and a branch to a panic. Such a branch between two loads keeps
//! them apart: nothing may move the second load above a panic that must
//! come first, and `ptxas` moves no load above an instruction that may end
//! the thread, so a thread whose reads are each checked has one load in
//! flight at a time. In a tiled transpose (four reads a thread) that was
//! 1.51x nvcc's time, where nvcc's unchecked C++ issues the four loads
//! back to back (`docs/NOTES.md`, 2026-11-29).
//!
//! A [`Matrix`] checks once, when it is made, that the slice holds
//! `rows * cols` elements; [`Matrix::get`] then tests `r < rows && c <
//! cols` (the test a kernel writes anyway at the matrix's edges) and gives
//! `None` outside, with no panic and no further check:
//!
//! ```ignore
//! let Some(a) = Matrix::new(a, rows, cols) else { return };
//! for j in [0, 8, 16, 24] {
//!     if let Some(v) = a.get(r0 + ty + j, c0 + tx) {
//!         // ... a write that cannot panic either (below)
//!     }
//! }
//! ```
//!
//! The reads go out together only if nothing between them can panic: a
//! checked write of each value (`tile.set(k, v)` into a shared array)
//! between two reads serializes them as a checked read does (measured:
//! `LDG STS` four times with `tile.set`, four `LDG`s back to back and then
//! four `STS` when the write is skipped, not a panic, out of range).

/// A read-only row-major matrix of `rows x cols` elements over a slice
/// that holds at least `rows * cols` (row `r` is `data[r * cols..][..cols]`).
#[derive(Debug)]
pub struct Matrix<'a, T> {
    data: &'a [T],
    rows: usize,
    cols: usize,
}

impl<T> Clone for Matrix<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Matrix<'_, T> {}

impl<'a, T: Copy> Matrix<'a, T> {
    /// The `rows x cols` matrix stored row by row at the start of `data`,
    /// or `None` if `data` holds fewer than `rows * cols` elements (or the
    /// product overflows).
    #[inline(always)]
    pub fn new(data: &'a [T], rows: usize, cols: usize) -> Option<Self> {
        match rows.checked_mul(cols) {
            Some(n) if n <= data.len() => Some(Matrix { data, rows, cols }),
            _ => None,
        }
    }

    /// Its number of rows.
    #[inline(always)]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Its number of columns (elements per row).
    #[inline(always)]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The element at row `r`, column `c`, or `None` outside the matrix.
    /// No panic: a read inside needs no check beyond this test.
    #[inline(always)]
    pub fn get(&self, r: usize, c: usize) -> Option<T> {
        if (r < self.rows) & (c < self.cols) {
            // SAFETY: r < rows and c < cols, so r * cols + c <= (rows - 1)
            // * cols + cols - 1 < rows * cols <= data.len() (checked by
            // `new`, without overflow).
            Some(unsafe { *self.data.get_unchecked(r * self.cols + c) })
        } else {
            None
        }
    }

    /// Row `r` as a slice, or `None` if `r >= rows`.
    #[inline(always)]
    pub fn row(&self, r: usize) -> Option<&'a [T]> {
        if r < self.rows {
            let start = r * self.cols;
            // SAFETY: start + cols = (r + 1) * cols <= rows * cols <=
            // data.len() (checked by `new`).
            Some(unsafe { self.data.get_unchecked(start..start + self.cols) })
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inside_and_none_outside() {
        let data: [u32; 7] = [0, 1, 2, 10, 11, 12, 99];
        let m = Matrix::new(&data, 2, 3).unwrap();
        assert_eq!((m.rows(), m.cols()), (2, 3));
        assert_eq!(m.get(0, 2), Some(2));
        assert_eq!(m.get(1, 0), Some(10));
        assert_eq!(m.get(1, 2), Some(12));
        // Outside the matrix, though inside the slice: None.
        assert_eq!(m.get(2, 0), None);
        assert_eq!(m.get(0, 3), None);
        assert_eq!(m.get(usize::MAX, usize::MAX), None);
        assert_eq!(m.row(1), Some(&data[3..6]));
        assert_eq!(m.row(2), None);
    }

    #[test]
    fn a_slice_too_short_or_an_overflowing_size_makes_none() {
        let data = [0.0f32; 6];
        assert!(Matrix::new(&data, 2, 4).is_none());
        assert!(Matrix::new(&data, usize::MAX, 2).is_none());
        assert!(Matrix::new(&data, 3, 2).is_some());
        // An empty matrix over an empty slice: every read is None.
        let m = Matrix::new(&data[..0], 0, 5).unwrap();
        assert_eq!(m.get(0, 0), None);
    }
}
