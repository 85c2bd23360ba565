//! The kernels of the math differential test (tests/tests/gpu_math.rs):
//! each applies one of CUDA's math functions, chosen by index, to every
//! input, through `cg_core::math` (its twins in tests/twins/math.cu call
//! CUDA's), and a kernel that counts where two results differ.
//!
//! The function lists are the indices both sides share: [`F32_UNARY`] (the
//! `f32` functions of one argument, run over all 2^32 inputs),
//! [`F64_UNARY`], [`F32_BINARY`], [`F64_BINARY`], and CUDA's type
//! conversions (`math::convert`): [`CONVERT32`] (all 2^32 inputs),
//! [`CONVERT64`], [`SATURATING`], and between the half types and the
//! integers, [`FROM_HALF`] (all 2^16 halves) and [`TO_HALF`].
use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::half::{bf16, f16};
use cg_core::math::{convert, fast, FloatMath};
use cg_core::prelude::*;

/// The second operand of `ldexp` and `powi`: the high bits of `y`, as
/// the twins compute it (-512..=511).
#[inline(always)]
fn exponent32(y: f32) -> i32 {
    (y.to_bits() as i32) >> 22
}

/// As [`exponent32`], from the high bits of an `f64`.
#[inline(always)]
fn exponent64(y: f64) -> i32 {
    ((y.to_bits() >> 32) as i32) >> 22
}

/// The `f32` functions of one argument, by index.
pub const F32_UNARY: [&str; 55] = [
    "sqrt",
    "cbrt",
    "rsqrt",
    "rcbrt",
    "exp",
    "exp2",
    "exp10",
    "exp_m1",
    "ln",
    "log2",
    "log10",
    "ln_1p",
    "sin",
    "cos",
    "tan",
    "sinpi",
    "cospi",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "erfinv",
    "erfcinv",
    "lgamma",
    "tgamma",
    "floor",
    "ceil",
    "trunc",
    "round",
    "round_ties_even",
    "fract",
    "sin_cos.0",
    "sin_cos.1",
    "sin_cos_pi.0",
    "sin_cos_pi.1",
    "frexp.0",
    "frexp.1",
    "abs",
    "recip",
    "fast::expf",
    "fast::exp10f",
    "fast::logf",
    "fast::log2f",
    "fast::log10f",
    "fast::sinf",
    "fast::cosf",
    "fast::tanf",
    "fast::saturatef",
];

/// `F32_UNARY[op]` of `x`.
#[inline(always)]
pub fn f32_unary(op: u32, x: f32) -> f32 {
    match op {
        0 => x.sqrt(),
        1 => x.cbrt(),
        2 => x.rsqrt(),
        3 => x.rcbrt(),
        4 => x.exp(),
        5 => x.exp2(),
        6 => x.exp10(),
        7 => x.exp_m1(),
        8 => x.ln(),
        9 => x.log2(),
        10 => x.log10(),
        11 => x.ln_1p(),
        12 => x.sin(),
        13 => x.cos(),
        14 => x.tan(),
        15 => x.sinpi(),
        16 => x.cospi(),
        17 => x.asin(),
        18 => x.acos(),
        19 => x.atan(),
        20 => x.sinh(),
        21 => x.cosh(),
        22 => x.tanh(),
        23 => x.asinh(),
        24 => x.acosh(),
        25 => x.atanh(),
        26 => FloatMath::erf(x),
        27 => FloatMath::erfc(x),
        28 => x.erfinv(),
        29 => x.erfcinv(),
        30 => x.lgamma(),
        31 => x.tgamma(),
        32 => x.floor(),
        33 => x.ceil(),
        34 => x.trunc(),
        35 => x.round(),
        36 => x.round_ties_even(),
        37 => x.fract(),
        38 => x.sin_cos().0,
        39 => x.sin_cos().1,
        40 => x.sin_cos_pi().0,
        41 => x.sin_cos_pi().1,
        42 => x.frexp().0,
        43 => f32::from_bits(x.frexp().1 as u32),
        44 => x.abs(),
        45 => x.recip(),
        46 => fast::expf(x),
        47 => fast::exp10f(x),
        48 => fast::logf(x),
        49 => fast::log2f(x),
        50 => fast::log10f(x),
        51 => fast::sinf(x),
        52 => fast::cosf(x),
        53 => fast::tanf(x),
        54 => fast::saturatef(x),
        _ => f32::NAN,
    }
}

/// The `f64` functions of one argument, by index.
pub const F64_UNARY: [&str; 46] = [
    "sqrt",
    "cbrt",
    "rsqrt",
    "rcbrt",
    "exp",
    "exp2",
    "exp10",
    "exp_m1",
    "ln",
    "log2",
    "log10",
    "ln_1p",
    "sin",
    "cos",
    "tan",
    "sinpi",
    "cospi",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "erfinv",
    "erfcinv",
    "lgamma",
    "tgamma",
    "floor",
    "ceil",
    "trunc",
    "round",
    "round_ties_even",
    "fract",
    "sin_cos.0",
    "sin_cos.1",
    "sin_cos_pi.0",
    "sin_cos_pi.1",
    "frexp.0",
    "frexp.1",
    "abs",
    "recip",
];

