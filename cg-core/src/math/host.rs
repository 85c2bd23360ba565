//! The host side of [`FloatMath`](super::FloatMath) (the simulator, host
//! unit tests). `f64`: std's functions where std has them and is linked
//! (the `sim` feature), the `libm` crate's otherwise, and a few of CUDA's
//! that neither has (`rsqrt`, `rcbrt`, `sinpi`, `cospi`, `erfinv`,
//! `erfcinv`) computed here. `f32`: the exact ones directly, the others as
//! the `f64` function rounded to `f32`: within an `f32` ulp of the exact
//! result whatever the `f64` function's own error of an ulp or two (std's
//! `f32` `asinh` and `atanh` miss CUDA's bounds by far near the ends of
//! their ranges, the `libm` crate's `exp10f` by 2 ulp).
#![allow(missing_docs)]

/// std's `$std` with the `sim` feature, `$libm` without.
macro_rules! std_or_libm {
    ($std:expr, $libm:expr) => {{
        #[cfg(feature = "sim")]
        {
            $std
        }
        #[cfg(not(feature = "sim"))]
        {
            $libm
        }
    }};
}

/// The `f32` functions.
pub(crate) mod single {

    pub fn sqrt(x: f32) -> f32 {
        std_or_libm!(x.sqrt(), libm::sqrtf(x))
    }

    pub fn cbrt(x: f32) -> f32 {
        super::double::cbrt(x as f64) as f32
    }

    pub fn exp(x: f32) -> f32 {
        super::double::exp(x as f64) as f32
    }

    pub fn exp2(x: f32) -> f32 {
        super::double::exp2(x as f64) as f32
    }

    pub fn exp_m1(x: f32) -> f32 {
        super::double::exp_m1(x as f64) as f32
    }

    pub fn ln(x: f32) -> f32 {
        super::double::ln(x as f64) as f32
    }

    pub fn log2(x: f32) -> f32 {
        super::double::log2(x as f64) as f32
    }

    pub fn log10(x: f32) -> f32 {
        super::double::log10(x as f64) as f32
    }

    pub fn ln_1p(x: f32) -> f32 {
        super::double::ln_1p(x as f64) as f32
    }

    pub fn sin(x: f32) -> f32 {
        super::double::sin(x as f64) as f32
    }

    pub fn cos(x: f32) -> f32 {
        super::double::cos(x as f64) as f32
    }

    pub fn tan(x: f32) -> f32 {
        super::double::tan(x as f64) as f32
    }

    pub fn asin(x: f32) -> f32 {
        super::double::asin(x as f64) as f32
    }

    pub fn acos(x: f32) -> f32 {
        super::double::acos(x as f64) as f32
    }

    pub fn atan(x: f32) -> f32 {
        super::double::atan(x as f64) as f32
    }

    pub fn sinh(x: f32) -> f32 {
        super::double::sinh(x as f64) as f32
    }

    pub fn cosh(x: f32) -> f32 {
        super::double::cosh(x as f64) as f32
    }

    pub fn tanh(x: f32) -> f32 {
        super::double::tanh(x as f64) as f32
    }

    pub fn asinh(x: f32) -> f32 {
        super::double::asinh(x as f64) as f32
    }

    pub fn acosh(x: f32) -> f32 {
        super::double::acosh(x as f64) as f32
    }

    pub fn atanh(x: f32) -> f32 {
        super::double::atanh(x as f64) as f32
    }

    pub fn floor(x: f32) -> f32 {
        std_or_libm!(x.floor(), libm::floorf(x))
    }

    pub fn ceil(x: f32) -> f32 {
        std_or_libm!(x.ceil(), libm::ceilf(x))
    }

    pub fn trunc(x: f32) -> f32 {
        std_or_libm!(x.trunc(), libm::truncf(x))
    }

    pub fn round(x: f32) -> f32 {
        std_or_libm!(x.round(), libm::roundf(x))
    }

    pub fn round_ties_even(x: f32) -> f32 {
        std_or_libm!(x.round_ties_even(), libm::rintf(x))
    }

    pub fn powf(x: f32, n: f32) -> f32 {
        super::double::powf(x as f64, n as f64) as f32
    }

    pub fn atan2(x: f32, other: f32) -> f32 {
        super::double::atan2(x as f64, other as f64) as f32
    }

