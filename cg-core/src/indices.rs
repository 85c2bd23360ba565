//! Index buffers checked once, on the host, so that a gather through them
//! needs no bounds check per element.
//!
//! A gather `x[columns[k]]` in safe Rust checks `columns[k] < x.len()` at
//! every element: one compare and one branch to a panic each, and a loop
//! with two exits, which LLVM keeps rolled (one load in flight). CUDA C++
//! checks nothing. An [`Indices<I>`] kernel parameter is the safe
//! zero-cost form: its host argument is an `IndexBuffer` (cooperative-groups'
//! `Gpu::upload_indices(&data, bound)`), whose every value the host checked
//! to be below `bound` when it uploaded it, and which nothing can write
//! afterwards. In the kernel, [`Indices::over`] checks once that a slice has
//! at least `bound` elements and gives a [`Gather`], whose reads need no
//! further check of the index values:
//!
//! ```ignore
//! #[kernel]
//! pub fn spmv(rows: &[u32], columns: Indices<u32>, values: &[f64], x: &[f64], mut y: Output<f64>) {
//!     let grid = this_grid();
//!     let x_at = columns.over(x); // one check: x.len() >= columns.bound()
//!     for (row, y) in y.grid_stride(&grid) {
//!         let (start, end) = (rows[row] as usize, rows[row + 1] as usize);
//!         // The row's values and its gather, each range checked once: the
//!         // loop below then has no check left, and unrolls.
//!         let (a, xs) = (&values[start..end], x_at.range(start..end));
//!         let mut sum = 0.0;
//!         for j in 0..a.len() {
//!             sum += a[j] * xs[j];
//!         }
//!         *y = sum;
//!     }
//! }
//! ```
//!
//! A CSR matrix's rows come the same way: its row offsets uploaded as an
//! index buffer too, with the bound `nnz + 1`, and [`Indices::rows`]
//! splits the values and a gather into [`Row`]s, each an iterator of
//! pairs whose [`fold`](Iterator::fold) counts in the offsets' width and
//! unrolls:
//!
//! ```ignore
//! let rows = row_offsets.rows(values, columns.over(x)); // two checks, once
//! for (row, y) in y.grid_stride(&grid) {
//!     *y = rows.row(row).fold(0.0, |sum, (a, x)| sum + a * x); // one check a row
//! }
//! ```
//!
//! The positions `k` into the index buffer are still checked (once a range
//! with [`Gather::range`], or per access with `gather[k]` and
//! [`Gather::get`], where a loop's bound usually proves them); only the
//! values read from it are trusted. Index a row's gather and its values
//! with one counter, as above: measured in the SASS of an sm_90 build, that
//! loop unrolls as the same loop with `get_unchecked` does, while
//! `values.iter().zip(xs.iter())` stays rolled (the zip's end test compares
//! pointers LLVM cannot prove non-null in global memory).

use core::marker::PhantomData;
use core::ops::Range;
use core::ptr::NonNull;

mod sealed {
    pub trait Sealed {}
}

/// An integer type an index buffer may hold: `u16`, `u32`, `u64`, `usize`,
/// `i32` and `i64` (a signed index is checked to be at least 0 too).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an index value",
    label = "not an index type",
    note = "`Indices<I>` holds u16, u32, u64, usize, i32 or i64 values, checked by the host \
            against a bound (`Gpu::upload_indices`); take other data as `&[T]`"
)]
pub trait IndexValue: bytemuck::Pod + sealed::Sealed {
    /// The value as an index, or `None` for a negative one. Every value an
    /// `IndexBuffer` holds gives `Some` below its bound.
    fn to_index(self) -> Option<u64>;

    /// The value as a `usize`, for a value [`to_index`](IndexValue::to_index)
    /// accepts (a plain `as` conversion).
    fn as_usize(self) -> usize;
}

