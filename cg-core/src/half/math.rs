//! CUDA's half-precision math functions (`cuda_fp16.h`, `cuda_bf16.h`):
//! [`HalfMath`] for [`f16`](struct@super::f16) and [`bf16`](struct@super::bf16), and the
//! paired forms on [`Half2`].
//!
//! | CUDA | here | on the GPU (sm_80, sm_90) |
//! |---|---|---|
//! | `hsqrt`, `hrsqrt`, `hrcp` | `x.hsqrt()`, `x.hrsqrt()`, `x.hrcp()` | nvcc's: `sqrt`/`rsqrt`/`rcp.approx` in `f32` (`.ftz` for `f16`), `cvt.rn` |
//! | `hexp`, `hexp2`, `hexp10` | `x.hexp()`, ... | nvcc's: `ex2.approx` in `f32`, `f16` with fix-ups of single inputs |
//! | `hlog`, `hlog2`, `hlog10` | `x.hlog()`, ... | nvcc's: `lg2.approx` in `f32`, `f16` with fix-ups |
//! | `hsin`, `hcos` | `x.hsin()`, `x.hcos()` | nvcc's sequences |
//! | `htanh` | `x.htanh()` | nvcc's sequence (`f16`: an `f32` polynomial; `bf16`: `tanh.approx.f32`) |
//! | `htanh_approx` | `x.htanh_approx()` | `tanh.approx.f16`; `bf16`: `tanh.approx.bf16` (sm_90), nvcc's sequence (sm_80) |
//! | `hfloor`, `hceil`, `htrunc`, `hrint` | `x.hfloor()`, ... | `cvt.rmi`/`rpi`/`rzi`/`rni.f16.f16`; `bf16`: `.bf16.bf16` (sm_90), through `f32` (sm_80) |
//! | `h2sqrt`, ..., `h2tanh_approx` | [`Half2::sqrt`], ..., [`Half2::tanh_approx`] | nvcc's paired sequences, `tanh.approx.f16x2` |
//! | `h2floor`, `h2ceil`, `h2trunc`, `h2rint` | [`Half2::floor`], ... | the scalar instruction on each half (as nvcc) |
//!
//! The functions that are one instruction in nvcc's headers are that
//! instruction here (inline PTX); the others are nvcc's compilation of
//! CUDA's own function, linked and inlined by cg-builder as for
//! [`FloatMath`](crate::math::FloatMath) (building a kernel that calls one
//! needs nvcc), so the bits are nvcc's.
//!
//! # Off the GPU
//!
//! The simulator computes the exact value's function in `f64` (the `libm`
//! crate) and rounds once: the correctly rounded result. The GPU's
//! results, every input of each function measured on an H200 (sm_90, and
//! sm_80's code run there; docs/NOTES.md, 2026-11-29), are the same bits
//! except where the table says; `cg-core/tests/half_math.rs` checks the
//! table against those records. CUDA 13's functions are correctly rounded
//! on every input but `htanh_approx`, so the simulator gives the GPU's bits
//! for all of them but that one:
//!
//! | function | `f16`: inputs not correctly rounded, max error | `bf16` |
//! |---|---|---|
#![doc = include_str!("math_bounds.md")]

use super::{Half2, HalfFloat, Kind};

#[cfg(not(target_arch = "nvptx64"))]
use super::host;
#[cfg(target_arch = "nvptx64")]
use crate::intrinsics::half as gpu;

/// One function of a half on the GPU (`intrinsics::half::<t>::$gpu`) or
/// its host model `$host` (an `f64` function rounded once).
macro_rules! functions {
    ($($(#[$doc:meta])* $name:ident => $gpu:ident, $host:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        fn $name(self) -> Self {
            let a = self.bits();
            Self::from_bits16(by_kind!(Self::KIND,
                g => g::$gpu(a),
                F => host::unary::<F>(a, $host)))
        }
    )*};
}

