//! `cg_core::math::convert` off the GPU (the simulator's conversions)
//! against a model that shares none of its arithmetic: a value's integer
//! part and remainder taken from its bits (float to integer), and the
//! rounding of an exact value to a float format found by binary search
//! over the format's bit patterns, ordered as their values (integer and
//! float to float), with ties to even. Every function, each rounding, over
//! edge cases (exact ties, ±0, subnormals, ±inf, NaN, the limits of each
//! integer type, the values about 2^24 and 2^53, overflow thresholds) and
//! a sweep of the bit patterns and random values.

use cg_core::half::{bf16, f16, HalfFloat};
use cg_core::math::convert::*;
use core::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Nearest,
    Zero,
    Up,
    Down,
}

const MODES: [Mode; 4] = [Mode::Nearest, Mode::Zero, Mode::Up, Mode::Down];

/// A small random generator (xorshift64*), fixed seed: the same inputs on
/// every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The neighbours of a float (`libm`'s `nextafter`: `next_up` is newer
/// than the crate's minimum Rust).
trait Next: Sized {
    fn up(x: Self) -> Self;
    fn down(x: Self) -> Self;
}
impl Next for f32 {
    fn up(x: f32) -> f32 {
        libm::nextafterf(x, f32::INFINITY)
    }
    fn down(x: f32) -> f32 {
        libm::nextafterf(x, f32::NEG_INFINITY)
    }
}
impl Next for f64 {
    fn up(x: f64) -> f64 {
        libm::nextafter(x, f64::INFINITY)
    }
    fn down(x: f64) -> f64 {
        libm::nextafter(x, f64::NEG_INFINITY)
    }
}

// ---- the model: float to integer -------------------------------------

/// `x` (finite) as sign, significand and exponent: `x = ±m * 2^e`.
fn parts(x: f64) -> (bool, u64, i32) {
    let b = x.to_bits();
    let neg = b >> 63 != 0;
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = b & ((1 << 52) - 1);
    if e == 0 {
        (neg, f, -1074)
    } else {
        (neg, f | 1 << 52, e - 1075)
    }
}

