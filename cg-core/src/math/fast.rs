//! CUDA's fast intrinsics for `f32`: the hardware's approximate functions
//! (`__expf`, `__logf`, `__sinf`, `__fdividef`, ...) and the arithmetic
//! with a chosen rounding (`__fadd_rz`, `__fmul_ru`, ...), as the PTX
//! instructions nvcc emits for them (`ex2.approx.f32`, `lg2.approx.f32`,
//! `sin.approx.f32`, `div.approx.f32`, `add.rz.f32`, ...), so on the GPU each
//! gives nvcc's bits.
//!
//! Their errors, as the CUDA Programming Guide states them ("Intrinsic
//! Functions"):
//!
//! | function | CUDA | maximum error |
//! |---|---|---|
//! | [`expf`] | `__expf` | 2 + floor(abs(1.173 * x)) ulp |
//! | [`exp10f`] | `__exp10f` | 2 + floor(abs(2.97 * x)) ulp |
//! | [`logf`] | `__logf` | 2^-21.41 absolute in [0.5, 2], else 3 ulp |
//! | [`log2f`] | `__log2f` | 2^-22 absolute in [0.5, 2], else 2 ulp |
//! | [`log10f`] | `__log10f` | 2^-24 absolute in [0.5, 2], else 3 ulp |
//! | [`sinf`] | `__sinf` | 2^-21.41 absolute in [-pi, pi], larger outside |
//! | [`cosf`] | `__cosf` | 2^-21.19 absolute in [-pi, pi], larger outside |
//! | [`tanf`] | `__tanf` | from `__sinf(x) * (1 / __cosf(x))` |
//! | [`powf`] | `__powf` | from `exp2(y * __log2f(x))` |
//! | [`fdividef`] | `__fdividef` | 2 ulp for 2^-126 <= abs(y) <= 2^126 (else 0 when `y` is above 2^126) |
//! | [`saturatef`] | `__saturatef` | exact |
//! | `fadd_*`, `fsub_*`, `fmul_*`, `fdiv_*` | `__fadd_rn`, `__fadd_rz`, `__fadd_ru`, `__fadd_rd`, ... | exact in their rounding |
//!
//! `KernelBuild::fast_math(true)` makes [`FloatMath`](super::FloatMath)'s
//! `f32` methods what nvcc's `--use_fast_math` makes of CUDA's functions
//! (`sinf` becomes `__sinf`, every `f32` function flushes subnormals to
//! zero, `sqrtf` becomes `sqrt.approx.ftz`); these functions are the same
//! whatever that setting.
//!
//! Off the GPU the approximate functions are computed in `f64` and rounded
//! (well within the bounds above), the rounded arithmetic exactly in its
//! rounding.

#[cfg(target_arch = "nvptx64")]
use crate::intrinsics::fast_f32 as insn;

/// `log2(e)` as nvcc's `__expf` multiplies by it.
const LOG2_E: u32 = 0x3FB8_AA3B;
/// `log2(10)`, for `__exp10f`.
const LOG2_10: u32 = 0x4054_9A78;
/// `ln(2)`, for `__logf`.
const LN_2: u32 = 0x3F31_7218;
/// `log10(2)`, for `__log10f`.
const LOG10_2: u32 = 0x3E9A_209B;

/// `ex2.approx.f32`: `2^x`.
#[inline(always)]
fn ex2(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::ex2_approx(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::host::double::exp2(x as f64) as f32
    }
}

/// `lg2.approx.f32`: `log2(x)`.
#[inline(always)]
fn lg2(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::lg2_approx(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::host::double::log2(x as f64) as f32
    }
}

/// `__expf(x)`: `ex2.approx.f32(x * log2(e))`.
#[inline(always)]
pub fn expf(x: f32) -> f32 {
    ex2(x * f32::from_bits(LOG2_E))
}

/// `__exp10f(x)`: `ex2.approx.f32(x * log2(10))`.
#[inline(always)]
pub fn exp10f(x: f32) -> f32 {
    ex2(x * f32::from_bits(LOG2_10))
}

/// `__logf(x)`: `lg2.approx.f32(x) * ln(2)`.
#[inline(always)]
pub fn logf(x: f32) -> f32 {
    lg2(x) * f32::from_bits(LN_2)
}

