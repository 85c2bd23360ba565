//! The GPU side of [`FloatMath`](super::FloatMath): CUDA's functions,
//! declared here as `cg_math_NAME` and defined by cg-builder from nvcc's
//! compilation of `NAME` (see `cg_builder::math`); the correctly rounded
//! ones as the instructions nvcc emits for them (`sqrt.rn`, `cvt.rmi`,
//! `min`, `fma.rn`, ...), which LLVM emits for `core`'s versions too.
//!
//! Under `--cfg cg_fast_math` (`KernelBuild::fast_math`) cg-builder compiles
//! the library with `--use_fast_math`, and the `f32` functions that are one
//! instruction here go through it as well: nvcc's fast forms of them
//! (`sqrt.approx.ftz`, `cvt.rmi.ftz`, `min.ftz`) are not IEEE's.
#![allow(missing_docs)]
// The functions of one instruction are called in the fast-math build only
// (`f32`) or never (`f64`, declared with the rest).
#![allow(dead_code)]

macro_rules! library {
    ($($name:ident($($a:ident: $at:ty),*) -> $r:ty;)*) => {
        extern "C" {
            $(pub(super) fn $name($($a: $at),*) -> $r;)*
        }
    };
}

library! {
    cg_math_cbrtf(x: f32) -> f32;
    cg_math_rsqrtf(x: f32) -> f32;
    cg_math_rcbrtf(x: f32) -> f32;
    cg_math_expf(x: f32) -> f32;
    cg_math_exp2f(x: f32) -> f32;
    cg_math_exp10f(x: f32) -> f32;
    cg_math_expm1f(x: f32) -> f32;
    cg_math_logf(x: f32) -> f32;
    cg_math_log2f(x: f32) -> f32;
    cg_math_log10f(x: f32) -> f32;
    cg_math_log1pf(x: f32) -> f32;
    cg_math_sinf(x: f32) -> f32;
    cg_math_cosf(x: f32) -> f32;
    cg_math_tanf(x: f32) -> f32;
    cg_math_sinpif(x: f32) -> f32;
    cg_math_cospif(x: f32) -> f32;
    cg_math_asinf(x: f32) -> f32;
    cg_math_acosf(x: f32) -> f32;
    cg_math_atanf(x: f32) -> f32;
    cg_math_sinhf(x: f32) -> f32;
    cg_math_coshf(x: f32) -> f32;
    cg_math_tanhf(x: f32) -> f32;
    cg_math_asinhf(x: f32) -> f32;
    cg_math_acoshf(x: f32) -> f32;
    cg_math_atanhf(x: f32) -> f32;
    cg_math_erff(x: f32) -> f32;
    cg_math_erfcf(x: f32) -> f32;
    cg_math_erfinvf(x: f32) -> f32;
    cg_math_erfcinvf(x: f32) -> f32;
    cg_math_lgammaf(x: f32) -> f32;
    cg_math_tgammaf(x: f32) -> f32;
    cg_math_powf(x: f32, y: f32) -> f32;
    cg_math_atan2f(x: f32, y: f32) -> f32;
    cg_math_hypotf(x: f32, y: f32) -> f32;
    cg_math_fmodf(x: f32, y: f32) -> f32;
    cg_math_remainderf(x: f32, y: f32) -> f32;
    cg_math_fdimf(x: f32, y: f32) -> f32;
    cg_math_nextafterf(x: f32, y: f32) -> f32;
    cg_math_sqrtf(x: f32) -> f32;
    cg_math_floorf(x: f32) -> f32;
    cg_math_ceilf(x: f32) -> f32;
    cg_math_truncf(x: f32) -> f32;
    cg_math_roundf(x: f32) -> f32;
    cg_math_rintf(x: f32) -> f32;
    cg_math_fminf(x: f32, y: f32) -> f32;
    cg_math_fmaxf(x: f32, y: f32) -> f32;
    cg_math_powif(x: f32, n: i32) -> f32;
    cg_math_ldexpf(x: f32, n: i32) -> f32;
    cg_math_frexpf(x: f32) -> u64;
    cg_math_sincosf(x: f32) -> u64;
    cg_math_sincospif(x: f32) -> u64;
    cg_math_cbrt(x: f64) -> f64;
    cg_math_rsqrt(x: f64) -> f64;
    cg_math_rcbrt(x: f64) -> f64;
    cg_math_exp(x: f64) -> f64;
    cg_math_exp2(x: f64) -> f64;
    cg_math_exp10(x: f64) -> f64;
    cg_math_expm1(x: f64) -> f64;
    cg_math_log(x: f64) -> f64;
    cg_math_log2(x: f64) -> f64;
    cg_math_log10(x: f64) -> f64;
    cg_math_log1p(x: f64) -> f64;
    cg_math_sin(x: f64) -> f64;
    cg_math_cos(x: f64) -> f64;
    cg_math_tan(x: f64) -> f64;
    cg_math_sinpi(x: f64) -> f64;
    cg_math_cospi(x: f64) -> f64;
    cg_math_asin(x: f64) -> f64;
    cg_math_acos(x: f64) -> f64;
    cg_math_atan(x: f64) -> f64;
    cg_math_sinh(x: f64) -> f64;
    cg_math_cosh(x: f64) -> f64;
    cg_math_tanh(x: f64) -> f64;
    cg_math_asinh(x: f64) -> f64;
    cg_math_acosh(x: f64) -> f64;
    cg_math_atanh(x: f64) -> f64;
    cg_math_erf(x: f64) -> f64;
    cg_math_erfc(x: f64) -> f64;
    cg_math_erfinv(x: f64) -> f64;
    cg_math_erfcinv(x: f64) -> f64;
    cg_math_lgamma(x: f64) -> f64;
    cg_math_tgamma(x: f64) -> f64;
    cg_math_pow(x: f64, y: f64) -> f64;
    cg_math_atan2(x: f64, y: f64) -> f64;
    cg_math_hypot(x: f64, y: f64) -> f64;
    cg_math_fmod(x: f64, y: f64) -> f64;
    cg_math_remainder(x: f64, y: f64) -> f64;
    cg_math_fdim(x: f64, y: f64) -> f64;
    cg_math_nextafter(x: f64, y: f64) -> f64;
    cg_math_sqrt(x: f64) -> f64;
    cg_math_floor(x: f64) -> f64;
    cg_math_ceil(x: f64) -> f64;
    cg_math_trunc(x: f64) -> f64;
    cg_math_round(x: f64) -> f64;
    cg_math_rint(x: f64) -> f64;
    cg_math_fmin(x: f64, y: f64) -> f64;
    cg_math_fmax(x: f64, y: f64) -> f64;
    cg_math_powi(x: f64, n: i32) -> f64;
    cg_math_ldexp(x: f64, n: i32) -> f64;
    cg_math_frexp(x: f64) -> f64;
    cg_math_frexp_exp(x: f64) -> i32;
    cg_math_sincos_sin(x: f64) -> f64;
    cg_math_sincos_cos(x: f64) -> f64;
    cg_math_sincospi_sin(x: f64) -> f64;
    cg_math_sincospi_cos(x: f64) -> f64;
}

