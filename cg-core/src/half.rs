//! Half precision in kernels: the `half` crate's [`f16`](struct@f16) and [`bf16`] (CUDA's
//! `__half` and `__nv_bfloat16`), plain old data, with CUDA's arithmetic
//! and conversions through PTX's half-precision instructions
//! ([`HalfFloat`]), and the pairs [`Half2`] (`__half2`, `__nv_bfloat162`)
//! that compute two at once.
//!
//! ```ignore
//! use cg_core::prelude::*;
//!
//! let x = f16::from_float(input[i]);          // cvt.rn.f16.f32
//! let y = x.hfma(scale, bias);                // fma.rn.f16
//! let s = reduce(&tile, y, Plus);             // add.rn.f16 between shuffles
//! let p = Half2::new(x, y) * Half2::splat(w); // mul.rn.f16x2
//! ```
//!
//! # The operations
//!
//! | CUDA | here | PTX (sm_90) | PTX (sm_80) |
//! |---|---|---|---|
//! | `__hadd(a, b)`, `a + b` | `a.hadd(b)` | `add.rn.f16`, `add.rn.bf16` | `bf16`: `fma.rn.bf16 a, 1.0, b` |
//! | `__hsub(a, b)`, `a - b` | `a.hsub(b)` | `sub.rn.{f16,bf16}` | `bf16`: `fma.rn.bf16 b, -1.0, a` |
//! | `__hmul(a, b)`, `a * b` | `a.hmul(b)` | `mul.rn.{f16,bf16}` | `bf16`: `fma.rn.bf16 a, b, -0.0` |
//! | `__hdiv(a, b)`, `a / b` | `a.hdiv(b)` | nvcc's sequence: `rcp.approx.ftz.f32` and a correction (`f16`), `div.approx.f32` (`bf16`), then `cvt.rn` | the same |
//! | `__hfma(a, b, c)` | `a.hfma(b, c)`, [`mul_add`](crate::math::mul_add) | `fma.rn.{f16,bf16}` | the same |
//! | `__hneg(a)`, `-a` | `a.hneg()` | `neg.{f16,bf16}` | the same |
//! | `__habs(a)` | `a.habs()` | `abs.{f16,bf16}` | the same |
//! | `__hmin(a, b)`, `__hmax(a, b)` | `a.hmin(b)`, `a.hmax(b)` | `min`, `max` | the same |
//! | `__heq`, `__hlt`, ..., `a < b` | `a == b`, `a < b`, ... (the `half` crate's) | integer compares | the same |
//! | `__float2half_rn(x)`, `__float2bfloat16_rn(x)` | `f16::from_float(x)` | `cvt.rn.{f16,bf16}.f32` | the same |
//! | `__double2half(x)`, `__double2bfloat16(x)` | `f16::from_double(x)` | `cvt.rn.{f16,bf16}.f64` | `bf16`: rounded to odd in `f32`, then `cvt.rn.bf16.f32` |
//! | `__int2half_rn(i)`, `__uint2half_rn(u)` | `f16::from_int(i)`, `f16::from_uint(u)` | `cvt.rn.{f16,bf16}.{s32,u32}` | `bf16`: through `f64`, as above |
//! | `__half2float(h)`, `__bfloat162float(h)` | `h.to_float()` | `cvt.f32.f16`; `bf16`: the bits shifted | the same |
//! | `__half2int_rz(h)`, `__half2uint_rz(h)` | `h.to_int()`, `h.to_uint()` | `cvt.rzi.{s32,u32}.{f16,bf16}` | `bf16`: through `f32` |
//! | `__half2int_rn`, `__half2short_ru`, `__ll2half_rd`, `__ushort2bfloat16_rz`, ... (every integer type, each rounding) | [`math::convert`](crate::math::convert): `half2int_rn(h)`, `ll2half_rd(i)`, ... | `cvt.rni.s32.f16`, `cvt.rm.f16.s64`, ... | `bf16`: through `f32` |
//! | `__half2`, `__hadd2`, `__hfma2`, ... | [`Half2`]: `a + b`, `a.mul_add(b, c)`, ... | `add.rn.f16x2`, `fma.rn.f16x2`, ... | `bf16x2`: `fma.rn.bf16x2` with constants |
//! | `__hmin_nan(a, b)`, `__hmax_nan(a, b)` | `a.hmin_nan(b)`, `a.hmax_nan(b)` | `min.NaN`, `max.NaN` | the same |
//! | `__hfma_relu(a, b, c)` | `a.hfma_relu(b, c)` | `fma.rn.relu` | the same |
//! | `__hadd_sat`, `__hsub_sat`, `__hmul_sat`, `__hfma_sat` | `a.hadd_sat(b)`, ..., `a.hfma_sat(b, c)` | `add.sat.f16`, ..., `fma.rn.sat.f16`; `bf16`: nvcc's `fma.rn`, `max` with 0, `min` with 1 | the same |
//! | `hsqrt`, `hexp`, `hsin`, `hfloor`, ... | [`HalfMath`]: `x.hsqrt()`, ... | see [`HalfMath`] | |
//!
//! The names are CUDA's without the underscores: `half`'s types have
//! inherent `from_f32`, `to_f32`, `min` and `max`, computed in software,
//! which a trait method of the same name could not override. `half`'s
//! operators (`a + b`, `a * b`, ...) work in kernels too and give the same
//! values (they compute in `f32` and round once more, which is exact
//! here), but they convert in software (tens of instructions each) and
//! their NaNs carry payloads: [`HalfFloat`]'s methods are the hardware's.
//!
//! The arithmetic is never contracted: `a.hmul(b).hadd(c)` rounds twice
//! (the instructions carry `.rn`, CUDA's `__hmul_rn`/`__hadd_rn`), where
//! nvcc may fuse `__hmul` and `__hadd` into one `fma`; write `hfma` for one
//! rounding.
//!
//! # The bits
//!
//! Every operation gives the correctly rounded result (to nearest, ties to
//! even, subnormals kept), nvcc's `__hdiv` included (checked over all 2^32
//! pairs of each type on an H200), and every NaN an arithmetic instruction
//! or `__hneg`/`__habs` returns is the canonical `0x7fff`. The host (the
//! simulator) computes the same bits in `f64`. `to_float` of an `f16` NaN is
//! `0x7fffffff`; of a `bf16` NaN, its bits shifted (nvcc's
//! `__bfloat162float`).
//!
//! # Collectives
//!
//! [`f16`](struct@f16), [`bf16`] and [`Half2`] are [`Pod`] values of 2 and 4 bytes:
//! shuffles move them in one `shfl.sync`, and [`reduce`](crate::collectives::reduce)
//! and the scans take them with [`Plus`](crate::collectives::Plus) (through
//! `hadd`, as `cg::plus<__half>` is `__hadd`), [`Less`](crate::collectives::Less)
//! and [`Greater`](crate::collectives::Greater) (for the scalars), in
//! nvcc's order, so that the results are `cg::reduce`'s bits.

