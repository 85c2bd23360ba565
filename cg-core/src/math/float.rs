//! [`FloatMath`]: CUDA's math library as methods of `f32` and `f64`.

#[cfg(target_arch = "nvptx64")]
use super::device;
#[cfg(not(target_arch = "nvptx64"))]
use super::host;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// CUDA's math library as methods of `f32` and `f64`, with std's names
/// where std has the function (`x.exp()`, `x.ln_1p()`, `x.powf(y)`), CUDA's
/// otherwise (`x.rsqrt()`, `x.sinpi()`, `x.erfinv()`); in the prelude, so
/// kernel code reads like host code.
///
/// On the GPU each method is CUDA's function of the same name (the table in
/// [`math`](super)) as nvcc compiles it: bit for bit nvcc's result.
/// Off the GPU (the simulator, host unit tests) it is std's method where std
/// has one, the `libm` crate's function otherwise, within CUDA's error
/// bound for the function (the same table); the correctly rounded ones
/// (`sqrt`, the roundings, `fmod`, `remainder`, `fdim`, `fmin`, `fmax`,
/// `ldexp`, `frexp`, `nextafter`, `mul_add`) give the GPU's bits there too.
///
/// `abs`, `signum`, `copysign`, `min`, `max`, `clamp`, `recip`,
/// `to_degrees` and `to_radians` are `core`'s own methods, which compile to
/// the instructions nvcc uses (`abs.f32`, `copysign.f32`, `min.f32`, ...).
///
/// # On the host, with std
///
/// Where std is linked (the simulator), std's inherent methods win over a
/// trait's, so `x.exp()` there is std's `exp`: this trait's host versions are
/// the same functions. std has `erf` and `erfc` as unstable methods, about
/// which rustc warns (`unstable_name_collisions`) in a kernel compiled for
/// the simulator; `FloatMath::erf(x)` says which one is meant.
pub trait FloatMath: Copy + sealed::Sealed {
    /// The square root, correctly rounded (`sqrtf`, `sqrt`: `sqrt.rn`).
    fn sqrt(self) -> Self;
    /// The cube root (`cbrtf`, `cbrt`).
    fn cbrt(self) -> Self;
    /// `1 / sqrt(self)` (`rsqrtf`, `rsqrt`).
    fn rsqrt(self) -> Self;
    /// `1 / cbrt(self)` (`rcbrtf`, `rcbrt`).
    fn rcbrt(self) -> Self;
    /// `e^self` (`expf`, `exp`).
    fn exp(self) -> Self;
    /// `2^self` (`exp2f`, `exp2`).
    fn exp2(self) -> Self;
    /// `10^self` (`exp10f`, `exp10`).
    fn exp10(self) -> Self;
    /// `e^self - 1`, accurate near 0 (`expm1f`, `expm1`).
    fn exp_m1(self) -> Self;
    /// The natural logarithm (`logf`, `log`).
    fn ln(self) -> Self;
    /// The logarithm to `base`: `self.ln() / base.ln()`, as std defines it.
    fn log(self, base: Self) -> Self;
    /// The base-2 logarithm (`log2f`, `log2`).
    fn log2(self) -> Self;
    /// The base-10 logarithm (`log10f`, `log10`).
    fn log10(self) -> Self;
    /// `ln(1 + self)`, accurate near 0 (`log1pf`, `log1p`).
    fn ln_1p(self) -> Self;
    /// `self^n` (`powf`, `pow`).
    fn powf(self, n: Self) -> Self;
    /// `self^n` for an integer `n` (CUDA's `pow(x, int)`).
    fn powi(self, n: i32) -> Self;
    /// The sine (`sinf`, `sin`).
    fn sin(self) -> Self;
    /// The cosine (`cosf`, `cos`).
    fn cos(self) -> Self;
    /// The tangent (`tanf`, `tan`).
    fn tan(self) -> Self;
    /// `(sin, cos)` (`sincosf`, `sincos`): the same values as `sin` and
    /// `cos`, from one argument reduction.
    fn sin_cos(self) -> (Self, Self);
    /// `sin(pi * self)` (`sinpif`, `sinpi`).
    fn sinpi(self) -> Self;
    /// `cos(pi * self)` (`cospif`, `cospi`).
    fn cospi(self) -> Self;
    /// `(sinpi, cospi)` (`sincospif`, `sincospi`).
    fn sin_cos_pi(self) -> (Self, Self);
    /// The arcsine (`asinf`, `asin`).
    fn asin(self) -> Self;
    /// The arccosine (`acosf`, `acos`).
    fn acos(self) -> Self;
    /// The arctangent (`atanf`, `atan`).
    fn atan(self) -> Self;
    /// The angle of the point `(other, self)` (`atan2f(self, other)`).
    fn atan2(self, other: Self) -> Self;
    /// The hyperbolic sine (`sinhf`, `sinh`).
    fn sinh(self) -> Self;
    /// The hyperbolic cosine (`coshf`, `cosh`).
    fn cosh(self) -> Self;
    /// The hyperbolic tangent (`tanhf`, `tanh`).
    fn tanh(self) -> Self;
    /// The inverse hyperbolic sine (`asinhf`, `asinh`).
    fn asinh(self) -> Self;
    /// The inverse hyperbolic cosine (`acoshf`, `acosh`).
    fn acosh(self) -> Self;
    /// The inverse hyperbolic tangent (`atanhf`, `atanh`).
    fn atanh(self) -> Self;
    /// The error function (`erff`, `erf`).
    fn erf(self) -> Self;
    /// `1 - erf(self)`, accurate where `erf` is near 1 (`erfcf`, `erfc`).
    fn erfc(self) -> Self;
    /// The inverse error function (`erfinvf`, `erfinv`).
    fn erfinv(self) -> Self;
    /// The inverse complementary error function (`erfcinvf`, `erfcinv`).
    fn erfcinv(self) -> Self;
    /// `ln |Γ(self)|` (`lgammaf`, `lgamma`).
    fn lgamma(self) -> Self;
    /// `Γ(self)` (`tgammaf`, `tgamma`).
    fn tgamma(self) -> Self;
    /// `sqrt(self² + other²)` without undue overflow (`hypotf`, `hypot`).
    fn hypot(self, other: Self) -> Self;
    /// The largest integer not above `self` (`floorf`: `cvt.rmi`).
    fn floor(self) -> Self;
    /// The smallest integer not below `self` (`ceilf`: `cvt.rpi`).
    fn ceil(self) -> Self;
    /// The integer part, toward zero (`truncf`: `cvt.rzi`).
    fn trunc(self) -> Self;
    /// The nearest integer, halves away from zero (`roundf`).
    fn round(self) -> Self;
    /// The nearest integer, halves to even (`rintf`: `cvt.rni`).
    fn round_ties_even(self) -> Self;
    /// `self - self.trunc()`, as std defines it.
    fn fract(self) -> Self;
    /// `self * a + b` rounded once (`fmaf`: `fma.rn`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// The remainder of `self / other` with the sign of `self`, exact
    /// (`fmodf`, `fmod`). Rust's `%` on the GPU is LLVM's
    /// `self - trunc(self / other) * other`, which is not exact where the
    /// quotient is large; this is.
    fn fmod(self, other: Self) -> Self;
    /// `self - n * other` for the integer `n` nearest `self / other`
    /// (halves to even), exact (`remainderf`, `remainder`).
    fn remainder(self, other: Self) -> Self;
    /// The Euclidean remainder: `fmod` made non-negative, as std defines
    /// `rem_euclid` (on the exact `fmod`).
    fn rem_euclid(self, rhs: Self) -> Self;
    /// The Euclidean quotient, as std defines `div_euclid`.
    fn div_euclid(self, rhs: Self) -> Self;
    /// `self - other` when positive, else `+0` (`fdimf`, `fdim`).
    fn fdim(self, other: Self) -> Self;
    /// The smaller, NaN only when both are NaN (`fminf`, `fmin`).
    fn fmin(self, other: Self) -> Self;
    /// The larger, NaN only when both are NaN (`fmaxf`, `fmax`).
    fn fmax(self, other: Self) -> Self;
    /// The next representable value after `self` toward `toward`
    /// (`nextafterf`, `nextafter`).
    fn nextafter(self, toward: Self) -> Self;
    /// `self * 2^exp`, rounded once (`ldexpf`, `ldexp`).
    fn ldexp(self, exp: i32) -> Self;
    /// `(m, e)` with `self = m * 2^e` and `0.5 <= |m| < 1` (`frexpf`,
    /// `frexp`); `(self, 0)` for 0, infinities and NaN.
    fn frexp(self) -> (Self, i32);
}

