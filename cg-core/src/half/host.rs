//! The half-precision instructions off the GPU (the simulator, host
//! tests): the GPU's bits, computed in `f64`.
//!
//! Each operation is IEEE 754's correctly rounded result (to nearest,
//! ties to even, subnormals kept), which is what the GPU's instructions
//! and nvcc's `__hdiv` give (the last checked over all 2^32 pairs of each
//! type on an H200, see docs/NOTES.md), and every NaN an arithmetic
//! instruction returns is the canonical `0x7fff`, as the GPU's are.
//!
//! Why `f64` is exact enough: two values of `p` significant bits (11 for
//! `f16`, 8 for `bf16`) have a sum, difference, product or quotient whose
//! `f64` rounding, rounded again to `p` bits, is the correctly rounded
//! result, since 53 >= 2p + 2 (Figueroa, "When is double rounding
//! innocuous?", 1995). A fused multiply-add has no such guarantee: its
//! product is exact in `f64` and its sum is rounded to odd (the error of
//! the `f64` sum, found with Knuth's TwoSum, sets the last bit), and a
//! value rounded to odd in 53 bits rounds to `p <= 51` bits as the exact
//! value does (Boldo and Melquiond, 2008).
//!
//! The `half` crate's own `from_f64` is not used: it drops the low 32 bits
//! of the `f64` before rounding (a tie there with bits below it rounds the
//! wrong way) and on x86 with `std` goes through `f32` (two roundings).

/// A half format: `MAN` stored significand bits, `EXP` exponent bits.
pub(crate) trait Format {
    /// Stored significand bits: 10 (`f16`), 7 (`bf16`).
    const MAN: u32;
    /// Exponent bits: 5 (`f16`), 8 (`bf16`).
    const EXP: u32;
}

/// IEEE binary16.
pub(crate) struct F16;
impl Format for F16 {
    const MAN: u32 = 10;
    const EXP: u32 = 5;
}

/// bfloat16.
pub(crate) struct Bf16;
impl Format for Bf16 {
    const MAN: u32 = 7;
    const EXP: u32 = 8;
}

/// The canonical NaN every arithmetic instruction returns.
pub(crate) const NAN: u16 = 0x7fff;

const fn inf<F: Format>() -> u16 {
    (((1u32 << F::EXP) - 1) << F::MAN) as u16
}

const fn bias<F: Format>() -> i32 {
    (1 << (F::EXP - 1)) - 1
}

/// Whether `a` is a NaN.
pub(crate) const fn is_nan<F: Format>(a: u16) -> bool {
    a & 0x7fff > inf::<F>()
}

/// The exact value of `a` (a NaN is some `f64` NaN).
pub(crate) fn to_f64<F: Format>(a: u16) -> f64 {
    let sign = if a & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((a & 0x7fff) >> F::MAN) as i32;
    let m = (a & ((1 << F::MAN) - 1)) as f64;
    let magnitude = if e == 0 {
        m * pow2(1 - bias::<F>() - F::MAN as i32)
    } else if e == (1 << F::EXP) - 1 {
        if m == 0.0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        (m + (1u64 << F::MAN) as f64) * pow2(e - bias::<F>() - F::MAN as i32)
    };
    sign * magnitude
}

