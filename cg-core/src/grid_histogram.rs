//! A histogram of evenly spaced bins over a whole grid (CUB's
//! `DeviceHistogram::HistogramEven` inside a kernel): each block counts its
//! samples in shared memory, then adds its counts to the device's bins
//! once, one atomic per non-empty bin.
//!
//! ```ignore
//! #[kernel]
//! pub fn levels(x: &[f32], bins: AtomicSlice<u32>) {
//!     let grid = this_grid();
//!     let even = Even::new(0.0f32, 1.0, 64);
//!     grid_histogram(&grid, x, &even, shared_array!(u32; 64).as_slice(), &bins);
//! }
//! ```
//!
//! No block waits for another, so any launch can call it (cooperative or
//! not); the device's bins hold every block's counts once the kernel has
//! ended, or after a grid barrier in a cooperative one.

use crate::atomic::{AtomicSlice, Ordering};
use crate::block::this_thread_block;
use crate::fault;
use crate::grid::GridGroup;
use crate::group::GroupSync;
use crate::shared::SharedSlice;
use crate::vector::{split_quads, Vec4};
use bytemuck::Pod;

/// Loads a thread has in flight before it counts their samples: four
/// samples, or for 4-byte samples four 16-byte groups of four (64 bytes,
/// as CUB's `DeviceHistogram`).
const IN_FLIGHT: usize = 4;

/// `bins` bins of equal width over `[lower, upper)` (CUB's `num_levels`
/// is `bins + 1`, its `lower_level` and `upper_level` these two).
/// Samples outside the range, and float NaNs, are not counted.
#[derive(Clone, Copy, Debug)]
pub struct Even<T: Sample> {
    lower: T,
    upper: T,
    bins: u32,
    scale: T::Scale,
}

impl<T: Sample> Even<T> {
    /// The levels: `bins` bins from `lower` (included) to `upper`
    /// (excluded). `lower < upper` and `bins > 0`, or no sample is
    /// counted.
    ///
    /// ```
    /// use cg_core::grid_histogram::Even;
    /// let even = Even::new(0u32, 1000, 10);
    /// assert_eq!(even.bin(999), Some(9));
    /// assert_eq!(even.bin(1000), None);
    /// ```
    #[inline(always)]
    pub fn new(lower: T, upper: T, bins: u32) -> Self {
        Even {
            lower,
            upper,
            bins,
            scale: T::scale(lower, upper, bins),
        }
    }

    /// The number of bins.
    #[inline(always)]
    pub fn bins(&self) -> u32 {
        self.bins
    }

    /// The bin of `x`, or `None` outside `[lower, upper)` (see
    /// [`Sample`] for the rule of each type).
    #[inline(always)]
    pub fn bin(&self, x: T) -> Option<u32> {
        if self.bins > 0 && self.lower <= x && x < self.upper {
            Some(x.bin(self.lower, self.bins, self.scale))
        } else {
            None
        }
    }
}

/// A sample type of [`Even`] bins, with its rule for a sample's bin
/// (`x` in `[lower, upper)`, `bins` bins).
pub trait Sample: Pod + PartialOrd {
    /// What [`Even::new`] computes once for [`bin`](Self::bin).
    type Scale: Copy + core::fmt::Debug;

    /// The scale of `bins` bins over `[lower, upper)`.
    fn scale(lower: Self, upper: Self, bins: u32) -> Self::Scale;

    /// The bin of `self` (in `[lower, upper)`).
    fn bin(self, lower: Self, bins: u32, scale: Self::Scale) -> u32;
}

/// An unsigned integer's scale: `(width, reciprocal, range)`, with `width
/// = range / bins` when `bins` divides the range (then `reciprocal` is
/// `2^64 / width + 1`, the multiplier of an exact division of a `u32` by
/// `width`) and `width = 0` when not.
#[derive(Clone, Copy, Debug)]
pub struct IntScale {
    width: u64,
    reciprocal: u64,
    range: u64,
}

/// The integers' rule: bin `((x - lower) * bins) / (upper - lower)`,
/// exact (CUB's integer rule). Where `bins` divides the range, which is
/// `(x - lower) / width`, as a multiply by the reciprocal (Lemire's exact
/// division of 32-bit values); otherwise a 64-bit division.
macro_rules! int_sample {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            type Scale = IntScale;

            #[inline(always)]
            fn scale(lower: Self, upper: Self, bins: u32) -> IntScale {
                let range = (upper as u64).wrapping_sub(lower as u64);
                let width = match (bins as u64, range % (bins as u64).max(1)) {
                    (0, _) | (_, 1..) => 0,
                    (b, 0) => range / b,
                };
                let reciprocal = match width {
                    0 => 0,
                    w => (u64::MAX / w).wrapping_add(1),
                };
                IntScale { width, reciprocal, range }
            }

            #[inline(always)]
            fn bin(self, lower: Self, bins: u32, scale: IntScale) -> u32 {
                // In the type's own width: the compiler then knows `d <
                // 2^32`, and the products below are 32 x 32-bit ones.
                let d = self.wrapping_sub(lower) as u64;
                if scale.width == 1 {
                    d as u32
                } else if scale.width > 0 {
                    // ⌊d / w⌋ = the high word of the 96-bit `reciprocal *
                    // d` for `d < 2^32` (every sample of these types), from
                    // two 32 x 32-bit products.
                    let lo = (scale.reciprocal & 0xffff_ffff) * d;
                    let hi = (scale.reciprocal >> 32) * d;
                    ((hi + (lo >> 32)) >> 32) as u32
                } else {
                    (d * bins as u64 / scale.range) as u32
                }
            }
        }
    )*};
}

