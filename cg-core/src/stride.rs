//! Grid-stride and block-stride index loops: CUDA's
//! `for (i = rank; i < n; i += size)` as an iterator of `usize` indices
//! that compiles to that loop.
//!
//! `(rank..n).step_by(size)` is the same set of indices, but `StepBy`
//! counts its steps in a second induction variable, so the compiler can no
//! longer see `i < n` at the body and keeps every `x[i]`'s bounds check:
//! 17 SASS instructions a step where CUDA's loop has 10. A [`Stride`] tests
//! `i < n` itself, so `x[i]` with `n == x.len()` needs no check.

/// One thread's indices of a strided loop over `0..n`: `first`, then every
/// `step` after it, below `n` ([`GridGroup::stride`](crate::grid::GridGroup::stride),
/// [`ThreadBlock::stride`](crate::block::ThreadBlock::stride)).
///
/// ```ignore
/// let mut sum = 0.0;
/// for i in grid.stride(x.len()) {
///     sum += x[i]; // in bounds by the loop's own test: no check
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Stride {
    /// The index last handed out (one step before the first at first).
    last: usize,
    end: usize,
    step: usize,
}

impl Stride {
    /// Indices `first, first + step, ...` below `end`.
    #[inline(always)]
    pub(crate) fn new(first: usize, step: usize, end: usize) -> Self {
        // The same indices with the step clamped to `1..=end`: a step of
        // `end` or more hands out `first` alone, as a larger one does. And
        // the step and `end + step` clamped to `isize::MAX`: no index from
        // `isize::MAX - step` on is handed out, which shortens no real loop
        // (`#[kernel]` assumes every length below 2^61). The clamps are for
        // the compiler: it counts a loop's trips, and so unrolls it, only
        // where it can prove from the ranges of the step and the bound that
        // `i + step` does not wrap (a Rust loop may run forever, where nvcc
        // assumes a C++ loop ends). With the clamps each range has room for
        // the other, so a bound it cannot range by itself (the length of a
        // sub-slice `&x[a..b.min(x.len())]` inside a loop over chunks) no
        // longer leaves the loop at one load a trip. Where the bound is a
        // whole slice's length (below 2^61), they fold away. (A grid stride
        // over a bound from a `usize` kernel parameter still stays rolled:
        // the compiler cannot range `nctaid * ntid` in 64 bits either.)
        let step = step.max(1).min(end.max(1)).min(isize::MAX as usize);
        Stride {
            last: first.wrapping_sub(step),
            // `last + step` never wraps: the last index handed out is below
            // `end`, which leaves room for one more step.
            end: end.min(isize::MAX as usize - step),
            step,
        }
    }
}

crate::zip::inherent_zip! {
    Stride;
}

impl Iterator for Stride {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        // The step comes first (from one step before the first index), as
        // in a `while i < n { ..; i += step }` loop: the compiler then makes
        // the same loop of both, with one induction variable.
        let i = self.last.wrapping_add(self.step);
        if i < self.end {
            self.last = i;
            Some(i)
        } else {
            None
        }
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let first = self.last.wrapping_add(self.step);
        let n = if first < self.end && self.step > 0 {
            (self.end - first).div_ceil(self.step)
        } else {
            0
        };
        (n, Some(n))
    }
}

/// `f(k, values[i])` for each of one thread's elements of a strided pass
/// over `values` (`first`, then every `step`, with `step` clamped to the
/// length), their loads issued `N` at a time before any `f` of theirs:
/// `k` is the element's place in its batch of `N` (at most
/// [`unrolled`](crate::unrolled::unrolled)'s count), the last batch, of
/// fewer, keeping the places. For sums kept in `N` accumulators and loads
/// in flight.
#[inline(always)]
pub(crate) fn strided_batches<V: bytemuck::Pod, const N: usize>(
    values: &[V],
    first: usize,
    step: usize,
    mut f: impl FnMut(usize, V),
) {
    let n = values.len();
    // A stride of `n` or more hands each thread one element at most, as
    // the real one does; clamped, `i + (N - 1) * step` is at most `N` times
    // the length, which does not wrap for any slice a GPU holds, so the
    // loop's test bounds every load.
    let step = step.min(n.max(1));
    let mut i = first;
    while i + (N - 1) * step < n {
        let mut x = [V::zeroed(); N];
        crate::unrolled::unrolled(N, |k| x[k] = values[i + k * step]);
        crate::unrolled::unrolled(N, |k| f(k, x[k]));
        i += N * step;
    }
    crate::unrolled::unrolled(N - 1, |k| {
        if let Some(&v) = values.get(i + k * step) {
            f(k, v);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::Stride;

    /// `for (i = first; i < end; i += step)`, a step of 0 taken as 1.
    fn reference(first: usize, step: usize, end: usize) -> Vec<usize> {
        let step = step.max(1) as u128;
        let (mut i, end) = (first as u128, end as u128);
        let mut out = Vec::new();
        while i < end {
            out.push(i as usize);
            i += step;
        }
        out
    }

    #[test]
    fn the_indices_are_the_c_loop_s() {
        for end in [0, 1, 2, 7, 31, 32, 33, 1000, 1024, 1025] {
            for step in [0, 1, 2, 3, 32, 256, 1024, 1 << 20, usize::MAX] {
                for first in [0, 1, 5, 31, 255, 1023, 1024, 5000] {
                    let got: Vec<usize> = Stride::new(first, step, end).collect();
                    assert_eq!(got, reference(first, step, end), "{first} {step} {end}");
                    let hint = Stride::new(first, step, end).size_hint();
                    assert_eq!(hint, (got.len(), Some(got.len())), "{first} {step} {end}");
                }
            }
        }
    }

    /// Near `isize::MAX`: every index below `isize::MAX - step` is handed
    /// out (a slice's length is below 2^61 on any GPU: `#[kernel]` assumes
    /// it), none at or past it, and no step wraps, whatever the bound.
    #[test]
    fn bounds_near_isize_max_lose_no_index_below_it() {
        let max = isize::MAX as usize;
        for step in [1, 1024, 1 << 40] {
            let end = max - step;
            let first = end - 3 * step;
            let got: Vec<usize> = Stride::new(first, step, end).collect();
            assert_eq!(got, reference(first, step, end), "step {step}");
            for past in [max, usize::MAX - 1, usize::MAX] {
                let got: Vec<usize> = Stride::new(first, step, past).collect();
                assert_eq!(
                    got,
                    reference(first, step, end),
                    "step {step}, bound {past}"
                );
            }
        }
    }
}
