//! The kernels of the half-precision differential test
//! (tests/tests/gpu_half.rs): `cg_core::half`'s arithmetic, conversions
//! and pairs, chosen by index, and shuffles and collectives of halves on
//! tiles of 1 to 32 and on coalesced groups. Their twins in
//! tests/twins/half.cu do the same with `cuda_fp16.h`, `cuda_bf16.h`
//! and `cooperative_groups`.
//!
//! `kind` picks the type: 0 `f16`, 1 `bf16`; a half travels in the low 16
//! bits of a `u32` word, a pair ([`Half2`]) fills the word.
use cg_core::prelude::*;

/// [`half_ops`]' operations, by index: the arithmetic (0 to 21), then the
/// math functions of one half (22 to 38, [`HALF_UNARY`]), of two and
/// three (39 to 45, `f(a, b)` and `f(a, b, c)`), and the same of pairs
/// (46 to 69).
pub const HALF_OPS: [&str; 70] = [
    "hadd",
    "hsub",
    "hmul",
    "hdiv",
    "hfma",
    "hneg",
    "habs",
    "hmin",
    "hmax",
    "compare",
    "to_float",
    "to_int",
    "to_uint",
    "add2",
    "sub2",
    "mul2",
    "div2",
    "fma2",
    "neg2",
    "abs2",
    "min2",
    "max2",
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
    "hmax_nan",
    "hmin_nan",
    "hfma_relu",
    "hadd_sat",
    "hsub_sat",
    "hmul_sat",
    "hfma_sat",
    "h2sqrt",
    "h2rsqrt",
    "h2rcp",
    "h2exp",
    "h2exp2",
    "h2exp10",
    "h2log",
    "h2log2",
    "h2log10",
    "h2sin",
    "h2cos",
    "h2tanh",
    "h2tanh_approx",
    "h2floor",
    "h2ceil",
    "h2trunc",
    "h2rint",
    "max2_nan",
    "min2_nan",
    "fma2_relu",
    "add2_sat",
    "sub2_sat",
    "mul2_sat",
    "fma2_sat",
];

/// The first of [`HALF_OPS`]' math functions of one half; the pairs'
/// start [`HALF_PAIR_OFFSET`] later.
pub const HALF_UNARY: core::ops::Range<u32> = 22..39;

/// The first of the functions of two or three halves.
pub const HALF_BINARY: core::ops::Range<u32> = 39..46;

/// From a function of halves to the same of pairs, in [`HALF_OPS`].
pub const HALF_PAIR_OFFSET: u32 = 24;

/// [`half_from`]'s conversions, by index.
pub const HALF_FROM: [&str; 5] = [
    "from_float",
    "from_double",
    "from_int",
    "from_uint",
    "from_floats",
];

/// [`half_collective`]'s operations, by index.
pub const HALF_COLLECTIVE: [&str; 13] = [
    "shfl",
    "shfl_up",
    "shfl_down",
    "shfl_xor",
    "reduce plus",
    "reduce less",
    "reduce greater",
    "inclusive plus",
    "inclusive less",
    "inclusive greater",
    "exclusive plus",
    "exclusive less",
    "exclusive greater",
];

/// `HALF_OPS[op]` of `a`, `b`, `c` as `H`; the result's bits.
#[inline(always)]
pub fn half_op<H: HalfMath>(op: u32, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (
        H::from_bits16(a as u16),
        H::from_bits16(b as u16),
        H::from_bits16(c as u16),
    );
    let (p, q, r) = (
        Half2::<H>::from_bits(a),
        Half2::<H>::from_bits(b),
        Half2::<H>::from_bits(c),
    );
    let one = |h: H| h.bits() as u32;
    match op {
        0 => one(x.hadd(y)),
        1 => one(x.hsub(y)),
        2 => one(x.hmul(y)),
        3 => one(x.hdiv(y)),
        4 => one(x.hfma(y, z)),
        5 => one(x.hneg()),
        6 => one(x.habs()),
        7 => one(x.hmin(y)),
        8 => one(x.hmax(y)),
        9 => {
            (x == y) as u32
                | ((x != y) as u32) << 1
                | ((x < y) as u32) << 2
                | ((x <= y) as u32) << 3
                | ((x > y) as u32) << 4
                | ((x >= y) as u32) << 5
        }
        10 => x.to_float().to_bits(),
        11 => x.to_int() as u32,
        12 => x.to_uint(),
        13 => (p + q).to_bits(),
        14 => (p - q).to_bits(),
        15 => (p * q).to_bits(),
        16 => (p / q).to_bits(),
        17 => p.mul_add(q, r).to_bits(),
        18 => (-p).to_bits(),
        19 => p.abs().to_bits(),
        20 => p.min(q).to_bits(),
        21 => p.max(q).to_bits(),
        22..=45 => one(half_math(op, x, y, z)),
        46..=69 => pair_math(op - HALF_PAIR_OFFSET, p, q, r).to_bits(),
        _ => 0,
    }
}