/// `x` rounded to an integer in `mode`, from its bits, as an `i128`
/// (clamped far outside every integer type's range).
fn model_integral(x: f64, mode: Mode) -> i128 {
    if x.is_infinite() {
        return if x > 0.0 { i128::MAX } else { i128::MIN };
    }
    let (neg, m, e) = parts(x);
    if e >= 0 {
        let v = if e > 70 {
            1i128 << 100
        } else {
            (m as i128) << e
        };
        return if neg { -v } else { v };
    }
    let s = (-e) as u32;
    let (q, rem, half) = if s >= 64 {
        // Below 2^-10 (m < 2^53): under half, zero only where m is.
        (0u64, (m != 0) as u128, 2)
    } else {
        (m >> s, (m & ((1u64 << s) - 1)) as u128, 1u128 << (s - 1))
    };
    let q = q as i128;
    // The magnitude rounded, in the rounding of the magnitude.
    let mode = match (neg, mode) {
        (true, Mode::Up) => Mode::Down,
        (true, Mode::Down) => Mode::Up,
        (_, m) => m,
    };
    let mag = match mode {
        _ if rem == 0 => q,
        Mode::Zero | Mode::Down => q,
        Mode::Up => q + 1,
        Mode::Nearest => match rem.cmp(&half) {
            Ordering::Less => q,
            Ordering::Greater => q + 1,
            Ordering::Equal => q + (q & 1),
        },
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// The model's integer of type range `[lo, hi]`, NaN to `nan`.
fn model_int(x: f64, mode: Mode, lo: i128, hi: i128, nan: i128) -> i128 {
    if x.is_nan() {
        nan
    } else {
        model_integral(x, mode).clamp(lo, hi)
    }
}

// ---- the model: to a float format --------------------------------------

/// A float format: the bits of its largest finite value, the position of
/// its sign bit, and the exact value of positive bits `b` (the bits after
/// the largest finite value, infinity's, as 2^(emax + 1), which is where
/// rounding to nearest puts the overflow threshold).
struct Format {
    max: u64,
    sign: u32,
    value: fn(u64) -> f64,
}

const F32: Format = Format {
    max: 0x7f7f_ffff,
    sign: 31,
    value: |b| {
        if b == 0x7f80_0000 {
            2f64.powi(128)
        } else {
            f32::from_bits(b as u32) as f64
        }
    },
};
const F64: Format = Format {
    max: 0x7fef_ffff_ffff_ffff,
    sign: 63,
    value: |b| f64::from_bits(b),
};
const F16: Format = Format {
    max: 0x7bff,
    sign: 15,
    value: |b| {
        if b == 0x7c00 {
            65536.0
        } else {
            f16::from_bits(b as u16).to_f64()
        }
    },
};
const BF16: Format = Format {
    max: 0x7f7f,
    sign: 15,
    value: |b| {
        if b == 0x7f80 {
            2f64.powi(128)
        } else {
            bf16::from_bits(b as u16).to_f64()
        }
    },
};

/// The bits of the exact value whose magnitude compares with a format's
/// values as `cmp(b)` and with the midpoint of two as `mid(lo, hi)`,
/// rounded in `mode`; `negative`: the value's sign.
fn model_float(
    f: &Format,
    negative: bool,
    mode: Mode,
    cmp: impl Fn(u64) -> Ordering,
    mid: impl Fn(u64, u64) -> Ordering,
) -> u64 {
    // The largest bits whose value is at most the magnitude.
    let (mut lo, mut hi) = (0u64, f.max);
    while lo < hi {
        let m = lo + (hi - lo).div_ceil(2);
        if cmp(m) == Ordering::Greater {
            hi = m - 1;
        } else {
            lo = m;
        }
    }
    let mode = match (negative, mode) {
        (true, Mode::Up) => Mode::Down,
        (true, Mode::Down) => Mode::Up,
        (_, m) => m,
    };
    let mag = if cmp(lo) == Ordering::Equal {
        lo
    } else {
        match mode {
            Mode::Zero | Mode::Down => lo,
            Mode::Up => lo + 1,
            Mode::Nearest => match mid(lo, lo + 1) {
                Ordering::Greater => lo,
                Ordering::Less => lo + 1,
                Ordering::Equal => lo + (lo & 1),
            },
        }
    };
    if negative {
        mag | 1 << f.sign
    } else {
        mag
    }
}

/// `x` (an exact `f64`: every `f32`, and the `f64`s) rounded to format
/// `f`; NaN to `nan`.
fn model_from_f64(f: &Format, x: f64, mode: Mode, nan: u64) -> u64 {
    if x.is_nan() {
        return nan;
    }
    let a = x.abs();
    if a.is_infinite() {
        let inf = f.max + 1;
        return if x < 0.0 { inf | 1 << f.sign } else { inf };
    }
    model_float(
        f,
        x.is_sign_negative(),
        mode,
        |b| (f.value)(b).partial_cmp(&a).unwrap(),
        // Two neighbours of a narrower format: their midpoint is exact.
        |lo, hi| {
            (((f.value)(lo) + (f.value)(hi)) / 2.0)
                .partial_cmp(&a)
                .unwrap()
        },
    )
}

/// The integer `x` rounded to format `f` (`f32` or `f64`).
fn model_from_int(f: &Format, x: i128, mode: Mode) -> u64 {
    let a = x.unsigned_abs() as i128;
    // A value compared with the integer `a`: as its ceiling (exact).
    let int = |b: u64| (f.value)(b).ceil() as i128;
    model_float(
        f,
        x < 0,
        mode,
        |b| {
            let v = (f.value)(b);
            if v.fract() != 0.0 {
                // Between two integers: above `a` where its ceiling is.
                if int(b) > a {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            } else {
                (v as i128).cmp(&a)
            }
        },
        // Neighbours about an integer they miss are integers.
        |lo, hi| ((f.value)(lo) as i128 + (f.value)(hi) as i128).cmp(&(2 * a)),
    )
}

// ---- inputs --------------------------------------------------------------

/// `f32` inputs: the specials, each integer type's limits and their
/// neighbours, ties, and a sweep of the bit patterns.
fn inputs32() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0x7f80_0001),
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        65504.0,
        65520.0,
        65519.996,
        2f32.powi(-24),
        2f32.powi(-25),
        2f32.powi(-14),
        3.0 * 2f32.powi(-26),
    ];
    for k in 0..64 {
        v.push(k as f32 * 0.5);
        v.push(k as f32 * 0.25);
    }
    for p in [8, 16, 23, 24, 31, 32, 52, 53, 63, 64] {
        let x = 2f32.powi(p);
        v.extend([x, Next::up(x), Next::down(x), x + 0.5, x - 0.5]);
    }
    // f16 ties and their neighbours (a half-way point between two f16).
    for b in [0x3c00u16, 0x3c01, 0x0001, 0x03ff, 0x7bfe] {
        let lo = f16::from_bits(b).to_f32();
        let hi = f16::from_bits(b + 1).to_f32();
        let m = (lo + hi) / 2.0;
        v.extend([m, Next::up(m), Next::down(m)]);
    }
    for b in [0x3f80u16, 0x3f81, 0x0001, 0x7f7e] {
        let lo = bf16::from_bits(b).to_f32();
        let hi = bf16::from_bits(b + 1).to_f32();
        let m = (lo + hi) / 2.0;
        v.extend([m, Next::up(m), Next::down(m)]);
    }
    let mut b = 0u32;
    while let Some(n) = b.checked_add(40_009) {
        v.push(f32::from_bits(b));
        b = n;
    }
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// `f64` inputs: [`inputs32`] widened, the integer limits as `f64` and
/// their neighbours, `f32` ties and neighbours, random bit patterns.
fn inputs64() -> Vec<f64> {
    let mut v: Vec<f64> = inputs32().iter().map(|&x| x as f64).collect();
    v.extend([
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::MAX,
        1e300,
        1e-300,
        f32::MAX as f64 + 2f64.powi(103),
        f32::MAX as f64 + 2f64.powi(103) - 2f64.powi(60),
        2f64.powi(-150),
        2f64.powi(-149) * 1.5,
        65520.0,
    ]);
    for p in [24, 31, 32, 52, 53, 63, 64] {
        let x = 2f64.powi(p);
        for y in [x, -x] {
            v.extend([
                y,
                Next::up(y),
                Next::down(y),
                y + 0.5,
                y - 0.5,
                y - 1.0,
                y + 1.0,
            ]);
        }
    }
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let f = f32::from_bits(r.next() as u32);
        let lo = f as f64;
        let hi = Next::up(f) as f64;
        // The tie between two f32s, and the f64s on either side.
        let m = (lo + hi) / 2.0;
        v.extend([m, Next::up(m), Next::down(m), f64::from_bits(r.next())]);
        v.push((r.next() as i64) as f64 / 1024.0);
    }
    v
}

