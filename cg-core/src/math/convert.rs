//! CUDA's type conversions with a chosen rounding ("Type Casting
//! Intrinsics" of CUDA's math API, and the rounded conversions between
//! `__half` or `__nv_bfloat16` and the floats and integers):
//! `__float2int_rn`, `__double2ull_rd`, `__ll2float_ru`,
//! `__double2float_rz`, `__float2half_rd`, `__half2short_ru`,
//! `__ull2bfloat16_rd`, ... under their CUDA names without the leading
//! underscores. Each is the one PTX `cvt` instruction nvcc emits for it
//! (sm_90):
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
//! | `__half2int_rn`, `_rz`, `_ru`, `_rd` | [`half2int_rn`], [`half2int_rz`], [`half2int_ru`], [`half2int_rd`] | `cvt.rni.s32.f16`, `cvt.rzi`, `cvt.rpi`, `cvt.rmi` |
//! | `__half2uint_rn`, ... | [`half2uint_rn`], ... | `cvt.rni.u32.f16`, ... |
//! | `__half2short_rn`, ... | [`half2short_rn`], ... | `cvt.rni.s16.f16`, ... |
//! | `__half2ushort_rn`, ... | [`half2ushort_rn`], ... | `cvt.rni.u16.f16`, ... |
//! | `__half2ll_rn`, ... | [`half2ll_rn`], ... | `cvt.rni.s64.f16`, ... |
//! | `__half2ull_rn`, ... | [`half2ull_rn`], ... | `cvt.rni.u64.f16`, ... |
//! | `__half2char_rz`, `__half2uchar_rz` | [`half2char_rz`], [`half2uchar_rz`] | `cvt.rzi.s8.f16`, `cvt.rzi.u8.f16` |
//! | `__bfloat162int_rn`, `_rz`, `_ru`, `_rd` | [`bfloat162int_rn`], [`bfloat162int_rz`], [`bfloat162int_ru`], [`bfloat162int_rd`] | `cvt.rni.s32.bf16`, `cvt.rzi`, `cvt.rpi`, `cvt.rmi` (below sm_90 the `cvt` of its `f32`, `cvt.rni.s32.f32`, ...) |
//! | `__bfloat162uint_rn`, ... | [`bfloat162uint_rn`], ... | `cvt.rni.u32.bf16`, ... (as above) |
//! | `__bfloat162short_rn`, ... | [`bfloat162short_rn`], ... | `cvt.rni.s16.bf16`, ... (as above) |
//! | `__bfloat162ushort_rn`, ... | [`bfloat162ushort_rn`], ... | `cvt.rni.u16.bf16`, ... (as above) |
//! | `__bfloat162ll_rn`, ... | [`bfloat162ll_rn`], ... | `cvt.rni.s64.bf16`, ... (as above) |
//! | `__bfloat162ull_rn`, ... | [`bfloat162ull_rn`], ... | `cvt.rni.u64.bf16`, ... (as above) |
//! | `__bfloat162char_rz`, `__bfloat162uchar_rz` | [`bfloat162char_rz`], [`bfloat162uchar_rz`] | `cvt.rzi.s8.bf16`, `cvt.rzi.u8.bf16` into a `.b8` register (as above) |
//! | `__int2half_rn`, `_rz`, `_ru`, `_rd` | [`int2half_rn`], [`int2half_rz`], [`int2half_ru`], [`int2half_rd`] | `cvt.rn.f16.s32`, `cvt.rz`, `cvt.rp`, `cvt.rm` |
//! | `__uint2half_rn`, ... | [`uint2half_rn`], ... | `cvt.rn.f16.u32`, ... |
//! | `__short2half_rn`, ... | [`short2half_rn`], ... | `cvt.rn.f16.s16`, ... |
//! | `__ushort2half_rn`, ... | [`ushort2half_rn`], ... | `cvt.rn.f16.u16`, ... |
//! | `__ll2half_rn`, ... | [`ll2half_rn`], ... | `cvt.rn.f16.s64`, ... |
//! | `__ull2half_rn`, ... | [`ull2half_rn`], ... | `cvt.rn.f16.u64`, ... |
//! | `__int2bfloat16_rn`, `_rz`, `_ru`, `_rd` | [`int2bfloat16_rn`], [`int2bfloat16_rz`], [`int2bfloat16_ru`], [`int2bfloat16_rd`] | `cvt.rn.bf16.s32`, `cvt.rz`, `cvt.rp`, `cvt.rm` (below sm_90 nvcc's sequence through `f32`: the `f32` of the same rounding to `bf16`; for `_rn` the one toward zero rounded to odd, then to nearest) |
//! | `__uint2bfloat16_rn`, ... | [`uint2bfloat16_rn`], ... | `cvt.rn.bf16.u32`, ... (as above) |
//! | `__short2bfloat16_rn`, ... | [`short2bfloat16_rn`], ... | `cvt.rn.bf16.s16`, ... (as above) |
//! | `__ushort2bfloat16_rn`, ... | [`ushort2bfloat16_rn`], ... | `cvt.rn.bf16.u16`, ... (as above) |
//! | `__ll2bfloat16_rn`, ... | [`ll2bfloat16_rn`], ... | `cvt.rn.bf16.s64`, ... (as above) |
//! | `__ull2bfloat16_rn`, ... | [`ull2bfloat16_rn`], ... | `cvt.rn.bf16.u64`, ... (as above) |
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
//! or `u64`); from an `f16` or a `bf16` (cuda_fp16.h's and cuda_bf16.h's
//! documented values), 0 into the 8-, 16- and 32-bit types and `1 << 63`
//! into `i64` and `u64`.
//!
//! `cg_core::half`'s `h.to_int()` and `h.to_uint()` are [`half2int_rz`]
//! and [`half2uint_rz`] (and the `bf16` ones); `f16::from_int(i)` and
//! `from_uint(u)` are [`int2half_rn`] and [`uint2half_rn`].
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
//! value first (Rust's `as`, the half types' rounding; an integer's half
//! from the integer rounded to odd in `f64`), then, where the rounding is
//! directed and the nearest value lies on the wrong side of the exact one
//! (compared exactly, in `f64` or `i128`), its neighbour.
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

