//! GPU tests of `cg_core::half` with nvcc as the judge: the kernels of
//! kernels/tests/src/half.rs against their twins in
//! tests/twins/half.cu (`cuda_fp16.h`, `cuda_bf16.h`,
//! `cooperative_groups`; built by nvcc -O3 -fmad=false for the GPU's
//! architecture in gpu-run's twins step, the setting of the test kernels' build), bit for bit, NaNs included (every NaN the hardware's
//! half instructions return is the canonical `0x7fff`, and ours are the
//! same instructions):
//!
//! * every arithmetic operation, comparison and conversion to `f32` and
//!   the integers of `f16`, `bf16` and their pairs, on 2^20 operand
//!   triples: every special value (zeros, subnormals, the extremes,
//!   infinities, NaNs) against every other, then random bit patterns and
//!   operands of close magnitude;
//! * the math functions (`hsqrt` .. `hrint`, `__hmax_nan`, `__hfma_relu`,
//!   the `_sat` forms, and their pairs) on every input: all 2^16 halves
//!   (pairs: each half with a partner), the functions of two and three
//!   against 64 second operands (specials and random); nvcc's results
//!   are also compared with the simulator's model, which must give the
//!   same bits but for `htanh_approx` (within 1 ulp, see
//!   `cg_core::half::HalfMath`);
//! * the conversions from `f32`, `f64`, `i32`, `u32` (and two `f32` to a
//!   pair) on 2^20 inputs: specials, random bit patterns, values next to a
//!   rounding tie;
//! * `shfl`, `shfl_up`, `shfl_down`, `shfl_xor`, `reduce` and both scans
//!   with `Plus`, `Less`, `Greater` on tiles of 1 to 32 and on coalesced
//!   groups (`binary_partition` of the threads of partial warps: blocks
//!   of 80 threads), for `f16`, `bf16` and pairs of `f16` (`Plus` only).
//!   Pairs of `bf16` are left out on the GPU: CUDA 13's shuffles refuse
//!   `__nv_bfloat162` (not trivially copyable), so its `cg::reduce` does.
//!
//! Without a GPU the kernels run on the simulator and must give what a
//! model of the GPU computes on the host (`HalfFloat`'s host arithmetic,
//! and CUDA's combine order for the collectives), the bf16 pairs included
//! (the notice `CUDA TWINS NOT LOADED` says the comparison with nvcc did
//! not run).

mod common;

use cg_core::half::{bf16, f16, Half2, HalfFloat};
use cg_test_kernels::half::{
    half_from_one, half_op, HALF_BINARY, HALF_COLLECTIVE, HALF_FROM, HALF_OPS, HALF_PAIR_OFFSET,
    HALF_UNARY,
};
use cg_tests::kernels::{HalfCollective, HalfFrom, HalfOps, Kernels};
use cooperative_groups::{Gpu, LaunchConfig, LaunchKind};
use rand::rngs::StdRng;
use rand::Rng;

const KINDS: [&str; 4] = ["f16", "bf16", "f16 pair", "bf16 pair"];

/// Zeros, subnormals, the extremes, infinities and NaNs of both formats,
/// both signs, as bits.
fn specials() -> Vec<u16> {
    let v: Vec<u16> = vec![
        0x0000, 0x0001, 0x0002, 0x03ff, 0x0400, 0x0401, 0x3c00, 0x3c01, 0x3bff, 0x7bff, 0x7c00,
        0x7c01, 0x7e00, 0x7fff, 0x7d55, 0x3800, 0x4000, 0x4200, 0x5640, 0x0200, 0x007f, 0x0080,
        0x0081, 0x3f80, 0x3f81, 0x3f7f, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0, 0x3f00, 0x4040, 0x4b80,
    ];
    v.iter().flat_map(|&b| [b, b | 0x8000]).collect()
}