    pub fn hypot(x: f32, other: f32) -> f32 {
        super::double::hypot(x as f64, other as f64) as f32
    }

    pub fn exp10(x: f32) -> f32 {
        super::double::exp10(x as f64) as f32
    }

    pub fn erf(x: f32) -> f32 {
        super::double::erf(x as f64) as f32
    }

    pub fn erfc(x: f32) -> f32 {
        super::double::erfc(x as f64) as f32
    }

    pub fn lgamma(x: f32) -> f32 {
        super::double::lgamma(x as f64) as f32
    }

    pub fn tgamma(x: f32) -> f32 {
        super::double::tgamma(x as f64) as f32
    }

    pub fn remainder(x: f32, other: f32) -> f32 {
        libm::remainderf(x, other)
    }

    pub fn fdim(x: f32, other: f32) -> f32 {
        libm::fdimf(x, other)
    }

    pub fn nextafter(x: f32, toward: f32) -> f32 {
        libm::nextafterf(x, toward)
    }

    pub fn sin_cos(x: f32) -> (f32, f32) {
        (sin(x), cos(x))
    }

    pub fn mul_add(x: f32, a: f32, b: f32) -> f32 {
        std_or_libm!(x.mul_add(a, b), libm::fmaf(x, a, b))
    }

    pub fn powi(x: f32, n: i32) -> f32 {
        std_or_libm!(x.powi(n), super::powi(x as f64, n) as f32)
    }

    pub fn fmod(x: f32, other: f32) -> f32 {
        x % other
    }

    pub fn ldexp(x: f32, exp: i32) -> f32 {
        libm::ldexpf(x, exp)
    }

    pub fn frexp(x: f32) -> (f32, i32) {
        libm::frexpf(x)
    }

    pub fn fract(x: f32) -> f32 {
        x - trunc(x)
    }

    pub fn log(x: f32, base: f32) -> f32 {
        ln(x) / ln(base)
    }

    pub fn div_euclid(x: f32, rhs: f32) -> f32 {
        let q = trunc(x / rhs);
        if fmod(x, rhs) < 0.0 {
            return if rhs > 0.0 { q - 1.0 } else { q + 1.0 };
        }
        q
    }

    pub fn rem_euclid(x: f32, rhs: f32) -> f32 {
        let r = fmod(x, rhs);
        if r < 0.0 {
            r + rhs.abs()
        } else {
            r
        }
    }

    /// CUDA's `fmin`: the other operand when one is NaN, the canonical NaN
    /// when both are, -0 below +0.
    pub fn fmin(x: f32, other: f32) -> f32 {
        if x.is_nan() && other.is_nan() {
            f32::from_bits(0x7fff_ffff)
        } else if x.is_nan() {
            other
        } else if other.is_nan() || x < other || (x == other && x.is_sign_negative()) {
            x
        } else {
            other
        }
    }

    /// CUDA's `fmax`: as [`fmin`], +0 above -0.
    pub fn fmax(x: f32, other: f32) -> f32 {
        if x.is_nan() && other.is_nan() {
            f32::from_bits(0x7fff_ffff)
        } else if x.is_nan() {
            other
        } else if other.is_nan() || x > other || (x == other && x.is_sign_positive()) {
            x
        } else {
            other
        }
    }

    pub fn rsqrt(x: f32) -> f32 {
        (1.0 / super::double::sqrt(x as f64)) as f32
    }

    pub fn rcbrt(x: f32) -> f32 {
        (1.0 / super::double::cbrt(x as f64)) as f32
    }

    pub fn sinpi(x: f32) -> f32 {
        super::double::sinpi(x as f64) as f32
    }

    pub fn cospi(x: f32) -> f32 {
        super::double::cospi(x as f64) as f32
    }

    pub fn sin_cos_pi(x: f32) -> (f32, f32) {
        (sinpi(x), cospi(x))
    }

    pub fn erfinv(x: f32) -> f32 {
        super::double::erfinv(x as f64) as f32
    }

    pub fn erfcinv(x: f32) -> f32 {
        super::double::erfcinv(x as f64) as f32
    }
}

/// The `f64` functions.
pub(crate) mod double {

    pub fn sqrt(x: f64) -> f64 {
        std_or_libm!(x.sqrt(), libm::sqrt(x))
    }

