//! The half-precision instructions behind [`crate::half`], on the GPU
//! only (the host computes the same bits in `half/host.rs`). Values travel
//! as their bits: `u16` in a `.b16` register for one, `u32` in a `.b32`
//! register for a pair (`.f16x2`/`.bf16x2`, the first value in the low
//! half).
//!
//! Every instruction is the one nvcc's `cuda_fp16.h`/`cuda_bf16.h` emit
//! for the same call on the same architecture, with one exception: the
//! rounding is spelled out (`add.rn.f16`, not `add.f16`), so that ptxas
//! never fuses a product and a sum into one `fma` behind the program's
//! back (CUDA's `__hadd_rn`). On sm_80 `bf16` has no `add`, `sub` or `mul`
//! (they are sm_90's): there, as nvcc does, they are `fma.rn.bf16` with
//! the constant `1.0`, `-1.0` or `-0.0`, which gives the same bits.
//!
//! The `f16` and `bf16` sets are one macro, instantiated twice.

use core::arch::asm;

/// One `.b16` operand in, one out.
macro_rules! unary16 {
    ($(#[$doc:meta])* $name:ident => $insn:expr) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: u16) -> u16 {
            let d: u16;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!("{{ ", $insn, " }}"), d = out(reg16) d, a = in(reg16) a,
                     options(pure, nomem, nostack))
            };
            d
        }
    };
}

/// Two `.b16` operands in, one out.
macro_rules! binary16 {
    ($(#[$doc:meta])* $name:ident => $insn:expr) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: u16, b: u16) -> u16 {
            let d: u16;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!("{{ ", $insn, " }}"), d = out(reg16) d, a = in(reg16) a,
                     b = in(reg16) b, options(pure, nomem, nostack))
            };
            d
        }
    };
}

/// One `.b32` operand (a pair) in, one out.
macro_rules! unary32 {
    ($(#[$doc:meta])* $name:ident => $insn:expr) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: u32) -> u32 {
            let d: u32;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!("{{ ", $insn, " }}"), d = out(reg32) d, a = in(reg32) a,
                     options(pure, nomem, nostack))
            };
            d
        }
    };
}

/// Two `.b32` operands (pairs) in, one out.
macro_rules! binary32 {
    ($(#[$doc:meta])* $name:ident => $insn:expr) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: u32, b: u32) -> u32 {
            let d: u32;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!("{{ ", $insn, " }}"), d = out(reg32) d, a = in(reg32) a,
                     b = in(reg32) b, options(pure, nomem, nostack))
            };
            d
        }
    };
}

