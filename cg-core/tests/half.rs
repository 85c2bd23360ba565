//! `cg_core::half` off the GPU (the simulator's arithmetic) against two
//! judges: the `half` crate's conversions and `f32` arithmetic (one
//! rounding more, which is exact for these formats), over every bit
//! pattern of one argument and random and special pairs; and results
//! nvcc's `__half`/`__nv_bfloat16` functions gave on an H200 (sm_90), kept
//! in `tests/data/` (see docs/NOTES.md, 2026-11-28): the special values
//! against each other and random operands, for every operation, and
//! conversions of special and random `f32`, `f64` and integers.

use cg_core::half::{bf16, f16, Half2, HalfFloat};
use cg_core::math::mul_add;

/// The canonical NaN every arithmetic instruction returns.
const NAN: u16 = 0x7fff;

/// The `half` crate's value of `x`'s bits as `H`, in `f32` (exact).
fn wide<H: HalfFloat>(x: H) -> f32 {
    if is_f16::<H>() {
        f16::from_bits(x.bits()).to_f32()
    } else {
        bf16::from_bits(x.bits()).to_f32()
    }
}

fn is_f16<H: HalfFloat>() -> bool {
    core::any::TypeId::of::<H>() == core::any::TypeId::of::<f16>()
}

/// The `half` crate's rounding of `v` (correct for `f32`, NaN aside).
fn narrow<H: HalfFloat>(v: f32) -> u16 {
    if v.is_nan() {
        NAN
    } else if is_f16::<H>() {
        f16::from_f32(v).to_bits()
    } else {
        bf16::from_f32(v).to_bits()
    }
}

fn is_nan<H: HalfFloat>(x: H) -> bool {
    wide(x).is_nan()
}

/// Zeros, subnormals, the extremes, infinities and NaNs, both signs.
fn specials<H: HalfFloat>() -> Vec<H> {
    let bits: &[u16] = if is_f16::<H>() {
        &[
            0x0000, 0x0001, 0x0002, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x3bff, 0x7bff, 0x7c00, 0x7c01,
            0x7e00, 0x7fff, 0x3800, 0x4000, 0x4200,
        ]
    } else {
        &[
            0x0000, 0x0001, 0x0002, 0x007f, 0x0080, 0x3f80, 0x3f81, 0x3f7f, 0x7f7f, 0x7f80, 0x7f81,
            0x7fc0, 0x7fff, 0x3f00, 0x4000, 0x4040,
        ]
    };
    bits.iter()
        .flat_map(|&b| [b, b | 0x8000])
        .map(H::from_bits16)
        .collect()
}

/// Special pairs, then pseudo-random ones (a fixed xorshift sequence).
fn pairs<H: HalfFloat>(n: usize) -> Vec<(H, H)> {
    let sp = specials::<H>();
    let mut v: Vec<(H, H)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    while v.len() < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push((H::from_bits16(s as u16), H::from_bits16((s >> 16) as u16)));
    }
    v
}

fn every_bit_pattern<H: HalfFloat>() {
    for b in 0..=u16::MAX {
        let x = H::from_bits16(b);
        let nan = is_nan(x);
        let f = x.to_float();
        if nan {
            assert!(f.is_nan());
            if is_f16::<H>() {
                assert_eq!(f.to_bits(), 0x7fff_ffff, "{b:#06x}");
            } else {
                assert_eq!(f.to_bits(), (b as u32) << 16, "{b:#06x}");
            }
        } else {
            assert_eq!(f.to_bits(), wide(x).to_bits(), "to_float {b:#06x}");
            assert_eq!(H::from_float(f).bits(), b, "from_float(to_float) {b:#06x}");
            assert_eq!(H::from_double(f as f64).bits(), b, "from_double {b:#06x}");
        }
        assert_eq!(
            x.hneg().bits(),
            if nan { NAN } else { b ^ 0x8000 },
            "hneg {b:#06x}"
        );
        assert_eq!(
            x.habs().bits(),
            if nan { NAN } else { b & 0x7fff },
            "habs {b:#06x}"
        );
        assert_eq!(x.to_int(), wide(x) as i32, "to_int {b:#06x}");
        assert_eq!(x.to_uint(), wide(x) as u32, "to_uint {b:#06x}");
    }
}

#[test]
fn one_argument_operations_are_exact_over_every_bit_pattern() {
    every_bit_pattern::<f16>();
    every_bit_pattern::<bf16>();
}