/// Integer inputs: the limits of every type and their neighbours, values
/// about 2^24 and 2^53, ties, and random ones of every width.
fn inputs_int() -> Vec<i128> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, 3];
    for p in [8u32, 16, 23, 24, 25, 31, 32, 52, 53, 54, 62, 63, 64] {
        let x = 1i128 << p;
        for d in [-3i128, -2, -1, 0, 1, 2, 3] {
            v.extend([x + d, -(x + d)]);
        }
    }
    v.extend([
        i32::MAX as i128,
        i32::MIN as i128,
        u32::MAX as i128,
        i64::MAX as i128,
        i64::MIN as i128,
        u64::MAX as i128,
        (1 << 24) + (1 << 1) + 1,
        (1 << 53) + 3,
        (1 << 60) + (1 << 36),
        (1 << 60) + (1 << 36) + (1 << 37),
    ]);
    let mut r = Rng(0x1234_5678_9abc_def1);
    for _ in 0..50_000 {
        let x = r.next();
        let width = (r.next() % 64) as u32 + 1;
        v.push((x >> (64 - width)) as i128);
        v.push((x as i64 >> (64 - width)) as i128);
    }
    v
}

// ---- the checks -----------------------------------------------------------

/// Checks four functions of one conversion against `model`: `f(mode, x)`
/// is the function of that rounding, `bits` their results as integers.
fn check<X: Copy + core::fmt::Debug>(
    name: &str,
    inputs: &[X],
    f: impl Fn(Mode, X) -> i128,
    model: impl Fn(Mode, X) -> i128,
) {
    let mut compared = 0;
    for &x in inputs {
        for m in MODES {
            let (got, want) = (f(m, x), model(m, x));
            assert_eq!(
                got, want,
                "{name} {m:?} of {x:?}: {got:#x}, the model {want:#x}"
            );
            compared += 1;
        }
    }
    assert!(compared > 1000, "{name}: {compared} compared");
}