pub use ::half::{bf16, f16};

use crate::Pod;

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) mod host;

#[cfg(target_arch = "nvptx64")]
use crate::intrinsics::half as gpu;

/// Which half format a [`HalfFloat`] is.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
}

/// One expression for both formats: `$g` names the format's GPU
/// instructions (`intrinsics::half::f16` or `::bf16`) on the GPU, `$f`
/// its host format (`host::F16` or `host::Bf16`) elsewhere.
macro_rules! by_kind {
    ($kind:expr, $g:ident => $gpu:expr, $f:ident => $host:expr) => {
        match $kind {
            Kind::F16 => {
                #[cfg(target_arch = "nvptx64")]
                {
                    use gpu::f16 as $g;
                    $gpu
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    type $f = host::F16;
                    $host
                }
            }
            Kind::Bf16 => {
                #[cfg(target_arch = "nvptx64")]
                {
                    use gpu::bf16 as $g;
                    $gpu
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    type $f = host::Bf16;
                    $host
                }
            }
        }
    };
}

mod math;
pub use math::HalfMath;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::f16 {}
    impl Sealed for super::bf16 {}
}

/// CUDA's half-precision arithmetic and conversions for [`f16`](struct@f16) and
/// [`bf16`] (see the module docs for the table of names and
/// instructions). Sealed.
pub trait HalfFloat: Pod + PartialOrd + core::fmt::Debug + sealed::Sealed {
    #[doc(hidden)]
    const KIND: Kind;