/// `F64_UNARY[op]` of `x`.
#[inline(always)]
pub fn f64_unary(op: u32, x: f64) -> f64 {
    match op {
        0 => x.sqrt(),
        1 => x.cbrt(),
        2 => x.rsqrt(),
        3 => x.rcbrt(),
        4 => x.exp(),
        5 => x.exp2(),
        6 => x.exp10(),
        7 => x.exp_m1(),
        8 => x.ln(),
        9 => x.log2(),
        10 => x.log10(),
        11 => x.ln_1p(),
        12 => x.sin(),
        13 => x.cos(),
        14 => x.tan(),
        15 => x.sinpi(),
        16 => x.cospi(),
        17 => x.asin(),
        18 => x.acos(),
        19 => x.atan(),
        20 => x.sinh(),
        21 => x.cosh(),
        22 => x.tanh(),
        23 => x.asinh(),
        24 => x.acosh(),
        25 => x.atanh(),
        26 => FloatMath::erf(x),
        27 => FloatMath::erfc(x),
        28 => x.erfinv(),
        29 => x.erfcinv(),
        30 => x.lgamma(),
        31 => x.tgamma(),
        32 => x.floor(),
        33 => x.ceil(),
        34 => x.trunc(),
        35 => x.round(),
        36 => x.round_ties_even(),
        37 => x.fract(),
        38 => x.sin_cos().0,
        39 => x.sin_cos().1,
        40 => x.sin_cos_pi().0,
        41 => x.sin_cos_pi().1,
        42 => x.frexp().0,
        43 => f64::from_bits(x.frexp().1 as u32 as u64),
        44 => x.abs(),
        45 => x.recip(),
        _ => f64::NAN,
    }
}

/// The `f32` functions of two arguments, by index.
pub const F32_BINARY: [&str; 35] = [
    "powf",
    "atan2",
    "hypot",
    "fmod",
    "remainder",
    "fdim",
    "fmin",
    "fmax",
    "min",
    "max",
    "copysign",
    "nextafter",
    "ldexp",
    "powi",
    "log(base)",
    "div",
    "mul_add(y, x)",
    "fast::powf",
    "fast::fdividef",
    "fast::fadd_rn",
    "fast::fadd_rz",
    "fast::fadd_rd",
    "fast::fadd_ru",
    "fast::fsub_rn",
    "fast::fsub_rz",
    "fast::fsub_rd",
    "fast::fsub_ru",
    "fast::fmul_rn",
    "fast::fmul_rz",
    "fast::fmul_rd",
    "fast::fmul_ru",
    "fast::fdiv_rn",
    "fast::fdiv_rz",
    "fast::fdiv_rd",
    "fast::fdiv_ru",
];

/// `F32_BINARY[op]` of `(x, y)`.
#[inline(always)]
pub fn f32_binary(op: u32, x: f32, y: f32) -> f32 {
    match op {
        0 => x.powf(y),
        1 => x.atan2(y),
        2 => x.hypot(y),
        3 => x.fmod(y),
        4 => x.remainder(y),
        5 => x.fdim(y),
        6 => x.fmin(y),
        7 => x.fmax(y),
        8 => x.min(y),
        9 => x.max(y),
        10 => x.copysign(y),
        11 => x.nextafter(y),
        12 => x.ldexp(exponent32(y)),
        13 => x.powi(exponent32(y)),
        14 => x.log(y),
        15 => x / y,
        16 => x.mul_add(y, x),
        17 => fast::powf(x, y),
        18 => fast::fdividef(x, y),
        19 => fast::fadd_rn(x, y),
        20 => fast::fadd_rz(x, y),
        21 => fast::fadd_rd(x, y),
        22 => fast::fadd_ru(x, y),
        23 => fast::fsub_rn(x, y),
        24 => fast::fsub_rz(x, y),
        25 => fast::fsub_rd(x, y),
        26 => fast::fsub_ru(x, y),
        27 => fast::fmul_rn(x, y),
        28 => fast::fmul_rz(x, y),
        29 => fast::fmul_rd(x, y),
        30 => fast::fmul_ru(x, y),
        31 => fast::fdiv_rn(x, y),
        32 => fast::fdiv_rz(x, y),
        33 => fast::fdiv_rd(x, y),
        34 => fast::fdiv_ru(x, y),
        _ => f32::NAN,
    }
}

/// The `f64` functions of two arguments, by index.
pub const F64_BINARY: [&str; 17] = [
    "powf",
    "atan2",
    "hypot",
    "fmod",
    "remainder",
    "fdim",
    "fmin",
    "fmax",
    "min",
    "max",
    "copysign",
    "nextafter",
    "ldexp",
    "powi",
    "log(base)",
    "div",
    "mul_add(y, x)",
];