/// `__log2f(x)`: `lg2.approx.f32(x)`.
#[inline(always)]
pub fn log2f(x: f32) -> f32 {
    lg2(x)
}

/// `__log10f(x)`: `lg2.approx.f32(x) * log10(2)`.
#[inline(always)]
pub fn log10f(x: f32) -> f32 {
    lg2(x) * f32::from_bits(LOG10_2)
}

/// `__sinf(x)`: `sin.approx.f32`.
#[inline(always)]
pub fn sinf(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::sin_approx(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::host::double::sin(x as f64) as f32
    }
}

/// `__cosf(x)`: `cos.approx.f32`.
#[inline(always)]
pub fn cosf(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::cos_approx(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::host::double::cos(x as f64) as f32
    }
}

/// `__tanf(x)`: `div.approx.f32(sin.approx.f32(x), cos.approx.f32(x))`.
#[inline(always)]
pub fn tanf(x: f32) -> f32 {
    fdividef(sinf(x), cosf(x))
}

/// `__powf(x, y)`: `ex2.approx.f32(lg2.approx.f32(x) * y)`.
#[inline(always)]
pub fn powf(x: f32, y: f32) -> f32 {
    ex2(lg2(x) * y)
}

/// `__fdividef(x, y)`: `div.approx.f32`.
#[inline(always)]
pub fn fdividef(x: f32, y: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::div_approx(x, y)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // div.approx.f32 is x * (1 / y) with 1/y approximate: 0 when
        // |y| is above 2^126.
        if y.abs() > f32::from_bits(0x7E80_0000) && y.is_finite() {
            return (x * 0.0).copysign(x * y.signum());
        }
        (x as f64 / y as f64) as f32
    }
}

/// `__saturatef(x)`: `x` clamped to [+0, 1], NaN to +0 (`cvt.sat.f32.f32`).
#[inline(always)]
pub fn saturatef(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::saturate(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if x.is_nan() || x <= 0.0 {
            0.0
        } else if x >= 1.0 {
            1.0
        } else {
            x
        }
    }
}

/// The rounding of an exact value `hi + lo` (`lo` at most half an `f64`
/// ulp of `hi`, only its sign matters) to `f32`: 0 nearest, 1 toward
/// zero, 2 down, 3 up.
#[cfg(not(target_arch = "nvptx64"))]
fn round_f32(hi: f64, lo: f64, mode: u8) -> f32 {
    let r = hi as f32;
    if mode == 0 || hi.is_nan() {
        return r;
    }
    let rd = r as f64;
    let above = rd > hi || (rd == hi && lo < 0.0);
    let below = rd < hi || (rd == hi && lo > 0.0);
    let value_negative = hi < 0.0 || (hi == 0.0 && lo < 0.0);
    match mode {
        1 if above && !value_negative => libm::nextafterf(r, f32::NEG_INFINITY),
        1 if below && value_negative => libm::nextafterf(r, f32::INFINITY),
        2 if above => libm::nextafterf(r, f32::NEG_INFINITY),
        3 if below => libm::nextafterf(r, f32::INFINITY),
        _ => r,
    }
}

/// `__fadd_rn(a, b)`: `a + b` rounded to nearest even (`add.rn.f32`).
#[inline(always)]
pub fn fadd_rn(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::add_rn(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_add(a, b);
        round_f32(hi, lo, 0)
    }
}

/// `__fadd_rz(a, b)`: `a + b` rounded toward zero (`add.rz.f32`).
#[inline(always)]
pub fn fadd_rz(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::add_rz(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_add(a, b);
        round_f32(hi, lo, 1)
    }
}

/// `__fadd_rd(a, b)`: `a + b` rounded down (toward -inf) (`add.rm.f32`).
#[inline(always)]
pub fn fadd_rd(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::add_rd(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_add(a, b);
        round_f32(hi, lo, 2)
    }
}

/// `__fadd_ru(a, b)`: `a + b` rounded up (toward +inf) (`add.rp.f32`).
#[inline(always)]
pub fn fadd_ru(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::add_ru(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_add(a, b);
        round_f32(hi, lo, 3)
    }
}