    pub fn cbrt(x: f64) -> f64 {
        std_or_libm!(x.cbrt(), libm::cbrt(x))
    }

    pub fn exp(x: f64) -> f64 {
        std_or_libm!(x.exp(), libm::exp(x))
    }

    pub fn exp2(x: f64) -> f64 {
        std_or_libm!(x.exp2(), libm::exp2(x))
    }

    pub fn exp_m1(x: f64) -> f64 {
        std_or_libm!(x.exp_m1(), libm::expm1(x))
    }

    pub fn ln(x: f64) -> f64 {
        std_or_libm!(x.ln(), libm::log(x))
    }

    pub fn log2(x: f64) -> f64 {
        std_or_libm!(x.log2(), libm::log2(x))
    }

    pub fn log10(x: f64) -> f64 {
        std_or_libm!(x.log10(), libm::log10(x))
    }

    pub fn ln_1p(x: f64) -> f64 {
        std_or_libm!(x.ln_1p(), libm::log1p(x))
    }

    pub fn sin(x: f64) -> f64 {
        std_or_libm!(x.sin(), libm::sin(x))
    }

    pub fn cos(x: f64) -> f64 {
        std_or_libm!(x.cos(), libm::cos(x))
    }

    pub fn tan(x: f64) -> f64 {
        std_or_libm!(x.tan(), libm::tan(x))
    }

    pub fn asin(x: f64) -> f64 {
        std_or_libm!(x.asin(), libm::asin(x))
    }

    pub fn acos(x: f64) -> f64 {
        std_or_libm!(x.acos(), libm::acos(x))
    }

    pub fn atan(x: f64) -> f64 {
        std_or_libm!(x.atan(), libm::atan(x))
    }

    pub fn sinh(x: f64) -> f64 {
        std_or_libm!(x.sinh(), libm::sinh(x))
    }

    pub fn cosh(x: f64) -> f64 {
        std_or_libm!(x.cosh(), libm::cosh(x))
    }

    pub fn tanh(x: f64) -> f64 {
        std_or_libm!(x.tanh(), libm::tanh(x))
    }

    pub fn asinh(x: f64) -> f64 {
        std_or_libm!(x.asinh(), libm::asinh(x))
    }

    pub fn acosh(x: f64) -> f64 {
        // musl's acosh is not NaN below -1.
        if x < 1.0 {
            return f64::NAN;
        }
        std_or_libm!(x.acosh(), libm::acosh(x))
    }

    pub fn atanh(x: f64) -> f64 {
        std_or_libm!(x.atanh(), libm::atanh(x))
    }

    pub fn floor(x: f64) -> f64 {
        std_or_libm!(x.floor(), libm::floor(x))
    }

    pub fn ceil(x: f64) -> f64 {
        std_or_libm!(x.ceil(), libm::ceil(x))
    }

    pub fn trunc(x: f64) -> f64 {
        std_or_libm!(x.trunc(), libm::trunc(x))
    }

    pub fn round(x: f64) -> f64 {
        std_or_libm!(x.round(), libm::round(x))
    }

    pub fn round_ties_even(x: f64) -> f64 {
        std_or_libm!(x.round_ties_even(), libm::rint(x))
    }

    pub fn powf(x: f64, n: f64) -> f64 {
        std_or_libm!(x.powf(n), libm::pow(x, n))
    }

    pub fn atan2(x: f64, other: f64) -> f64 {
        std_or_libm!(x.atan2(other), libm::atan2(x, other))
    }

    pub fn hypot(x: f64, other: f64) -> f64 {
        std_or_libm!(x.hypot(other), libm::hypot(x, other))
    }

    pub fn exp10(x: f64) -> f64 {
        libm::exp10(x)
    }

    pub fn erf(x: f64) -> f64 {
        libm::erf(x)
    }

    pub fn erfc(x: f64) -> f64 {
        libm::erfc(x)
    }

    pub fn lgamma(x: f64) -> f64 {
        libm::lgamma(x)
    }

    pub fn tgamma(x: f64) -> f64 {
        libm::tgamma(x)
    }

    pub fn remainder(x: f64, other: f64) -> f64 {
        libm::remainder(x, other)
    }

    pub fn fdim(x: f64, other: f64) -> f64 {
        libm::fdim(x, other)
    }