/// [`HALF_OPS`]' math function `op` (22 to 45) of halves.
#[inline(always)]
fn half_math<H: HalfMath>(op: u32, x: H, y: H, z: H) -> H {
    match op {
        22 => x.hsqrt(),
        23 => x.hrsqrt(),
        24 => x.hrcp(),
        25 => x.hexp(),
        26 => x.hexp2(),
        27 => x.hexp10(),
        28 => x.hlog(),
        29 => x.hlog2(),
        30 => x.hlog10(),
        31 => x.hsin(),
        32 => x.hcos(),
        33 => x.htanh(),
        34 => x.htanh_approx(),
        35 => x.hfloor(),
        36 => x.hceil(),
        37 => x.htrunc(),
        38 => x.hrint(),
        39 => x.hmax_nan(y),
        40 => x.hmin_nan(y),
        41 => x.hfma_relu(y, z),
        42 => x.hadd_sat(y),
        43 => x.hsub_sat(y),
        44 => x.hmul_sat(y),
        _ => x.hfma_sat(y, z),
    }
}

/// [`half_math`]'s function `op` (22 to 45) of pairs.
#[inline(always)]
fn pair_math<H: HalfMath>(op: u32, p: Half2<H>, q: Half2<H>, r: Half2<H>) -> Half2<H> {
    match op {
        22 => p.sqrt(),
        23 => p.rsqrt(),
        24 => p.rcp(),
        25 => p.exp(),
        26 => p.exp2(),
        27 => p.exp10(),
        28 => p.log(),
        29 => p.log2(),
        30 => p.log10(),
        31 => p.sin(),
        32 => p.cos(),
        33 => p.tanh(),
        34 => p.tanh_approx(),
        35 => p.floor(),
        36 => p.ceil(),
        37 => p.trunc(),
        38 => p.rint(),
        39 => p.max_nan(q),
        40 => p.min_nan(q),
        41 => p.mul_add_relu(q, r),
        42 => p.add_sat(q),
        43 => p.sub_sat(q),
        44 => p.mul_sat(q),
        _ => p.mul_add_sat(q, r),
    }
}

/// `HALF_OPS[op]` of each triple of inputs, as `f16` (`kind` 0) or `bf16`.
#[kernel]
pub fn half_ops(kind: u32, op: u32, a: &[u32], b: &[u32], c: &[u32], mut out: Output<u32>) {
    let grid = this_grid();
    out.truncate(a.len().min(b.len()).min(c.len()));
    for (i, r) in out.grid_stride(&grid) {
        *r = if kind == 0 {
            half_op::<f16>(op, a[i], b[i], c[i])
        } else {
            half_op::<bf16>(op, a[i], b[i], c[i])
        };
    }
}

/// `HALF_FROM[op]` of input `i` as `H`: the result's bits (a pair's for
/// `from_floats`, of `f[i]` and `f[i ^ 1]`).
#[inline(always)]
pub fn half_from_one<H: HalfFloat>(op: u32, f: &[f32], d: &[f64], n: &[i32], i: usize) -> u32 {
    match op {
        0 => H::from_float(f[i]).bits() as u32,
        1 => H::from_double(d[i]).bits() as u32,
        2 => H::from_int(n[i]).bits() as u32,
        3 => H::from_uint(n[i] as u32).bits() as u32,
        4 => Half2::<H>::from_floats(f[i], f[i ^ 1]).to_bits(),
        _ => 0,
    }
}

/// `HALF_FROM[op]` of each input.
#[kernel]
pub fn half_from(kind: u32, op: u32, f: &[f32], d: &[f64], n: &[i32], mut out: Output<u32>) {
    let grid = this_grid();
    out.truncate(f.len().min(d.len()).min(n.len()) & !1);
    for (i, r) in out.grid_stride(&grid) {
        *r = if kind == 0 {
            half_from_one::<f16>(op, f, d, n, i)
        } else {
            half_from_one::<bf16>(op, f, d, n, i)
        };
    }
}

