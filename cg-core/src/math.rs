//! CUDA's math library in kernels: [`FloatMath`] gives `f32` and `f64`
//! std's float methods (`x.exp()`, `x.sin()`, `x.powf(y)`, ...) and CUDA's
//! others (`x.rsqrt()`, `x.sinpi()`, `x.erfinv()`); [`fast`] holds the fast
//! hardware intrinsics (`__expf`, `__sinf`, `__fdividef`, ...); [`convert`]
//! CUDA's type conversions with a chosen rounding (`__float2int_rn`,
//! `__double2float_rz`, `__ull2double_ru`, `__float2half_rd`, ...), each one
//! `cvt`; [`mul_add`] is the explicit fused multiply-add (CUDA's `fmaf`,
//! `__fmaf_rn`, `fma`).
//!
//! # On the GPU: nvcc's bits
//!
//! Each method calls CUDA's function of the same name as nvcc compiles it:
//! cg-builder compiles one wrapper a function (`cg_math_expf` returns
//! `expf(x)`) with nvcc (`-rdc=true -ptx`, nvcc's default flags but
//! `-fmad`, which follows the build's `FpContract`, below) and puts the
//! definitions the kernel calls into its PTX module, so the code that runs
//! is libdevice's, through NVIDIA's own compiler, and each result is the
//! one nvcc's same call gives, bit for bit. The functions are calls (ptxas
//! does not inline them), except the correctly rounded ones, which are the
//! single instructions nvcc emits for them (`sqrt.rn`, `cvt.rmi`/`rpi`/`rzi`/
//! `rni`, `min`, `max`, `fma.rn`). `KernelBuild::fast_math(true)` is nvcc's
//! `--use_fast_math` for them (see [`fast`]). Building a kernel that calls
//! them needs nvcc (PyPI's `nvidia-cuda-nvcc`, which `scripts/setup`
//! installs).
//!
//! `a * b + c` in a kernel rounds twice, as Rust specifies and as the same
//! code computes on the host, unless the kernel crate is built with
//! `FpContract::Fast` (cg-builder), which lets the compiler fuse it as nvcc
//! does by default. [`mul_add`] is one `fma.rn` whatever the setting. The
//! math functions follow it: nvcc compiles them with `-fmad=false` under
//! `FpContract::Off` and with its default `-fmad=true` under
//! `FpContract::Fast` (NVVM contracts some of libdevice's own products and
//! sums), so that a kernel's results are those of nvcc's build of the same
//! code with the matching `-fmad`.
//!
//! # Off the GPU: within CUDA's bounds
//!
//! On the host (the simulator) the methods are std's where std has them,
//! the `libm` crate's otherwise (`exp10`, `erf`, `erfc`, `lgamma`, `tgamma`,
//! `remainder`, `fdim`, `nextafter`, `ldexp`, `frexp`), and computed here for
//! `rsqrt`, `rcbrt`, `sinpi`, `cospi`, `erfinv`, `erfcinv`. The correctly
//! rounded ones give the GPU's bits; the others stay within the maximum
//! error the CUDA Programming Guide states for the GPU's function ("ulp":
//! units in the last place of the exact result), which the test
//! `cg-core/tests/math_bounds.rs` checks against a more precise reference
//! on random and special inputs:
//!
//! | method | CUDA (`f32`, `f64`) | ulp `f32` | ulp `f64` |
//! |---|---|---|---|
//! | `sqrt` | `sqrtf`, `sqrt` | 0 | 0 |
//! | `rsqrt` | `rsqrtf`, `rsqrt` | 2 | 1 |
//! | `cbrt`, `rcbrt` | `cbrtf`, `rcbrtf`, ... | 1 | 1 |
//! | `exp`, `exp2`, `exp10` | `expf`, `exp2f`, `exp10f`, ... | 2 | 1 |
//! | `exp_m1` | `expm1f`, `expm1` | 1 | 1 |
//! | `ln`, `log2`, `ln_1p` | `logf`, `log2f`, `log1pf`, ... | 1 | 1 |
//! | `log10` | `log10f`, `log10` | 2 | 1 |
//! | `log(base)` | `logf(x) / logf(base)` | — | — |
//! | `powf` | `powf`, `pow` | 4 | 2 |
//! | `powi` | `pow(x, int)` | — | — |
//! | `sin`, `cos`, `sin_cos` | `sinf`, `cosf`, `sincosf`, ... | 2 | 2 |
//! | `tan` | `tanf`, `tan` | 4 | 2 |
//! | `sinpi`, `cospi`, `sin_cos_pi` | `sinpif`, `cospif`, `sincospif`, ... | 1 | 2 |
//! | `asin`, `acos`, `atan` | `asinf`, `acosf`, `atanf`, ... | 2 | 2 |
//! | `atan2` | `atan2f`, `atan2` | 3 | 2 |
//! | `sinh` | `sinhf`, `sinh` | 3 | 2 |
//! | `cosh`, `tanh` | `coshf`, `tanhf`, ... | 2 | 1 |
//! | `asinh` | `asinhf`, `asinh` | 3 | 3 |
//! | `acosh` | `acoshf`, `acosh` | 4 | 3 |
//! | `atanh` | `atanhf`, `atanh` | 3 | 2 |
//! | `erf` | `erff`, `erf` | 2 | 2 |
//! | `erfc` | `erfcf`, `erfc` | 4 | 5 |
//! | `erfinv` | `erfinvf`, `erfinv` | 2 | 5 |
//! | `erfcinv` | `erfcinvf`, `erfcinv` | 4 | 6 |
//! | `lgamma` | `lgammaf`, `lgamma` | 6 (outside -10.001..-2.264) | 4 (outside -11.0001..-2.2637) |
//! | `tgamma` | `tgammaf`, `tgamma` | 5 | 10 |
//! | `hypot` | `hypotf`, `hypot` | 3 | 2 |
//! | `floor`, `ceil`, `trunc`, `round`, `round_ties_even`, `fract` | `floorf`, `ceilf`, `truncf`, `roundf`, `rintf`, ... | 0 | 0 |
//! | `fmod`, `remainder`, `rem_euclid`, `div_euclid` | `fmodf`, `remainderf`, ... | 0 | 0 |
//! | `fdim`, `fmin`, `fmax`, `nextafter` | `fdimf`, `fminf`, `fmaxf`, `nextafterf`, ... | 0 | 0 |
//! | `ldexp`, `frexp` | `ldexpf`, `frexpf`, ... | 0 | 0 |
//! | `mul_add` | `fmaf`, `fma` | 0 | 0 |
//! | `abs`, `copysign`, `min`, `max`, `recip` (`core`'s) | `fabsf`, `copysignf`, `fminf`, `fmaxf`, `1.0f / x` | 0 | 0 |
//!
//! Rust's `%` is not in the table: on the GPU LLVM computes it as
//! `x - trunc(x / y) * y`, which is not exact where the quotient is large;
//! [`FloatMath::fmod`] is CUDA's exact `fmodf`.