    pub fn nextafter(x: f64, toward: f64) -> f64 {
        libm::nextafter(x, toward)
    }

    pub fn sin_cos(x: f64) -> (f64, f64) {
        std_or_libm!(x.sin_cos(), libm::sincos(x))
    }

    pub fn mul_add(x: f64, a: f64, b: f64) -> f64 {
        std_or_libm!(x.mul_add(a, b), libm::fma(x, a, b))
    }

    pub fn powi(x: f64, n: i32) -> f64 {
        std_or_libm!(x.powi(n), super::powi(x, n))
    }

    pub fn fmod(x: f64, other: f64) -> f64 {
        x % other
    }

    pub fn ldexp(x: f64, exp: i32) -> f64 {
        libm::ldexp(x, exp)
    }

    pub fn frexp(x: f64) -> (f64, i32) {
        libm::frexp(x)
    }

    pub fn fract(x: f64) -> f64 {
        x - trunc(x)
    }

    pub fn log(x: f64, base: f64) -> f64 {
        ln(x) / ln(base)
    }

    pub fn div_euclid(x: f64, rhs: f64) -> f64 {
        let q = trunc(x / rhs);
        if fmod(x, rhs) < 0.0 {
            return if rhs > 0.0 { q - 1.0 } else { q + 1.0 };
        }
        q
    }

    pub fn rem_euclid(x: f64, rhs: f64) -> f64 {
        let r = fmod(x, rhs);
        if r < 0.0 {
            r + rhs.abs()
        } else {
            r
        }
    }

    /// CUDA's `fmin`: the other operand when one is NaN, the canonical NaN
    /// when both are, -0 below +0.
    pub fn fmin(x: f64, other: f64) -> f64 {
        if x.is_nan() && other.is_nan() {
            f64::from_bits(0x7fff_ffff_ffff_ffff)
        } else if x.is_nan() {
            other
        } else if other.is_nan() || x < other || (x == other && x.is_sign_negative()) {
            x
        } else {
            other
        }
    }

    /// CUDA's `fmax`: as [`fmin`], +0 above -0.
    pub fn fmax(x: f64, other: f64) -> f64 {
        if x.is_nan() && other.is_nan() {
            f64::from_bits(0x7fff_ffff_ffff_ffff)
        } else if x.is_nan() {
            other
        } else if other.is_nan() || x > other || (x == other && x.is_sign_positive()) {
            x
        } else {
            other
        }
    }

    pub fn rsqrt(x: f64) -> f64 {
        1.0 / sqrt(x)
    }

    pub fn rcbrt(x: f64) -> f64 {
        1.0 / cbrt(x)
    }

    /// `sin(pi x)`: `x` reduced exactly to `[-1/4, 1/4]` around a multiple
    /// of 1/2, whose quadrant picks the sine or cosine of `pi` times the
    /// rest; exact zeros at the integers (+0 for positive ones).
    pub fn sinpi(x: f64) -> f64 {
        if !x.is_finite() {
            return f64::NAN;
        }
        let a = x.abs() % 2.0;
        let k = round_ties_even(a * 2.0);
        let f = a - k * 0.5;
        let p = core::f64::consts::PI * f;
        let v = match k as i32 {
            0 | 4 => sin(p),
            1 => cos(p),
            2 => -sin(p),
            _ => -cos(p),
        };
        if v == 0.0 {
            return 0.0f64.copysign(x);
        }
        if x < 0.0 {
            -v
        } else {
            v
        }
    }

    /// `cos(pi x)`, as [`sinpi`]; +0 at the half integers.
    pub fn cospi(x: f64) -> f64 {
        if !x.is_finite() {
            return f64::NAN;
        }
        let a = x.abs() % 2.0;
        let k = round_ties_even(a * 2.0);
        let f = a - k * 0.5;
        let p = core::f64::consts::PI * f;
        let v = match k as i32 {
            0 | 4 => cos(p),
            1 => -sin(p),
            2 => -cos(p),
            _ => sin(p),
        };
        if v == 0.0 {
            0.0
        } else {
            v
        }
    }

    pub fn sin_cos_pi(x: f64) -> (f64, f64) {
        (sinpi(x), cospi(x))
    }

