//! `cg_core::half`'s math functions off the GPU (the simulator's model)
//! against what nvcc's `cuda_fp16.h`/`cuda_bf16.h` functions gave on an
//! H200 for every input (tests/data/half_math_probe.cu, sm_90 and sm_80's
//! code; docs/NOTES.md, 2026-11-29): each function of one argument on all
//! 2^16 halves and on 2^16 pairs, each of two or three arguments on all
//! 2^16 first operands against 24 special second ones.
//!
//! The records are kept small: per function and architecture, a 64-bit
//! hash of its results (tests/data/half_math_h200.txt) and the inputs where
//! the GPU's result is not the model's, with the GPU's bits
//! (`half_math_h200_<type>_<arch>_<function>.bin`, only where there are
//! some). The test rebuilds every result from the model and those
//! exceptions and compares the hash: so the model gives the GPU's bits
//! everywhere but at the recorded inputs, and there it is within the
//! bound of `cg_core::half::HalfMath`'s table (1 ulp).
//!
//! `CG_HALF_MATH_RECORDS=DIR` (the probe's raw files) rewrites the records.

use cg_core::half::{bf16, f16, Half2, HalfFloat, HalfMath};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The functions of one argument, in the probe's order.
const UNARY: [&str; 17] = [
    "hsqrt",
    "hrsqrt",
    "hrcp",
    "hexp",
    "hexp2",
    "hexp10",
    "hlog",
    "hlog2",
    "hlog10",
    "hsin",
    "hcos",
    "htanh",
    "htanh_approx",
    "hfloor",
    "hceil",
    "htrunc",
    "hrint",
];

/// The functions of two and three arguments (`f(a, b, b)`), in the
/// probe's order.
const BINARY: [&str; 7] = [
    "hmax_nan",
    "hmin_nan",
    "hadd_sat",
    "hsub_sat",
    "hmul_sat",
    "hfma_relu",
    "hfma_sat",
];

/// The probe's second operands: zeros, ones, infinities, NaNs, subnormals
/// and extremes of both formats, values next to the saturation bounds.
const SECOND: [u16; 24] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3f80, 0xbf80, 0x7c00, 0xfc00, 0x7f80, 0xff80, 0x7fff, 0x7e00,
    0x7fc0, 0x0001, 0x8001, 0x3800, 0x3f00, 0x4000, 0xc000, 0x7bff, 0x7f7f, 0x3bff, 0x3f7f, 0x1234,
];

/// The high half of the probe's pair `i`.
fn partner(i: usize) -> usize {
    (i * 40503 + 12345) & 0xffff
}

/// Per function, the hash of its results.
type Hashes = Vec<(String, u64)>;
/// A unary function's inputs where the GPU differs from the model, with
/// the GPU's bits.
type Exceptions = BTreeMap<u16, u16>;
/// A line of the records: function, exceptions, hash.
type Record = (String, usize, u64);

/// The largest distance in ulps the model may be from a recorded result.
const BOUND_ULP: i64 = 1;

fn unary<H: HalfMath>(k: usize, x: H) -> H {
    match k {
        0 => x.hsqrt(),
        1 => x.hrsqrt(),
        2 => x.hrcp(),
        3 => x.hexp(),
        4 => x.hexp2(),
        5 => x.hexp10(),
        6 => x.hlog(),
        7 => x.hlog2(),
        8 => x.hlog10(),
        9 => x.hsin(),
        10 => x.hcos(),
        11 => x.htanh(),
        12 => x.htanh_approx(),
        13 => x.hfloor(),
        14 => x.hceil(),
        15 => x.htrunc(),
        _ => x.hrint(),
    }
}

fn pair<H: HalfMath>(k: usize, p: Half2<H>) -> Half2<H> {
    match k {
        0 => p.sqrt(),
        1 => p.rsqrt(),
        2 => p.rcp(),
        3 => p.exp(),
        4 => p.exp2(),
        5 => p.exp10(),
        6 => p.log(),
        7 => p.log2(),
        8 => p.log10(),
        9 => p.sin(),
        10 => p.cos(),
        11 => p.tanh(),
        12 => p.tanh_approx(),
        13 => p.floor(),
        14 => p.ceil(),
        15 => p.trunc(),
        _ => p.rint(),
    }
}

fn binary<H: HalfFloat>(k: usize, x: H, y: H) -> H {
    match k {
        0 => x.hmax_nan(y),
        1 => x.hmin_nan(y),
        2 => x.hadd_sat(y),
        3 => x.hsub_sat(y),
        4 => x.hmul_sat(y),
        5 => x.hfma_relu(y, y),
        _ => x.hfma_sat(y, y),
    }
}