int_sample!(u8, u16, u32);

/// The floats' rule: bin `⌊(x - lower) * (bins / (upper - lower))⌋` in
/// `f32`, the last bin where rounding reaches `bins` (CUB's float rule
/// with its reciprocal scale; not compared with CUB bit for bit).
impl Sample for f32 {
    type Scale = f32;

    #[inline(always)]
    fn scale(lower: Self, upper: Self, bins: u32) -> f32 {
        bins as f32 / (upper - lower)
    }

    #[inline(always)]
    fn bin(self, lower: Self, bins: u32, scale: f32) -> u32 {
        (((self - lower) * scale) as u32).min(bins - 1)
    }
}

/// Counts the samples of `input` into `bins` by the levels `even`: bin
/// `b` of the device's `bins` gains the number of samples in bin `b`
/// (the host zeroes `bins`, or it adds to what is there). Every thread of
/// the grid calls it with the same arguments; `block_bins` is a shared
/// array of at least `even.bins()` counts (`shared_array!(u32; 256)`), and
/// `bins` holds at least `even.bins()` (a failed check otherwise).
///
/// Each block zeroes its shared counts, counts its grid-stride samples
/// there (block-scope atomics, four samples loaded at a time), and adds
/// each non-empty count to `bins` once. The counts are exact, so the
/// result does not depend on the order.
///
/// ```ignore
/// let even = Even::new(0u32, 256, 256);
/// grid_histogram(&grid, bytes, &even, shared_array!(u32; 256).as_slice(), &bins);
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_histogram<T: Sample>(
    grid: &GridGroup,
    input: &[T],
    even: &Even<T>,
    block_bins: SharedSlice<u32>,
    bins: &AtomicSlice<'_, u32>,
) {
    let nbins = even.bins() as usize;
    fault::check(
        block_bins.len() >= nbins && bins.len() >= nbins,
        "grid_histogram: fewer bins in shared memory or on the device than the levels have",
    );
    let block = this_thread_block();
    for b in block.stride(nbins) {
        block_bins.set(b, 0);
    }
    block.sync();
    let count = |x: T| {
        if let Some(b) = even.bin(x) {
            // SAFETY: `b < nbins <= block_bins.len()` (a bin of the levels;
            // checked above).
            unsafe { block_bins.atomic_unchecked(b as usize) }.add(1, Ordering::Relaxed);
        }
    };
    let (g, threads) = (grid.thread_rank() as usize, grid.num_threads() as usize);
    match split_quads(input) {
        Some((head, groups, tail)) => {
            if let Some(&x) = head.get(g) {
                count(x);
            }
            let group = |q: Vec4<u32>| {
                // Each word by name: an array iterator over the group (or
                // over the loads) kept them in local memory for `u32`.
                let [a, b, c, d] = q.0;
                count(bytemuck::cast(a));
                count(bytemuck::cast(b));
                count(bytemuck::cast(c));
                count(bytemuck::cast(d));
            };
            grid_stride_in_flight(groups, g, threads, group);
            if let Some(&x) = tail.get(g) {
                count(x);
            }
        }
        None => grid_stride_in_flight(input, g, threads, count),
    }
    block.sync();
    for b in block.stride(nbins) {
        let c = block_bins.get(b);
        if c != 0 {
            bins.at(b).add(c, Ordering::Relaxed);
        }
    }
}

/// `f` of every element `g + k S` of `values` (`S`, `threads`
/// clamped to the length), [`IN_FLIGHT`] loads at a time.
#[inline(always)]
fn grid_stride_in_flight<V: Copy>(values: &[V], g: usize, threads: usize, f: impl Fn(V)) {
    let n = values.len();
    // Clamped, `i + 3 * step` cannot wrap, so the loop's test bounds every
    // load (a stride of `n` or more gives each thread one value at most).
    let step = threads.min(n.max(1));
    let mut i = g;
    while i + (IN_FLIGHT - 1) * step < n {
        let x = [
            values[i],
            values[i + step],
            values[i + 2 * step],
            values[i + 3 * step],
        ];
        let [a, b, c, d] = x;
        f(a);
        f(b);
        f(c);
        f(d);
        i += IN_FLIGHT * step;
    }
    while i < n {
        f(values[i]);
        i += step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_bins_follow_the_exact_rule() {
        for (lower, upper, bins) in [(0u32, 256, 256), (10, 1010, 10), (0, 1000, 7), (5, 6, 1)] {
            let even = Even::new(lower, upper, bins);
            for x in (0..1100u32).chain([u32::MAX, upper.wrapping_sub(1)]) {
                let want = (lower..upper)
                    .contains(&x)
                    .then(|| ((x - lower) as u64 * bins as u64 / (upper - lower) as u64) as u32);
                assert_eq!(
                    even.bin(x),
                    want,
                    "{x} in {bins} bins of [{lower}, {upper})"
                );
            }
        }
        let full = Even::new(0u32, u32::MAX, 1 << 16);
        assert_eq!(full.bin(u32::MAX - 1), Some(65535));
    }

    #[test]
    fn float_bins_stay_in_range() {
        let even = Even::new(-1.0f32, 1.0, 10);
        assert_eq!(even.bin(-1.0), Some(0));
        assert_eq!(even.bin(1.0f32.next_down()), Some(9));
        assert_eq!(even.bin(1.0), None);
        assert_eq!(even.bin(f32::NAN), None);
        assert_eq!(even.bin(0.0), Some(5));
    }
}