/// `F64_BINARY[op]` of `(x, y)`.
#[inline(always)]
pub fn f64_binary(op: u32, x: f64, y: f64) -> f64 {
    match op {
        0 => x.powf(y),
        1 => x.atan2(y),
        2 => x.hypot(y),
        3 => x.fmod(y),
        4 => x.remainder(y),
        5 => x.fdim(y),
        6 => x.fmin(y),
        7 => x.fmax(y),
        8 => x.min(y),
        9 => x.max(y),
        10 => x.copysign(y),
        11 => x.nextafter(y),
        12 => x.ldexp(exponent64(y)),
        13 => x.powi(exponent64(y)),
        14 => x.log(y),
        15 => x / y,
        16 => x.mul_add(y, x),
        _ => f64::NAN,
    }
}

/// CUDA's conversions of a 32-bit input (an `f32`, `i32` or `u32`, by
/// its bits), by index: run over all 2^32 inputs.
pub const CONVERT32: [&str; 34] = [
    "float2int_rn",
    "float2int_rz",
    "float2int_ru",
    "float2int_rd",
    "float2uint_rn",
    "float2uint_rz",
    "float2uint_ru",
    "float2uint_rd",
    "float2ll_rn",
    "float2ll_rz",
    "float2ll_ru",
    "float2ll_rd",
    "float2ull_rn",
    "float2ull_rz",
    "float2ull_ru",
    "float2ull_rd",
    "float2half_rn",
    "float2half_rz",
    "float2half_ru",
    "float2half_rd",
    "float2bfloat16_rn",
    "float2bfloat16_rz",
    "float2bfloat16_ru",
    "float2bfloat16_rd",
    "int2float_rn",
    "int2float_rz",
    "int2float_ru",
    "int2float_rd",
    "uint2float_rn",
    "uint2float_rz",
    "uint2float_ru",
    "uint2float_rd",
    "int2double_rn",
    "uint2double_rn",
];

/// `CONVERT32[op]` of the input with bits `x`: the result's bits (an
/// integer's two's complement, zero-extended).
#[inline(always)]
pub fn convert32(op: u32, x: u32) -> u64 {
    match op {
        0 => convert::float2int_rn(f32::from_bits(x)) as u32 as u64,
        1 => convert::float2int_rz(f32::from_bits(x)) as u32 as u64,
        2 => convert::float2int_ru(f32::from_bits(x)) as u32 as u64,
        3 => convert::float2int_rd(f32::from_bits(x)) as u32 as u64,
        4 => convert::float2uint_rn(f32::from_bits(x)) as u64,
        5 => convert::float2uint_rz(f32::from_bits(x)) as u64,
        6 => convert::float2uint_ru(f32::from_bits(x)) as u64,
        7 => convert::float2uint_rd(f32::from_bits(x)) as u64,
        8 => convert::float2ll_rn(f32::from_bits(x)) as u64,
        9 => convert::float2ll_rz(f32::from_bits(x)) as u64,
        10 => convert::float2ll_ru(f32::from_bits(x)) as u64,
        11 => convert::float2ll_rd(f32::from_bits(x)) as u64,
        12 => convert::float2ull_rn(f32::from_bits(x)),
        13 => convert::float2ull_rz(f32::from_bits(x)),
        14 => convert::float2ull_ru(f32::from_bits(x)),
        15 => convert::float2ull_rd(f32::from_bits(x)),
        16 => convert::float2half_rn(f32::from_bits(x)).to_bits() as u64,
        17 => convert::float2half_rz(f32::from_bits(x)).to_bits() as u64,
        18 => convert::float2half_ru(f32::from_bits(x)).to_bits() as u64,
        19 => convert::float2half_rd(f32::from_bits(x)).to_bits() as u64,
        20 => convert::float2bfloat16_rn(f32::from_bits(x)).to_bits() as u64,
        21 => convert::float2bfloat16_rz(f32::from_bits(x)).to_bits() as u64,
        22 => convert::float2bfloat16_ru(f32::from_bits(x)).to_bits() as u64,
        23 => convert::float2bfloat16_rd(f32::from_bits(x)).to_bits() as u64,
        24 => convert::int2float_rn(x as i32).to_bits() as u64,
        25 => convert::int2float_rz(x as i32).to_bits() as u64,
        26 => convert::int2float_ru(x as i32).to_bits() as u64,
        27 => convert::int2float_rd(x as i32).to_bits() as u64,
        28 => convert::uint2float_rn(x).to_bits() as u64,
        29 => convert::uint2float_rz(x).to_bits() as u64,
        30 => convert::uint2float_ru(x).to_bits() as u64,
        31 => convert::uint2float_rd(x).to_bits() as u64,
        32 => convert::int2double_rn(x as i32).to_bits(),
        33 => convert::uint2double_rn(x).to_bits(),
        _ => u64::MAX,
    }
}