macro_rules! index_values {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl IndexValue for $t {
            #[inline(always)]
            fn to_index(self) -> Option<u64> {
                u64::try_from(self).ok()
            }
            #[inline(always)]
            fn as_usize(self) -> usize {
                self as usize
            }
        }
    )*};
}
index_values!(u16, u32, u64, usize, i32, i64);

/// A read-only kernel parameter of index values, each below [`bound`]
/// (checked by the host when it uploaded them; see the
/// [module docs](self)). Its host argument is an `&IndexBuffer<I>`.
///
/// [`bound`]: Indices::bound
pub struct Indices<I: IndexValue> {
    ptr: NonNull<I>,
    len: usize,
    bound: usize,
    _read_only: PhantomData<*const I>,
}

impl<I: IndexValue> Clone for Indices<I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I: IndexValue> Copy for Indices<I> {}

impl<I: IndexValue> Indices<I> {
    /// The parameter the host passed.
    ///
    /// # Safety
    /// `ptr` is a live allocation of `len` values of `I` that nothing
    /// writes while the kernel runs, each `v` of them with
    /// `v.to_index() < Some(bound)`.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn from_raw_parts(ptr: NonNull<I>, len: usize, bound: usize) -> Self {
        // SAFETY: the caller's contract: one allocation of `len` values.
        // With the bound told, a loop over them can be counted and unrolled.
        unsafe { crate::__private::assume_allocation_len::<I>(len) };
        Self {
            ptr,
            len,
            bound,
            _read_only: PhantomData,
        }
    }

    /// How many index values there are.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bound every value is below.
    #[inline(always)]
    pub fn bound(&self) -> usize {
        self.bound
    }

    /// The values themselves, as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[I] {
        // SAFETY: `from_raw_parts`'s contract: `len` live values that
        // nothing writes during the launch.
        unsafe { crate::__private::kernel_slice(self.ptr.as_ptr(), self.len) }
    }

    /// The gather of `target` through these indices: element `k` of it is
    /// `target[self[k]]`. Panics (once, here) unless `target` has at least
    /// [`bound`](Indices::bound) elements; no read through the gather
    /// checks an index value after that.
    #[inline(always)]
    #[track_caller]
    pub fn over<'t, T>(&self, target: &'t [T]) -> Gather<'t, T, I> {
        // A message without values: formatting them would set up a stack
        // frame on every path, not only the panic's.
        assert!(
            target.len() >= self.bound,
            "a gather over a slice shorter than its indices' bound: pass a slice of at least \
             the bound the host checked"
        );
        Gather {
            indices: *self,
            target,
        }
    }
}

impl<I: IndexValue> Indices<I> {
    /// The rows of a compressed sparse row (CSR) matrix whose row offsets
    /// these values are: row `r` is the elements `self[r]..self[r + 1]` of
    /// `values` and of `gather` (the matrix's values, and a vector read
    /// through its column indices). Upload the offsets of a matrix of
    /// `nnz` elements with the bound `nnz + 1` (every offset at most
    /// `nnz`). Panics (once, here) unless `values` and `gather` both have
    /// at least `bound - 1` elements; after that [`Rows::row`] checks a
    /// row's number, and its elements need no check.
    #[inline(always)]
    #[track_caller]
    pub fn rows<'t, A, X, J: IndexValue>(
        &self,
        values: &'t [A],
        gather: Gather<'t, X, J>,
    ) -> Rows<'t, A, X, I, J> {
        let most = self.bound.saturating_sub(1);
        assert!(
            values.len() >= most && gather.len() >= most,
            "CSR rows over values or a gather shorter than the row offsets' bound minus one: \
             upload the row offsets with the bound nnz + 1"
        );
        Rows {
            offsets: *self,
            values,
            gather,
        }
    }
}

/// The rows of a CSR matrix: its values and a gather through its column
/// indices, split by host-checked row offsets ([`Indices::rows`]).
pub struct Rows<'t, A, X, I: IndexValue, J: IndexValue> {
    offsets: Indices<I>,
    values: &'t [A],
    gather: Gather<'t, X, J>,
}

