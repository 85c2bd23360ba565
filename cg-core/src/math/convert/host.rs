//! The conversions off the GPU, exactly: the nearest value (Rust's `as`,
//! which rounds to nearest even, or the half types' rounding), then its
//! neighbour where the rounding is directed and the nearest value is on
//! the wrong side of the exact one.
//!
//! An integer's nearest half value comes from the integer rounded to odd
//! in `f64` (the truncation, its last bit set where bits were dropped):
//! one rounding of that to 8 or 11 bits is the exact integer's (Boldo and
//! Melquiond, 2008: a value rounded to odd in `p + 2` bits or more rounds
//! to `p` bits as the exact value does), where `as f64` would round twice.

use crate::half::host::{self as half, Format};
use core::cmp::Ordering;

/// Which way an inexact conversion rounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Rounding {
    /// To the nearest, ties to even (`_rn`).
    Nearest,
    /// Toward zero (`_rz`).
    Zero,
    /// Toward +inf (`_ru`).
    Up,
    /// Toward -inf (`_rd`).
    Down,
}

/// `x` rounded to an integer (exact: every `f64` near a non-integer is
/// within the range where its integers are `f64`s).
pub(crate) fn integral(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Nearest => libm::rint(x),
        Rounding::Zero => libm::trunc(x),
        Rounding::Up => libm::ceil(x),
        Rounding::Down => libm::floor(x),
    }
}

/// A value of a floating-point format, with its neighbours.
pub(crate) trait Neighbours: Copy {
    /// The next value toward +inf.
    fn up(self) -> Self;
    /// The next value toward -inf.
    fn down(self) -> Self;
    /// Whether the value is above zero.
    fn positive(self) -> bool;
    /// Whether the value is below zero.
    fn negative(self) -> bool;
}

/// `nearest`, the exact value rounded to the nearest, rounded in `mode`
/// instead; `order` is how `nearest` compares with the exact value (`None`
/// for NaN, which stays).
pub(crate) fn directed<T: Neighbours>(nearest: T, order: Option<Ordering>, mode: Rounding) -> T {
    match (mode, order) {
        (Rounding::Up, Some(Ordering::Less)) => nearest.up(),
        (Rounding::Down, Some(Ordering::Greater)) => nearest.down(),
        (Rounding::Zero, Some(Ordering::Greater)) if nearest.positive() => nearest.down(),
        (Rounding::Zero, Some(Ordering::Less)) if nearest.negative() => nearest.up(),
        _ => nearest,
    }
}

/// An `f32` or `f64` that an integer converts to.
pub(crate) trait FromInt: Neighbours {
    /// `x` rounded to the nearest, ties to even (Rust's `as`).
    fn nearest(x: i128) -> Self;
    /// How the value (an integer: the nearest value of one) compares with
    /// `x`, exactly.
    fn cmp_int(self, x: i128) -> Ordering;
}

macro_rules! float_neighbours {
    ($($t:ident: $next:path),*) => {$(
        impl Neighbours for $t {
            fn up(self) -> Self {
                $next(self, $t::INFINITY)
            }
            fn down(self) -> Self {
                $next(self, $t::NEG_INFINITY)
            }
            fn positive(self) -> bool {
                self > 0.0
            }
            fn negative(self) -> bool {
                self < 0.0
            }
        }

        impl FromInt for $t {
            fn nearest(x: i128) -> Self {
                x as $t
            }
            fn cmp_int(self, x: i128) -> Ordering {
                // An integer of at most 2^64: exact in `i128`.
                (self as i128).cmp(&x)
            }
        }
    )*};
}

float_neighbours!(f32: libm::nextafterf, f64: libm::nextafter);

/// `x` as an `f32`, rounded in `mode`.
pub(crate) fn narrow(x: f64, mode: Rounding) -> f32 {
    let nearest = x as f32;
    directed(nearest, (nearest as f64).partial_cmp(&x), mode)
}

/// `x` as an `f32` or `f64`, rounded in `mode`.
pub(crate) fn from_int<T: FromInt>(x: i128, mode: Rounding) -> T {
    let nearest = T::nearest(x);
    directed(nearest, Some(nearest.cmp_int(x)), mode)
}

/// A half value's bits, in format `F`.
struct Half<F>(u16, core::marker::PhantomData<F>);

impl<F> Clone for Half<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for Half<F> {}

impl<F: Format> Neighbours for Half<F> {
    fn up(self) -> Self {
        let b = self.0;
        let next = match b {
            0x8000 => 0x0001,
            _ if b & 0x8000 != 0 => b - 1,
            _ => b + 1,
        };
        Half(next, self.1)
    }
    fn down(self) -> Self {
        let b = self.0;
        let next = match b {
            0x0000 => 0x8001,
            _ if b & 0x8000 == 0 => b - 1,
            _ => b + 1,
        };
        Half(next, self.1)
    }
    fn positive(self) -> bool {
        self.0 & 0x8000 == 0 && self.0 != 0
    }
    fn negative(self) -> bool {
        self.0 & 0x8000 != 0 && self.0 != 0x8000
    }
}

/// `x` rounded to format `F` in `mode`: its bits (NaN to `0x7fff`).
pub(crate) fn to_half<F: Format>(x: f32, mode: Rounding) -> u16 {
    let x = x as f64;
    let nearest = Half::<F>(half::round::<F>(x), core::marker::PhantomData);
    let order = half::to_f64::<F>(nearest.0).partial_cmp(&x);
    directed(nearest, order, mode).0
}

/// The value of the half bits `a` (format `F`) rounded to an integer in
/// `mode`, exactly (every half is an `f64`); `None` for NaN.
pub(crate) fn from_half<F: Format>(a: u16, mode: Rounding) -> Option<f64> {
    (!half::is_nan::<F>(a)).then(|| integral(half::to_f64::<F>(a), mode))
}

/// `x` rounded to odd in `f64`: exact below 2^53, else its top 53 bits
/// with the last one set where any bit below them is.
fn odd_f64(x: i128) -> f64 {
    let m = x.unsigned_abs();
    let width = 128 - m.leading_zeros();
    let magnitude = if width <= 53 {
        m as f64
    } else {
        let shift = width - 53;
        let sticky = m & ((1u128 << shift) - 1) != 0;
        // Both factors and their product are exact.
        ((m >> shift) as u64 | sticky as u64) as f64 * (1u128 << shift) as f64
    };
    if x < 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// The integer `x` rounded to format `F` in `mode`: its bits (an integer
/// is never a NaN nor a subnormal; 0 is `+0`).
pub(crate) fn int_to_half<F: Format>(x: i128, mode: Rounding) -> u16 {
    let nearest = Half::<F>(half::round::<F>(odd_f64(x)), core::marker::PhantomData);
    // The half's value against `x`, exactly: an integer (or an infinity,
    // saturated) beside an integer of at most 2^64.
    let order = (half::to_f64::<F>(nearest.0) as i128).cmp(&x);
    directed(nearest, Some(order), mode).0
}
