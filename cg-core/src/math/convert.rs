//! CUDA's type conversions with a chosen rounding ("Type Casting
//! Intrinsics" of CUDA's math API, and the rounded conversions to `__half`
//! and `__nv_bfloat16`): `__float2int_rn`, `__double2ull_rd`,
//! `__ll2float_ru`, `__double2float_rz`, `__float2half_rd`, ... under their
//! CUDA names without the leading underscores. Each is the one PTX `cvt`
//! instruction nvcc emits for it (sm_90):
//!
//! | CUDA | here | PTX |
//! |---|---|---|
//! | `__float2int_rn`, `_rz`, `_ru`, `_rd` | [`float2int_rn`], [`float2int_rz`], [`float2int_ru`], [`float2int_rd`] | `cvt.rni.s32.f32`, `cvt.rzi`, `cvt.rpi`, `cvt.rmi` |
//! | `__float2uint_rn`, ... | [`float2uint_rn`], ... | `cvt.rni.u32.f32`, ... |
//! | `__float2ll_rn`, ... | [`float2ll_rn`], ... | `cvt.rni.s64.f32`, ... |
//! | `__float2ull_rn`, ... | [`float2ull_rn`], ... | `cvt.rni.u64.f32`, ... |
//! | `__double2int_rn`, ... | [`double2int_rn`], ... | `cvt.rni.s32.f64`, ... |
//! | `__double2uint_rn`, ... | [`double2uint_rn`], ... | `cvt.rni.u32.f64`, ... |
//! | `__double2ll_rn`, ... | [`double2ll_rn`], ... | `cvt.rni.s64.f64`, ... |
//! | `__double2ull_rn`, ... | [`double2ull_rn`], ... | `cvt.rni.u64.f64`, ... |
//! | `__double2float_rn`, `_rz`, `_ru`, `_rd` | [`double2float_rn`], ... | `cvt.rn.f32.f64`, `cvt.rz`, `cvt.rp`, `cvt.rm` |
//! | `__int2float_rn`, ... | [`int2float_rn`], ... | `cvt.rn.f32.s32`, ... |
//! | `__uint2float_rn`, ... | [`uint2float_rn`], ... | `cvt.rn.f32.u32`, ... |
//! | `__ll2float_rn`, ... | [`ll2float_rn`], ... | `cvt.rn.f32.s64`, ... |
//! | `__ull2float_rn`, ... | [`ull2float_rn`], ... | `cvt.rn.f32.u64`, ... |
//! | `__int2double_rn`, `__uint2double_rn` | [`int2double_rn`], [`uint2double_rn`] | `cvt.rn.f64.s32`, `cvt.rn.f64.u32` (exact) |
//! | `__ll2double_rn`, ... | [`ll2double_rn`], ... | `cvt.rn.f64.s64`, ... |
//! | `__ull2double_rn`, ... | [`ull2double_rn`], ... | `cvt.rn.f64.u64`, ... |
//! | `__float2half`, `__float2half_rn`, `_rz`, `_ru`, `_rd` | [`float2half`], [`float2half_rn`], ... | `cvt.rn.f16.f32`, `cvt.rz`, `cvt.rp`, `cvt.rm` |
//! | `__float2bfloat16`, `__float2bfloat16_rn`, `_rz`, `_ru`, `_rd` | [`float2bfloat16`], [`float2bfloat16_rn`], ... | `cvt.rn.bf16.f32`, `cvt.rz`, `cvt.rp`, `cvt.rm` (sm_90; below it `_ru` and `_rd` are nvcc's integer sequence on the bits) |
//! | `__double2half`, `__double2bfloat16` | [`double2half`], [`double2bfloat16`] | `cvt.rn.f16.f64`, `cvt.rn.bf16.f64` (see [`HalfFloat::from_double`]) |
//! | `__double2hiint`, `__double2loint`, `__hiloint2double` | [`double2hiint`], [`double2loint`], [`hiloint2double`] | the halves of a 64-bit register (`mov.b64`) |
//! | `__saturatef` | [`fast::saturatef`](super::fast::saturatef) | `cvt.sat.f32.f32` |
//! | `cuda::std::saturating_cast<T>(x)` (libcu++) | [`saturating_cast::<T, _>(x)`](saturating_cast) | `cvt.sat.<T>.<x's type>` where `T` cannot hold every value of `x`'s type (`cvt.sat.s8.s32`, `cvt.sat.u16.s64`, ...); else no instruction |
//! | `__float_as_int`, `__int_as_float`, `__double_as_longlong`, ... | `x.to_bits() as i32`, `f32::from_bits(i as u32)`, ... (`core`'s) | no instruction |
//!
//! `_rn` rounds to the nearest value, ties to even; `_rz` toward zero;
//! `_ru` up (toward +inf); `_rd` down (toward -inf). Subnormal inputs and
//! results are kept (no `.ftz`).
//!
//! # Integers from floats
//!
//! The value rounded to an integer in the function's rounding, then
//! clamped to the integer type's range (infinities included: `-inf` gives
//! the type's minimum, `+inf` its maximum, a negative value 0 for the
//! unsigned types). A NaN gives, as PTX's `cvt` defines it, 0 from an
//! `f32` into a 32-bit integer, and `1 << (bits - 1)` otherwise
//! (`0x8000_0000` from an `f64` into `i32` or `u32`, `1 << 63` into `i64`
//! or `u64`).
//!
//! # Floats from floats and integers
//!
//! Correctly rounded in the function's rounding: `_rz` and the direction
//! away from an infinity never overflow (`double2float_rz(1e300)` is
//! `f32::MAX`), the others overflow to infinity as IEEE 754 says; a zero
//! keeps its sign, a float rounded to zero keeps the sign of the value. An
//! `f16` or `bf16` NaN is the canonical `0x7fff`.
//!
//! # Integers from integers
//!
//! CUDA's math API has no saturating integer conversion; libcu++'s
//! `cuda::std::saturating_cast` (C++26's `saturate_cast`) is PTX's `cvt.sat`
//! between integer types, and [`saturating_cast`] is the same: `x` where
//! the target type holds it, else the target's limit on `x`'s side.
//!
//! # Off the GPU
//!
//! The host (the simulator) computes the same bits exactly: the nearest
//! value first (Rust's `as`, the half types' rounding), then, where the
//! rounding is directed and the nearest value lies on the wrong side of
//! the exact one (compared exactly, in `f64` or `i128`), its neighbour.
//! Only the payload of an `f32` NaN from an `f64` NaN is the host's (Rust's
//! `as`: the sign and the top of the payload, quieted).