    /// The value's bits.
    fn bits(self) -> u16;

    /// The value with these bits.
    fn from_bits16(bits: u16) -> Self;

    /// `__float2half_rn(x)` / `__float2bfloat16_rn(x)`: `x` rounded to
    /// nearest even (`cvt.rn.f16.f32`); NaN to `0x7fff`.
    #[inline(always)]
    fn from_float(x: f32) -> Self {
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::from_f32(x),
            F => host::round::<F>(x as f64)))
    }

    /// `__double2half(x)` / `__double2bfloat16(x)`: `x` rounded once, to
    /// nearest even (`cvt.rn.f16.f64`). A NaN keeps its sign and the top
    /// of its payload, quieted; below sm_90 a `bf16` NaN is `0x7fff`
    /// (nvcc's path there goes through `f32`).
    #[inline(always)]
    fn from_double(x: f64) -> Self {
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::from_f64(x),
            F => host::from_f64::<F>(x)))
    }

    /// `__int2half_rn(i)` / `__int2bfloat16_rn(i)`: rounded to nearest even.
    #[inline(always)]
    fn from_int(i: i32) -> Self {
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::from_i32(i),
            F => host::round::<F>(i as f64)))
    }

    /// `__uint2half_rn(u)` / `__uint2bfloat16_rn(u)`: rounded to nearest
    /// even.
    #[inline(always)]
    fn from_uint(u: u32) -> Self {
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::from_u32(u),
            F => host::round::<F>(u as f64)))
    }

    /// `__half2float(h)` / `__bfloat162float(h)`: the exact value. An `f16`
    /// NaN becomes `0x7fffffff`; a `bf16` NaN keeps its bits (shifted).
    #[inline(always)]
    fn to_float(self) -> f32 {
        let b = self.bits();
        match Self::KIND {
            Kind::Bf16 => f32::from_bits((b as u32) << 16),
            Kind::F16 => {
                #[cfg(target_arch = "nvptx64")]
                {
                    gpu::f16_to_f32(b)
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    if host::is_nan::<host::F16>(b) {
                        f32::from_bits(0x7fff_ffff)
                    } else {
                        host::to_f64::<host::F16>(b) as f32
                    }
                }
            }
        }
    }

    /// `__half2int_rz(h)` / `__bfloat162int_rz(h)`: toward zero, saturated,
    /// NaN to 0 (Rust's `as i32`).
    #[inline(always)]
    fn to_int(self) -> i32 {
        by_kind!(Self::KIND, g => g::to_i32(self.bits()), F => host::to_i32::<F>(self.bits()))
    }

    /// `__half2uint_rz(h)` / `__bfloat162uint_rz(h)`: toward zero,
    /// saturated (negative to 0), NaN to 0 (Rust's `as u32`).
    #[inline(always)]
    fn to_uint(self) -> u32 {
        by_kind!(Self::KIND, g => g::to_u32(self.bits()), F => host::to_u32::<F>(self.bits()))
    }

    /// `__hadd(a, b)`: `a + b` rounded to nearest even (`add.rn`).
    #[inline(always)]
    fn hadd(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::add(x, y),
            F => host::binary::<F>(x, y, |p, q| p + q)))
    }

    /// `__hsub(a, b)`: `a - b` rounded to nearest even (`sub.rn`).
    #[inline(always)]
    fn hsub(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::sub(x, y),
            F => host::binary::<F>(x, y, |p, q| p - q)))
    }

    /// `__hmul(a, b)`: `a * b` rounded to nearest even (`mul.rn`).
    #[inline(always)]
    fn hmul(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::mul(x, y),
            F => host::binary::<F>(x, y, |p, q| p * q)))
    }

    /// `__hdiv(a, b)`: `a / b`, correctly rounded (nvcc's instruction
    /// sequence, see the module docs).
    #[inline(always)]
    fn hdiv(self, b: Self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            device_div(self, b)
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let (x, y) = (self.bits(), b.bits());
            Self::from_bits16(by_kind!(Self::KIND,
                g => unreachable!(),
                F => host::binary::<F>(x, y, |p, q| p / q)))
        }
    }

    /// `__hfma(a, b, c)`: `a * b + c` rounded once (`fma.rn`).
    #[inline(always)]
    fn hfma(self, b: Self, c: Self) -> Self {
        let (x, y, z) = (self.bits(), b.bits(), c.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::fma(x, y, z),
            F => host::fma::<F>(x, y, z)))
    }

    /// `__hneg(a)`: the sign flipped; NaN to `0x7fff` (`neg`).
    #[inline(always)]
    fn hneg(self) -> Self {
        let x = self.bits();
        Self::from_bits16(by_kind!(Self::KIND, g => g::neg(x), F => host::sign::<F>(x, false)))
    }

    /// `__habs(a)`: the sign cleared; NaN to `0x7fff` (`abs`).
    #[inline(always)]
    fn habs(self) -> Self {
        let x = self.bits();
        Self::from_bits16(by_kind!(Self::KIND, g => g::abs(x), F => host::sign::<F>(x, true)))
    }

    /// `__hmin(a, b)`: the smaller; the other where one is NaN, `0x7fff`
    /// where both are; `-0 < +0` (`min`).
    #[inline(always)]
    fn hmin(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::min(x, y),
            F => host::min_max::<F>(x, y, false)))
    }

    /// `__hmax(a, b)`: the larger; the other where one is NaN, `0x7fff`
    /// where both are; `-0 < +0` (`max`).
    #[inline(always)]
    fn hmax(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::max(x, y),
            F => host::min_max::<F>(x, y, true)))
    }

    /// `__hmin_nan(a, b)`: the smaller; `0x7fff` where either is NaN
    /// (`min.NaN`).
    #[inline(always)]
    fn hmin_nan(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::min_nan(x, y),
            F => host::min_max_nan::<F>(x, y, false)))
    }

    /// `__hmax_nan(a, b)`: the larger; `0x7fff` where either is NaN
    /// (`max.NaN`).
    #[inline(always)]
    fn hmax_nan(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::max_nan(x, y),
            F => host::min_max_nan::<F>(x, y, true)))
    }

    /// `__hadd_sat(a, b)`: `a + b` rounded, then clamped to `[+0, 1]`
    /// (NaN to `+0`): `add.sat.f16`; `bf16`: `fma.rn`, `max`, `min`, as
    /// nvcc.
    #[inline(always)]
    fn hadd_sat(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::add_sat(x, y),
            F => host::saturate::<F>(host::binary::<F>(x, y, |p, q| p + q))))
    }

    /// `__hsub_sat(a, b)`: `a - b` rounded, then clamped to `[+0, 1]`.
    #[inline(always)]
    fn hsub_sat(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::sub_sat(x, y),
            F => host::saturate::<F>(host::binary::<F>(x, y, |p, q| p - q))))
    }

    /// `__hmul_sat(a, b)`: `a * b` rounded, then clamped to `[+0, 1]`.
    #[inline(always)]
    fn hmul_sat(self, b: Self) -> Self {
        let (x, y) = (self.bits(), b.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::mul_sat(x, y),
            F => host::saturate::<F>(host::binary::<F>(x, y, |p, q| p * q))))
    }

    /// `__hfma_sat(a, b, c)`: `a * b + c` rounded once, then clamped to
    /// `[+0, 1]`.
    #[inline(always)]
    fn hfma_sat(self, b: Self, c: Self) -> Self {
        let (x, y, z) = (self.bits(), b.bits(), c.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::fma_sat(x, y, z),
            F => host::saturate::<F>(host::fma::<F>(x, y, z))))
    }

    /// `__hfma_relu(a, b, c)`: `a * b + c` rounded once, a negative result
    /// to `+0` (`fma.rn.relu`).
    #[inline(always)]
    fn hfma_relu(self, b: Self, c: Self) -> Self {
        let (x, y, z) = (self.bits(), b.bits(), c.bits());
        Self::from_bits16(by_kind!(Self::KIND,
            g => g::fma_relu(x, y, z),
            F => host::fma_relu::<F>(x, y, z)))
    }
}

