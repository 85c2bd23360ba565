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

/// `target[index]` for an index the host checked: `index < target.len()`.
#[inline(always)]
fn at<T, I: IndexValue>(target: &[T], index: I) -> &T {
    // A value the host checked is at least 0 and below the bound.
    let i = index.as_usize();
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the index buffer's contract (every value below its bound)
    // and `Indices::over`'s check (the bound is at most `target.len()`).
    return unsafe { target.get_unchecked(i) };
    // Off the GPU the check costs nothing that matters, and a broken
    // contract panics instead of reading out of bounds.
    #[cfg(not(target_arch = "nvptx64"))]
    &target[i]
}

impl<'t, T, I: IndexValue> Gather<'t, T, I> {
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
        // SAFETY: `Indices`' contract; the values live for the launch.
        let values: &'t [I] =
            unsafe { crate::__private::kernel_slice(self.indices.ptr.as_ptr(), self.indices.len) };
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