use crate::intrinsics;

pub mod convert;
#[cfg(target_arch = "nvptx64")]
mod device;
pub mod fast;
mod float;
#[cfg(not(target_arch = "nvptx64"))]
mod host;

pub use float::FloatMath;

/// A float with a fused multiply-add instruction: `f32`, `f64`, and the
/// half types [`f16`](crate::half::f16) and [`bf16`](crate::half::bf16)
/// (`fma.rn.f16`, CUDA's `__hfma`).
pub trait MulAdd: Copy + sealed::Sealed {
    /// `self * b + c`, rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for crate::half::f16 {}
    impl Sealed for crate::half::bf16 {}
}

impl MulAdd for f32 {
    /// `fma.rn.f32`.
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        intrinsics::fma_rn_f32(self, b, c)
    }
}

impl MulAdd for f64 {
    /// `fma.rn.f64`.
    #[inline(always)]
    fn mul_add(self, b: f64, c: f64) -> f64 {
        intrinsics::fma_rn_f64(self, b, c)
    }
}

impl MulAdd for crate::half::f16 {
    /// `fma.rn.f16` ([`HalfFloat::hfma`](crate::half::HalfFloat::hfma)).
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        crate::half::HalfFloat::hfma(self, b, c)
    }
}

impl MulAdd for crate::half::bf16 {
    /// `fma.rn.bf16` ([`HalfFloat::hfma`](crate::half::HalfFloat::hfma)).
    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        crate::half::HalfFloat::hfma(self, b, c)
    }
}

/// `a * b + c` with a single rounding (to nearest even): one `fma.rn`
/// instruction, CUDA's `fmaf(a, b, c)` / `fma(a, b, c)`.
///
/// ```ignore
/// let y = mul_add(a, x[i], y[i]); // fma.rn.f32
/// ```
#[inline(always)]
pub fn mul_add<T: MulAdd>(a: T, b: T, c: T) -> T {
    a.mul_add(b, c)
}

/// `fma.rn.f32` in the simulator: one rounding, as on the GPU.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
pub(crate) fn host_fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `fma.rn.f64` in the simulator.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
pub(crate) fn host_fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}