impl HalfFloat for f16 {
    const KIND: Kind = Kind::F16;
    #[inline(always)]
    fn bits(self) -> u16 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits16(bits: u16) -> Self {
        f16::from_bits(bits)
    }
}

impl HalfFloat for bf16 {
    const KIND: Kind = Kind::Bf16;
    #[inline(always)]
    fn bits(self) -> u16 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits16(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
}

/// nvcc's `__hdiv` on the GPU, instruction for instruction.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn device_div<T: HalfFloat>(a: T, b: T) -> T {
    use crate::intrinsics::{fma_rn_f32, half as gpu};
    let (fa, fb) = (a.to_float(), b.to_float());
    match T::KIND {
        Kind::F16 => {
            // The reciprocal's product, corrected where the result is a
            // small subnormal (below 0x008f), where one rounding of the
            // approximation is not enough.
            let rcp = gpu::rcp_approx_ftz_f32(fb);
            let mut fv = rcp * fa;
            let mut v = gpu::f16::from_f32(fv);
            let magnitude = v & 0x7fff;
            if magnitude < 0x008f && magnitude > 0 {
                let err = fma_rn_f32(-fb, fv, fa);
                fv = fma_rn_f32(rcp, err, fv);
                v = gpu::f16::from_f32(fv);
            }
            T::from_bits16(v)
        }
        Kind::Bf16 => {
            // The approximate quotient, with a huge divisor scaled down
            // first and the quotient back up without flushing to zero.
            let big = f32::from_bits(fb.to_bits() & 0x7fff_ffff) >= f32::from_bits(0x7e80_0000);
            let divisor = if big { fb * 0.25 } else { fb };
            let mut q = gpu::div_approx_f32(fa, divisor);
            if big {
                q = fma_rn_f32(q, 0.25, -0.0);
            }
            T::from_bits16(gpu::bf16::from_f32(q))
        }
    }
}