/// CUDA's half-precision math functions (see the module docs for the
/// table of names, instructions and bounds). Sealed: implemented for
/// [`f16`](struct@super::f16) and [`bf16`](struct@super::bf16).
pub trait HalfMath: HalfFloat {
    functions! {
        /// `hsqrt(x)`: the square root.
        hsqrt => sqrt, libm::sqrt;
        /// `hrsqrt(x)`: the reciprocal square root.
        hrsqrt => rsqrt, |x| 1.0 / libm::sqrt(x);
        /// `hrcp(x)`: the reciprocal.
        hrcp => rcp, |x| 1.0 / x;
        /// `hexp(x)`: e^x.
        hexp => exp, libm::exp;
        /// `hexp2(x)`: 2^x.
        hexp2 => exp2, libm::exp2;
        /// `hexp10(x)`: 10^x.
        hexp10 => exp10, libm::exp10;
        /// `hlog(x)`: the natural logarithm.
        hlog => log, libm::log;
        /// `hlog2(x)`: the base-2 logarithm.
        hlog2 => log2, libm::log2;
        /// `hlog10(x)`: the base-10 logarithm.
        hlog10 => log10, libm::log10;
        /// `hsin(x)`: the sine (radians).
        hsin => sin, libm::sin;
        /// `hcos(x)`: the cosine (radians).
        hcos => cos, libm::cos;
        /// `htanh(x)`: the hyperbolic tangent.
        htanh => tanh, libm::tanh;
        /// `htanh_approx(x)`: the hardware's approximate hyperbolic tangent
        /// (`tanh.approx`).
        htanh_approx => tanh_approx, libm::tanh;
        /// `hfloor(x)`: rounded down to an integer (`cvt.rmi`).
        hfloor => floor, libm::floor;
        /// `hceil(x)`: rounded up to an integer (`cvt.rpi`).
        hceil => ceil, libm::ceil;
        /// `htrunc(x)`: rounded toward zero to an integer (`cvt.rzi`).
        htrunc => trunc, libm::trunc;
        /// `hrint(x)`: rounded to the nearest integer, ties to even
        /// (`cvt.rni`).
        hrint => rint, libm::rint;
    }
}

impl HalfMath for super::f16 {}
impl HalfMath for super::bf16 {}

/// A pair's function on the GPU (`intrinsics::half::<t>::$gpu` of the
/// pair's bits), the scalar method `$scalar` on each half elsewhere.
macro_rules! pair_functions {
    ($($(#[$doc:meta])* $name:ident => $gpu:ident, $scalar:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(self) -> Self {
            #[cfg(target_arch = "nvptx64")]
            {
                let a = self.to_bits();
                Half2::from_bits(by_kind!(T::KIND, g => g::$gpu(a), F => unreachable!()))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                Half2::new(self.x.$scalar(), self.y.$scalar())
            }
        }
    )*};
}

impl<T: HalfMath> Half2<T> {
    pair_functions! {
        /// `h2sqrt(a)`: [`HalfMath::hsqrt`] of each half.
        sqrt => sqrt_x2, hsqrt;
        /// `h2rsqrt(a)`: [`HalfMath::hrsqrt`] of each half.
        rsqrt => rsqrt_x2, hrsqrt;
        /// `h2rcp(a)`: [`HalfMath::hrcp`] of each half.
        rcp => rcp_x2, hrcp;
        /// `h2exp(a)`: [`HalfMath::hexp`] of each half.
        exp => exp_x2, hexp;
        /// `h2exp2(a)`: [`HalfMath::hexp2`] of each half.
        exp2 => exp2_x2, hexp2;
        /// `h2exp10(a)`: [`HalfMath::hexp10`] of each half.
        exp10 => exp10_x2, hexp10;
        /// `h2log(a)`: [`HalfMath::hlog`] of each half.
        log => log_x2, hlog;
        /// `h2log2(a)`: [`HalfMath::hlog2`] of each half.
        log2 => log2_x2, hlog2;
        /// `h2log10(a)`: [`HalfMath::hlog10`] of each half.
        log10 => log10_x2, hlog10;
        /// `h2sin(a)`: [`HalfMath::hsin`] of each half.
        sin => sin_x2, hsin;
        /// `h2cos(a)`: [`HalfMath::hcos`] of each half.
        cos => cos_x2, hcos;
        /// `h2tanh(a)`: [`HalfMath::htanh`] of each half.
        tanh => tanh_x2, htanh;
        /// `h2tanh_approx(a)`: [`HalfMath::htanh_approx`] of each half
        /// (`tanh.approx.f16x2`).
        tanh_approx => tanh_approx_x2, htanh_approx;
    }

    /// `h2floor(a)`: [`HalfMath::hfloor`] of each half.
    #[inline(always)]
    pub fn floor(self) -> Self {
        Half2::new(self.x.hfloor(), self.y.hfloor())
    }

    /// `h2ceil(a)`: [`HalfMath::hceil`] of each half.
    #[inline(always)]
    pub fn ceil(self) -> Self {
        Half2::new(self.x.hceil(), self.y.hceil())
    }

    /// `h2trunc(a)`: [`HalfMath::htrunc`] of each half.
    #[inline(always)]
    pub fn trunc(self) -> Self {
        Half2::new(self.x.htrunc(), self.y.htrunc())
    }

    /// `h2rint(a)`: [`HalfMath::hrint`] of each half.
    #[inline(always)]
    pub fn rint(self) -> Self {
        Half2::new(self.x.hrint(), self.y.hrint())
    }
}
