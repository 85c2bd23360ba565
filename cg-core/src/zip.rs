//! `zip` of the library's loop iterators, inlined into the loop.
//!
//! `out_a.grid_stride(&grid).zip(out_b.grid_stride(&grid))` written with
//! `Iterator::zip` goes through `core::iter::Zip`, whose `next` (an
//! `#[inline]` function returning a 32-byte `Option` of two `&mut`
//! elements through memory) the NVPTX pipeline inlines only after it has
//! split the loop's values into registers: the pair then stays in a stack
//! frame, stored and reloaded every iteration (`black_scholes` of the
//! corpus: a 48-byte frame, `st.local`/`ld` of both pointers a trip). The
//! iterators of this crate that a loop zips ([`Stride`](crate::stride::Stride),
//! [`GridStride`](crate::output::GridStride),
//! [`WindowStride`](crate::output::WindowStride),
//! [`StencilStride`](crate::output::StencilStride)) have an inherent
//! `zip`, which method syntax picks before the trait's: the same items in
//! the same order, through [`Zip`], whose `next` is always inlined, so the
//! pair lives in registers.
//!
//! One difference from `Iterator::zip`: [`Zip`] advances `b` on every call,
//! also on the one where `a` has ended (that element of `b` is dropped).
//! Both `next`s then run with no branch between them, and the loop tests
//! the two ends once, together. With `b` advanced only after `a`'s test
//! (`Iterator::zip`'s order) the pair is merged from three paths (`a`
//! ended, `b` ended, both) and tested again after the merge, and nothing
//! on NVPTX folds that second test: LLVM's jump threading, which does it on
//! a CPU, is off for targets whose branches may diverge. `black_scholes` of
//! the corpus (`out_a.grid_stride(&grid).zip(out_b.grid_stride(&grid))`):
//! 271 to 259 SASS instructions a trip, the null test of the pair and its
//! convergence region gone.

/// Two iterators in step: `(a, b)` pairs until either ends, as
/// `core::iter::Zip` gives them, but `b` is advanced on the call where `a`
/// ends too (see [the module](self)): a `b` with side effects in `next`
/// sees one call more than `Iterator::zip` makes.
#[derive(Clone, Debug)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    /// `a` and `b` in step.
    #[inline(always)]
    pub(crate) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A: Iterator, B: Iterator> Iterator for Zip<A, B> {
    type Item = (A::Item, B::Item);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // Both before either test: no branch between the two `next`s.
        let x = self.a.next();
        let y = self.b.next();
        Some((x?, y?))
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let (a_low, a_high) = self.a.size_hint();
        let (b_low, b_high) = self.b.size_hint();
        let high = match (a_high, b_high) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (a_low.min(b_low), high)
    }
}

/// An inherent `zip` for each of the crate's loop iterators (the same
/// signature as `Iterator::zip`, which it shadows).
macro_rules! inherent_zip {
    ($($ty:ident $(<$($lt:lifetime,)* $($param:ident $(: $bound:path)?),*>)?;)*) => {$(
        impl$(<$($lt,)* $($param $(: $bound)?),*>)? $ty$(<$($lt,)* $($param),*>)? {
            /// This iterator and `other` in step, as `Iterator::zip`
            /// gives them, kept in registers; `other` is advanced on the
            /// call where this one ends too ([`crate::zip`]).
            #[inline(always)]
            pub fn zip<U: IntoIterator>(self, other: U) -> $crate::zip::Zip<Self, U::IntoIter> {
                $crate::zip::Zip::new(self, other.into_iter())
            }
        }
    )*};
}
pub(crate) use inherent_zip;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_until_either_ends_and_advances_b_with_a() {
        let mut b = [10, 20, 30, 40].into_iter();
        let zip = Zip {
            a: 0..2,
            b: b.by_ref(),
        };
        assert_eq!(zip.size_hint(), (2, Some(2)));
        assert_eq!(zip.collect::<Vec<_>>(), [(0, 10), (1, 20)]);
        // `a` ended first: the call that found it ended took `b`'s third
        // element too, and the fourth is left.
        assert_eq!(b.next(), Some(40));
        let zip = Zip {
            a: 0..5,
            b: [1].into_iter(),
        };
        assert_eq!(zip.collect::<Vec<_>>(), [(0, 1)]);
    }
}
