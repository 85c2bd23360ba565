//! The host versions of `cg_core::math` (what the simulator computes)
//! against CUDA's error bounds, the table in `cg_core::math`'s docs.
//!
//! * `f32`: every function on a million random inputs (random bit patterns,
//!   and uniform in the ranges where the functions change most) and the
//!   special values (zeros, subnormals, infinities, NaN, domain edges),
//!   against the correctly rounded result as computed in `f64` (whose own
//!   error is ~2^-29 of an `f32` ulp): at most CUDA's bound in ulps, NaN
//!   exactly where the reference is NaN, infinities exactly.
//! * The correctly rounded ones (roundings, `fmod`, `remainder`, `fdim`,
//!   `fmin`, `fmax`, `nextafter`, `ldexp`, `frexp`, `sqrt`, `mul_add`): 0
//!   ulp, that is the GPU's bits (CUDA's functions are exact there too).
//! * `f64`: each function against a second implementation (std's against
//!   the `libm` crate's and the other way round; `erfinv` and `erfcinv` by
//!   the residual of `erf`/`erfc`), within CUDA's bound plus one ulp. Two
//!   implementations each within a bound of the exact result can differ by
//!   both bounds, so this is a consistency check of the `f64` functions,
//!   not a proof of their bound; their bounds rest on the documented
//!   accuracy of glibc's and musl's functions (at most 1 to 2 ulp where
//!   CUDA allows 1 to 10).

use cg_core::math::FloatMath;

/// A xorshift generator: the test needs no crate and is the same each run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const SAMPLES: usize = 1_000_000;

/// The inputs of an `f32` test: specials, then random bit patterns, then
/// uniform in [-lim, lim] for a few `lim`.
fn inputs32(rng: &mut Rng) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        libm::nextafterf(1.0f32, f32::INFINITY),
        libm::nextafterf(1.0f32, f32::NEG_INFINITY),
        libm::nextafterf(-1.0f32, f32::INFINITY),
        libm::nextafterf(-1.0f32, f32::NEG_INFINITY),
        core::f32::consts::PI,
        100.0,
        -100.0,
        1e30,
        -1e30,
        88.72,
        -87.0,
        -103.0,
    ];
    for _ in 0..SAMPLES / 2 {
        v.push(f32::from_bits(rng.next() as u32));
    }
    for lim in [1.0, 4.0, 40.0, 1e4] {
        for _ in 0..SAMPLES / 8 {
            v.push(((rng.unit() * 2.0 - 1.0) * lim) as f32);
        }
    }
    v
}

/// Inputs of an `f64` test, as [`inputs32`].
fn inputs64(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::MAX,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        libm::nextafter(1.0f64, f64::INFINITY),
        libm::nextafter(1.0f64, f64::NEG_INFINITY),
        core::f64::consts::PI,
    ];
    for _ in 0..n / 2 {
        v.push(f64::from_bits(rng.next()));
    }
    for lim in [1.0, 4.0, 40.0, 1e4] {
        for _ in 0..n / 8 {
            v.push((rng.unit() * 2.0 - 1.0) * lim);
        }
    }
    v
}

/// The distance in ulps between `got` and the correctly rounded `exact`
/// (an `f32` result against an `f64` reference): `None` when one is NaN
/// and the other is not, or an infinity differs.
fn ulps32(got: f32, exact: f64) -> Option<u64> {
    let want = exact as f32;
    if want.is_nan() || got.is_nan() {
        return (want.is_nan() && got.is_nan()).then_some(0);
    }
    if want.is_infinite() || got.is_infinite() {
        // An overflow at the edge of the range is one ulp past f32::MAX.
        let (a, b) = (
            want.clamp(f32::MIN, f32::MAX),
            got.clamp(f32::MIN, f32::MAX),
        );
        return Some(order32(a).abs_diff(order32(b)) + (want != got) as u64);
    }
    Some(order32(got).abs_diff(order32(want)))
}

/// `f32` bits as a monotonic integer (-0 and +0 adjacent).
fn order32(x: f32) -> i64 {
    let b = x.to_bits() as i32 as i64;
    if b < 0 {
        -(b & 0x7fff_ffff) - 1
    } else {
        b
    }
}

/// `f64` bits as a monotonic integer.
fn order64(x: f64) -> i128 {
    let b = x.to_bits() as i64 as i128;
    if b < 0 {
        -(b & 0x7fff_ffff_ffff_ffff) - 1
    } else {
        b
    }
}