impl<A, X, I: IndexValue, J: IndexValue> Clone for Rows<'_, A, X, I, J> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, X, I: IndexValue, J: IndexValue> Copy for Rows<'_, A, X, I, J> {}

impl<'t, A, X, I: IndexValue, J: IndexValue> Rows<'t, A, X, I, J> {
    /// How many rows there are (one fewer than the offsets).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.offsets.len.saturating_sub(1)
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `r`: its elements' values and gathered values, in order, as
    /// pairs `(values[k], gather[k])` ([`Row`]). Panics unless `r` is
    /// below [`len`](Rows::len); no element is checked. Offsets out of
    /// order give an empty row.
    #[inline(always)]
    #[track_caller]
    pub fn row(&self, r: usize) -> Row<'t, A, X, I, J> {
        // One test: `r < len` makes `r + 1` an offset too.
        assert!(r < self.len(), "a CSR row past the last row offset");
        let offsets = self.offsets.as_slice();
        Row {
            values: self.values,
            indices: self.gather.indices_for_launch(),
            target: self.gather.target,
            next: at(offsets, r).as_usize(),
            end: at(offsets, r + 1).as_usize(),
            _offsets: PhantomData,
        }
    }
}

/// One row of a CSR matrix ([`Rows::row`]): an iterator of pairs
/// `(value, gathered value)`, by value.
///
/// Sum it with [`fold`](Iterator::fold) (or anything built on it:
/// `for_each`, `map(..).sum()`): that loop counts in the row offsets'
/// width (`u32` for `u32` offsets, as nvcc's `int` loop) and unrolls, with
/// no check. A `for` loop over the row is right too, but goes through
/// `next`, which tests the count and then the `Option` it built: that loop
/// stays rolled on the GPU, one element a trip.
pub struct Row<'t, A, X, I: IndexValue, J: IndexValue> {
    /// The matrix's values.
    values: &'t [A],
    /// The matrix's column indices, each below `target.len()` (the
    /// gather's contract).
    indices: &'t [J],
    /// What the column indices read.
    target: &'t [X],
    /// The position of the next pair.
    next: usize,
    /// The row's end: an offset the host checked, so at most the lengths
    /// of `values` and `indices` ([`Indices::rows`]).
    end: usize,
    _offsets: PhantomData<I>,
}

impl<'t, A: Copy, X: Copy, I: IndexValue, J: IndexValue> Row<'t, A, X, I, J> {
    /// The pair at position `k`, for `k` below `self.end`.
    #[inline(always)]
    fn pair(&self, k: usize) -> (A, X) {
        // `k < end`, at most the lengths of `values` and `indices`.
        let index = *at(self.indices, k);
        (*at(self.values, k), *at(self.target, index))
    }
}

/// Folds the pairs from `row.next` to `row.end`, counting in `$count`: a
/// `while` loop with one test a trip, which LLVM counts and unrolls.
macro_rules! fold_counting {
    ($row:ident, $init:ident, $f:ident, $count:ty) => {{
        let (mut k, end) = ($row.next as $count, $row.end as $count);
        let mut acc = $init;
        while k < end {
            acc = $f(acc, $row.pair(k as usize));
            k += 1;
        }
        acc
    }};
}

impl<A: Copy, X: Copy, I: IndexValue, J: IndexValue> Iterator for Row<'_, A, X, I, J> {
    type Item = (A, X);

    #[inline(always)]
    fn next(&mut self) -> Option<(A, X)> {
        let k = self.next;
        if k < self.end {
            self.next = k + 1;
            Some(self.pair(k))
        } else {
            None
        }
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next);
        (left, Some(left))
    }

    #[inline(always)]
    fn fold<B, F: FnMut(B, (A, X)) -> B>(self, init: B, mut f: F) -> B {
        // Offsets of a type of at most 32 bits are below 2^32: a narrower
        // counter takes fewer registers (a 64-bit counter is two, and so
        // is every address computed from it).
        if size_of::<I>() <= size_of::<u32>() {
            fold_counting!(self, init, f, u32)
        } else {
            fold_counting!(self, init, f, usize)
        }
    }
}