    /// The inverse error function: Newton's method on `erf` from Giles'
    /// approximation; through [`erfcinv`] where `|x| >= 1/2` (`1 - |x|` is
    /// exact there).
    pub fn erfinv(x: f64) -> f64 {
        if x.is_nan() || x.abs() > 1.0 {
            return f64::NAN;
        }
        if x.abs() == 1.0 {
            return f64::INFINITY.copysign(x);
        }
        if x == 0.0 {
            return x;
        }
        if x.abs() >= 0.5 {
            return erfcinv(1.0 - x.abs()).copysign(x);
        }
        let mut r = super::giles_erfinv(x);
        for _ in 0..3 {
            let e = libm::erf(r) - x;
            r -= e / (core::f64::consts::FRAC_2_SQRT_PI * exp(-r * r));
        }
        r
    }

    /// The inverse complementary error function: Newton's method on
    /// `ln erfc` (which stays accurate down to the smallest subnormal);
    /// through [`erfinv`] where `1/2 < x <= 3/2`, by symmetry above 1.
    pub fn erfcinv(x: f64) -> f64 {
        if x.is_nan() || !(0.0..=2.0).contains(&x) {
            return f64::NAN;
        }
        if x == 0.0 {
            return f64::INFINITY;
        }
        if x == 2.0 {
            return f64::NEG_INFINITY;
        }
        if x > 1.0 {
            return -erfcinv(2.0 - x);
        }
        if x > 0.5 {
            return erfinv(1.0 - x);
        }
        let target = ln(x);
        // erfc(r) ~ exp(-r^2) / (r sqrt(pi)): a start within a few percent.
        let mut r = sqrt(-target);
        r = sqrt((-target - ln(r * 1.772_453_850_905_516)).max(0.0));
        for _ in 0..60 {
            let (lc, ratio) = super::ln_erfc(r);
            // d/dr ln erfc(r) = -2/sqrt(pi) * exp(-r^2) / erfc(r).
            let step = (lc - target) / (-core::f64::consts::FRAC_2_SQRT_PI * ratio);
            r -= step;
            if step.abs() <= r * 1e-17 {
                break;
            }
        }
        r
    }
}

/// `x^n` by repeated squaring, as compiler-rt's `__powidf2` (without std).
#[cfg_attr(feature = "sim", allow(dead_code))]
fn powi(mut x: f64, n: i32) -> f64 {
    let mut m = n.unsigned_abs();
    let mut r = 1.0;
    loop {
        if m & 1 == 1 {
            r *= x;
        }
        m >>= 1;
        if m == 0 {
            break;
        }
        x *= x;
    }
    if n < 0 {
        1.0 / r
    } else {
        r
    }
}

/// Giles' single-precision approximation of `erfinv(x)` ("Approximating
/// the erfinv function", GPU Computing Gems, 2010), as a start for Newton.
fn giles_erfinv(x: f64) -> f64 {
    let w = -double::ln_1p(-x * x);
    let p = if w < 5.0 {
        let w = w - 2.5;
        let mut p = 2.810_226_36e-08;
        for c in [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ] {
            p = c + p * w;
        }
        p
    } else {
        let w = double::sqrt(w) - 3.0;
        let mut p = -0.000_200_214_257;
        for c in [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ] {
            p = c + p * w;
        }
        p
    };
    p * x
}

/// `(ln erfc(r), exp(-r^2) / erfc(r))` for `r >= 0.4`: from `erfc` below 10,
/// from its asymptotic series above (where `erfc` and `exp(-r^2)` leave
/// the normal range).
fn ln_erfc(r: f64) -> (f64, f64) {
    if r < 10.0 {
        let c = libm::erfc(r);
        return (double::ln(c), double::exp(-r * r) / c);
    }
    // erfc(r) = exp(-r^2) / (r sqrt(pi)) * s, s = sum (-1)^k (2k-1)!! / (2r^2)^k.
    let u = 1.0 / (2.0 * r * r);
    let (mut s, mut term) = (1.0, 1.0);
    for k in 1..40 {
        term *= -((2 * k - 1) as f64) * u;
        s += term;
        if term.abs() < 1e-18 {
            break;
        }
    }
    let sq = r * r;
    let lo = libm::fma(r, r, -sq);
    let lc = -sq - lo - double::ln(r * 1.772_453_850_905_516) + double::ln(s);
    (lc, r * 1.772_453_850_905_516 / s)
}