/// CUDA's conversions of a 64-bit input (an `f64`, `i64` or `u64`, by
/// its bits), by index.
pub const CONVERT64: [&str; 38] = [
    "double2int_rn",
    "double2int_rz",
    "double2int_ru",
    "double2int_rd",
    "double2uint_rn",
    "double2uint_rz",
    "double2uint_ru",
    "double2uint_rd",
    "double2ll_rn",
    "double2ll_rz",
    "double2ll_ru",
    "double2ll_rd",
    "double2ull_rn",
    "double2ull_rz",
    "double2ull_ru",
    "double2ull_rd",
    "double2float_rn",
    "double2float_rz",
    "double2float_ru",
    "double2float_rd",
    "double2half",
    "double2bfloat16",
    "ll2float_rn",
    "ll2float_rz",
    "ll2float_ru",
    "ll2float_rd",
    "ull2float_rn",
    "ull2float_rz",
    "ull2float_ru",
    "ull2float_rd",
    "ll2double_rn",
    "ll2double_rz",
    "ll2double_ru",
    "ll2double_rd",
    "ull2double_rn",
    "ull2double_rz",
    "ull2double_ru",
    "ull2double_rd",
];

/// `CONVERT64[op]` of the input with bits `x`, as [`convert32`].
#[inline(always)]
pub fn convert64(op: u32, x: u64) -> u64 {
    match op {
        0 => convert::double2int_rn(f64::from_bits(x)) as u32 as u64,
        1 => convert::double2int_rz(f64::from_bits(x)) as u32 as u64,
        2 => convert::double2int_ru(f64::from_bits(x)) as u32 as u64,
        3 => convert::double2int_rd(f64::from_bits(x)) as u32 as u64,
        4 => convert::double2uint_rn(f64::from_bits(x)) as u64,
        5 => convert::double2uint_rz(f64::from_bits(x)) as u64,
        6 => convert::double2uint_ru(f64::from_bits(x)) as u64,
        7 => convert::double2uint_rd(f64::from_bits(x)) as u64,
        8 => convert::double2ll_rn(f64::from_bits(x)) as u64,
        9 => convert::double2ll_rz(f64::from_bits(x)) as u64,
        10 => convert::double2ll_ru(f64::from_bits(x)) as u64,
        11 => convert::double2ll_rd(f64::from_bits(x)) as u64,
        12 => convert::double2ull_rn(f64::from_bits(x)),
        13 => convert::double2ull_rz(f64::from_bits(x)),
        14 => convert::double2ull_ru(f64::from_bits(x)),
        15 => convert::double2ull_rd(f64::from_bits(x)),
        16 => convert::double2float_rn(f64::from_bits(x)).to_bits() as u64,
        17 => convert::double2float_rz(f64::from_bits(x)).to_bits() as u64,
        18 => convert::double2float_ru(f64::from_bits(x)).to_bits() as u64,
        19 => convert::double2float_rd(f64::from_bits(x)).to_bits() as u64,
        20 => convert::double2half(f64::from_bits(x)).to_bits() as u64,
        21 => convert::double2bfloat16(f64::from_bits(x)).to_bits() as u64,
        22 => convert::ll2float_rn(x as i64).to_bits() as u64,
        23 => convert::ll2float_rz(x as i64).to_bits() as u64,
        24 => convert::ll2float_ru(x as i64).to_bits() as u64,
        25 => convert::ll2float_rd(x as i64).to_bits() as u64,
        26 => convert::ull2float_rn(x).to_bits() as u64,
        27 => convert::ull2float_rz(x).to_bits() as u64,
        28 => convert::ull2float_ru(x).to_bits() as u64,
        29 => convert::ull2float_rd(x).to_bits() as u64,
        30 => convert::ll2double_rn(x as i64).to_bits(),
        31 => convert::ll2double_rz(x as i64).to_bits(),
        32 => convert::ll2double_ru(x as i64).to_bits(),
        33 => convert::ll2double_rd(x as i64).to_bits(),
        34 => convert::ull2double_rn(x).to_bits(),
        35 => convert::ull2double_rz(x).to_bits(),
        36 => convert::ull2double_ru(x).to_bits(),
        37 => convert::ull2double_rd(x).to_bits(),
        _ => u64::MAX,
    }
}

/// `CONVERT32[op]` of the inputs whose bits are `start`, `start + 1`, ...
#[kernel]
pub fn convert_32(op: u32, start: u32, mut out: Output<u64>) {
    let grid = this_grid();
    for (i, y) in out.grid_stride(&grid) {
        *y = convert32(op, start.wrapping_add(i as u32));
    }
}

/// `CONVERT64[op]` of each input's bits.
#[kernel]
pub fn convert_64(op: u32, input: &[u64], mut out: Output<u64>) {
    let grid = this_grid();
    out.truncate(input.len());
    for (i, y) in out.grid_stride(&grid) {
        *y = convert64(op, input[i]);
    }
}