/// FNV-1a, 64 bits, of little-endian words.
fn hash(words: impl Iterator<Item = u32>, bytes: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in &w.to_le_bytes()[..bytes] {
            h = (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Distance in ulps of two non-NaN halves (same order as the values).
fn ulps(a: u16, b: u16) -> i64 {
    let key = |u: u16| {
        if u & 0x8000 != 0 {
            -((u & 0x7fff) as i64)
        } else {
            u as i64
        }
    };
    (key(a) - key(b)).abs()
}

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn exceptions_file(kind: &str, arch: &str, name: &str) -> PathBuf {
    data().join(format!("half_math_h200_{kind}_{arch}_{name}.bin"))
}

/// The GPU's results of every function as the model and `exceptions`
/// (per unary function: input to the GPU's bits) give them: one hash per
/// line of the records, named `(unary and pair names, binary names)`.
fn model_hashes<H: HalfMath>(exceptions: &[Exceptions]) -> Hashes {
    let scalar = |k: usize, i: usize| -> u16 {
        exceptions[k]
            .get(&(i as u16))
            .copied()
            .unwrap_or_else(|| unary(k, H::from_bits16(i as u16)).bits())
    };
    let mut out = Vec::new();
    for (k, name) in UNARY.iter().enumerate() {
        out.push((
            name.to_string(),
            hash((0..65536).map(|i| scalar(k, i) as u32), 2),
        ));
    }
    for (k, name) in UNARY.iter().enumerate() {
        // The pair's model is the scalar one on each half; the GPU's pair
        // results are its scalar results (the hash says so).
        let model_pair = |i: usize| {
            let p = Half2::new(H::from_bits16(i as u16), H::from_bits16(partner(i) as u16));
            let m = pair(k, p).to_bits();
            let lo = exceptions[k]
                .get(&(i as u16))
                .map_or(m & 0xffff, |&b| b as u32);
            let hi = exceptions[k]
                .get(&(partner(i) as u16))
                .map_or(m >> 16, |&b| b as u32);
            lo | hi << 16
        };
        out.push((
            format!("h2{}", &name[1..]),
            hash((0..65536).map(model_pair), 4),
        ));
    }
    for (k, name) in BINARY.iter().enumerate() {
        let all = SECOND.iter().flat_map(|&b| {
            (0..65536)
                .map(move |i| binary(k, H::from_bits16(i as u16), H::from_bits16(b)).bits() as u32)
        });
        out.push((name.to_string(), hash(all, 2)));
    }
    out
}

/// The probe's raw results of one type and architecture: the hashes of
/// each function's results, and the unary functions' exceptions.
fn from_raw<H: HalfMath>(raw: &[u8]) -> (Hashes, Vec<Exceptions>) {
    let n = 65536;
    let word16 = |o: usize| u16::from_le_bytes([raw[o], raw[o + 1]]) as u32;
    let word32 = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    let pairs_at = UNARY.len() * n * 2;
    let binary_at = pairs_at + UNARY.len() * n * 4;
    assert_eq!(
        raw.len(),
        binary_at + BINARY.len() * SECOND.len() * n * 2,
        "the probe's layout"
    );
    let mut hashes = Vec::new();
    let mut exceptions = Vec::new();
    for (k, name) in UNARY.iter().enumerate() {
        let base = k * n * 2;
        hashes.push((
            name.to_string(),
            hash((0..n).map(|i| word16(base + 2 * i)), 2),
        ));
        let mut e = BTreeMap::new();
        for i in 0..n {
            let gpu = word16(base + 2 * i) as u16;
            if gpu != unary(k, H::from_bits16(i as u16)).bits() {
                e.insert(i as u16, gpu);
            }
        }
        exceptions.push(e);
    }
    for (k, name) in UNARY.iter().enumerate() {
        let base = pairs_at + k * n * 4;
        hashes.push((
            format!("h2{}", &name[1..]),
            hash((0..n).map(|i| word32(base + 4 * i)), 4),
        ));
    }
    for (k, name) in BINARY.iter().enumerate() {
        let base = binary_at + k * SECOND.len() * n * 2;
        let all = (0..SECOND.len() * n).map(|i| word16(base + 2 * i));
        hashes.push((name.to_string(), hash(all, 2)));
    }
    (hashes, exceptions)
}

/// The records' (type, architecture) pairs.
const RUNS: [(&str, &str); 4] = [
    ("f16", "sm90"),
    ("f16", "sm80"),
    ("bf16", "sm90"),
    ("bf16", "sm80"),
];

fn rewrite_records(dir: &str) {
    let mut text = String::from(
        "# type arch function exceptions fnv1a64 (cg-core/tests/half_math.rs; H200, nvcc 13.0)\n",
    );
    for (kind, arch) in RUNS {
        let raw = std::fs::read(format!("{dir}/{kind}_{arch}.bin")).unwrap();
        let (hashes, exceptions) = if kind == "f16" {
            from_raw::<f16>(&raw)
        } else {
            from_raw::<bf16>(&raw)
        };
        for (i, (name, h)) in hashes.iter().enumerate() {
            let count = exceptions.get(i).map_or(0, |e| e.len());
            text.push_str(&format!("{kind} {arch} {name} {count} {h:016x}\n"));
            if count > 0 {
                let bytes: Vec<u8> = exceptions[i]
                    .iter()
                    .flat_map(|(x, g)| [x.to_le_bytes(), g.to_le_bytes()].concat())
                    .collect();
                std::fs::write(exceptions_file(kind, arch, name), bytes).unwrap();
            }
        }
    }
    std::fs::write(data().join("half_math_h200.txt"), text).unwrap();
}

/// One run's records checked: the model with the exceptions gives every
/// hash, and each exception is within the bound. Returns the lines.
fn check<H: HalfMath>(kind: &str, arch: &str, records: &[Record]) -> usize {
    let exceptions: Vec<BTreeMap<u16, u16>> = UNARY
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let count = records.iter().find(|r| r.0 == *name).unwrap().1;
            if count == 0 {
                return BTreeMap::new();
            }
            let bytes = std::fs::read(exceptions_file(kind, arch, name)).unwrap();
            assert_eq!(bytes.len(), 4 * count, "{kind} {arch} {name}");
            let e: BTreeMap<u16, u16> = bytes
                .chunks(4)
                .map(|c| {
                    (
                        u16::from_le_bytes([c[0], c[1]]),
                        u16::from_le_bytes([c[2], c[3]]),
                    )
                })
                .collect();
            for (&x, &gpu) in &e {
                let model = unary(k, H::from_bits16(x)).bits();
                assert_ne!(
                    model, gpu,
                    "{kind} {arch} {name}({x:#06x}): not an exception"
                );
                assert!(
                    ulps(model, gpu) <= BOUND_ULP,
                    "{kind} {arch} {name}({x:#06x}): the GPU's {gpu:#06x}, the model's {model:#06x}"
                );
            }
            e
        })
        .collect();
    let mut checked = 0;
    for (name, h) in model_hashes::<H>(&exceptions) {
        let want = records.iter().find(|r| r.0 == name).unwrap().2;
        assert_eq!(
            h, want,
            "{kind} {arch} {name}: the model's results are not the GPU's"
        );
        checked += 1;
    }
    checked
}

/// The records' text, rewritten first (once) under `CG_HALF_MATH_RECORDS`.
fn records() -> String {
    static REWRITTEN: std::sync::Once = std::sync::Once::new();
    REWRITTEN.call_once(|| {
        if let Ok(dir) = std::env::var("CG_HALF_MATH_RECORDS") {
            rewrite_records(&dir);
        }
    });
    std::fs::read_to_string(data().join("half_math_h200.txt")).unwrap()
}

#[test]
fn the_model_gives_the_h200s_bits_but_at_recorded_inputs_within_one_ulp() {
    let text = records();
    let mut by_run: BTreeMap<(String, String), Vec<Record>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        by_run
            .entry((f[0].to_string(), f[1].to_string()))
            .or_default()
            .push((
                f[2].to_string(),
                f[3].parse().unwrap(),
                u64::from_str_radix(f[4], 16).unwrap(),
            ));
    }
    let mut lines = 0;
    for (kind, arch) in RUNS {
        let records = &by_run[&(kind.to_string(), arch.to_string())];
        lines += if kind == "f16" {
            check::<f16>(kind, arch, records)
        } else {
            check::<bf16>(kind, arch, records)
        };
    }
    assert_eq!(lines, RUNS.len() * (2 * UNARY.len() + BINARY.len()));
}

/// The functions the GPU rounds correctly on every input are exactly those
/// without exceptions; the table in `HalfMath`'s docs says which.
#[test]
fn only_tanh_approx_has_exceptions() {
    let text = records();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let count: usize = f[3].parse().unwrap();
        assert_eq!(
            count > 0,
            f[2] == "htanh_approx" && !(f[0] == "bf16" && f[1] == "sm80"),
            "{line}"
        );
    }
}