/// `__fsub_rn(a, b)`: `a - b` rounded to nearest even (`sub.rn.f32`).
#[inline(always)]
pub fn fsub_rn(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::sub_rn(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_sub(a, b);
        round_f32(hi, lo, 0)
    }
}

/// `__fsub_rz(a, b)`: `a - b` rounded toward zero (`sub.rz.f32`).
#[inline(always)]
pub fn fsub_rz(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::sub_rz(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_sub(a, b);
        round_f32(hi, lo, 1)
    }
}

/// `__fsub_rd(a, b)`: `a - b` rounded down (toward -inf) (`sub.rm.f32`).
#[inline(always)]
pub fn fsub_rd(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::sub_rd(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_sub(a, b);
        round_f32(hi, lo, 2)
    }
}

/// `__fsub_ru(a, b)`: `a - b` rounded up (toward +inf) (`sub.rp.f32`).
#[inline(always)]
pub fn fsub_ru(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::sub_ru(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_sub(a, b);
        round_f32(hi, lo, 3)
    }
}

/// `__fmul_rn(a, b)`: `a * b` rounded to nearest even (`mul.rn.f32`).
#[inline(always)]
pub fn fmul_rn(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::mul_rn(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_mul(a, b);
        round_f32(hi, lo, 0)
    }
}

/// `__fmul_rz(a, b)`: `a * b` rounded toward zero (`mul.rz.f32`).
#[inline(always)]
pub fn fmul_rz(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::mul_rz(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_mul(a, b);
        round_f32(hi, lo, 1)
    }
}

/// `__fmul_rd(a, b)`: `a * b` rounded down (toward -inf) (`mul.rm.f32`).
#[inline(always)]
pub fn fmul_rd(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::mul_rd(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_mul(a, b);
        round_f32(hi, lo, 2)
    }
}

/// `__fmul_ru(a, b)`: `a * b` rounded up (toward +inf) (`mul.rp.f32`).
#[inline(always)]
pub fn fmul_ru(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::mul_ru(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_mul(a, b);
        round_f32(hi, lo, 3)
    }
}

/// `__fdiv_rn(a, b)`: `a / b` rounded to nearest even (`div.rn.f32`).
#[inline(always)]
pub fn fdiv_rn(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::div_rn(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_div(a, b);
        round_f32(hi, lo, 0)
    }
}

/// `__fdiv_rz(a, b)`: `a / b` rounded toward zero (`div.rz.f32`).
#[inline(always)]
pub fn fdiv_rz(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::div_rz(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_div(a, b);
        round_f32(hi, lo, 1)
    }
}

/// `__fdiv_rd(a, b)`: `a / b` rounded down (toward -inf) (`div.rm.f32`).
#[inline(always)]
pub fn fdiv_rd(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::div_rd(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_div(a, b);
        round_f32(hi, lo, 2)
    }
}

/// `__fdiv_ru(a, b)`: `a / b` rounded up (toward +inf) (`div.rp.f32`).
#[inline(always)]
pub fn fdiv_ru(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        insn::div_ru(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (hi, lo) = exact_div(a, b);
        round_f32(hi, lo, 3)
    }
}

/// `a + b` as `hi + lo` exactly (Knuth's two-sum in `f64`).
#[cfg(not(target_arch = "nvptx64"))]
fn exact_add(a: f32, b: f32) -> (f64, f64) {
    let (a, b) = (a as f64, b as f64);
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a - b`, as [`exact_add`].
#[cfg(not(target_arch = "nvptx64"))]
fn exact_sub(a: f32, b: f32) -> (f64, f64) {
    exact_add(a, -b)
}

/// `a * b`: exact in `f64`.
#[cfg(not(target_arch = "nvptx64"))]
fn exact_mul(a: f32, b: f32) -> (f64, f64) {
    (a as f64 * b as f64, 0.0)
}

/// `a / b` as the `f64` quotient and a residual of the sign of the rest.
#[cfg(not(target_arch = "nvptx64"))]
fn exact_div(a: f32, b: f32) -> (f64, f64) {
    let (a, b) = (a as f64, b as f64);
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return (q, 0.0);
    }
    let r = libm::fma(-q, b, a);
    (q, if b < 0.0 { -r } else { r })
}