/// CUDA's conversions of a half (`f16`, then `bf16`) to an integer, by
/// index: run over all 2^16 bit patterns of the half.
pub const FROM_HALF: [&str; 52] = [
    "half2int_rn",
    "half2int_rz",
    "half2int_ru",
    "half2int_rd",
    "half2uint_rn",
    "half2uint_rz",
    "half2uint_ru",
    "half2uint_rd",
    "half2short_rn",
    "half2short_rz",
    "half2short_ru",
    "half2short_rd",
    "half2ushort_rn",
    "half2ushort_rz",
    "half2ushort_ru",
    "half2ushort_rd",
    "half2ll_rn",
    "half2ll_rz",
    "half2ll_ru",
    "half2ll_rd",
    "half2ull_rn",
    "half2ull_rz",
    "half2ull_ru",
    "half2ull_rd",
    "half2char_rz",
    "half2uchar_rz",
    "bfloat162int_rn",
    "bfloat162int_rz",
    "bfloat162int_ru",
    "bfloat162int_rd",
    "bfloat162uint_rn",
    "bfloat162uint_rz",
    "bfloat162uint_ru",
    "bfloat162uint_rd",
    "bfloat162short_rn",
    "bfloat162short_rz",
    "bfloat162short_ru",
    "bfloat162short_rd",
    "bfloat162ushort_rn",
    "bfloat162ushort_rz",
    "bfloat162ushort_ru",
    "bfloat162ushort_rd",
    "bfloat162ll_rn",
    "bfloat162ll_rz",
    "bfloat162ll_ru",
    "bfloat162ll_rd",
    "bfloat162ull_rn",
    "bfloat162ull_rz",
    "bfloat162ull_ru",
    "bfloat162ull_rd",
    "bfloat162char_rz",
    "bfloat162uchar_rz",
];

/// `FROM_HALF[op]` of the half with bits `x`: the result's two's
/// complement, zero-extended.
#[inline(always)]
pub fn from_half(op: u32, x: u16) -> u64 {
    let (h, b) = (f16::from_bits(x), bf16::from_bits(x));
    match op {
        0 => convert::half2int_rn(h) as u32 as u64,
        1 => convert::half2int_rz(h) as u32 as u64,
        2 => convert::half2int_ru(h) as u32 as u64,
        3 => convert::half2int_rd(h) as u32 as u64,
        4 => convert::half2uint_rn(h) as u64,
        5 => convert::half2uint_rz(h) as u64,
        6 => convert::half2uint_ru(h) as u64,
        7 => convert::half2uint_rd(h) as u64,
        8 => convert::half2short_rn(h) as u16 as u64,
        9 => convert::half2short_rz(h) as u16 as u64,
        10 => convert::half2short_ru(h) as u16 as u64,
        11 => convert::half2short_rd(h) as u16 as u64,
        12 => convert::half2ushort_rn(h) as u64,
        13 => convert::half2ushort_rz(h) as u64,
        14 => convert::half2ushort_ru(h) as u64,
        15 => convert::half2ushort_rd(h) as u64,
        16 => convert::half2ll_rn(h) as u64,
        17 => convert::half2ll_rz(h) as u64,
        18 => convert::half2ll_ru(h) as u64,
        19 => convert::half2ll_rd(h) as u64,
        20 => convert::half2ull_rn(h),
        21 => convert::half2ull_rz(h),
        22 => convert::half2ull_ru(h),
        23 => convert::half2ull_rd(h),
        24 => convert::half2char_rz(h) as u8 as u64,
        25 => convert::half2uchar_rz(h) as u64,
        26 => convert::bfloat162int_rn(b) as u32 as u64,
        27 => convert::bfloat162int_rz(b) as u32 as u64,
        28 => convert::bfloat162int_ru(b) as u32 as u64,
        29 => convert::bfloat162int_rd(b) as u32 as u64,
        30 => convert::bfloat162uint_rn(b) as u64,
        31 => convert::bfloat162uint_rz(b) as u64,
        32 => convert::bfloat162uint_ru(b) as u64,
        33 => convert::bfloat162uint_rd(b) as u64,
        34 => convert::bfloat162short_rn(b) as u16 as u64,
        35 => convert::bfloat162short_rz(b) as u16 as u64,
        36 => convert::bfloat162short_ru(b) as u16 as u64,
        37 => convert::bfloat162short_rd(b) as u16 as u64,
        38 => convert::bfloat162ushort_rn(b) as u64,
        39 => convert::bfloat162ushort_rz(b) as u64,
        40 => convert::bfloat162ushort_ru(b) as u64,
        41 => convert::bfloat162ushort_rd(b) as u64,
        42 => convert::bfloat162ll_rn(b) as u64,
        43 => convert::bfloat162ll_rz(b) as u64,
        44 => convert::bfloat162ll_ru(b) as u64,
        45 => convert::bfloat162ll_rd(b) as u64,
        46 => convert::bfloat162ull_rn(b),
        47 => convert::bfloat162ull_rz(b),
        48 => convert::bfloat162ull_ru(b),
        49 => convert::bfloat162ull_rd(b),
        50 => convert::bfloat162char_rz(b) as u8 as u64,
        51 => convert::bfloat162uchar_rz(b) as u64,
        _ => u64::MAX,
    }
}