use crate::half::{bf16, f16, HalfFloat};

#[cfg(not(target_arch = "nvptx64"))]
mod host;
#[cfg(not(target_arch = "nvptx64"))]
use host::Rounding;

/// Four functions, one per rounding, of one conversion: `int` (to an
/// integer: PTX's `.rni`, `.rzi`, `.rpi`, `.rmi`) or `float` (to a float:
/// `.rn`, `.rz`, `.rp`, `.rm`); `$types` the instruction's types
/// (`"s32.f32"`), `$rin`/`$rout` the operand's and result's registers,
/// `$what` the result in words, `|x, m| host` the host's value of `x` in
/// rounding `m`.
macro_rules! rounded {
    (int $($rest:tt)*) => { rounded!(@four ["rni", "rzi", "rpi", "rmi"] $($rest)*); };
    (float $($rest:tt)*) => { rounded!(@four ["rn", "rz", "rp", "rm"] $($rest)*); };
    (@four [$pn:literal, $pz:literal, $pu:literal, $pd:literal] $from:ty => $to:ty, $types:literal,
     $rin:ident => $rout:ident, $what:literal, [$rn:ident, $rz:ident, $ru:ident, $rd:ident],
     |$x:ident, $m:ident| $host:expr) => {
        rounded!(@one $pn, Nearest, "to the nearest (ties to even)", $rn, $from => $to, $types,
                 $rin => $rout, $what, |$x, $m| $host);
        rounded!(@one $pz, Zero, "toward zero", $rz, $from => $to, $types, $rin => $rout, $what,
                 |$x, $m| $host);
        rounded!(@one $pu, Up, "up (toward +inf)", $ru, $from => $to, $types, $rin => $rout,
                 $what, |$x, $m| $host);
        rounded!(@one $pd, Down, "down (toward -inf)", $rd, $from => $to, $types, $rin => $rout,
                 $what, |$x, $m| $host);
    };
    (@one $p:literal, $mode:ident, $how:literal, $name:ident, $from:ty => $to:ty, $types:literal,
     $rin:ident => $rout:ident, $what:literal, |$x:ident, $m:ident| $host:expr) => {
        #[doc = concat!("`__", stringify!($name), "(x)`: `x` as ", $what, ", rounded ", $how,
                        ": `cvt.", $p, ".", $types, "`.")]
        #[inline(always)]
        pub fn $name($x: $from) -> $to {
            #[cfg(target_arch = "nvptx64")]
            {
                crate::intrinsics::cvt!(concat!("cvt.", $p, ".", $types), $x, $from => $to,
                                        $rin => $rout)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let $m = Rounding::$mode;
                $host
            }
        }
    };
}