/// Functions of CUDA's half-precision library (`cuda_fp16.h`,
/// `cuda_bf16.h`) that are instruction sequences: calls to the definitions
/// cg-builder compiles with nvcc from `math.cu` (`cg_math_<cuda>_<t>`, see
/// `cg_builder::math`) and inlines, so that the instructions are nvcc's.
/// `$w` is the operand's width: `u16` for a half, `u32` for a pair.
macro_rules! library {
    ($t:literal: $($(#[$cfg:meta])? $name:ident: $cuda:literal, $w:ty;)*) => {
        mod library {
            extern "C" {
                $(
                    $(#[$cfg])?
                    #[link_name = concat!("cg_math_", $cuda, "_", $t)]
                    pub(crate) fn $name(a: u32) -> u32;
                )*
            }
        }
        $(
            $(#[$cfg])?
            #[doc = concat!("CUDA's `", $cuda, "`, nvcc's instructions (cg-builder's library).")]
            #[inline(always)]
            pub(crate) fn $name(a: $w) -> $w {
                // SAFETY: a pure function of its argument, defined by
                // cg-builder from nvcc's compilation of CUDA's function.
                unsafe { library::$name(a as u32) as $w }
            }
        )*
    };
}

/// The instructions of one half type: `$t` is its PTX type (`f16`,
/// `bf16`), `$one`/`$neg_one`/`$neg_zero` its constants' bits (one value, then a pair of them), `$native`
/// the condition under which it has `add`/`sub`/`mul` of its own, `$sat`
/// whether they take `.sat` (`f16`; `bf16` clamps with `max` and `min`, as
/// nvcc's `__hadd_sat` does), `$one_bits`.. the constants as integers.
macro_rules! half_type {
    ($m:ident, $t:literal, one: $one:literal, $one2:literal, neg_one: $neg_one:literal,
     $neg_one2:literal, neg_zero: $neg_zero:literal, $neg_zero2:literal, native: $native:meta,
     sat: $sat:meta, bits: $one_bits:literal, $one2_bits:literal, $neg_one_bits:literal,
     $neg_one2_bits:literal) => {
        pub(crate) mod $m {
            use super::*;

            #[cfg($native)]
            binary16!(
                /// `add.rn`: `a + b`.
                add => concat!("add.rn.", $t, " {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary16!(
                /// `a + b` as `fma.rn(a, 1.0, b)`.
                add => concat!(".reg .b16 c; mov.b16 c, ", $one, "; fma.rn.", $t, " {d}, {a}, c, {b};"));
            #[cfg($native)]
            binary16!(
                /// `sub.rn`: `a - b`.
                sub => concat!("sub.rn.", $t, " {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary16!(
                /// `a - b` as `fma.rn(b, -1.0, a)`.
                sub => concat!(".reg .b16 c; mov.b16 c, ", $neg_one, "; fma.rn.", $t, " {d}, {b}, c, {a};"));
            #[cfg($native)]
            binary16!(
                /// `mul.rn`: `a * b`.
                mul => concat!("mul.rn.", $t, " {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary16!(
                /// `a * b` as `fma.rn(a, b, -0.0)`.
                mul => concat!(".reg .b16 c; mov.b16 c, ", $neg_zero, "; fma.rn.", $t, " {d}, {a}, {b}, c;"));
            binary16!(
                /// `min`: the smaller, the other if one is NaN, `-0 < +0`.
                min => concat!("min.", $t, " {d}, {a}, {b};"));
            binary16!(
                /// `max`: the larger, the other if one is NaN, `-0 < +0`.
                max => concat!("max.", $t, " {d}, {a}, {b};"));
            unary16!(
                /// `neg`: the sign flipped (NaN to the canonical NaN).
                neg => concat!("neg.", $t, " {d}, {a};"));
            unary16!(
                /// `abs`: the sign cleared (NaN to the canonical NaN).
                abs => concat!("abs.", $t, " {d}, {a};"));

            binary16!(
                /// `max.NaN`: the larger, the canonical NaN if either is NaN.
                max_nan => concat!("max.NaN.", $t, " {d}, {a}, {b};"));
            binary16!(
                /// `min.NaN`: the smaller, the canonical NaN if either is NaN.
                min_nan => concat!("min.NaN.", $t, " {d}, {a}, {b};"));
            #[cfg($native)]
            unary16!(
                /// `cvt.rmi`: rounded toward minus infinity to an integer.
                floor => concat!("cvt.rmi.", $t, ".", $t, " {d}, {a};"));
            #[cfg($native)]
            unary16!(
                /// `cvt.rpi`: rounded toward plus infinity to an integer.
                ceil => concat!("cvt.rpi.", $t, ".", $t, " {d}, {a};"));
            #[cfg($native)]
            unary16!(
                /// `cvt.rzi`: rounded toward zero to an integer.
                trunc => concat!("cvt.rzi.", $t, ".", $t, " {d}, {a};"));
            #[cfg($native)]
            unary16!(
                /// `cvt.rni`: rounded to the nearest even integer.
                rint => concat!("cvt.rni.", $t, ".", $t, " {d}, {a};"));
            #[cfg($native)]
            unary16!(
                /// `tanh.approx`: the hardware's approximate `tanh`.
                tanh_approx => concat!("tanh.approx.", $t, " {d}, {a};"));

            /// `fma.rn.relu`: `a * b + c` rounded once, negative results
            /// (and NaN) to `+0`.
            #[inline(always)]
            pub(crate) fn fma_relu(a: u16, b: u16, c: u16) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.relu.", $t, " {d}, {a}, {b}, {c};"), d = out(reg16) d,
                         a = in(reg16) a, b = in(reg16) b, c = in(reg16) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `fma.rn`: `a * b + c`, rounded once.
            #[inline(always)]
            pub(crate) fn fma(a: u16, b: u16, c: u16) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.", $t, " {d}, {a}, {b}, {c};"), d = out(reg16) d,
                         a = in(reg16) a, b = in(reg16) b, c = in(reg16) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `cvt.rn.<t>.f32`: `x` rounded to nearest even.
            #[inline(always)]
            pub(crate) fn from_f32(x: f32) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rn.", $t, ".f32 {d}, {x};"), d = out(reg16) d,
                         x = in(reg32) x, options(pure, nomem, nostack))
                };
                d
            }

            #[cfg($native)]
            /// `cvt.rn.<t>.f64`.
            #[inline(always)]
            pub(crate) fn from_f64(x: f64) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rn.", $t, ".f64 {d}, {x};"), d = out(reg16) d,
                         x = in(reg64) x, options(pure, nomem, nostack))
                };
                d
            }

            #[cfg($native)]
            /// `cvt.rn.<t>.s32`.
            #[inline(always)]
            pub(crate) fn from_i32(x: i32) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rn.", $t, ".s32 {d}, {x};"), d = out(reg16) d,
                         x = in(reg32) x, options(pure, nomem, nostack))
                };
                d
            }

            #[cfg($native)]
            /// `cvt.rn.<t>.u32`.
            #[inline(always)]
            pub(crate) fn from_u32(x: u32) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rn.", $t, ".u32 {d}, {x};"), d = out(reg16) d,
                         x = in(reg32) x, options(pure, nomem, nostack))
                };
                d
            }

            #[cfg($native)]
            /// `cvt.rzi.s32.<t>`: toward zero, saturated, NaN to 0.
            #[inline(always)]
            pub(crate) fn to_i32(a: u16) -> i32 {
                let d: i32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rzi.s32.", $t, " {d}, {a};"), d = out(reg32) d,
                         a = in(reg16) a, options(pure, nomem, nostack))
                };
                d
            }

            #[cfg($native)]
            /// `cvt.rzi.u32.<t>`: toward zero, saturated, NaN to 0.
            #[inline(always)]
            pub(crate) fn to_u32(a: u16) -> u32 {
                let d: u32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rzi.u32.", $t, " {d}, {a};"), d = out(reg32) d,
                         a = in(reg16) a, options(pure, nomem, nostack))
                };
                d
            }

            // Without the type's own conversions (bf16 below sm_90), nvcc's
            // sequences: a double rounded to odd in `f32`, then to the type
            // (one correct rounding in all); integers through `f64`
            // (exact); to integers through `f32` (exact).
            #[cfg(not($native))]
            /// `x` rounded once: to odd in `f32`, then `cvt.rn.<t>.f32`.
            #[inline(always)]
            pub(crate) fn from_f64(x: f64) -> u16 {
                let f = x as f32;
                let d = f as f64;
                let mut u = f.to_bits();
                let not_nan = u << 1 <= 0xff00_0000;
                if (x > 0.0 && d > x) || (x < 0.0 && d < x) {
                    u -= 1;
                }
                if d != x && not_nan {
                    u |= 1;
                }
                from_f32(f32::from_bits(u))
            }

            #[cfg(not($native))]
            /// `i` rounded once, through `f64`.
            #[inline(always)]
            pub(crate) fn from_i32(i: i32) -> u16 {
                from_f64(i as f64)
            }

            #[cfg(not($native))]
            /// `u` rounded once, through `f64`.
            #[inline(always)]
            pub(crate) fn from_u32(u: u32) -> u16 {
                from_f64(u as f64)
            }

            #[cfg(not($native))]
            /// Toward zero, saturated, NaN to 0, through `f32`.
            #[inline(always)]
            pub(crate) fn to_i32(a: u16) -> i32 {
                f32::from_bits((a as u32) << 16) as i32
            }

            #[cfg(not($native))]
            /// Toward zero, saturated, NaN to 0, through `f32`.
            #[inline(always)]
            pub(crate) fn to_u32(a: u16) -> u32 {
                f32::from_bits((a as u32) << 16) as u32
            }

            #[cfg($native)]
            binary32!(
                /// `add.rn.<t>x2`: two sums.
                add2 => concat!("add.rn.", $t, "x2 {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary32!(
                /// Two sums as `fma.rn.<t>x2(a, 1.0, b)`.
                add2 => concat!(".reg .b32 c; mov.b32 c, ", $one2, "; fma.rn.", $t, "x2 {d}, {a}, c, {b};"));
            #[cfg($native)]
            binary32!(
                /// `sub.rn.<t>x2`: two differences.
                sub2 => concat!("sub.rn.", $t, "x2 {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary32!(
                /// Two differences as `fma.rn.<t>x2(b, -1.0, a)`.
                sub2 => concat!(".reg .b32 c; mov.b32 c, ", $neg_one2, "; fma.rn.", $t, "x2 {d}, {b}, c, {a};"));
            #[cfg($native)]
            binary32!(
                /// `mul.rn.<t>x2`: two products.
                mul2 => concat!("mul.rn.", $t, "x2 {d}, {a}, {b};"));
            #[cfg(not($native))]
            binary32!(
                /// Two products as `fma.rn.<t>x2(a, b, -0.0)`.
                mul2 => concat!(".reg .b32 c; mov.b32 c, ", $neg_zero2, "; fma.rn.", $t, "x2 {d}, {a}, {b}, c;"));
            binary32!(
                /// `min.<t>x2`.
                min2 => concat!("min.", $t, "x2 {d}, {a}, {b};"));
            binary32!(
                /// `max.<t>x2`.
                max2 => concat!("max.", $t, "x2 {d}, {a}, {b};"));
            unary32!(
                /// `neg.<t>x2`.
                neg2 => concat!("neg.", $t, "x2 {d}, {a};"));
            unary32!(
                /// `abs.<t>x2`.
                abs2 => concat!("abs.", $t, "x2 {d}, {a};"));

            binary32!(
                /// `max.NaN.<t>x2`.
                max_nan2 => concat!("max.NaN.", $t, "x2 {d}, {a}, {b};"));
            binary32!(
                /// `min.NaN.<t>x2`.
                min_nan2 => concat!("min.NaN.", $t, "x2 {d}, {a}, {b};"));
            #[cfg($native)]
            unary32!(
                /// `tanh.approx.<t>x2`.
                tanh_approx_x2 => concat!("tanh.approx.", $t, "x2 {d}, {a};"));

            /// `fma.rn.relu.<t>x2`: two fused multiply-adds, negative
            /// results (and NaN) to `+0`.
            #[inline(always)]
            pub(crate) fn fma_relu2(a: u32, b: u32, c: u32) -> u32 {
                let d: u32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.relu.", $t, "x2 {d}, {a}, {b}, {c};"), d = out(reg32) d,
                         a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `fma.rn.<t>x2`: two fused multiply-adds.
            #[inline(always)]
            pub(crate) fn fma2(a: u32, b: u32, c: u32) -> u32 {
                let d: u32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.", $t, "x2 {d}, {a}, {b}, {c};"), d = out(reg32) d,
                         a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `a op b` (one of the instructions above) clamped to
            /// `[+0, 1]` as nvcc's `bf16` `__hadd_sat` does: `max` with
            /// `+0` (NaN and `-0` to `+0`), then `min` with 1.
            #[cfg(not($sat))]
            #[inline(always)]
            fn clamp(r: u16) -> u16 {
                min(max(r, 0), $one_bits)
            }
            #[cfg(not($sat))]
            #[inline(always)]
            fn clamp2(r: u32) -> u32 {
                min2(max2(r, 0), $one2_bits)
            }
            #[cfg($sat)]
            binary16!(
                /// `add.sat`: `a + b` clamped to `[+0, 1]`, NaN to `+0`.
                add_sat => concat!("add.sat.", $t, " {d}, {a}, {b};"));
            #[cfg($sat)]
            binary16!(
                /// `sub.sat`: `a - b` clamped to `[+0, 1]`, NaN to `+0`.
                sub_sat => concat!("sub.sat.", $t, " {d}, {a}, {b};"));
            #[cfg($sat)]
            binary16!(
                /// `mul.sat`: `a * b` clamped to `[+0, 1]`, NaN to `+0`.
                mul_sat => concat!("mul.sat.", $t, " {d}, {a}, {b};"));
            #[cfg($sat)]
            binary32!(
                /// `add.sat.<t>x2`.
                add_sat2 => concat!("add.sat.", $t, "x2 {d}, {a}, {b};"));
            #[cfg($sat)]
            binary32!(
                /// `sub.sat.<t>x2`.
                sub_sat2 => concat!("sub.sat.", $t, "x2 {d}, {a}, {b};"));
            #[cfg($sat)]
            binary32!(
                /// `mul.sat.<t>x2`.
                mul_sat2 => concat!("mul.sat.", $t, "x2 {d}, {a}, {b};"));

            /// `fma.rn.sat`: `a * b + c` rounded once, clamped to `[+0, 1]`.
            #[cfg($sat)]
            #[inline(always)]
            pub(crate) fn fma_sat(a: u16, b: u16, c: u16) -> u16 {
                let d: u16;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.sat.", $t, " {d}, {a}, {b}, {c};"), d = out(reg16) d,
                         a = in(reg16) a, b = in(reg16) b, c = in(reg16) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `fma.rn.sat.<t>x2`.
            #[cfg($sat)]
            #[inline(always)]
            pub(crate) fn fma_sat2(a: u32, b: u32, c: u32) -> u32 {
                let d: u32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("fma.rn.sat.", $t, "x2 {d}, {a}, {b}, {c};"), d = out(reg32) d,
                         a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
                         options(pure, nomem, nostack))
                };
                d
            }

            /// `a + b` as `fma.rn(a, 1.0, b)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn add_sat(a: u16, b: u16) -> u16 {
                clamp(fma(a, $one_bits, b))
            }
            /// `a - b` as `fma.rn(b, -1.0, a)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn sub_sat(a: u16, b: u16) -> u16 {
                clamp(fma(b, $neg_one_bits, a))
            }
            /// `a * b` as `fma.rn(a, b, -0.0)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn mul_sat(a: u16, b: u16) -> u16 {
                clamp(fma(a, b, 0x8000))
            }
            /// `fma.rn`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn fma_sat(a: u16, b: u16, c: u16) -> u16 {
                clamp(fma(a, b, c))
            }
            /// Two sums as `fma.rn.<t>x2(a, 1.0, b)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn add_sat2(a: u32, b: u32) -> u32 {
                clamp2(fma2(a, $one2_bits, b))
            }
            /// Two differences as `fma.rn.<t>x2(b, -1.0, a)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn sub_sat2(a: u32, b: u32) -> u32 {
                clamp2(fma2(b, $neg_one2_bits, a))
            }
            /// Two products as `fma.rn.<t>x2(a, b, -0.0)`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn mul_sat2(a: u32, b: u32) -> u32 {
                clamp2(fma2(a, b, 0x8000_8000))
            }
            /// `fma.rn.<t>x2`, clamped.
            #[cfg(not($sat))]
            #[inline(always)]
            pub(crate) fn fma_sat2(a: u32, b: u32, c: u32) -> u32 {
                clamp2(fma2(a, b, c))
            }

            library! { $t:
                sqrt: "hsqrt", u16;
                rsqrt: "hrsqrt", u16;
                rcp: "hrcp", u16;
                exp: "hexp", u16;
                exp2: "hexp2", u16;
                exp10: "hexp10", u16;
                log: "hlog", u16;
                log2: "hlog2", u16;
                log10: "hlog10", u16;
                sin: "hsin", u16;
                cos: "hcos", u16;
                tanh: "htanh", u16;
                #[cfg(not($native))] floor: "hfloor", u16;
                #[cfg(not($native))] ceil: "hceil", u16;
                #[cfg(not($native))] trunc: "htrunc", u16;
                #[cfg(not($native))] rint: "hrint", u16;
                #[cfg(not($native))] tanh_approx: "htanh_approx", u16;
                sqrt_x2: "h2sqrt", u32;
                rsqrt_x2: "h2rsqrt", u32;
                rcp_x2: "h2rcp", u32;
                exp2_x2: "h2exp2", u32;
                exp_x2: "h2exp", u32;
                exp10_x2: "h2exp10", u32;
                log_x2: "h2log", u32;
                log2_x2: "h2log2", u32;
                log10_x2: "h2log10", u32;
                sin_x2: "h2sin", u32;
                cos_x2: "h2cos", u32;
                tanh_x2: "h2tanh", u32;
                #[cfg(not($native))] tanh_approx_x2: "h2tanh_approx", u32;
            }

            /// `cvt.rn.<t>x2.f32 d, hi, lo`: two floats rounded into a pair
            /// (`lo` in the low half).
            #[inline(always)]
            pub(crate) fn from_f32x2(lo: f32, hi: f32) -> u32 {
                let d: u32;
                // SAFETY: arithmetic on registers.
                unsafe {
                    asm!(concat!("cvt.rn.", $t, "x2.f32 {d}, {hi}, {lo};"), d = out(reg32) d,
                         hi = in(reg32) hi, lo = in(reg32) lo, options(pure, nomem, nostack))
                };
                d
            }
        }
    };
}