/// The `cvt` of rounding `$p` (`"rzi"`) into the integer type `$to` (PTX
/// type `$ip`, register `$rout`) of the half bits `$a` (PTX type `$hp`);
/// into an 8-bit type from a `bf16`, through a `.b8` register
/// (`cvt_b8`). The types are `tt`s, which a
/// literal in a matcher matches.
#[cfg(target_arch = "nvptx64")]
macro_rules! cvt_half {
    ($p:tt, "s8", "bf16", $a:expr, $to:ty, $rout:ident) => {
        crate::intrinsics::cvt_b8!(concat!("cvt.", $p, ".s8.bf16"), $a) as $to
    };
    ($p:tt, "u8", "bf16", $a:expr, $to:ty, $rout:ident) => {
        crate::intrinsics::cvt_b8!(concat!("cvt.", $p, ".u8.bf16"), $a) as $to
    };
    ($p:tt, $ip:tt, $hp:tt, $a:expr, $to:ty, $rout:ident) => {
        crate::intrinsics::cvt!(concat!("cvt.", $p, ".", $ip, ".", $hp), $a, u16 => $to,
                                reg16 => $rout)
    };
}

/// The four roundings of a half type `$t` (PTX type `$hp`, host format
/// `$format`) into the integer type `$to` (PTX type `$ip`, register
/// `$rout`; `$what` the result in words, `$nan` NaN's result), or one of
/// them (`@one`); `$native` is where the half type has the instruction
/// (elsewhere, `bf16` below sm_90: its `f32`, exact, then the `f32`'s
/// `cvt`, as nvcc does).
macro_rules! from_half {
    ($t:ident, $hp:tt, $format:ident, native: $native:meta,
     $to:ty, $ip:tt, $rout:ident, $what:literal, nan: $nan:expr,
     [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
        from_half!(@one $t, $hp, $format, $native, $to, $ip, $rout, $what, $nan,
                   "rni", Nearest, "to the nearest (ties to even)", $rn);
        from_half!(@one $t, $hp, $format, $native, $to, $ip, $rout, $what, $nan,
                   "rzi", Zero, "toward zero", $rz);
        from_half!(@one $t, $hp, $format, $native, $to, $ip, $rout, $what, $nan,
                   "rpi", Up, "up (toward +inf)", $ru);
        from_half!(@one $t, $hp, $format, $native, $to, $ip, $rout, $what, $nan,
                   "rmi", Down, "down (toward -inf)", $rd);
    };
    (@one $t:ident, $hp:tt, $format:ident, $native:meta, $to:ty, $ip:tt,
     $rout:ident, $what:literal, $nan:expr, $p:tt, $mode:ident, $how:literal,
     $name:ident) => {
        #[doc = concat!("`__", stringify!($name), "(x)`: `x` as ", $what, ", rounded ", $how,
                        ": `cvt.", $p, ".", $ip, ".", $hp, "`.")]
        #[inline(always)]
        pub fn $name(x: $t) -> $to {
            #[cfg(all(target_arch = "nvptx64", $native))]
            {
                cvt_half!($p, $ip, $hp, x.to_bits(), $to, $rout)
            }
            #[cfg(all(target_arch = "nvptx64", not($native)))]
            {
                crate::intrinsics::cvt!(concat!("cvt.", $p, ".", $ip, ".f32"),
                                        f32::from_bits((x.to_bits() as u32) << 16),
                                        f32 => $to, reg32 => $rout)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let m = Rounding::$mode;
                match host::from_half::<crate::half::host::$format>(x.to_bits(), m) {
                    Some(v) => v as $to,
                    None => $nan,
                }
            }
        }
    };
}