rounded!(int f32 => i32, "s32.f32", reg32 => reg32,
    "an `i32` (clamped to its range, NaN to 0)",
    [float2int_rn, float2int_rz, float2int_ru, float2int_rd],
    |x, m| if x.is_nan() { 0 } else { host::integral(x as f64, m) as i32 });
rounded!(int f32 => u32, "u32.f32", reg32 => reg32,
    "a `u32` (clamped to its range, NaN to 0)",
    [float2uint_rn, float2uint_rz, float2uint_ru, float2uint_rd],
    |x, m| if x.is_nan() { 0 } else { host::integral(x as f64, m) as u32 });
rounded!(int f32 => i64, "s64.f32", reg32 => reg64,
    "an `i64` (clamped to its range, NaN to `i64::MIN`)",
    [float2ll_rn, float2ll_rz, float2ll_ru, float2ll_rd],
    |x, m| if x.is_nan() { i64::MIN } else { host::integral(x as f64, m) as i64 });
rounded!(int f32 => u64, "u64.f32", reg32 => reg64,
    "a `u64` (clamped to its range, NaN to `1 << 63`)",
    [float2ull_rn, float2ull_rz, float2ull_ru, float2ull_rd],
    |x, m| if x.is_nan() { 1 << 63 } else { host::integral(x as f64, m) as u64 });
rounded!(int f64 => i32, "s32.f64", reg64 => reg32,
    "an `i32` (clamped to its range, NaN to `i32::MIN`)",
    [double2int_rn, double2int_rz, double2int_ru, double2int_rd],
    |x, m| if x.is_nan() { i32::MIN } else { host::integral(x, m) as i32 });
rounded!(int f64 => u32, "u32.f64", reg64 => reg32,
    "a `u32` (clamped to its range, NaN to `1 << 31`)",
    [double2uint_rn, double2uint_rz, double2uint_ru, double2uint_rd],
    |x, m| if x.is_nan() { 1 << 31 } else { host::integral(x, m) as u32 });
rounded!(int f64 => i64, "s64.f64", reg64 => reg64,
    "an `i64` (clamped to its range, NaN to `i64::MIN`)",
    [double2ll_rn, double2ll_rz, double2ll_ru, double2ll_rd],
    |x, m| if x.is_nan() { i64::MIN } else { host::integral(x, m) as i64 });
rounded!(int f64 => u64, "u64.f64", reg64 => reg64,
    "a `u64` (clamped to its range, NaN to `1 << 63`)",
    [double2ull_rn, double2ull_rz, double2ull_ru, double2ull_rd],
    |x, m| if x.is_nan() { 1 << 63 } else { host::integral(x, m) as u64 });

rounded!(float f64 => f32, "f32.f64", reg64 => reg32, "an `f32`",
    [double2float_rn, double2float_rz, double2float_ru, double2float_rd],
    |x, m| host::narrow(x, m));
rounded!(float i32 => f32, "f32.s32", reg32 => reg32, "an `f32`",
    [int2float_rn, int2float_rz, int2float_ru, int2float_rd],
    |x, m| host::from_int::<f32>(x as i128, m));
rounded!(float u32 => f32, "f32.u32", reg32 => reg32, "an `f32`",
    [uint2float_rn, uint2float_rz, uint2float_ru, uint2float_rd],
    |x, m| host::from_int::<f32>(x as i128, m));
rounded!(float i64 => f32, "f32.s64", reg64 => reg32, "an `f32`",
    [ll2float_rn, ll2float_rz, ll2float_ru, ll2float_rd],
    |x, m| host::from_int::<f32>(x as i128, m));
rounded!(float u64 => f32, "f32.u64", reg64 => reg32, "an `f32`",
    [ull2float_rn, ull2float_rz, ull2float_ru, ull2float_rd],
    |x, m| host::from_int::<f32>(x as i128, m));
rounded!(float i64 => f64, "f64.s64", reg64 => reg64, "an `f64`",
    [ll2double_rn, ll2double_rz, ll2double_ru, ll2double_rd],
    |x, m| host::from_int::<f64>(x as i128, m));
rounded!(float u64 => f64, "f64.u64", reg64 => reg64, "an `f64`",
    [ull2double_rn, ull2double_rz, ull2double_ru, ull2double_rd],
    |x, m| host::from_int::<f64>(x as i128, m));