/// CUDA's conversions of an integer to a half (`f16`, then `bf16`), by
/// index: run over 64-bit inputs, each source type taking their low bits.
pub const TO_HALF: [&str; 48] = [
    "int2half_rn",
    "int2half_rz",
    "int2half_ru",
    "int2half_rd",
    "uint2half_rn",
    "uint2half_rz",
    "uint2half_ru",
    "uint2half_rd",
    "short2half_rn",
    "short2half_rz",
    "short2half_ru",
    "short2half_rd",
    "ushort2half_rn",
    "ushort2half_rz",
    "ushort2half_ru",
    "ushort2half_rd",
    "ll2half_rn",
    "ll2half_rz",
    "ll2half_ru",
    "ll2half_rd",
    "ull2half_rn",
    "ull2half_rz",
    "ull2half_ru",
    "ull2half_rd",
    "int2bfloat16_rn",
    "int2bfloat16_rz",
    "int2bfloat16_ru",
    "int2bfloat16_rd",
    "uint2bfloat16_rn",
    "uint2bfloat16_rz",
    "uint2bfloat16_ru",
    "uint2bfloat16_rd",
    "short2bfloat16_rn",
    "short2bfloat16_rz",
    "short2bfloat16_ru",
    "short2bfloat16_rd",
    "ushort2bfloat16_rn",
    "ushort2bfloat16_rz",
    "ushort2bfloat16_ru",
    "ushort2bfloat16_rd",
    "ll2bfloat16_rn",
    "ll2bfloat16_rz",
    "ll2bfloat16_ru",
    "ll2bfloat16_rd",
    "ull2bfloat16_rn",
    "ull2bfloat16_rz",
    "ull2bfloat16_ru",
    "ull2bfloat16_rd",
];

/// `TO_HALF[op]` of the low bits of `x` (as many as the source type has):
/// the result's bits.
#[inline(always)]
pub fn to_half(op: u32, x: u64) -> u64 {
    match op {
        0 => convert::int2half_rn(x as i32).to_bits() as u64,
        1 => convert::int2half_rz(x as i32).to_bits() as u64,
        2 => convert::int2half_ru(x as i32).to_bits() as u64,
        3 => convert::int2half_rd(x as i32).to_bits() as u64,
        4 => convert::uint2half_rn(x as u32).to_bits() as u64,
        5 => convert::uint2half_rz(x as u32).to_bits() as u64,
        6 => convert::uint2half_ru(x as u32).to_bits() as u64,
        7 => convert::uint2half_rd(x as u32).to_bits() as u64,
        8 => convert::short2half_rn(x as i16).to_bits() as u64,
        9 => convert::short2half_rz(x as i16).to_bits() as u64,
        10 => convert::short2half_ru(x as i16).to_bits() as u64,
        11 => convert::short2half_rd(x as i16).to_bits() as u64,
        12 => convert::ushort2half_rn(x as u16).to_bits() as u64,
        13 => convert::ushort2half_rz(x as u16).to_bits() as u64,
        14 => convert::ushort2half_ru(x as u16).to_bits() as u64,
        15 => convert::ushort2half_rd(x as u16).to_bits() as u64,
        16 => convert::ll2half_rn(x as i64).to_bits() as u64,
        17 => convert::ll2half_rz(x as i64).to_bits() as u64,
        18 => convert::ll2half_ru(x as i64).to_bits() as u64,
        19 => convert::ll2half_rd(x as i64).to_bits() as u64,
        20 => convert::ull2half_rn(x).to_bits() as u64,
        21 => convert::ull2half_rz(x).to_bits() as u64,
        22 => convert::ull2half_ru(x).to_bits() as u64,
        23 => convert::ull2half_rd(x).to_bits() as u64,
        24 => convert::int2bfloat16_rn(x as i32).to_bits() as u64,
        25 => convert::int2bfloat16_rz(x as i32).to_bits() as u64,
        26 => convert::int2bfloat16_ru(x as i32).to_bits() as u64,
        27 => convert::int2bfloat16_rd(x as i32).to_bits() as u64,
        28 => convert::uint2bfloat16_rn(x as u32).to_bits() as u64,
        29 => convert::uint2bfloat16_rz(x as u32).to_bits() as u64,
        30 => convert::uint2bfloat16_ru(x as u32).to_bits() as u64,
        31 => convert::uint2bfloat16_rd(x as u32).to_bits() as u64,
        32 => convert::short2bfloat16_rn(x as i16).to_bits() as u64,
        33 => convert::short2bfloat16_rz(x as i16).to_bits() as u64,
        34 => convert::short2bfloat16_ru(x as i16).to_bits() as u64,
        35 => convert::short2bfloat16_rd(x as i16).to_bits() as u64,
        36 => convert::ushort2bfloat16_rn(x as u16).to_bits() as u64,
        37 => convert::ushort2bfloat16_rz(x as u16).to_bits() as u64,
        38 => convert::ushort2bfloat16_ru(x as u16).to_bits() as u64,
        39 => convert::ushort2bfloat16_rd(x as u16).to_bits() as u64,
        40 => convert::ll2bfloat16_rn(x as i64).to_bits() as u64,
        41 => convert::ll2bfloat16_rz(x as i64).to_bits() as u64,
        42 => convert::ll2bfloat16_ru(x as i64).to_bits() as u64,
        43 => convert::ll2bfloat16_rd(x as i64).to_bits() as u64,
        44 => convert::ull2bfloat16_rn(x).to_bits() as u64,
        45 => convert::ull2bfloat16_rz(x).to_bits() as u64,
        46 => convert::ull2bfloat16_ru(x).to_bits() as u64,
        47 => convert::ull2bfloat16_rd(x).to_bits() as u64,
        _ => u64::MAX,
    }
}