/// `HALF_COLLECTIVE[op]` of `v` in `g`; `xor` says whether `g` has
/// `shfl_xor` (tiles).
#[inline(always)]
fn collective<G: WarpGroup + Collective, T: Pod + PartialOrd>(
    g: &G,
    op: u32,
    v: T,
    xor: impl Fn(T) -> T,
) -> T
where
    T: core::ops::Add<Output = T>,
{
    let n = g.num_threads();
    match op {
        0 => g.shfl(v, (g.thread_rank() + 1) % n),
        1 => g.shfl_up(v, 1),
        2 => g.shfl_down(v, 1),
        3 => xor(v),
        4 => reduce(g, v, Plus),
        5 => reduce(g, v, Less),
        6 => reduce(g, v, Greater),
        7 => inclusive_scan(g, v, Plus),
        8 => inclusive_scan(g, v, Less),
        9 => inclusive_scan(g, v, Greater),
        10 => exclusive_scan(g, v, Plus),
        11 => exclusive_scan(g, v, Less),
        12 => exclusive_scan(g, v, Greater),
        _ => v,
    }
}

/// A pair's collectives: the shuffles and `Plus` (`__hadd2`); the
/// minimum and maximum are the scalars'.
#[inline(always)]
fn pair_collective<G: WarpGroup + Collective, H: HalfFloat>(
    g: &G,
    op: u32,
    v: Half2<H>,
    xor: impl Fn(Half2<H>) -> Half2<H>,
) -> Half2<H> {
    let n = g.num_threads();
    match op {
        0 => g.shfl(v, (g.thread_rank() + 1) % n),
        1 => g.shfl_up(v, 1),
        2 => g.shfl_down(v, 1),
        3 => xor(v),
        4 => reduce(g, v, Plus),
        7 => inclusive_scan(g, v, Plus),
        10 => exclusive_scan(g, v, Plus),
        _ => v,
    }
}

/// The word `word` as `kind` (0 `f16`, 1 `bf16`, 2 a pair of `f16`, 3 of
/// `bf16`) through [`collective`] in `g`.
#[inline(always)]
fn on_kind<G: WarpGroup + Collective>(
    g: &G,
    kind: u32,
    op: u32,
    word: u32,
    xor: impl Fn(u32) -> u32,
) -> u32 {
    match kind {
        0 => {
            let v = f16::from_bits(word as u16);
            collective(g, op, v, |v| f16::from_bits(xor(v.to_bits() as u32) as u16)).to_bits()
                as u32
        }
        1 => {
            let v = bf16::from_bits(word as u16);
            collective(
                g,
                op,
                v,
                |v| bf16::from_bits(xor(v.to_bits() as u32) as u16),
            )
            .to_bits() as u32
        }
        2 => pair_collective(g, op, Half2::<f16>::from_bits(word), |v| {
            Half2::from_bits(xor(v.to_bits()))
        })
        .to_bits(),
        _ => pair_collective(g, op, Half2::<bf16>::from_bits(word), |v| {
            Half2::from_bits(xor(v.to_bits()))
        })
        .to_bits(),
    }
}

/// `HALF_COLLECTIVE[op]` of each thread's `input` word as `kind` (see
/// [`on_kind`]) in its tile of `size` threads (1 to 32), or with `size`
/// 0 in its half of `binary_partition(coalesced_threads(), tid % 3 == 0)`
/// (no `shfl_xor` there: op 3 returns the value). One thread per input:
/// the grid has exactly `input.len()` threads.
#[kernel]
pub fn half_collective(kind: u32, op: u32, size: u32, input: &[u32], mut out: Output<u32>) {
    let block = this_thread_block();
    let grid = this_grid();
    let word = input[grid.thread_rank() as usize];
    macro_rules! tile {
        ($n:literal) => {{
            let t = tiled_partition::<$n>(&block);
            on_kind(&t, kind, op, word, |w| t.shfl_xor(w, 1))
        }};
    }
    let r = match size {
        1 => tile!(1),
        2 => tile!(2),
        4 => tile!(4),
        8 => tile!(8),
        16 => tile!(16),
        32 => tile!(32),
        _ => {
            let g = binary_partition(&coalesced_threads(), block.thread_rank() % 3 == 0);
            on_kind(&g, kind, op, word, |w| w)
        }
    };
    out.for_thread(&grid, |slot| *slot = r);
}