/// `n` operand triples, as words (two halves each, for the pairs): every
/// special against every other, then random bit patterns and operands of
/// close magnitude.
fn triples(rng: &mut StdRng, n: usize) -> [Vec<u32>; 3] {
    let sp = specials();
    let word = |lo: u16, hi: u16| lo as u32 | (hi as u32) << 16;
    let mut t: [Vec<u32>; 3] = Default::default();
    for (i, &x) in sp.iter().enumerate() {
        for (j, &y) in sp.iter().enumerate() {
            t[0].push(word(x, sp[(i + j) % sp.len()]));
            t[1].push(word(y, sp[(i * 7 + j) % sp.len()]));
            t[2].push(word(sp[rng.random_range(0..sp.len())], y));
        }
    }
    while t[0].len() < n {
        let a: u32 = rng.random();
        let b: u32 = if t[0].len().is_multiple_of(2) {
            rng.random()
        } else {
            a ^ rng.random_range(0..32u32) ^ (rng.random_range(0..2u32) << 15)
        };
        t[0].push(a);
        t[1].push(b);
        t[2].push(rng.random());
    }
    t
}

/// `n` conversion inputs: specials, random bit patterns, values next to a
/// tie of either format.
fn conversion_inputs(rng: &mut StdRng, n: usize) -> (Vec<f32>, Vec<f64>, Vec<i32>) {
    let mut f = vec![
        0.0,
        f32::NAN,
        f32::INFINITY,
        65504.0,
        65520.0,
        65519.99,
        1e-8,
        f32::MAX,
    ];
    let mut d = vec![
        0.0,
        f64::NAN,
        f64::INFINITY,
        65520.0,
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
    ];
    let mut i = vec![0, 1, -1, 2049, 65520, i32::MAX, i32::MIN, 16_777_217];
    while f.len() < n {
        let r: u32 = rng.random();
        f.push(f32::from_bits(match f.len() % 3 {
            0 => r,
            1 => (r & !0x1fff) | [0x1000, 0x0fff, 0x1001][f.len() % 3],
            _ => (r & !0xffff) | [0x8000, 0x7fff, 0x8001][f.len() % 3],
        }));
    }
    while d.len() < n {
        let r: u64 = rng.random();
        d.push(match d.len() % 3 {
            0 => f64::from_bits(r),
            1 => rng.random_range(-70000.0..70000.0),
            _ => {
                (1.0 + 2f64.powi(-8))
                    * 2f64.powi(rng.random_range(-140..128))
                    * (1.0 + 2f64.powi(-50))
            }
        });
    }
    while i.len() < n {
        i.push(if i.len() % 2 == 0 {
            rng.random()
        } else {
            rng.random_range(-70000..70000)
        });
    }
    (f, d, i)
}

/// Results that differ, per operation, with the first few.
#[derive(Default)]
struct Found {
    compared: u64,
    differ: u64,
    first: Vec<String>,
}

impl Found {
    fn add(&mut self, got: u32, want: u32, describe: impl FnOnce() -> String) {
        self.compared += 1;
        if got != want {
            self.differ += 1;
            if self.first.len() < 6 {
                self.first.push(format!(
                    "{}: rust {got:#010x}, expected {want:#010x}",
                    describe()
                ));
            }
        }
    }
}

/// Prints one line per operation and fails when any differs.
fn report(test: &str, judge: &str, results: &[(String, Found)]) {
    let mut failed = Vec::new();
    for (name, f) in results {
        println!(
            "{test}: {name:>28}: {} compared, {} differ from {judge}",
            f.compared, f.differ
        );
        for line in &f.first {
            println!("{test}: {name:>28}:     {line}");
        }
        if f.differ > 0 {
            failed.push(name.clone());
        }
    }
    let total: u64 = results.iter().map(|(_, f)| f.compared).sum();
    println!("{test}: {total} results compared in all");
    assert!(failed.is_empty(), "{test}: differ from {judge}: {failed:?}");
}

/// The twins' module, with the notice when there is none: nvcc's build
/// with `-fmad=false`, which matches the test kernels' (`FpContract::Off`,
/// under which cg-builder compiles CUDA's half-precision math with
/// `-fmad=false` too).
fn twins(gpu: &Gpu, test: &str) -> Option<cooperative_groups::Module> {
    common::twin_module(gpu, test, "half.fmad-false.ptx")
}