half_type!(f16, "f16", one: "0x3c00", "0x3c003c00", neg_one: "0xbc00", "0xbc00bc00",
           neg_zero: "0x8000", "0x80008000", native: all(), sat: all(),
           bits: 0x3c00, 0x3c00_3c00, 0xbc00, 0xbc00_bc00);
half_type!(bf16, "bf16", one: "0x3f80", "0x3f803f80", neg_one: "0xbf80", "0xbf80bf80",
           neg_zero: "0x8000", "0x80008000", native: target_feature = "sm_90", sat: any(),
           bits: 0x3f80, 0x3f80_3f80, 0xbf80, 0xbf80_bf80);

/// `cvt.f32.f16`: exact (a NaN becomes the canonical `0x7fffffff`).
#[inline(always)]
pub(crate) fn f16_to_f32(a: u16) -> f32 {
    let d: f32;
    // SAFETY: arithmetic on registers.
    unsafe {
        asm!("cvt.f32.f16 {d}, {a};", d = out(reg32) d, a = in(reg16) a,
             options(pure, nomem, nostack))
    };
    d
}

/// `rcp.approx.ftz.f32`, the reciprocal `__hdiv` starts from.
#[inline(always)]
pub(crate) fn rcp_approx_ftz_f32(a: f32) -> f32 {
    let d: f32;
    // SAFETY: arithmetic on registers.
    unsafe {
        asm!("rcp.approx.ftz.f32 {d}, {a};", d = out(reg32) d, a = in(reg32) a,
             options(pure, nomem, nostack))
    };
    d
}

/// `div.approx.f32`, the quotient the `bf16` `__hdiv` starts from.
#[inline(always)]
pub(crate) fn div_approx_f32(a: f32, b: f32) -> f32 {
    let d: f32;
    // SAFETY: arithmetic on registers.
    unsafe {
        asm!("div.approx.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a,
             b = in(reg32) b, options(pure, nomem, nostack))
    };
    d
}