/// A pair of halves computed together: CUDA's `__half2` (`Half2<f16>`) and
/// `__nv_bfloat162` (`Half2<bf16>`), 4-byte aligned, `x` in the low half
/// (CUDA's `.x`). The operators are the paired instructions: `a + b` is
/// `add.rn.f16x2` (`__hadd2`), `a * b` `mul.rn.f16x2` (`__hmul2`),
/// `a.mul_add(b, c)` `fma.rn.f16x2` (`__hfma2`); `a / b` is `__h2div`,
/// two [`hdiv`](HalfFloat::hdiv).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(4))]
pub struct Half2<T> {
    /// The low half (CUDA's `.x`).
    pub x: T,
    /// The high half (CUDA's `.y`).
    pub y: T,
}

// SAFETY: two 2-byte halves and 4-byte alignment: no padding; every bit
// pattern of a half is a value, so of the pair too; all zero is (0, 0).
unsafe impl<T: HalfFloat> bytemuck::Zeroable for Half2<T> {}
// SAFETY: as above; `T: Pod` is `Copy + 'static`.
unsafe impl<T: HalfFloat> bytemuck::Pod for Half2<T> {}

/// A paired instruction on the GPU (`$paired`, on the pairs' bits), the
/// scalar method `$scalar` on each half elsewhere; `$b` is the second
/// operand, if any.
macro_rules! paired {
    ($a:expr, $scalar:ident, $paired:ident $(, $b:expr)?) => {{
        #[cfg(target_arch = "nvptx64")]
        {
            Half2::from_bits(by_kind!(T::KIND,
                g => g::$paired($a.to_bits() $(, $b.to_bits())?),
                F => unreachable!()))
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Half2::new($a.x.$scalar($($b.x)?), $a.y.$scalar($($b.y)?))
        }
    }};
}