#[test]
fn arithmetic_and_conversions_agree_with_cuda() {
    let test = "arithmetic_and_conversions_agree_with_cuda";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let module = twins(&gpu, test);
    // SAFETY: the twins have the Rust kernels' parameter lists.
    let twin = module.as_ref().map(|m| unsafe {
        (
            HalfOps::from_function(m.function(HalfOps::NAME, LaunchKind::Plain).unwrap()),
            HalfFrom::from_function(m.function(HalfFrom::NAME, LaunchKind::Plain).unwrap()),
        )
    });
    let judge = if twin.is_some() {
        "nvcc"
    } else {
        "the host model"
    };
    let n = if twin.is_some() && !common::quick() {
        1 << 20
    } else {
        1 << 13
    };
    let mut rng = common::rng(test);
    let [a, b, c] = triples(&mut rng, n);
    let (da, db, dc) = (
        gpu.upload(&a).unwrap(),
        gpu.upload(&b).unwrap(),
        gpu.upload(&c).unwrap(),
    );
    let cfg = LaunchConfig::new(128, 256);
    let mut results = Vec::new();
    for kind in 0..2u32 {
        for (op, name) in HALF_OPS.iter().enumerate() {
            let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
            k.half_ops
                .launch(cfg, kind, op as u32, &da, &db, &dc, &mut out)
                .unwrap();
            let want = match &twin {
                Some((ops, _)) => {
                    let mut theirs = gpu.alloc_uninit::<u32>(n).unwrap();
                    ops.launch(cfg, kind, op as u32, &da, &db, &dc, &mut theirs)
                        .unwrap();
                    theirs.to_vec().unwrap()
                }
                None => (0..n)
                    .map(|i| match kind {
                        0 => half_op::<f16>(op as u32, a[i], b[i], c[i]),
                        _ => half_op::<bf16>(op as u32, a[i], b[i], c[i]),
                    })
                    .collect(),
            };
            let mut found = Found::default();
            for (i, (g, w)) in out.to_vec().unwrap().into_iter().zip(want).enumerate() {
                found.add(g, w, || {
                    format!("({:#010x}, {:#010x}, {:#010x})", a[i], b[i], c[i])
                });
            }
            results.push((format!("{} {name}", KINDS[kind as usize]), found));
        }
    }
    let (f, d, ints) = conversion_inputs(&mut rng, n);
    let (df, dd, di) = (
        gpu.upload(&f).unwrap(),
        gpu.upload(&d).unwrap(),
        gpu.upload(&ints).unwrap(),
    );
    for kind in 0..2u32 {
        for (op, name) in HALF_FROM.iter().enumerate() {
            let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
            k.half_from
                .launch(cfg, kind, op as u32, &df, &dd, &di, &mut out)
                .unwrap();
            let want = match &twin {
                Some((_, from)) => {
                    let mut theirs = gpu.alloc_uninit::<u32>(n).unwrap();
                    from.launch(cfg, kind, op as u32, &df, &dd, &di, &mut theirs)
                        .unwrap();
                    theirs.to_vec().unwrap()
                }
                None => (0..n)
                    .map(|i| match kind {
                        0 => half_from_one::<f16>(op as u32, &f, &d, &ints, i),
                        _ => half_from_one::<bf16>(op as u32, &f, &d, &ints, i),
                    })
                    .collect(),
            };
            let mut found = Found::default();
            for (i, (g, w)) in out.to_vec().unwrap().into_iter().zip(want).enumerate() {
                found.add(g, w, || format!("({:e}, {:e}, {})", f[i], d[i], ints[i]));
            }
            results.push((format!("{} {name}", KINDS[kind as usize]), found));
        }
    }
    report(test, judge, &results);
}

// ------------------------------------------------------ math functions

/// The high half of pair `i` in the math test: another input, so that
/// both halves see every input.
fn partner(i: u32) -> u32 {
    (i.wrapping_mul(40503).wrapping_add(12345)) & 0xffff
}

/// Whether the model (the simulator's functions) may differ from nvcc's
/// result of `HALF_OPS[op]`: only `htanh_approx` and its pair, by 1 ulp a
/// half.
fn model_may_differ(op: u32) -> bool {
    op == 34 || op == 34 + HALF_PAIR_OFFSET
}

/// Whether `got` is within 1 ulp of `want` in each half of the word.
fn within_one_ulp(got: u32, want: u32) -> bool {
    let key = |u: u32| {
        let u = u & 0xffff;
        if u & 0x8000 != 0 {
            -((u & 0x7fff) as i64)
        } else {
            u as i64
        }
    };
    (key(got) - key(want)).abs() <= 1 && (key(got >> 16) - key(want >> 16)).abs() <= 1
}