from_half!(f16, "f16", F16, native: all(), i32, "s32", reg32,
    "an `i32` (clamped to its range, NaN to 0)", nan: 0,
    [half2int_rn, half2int_rz, half2int_ru, half2int_rd]);
from_half!(f16, "f16", F16, native: all(), u32, "u32", reg32,
    "a `u32` (clamped to its range, NaN to 0)", nan: 0,
    [half2uint_rn, half2uint_rz, half2uint_ru, half2uint_rd]);
from_half!(f16, "f16", F16, native: all(), i16, "s16", reg16,
    "an `i16` (clamped to its range, NaN to 0)", nan: 0,
    [half2short_rn, half2short_rz, half2short_ru, half2short_rd]);
from_half!(f16, "f16", F16, native: all(), u16, "u16", reg16,
    "a `u16` (clamped to its range, NaN to 0)", nan: 0,
    [half2ushort_rn, half2ushort_rz, half2ushort_ru, half2ushort_rd]);
from_half!(f16, "f16", F16, native: all(), i64, "s64", reg64,
    "an `i64` (clamped to its range, NaN to `i64::MIN`)", nan: i64::MIN,
    [half2ll_rn, half2ll_rz, half2ll_ru, half2ll_rd]);
from_half!(f16, "f16", F16, native: all(), u64, "u64", reg64,
    "a `u64` (clamped to its range, NaN to `1 << 63`)", nan: 1 << 63,
    [half2ull_rn, half2ull_rz, half2ull_ru, half2ull_rd]);
from_half!(@one f16, "f16", F16, all(), i8, "s8", reg16,
    "an `i8` (clamped to its range, NaN to 0)", 0, "rzi", Zero, "toward zero", half2char_rz);
from_half!(@one f16, "f16", F16, all(), u8, "u8", reg16,
    "a `u8` (clamped to its range, NaN to 0)", 0, "rzi", Zero, "toward zero", half2uchar_rz);

from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i32, "s32", reg32,
    "an `i32` (clamped to its range, NaN to 0)", nan: 0,
    [bfloat162int_rn, bfloat162int_rz, bfloat162int_ru, bfloat162int_rd]);
from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u32, "u32", reg32,
    "a `u32` (clamped to its range, NaN to 0)", nan: 0,
    [bfloat162uint_rn, bfloat162uint_rz, bfloat162uint_ru, bfloat162uint_rd]);