impl<A: Copy, X: Copy, I: IndexValue, J: IndexValue> ExactSizeIterator for Row<'_, A, X, I, J> {}

/// A slice read through index values known to be in its bounds:
/// `gather[k] == target[indices[k]]` ([`Indices::over`]).
pub struct Gather<'t, T, I: IndexValue> {
    indices: Indices<I>,
    target: &'t [T],
}

impl<T, I: IndexValue> Clone for Gather<'_, T, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, I: IndexValue> Copy for Gather<'_, T, I> {}

/// `target[index]` for an index known to be below `target.len()`: a value
/// of an index buffer read through a [`Gather`], or a position in a CSR
/// row or its offsets ([`Rows::row`]).
#[inline(always)]
fn at<T, I: IndexValue>(target: &[T], index: I) -> &T {
    // A value the host checked is at least 0 and below the bound.
    let i = index.as_usize();
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every caller's index is below `target.len()`: a value of an
    // index buffer (the buffer's contract: below its bound) gathered from
    // a slice `Indices::over` checked has at least the bound's elements;
    // a row's offsets `r` and `r + 1`, with `r` checked below the offsets'
    // length minus one (`Rows::row`); or a position `k` of a row, below
    // the row's end, an offset the host checked to be below the offsets'
    // bound, which `Indices::rows` checked is at most one more than the
    // lengths of the values and of the gather's index values.
    return unsafe { target.get_unchecked(i) };
    // Off the GPU the check costs nothing that matters, and a broken
    // contract panics instead of reading out of bounds.
    #[cfg(not(target_arch = "nvptx64"))]
    &target[i]
}

impl<'t, T, I: IndexValue> Gather<'t, T, I> {
    /// The index values, for as long as the target lives (they live for
    /// the launch).
    #[inline(always)]
    fn indices_for_launch(&self) -> &'t [I] {
        // SAFETY: `Indices`' contract: `len` live values that nothing
        // writes during the launch.
        unsafe { crate::__private::kernel_slice(self.indices.ptr.as_ptr(), self.indices.len) }
    }

    /// How many elements the gather has (the number of index values).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.indices.len
    }

    /// Whether it has none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.indices.len == 0
    }

    /// `target[indices[k]]`, or `None` when `k` is past the index values.
    #[inline(always)]
    pub fn get(&self, k: usize) -> Option<&'t T> {
        let index = *self.indices.as_slice().get(k)?;
        Some(at(self.target, index))
    }

    /// The elements `range` of the gather, as a gather of their own (its
    /// element 0 is this one's `range.start`), with the range checked
    /// once: panics as slicing does when it is out of the index values.
    #[inline(always)]
    #[track_caller]
    pub fn range(&self, range: Range<usize>) -> Gather<'t, T, I> {
        let values = &self.indices.as_slice()[range];
        Gather {
            // SAFETY: a part of the values `self.indices` holds, with
            // their bound.
            indices: unsafe {
                Indices::from_raw_parts(
                    NonNull::from(values).cast(),
                    values.len(),
                    self.indices.bound,
                )
            },
            target: self.target,
        }
    }

    /// Every element in order. Zipped with a slice's iterator
    /// (`values.iter().zip(gather.iter())`) it is one loop with one
    /// counter, as two slices zipped are.
    #[inline(always)]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'t T> + DoubleEndedIterator + Clone + 't {
        let target = self.target;
        let values = self.indices_for_launch();
        // A map over a slice's iterator: zips through core's random-access
        // path, where an iterator of its own would zip as two loops' exits.
        values.iter().map(move |&index| at(target, index))
    }
}

impl<'t, T, I: IndexValue> core::ops::Index<usize> for Gather<'t, T, I> {
    type Output = T;