#[test]
fn math_functions_agree_with_cuda_on_every_input() {
    let test = "math_functions_agree_with_cuda_on_every_input";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let module = twins(&gpu, test);
    // SAFETY: the twin has the Rust kernel's parameter list.
    let twin = module.as_ref().map(|m| unsafe {
        HalfOps::from_function(m.function(HalfOps::NAME, LaunchKind::Plain).unwrap())
    });
    let judge = if twin.is_some() {
        "nvcc"
    } else {
        "the host model"
    };
    // Every input on a GPU; every 16th on the simulator.
    let step = if twin.is_some() { 1 } else { 16 };
    let mut rng = common::rng(test);
    let sp = specials();
    let mut second: Vec<u16> = sp.clone();
    while second.len() < if twin.is_some() { 64 } else { 8 } {
        second.push(rng.random());
    }
    second.truncate(if twin.is_some() { 64 } else { 8 });
    let halves: Vec<u32> = (0..1u32 << 16).step_by(step).collect();
    let word = |x: u32, pair: bool| if pair { x | partner(x) << 16 } else { x };
    let cfg = LaunchConfig::new(264, 256);
    let mut results = Vec::new();
    let mut model_results = Vec::new();
    for kind in 0..2u32 {
        let ops = HALF_UNARY
            .chain(HALF_BINARY)
            .flat_map(|op| [op, op + HALF_PAIR_OFFSET]);
        for op in ops {
            let pair = op >= HALF_UNARY.start + HALF_PAIR_OFFSET;
            let unary = HALF_UNARY.contains(&(op - if pair { HALF_PAIR_OFFSET } else { 0 }));
            let (a, b): (Vec<u32>, Vec<u32>) = if unary {
                halves.iter().map(|&x| (word(x, pair), 0)).unzip()
            } else {
                second
                    .iter()
                    .flat_map(|&y| {
                        let y = word(y as u32, pair);
                        halves.iter().map(move |&x| (word(x, pair), y))
                    })
                    .unzip()
            };
            let n = a.len();
            let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
            let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
            k.half_ops
                .launch(cfg, kind, op, &da, &db, &db, &mut out)
                .unwrap();
            let model: Vec<u32> = (0..n)
                .map(|i| match kind {
                    0 => half_op::<f16>(op, a[i], b[i], b[i]),
                    _ => half_op::<bf16>(op, a[i], b[i], b[i]),
                })
                .collect();
            let want = match &twin {
                Some(ops) => {
                    let mut theirs = gpu.alloc_uninit::<u32>(n).unwrap();
                    ops.launch(cfg, kind, op, &da, &db, &db, &mut theirs)
                        .unwrap();
                    theirs.to_vec().unwrap()
                }
                None => model.clone(),
            };
            let describe = |i: usize| format!("({:#010x}, {:#010x})", a[i], b[i]);
            let mut found = Found::default();
            for (i, (g, w)) in out.to_vec().unwrap().into_iter().zip(&want).enumerate() {
                found.add(g, *w, || describe(i));
            }
            let name = format!("{} {}", KINDS[kind as usize], HALF_OPS[op as usize]);
            results.push((name.clone(), found));
            // nvcc's results against the model: the same bits, but where
            // the model may differ, within 1 ulp.
            let mut against = Found::default();
            for (i, (m, w)) in model.iter().zip(&want).enumerate() {
                let allowed = model_may_differ(op) && within_one_ulp(*m, *w);
                against.add(*m, if allowed { *m } else { *w }, || describe(i));
            }
            model_results.push((name, against));
        }
    }
    report(test, judge, &results);
    report(
        test,
        &format!("{judge} (the simulator's model)"),
        &model_results,
    );
}

// ----------------------------------------------------------- collectives