impl<T: HalfFloat> Half2<T> {
    /// `make_half2(x, y)` / `__halves2half2(x, y)`.
    #[inline(always)]
    pub const fn new(x: T, y: T) -> Self {
        Half2 { x, y }
    }

    /// `__half2half2(v)`: both halves `v`.
    #[inline(always)]
    pub const fn splat(v: T) -> Self {
        Half2 { x: v, y: v }
    }

    /// `__floats2half2_rn(x, y)` / `__floats2bfloat162_rn(x, y)`: both
    /// rounded to nearest even (`cvt.rn.f16x2.f32`).
    #[inline(always)]
    pub fn from_floats(x: f32, y: f32) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            Self::from_bits(by_kind!(T::KIND, g => g::from_f32x2(x, y), F => unreachable!()))
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Half2::new(T::from_float(x), T::from_float(y))
        }
    }

    /// `__half22float2(v)`: both halves as `f32` ([`HalfFloat::to_float`]).
    #[inline(always)]
    pub fn to_floats(self) -> [f32; 2] {
        [self.x.to_float(), self.y.to_float()]
    }

    /// The pair's bits, `x` in the low half.
    #[inline(always)]
    pub fn to_bits(self) -> u32 {
        self.x.bits() as u32 | (self.y.bits() as u32) << 16
    }

    /// The pair with these bits.
    #[inline(always)]
    pub fn from_bits(bits: u32) -> Self {
        Half2::new(
            T::from_bits16(bits as u16),
            T::from_bits16((bits >> 16) as u16),
        )
    }

    /// `__hfma2(a, b, c)`: `a * b + c` in each half, rounded once
    /// (`fma.rn.f16x2`).
    #[inline(always)]
    pub fn mul_add(self, b: Self, c: Self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let (p, q, r) = (self.to_bits(), b.to_bits(), c.to_bits());
            Self::from_bits(by_kind!(T::KIND, g => g::fma2(p, q, r), F => unreachable!()))
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Half2::new(self.x.hfma(b.x, c.x), self.y.hfma(b.y, c.y))
        }
    }

    /// `__habs2(a)`: each half's sign cleared (`abs.f16x2`).
    #[inline(always)]
    pub fn abs(self) -> Self {
        paired!(self, habs, abs2)
    }

    /// `__hmin2(a, b)`: each half's minimum (`min.f16x2`).
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        paired!(self, hmin, min2, b)
    }

    /// `__hmax2(a, b)`: each half's maximum (`max.f16x2`).
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        paired!(self, hmax, max2, b)
    }

    /// `__hmin2_nan(a, b)`: each half's [`hmin_nan`](HalfFloat::hmin_nan)
    /// (`min.NaN.f16x2`).
    #[inline(always)]
    pub fn min_nan(self, b: Self) -> Self {
        paired!(self, hmin_nan, min_nan2, b)
    }

    /// `__hmax2_nan(a, b)`: each half's [`hmax_nan`](HalfFloat::hmax_nan)
    /// (`max.NaN.f16x2`).
    #[inline(always)]
    pub fn max_nan(self, b: Self) -> Self {
        paired!(self, hmax_nan, max_nan2, b)
    }

    /// `__hadd2_sat(a, b)`: each half's [`hadd_sat`](HalfFloat::hadd_sat).
    #[inline(always)]
    pub fn add_sat(self, b: Self) -> Self {
        paired!(self, hadd_sat, add_sat2, b)
    }

    /// `__hsub2_sat(a, b)`: each half's [`hsub_sat`](HalfFloat::hsub_sat).
    #[inline(always)]
    pub fn sub_sat(self, b: Self) -> Self {
        paired!(self, hsub_sat, sub_sat2, b)
    }

    /// `__hmul2_sat(a, b)`: each half's [`hmul_sat`](HalfFloat::hmul_sat).
    #[inline(always)]
    pub fn mul_sat(self, b: Self) -> Self {
        paired!(self, hmul_sat, mul_sat2, b)
    }

    /// `__hfma2_sat(a, b, c)`: each half's
    /// [`hfma_sat`](HalfFloat::hfma_sat).
    #[inline(always)]
    pub fn mul_add_sat(self, b: Self, c: Self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let (p, q, r) = (self.to_bits(), b.to_bits(), c.to_bits());
            Self::from_bits(by_kind!(T::KIND, g => g::fma_sat2(p, q, r), F => unreachable!()))
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Half2::new(self.x.hfma_sat(b.x, c.x), self.y.hfma_sat(b.y, c.y))
        }
    }

    /// `__hfma2_relu(a, b, c)`: each half's
    /// [`hfma_relu`](HalfFloat::hfma_relu) (`fma.rn.relu.f16x2`).
    #[inline(always)]
    pub fn mul_add_relu(self, b: Self, c: Self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let (p, q, r) = (self.to_bits(), b.to_bits(), c.to_bits());
            Self::from_bits(by_kind!(T::KIND, g => g::fma_relu2(p, q, r), F => unreachable!()))
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            Half2::new(self.x.hfma_relu(b.x, c.x), self.y.hfma_relu(b.y, c.y))
        }
    }
}