from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i16, "s16", reg16,
    "an `i16` (clamped to its range, NaN to 0)", nan: 0,
    [bfloat162short_rn, bfloat162short_rz, bfloat162short_ru, bfloat162short_rd]);
from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u16, "u16", reg16,
    "a `u16` (clamped to its range, NaN to 0)", nan: 0,
    [bfloat162ushort_rn, bfloat162ushort_rz, bfloat162ushort_ru, bfloat162ushort_rd]);
from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i64, "s64", reg64,
    "an `i64` (clamped to its range, NaN to `i64::MIN`)", nan: i64::MIN,
    [bfloat162ll_rn, bfloat162ll_rz, bfloat162ll_ru, bfloat162ll_rd]);
from_half!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u64, "u64", reg64,
    "a `u64` (clamped to its range, NaN to `1 << 63`)", nan: 1 << 63,
    [bfloat162ull_rn, bfloat162ull_rz, bfloat162ull_ru, bfloat162ull_rd]);
from_half!(@one bf16, "bf16", Bf16, target_feature = "sm_90", i8, "s8", reg16,
    "an `i8` (clamped to its range, NaN to 0)", 0, "rzi", Zero, "toward zero",
    bfloat162char_rz);
from_half!(@one bf16, "bf16", Bf16, target_feature = "sm_90", u8, "u8", reg16,
    "a `u8` (clamped to its range, NaN to 0)", 0, "rzi", Zero, "toward zero",
    bfloat162uchar_rz);

/// The `f32` roundings of the integer `$x` toward zero, up and down: by
/// the three functions `[$rz, $ru, $rd]` (`__int2float_rz`, ...), or,
/// `exact` (a 16-bit integer), `$x as f32` all three.
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
macro_rules! f32_roundings {
    ($x:expr, exact) => {{
        let f = $x as f32;
        (f, f, f)
    }};
    ($x:expr, [$rz:ident, $ru:ident, $rd:ident]) => {{
        let x = $x;
        ($rz(x), $ru(x), $rd(x))
    }};
}

/// The four roundings of the integer type `$from` (PTX type `$ip`,
/// register `$rin`) into a half type `$t` (PTX type `$hp`, host format
/// `$format`); `$native` is where the half type has the instruction.
/// Elsewhere (`bf16` below sm_90) nvcc's sequence: the integer's `f32`
/// roundings (`$f32`: see `f32_roundings`) through `bf16_through_f32`.
macro_rules! to_half_from {
    ($t:ident, $hp:literal, $format:ident, native: $native:meta,
     $from:ty, $ip:literal, $rin:ident, f32: $f32:tt,
     [$rn:ident, $rz:ident, $ru:ident, $rd:ident]) => {
        to_half_from!(@one $t, $hp, $format, $native, $from, $ip, $rin, $f32,
                      "rn", Nearest, 0, "to the nearest (ties to even)", $rn);
        to_half_from!(@one $t, $hp, $format, $native, $from, $ip, $rin, $f32,
                      "rz", Zero, 1, "toward zero", $rz);
        to_half_from!(@one $t, $hp, $format, $native, $from, $ip, $rin, $f32,
                      "rp", Up, 2, "up (toward +inf)", $ru);
        to_half_from!(@one $t, $hp, $format, $native, $from, $ip, $rin, $f32,
                      "rm", Down, 3, "down (toward -inf)", $rd);
    };
    (@one $t:ident, $hp:literal, $format:ident, $native:meta, $from:ty, $ip:literal,
     $rin:ident, $f32:tt, $p:literal,
     $mode:ident, $k:literal, $how:literal, $name:ident) => {
        #[doc = concat!("`__", stringify!($name), "(x)`: `x` as a `", stringify!($t),
                        "`, rounded ", $how, ": `cvt.", $p, ".", $hp, ".", $ip, "`.")]
        #[inline(always)]
        pub fn $name(x: $from) -> $t {
            #[cfg(all(target_arch = "nvptx64", $native))]
            {
                $t::from_bits(crate::intrinsics::cvt!(concat!("cvt.", $p, ".", $hp, ".", $ip), x,
                                                      $from => u16, $rin => reg16))
            }
            #[cfg(all(target_arch = "nvptx64", not($native)))]
            {
                let (rz, ru, rd) = f32_roundings!(x, $f32);
                bf16_through_f32(rz, ru, rd, $k)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $t::from_bits(host::int_to_half::<crate::half::host::$format>(x as i128,
                                                                              Rounding::$mode))
            }
        }
    };
}