/// 2^e for the exponents that occur here (|e| < 1000).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// `x` rounded to the format, to nearest even; NaN to [`NAN`].
pub(crate) fn round<F: Format>(x: f64) -> u16 {
    if x.is_nan() {
        return NAN;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = f64::from_bits(x.to_bits() & !(1 << 63));
    let emin = 1 - bias::<F>();
    // Far below half the smallest subnormal (and every f64 subnormal):
    // zero. The threshold is below any format's range.
    if a < pow2(-300) {
        return sign;
    }
    if a.is_infinite() {
        return sign | inf::<F>();
    }
    let e = ((a.to_bits() >> 52) as i32 - 1023).max(emin);
    let ulp = pow2(e - F::MAN as i32);
    // Both scalings are exact (powers of two, in range); `rint` rounds
    // to nearest even.
    let r = libm::rint(a / ulp) * ulp;
    if r < pow2(emin) {
        // Subnormal (or zero, or rounded up to the smallest normal, whose
        // bits are the same count).
        return sign | (r / pow2(emin - F::MAN as i32)) as u16;
    }
    let re = (r.to_bits() >> 52) as i32 - 1023;
    let field = re + bias::<F>();
    if field >= (1 << F::EXP) - 1 {
        return sign | inf::<F>();
    }
    let man = ((r.to_bits() >> (52 - F::MAN)) & ((1 << F::MAN) - 1)) as u16;
    sign | ((field as u16) << F::MAN) | man
}

/// `cvt.rn.<t>.f64` (sm_90): `x` rounded once; a NaN keeps its sign and
/// the top of its payload, quieted (`0x7e00 | payload >> 42` in `f16`),
/// where the `f32` conversion and the arithmetic give `0x7fff`.
pub(crate) fn from_f64<F: Format>(x: f64) -> u16 {
    if x.is_nan() {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let payload = (x.to_bits() >> (52 - F::MAN)) as u16 & ((1 << F::MAN) - 1);
        return sign | inf::<F>() | (1 << (F::MAN - 1)) | payload;
    }
    round::<F>(x)
}

/// `a op b` computed in `f64` and rounded once more (see the module docs).
pub(crate) fn binary<F: Format>(a: u16, b: u16, op: fn(f64, f64) -> f64) -> u16 {
    round::<F>(op(to_f64::<F>(a), to_f64::<F>(b)))
}

/// `a * b + c`, rounded once.
pub(crate) fn fma<F: Format>(a: u16, b: u16, c: u16) -> u16 {
    let p = to_f64::<F>(a) * to_f64::<F>(b);
    let c = to_f64::<F>(c);
    let s = p + c;
    if !s.is_finite() {
        return round::<F>(s);
    }
    // TwoSum: `p + c == s + err` exactly.
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    let odd = if err != 0.0 && s.to_bits() & 1 == 0 {
        // Round to odd: the neighbour of `s` on the side of `err`.
        if (err > 0.0) == (s > 0.0) {
            f64::from_bits(s.to_bits() + 1)
        } else {
            f64::from_bits(s.to_bits() - 1)
        }
    } else {
        s
    };
    round::<F>(odd)
}

/// `min`/`max`: the other value where one is NaN, [`NAN`] where both are,
/// `-0 < +0`.
pub(crate) fn min_max<F: Format>(a: u16, b: u16, max: bool) -> u16 {
    match (is_nan::<F>(a), is_nan::<F>(b)) {
        (true, true) => return NAN,
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let (x, y) = (to_f64::<F>(a), to_f64::<F>(b));
    if x == y {
        // Equal values: the same bits, or +0 and -0.
        let a_negative = a & 0x8000 != 0;
        return if a_negative == max { b } else { a };
    }
    if (x < y) != max {
        a
    } else {
        b
    }
}

/// The sign flipped (`neg`) or cleared (`abs`); NaN to [`NAN`].
pub(crate) fn sign<F: Format>(a: u16, abs: bool) -> u16 {
    if is_nan::<F>(a) {
        NAN
    } else if abs {
        a & 0x7fff
    } else {
        a ^ 0x8000
    }
}

/// `cvt.rzi.s32`: toward zero, saturated, NaN to 0 (Rust's `as`).
pub(crate) fn to_i32<F: Format>(a: u16) -> i32 {
    to_f64::<F>(a) as i32
}

/// `cvt.rzi.u32`: toward zero, saturated (negative to 0), NaN to 0.
pub(crate) fn to_u32<F: Format>(a: u16) -> u32 {
    to_f64::<F>(a) as u32
}

/// `op` of the exact value, rounded once (NaN to [`NAN`]): the correctly
/// rounded result where `op` is exact or correctly rounded in `f64` and
/// the `f64` result is not within an `f64` ulp of a tie of the format.
pub(crate) fn unary<F: Format>(a: u16, op: fn(f64) -> f64) -> u16 {
    round::<F>(op(to_f64::<F>(a)))
}

/// `min.NaN`/`max.NaN`: [`NAN`] where either is NaN, else [`min_max`].
pub(crate) fn min_max_nan<F: Format>(a: u16, b: u16, max: bool) -> u16 {
    if is_nan::<F>(a) || is_nan::<F>(b) {
        NAN
    } else {
        min_max::<F>(a, b, max)
    }
}

/// `fma.rn.relu`: [`fma`], then a negative result (`-0` included) to
/// `+0`; a NaN stays [`NAN`].
pub(crate) fn fma_relu<F: Format>(a: u16, b: u16, c: u16) -> u16 {
    let r = fma::<F>(a, b, c);
    if !is_nan::<F>(r) && r & 0x8000 != 0 {
        0
    } else {
        r
    }
}

/// `.sat`: `r` clamped to `[+0, 1]`; NaN and `-0` to `+0`.
pub(crate) fn saturate<F: Format>(r: u16) -> u16 {
    let one = (bias::<F>() as u16) << F::MAN;
    if is_nan::<F>(r) || r & 0x8000 != 0 {
        0
    } else {
        r.min(one)
    }
}