/// The group members of every thread of a launch of `blocks` blocks of
/// `block` threads, for a tile size (1 to 32) or 0 (the halves of
/// `binary_partition(coalesced_threads(), tid % 3 == 0)`): lists of global
/// thread indices in rank order. Tiles that run past the block's end are
/// left out (CUDA leaves their shuffles of missing lanes undefined).
fn groups(blocks: usize, block: usize, size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for b in 0..blocks {
        let base = b * block;
        if size > 0 {
            for start in (0..block).step_by(size) {
                if start + size <= block {
                    out.push((base + start..base + start + size).collect());
                }
            }
        } else {
            for warp in (0..block).step_by(32) {
                let lanes: Vec<usize> = (warp..block.min(warp + 32)).collect();
                for pred in [true, false] {
                    let g: Vec<usize> = lanes
                        .iter()
                        .filter(|&&t| (t % 3 == 0) == pred)
                        .map(|t| base + t)
                        .collect();
                    if !g.is_empty() {
                        out.push(g);
                    }
                }
            }
        }
    }
    out
}

/// A value the collectives combine: a half or a pair.
trait Value: Copy {
    fn of(word: u32) -> Self;
    fn word(self) -> u32;
    fn plus(self, b: Self) -> Self;
    fn less(self, b: Self) -> Self;
    fn greater(self, b: Self) -> Self;
}

impl<H: HalfFloat> Value for H {
    fn of(word: u32) -> Self {
        H::from_bits16(word as u16)
    }
    fn word(self) -> u32 {
        self.bits() as u32
    }
    fn plus(self, b: Self) -> Self {
        self.hadd(b)
    }
    // cg::less: `(b < a) ? b : a`; cg::greater: `(a < b) ? b : a`.
    fn less(self, b: Self) -> Self {
        if b < self {
            b
        } else {
            self
        }
    }
    fn greater(self, b: Self) -> Self {
        if self < b {
            b
        } else {
            self
        }
    }
}

/// A pair: `Plus` only.
#[derive(Clone, Copy)]
struct Pair<H>(Half2<H>);

impl<H: HalfFloat> Value for Pair<H> {
    fn of(word: u32) -> Self {
        Pair(Half2::from_bits(word))
    }
    fn word(self) -> u32 {
        self.0.to_bits()
    }
    fn plus(self, b: Self) -> Self {
        Pair(self.0 + b.0)
    }
    fn less(self, _: Self) -> Self {
        unreachable!()
    }
    fn greater(self, _: Self) -> Self {
        unreachable!()
    }
}

/// CUDA's result of `HALF_COLLECTIVE[op]` for one group's values in rank
/// order: butterflies for `reduce` on tiles (`op(own, partner)`, offsets
/// n/2 down to 1), an inclusive scan then the last rank's value on
/// coalesced groups, Hillis-Steele scans combining `op(own, lower)`,
/// exclusive scans shifting the inclusive one (rank 0 gets zero).
fn model<V: Value>(op: usize, tile: bool, v: &[V]) -> Vec<V> {
    let n = v.len();
    let f = |a: V, b: V| match op % 3 {
        1 => a.plus(b),
        2 => a.less(b),
        _ => a.greater(b),
    };
    let inclusive = || {
        let mut s = v.to_vec();
        let mut delta = 1;
        while delta < n {
            let prev = s.clone();
            for r in delta..n {
                s[r] = f(prev[r], prev[r - delta]);
            }
            delta *= 2;
        }
        s
    };
    match op {
        0 => (0..n).map(|r| v[(r + 1) % n]).collect(),
        1 => (0..n)
            .map(|r| if r >= 1 { v[r - 1] } else { v[r] })
            .collect(),
        2 => (0..n)
            .map(|r| if r + 1 < n { v[r + 1] } else { v[r] })
            .collect(),
        3 => (0..n)
            .map(|r| if tile && n > 1 { v[r ^ 1] } else { v[r] })
            .collect(),
        4..=6 => {
            if tile {
                let mut s = v.to_vec();
                let mut m = n / 2;
                while m > 0 {
                    let prev = s.clone();
                    for r in 0..n {
                        s[r] = f(prev[r], prev[r ^ m]);
                    }
                    m /= 2;
                }
                s
            } else {
                vec![inclusive()[n - 1]; n]
            }
        }
        7..=9 => inclusive(),
        _ => {
            let s = inclusive();
            (0..n)
                .map(|r| if r == 0 { V::of(0) } else { s[r - 1] })
                .collect()
        }
    }
}

fn model_words<V: Value>(
    op: usize,
    size: usize,
    input: &[u32],
    groups: &[Vec<usize>],
) -> Vec<Option<u32>> {
    let mut out = vec![None; input.len()];
    for g in groups {
        let v: Vec<V> = g.iter().map(|&t| V::of(input[t])).collect();
        for (&t, r) in g.iter().zip(model(op, size > 0, &v)) {
            out[t] = Some(r.word());
        }
    }
    out
}