/// The four roundings of one family as a function of the mode.
macro_rules! four {
    ($rn:ident, $rz:ident, $ru:ident, $rd:ident) => {
        |m: Mode, x| match m {
            Mode::Nearest => $rn(x),
            Mode::Zero => $rz(x),
            Mode::Up => $ru(x),
            Mode::Down => $rd(x),
        }
    };
}

#[test]
fn floats_to_integers_round_then_clamp_and_nan_is_ptxs_value() {
    let x32 = inputs32();
    let x64 = inputs64();
    macro_rules! ints {
        ($xs:expr, $t:ty, $nan:expr, [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
            let f = four!($rn, $rz, $ru, $rd);
            check(
                stringify!($rn),
                &$xs,
                |m, x| f(m, x) as i128,
                |m, x| model_int(x as f64, m, <$t>::MIN as i128, <$t>::MAX as i128, $nan),
            );
        };
    }
    ints!(
        x32,
        i32,
        0,
        [float2int_rn, float2int_rz, float2int_ru, float2int_rd]
    );
    ints!(
        x32,
        u32,
        0,
        [float2uint_rn, float2uint_rz, float2uint_ru, float2uint_rd]
    );
    ints!(
        x32,
        i64,
        i64::MIN as i128,
        [float2ll_rn, float2ll_rz, float2ll_ru, float2ll_rd]
    );
    ints!(
        x32,
        u64,
        1 << 63,
        [float2ull_rn, float2ull_rz, float2ull_ru, float2ull_rd]
    );
    ints!(
        x64,
        i32,
        i32::MIN as i128,
        [double2int_rn, double2int_rz, double2int_ru, double2int_rd]
    );
    ints!(
        x64,
        u32,
        1 << 31,
        [
            double2uint_rn,
            double2uint_rz,
            double2uint_ru,
            double2uint_rd
        ]
    );
    ints!(
        x64,
        i64,
        i64::MIN as i128,
        [double2ll_rn, double2ll_rz, double2ll_ru, double2ll_rd]
    );
    ints!(
        x64,
        u64,
        1 << 63,
        [double2ull_rn, double2ull_rz, double2ull_ru, double2ull_rd]
    );
}

#[test]
fn doubles_to_floats_are_correctly_rounded_in_each_direction() {
    let f = four!(
        double2float_rn,
        double2float_rz,
        double2float_ru,
        double2float_rd
    );
    check(
        "double2float",
        &inputs64(),
        |m, x| {
            let r = f(m, x);
            // Any NaN is NaN here (the payload is the host's).
            if r.is_nan() {
                0x7fc0_0000
            } else {
                r.to_bits() as i128
            }
        },
        |m, x| model_from_f64(&F32, x, m, 0x7fc0_0000) as i128,
    );
}

#[test]
fn integers_to_floats_are_correctly_rounded_in_each_direction() {
    let xs = inputs_int();
    macro_rules! from {
        ($t:ty, $f:expr, $bits:ident, [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
            let inputs: Vec<$t> = xs.iter().filter_map(|&x| <$t>::try_from(x).ok()).collect();
            let f = four!($rn, $rz, $ru, $rd);
            check(
                stringify!($rn),
                &inputs,
                |m, x| f(m, x).to_bits() as i128,
                |m, x| model_from_int(&$f, x as i128, m) as i128,
            );
        };
    }
    from!(
        i32,
        F32,
        f32,
        [int2float_rn, int2float_rz, int2float_ru, int2float_rd]
    );
    from!(
        u32,
        F32,
        f32,
        [uint2float_rn, uint2float_rz, uint2float_ru, uint2float_rd]
    );
    from!(
        i64,
        F32,
        f32,
        [ll2float_rn, ll2float_rz, ll2float_ru, ll2float_rd]
    );
    from!(
        u64,
        F32,
        f32,
        [ull2float_rn, ull2float_rz, ull2float_ru, ull2float_rd]
    );
    from!(
        i64,
        F64,
        f64,
        [ll2double_rn, ll2double_rz, ll2double_ru, ll2double_rd]
    );
    from!(
        u64,
        F64,
        f64,
        [ull2double_rn, ull2double_rz, ull2double_ru, ull2double_rd]
    );
    for x in xs {
        if let Ok(i) = i32::try_from(x) {
            assert_eq!(int2double_rn(i), i as f64);
        }
        if let Ok(u) = u32::try_from(x) {
            assert_eq!(uint2double_rn(u), u as f64);
        }
    }
}

#[test]
fn floats_to_halves_are_correctly_rounded_in_each_direction() {
    let xs = inputs32();
    let f = four!(float2half_rn, float2half_rz, float2half_ru, float2half_rd);
    check(
        "float2half",
        &xs,
        |m, x| f(m, x).to_bits() as i128,
        |m, x| model_from_f64(&F16, x as f64, m, 0x7fff) as i128,
    );
    let f = four!(
        float2bfloat16_rn,
        float2bfloat16_rz,
        float2bfloat16_ru,
        float2bfloat16_rd
    );
    check(
        "float2bfloat16",
        &xs,
        |m, x| f(m, x).to_bits() as i128,
        |m, x| model_from_f64(&BF16, x as f64, m, 0x7fff) as i128,
    );
    for x in xs {
        assert_eq!(float2half(x).to_bits(), float2half_rn(x).to_bits());
        assert_eq!(float2bfloat16(x).to_bits(), float2bfloat16_rn(x).to_bits());
        // The half crate's own rounding to nearest, NaN aside.
        if !x.is_nan() {
            assert_eq!(float2half_rn(x), f16::from_f32(x), "{x:?}");
            assert_eq!(float2bfloat16_rn(x), bf16::from_f32(x), "{x:?}");
        }
    }
}

#[test]
fn doubles_to_halves_round_once_to_nearest() {
    for x in inputs64() {
        let want = model_from_f64(&F16, x, Mode::Nearest, 0x7fff);
        if !x.is_nan() {
            assert_eq!(double2half(x).to_bits() as u64, want, "{x:?}");
            let want = model_from_f64(&BF16, x, Mode::Nearest, 0x7fff);
            assert_eq!(double2bfloat16(x).to_bits() as u64, want, "{x:?}");
        }
    }
}

#[test]
fn the_halves_of_a_double_are_its_bits() {
    for x in inputs64() {
        let (hi, lo) = (double2hiint(x), double2loint(x));
        assert_eq!(((hi as u32 as u64) << 32) | lo as u32 as u64, x.to_bits());
        assert_eq!(hiloint2double(hi, lo).to_bits(), x.to_bits());
    }
}

/// Every pair of integer types, saturating: against the clamp in `i128`,
/// over every value of the 8- and 16-bit types and each wider type's
/// limits, their neighbours and the other types' limits.
#[test]
fn integers_saturate_into_every_integer_type() {
    let mut values: Vec<i128> = (i16::MIN as i128..=u16::MAX as i128).collect();
    for b in [8u32, 15, 16, 31, 32, 63, 64] {
        let x = 1i128 << b;
        for d in [-2i128, -1, 0, 1] {
            values.extend([x + d, -(x + d)]);
        }
    }
    macro_rules! from {
        ($($f:ty),*) => {$(
            let inputs: Vec<$f> = values.iter().filter_map(|&v| <$f>::try_from(v).ok()).collect();
            to!($f, inputs, i8, u8, i16, u16, i32, u32, i64, u64);
        )*};
    }
    macro_rules! to {
        ($f:ty, $inputs:expr, $($t:ty),*) => {$(
            for &x in &$inputs {
                let want = (x as i128).clamp(<$t>::MIN as i128, <$t>::MAX as i128);
                let got = saturating_cast::<$t, $f>(x) as i128;
                assert_eq!(got, want, "saturating_cast::<{}>({x}{})", stringify!($t), stringify!($f));
            }
        )*};
    }
    from!(i8, u8, i16, u16, i32, u32, i64, u64);
}

/// Every half bit pattern of format `F16` or `BF16`, as its exact `f64`
/// (a NaN as NaN).
fn every_half(bf: bool) -> Vec<(u16, f64)> {
    (0..=u16::MAX)
        .map(|b| {
            let x = if bf {
                bf16::from_bits(b).to_f64()
            } else {
                f16::from_bits(b).to_f64()
            };
            (b, x)
        })
        .collect()
}

/// The half types to every integer type, in each rounding, over all 2^16
/// bit patterns of each: the model's rounding of the exact value, clamped
/// to the type's range; NaN to 0, or to `1 << 63` into the 64-bit types
/// (cuda_fp16.h's and cuda_bf16.h's documented values).
#[test]
fn halves_to_integers_round_then_clamp_on_every_half() {
    macro_rules! ints {
        ($bf:expr, $h:ident, $t:ty, $nan:expr, [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
            let f = four!($rn, $rz, $ru, $rd);
            check(
                stringify!($rn),
                &every_half($bf),
                |m, (b, _)| f(m, $h::from_bits(b)) as i128,
                |m, (_, x)| model_int(x, m, <$t>::MIN as i128, <$t>::MAX as i128, $nan),
            );
        };
    }
    macro_rules! rz {
        ($bf:expr, $h:ident, $t:ty, $f:ident) => {
            for (b, x) in every_half($bf) {
                let want = model_int(x, Mode::Zero, <$t>::MIN as i128, <$t>::MAX as i128, 0);
                let got = $f($h::from_bits(b)) as i128;
                assert_eq!(got, want, "{}({b:#06x})", stringify!($f));
            }
        };
    }
    let ll_nan = i64::MIN as i128;
    ints!(
        false,
        f16,
        i32,
        0,
        [half2int_rn, half2int_rz, half2int_ru, half2int_rd]
    );
    ints!(
        false,
        f16,
        u32,
        0,
        [half2uint_rn, half2uint_rz, half2uint_ru, half2uint_rd]
    );
    ints!(
        false,
        f16,
        i16,
        0,
        [half2short_rn, half2short_rz, half2short_ru, half2short_rd]
    );
    ints!(
        false,
        f16,
        u16,
        0,
        [
            half2ushort_rn,
            half2ushort_rz,
            half2ushort_ru,
            half2ushort_rd
        ]
    );
    ints!(
        false,
        f16,
        i64,
        ll_nan,
        [half2ll_rn, half2ll_rz, half2ll_ru, half2ll_rd]
    );
    ints!(
        false,
        f16,
        u64,
        1 << 63,
        [half2ull_rn, half2ull_rz, half2ull_ru, half2ull_rd]
    );
    rz!(false, f16, i8, half2char_rz);
    rz!(false, f16, u8, half2uchar_rz);
    ints!(
        true,
        bf16,
        i32,
        0,
        [
            bfloat162int_rn,
            bfloat162int_rz,
            bfloat162int_ru,
            bfloat162int_rd
        ]
    );
    ints!(
        true,
        bf16,
        u32,
        0,
        [
            bfloat162uint_rn,
            bfloat162uint_rz,
            bfloat162uint_ru,
            bfloat162uint_rd
        ]
    );
    ints!(
        true,
        bf16,
        i16,
        0,
        [
            bfloat162short_rn,
            bfloat162short_rz,
            bfloat162short_ru,
            bfloat162short_rd
        ]
    );
    ints!(
        true,
        bf16,
        u16,
        0,
        [
            bfloat162ushort_rn,
            bfloat162ushort_rz,
            bfloat162ushort_ru,
            bfloat162ushort_rd
        ]
    );
    ints!(
        true,
        bf16,
        i64,
        ll_nan,
        [
            bfloat162ll_rn,
            bfloat162ll_rz,
            bfloat162ll_ru,
            bfloat162ll_rd
        ]
    );
    ints!(
        true,
        bf16,
        u64,
        1 << 63,
        [
            bfloat162ull_rn,
            bfloat162ull_rz,
            bfloat162ull_ru,
            bfloat162ull_rd
        ]
    );
    rz!(true, bf16, i8, bfloat162char_rz);
    rz!(true, bf16, u8, bfloat162uchar_rz);
    // `_rz` into `i32` and `u32` is `cg_core::half`'s `to_int`, `to_uint`.
    for (b, _) in every_half(false) {
        let h = f16::from_bits(b);
        assert_eq!(half2int_rz(h), h.to_int());
        assert_eq!(half2uint_rz(h), h.to_uint());
        let h = bf16::from_bits(b);
        assert_eq!(bfloat162int_rz(h), h.to_int());
        assert_eq!(bfloat162uint_rz(h), h.to_uint());
    }
}

/// Integer inputs for the half types: [`inputs_int`], every value of the
/// 16-bit types, and about each power of two the ties of both half types
/// (`2^p + 2^(p - 11)`, `2^p + 2^(p - 8)`, odd multiples of them) and
/// their neighbours, both signs.
fn inputs_int_half() -> Vec<i128> {
    let mut v = inputs_int();
    v.extend(i16::MIN as i128..=u16::MAX as i128);
    for p in 12..64u32 {
        for t in [p - 12, p - 11, p - 9, p - 8, p - 7] {
            for k in [1i128, 3, 5] {
                let x = (1i128 << p) + k * (1i128 << t);
                for d in [-1i128, 0, 1] {
                    v.extend([x + d, -(x + d)]);
                }
            }
        }
    }
    v
}

/// Every integer type to the half types, in each rounding: the model's
/// binary search over the format's bit patterns; every value of the
/// 16-bit types, the limits, ties and random values of the others.
#[test]
fn integers_to_halves_are_correctly_rounded_in_each_direction() {
    let xs = inputs_int_half();
    macro_rules! from {
        ($t:ty, $f:expr, [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
            let inputs: Vec<$t> = xs.iter().filter_map(|&x| <$t>::try_from(x).ok()).collect();
            let f = four!($rn, $rz, $ru, $rd);
            check(
                stringify!($rn),
                &inputs,
                |m, x| f(m, x).to_bits() as i128,
                |m, x| model_from_int(&$f, x as i128, m) as i128,
            );
        };
    }
    from!(
        i32,
        F16,
        [int2half_rn, int2half_rz, int2half_ru, int2half_rd]
    );
    from!(
        u32,
        F16,
        [uint2half_rn, uint2half_rz, uint2half_ru, uint2half_rd]
    );
    from!(
        i16,
        F16,
        [short2half_rn, short2half_rz, short2half_ru, short2half_rd]
    );
    from!(
        u16,
        F16,
        [
            ushort2half_rn,
            ushort2half_rz,
            ushort2half_ru,
            ushort2half_rd
        ]
    );
    from!(i64, F16, [ll2half_rn, ll2half_rz, ll2half_ru, ll2half_rd]);
    from!(
        u64,
        F16,
        [ull2half_rn, ull2half_rz, ull2half_ru, ull2half_rd]
    );
    from!(
        i32,
        BF16,
        [
            int2bfloat16_rn,
            int2bfloat16_rz,
            int2bfloat16_ru,
            int2bfloat16_rd
        ]
    );
    from!(
        u32,
        BF16,
        [
            uint2bfloat16_rn,
            uint2bfloat16_rz,
            uint2bfloat16_ru,
            uint2bfloat16_rd
        ]
    );
    from!(
        i16,
        BF16,
        [
            short2bfloat16_rn,
            short2bfloat16_rz,
            short2bfloat16_ru,
            short2bfloat16_rd
        ]
    );
    from!(
        u16,
        BF16,
        [
            ushort2bfloat16_rn,
            ushort2bfloat16_rz,
            ushort2bfloat16_ru,
            ushort2bfloat16_rd
        ]
    );
    from!(
        i64,
        BF16,
        [
            ll2bfloat16_rn,
            ll2bfloat16_rz,
            ll2bfloat16_ru,
            ll2bfloat16_rd
        ]
    );
    from!(
        u64,
        BF16,
        [
            ull2bfloat16_rn,
            ull2bfloat16_rz,
            ull2bfloat16_ru,
            ull2bfloat16_rd
        ]
    );
    // `_rn` from `i32` and `u32` is `cg_core::half`'s `from_int`, `from_uint`.
    for &x in &xs {
        if let Ok(i) = i32::try_from(x) {
            assert_eq!(int2half_rn(i).to_bits(), f16::from_int(i).to_bits());
            assert_eq!(int2bfloat16_rn(i).to_bits(), bf16::from_int(i).to_bits());
        }
        if let Ok(u) = u32::try_from(x) {
            assert_eq!(uint2half_rn(u).to_bits(), f16::from_uint(u).to_bits());
            assert_eq!(uint2bfloat16_rn(u).to_bits(), bf16::from_uint(u).to_bits());
        }
    }
}