    /// `target[indices[k]]`; panics when `k` is past the index values (the
    /// value read there is not checked again).
    #[inline(always)]
    #[track_caller]
    fn index(&self, k: usize) -> &T {
        at(self.target, self.indices.as_slice()[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `values` as a kernel parameter whose values are below `bound`.
    fn indices<I: IndexValue>(values: &[I], bound: usize) -> Indices<I> {
        assert!(values.iter().all(|v| v.to_index() < Some(bound as u64)));
        // SAFETY: a live slice, read only, every value below `bound`.
        unsafe { Indices::from_raw_parts(NonNull::from(values).cast(), values.len(), bound) }
    }

    /// Rows 0..4 of a matrix of 7 elements: [0, 3), empty, out of order
    /// (an empty row), [1, 7).
    const OFFSETS: [u32; 5] = [0, 3, 3, 1, 7];
    const COLUMNS: [u32; 7] = [2, 0, 1, 1, 2, 0, 2];
    const VALUES: [f64; 7] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
    const X: [f64; 3] = [10.0, 100.0, 1000.0];

    /// Row `r`'s pairs, as `values[k]` and `x[columns[k]]`.
    fn reference(r: usize) -> Vec<(f64, f64)> {
        let (start, end) = (OFFSETS[r] as usize, OFFSETS[r + 1] as usize);
        // Empty where the offsets are out of order.
        (start..end)
            .map(|k| (VALUES[k], X[COLUMNS[k] as usize]))
            .collect()
    }

    #[test]
    fn a_row_yields_its_pairs_by_next_fold_and_for_each() {
        let columns = indices(&COLUMNS, X.len());
        let wide: Vec<u64> = OFFSETS.iter().map(|&o| o as u64).collect();
        let (narrow, wide) = (indices(&OFFSETS, 8), indices(&wide, 8));
        let rows = narrow.rows(&VALUES, columns.over(&X));
        let wide_rows = wide.rows(&VALUES, columns.over(&X));
        assert_eq!((rows.len(), rows.is_empty()), (4, false));
        for r in 0..4 {
            let want = reference(r);
            assert_eq!(rows.row(r).len(), want.len(), "row {r}");
            assert_eq!(rows.row(r).collect::<Vec<_>>(), want, "row {r} by next");
            let folded = rows.row(r).fold(Vec::new(), |mut v, p| {
                v.push(p);
                v
            });
            assert_eq!(folded, want, "row {r} by fold (u32 counter)");
            let mut each = Vec::new();
            wide_rows.row(r).for_each(|p| each.push(p));
            assert_eq!(each, want, "row {r} by for_each (usize counter)");
        }
    }

    #[test]
    fn a_fold_after_next_goes_on_from_the_next_pair() {
        let columns = indices(&COLUMNS, X.len());
        let offsets = indices(&OFFSETS, 8);
        let rows = offsets.rows(&VALUES, columns.over(&X));
        let mut row = rows.row(3);
        assert_eq!(row.next(), Some(reference(3)[0]));
        assert_eq!(row.size_hint(), (5, Some(5)));
        let rest: Vec<_> = row.fold(Vec::new(), |mut v, p| {
            v.push(p);
            v
        });
        assert_eq!(rest, reference(3)[1..]);
    }

    #[test]
    #[should_panic(expected = "a CSR row past the last row offset")]
    fn a_row_past_the_last_offset_panics() {
        let columns = indices(&COLUMNS, X.len());
        let offsets = indices(&OFFSETS, 8);
        offsets.rows(&VALUES, columns.over(&X)).row(4);
    }

    #[test]
    #[should_panic(expected = "shorter than the row offsets' bound minus one")]
    fn rows_over_values_shorter_than_the_bound_panic() {
        let columns = indices(&COLUMNS, X.len());
        let offsets = indices(&OFFSETS, 8);
        offsets.rows(&VALUES[..6], columns.over(&X));
    }
}