fn two_arguments<H: HalfFloat + cg_core::math::MulAdd>() {
    for (x, y) in pairs::<H>(1 << 20) {
        let (a, b) = (wide(x), wide(y));
        let ops: [(&str, H, f32); 4] = [
            ("hadd", x.hadd(y), a + b),
            ("hsub", x.hsub(y), a - b),
            ("hmul", x.hmul(y), a * b),
            ("hdiv", x.hdiv(y), a / b),
        ];
        for (name, got, exact) in ops {
            assert_eq!(
                got.bits(),
                narrow::<H>(exact),
                "{name}({:#06x}, {:#06x})",
                x.bits(),
                y.bits()
            );
        }
        // min/max: the other where one is NaN, the canonical NaN where
        // both are, -0 below +0.
        let (lo, hi) = match (is_nan(x), is_nan(y)) {
            (true, true) => (NAN, NAN),
            (true, false) => (y.bits(), y.bits()),
            (false, true) => (x.bits(), x.bits()),
            _ if a == b && a == 0.0 => (x.bits() | y.bits(), x.bits() & y.bits()),
            _ if a <= b => (x.bits(), y.bits()),
            _ => (y.bits(), x.bits()),
        };
        assert_eq!(
            x.hmin(y).bits(),
            lo,
            "hmin({:#06x}, {:#06x})",
            x.bits(),
            y.bits()
        );
        assert_eq!(
            x.hmax(y).bits(),
            hi,
            "hmax({:#06x}, {:#06x})",
            x.bits(),
            y.bits()
        );
        // fma with an exact product and sum: the sum rounded once.
        let c = H::from_bits16(y.bits() ^ 0x0001);
        let f = x.hfma(y, c);
        assert_eq!(f.bits(), mul_add(x, y, c).bits());
        let (product, addend) = (a as f64 * b as f64, wide(c) as f64);
        let exact = product + addend;
        let sum_exact = exact - product == addend && exact - addend == product;
        if exact.is_finite() && sum_exact && (exact as f32) as f64 == exact {
            assert_eq!(
                f.bits(),
                narrow::<H>(exact as f32),
                "hfma exact {:#06x} {:#06x} {:#06x} {exact:e}",
                x.bits(),
                y.bits(),
                c.bits()
            );
        }
        // The pairs compute as two scalars.
        let (p, q) = (Half2::new(x, y), Half2::new(y, x));
        assert_eq!(
            (p + q).to_bits(),
            Half2::new(x.hadd(y), y.hadd(x)).to_bits()
        );
        assert_eq!((p * q).x.bits(), x.hmul(y).bits());
        assert_eq!((p / q).y.bits(), y.hdiv(x).bits());
        assert_eq!((-p).x.bits(), x.hneg().bits());
        assert_eq!(p.mul_add(q, p).y.bits(), y.hfma(x, y).bits());
    }
}

#[test]
fn two_argument_operations_are_correctly_rounded() {
    two_arguments::<f16>();
    two_arguments::<bf16>();
}

#[test]
fn conversions_from_f32_round_as_the_half_crate_does() {
    let mut s = 0x1234_5678u32;
    for _ in 0..1 << 22 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        let v = f32::from_bits(s);
        assert_eq!(f16::from_float(v).to_bits(), narrow::<f16>(v), "{s:#010x}");
        assert_eq!(
            bf16::from_float(v).to_bits(),
            narrow::<bf16>(v),
            "{s:#010x}"
        );
    }
}

fn words16(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn words32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn ops_match_h200<H: HalfFloat>(records: &[u16]) {
    for r in records.chunks(10) {
        let (x, y, z) = (
            H::from_bits16(r[0]),
            H::from_bits16(r[1]),
            H::from_bits16(r[2]),
        );
        let ours = [
            x.hadd(y),
            x.hsub(y),
            x.hmul(y),
            x.hdiv(y),
            x.hfma(y, z),
            x.hmin(y),
            x.hmax(y),
        ];
        let names = ["hadd", "hsub", "hmul", "hdiv", "hfma", "hmin", "hmax"];
        for k in 0..7 {
            assert_eq!(
                ours[k].bits(),
                r[3 + k],
                "{} {}({:#06x}, {:#06x}, {:#06x}): nvcc on the H200 gave {:#06x}",
                core::any::type_name::<H>(),
                names[k],
                r[0],
                r[1],
                r[2],
                r[3 + k]
            );
        }
    }
}

#[test]
fn arithmetic_matches_nvccs_results_on_an_h200() {
    let all = words16(include_bytes!("data/half_h200_ops.bin"));
    let (h, b) = all.split_at(all.len() / 2);
    assert_eq!(h.len(), 11_492 * 10);
    ops_match_h200::<f16>(h);
    ops_match_h200::<bf16>(b);
}

fn conversions_match_h200<H: HalfFloat>(inputs: &[u32], results: &[u32]) {
    for (input, r) in inputs.chunks(4).zip(results.chunks(2)) {
        let f = f32::from_bits(input[0]);
        let d = f64::from_bits(input[1] as u64 | (input[2] as u64) << 32);
        let i = input[3];
        let ours = [
            H::from_float(f).bits(),
            H::from_double(d).bits(),
            H::from_int(i as i32).bits(),
            H::from_uint(i).bits(),
        ];
        let nvcc = [
            r[0] as u16,
            (r[0] >> 16) as u16,
            r[1] as u16,
            (r[1] >> 16) as u16,
        ];
        assert_eq!(
            ours,
            nvcc,
            "{} of {f:e} / {d:e} / {i}",
            core::any::type_name::<H>()
        );
    }
}

#[test]
fn conversions_match_nvccs_results_on_an_h200() {
    let all = words32(include_bytes!("data/half_h200_conversions.bin"));
    let n = all.len() / 8;
    let (inputs, results) = all.split_at(4 * n);
    let (h, b) = results.split_at(2 * n);
    conversions_match_h200::<f16>(inputs, h);
    conversions_match_h200::<bf16>(inputs, b);
}
