//! Short loops written out: [`unrolled`] calls a closure with each index
//! of a small constant count as a constant, so that an array the calls
//! index stays in registers.
//!
//! LLVM promotes a local array to registers (SROA) only where every index
//! into it is a constant, and it does so before it unrolls loops: a loop
//! `for j in 0..n` over an array indexes it with a variable when that
//! decision is made, and in the kernel builds such loops (per-thread items,
//! the words of a value, a batch of warp totals) left the array in local
//! memory for some types. Written out, the calls are straight-line code
//! from the start.

/// The largest count [`unrolled`] takes.
pub(crate) const MAX: usize = 16;

/// `f(0)`, `f(1)`, ..., `f(n - 1)`, each call written out with its index a
/// constant, for `n` of at most [`MAX`] (a count past it is a bug: the
/// calls from `MAX` on are not made). With `n` a constant (a size of `T`)
/// the tests of the calls that do not run fold away.
#[inline(always)]
pub(crate) fn unrolled(n: usize, mut f: impl FnMut(usize)) {
    debug_assert!(n <= MAX);
    if n > 0 {
        f(0);
    }
    if n > 1 {
        f(1);
    }
    if n > 2 {
        f(2);
    }
    if n > 3 {
        f(3);
    }
    if n > 4 {
        f(4);
    }
    if n > 5 {
        f(5);
    }
    if n > 6 {
        f(6);
    }
    if n > 7 {
        f(7);
    }
    if n > 8 {
        f(8);
    }
    if n > 9 {
        f(9);
    }
    if n > 10 {
        f(10);
    }
    if n > 11 {
        f(11);
    }
    if n > 12 {
        f(12);
    }
    if n > 13 {
        f(13);
    }
    if n > 14 {
        f(14);
    }
    if n > 15 {
        f(15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_each_index_once_in_order() {
        for n in 0..=MAX {
            let mut seen = [usize::MAX; MAX];
            let mut count = 0;
            unrolled(n, |j| {
                seen[count] = j;
                count += 1;
            });
            assert_eq!(count, n);
            assert!(seen[..n].iter().enumerate().all(|(i, &j)| i == j));
        }
    }
}