/// `FROM_HALF[op]` of every half: `out[i]` of the half with bits `i`
/// (`out` holds 2^16).
#[kernel]
pub fn convert_from_half(op: u32, mut out: Output<u64>) {
    let grid = this_grid();
    for (i, y) in out.grid_stride(&grid) {
        *y = from_half(op, i as u16);
    }
}

/// `TO_HALF[op]` of each input.
#[kernel]
pub fn convert_to_half(op: u32, input: &[u64], mut out: Output<u64>) {
    let grid = this_grid();
    out.truncate(input.len());
    for (i, y) in out.grid_stride(&grid) {
        *y = to_half(op, input[i]);
    }
}

/// The saturating integer conversions (`math::convert::saturating_cast`,
/// libcu++'s `cuda::std::saturating_cast`) that are an instruction, by
/// index: the PTX types of each `cvt.sat`, target first.
pub const SATURATING: [&str; 38] = [
    "u8.s8", "u16.s8", "u32.s8", "u64.s8", "s8.u8", "s8.s16", "u8.s16", "u16.s16", "u32.s16",
    "u64.s16", "s8.u16", "u8.u16", "s16.u16", "s8.s32", "u8.s32", "s16.s32", "u16.s32", "u32.s32",
    "u64.s32", "s8.u32", "u8.u32", "s16.u32", "u16.u32", "s32.u32", "s8.s64", "u8.s64", "s16.s64",
    "u16.s64", "s32.s64", "u32.s64", "u64.s64", "s8.u64", "u8.u64", "s16.u64", "u16.u64",
    "s32.u64", "u32.u64", "s64.u64",
];

/// `SATURATING[op]` of the low bits of `x` (as many as the source type
/// has): the result's bits, a signed one sign-extended.
#[inline(always)]
pub fn saturating(op: u32, x: u64) -> u64 {
    match op {
        0 => convert::saturating_cast::<u8, i8>(x as i8) as u64,
        1 => convert::saturating_cast::<u16, i8>(x as i8) as u64,
        2 => convert::saturating_cast::<u32, i8>(x as i8) as u64,
        3 => convert::saturating_cast::<u64, i8>(x as i8) as u64,
        4 => convert::saturating_cast::<i8, u8>(x as u8) as i64 as u64,
        5 => convert::saturating_cast::<i8, i16>(x as i16) as i64 as u64,
        6 => convert::saturating_cast::<u8, i16>(x as i16) as u64,
        7 => convert::saturating_cast::<u16, i16>(x as i16) as u64,
        8 => convert::saturating_cast::<u32, i16>(x as i16) as u64,
        9 => convert::saturating_cast::<u64, i16>(x as i16) as u64,
        10 => convert::saturating_cast::<i8, u16>(x as u16) as i64 as u64,
        11 => convert::saturating_cast::<u8, u16>(x as u16) as u64,
        12 => convert::saturating_cast::<i16, u16>(x as u16) as i64 as u64,
        13 => convert::saturating_cast::<i8, i32>(x as i32) as i64 as u64,
        14 => convert::saturating_cast::<u8, i32>(x as i32) as u64,
        15 => convert::saturating_cast::<i16, i32>(x as i32) as i64 as u64,
        16 => convert::saturating_cast::<u16, i32>(x as i32) as u64,
        17 => convert::saturating_cast::<u32, i32>(x as i32) as u64,
        18 => convert::saturating_cast::<u64, i32>(x as i32) as u64,
        19 => convert::saturating_cast::<i8, u32>(x as u32) as i64 as u64,
        20 => convert::saturating_cast::<u8, u32>(x as u32) as u64,
        21 => convert::saturating_cast::<i16, u32>(x as u32) as i64 as u64,
        22 => convert::saturating_cast::<u16, u32>(x as u32) as u64,
        23 => convert::saturating_cast::<i32, u32>(x as u32) as i64 as u64,
        24 => convert::saturating_cast::<i8, i64>(x as i64) as i64 as u64,
        25 => convert::saturating_cast::<u8, i64>(x as i64) as u64,
        26 => convert::saturating_cast::<i16, i64>(x as i64) as i64 as u64,
        27 => convert::saturating_cast::<u16, i64>(x as i64) as u64,
        28 => convert::saturating_cast::<i32, i64>(x as i64) as i64 as u64,
        29 => convert::saturating_cast::<u32, i64>(x as i64) as u64,
        30 => convert::saturating_cast::<u64, i64>(x as i64) as u64,
        31 => convert::saturating_cast::<i8, u64>(x as u64) as i64 as u64,
        32 => convert::saturating_cast::<u8, u64>(x as u64) as u64,
        33 => convert::saturating_cast::<i16, u64>(x as u64) as i64 as u64,
        34 => convert::saturating_cast::<u16, u64>(x as u64) as u64,
        35 => convert::saturating_cast::<i32, u64>(x as u64) as i64 as u64,
        36 => convert::saturating_cast::<u32, u64>(x as u64) as u64,
        37 => convert::saturating_cast::<i64, u64>(x as u64) as i64 as u64,
        _ => u64::MAX,
    }
}