/// `__int2double_rn(x)`: `x` as an `f64`, exactly: `cvt.rn.f64.s32`.
#[inline(always)]
pub fn int2double_rn(x: i32) -> f64 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::intrinsics::cvt!("cvt.rn.f64.s32", x, i32 => f64, reg32 => reg64)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x as f64
    }
}

/// `__uint2double_rn(x)`: `x` as an `f64`, exactly: `cvt.rn.f64.u32`.
#[inline(always)]
pub fn uint2double_rn(x: u32) -> f64 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::intrinsics::cvt!("cvt.rn.f64.u32", x, u32 => f64, reg32 => reg64)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x as f64
    }
}

/// The four roundings of an `f32` into a half type `$t` (PTX type
/// `$ptx`, host format `$format`); `$native` is where `_ru` and `_rd`
/// are instructions (elsewhere: `bf16_directed`, nvcc's sequence).
macro_rules! to_half {
    ($t:ident, $ptx:literal, $format:ident, native: $native:meta,
     [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
        to_half!(@one $t, $ptx, $format, all(), "rn", Nearest, false, "to the nearest (ties to even)", $rn);
        to_half!(@one $t, $ptx, $format, all(), "rz", Zero, false, "toward zero", $rz);
        to_half!(@one $t, $ptx, $format, $native, "rp", Up, true, "up (toward +inf)", $ru);
        to_half!(@one $t, $ptx, $format, $native, "rm", Down, false, "down (toward -inf)", $rd);
    };
    (@one $t:ident, $ptx:literal, $format:ident, $native:meta, $p:literal, $mode:ident,
     $up:literal, $how:literal, $name:ident) => {
        #[doc = concat!("`__", stringify!($name), "(x)`: `x` as a `", stringify!($t),
                        "`, rounded ", $how, " (NaN to `0x7fff`): `cvt.", $p, ".", $ptx, ".f32`.")]
        #[inline(always)]
        pub fn $name(x: f32) -> $t {
            #[cfg(all(target_arch = "nvptx64", $native))]
            {
                $t::from_bits(crate::intrinsics::cvt!(concat!("cvt.", $p, ".", $ptx, ".f32"), x,
                                                      f32 => u16, reg32 => reg16))
            }
            #[cfg(all(target_arch = "nvptx64", not($native)))]
            {
                $t::from_bits(bf16_directed(x, $up))
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $t::from_bits(host::to_half::<crate::half::host::$format>(x, Rounding::$mode))
            }
        }
    };
}

to_half!(f16, "f16", F16, native: all(), [float2half_rn, float2half_rz, float2half_ru, float2half_rd]);
to_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90",
    [float2bfloat16_rn, float2bfloat16_rz, float2bfloat16_ru, float2bfloat16_rd]);

/// `__float2bfloat16_ru(x)` / `_rd(x)` below sm_90, which has no
/// `cvt.rp.bf16.f32`: nvcc's sequence on the bits. A `bf16` is the top
/// half of an `f32`: the truncated bits, one more where the value is
/// inexact and on the side the rounding goes away from zero (positive
/// for `_ru`, negative for `_rd`); NaN to `0x7fff`.
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
#[inline(always)]
fn bf16_directed(x: f32, up: bool) -> u16 {
    let bits = x.to_bits();
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return 0x7fff;
    }
    let away = (bits >> 31 == 0) == up;
    (bits >> 16) as u16 + (away && bits & 0xffff != 0) as u16
}

/// `__float2half(x)`: [`float2half_rn`].
#[inline(always)]
pub fn float2half(x: f32) -> f16 {
    float2half_rn(x)
}

/// `__float2bfloat16(x)`: [`float2bfloat16_rn`].
#[inline(always)]
pub fn float2bfloat16(x: f32) -> bf16 {
    float2bfloat16_rn(x)
}

/// `__double2half(x)`: `x` rounded once, to the nearest `f16`
/// (`cvt.rn.f16.f64`; [`HalfFloat::from_double`]).
#[inline(always)]
pub fn double2half(x: f64) -> f16 {
    f16::from_double(x)
}

/// `__double2bfloat16(x)`: `x` rounded once, to the nearest `bf16`
/// (`cvt.rn.bf16.f64` on sm_90; [`HalfFloat::from_double`]).
#[inline(always)]
pub fn double2bfloat16(x: f64) -> bf16 {
    bf16::from_double(x)
}

