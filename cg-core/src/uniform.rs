//! Values every thread of the grid holds alike, as a type.
//!
//! Some arguments must be the same in every thread: a chunk's length (a
//! length per block makes chunks overlap), a 2-D output's width (a width
//! per thread hands one element to two threads), a window, a run's length.
//! They take a [`Uniform<T>`], which only uniform sources make:
//!
//! - a `#[kernel]` parameter declared `n: Uniform<u32>` (the host passes a
//!   plain `u32`: every thread receives the launch's one value);
//! - a constant, [`Const::<N>`](Const);
//! - the launch's shape: [`GridGroup::uniform_num_threads`],
//!   [`GridGroup::uniform_num_blocks`], [`ThreadBlock::uniform_num_threads`];
//! - arithmetic on those (`+ - * / %`, `min`, `max`, `div_ceil`,
//!   `saturating_sub`) and lossless conversions (`Uniform<u32>` into
//!   `Uniform<usize>`).
//!
//! A value a thread computes from its own coordinates cannot become one:
//! there is no safe constructor from a plain value (on the simulator,
//! [`sim::uniform`](crate::sim::uniform) makes one for a kernel called
//! directly, and the simulator checks that every thread passes the same).
//!
//! ```ignore
//! #[kernel]
//! pub fn rows(cols: Uniform<u32>, x: &[f32], mut out: Output<f32, Chunks>) {
//!     let block = this_thread_block();
//!     if let Some(row) = out.block_chunk(&block, cols) { /* .. */ }
//! }
//! ```

use crate::block::ThreadBlock;
use crate::grid::GridGroup;
use crate::group::ThreadGroup;
use core::ops::{Add, Div, Mul, Rem, Sub};

/// A value of `T` that every thread of the grid holds alike (see the
/// [module docs](self)). Costs nothing: the value itself
/// (`#[repr(transparent)]`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uniform<T>(T);

impl<T: Copy> Uniform<T> {
    /// The value.
    #[inline(always)]
    pub fn get(self) -> T {
        self.0
    }

    /// `value` as a uniform value.
    ///
    /// # Safety
    /// Every thread of the grid that uses the result where a uniform
    /// value is asked for holds the same `value` there (a launch
    /// parameter, as `#[kernel]` builds them).
    #[inline(always)]
    pub const unsafe fn new_unchecked(value: T) -> Self {
        Uniform(value)
    }
}

/// The constant `N`, as a uniform value of any integer type it fits
/// ([`IntoUniform`]).
///
/// ```ignore
/// for chunk in out.block_chunks(&block, Const::<256>) { /* .. */ }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Const<const N: usize>;

/// A value an argument every thread must pass alike accepts: a
/// [`Uniform`] of the argument's type or of a narrower one, or a
/// [`Const`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not known to be the same in every thread",
    label = "every thread of the grid must pass the same value here: a `Uniform<{T}>`",
    note = "take it from a #[kernel] parameter declared `Uniform<{T}>`, a constant (`Const::<N>`), the launch (`grid.uniform_num_threads()`, `block.uniform_num_threads()`), or arithmetic on those"
)]
pub trait IntoUniform<T> {
    /// The uniform value.
    fn into_uniform(self) -> Uniform<T>;
}

impl<T> IntoUniform<T> for Uniform<T> {
    #[inline(always)]
    fn into_uniform(self) -> Uniform<T> {
        self
    }
}

/// `Uniform<$from>` into `Uniform<$to>`, each lossless.
macro_rules! widen {
    ($($from:ty => $($to:ty),+;)+) => {$($(
        impl From<Uniform<$from>> for Uniform<$to> {
            #[inline(always)]
            fn from(v: Uniform<$from>) -> Self {
                Uniform(v.0 as $to)
            }
        }
        impl IntoUniform<$to> for Uniform<$from> {
            #[inline(always)]
            fn into_uniform(self) -> Uniform<$to> {
                self.into()
            }
        }
    )+)+};
}
widen! {
    u8 => u16, u32, u64, usize;
    u16 => u32, u64, usize;
    u32 => u64, usize;
    usize => u64;
}

/// `Const<N>` into `Uniform<$t>`, refused at compile time where `N` does
/// not fit.
macro_rules! constant {
    ($($t:ty),+) => {$(
        impl<const N: usize> IntoUniform<$t> for Const<N> {
            #[inline(always)]
            fn into_uniform(self) -> Uniform<$t> {
                const { assert!(N as u128 <= <$t>::MAX as u128, "the constant does not fit the argument's type") };
                Uniform(N as $t)
            }
        }
    )+};
}
constant!(u8, u16, u32, u64, usize);

/// Arithmetic of uniform integers: uniform again.
macro_rules! arithmetic {
    ($($t:ty),+) => {$(
        impl Uniform<$t> {
            /// The smaller of the two.
            #[inline(always)]
            pub fn min(self, other: impl IntoUniform<$t>) -> Self {
                Uniform(self.0.min(other.into_uniform().0))
            }
            /// The larger of the two.
            #[inline(always)]
            pub fn max(self, other: impl IntoUniform<$t>) -> Self {
                Uniform(self.0.max(other.into_uniform().0))
            }
            /// The quotient rounded up (panics on division by zero).
            #[inline(always)]
            pub fn div_ceil(self, other: impl IntoUniform<$t>) -> Self {
                Uniform(self.0.div_ceil(other.into_uniform().0))
            }
            /// The difference, 0 where it would be negative.
            #[inline(always)]
            pub fn saturating_sub(self, other: impl IntoUniform<$t>) -> Self {
                Uniform(self.0.saturating_sub(other.into_uniform().0))
            }
        }
        arithmetic!(@ops $t, Add add, Sub sub, Mul mul, Div div, Rem rem);
    )+};
    (@ops $t:ty, $($op:ident $f:ident),+) => {$(
        impl<R: IntoUniform<$t>> $op<R> for Uniform<$t> {
            type Output = Uniform<$t>;
            #[inline(always)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            fn $f(self, rhs: R) -> Uniform<$t> {
                Uniform($op::$f(self.0, rhs.into_uniform().0))
            }
        }
    )+};
}
arithmetic!(u8, u16, u32, u64, usize);

impl GridGroup {
    /// [`num_threads`](GridGroup::num_threads), as a uniform value.
    #[inline(always)]
    pub fn uniform_num_threads(&self) -> Uniform<u64> {
        Uniform(self.num_threads())
    }

    /// [`num_blocks`](GridGroup::num_blocks), as a uniform value.
    #[inline(always)]
    pub fn uniform_num_blocks(&self) -> Uniform<u32> {
        Uniform(self.num_blocks())
    }
}

impl ThreadBlock {
    /// [`num_threads`](ThreadBlock::num_threads) (every block of a launch
    /// has the same), as a uniform value.
    #[inline(always)]
    pub fn uniform_num_threads(&self) -> Uniform<u32> {
        Uniform(self.num_threads())
    }
}