/// `SATURATING[op]` of each input.
#[kernel]
pub fn convert_saturating(op: u32, input: &[u64], mut out: Output<u64>) {
    let grid = this_grid();
    out.truncate(input.len());
    for (i, y) in out.grid_stride(&grid) {
        *y = saturating(op, input[i]);
    }
}

/// `F32_UNARY[op]` of the inputs whose bits are `start`, `start + 1`, ...:
/// the bits of each result.
#[kernel]
pub fn math_f32_unary(op: u32, start: u32, mut out: Output<u32>) {
    let grid = this_grid();
    for (i, y) in out.grid_stride(&grid) {
        let x = f32::from_bits(start.wrapping_add(i as u32));
        *y = f32_unary(op, x).to_bits();
    }
}

/// `F64_UNARY[op]` of each input: the bits of each result.
#[kernel]
pub fn math_f64_unary(op: u32, input: &[f64], mut out: Output<u64>) {
    let grid = this_grid();
    out.truncate(input.len());
    for (i, y) in out.grid_stride(&grid) {
        *y = f64_unary(op, input[i]).to_bits();
    }
}

/// `F32_BINARY[op]` of each pair of inputs.
#[kernel]
pub fn math_f32_binary(op: u32, x: &[f32], y: &[f32], mut out: Output<u32>) {
    let grid = this_grid();
    out.truncate(x.len().min(y.len()));
    for (i, r) in out.grid_stride(&grid) {
        *r = f32_binary(op, x[i], y[i]).to_bits();
    }
}

/// `F64_BINARY[op]` of each pair of inputs.
#[kernel]
pub fn math_f64_binary(op: u32, x: &[f64], y: &[f64], mut out: Output<u64>) {
    let grid = this_grid();
    out.truncate(x.len().min(y.len()));
    for (i, r) in out.grid_stride(&grid) {
        *r = f64_binary(op, x[i], y[i]).to_bits();
    }
}

/// Counts where the `f32` results `a` and `b` (their bits) differ:
/// `counts[0]` where they are not both NaN, `counts[1]` where both are NaN
/// with different bits; `counts[2..]` the first indices of the first kind,
/// as far as there is room.
#[kernel]
pub fn math_diff32(a: &[u32], b: &[u32], counts: AtomicSlice<u32>) {
    let grid = this_grid();
    let n = a.len().min(b.len());
    let mut i = grid.thread_rank() as usize;
    let stride = grid.num_threads() as usize;
    while i < n {
        let (x, y) = (a[i], b[i]);
        if x != y {
            let both = f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan();
            record(&counts, both, i);
        }
        i += stride;
    }
}

/// [`math_diff32`] for `f64` results; with `nan_apart` 0, for results of
/// any type: every difference of bits counts in `counts[0]`.
#[kernel]
pub fn math_diff64(a: &[u64], b: &[u64], nan_apart: u32, counts: AtomicSlice<u32>) {
    let grid = this_grid();
    let n = a.len().min(b.len());
    let mut i = grid.thread_rank() as usize;
    let stride = grid.num_threads() as usize;
    while i < n {
        let (x, y) = (a[i], b[i]);
        if x != y {
            let both = nan_apart != 0 && f64::from_bits(x).is_nan() && f64::from_bits(y).is_nan();
            record(&counts, both, i);
        }
        i += stride;
    }
}

/// Counts one difference (see [`math_diff32`]).
#[inline(always)]
fn record(counts: &AtomicSlice<u32>, both_nan: bool, i: usize) {
    if both_nan {
        counts.at(1).fetch_add(1, Ordering::Relaxed);
    } else {
        let k = counts.at(0).fetch_add(1, Ordering::Relaxed) as usize;
        if let Some(slot) = counts.get(2 + k) {
            slot.store(i as u32, Ordering::Relaxed);
        }
    }
}