/// The distance in ulps between two `f64` results.
fn ulps64(a: f64, b: f64) -> Option<u128> {
    if a.is_nan() || b.is_nan() {
        return (a.is_nan() && b.is_nan()).then_some(0);
    }
    if a.is_infinite() || b.is_infinite() {
        let (x, y) = (a.clamp(f64::MIN, f64::MAX), b.clamp(f64::MIN, f64::MAX));
        return Some(order64(x).abs_diff(order64(y)) + (a != b) as u128);
    }
    Some(order64(a).abs_diff(order64(b)))
}

type Case32 = (&'static str, u64, fn(f32) -> f32, fn(f64) -> f64);

/// One-argument `f32` functions: name, CUDA's bound, the host version, the
/// `f64` reference.
fn unary32() -> Vec<Case32> {
    vec![
        ("sqrt", 0, |x| FloatMath::sqrt(x), |x| FloatMath::sqrt(x)),
        ("cbrt", 1, |x| FloatMath::cbrt(x), |x| FloatMath::cbrt(x)),
        ("rsqrt", 2, |x| FloatMath::rsqrt(x), |x| 1.0 / x.sqrt()),
        ("rcbrt", 1, |x| FloatMath::rcbrt(x), |x| 1.0 / x.cbrt()),
        ("exp", 2, |x| FloatMath::exp(x), |x| FloatMath::exp(x)),
        ("exp2", 2, |x| FloatMath::exp2(x), |x| FloatMath::exp2(x)),
        ("exp10", 2, |x| FloatMath::exp10(x), libm::exp10),
        (
            "exp_m1",
            1,
            |x| FloatMath::exp_m1(x),
            |x| FloatMath::exp_m1(x),
        ),
        ("ln", 1, |x| FloatMath::ln(x), |x| FloatMath::ln(x)),
        ("log2", 1, |x| FloatMath::log2(x), |x| FloatMath::log2(x)),
        ("log10", 2, |x| FloatMath::log10(x), |x| FloatMath::log10(x)),
        ("ln_1p", 1, |x| FloatMath::ln_1p(x), |x| FloatMath::ln_1p(x)),
        ("sin", 2, |x| FloatMath::sin(x), |x| FloatMath::sin(x)),
        ("cos", 2, |x| FloatMath::cos(x), |x| FloatMath::cos(x)),
        ("tan", 4, |x| FloatMath::tan(x), |x| FloatMath::tan(x)),
        (
            "sin_cos.0",
            2,
            |x| FloatMath::sin_cos(x).0,
            |x| FloatMath::sin(x),
        ),
        (
            "sin_cos.1",
            2,
            |x| FloatMath::sin_cos(x).1,
            |x| FloatMath::cos(x),
        ),
        ("sinpi", 1, |x| FloatMath::sinpi(x), |x| FloatMath::sinpi(x)),
        ("cospi", 1, |x| FloatMath::cospi(x), |x| FloatMath::cospi(x)),
        ("asin", 2, |x| FloatMath::asin(x), |x| FloatMath::asin(x)),
        ("acos", 2, |x| FloatMath::acos(x), |x| FloatMath::acos(x)),
        ("atan", 2, |x| FloatMath::atan(x), |x| FloatMath::atan(x)),
        ("sinh", 3, |x| FloatMath::sinh(x), |x| FloatMath::sinh(x)),
        ("cosh", 2, |x| FloatMath::cosh(x), |x| FloatMath::cosh(x)),
        ("tanh", 2, |x| FloatMath::tanh(x), |x| FloatMath::tanh(x)),
        ("asinh", 3, |x| FloatMath::asinh(x), libm::asinh),
        (
            "acosh",
            4,
            |x| FloatMath::acosh(x),
            |x| {
                if x < 1.0 {
                    f64::NAN
                } else {
                    libm::acosh(x)
                }
            },
        ),
        ("atanh", 3, |x| FloatMath::atanh(x), libm::atanh),
        ("erf", 2, |x| FloatMath::erf(x), libm::erf),
        ("erfc", 4, |x| FloatMath::erfc(x), libm::erfc),
        (
            "erfinv",
            2,
            |x| FloatMath::erfinv(x),
            |x| FloatMath::erfinv(x),
        ),
        (
            "erfcinv",
            4,
            |x| FloatMath::erfcinv(x),
            |x| FloatMath::erfcinv(x),
        ),
        ("lgamma", 6, |x| FloatMath::lgamma(x), libm::lgamma),
        ("tgamma", 5, |x| FloatMath::tgamma(x), libm::tgamma),
        ("floor", 0, |x| FloatMath::floor(x), |x| FloatMath::floor(x)),
        ("ceil", 0, |x| FloatMath::ceil(x), |x| FloatMath::ceil(x)),
        ("trunc", 0, |x| FloatMath::trunc(x), |x| FloatMath::trunc(x)),
        ("round", 0, |x| FloatMath::round(x), |x| FloatMath::round(x)),
        (
            "round_ties_even",
            0,
            |x| FloatMath::round_ties_even(x),
            |x| FloatMath::round_ties_even(x),
        ),
        ("fract", 0, |x| FloatMath::fract(x), |x| x - x.trunc()),
        (
            "frexp.0",
            0,
            |x| FloatMath::frexp(x).0,
            |x| libm::frexp(x).0,
        ),
    ]
}

#[test]
fn f32_functions_are_within_cudas_bounds() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let inputs = inputs32(&mut rng);
    let mut failures = Vec::new();
    for (name, bound, f, reference) in unary32() {
        let mut worst = (0u64, 0.0f32);
        for &x in &inputs {
            // CUDA's lgammaf bound holds outside (-10.001, -2.264).
            if name == "lgamma" && x > -10.001 && x < -2.264 {
                continue;
            }
            let got = f(x);
            let exact = reference(x as f64);
            match ulps32(got, exact) {
                Some(u) if u <= worst.0 => {}
                Some(u) => worst = (u, x),
                None => {
                    worst = (u64::MAX, x);
                    break;
                }
            }
        }
        println!(
            "{name:>16}: worst {} ulp (CUDA: {bound}) at {:e}",
            worst.0, worst.1
        );
        if worst.0 > bound {
            failures.push(format!(
                "{name}: {} ulp at {:e} ({:#x})",
                worst.0,
                worst.1,
                worst.1.to_bits()
            ));
        }
    }
    // Two arguments: y from the same distribution, shuffled.
    let ys: Vec<f32> = inputs.iter().rev().copied().collect();
    type Case2 = (&'static str, u64, fn(f32, f32) -> f32, fn(f64, f64) -> f64);
    let binary: Vec<Case2> = vec![
        ("powf", 4, |x, y| FloatMath::powf(x, y), libm::pow),
        ("atan2", 3, |x, y| FloatMath::atan2(x, y), libm::atan2),
        ("hypot", 3, |x, y| FloatMath::hypot(x, y), libm::hypot),
        ("fmod", 0, |x, y| x.fmod(y), |x, y| x % y),
        ("remainder", 0, |x, y| x.remainder(y), libm::remainder),
        ("fdim", 0, |x, y| x.fdim(y), libm::fdim),
        (
            "mul_add",
            0,
            |x, y| FloatMath::mul_add(x, y, x),
            |x, y| x * y + x,
        ),
        ("div", 0, |x, y| x / y, |x, y| x / y),
    ];
    for (name, bound, f, reference) in binary {
        let mut worst = (0u64, 0.0f32, 0.0f32);
        for (&x, &y) in inputs.iter().zip(&ys) {
            let got = f(x, y);
            match ulps32(got, reference(x as f64, y as f64)) {
                Some(u) if u <= worst.0 => {}
                Some(u) => worst = (u, x, y),
                None => {
                    worst = (u64::MAX, x, y);
                    break;
                }
            }
        }
        println!(
            "{name:>16}: worst {} ulp (CUDA: {bound}) at ({:e}, {:e})",
            worst.0, worst.1, worst.2
        );
        if worst.0 > bound {
            failures.push(format!(
                "{name}: {} ulp at ({:e}, {:e})",
                worst.0, worst.1, worst.2
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "beyond CUDA's bounds:\n{}",
        failures.join("\n")
    );
}

#[test]
fn exact_functions_follow_cudas_rules() {
    // fmin/fmax: the other operand for one NaN, the canonical NaN for two,
    // -0 below +0.
    assert_eq!(f32::NAN.fmin(1.0), 1.0);
    assert_eq!(2.0f32.fmax(f32::NAN), 2.0);
    assert_eq!(f32::NAN.fmin(f32::NAN).to_bits(), 0x7fff_ffff);
    assert_eq!((-0.0f32).fmax(0.0).to_bits(), 0);
    assert_eq!(0.0f32.fmin(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(f64::NAN.fmax(f64::NAN).to_bits(), 0x7fff_ffff_ffff_ffff);
    // fmod exact where `x - trunc(x / y) * y` is not.
    assert_eq!(1e10f32.fmod(3.0), 1.0);
    assert_eq!((-7.5f32).rem_euclid(2.0), 0.5);
    assert_eq!((-7.5f32).div_euclid(2.0), -4.0);
    assert_eq!(5.0f32.remainder(2.0), 1.0);
    assert_eq!(f32::MAX.ldexp(1), f32::INFINITY);
    assert_eq!(1.0f32.ldexp(-149), f32::from_bits(1));
    assert_eq!(12.0f32.frexp(), (0.75, 4));
    assert_eq!(
        1.0f32.nextafter(2.0),
        libm::nextafterf(1.0f32, f32::INFINITY)
    );
    assert_eq!(1.0f32.fdim(2.0).to_bits(), 0);
    // sinpi and cospi: exact zeros with C's signs.
    assert_eq!(1.0f32.sinpi().to_bits(), 0);
    assert_eq!((-1.0f32).sinpi().to_bits(), 0x8000_0000);
    assert_eq!(0.5f32.cospi().to_bits(), 0);
    assert_eq!(0.5f32.sinpi(), 1.0);
    assert_eq!(2.0f64.sinpi().to_bits(), 0);
    assert_eq!(1.0f64.cospi(), -1.0);
    assert_eq!(3.0f32.powi(3), 27.0);
    assert_eq!(8.0f32.log(2.0), 3.0);
}

#[test]
fn f64_functions_agree_with_a_second_implementation() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let inputs = inputs64(&mut rng, 200_000);
    type Case64 = (&'static str, u128, fn(f64) -> f64, fn(f64) -> f64);
    let cases: Vec<Case64> = vec![
        ("sqrt", 0, |x| FloatMath::sqrt(x), libm::sqrt),
        ("cbrt", 1, |x| FloatMath::cbrt(x), libm::cbrt),
        ("exp", 1, |x| FloatMath::exp(x), libm::exp),
        ("exp2", 1, |x| FloatMath::exp2(x), libm::exp2),
        ("exp_m1", 1, |x| FloatMath::exp_m1(x), libm::expm1),
        ("ln", 1, |x| FloatMath::ln(x), libm::log),
        ("log2", 1, |x| FloatMath::log2(x), libm::log2),
        ("log10", 1, |x| FloatMath::log10(x), libm::log10),
        ("ln_1p", 1, |x| FloatMath::ln_1p(x), libm::log1p),
        ("sin", 2, |x| FloatMath::sin(x), libm::sin),
        ("cos", 2, |x| FloatMath::cos(x), libm::cos),
        ("tan", 2, |x| FloatMath::tan(x), libm::tan),
        ("asin", 2, |x| FloatMath::asin(x), libm::asin),
        ("acos", 2, |x| FloatMath::acos(x), libm::acos),
        ("atan", 2, |x| FloatMath::atan(x), libm::atan),
        ("sinh", 2, |x| FloatMath::sinh(x), libm::sinh),
        ("cosh", 1, |x| FloatMath::cosh(x), libm::cosh),
        ("tanh", 1, |x| FloatMath::tanh(x), libm::tanh),
        ("floor", 0, |x| FloatMath::floor(x), libm::floor),
        ("round", 0, |x| FloatMath::round(x), libm::round),
        (
            "round_ties_even",
            0,
            |x| FloatMath::round_ties_even(x),
            libm::rint,
        ),
    ];
    let mut failures = Vec::new();
    for (name, bound, f, reference) in cases {
        let mut worst = (0u128, 0.0f64);
        for &x in &inputs {
            match ulps64(f(x), reference(x)) {
                Some(u) if u <= worst.0 => {}
                Some(u) => worst = (u, x),
                None => {
                    worst = (u128::MAX, x);
                    break;
                }
            }
        }
        println!(
            "{name:>16}: worst {} ulp apart (CUDA: {bound}) at {:e}",
            worst.0, worst.1
        );
        // glibc's and musl's tanh are up to 3 ulp apart: one of them, at
        // least, is beyond CUDA's 1 ulp there (glibc documents 2).
        let slack = if name == "tanh" { 2 } else { 1 };
        if worst.0 > bound + slack {
            failures.push(format!("{name}: {} ulp apart at {:e}", worst.0, worst.1));
        }
    }
    // erfinv and erfcinv: erf of the result gives back the input within a
    // few ulp of the input.
    for &y in inputs.iter().filter(|y| y.abs() < 1.0) {
        let x = y.erfinv();
        let back = libm::erf(x);
        assert!(
            (back - y).abs() <= 4.0 * f64::EPSILON * y.abs().max(f64::MIN_POSITIVE),
            "erfinv({y:e}) = {x:e}, erf of which is {back:e}"
        );
    }
    for &z in inputs.iter().filter(|z| **z > 1e-300 && **z < 2.0) {
        let x = z.erfcinv();
        let back = libm::erfc(x);
        assert!(
            // erfc is steep: an error dx in x moves it by 2x dx relatively.
            (back - z).abs() <= f64::EPSILON * z * (4.0 + 8.0 * x * x),
            "erfcinv({z:e}) = {x:e}, erfc of which is {back:e}"
        );
    }
    assert!(
        failures.is_empty(),
        "apart beyond CUDA's bounds:\n{}",
        failures.join("\n")
    );
}