/// The collective's operations a kind and group size have: every one for
/// the scalars, the shuffles and `Plus` for the pairs; not `shfl_xor(v, 1)`
/// on a tile of 1, which reads a lane outside the tile (undefined in CUDA,
/// poison in the simulator).
fn has_op(kind: usize, size: usize, op: usize) -> bool {
    (kind < 2 || matches!(op, 0..=4 | 7 | 10)) && !(size == 1 && op == 3)
}

#[test]
fn shuffles_and_collectives_agree_with_cuda() {
    let test = "shuffles_and_collectives_agree_with_cuda";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let module = twins(&gpu, test);
    // SAFETY: the twin has the Rust kernel's parameter list.
    let twin = module.as_ref().map(|m| unsafe {
        HalfCollective::from_function(m.function(HalfCollective::NAME, LaunchKind::Plain).unwrap())
    });
    let judge = if twin.is_some() {
        "nvcc"
    } else {
        "the host model"
    };
    let mut rng = common::rng(test);
    let sp = specials();
    let mut results = Vec::new();
    for (kind, kind_name) in KINDS.iter().enumerate() {
        if kind == 3 && twin.is_some() {
            // No CUDA equivalent (see the module docs).
            continue;
        }
        for size in [1usize, 2, 4, 8, 16, 32, 0] {
            // Partial warps (80 threads a block) except for the warp-wide
            // tile, which runs past their end.
            let (blocks, block) = (3usize, if size == 32 { 96 } else { 80 });
            let n = blocks * block;
            let groups = groups(blocks, block, size);
            for (op, name) in HALF_COLLECTIVE.iter().enumerate() {
                if !has_op(kind, size, op) {
                    continue;
                }
                let mut found = Found::default();
                for round in 0..4 {
                    // Round 0: some specials among ordinary values; then
                    // values in [-4, 4] of the type.
                    let input: Vec<u32> = (0..n)
                        .map(|_| {
                            let mut half = || -> u16 {
                                if round == 0 && rng.random_range(0..8) == 0 {
                                    sp[rng.random_range(0..sp.len())]
                                } else {
                                    let x: f32 = rng.random_range(-4.0..4.0);
                                    if kind % 2 == 0 {
                                        f16::from_f32(x).to_bits()
                                    } else {
                                        bf16::from_f32(x).to_bits()
                                    }
                                }
                            };
                            half() as u32 | if kind >= 2 { (half() as u32) << 16 } else { 0 }
                        })
                        .collect();
                    let d_in = gpu.upload(&input).unwrap();
                    let cfg = LaunchConfig::new(blocks as u32, block as u32);
                    let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
                    k.half_collective
                        .launch(cfg, kind as u32, op as u32, size as u32, &d_in, &mut out)
                        .unwrap();
                    let got = out.to_vec().unwrap();
                    let want: Vec<Option<u32>> = match &twin {
                        Some(t) => {
                            let mut theirs = gpu.alloc_uninit::<u32>(n).unwrap();
                            t.launch(cfg, kind as u32, op as u32, size as u32, &d_in, &mut theirs)
                                .unwrap();
                            let theirs = theirs.to_vec().unwrap();
                            // Only the members of complete groups.
                            let mut keep = vec![None; n];
                            for g in &groups {
                                for &i in g {
                                    keep[i] = Some(theirs[i]);
                                }
                            }
                            keep
                        }
                        None => match kind {
                            0 => model_words::<f16>(op, size, &input, &groups),
                            1 => model_words::<bf16>(op, size, &input, &groups),
                            2 => model_words::<Pair<f16>>(op, size, &input, &groups),
                            _ => model_words::<Pair<bf16>>(op, size, &input, &groups),
                        },
                    };
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        if let Some(w) = w {
                            found.add(*g, *w, || format!("thread {i}, input {:#010x}", input[i]));
                        }
                    }
                }
                let group = if size == 0 {
                    "coalesced".to_string()
                } else {
                    format!("tile {size}")
                };
                results.push((format!("{kind_name} {group} {name}"), found));
            }
        }
    }
    report(test, judge, &results);
}