/// `__double2hiint(x)`: the high 32 bits of `x`.
#[inline(always)]
pub fn double2hiint(x: f64) -> i32 {
    (x.to_bits() >> 32) as i32
}

/// `__double2loint(x)`: the low 32 bits of `x`.
#[inline(always)]
pub fn double2loint(x: f64) -> i32 {
    x.to_bits() as i32
}

/// `__hiloint2double(hi, lo)`: the `f64` of high bits `hi` and low bits
/// `lo`.
#[inline(always)]
pub fn hiloint2double(hi: i32, lo: i32) -> f64 {
    f64::from_bits(((hi as u32 as u64) << 32) | lo as u32 as u64)
}

/// An integer type that converts to the integer type `T` with saturation
/// ([`saturating_cast`]).
pub trait SaturatingCast<T>: Copy {
    /// `self` where `T` holds it, else `T`'s limit on its side.
    fn saturating_cast(self) -> T;
}

/// libcu++'s `cuda::std::saturating_cast<T>(x)`: `x` where `T` holds it,
/// else `T::MIN` or `T::MAX` (`saturating_cast::<u8, _>(-5i32)` is 0,
/// `saturating_cast::<i16, _>(70_000u32)` is `i16::MAX`). One
/// `cvt.sat.<T>.<x's type>` where `T` cannot hold every value of `x`'s
/// type, none where it can.
#[inline(always)]
pub fn saturating_cast<T, F: SaturatingCast<T>>(x: F) -> T {
    x.saturating_cast()
}

/// [`SaturatingCast`] for pairs of types: `sat` where the target's range is
/// not a superset of the source's (one `cvt.sat`; each type with its PTX
/// name and register), `wide` where it is (Rust's `as`, exact).
macro_rules! saturating {
    (sat: { $($from:ident($fp:literal, $fr:ident) => [$($to:ident($tp:literal, $tr:ident)),*];)* }
     wide: { $($wf:ident => [$($wt:ident),*];)* }) => {
        $($(
            impl SaturatingCast<$to> for $from {
                #[doc = concat!("`cvt.sat.", $tp, ".", $fp, "`.")]
                #[inline(always)]
                fn saturating_cast(self) -> $to {
                    #[cfg(target_arch = "nvptx64")]
                    {
                        crate::intrinsics::cvt!(concat!("cvt.sat.", $tp, ".", $fp), self,
                                                $from => $to, $fr => $tr)
                    }
                    #[cfg(not(target_arch = "nvptx64"))]
                    {
                        (self as i128).clamp($to::MIN as i128, $to::MAX as i128) as $to
                    }
                }
            }
        )*)*
        $($(
            impl SaturatingCast<$wt> for $wf {
                /// Exact: no instruction.
                #[inline(always)]
                fn saturating_cast(self) -> $wt {
                    self as $wt
                }
            }
        )*)*
    };
}

saturating! {
    sat: {
    i8("s8", reg16) => [u8("u8", reg16), u16("u16", reg16), u32("u32", reg32), u64("u64", reg64)];
    u8("u8", reg16) => [i8("s8", reg16)];
    i16("s16", reg16) => [i8("s8", reg16), u8("u8", reg16), u16("u16", reg16), u32("u32", reg32),
                          u64("u64", reg64)];
    u16("u16", reg16) => [i8("s8", reg16), u8("u8", reg16), i16("s16", reg16)];
    i32("s32", reg32) => [i8("s8", reg16), u8("u8", reg16), i16("s16", reg16), u16("u16", reg16),
                          u32("u32", reg32), u64("u64", reg64)];
    u32("u32", reg32) => [i8("s8", reg16), u8("u8", reg16), i16("s16", reg16), u16("u16", reg16),
                          i32("s32", reg32)];
    i64("s64", reg64) => [i8("s8", reg16), u8("u8", reg16), i16("s16", reg16), u16("u16", reg16),
                          i32("s32", reg32), u32("u32", reg32), u64("u64", reg64)];
    u64("u64", reg64) => [i8("s8", reg16), u8("u8", reg16), i16("s16", reg16), u16("u16", reg16),
                          i32("s32", reg32), u32("u32", reg32), i64("s64", reg64)];
    }
    wide: {
    i8 => [i8, i16, i32, i64];
    u8 => [u8, i16, u16, i32, u32, i64, u64];
    i16 => [i16, i32, i64];
    u16 => [u16, i32, u32, i64, u64];
    i32 => [i32, i64];
    u32 => [u32, i64, u64];
    i64 => [i64];
    u64 => [u64];
    }
}