/// The `f32` functions.
pub(super) mod single {
    use super::*;

    #[inline(always)]
    pub fn cbrt(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cbrtf(x) }
    }

    #[inline(always)]
    pub fn rsqrt(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_rsqrtf(x) }
    }

    #[inline(always)]
    pub fn rcbrt(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_rcbrtf(x) }
    }

    #[inline(always)]
    pub fn exp(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_expf(x) }
    }

    #[inline(always)]
    pub fn exp2(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_exp2f(x) }
    }

    #[inline(always)]
    pub fn exp10(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_exp10f(x) }
    }

    #[inline(always)]
    pub fn exp_m1(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_expm1f(x) }
    }

    #[inline(always)]
    pub fn ln(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_logf(x) }
    }

    #[inline(always)]
    pub fn log2(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log2f(x) }
    }

    #[inline(always)]
    pub fn log10(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log10f(x) }
    }

    #[inline(always)]
    pub fn ln_1p(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log1pf(x) }
    }

    #[inline(always)]
    pub fn sin(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sinf(x) }
    }

    #[inline(always)]
    pub fn cos(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cosf(x) }
    }

    #[inline(always)]
    pub fn tan(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tanf(x) }
    }

    #[inline(always)]
    pub fn sinpi(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sinpif(x) }
    }

    #[inline(always)]
    pub fn cospi(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cospif(x) }
    }

    #[inline(always)]
    pub fn asin(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_asinf(x) }
    }

    #[inline(always)]
    pub fn acos(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_acosf(x) }
    }

    #[inline(always)]
    pub fn atan(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_atanf(x) }
    }

    #[inline(always)]
    pub fn sinh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sinhf(x) }
    }

    #[inline(always)]
    pub fn cosh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_coshf(x) }
    }

    #[inline(always)]
    pub fn tanh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tanhf(x) }
    }

    #[inline(always)]
    pub fn asinh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_asinhf(x) }
    }

    #[inline(always)]
    pub fn acosh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_acoshf(x) }
    }

    #[inline(always)]
    pub fn atanh(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_atanhf(x) }
    }

    #[inline(always)]
    pub fn erf(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erff(x) }
    }

    #[inline(always)]
    pub fn erfc(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfcf(x) }
    }

    #[inline(always)]
    pub fn erfinv(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfinvf(x) }
    }

    #[inline(always)]
    pub fn erfcinv(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfcinvf(x) }
    }

    #[inline(always)]
    pub fn lgamma(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_lgammaf(x) }
    }

    #[inline(always)]
    pub fn tgamma(x: f32) -> f32 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tgammaf(x) }
    }

    #[inline(always)]
    pub fn powf(x: f32, n: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_powf(x, n) }
    }

    #[inline(always)]
    pub fn atan2(x: f32, other: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_atan2f(x, other) }
    }

    #[inline(always)]
    pub fn hypot(x: f32, other: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_hypotf(x, other) }
    }

    #[inline(always)]
    pub fn fmod(x: f32, other: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_fmodf(x, other) }
    }

    #[inline(always)]
    pub fn remainder(x: f32, other: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_remainderf(x, other) }
    }

    #[inline(always)]
    pub fn fdim(x: f32, other: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_fdimf(x, other) }
    }

    #[inline(always)]
    pub fn nextafter(x: f32, toward: f32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_nextafterf(x, toward) }
    }

    #[inline(always)]
    pub fn sqrt(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_sqrtf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::sqrt(x)
        }
    }

    #[inline(always)]
    pub fn floor(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_floorf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::floor(x)
        }
    }

    #[inline(always)]
    pub fn ceil(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_ceilf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::ceil(x)
        }
    }

    #[inline(always)]
    pub fn trunc(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_truncf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::trunc(x)
        }
    }

    #[inline(always)]
    pub fn round(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_roundf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::round(x)
        }
    }

    #[inline(always)]
    pub fn round_ties_even(x: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its argument, defined by cg-builder.
            unsafe { cg_math_rintf(x) }
        }
        #[cfg(not(cg_fast_math))]
        {
            core::f32::math::round_ties_even(x)
        }
    }

    #[inline(always)]
    pub fn fmin(x: f32, other: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its arguments, defined by cg-builder.
            unsafe { cg_math_fminf(x, other) }
        }
        #[cfg(not(cg_fast_math))]
        {
            x.min(other)
        }
    }

    #[inline(always)]
    pub fn fmax(x: f32, other: f32) -> f32 {
        #[cfg(cg_fast_math)]
        {
            // SAFETY: a pure function of its arguments, defined by cg-builder.
            unsafe { cg_math_fmaxf(x, other) }
        }
        #[cfg(not(cg_fast_math))]
        {
            x.max(other)
        }
    }

    #[inline(always)]
    pub fn powi(x: f32, n: i32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_powif(x, n) }
    }

    #[inline(always)]
    pub fn ldexp(x: f32, exp: i32) -> f32 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_ldexpf(x, exp) }
    }

    #[inline(always)]
    pub fn frexp(x: f32) -> (f32, i32) {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        let p = unsafe { cg_math_frexpf(x) };
        (f32::from_bits(p as u32), (p >> 32) as i32)
    }

    #[inline(always)]
    pub fn sin_cos(x: f32) -> (f32, f32) {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        let p = unsafe { cg_math_sincosf(x) };
        (f32::from_bits(p as u32), f32::from_bits((p >> 32) as u32))
    }

    #[inline(always)]
    pub fn sin_cos_pi(x: f32) -> (f32, f32) {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        let p = unsafe { cg_math_sincospif(x) };
        (f32::from_bits(p as u32), f32::from_bits((p >> 32) as u32))
    }

    #[inline(always)]
    pub fn fract(x: f32) -> f32 {
        x - trunc(x)
    }

    #[inline(always)]
    pub fn mul_add(x: f32, a: f32, b: f32) -> f32 {
        crate::math::MulAdd::mul_add(x, a, b)
    }

    #[inline(always)]
    pub fn log(x: f32, base: f32) -> f32 {
        ln(x) / ln(base)
    }

    #[inline(always)]
    pub fn div_euclid(x: f32, rhs: f32) -> f32 {
        let q = trunc(x / rhs);
        if fmod(x, rhs) < 0.0 {
            return if rhs > 0.0 { q - 1.0 } else { q + 1.0 };
        }
        q
    }

    #[inline(always)]
    pub fn rem_euclid(x: f32, rhs: f32) -> f32 {
        let r = fmod(x, rhs);
        if r < 0.0 {
            r + rhs.abs()
        } else {
            r
        }
    }
}