/// Implements [`FloatMath`] for one type from `device::$module` (on the
/// GPU) and `host::$module` (elsewhere): functions named as the methods.
macro_rules! float_math {
    ($t:ident, $module:ident: $($m:ident($($a:ident: $at:ty),*) -> $r:ty;)*) => {
        impl FloatMath for $t {
            $(
                #[inline(always)]
                fn $m(self $(, $a: $at)*) -> $r {
                    #[cfg(target_arch = "nvptx64")]
                    {
                        device::$module::$m(self $(, $a)*)
                    }
                    #[cfg(not(target_arch = "nvptx64"))]
                    {
                        host::$module::$m(self $(, $a)*)
                    }
                }
            )*
        }
    };
}

macro_rules! float_math_for {
    ($(($t:ident, $module:ident)),*) => {$(
        float_math! { $t, $module:
            sqrt() -> $t; cbrt() -> $t; rsqrt() -> $t; rcbrt() -> $t;
            exp() -> $t; exp2() -> $t; exp10() -> $t; exp_m1() -> $t;
            ln() -> $t; log(base: $t) -> $t; log2() -> $t; log10() -> $t; ln_1p() -> $t;
            powf(n: $t) -> $t; powi(n: i32) -> $t;
            sin() -> $t; cos() -> $t; tan() -> $t; sin_cos() -> ($t, $t);
            sinpi() -> $t; cospi() -> $t; sin_cos_pi() -> ($t, $t);
            asin() -> $t; acos() -> $t; atan() -> $t; atan2(other: $t) -> $t;
            sinh() -> $t; cosh() -> $t; tanh() -> $t;
            asinh() -> $t; acosh() -> $t; atanh() -> $t;
            erf() -> $t; erfc() -> $t; erfinv() -> $t; erfcinv() -> $t;
            lgamma() -> $t; tgamma() -> $t; hypot(other: $t) -> $t;
            floor() -> $t; ceil() -> $t; trunc() -> $t; round() -> $t;
            round_ties_even() -> $t; fract() -> $t; mul_add(a: $t, b: $t) -> $t;
            fmod(other: $t) -> $t; remainder(other: $t) -> $t;
            rem_euclid(rhs: $t) -> $t; div_euclid(rhs: $t) -> $t;
            fdim(other: $t) -> $t; fmin(other: $t) -> $t; fmax(other: $t) -> $t;
            nextafter(toward: $t) -> $t; ldexp(exp: i32) -> $t; frexp() -> ($t, i32);
        }
    )*};
}

float_math_for!((f32, single), (f64, double));