to_half_from!(f16, "f16", F16, native: all(), i32, "s32", reg32,
    f32: [int2float_rz, int2float_ru, int2float_rd],
    [int2half_rn, int2half_rz, int2half_ru, int2half_rd]);
to_half_from!(f16, "f16", F16, native: all(), u32, "u32", reg32,
    f32: [uint2float_rz, uint2float_ru, uint2float_rd],
    [uint2half_rn, uint2half_rz, uint2half_ru, uint2half_rd]);
to_half_from!(f16, "f16", F16, native: all(), i16, "s16", reg16,
    f32: exact,
    [short2half_rn, short2half_rz, short2half_ru, short2half_rd]);
to_half_from!(f16, "f16", F16, native: all(), u16, "u16", reg16,
    f32: exact,
    [ushort2half_rn, ushort2half_rz, ushort2half_ru, ushort2half_rd]);
to_half_from!(f16, "f16", F16, native: all(), i64, "s64", reg64,
    f32: [ll2float_rz, ll2float_ru, ll2float_rd],
    [ll2half_rn, ll2half_rz, ll2half_ru, ll2half_rd]);
to_half_from!(f16, "f16", F16, native: all(), u64, "u64", reg64,
    f32: [ull2float_rz, ull2float_ru, ull2float_rd],
    [ull2half_rn, ull2half_rz, ull2half_ru, ull2half_rd]);

to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i32, "s32", reg32,
    f32: [int2float_rz, int2float_ru, int2float_rd],
    [int2bfloat16_rn, int2bfloat16_rz, int2bfloat16_ru, int2bfloat16_rd]);
to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u32, "u32", reg32,
    f32: [uint2float_rz, uint2float_ru, uint2float_rd],
    [uint2bfloat16_rn, uint2bfloat16_rz, uint2bfloat16_ru, uint2bfloat16_rd]);
to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i16, "s16", reg16,
    f32: exact,
    [short2bfloat16_rn, short2bfloat16_rz, short2bfloat16_ru, short2bfloat16_rd]);
to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u16, "u16", reg16,
    f32: exact,
    [ushort2bfloat16_rn, ushort2bfloat16_rz, ushort2bfloat16_ru, ushort2bfloat16_rd]);
to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", i64, "s64", reg64,
    f32: [ll2float_rz, ll2float_ru, ll2float_rd],
    [ll2bfloat16_rn, ll2bfloat16_rz, ll2bfloat16_ru, ll2bfloat16_rd]);
to_half_from!(bf16, "bf16", Bf16, native: target_feature = "sm_90", u64, "u64", reg64,
    f32: [ull2float_rz, ull2float_ru, ull2float_rd],
    [ull2bfloat16_rn, ull2bfloat16_rz, ull2bfloat16_ru, ull2bfloat16_rd]);

/// An integer in `bf16` below sm_90 (no `cvt` into `bf16` from an
/// integer): from its `f32` roundings toward zero, up and down, nvcc's
/// sequence for rounding `mode` (0 `_rn`, 1 `_rz`, 2 `_ru`, 3 `_rd`): the
/// `f32` of the same rounding to `bf16` (a directed rounding twice is
/// once), and for `_rn` the one toward zero rounded to odd (its last bit
/// set where the integer is not an `f32`), then to nearest (one rounding
/// in all, 24 bits being more than 8 + 2).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
#[inline(always)]
fn bf16_through_f32(rz: f32, ru: f32, rd: f32, mode: u8) -> bf16 {
    match mode {
        0 => float2bfloat16_rn(f32::from_bits(rz.to_bits() | (ru != rd) as u32)),
        1 => float2bfloat16_rz(rz),
        2 => float2bfloat16_ru(ru),
        _ => float2bfloat16_rd(rd),
    }
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