/// The `f64` functions.
pub(super) mod double {
    use super::*;

    #[inline(always)]
    pub fn cbrt(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cbrt(x) }
    }

    #[inline(always)]
    pub fn rsqrt(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_rsqrt(x) }
    }

    #[inline(always)]
    pub fn rcbrt(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_rcbrt(x) }
    }

    #[inline(always)]
    pub fn exp(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_exp(x) }
    }

    #[inline(always)]
    pub fn exp2(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_exp2(x) }
    }

    #[inline(always)]
    pub fn exp10(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_exp10(x) }
    }

    #[inline(always)]
    pub fn exp_m1(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_expm1(x) }
    }

    #[inline(always)]
    pub fn ln(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log(x) }
    }

    #[inline(always)]
    pub fn log2(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log2(x) }
    }

    #[inline(always)]
    pub fn log10(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log10(x) }
    }

    #[inline(always)]
    pub fn ln_1p(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_log1p(x) }
    }

    #[inline(always)]
    pub fn sin(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sin(x) }
    }

    #[inline(always)]
    pub fn cos(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cos(x) }
    }

    #[inline(always)]
    pub fn tan(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tan(x) }
    }

    #[inline(always)]
    pub fn sinpi(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sinpi(x) }
    }

    #[inline(always)]
    pub fn cospi(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cospi(x) }
    }

    #[inline(always)]
    pub fn asin(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_asin(x) }
    }

    #[inline(always)]
    pub fn acos(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_acos(x) }
    }

    #[inline(always)]
    pub fn atan(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_atan(x) }
    }

    #[inline(always)]
    pub fn sinh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_sinh(x) }
    }

    #[inline(always)]
    pub fn cosh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_cosh(x) }
    }

    #[inline(always)]
    pub fn tanh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tanh(x) }
    }

    #[inline(always)]
    pub fn asinh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_asinh(x) }
    }

    #[inline(always)]
    pub fn acosh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_acosh(x) }
    }

    #[inline(always)]
    pub fn atanh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_atanh(x) }
    }

    #[inline(always)]
    pub fn erf(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erf(x) }
    }

    #[inline(always)]
    pub fn erfc(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfc(x) }
    }

    #[inline(always)]
    pub fn erfinv(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfinv(x) }
    }

    #[inline(always)]
    pub fn erfcinv(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_erfcinv(x) }
    }

    #[inline(always)]
    pub fn lgamma(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_lgamma(x) }
    }

    #[inline(always)]
    pub fn tgamma(x: f64) -> f64 {
        // SAFETY: a pure function of its argument, defined by cg-builder.
        unsafe { cg_math_tgamma(x) }
    }

    #[inline(always)]
    pub fn powf(x: f64, n: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_pow(x, n) }
    }

    #[inline(always)]
    pub fn atan2(x: f64, other: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_atan2(x, other) }
    }

    #[inline(always)]
    pub fn hypot(x: f64, other: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_hypot(x, other) }
    }

    #[inline(always)]
    pub fn fmod(x: f64, other: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_fmod(x, other) }
    }

    #[inline(always)]
    pub fn remainder(x: f64, other: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_remainder(x, other) }
    }

    #[inline(always)]
    pub fn fdim(x: f64, other: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_fdim(x, other) }
    }

    #[inline(always)]
    pub fn nextafter(x: f64, toward: f64) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_nextafter(x, toward) }
    }

    #[inline(always)]
    pub fn sqrt(x: f64) -> f64 {
        core::f64::math::sqrt(x)
    }

    #[inline(always)]
    pub fn floor(x: f64) -> f64 {
        core::f64::math::floor(x)
    }

    #[inline(always)]
    pub fn ceil(x: f64) -> f64 {
        core::f64::math::ceil(x)
    }

    #[inline(always)]
    pub fn trunc(x: f64) -> f64 {
        core::f64::math::trunc(x)
    }

    #[inline(always)]
    pub fn round(x: f64) -> f64 {
        core::f64::math::round(x)
    }

    #[inline(always)]
    pub fn round_ties_even(x: f64) -> f64 {
        core::f64::math::round_ties_even(x)
    }

    #[inline(always)]
    pub fn fmin(x: f64, other: f64) -> f64 {
        x.min(other)
    }

    #[inline(always)]
    pub fn fmax(x: f64, other: f64) -> f64 {
        x.max(other)
    }

    #[inline(always)]
    pub fn powi(x: f64, n: i32) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_powi(x, n) }
    }

    #[inline(always)]
    pub fn ldexp(x: f64, exp: i32) -> f64 {
        // SAFETY: a pure function of its arguments, defined by cg-builder.
        unsafe { cg_math_ldexp(x, exp) }
    }

    #[inline(always)]
    pub fn frexp(x: f64) -> (f64, i32) {
        // SAFETY: pure functions of their argument, defined by cg-builder.
        unsafe { (cg_math_frexp(x), cg_math_frexp_exp(x)) }
    }

    #[inline(always)]
    pub fn sin_cos(x: f64) -> (f64, f64) {
        // SAFETY: pure functions of their argument, defined by cg-builder.
        unsafe { (cg_math_sincos_sin(x), cg_math_sincos_cos(x)) }
    }

    #[inline(always)]
    pub fn sin_cos_pi(x: f64) -> (f64, f64) {
        // SAFETY: pure functions of their argument, defined by cg-builder.
        unsafe { (cg_math_sincospi_sin(x), cg_math_sincospi_cos(x)) }
    }

    #[inline(always)]
    pub fn fract(x: f64) -> f64 {
        x - trunc(x)
    }

    #[inline(always)]
    pub fn mul_add(x: f64, a: f64, b: f64) -> f64 {
        crate::math::MulAdd::mul_add(x, a, b)
    }

    #[inline(always)]
    pub fn log(x: f64, base: f64) -> f64 {
        ln(x) / ln(base)
    }

    #[inline(always)]
    pub fn div_euclid(x: f64, rhs: f64) -> f64 {
        let q = trunc(x / rhs);
        if fmod(x, rhs) < 0.0 {
            return if rhs > 0.0 { q - 1.0 } else { q + 1.0 };
        }
        q
    }

    #[inline(always)]
    pub fn rem_euclid(x: f64, rhs: f64) -> f64 {
        let r = fmod(x, rhs);
        if r < 0.0 {
            r + rhs.abs()
        } else {
            r
        }
    }
}