/// The paired operators: `+`, `-`, `*` one instruction for both halves,
/// `/` two `hdiv`, unary `-` `neg.f16x2`.
macro_rules! pair_op {
    ($($trait:ident $method:ident: $scalar:ident, $paired:ident;)*) => {$(
        impl<T: HalfFloat> core::ops::$trait for Half2<T> {
            type Output = Self;
            #[doc = concat!("`", stringify!($paired), "` on the pair (the host: `", stringify!($scalar), "` on each half).")]
            #[inline(always)]
            fn $method(self, b: Self) -> Self {
                paired!(self, $scalar, $paired, b)
            }
        }
    )*};
}

pair_op! {
    Add add: hadd, add2;
    Sub sub: hsub, sub2;
    Mul mul: hmul, mul2;
}

impl<T: HalfFloat> core::ops::Div for Half2<T> {
    type Output = Self;
    /// `__h2div(a, b)`: [`HalfFloat::hdiv`] on each half.
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        Half2::new(self.x.hdiv(b.x), self.y.hdiv(b.y))
    }
}

impl<T: HalfFloat> core::ops::Neg for Half2<T> {
    type Output = Self;
    /// `__hneg2(a)`: `neg.f16x2`.
    #[inline(always)]
    fn neg(self) -> Self {
        paired!(self, hneg, neg2)
    }
}

/// `a + b` as CUDA's `operator+` computes it: [`HalfFloat::hadd`] for
/// [`f16`] and [`bf16`] (whose `half` crate `+` converts in software),
/// `add` for every other type. The type test folds at compile time.
#[inline(always)]
pub(crate) fn add_as_cuda<T: Pod>(a: T, b: T, add: impl FnOnce(T, T) -> T) -> T {
    use crate::shuffle::{bits32, from_bits32};
    use core::any::TypeId;
    fn hadd<H: HalfFloat, T: Pod>(a: T, b: T) -> T {
        let sum = from_bits32::<H>(bits32(a)).hadd(from_bits32::<H>(bits32(b)));
        from_bits32(bits32(sum))
    }
    let t = TypeId::of::<T>();
    if t == TypeId::of::<f16>() {
        hadd::<f16, T>(a, b)
    } else if t == TypeId::of::<bf16>() {
        hadd::<bf16, T>(a, b)
    } else {
        add(a, b)
    }
}
