//! The grid-wide collectives (`cg_core::grid_collectives`) against CPU
//! models of the order the module states, bit for bit: `grid_reduce` three
//! times back to back on one scratch, and the exclusive and inclusive
//! scans (with the scratch's barrier between them) followed by a
//! `grid_reduce`, for wrapping `u32` sums, `u32` and `i32` maxima and
//! minima, `f32` sums (random values in [-1, 1): every rounding shows), the
//! composition of affine maps (associative, not commutative: 8-byte
//! values), a 12-byte merge, and wrapping sums of values of 1, 2, 3, 8,
//! 10, 16, 20 and 32 bytes (every size class of a slot), on grids of 1, 2 and 7 blocks (blocks of
//! whole warps and one with a partial last warp), at every size around a
//! tile and a window of 32 tiles, and across the ladder's 1024-tile level.
//!
//! The models compute the stated tree of combinations: per warp the
//! block collectives' butterfly or Hillis–Steele scan, the warp totals
//! from the left, the tiles' aggregates in windows of 32 (Hillis–Steele)
//! and the chain of 1024-tile prefixes. Integer results are also checked
//! against a plain sequential fold (the models' own check), and float
//! totals against the exact sum, within `γ(n - 1) Σ|x|`.
//!
//! `grid_select` (of `u32`, `f32` with NaNs, `u64`) against a filter, its
//! output past the kept elements still poisoned; `grid_reduce_slice`
//! against its stated order (a float sum bit for bit); `grid_histogram`
//! against the bins counted on the host, for `u32` levels that divide the
//! range, that do not, and the whole of `u32`, and `f32` levels.
//!
//! Where there is no GPU they run on the simulator (every block of a
//! cooperative launch is resident there, so the look-back's waits end);
//! with a GPU, on it, up to 2^26 elements. On the simulator, scans and a
//! selection of 1,200 tiles on 22 blocks also run with the blocks out of
//! step (its skewed schedule, several seeds), where a cycle of waits that
//! the fair schedule's blocks, moving in step, never form shows.

mod common;

use cg_core::grid_collectives::{
    grid_scratch_words, grid_select_scratch_words, items_per_thread, select_items_per_thread,
};
use cg_core::grid_histogram::{Even, Sample};
use cg_core::sim::{self, Schedule};
use cg_tests::kernels::Kernels;
use cooperative_groups::{DeviceBuffer, Error, Gpu, LaunchConfig};
use rand::rngs::StdRng;
use rand::Rng;

/// Slots of a look-back window.
const WINDOW: usize = 32;

/// Grids of the tests: `(blocks, threads)`. One block; two blocks of two
/// warps; seven blocks of a warp and 8 lanes (a partial last warp).
const GRIDS: [(u32, u32); 3] = [(1, 32), (2, 64), (7, 40)];

/// What a poisoned output element holds before a launch.
const POISON: u8 = 0xa5;

/// A combining operator on the host.
trait Op<T>: Fn(T, T) -> T {}
impl<T, F: Fn(T, T) -> T> Op<T> for F {}

/// `op(a, b)` of the parts that exist.
fn then<T: Copy>(op: &impl Op<T>, a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(op(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Hillis–Steele inclusive scan in rank order (`op(lower, own)`), as the
/// warp collectives run it.
fn hs_scan<T: Copy>(op: &impl Op<T>, v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    let mut d = 1;
    while d < v.len() {
        let p = v.clone();
        for i in d..v.len() {
            v[i] = op(p[i - d], p[i]);
        }
        d <<= 1;
    }
    v
}

/// A warp's reduction as `block_reduce` runs it: the rank-order butterfly
/// over a whole warp, the last lane of the scan over a partial one.
fn warp_reduce<T: Copy>(op: &impl Op<T>, v: &[T]) -> T {
    if v.len() < 32 {
        return *hs_scan(op, v).last().unwrap();
    }
    let mut v = v.to_vec();
    let mut o = 1;
    while o < 32 {
        let p = v.clone();
        for (i, x) in v.iter_mut().enumerate() {
            *x = if i & o == 0 {
                op(p[i], p[i ^ o])
            } else {
                op(p[i ^ o], p[i])
            };
        }
        o <<= 1;
    }
    v[0]
}

/// `block_reduce`: the warps' reductions from the left.
fn block_reduce<T: Copy>(op: &impl Op<T>, v: &[T]) -> T {
    v.chunks(32).map(|w| warp_reduce(op, w)).reduce(op).unwrap()
}

/// `block_exclusive_scan_with_total`: each thread's prefix (`None` for
/// rank 0) and the block's total.
fn block_exclusive_scan<T: Copy>(op: &impl Op<T>, v: &[T]) -> (Vec<Option<T>>, T) {
    let scans: Vec<Vec<T>> = v.chunks(32).map(|w| hs_scan(op, w)).collect();
    let mut running: Vec<T> = Vec::new();
    for s in &scans {
        let t = *s.last().unwrap();
        running.push(then(op, running.last().copied(), Some(t)).unwrap());
    }
    let before = (0..v.len())
        .map(|r| {
            let (w, i) = (r / 32, r % 32);
            let lower = (i > 0).then(|| scans[w][i - 1]);
            let warps = (w > 0).then(|| running[w - 1]);
            then(op, warps, lower)
        })
        .collect();
    (before, *running.last().unwrap())
}

/// The look-back ladder over tiles' aggregates: window aggregates and
/// the 1024-tile prefixes, computed once.
struct Ladder<T> {
    aggs: Vec<T>,
    /// `A1[w]`: the scan of the closed window `w`'s 32 aggregates.
    a1: Vec<T>,
    /// `Q[k]`: the prefix through the closed 1024-tile window `k`.
    q: Vec<T>,
}

impl<T: Copy> Ladder<T> {
    fn new(op: &impl Op<T>, aggs: Vec<T>) -> Self {
        let a1: Vec<T> = aggs
            .chunks_exact(WINDOW)
            .map(|w| *hs_scan(op, w).last().unwrap())
            .collect();
        let mut q: Vec<T> = Vec::new();
        for w in a1.chunks_exact(WINDOW) {
            let a2 = *hs_scan(op, w).last().unwrap();
            q.push(then(op, q.last().copied(), Some(a2)).unwrap());
        }
        Ladder { aggs, a1, q }
    }

    /// `op(op(Q[k - 1], S2[m - 1]), S1)` for tile `t = 1024 k + 32 m + l`,
    /// with `S1` the window scan over the window's first `lanes` tiles.
    fn prefix(&self, op: &impl Op<T>, t: usize, lanes: usize) -> Option<T> {
        let (l, w) = (t % WINDOW, t / WINDOW);
        let (m, k) = (w % WINDOW, w / WINDOW);
        let _ = l;
        let s1 =
            (lanes > 0).then(|| hs_scan(op, &self.aggs[w * WINDOW..w * WINDOW + lanes])[lanes - 1]);
        let s2 = (m > 0).then(|| hs_scan(op, &self.a1[k * WINDOW..k * WINDOW + m])[m - 1]);
        let q = (k > 0).then(|| self.q[k - 1]);
        then(op, then(op, q, s2), s1)
    }

    /// Tile `t`'s exclusive prefix.
    fn exclusive(&self, op: &impl Op<T>, t: usize) -> Option<T> {
        self.prefix(op, t, t % WINDOW)
    }

    /// The total over every tile.
    fn total(&self, op: &impl Op<T>) -> T {
        let t = self.aggs.len() - 1;
        self.prefix(op, t, t % WINDOW + 1).unwrap()
    }
}

/// `grid_reduce` of one value per thread (`values.len()` = the grid's
/// threads).
fn model_reduce<T: Copy>(op: &impl Op<T>, values: &[T], threads: usize) -> T {
    let aggs = values
        .chunks(threads)
        .map(|b| block_reduce(op, b))
        .collect();
    Ladder::new(op, aggs).total(op)
}

/// The exclusive and inclusive grid scans of `input` by blocks of
/// `threads` threads, `items` elements a thread.
fn model_scan<T: Copy + bytemuck::Zeroable>(
    op: &impl Op<T>,
    input: &[T],
    threads: usize,
    items: usize,
) -> (Vec<T>, Vec<T>) {
    let tile = threads * items;
    let mut parts = Vec::new();
    for x in input.chunks(tile) {
        let own: Vec<T> = (0..threads)
            .map(|r| {
                let mine = x.get(r * items..).unwrap_or(&[]);
                let mine = &mine[..mine.len().min(items)];
                mine.iter().copied().reduce(op).unwrap_or_else(T::zeroed)
            })
            .collect();
        parts.push(block_exclusive_scan(op, &own));
    }
    let ladder = Ladder::new(op, parts.iter().map(|p| p.1).collect());
    let (mut exclusive, mut inclusive) = (Vec::new(), Vec::new());
    for (t, x) in input.chunks(tile).enumerate() {
        let e = ladder.exclusive(op, t);
        for (r, mine) in x.chunks(items).enumerate() {
            let mut running = then(op, e, if r > 0 { parts[t].0[r] } else { None });
            for &v in mine {
                exclusive.push(running.unwrap_or_else(T::zeroed));
                running = then(op, running, Some(v));
                inclusive.push(running.unwrap());
            }
        }
    }
    (exclusive, inclusive)
}

/// A type's operators under test: the probes' `op` argument, a name,
/// the operator on the host.
type Ops<T> = Vec<(u32, &'static str, fn(T, T) -> T)>;

/// One value type under test: how to draw it, its operators, and how to
/// launch its probes.
trait Case: bytemuck::Pod + PartialEq + std::fmt::Debug {
    /// The operators the probes take (`op` argument, name, function).
    fn ops() -> Ops<Self>;
    fn random(rng: &mut StdRng) -> Self;
    /// The exact sum of values for float types, to bound a float total.
    fn float(self) -> Option<f64> {
        None
    }
    fn reduce(
        k: &Kernels,
        cfg: LaunchConfig,
        bufs: [&DeviceBuffer<Self>; 2],
        outs: [&mut DeviceBuffer<Self>; 3],
        words: &mut DeviceBuffer<u64>,
        op: u32,
    ) -> Option<Result<(), Error>>;
    fn scan(
        k: &Kernels,
        cfg: LaunchConfig,
        input: &DeviceBuffer<Self>,
        outs: [&mut DeviceBuffer<Self>; 3],
        words: &mut DeviceBuffer<u64>,
        op: u32,
    ) -> Result<(), Error>;
}

/// `Case` for a type whose probes take an `op` selector (`$sel`) or
/// none.
macro_rules! case {
    ($t:ty, $reduce:ident, $scan:ident, sel, [$(($n:expr, $name:expr, $f:expr)),*], $rand:expr, $float:expr) => {
        case!(@impl $t, [$(($n, $name, $f)),*], $rand, $float,
            |k: &Kernels, cfg, [a, b]: [&DeviceBuffer<$t>; 2], [x, y, z]: [&mut DeviceBuffer<$t>; 3], w, op| Some(k.$reduce.launch(cfg, a, b, x, y, z, w, op)),
            |k: &Kernels, cfg, i, [x, y, z]: [&mut DeviceBuffer<$t>; 3], w, op| k.$scan.launch(cfg, i, x, y, z, w, op));
    };
    ($t:ty, $reduce:ident, $scan:ident, one, [$(($n:expr, $name:expr, $f:expr)),*], $rand:expr, $float:expr) => {
        case!(@impl $t, [$(($n, $name, $f)),*], $rand, $float,
            |k: &Kernels, cfg, [a, b]: [&DeviceBuffer<$t>; 2], [x, y, z]: [&mut DeviceBuffer<$t>; 3], w, _op| Some(k.$reduce.launch(cfg, a, b, x, y, z, w)),
            |k: &Kernels, cfg, i, [x, y, z]: [&mut DeviceBuffer<$t>; 3], w, _op| k.$scan.launch(cfg, i, x, y, z, w));
    };
    (@impl $t:ty, [$(($n:expr, $name:expr, $f:expr)),*], $rand:expr, $float:expr, $red:expr, $sc:expr) => {
        impl Case for $t {
            fn ops() -> Ops<Self> {
                vec![$(($n, $name, $f)),*]
            }
            fn random(rng: &mut StdRng) -> Self {
                ($rand)(rng)
            }
            fn float(self) -> Option<f64> {
                ($float)(self)
            }
            fn reduce(k: &Kernels, cfg: LaunchConfig, bufs: [&DeviceBuffer<Self>; 2], outs: [&mut DeviceBuffer<Self>; 3], words: &mut DeviceBuffer<u64>, op: u32) -> Option<Result<(), Error>> {
                ($red)(k, cfg, bufs, outs, words, op)
            }
            fn scan(k: &Kernels, cfg: LaunchConfig, input: &DeviceBuffer<Self>, outs: [&mut DeviceBuffer<Self>; 3], words: &mut DeviceBuffer<u64>, op: u32) -> Result<(), Error> {
                ($sc)(k, cfg, input, outs, words, op)
            }
        }
    };
}

case!(
    u32,
    grid_reduce_u32,
    grid_scan_u32,
    sel,
    [
        (0, "wrapping plus", |a: u32, b: u32| a.wrapping_add(b)),
        (1, "maximum", |a: u32, b: u32| a.max(b)),
        (2, "minimum", |a: u32, b: u32| a.min(b))
    ],
    |rng: &mut StdRng| rng.random::<u32>(),
    |_| None
);
case!(
    i32,
    grid_reduce_i32,
    grid_scan_i32,
    sel,
    [
        (1, "maximum", |a: i32, b: i32| a.max(b)),
        (2, "minimum", |a: i32, b: i32| a.min(b))
    ],
    |rng: &mut StdRng| rng.random::<i32>(),
    |_| None
);
case!(
    f32,
    grid_reduce_f32,
    grid_scan_f32,
    one,
    [(0, "plus", |a: f32, b: f32| a + b)],
    |rng: &mut StdRng| rng.random_range(-1.0f32..1.0),
    |x: f32| Some(x as f64)
);

/// Affine maps `x -> a x + b` over wrapping `u32`, as words: `then(f, g)`
/// is `f` first, then `g`.
fn compose(f: [u32; 2], g: [u32; 2]) -> [u32; 2] {
    [
        g[0].wrapping_mul(f[0]),
        g[0].wrapping_mul(f[1]).wrapping_add(g[1]),
    ]
}

/// Sum, minimum and maximum of `u32`, as words.
fn merge(x: [u32; 3], y: [u32; 3]) -> [u32; 3] {
    [x[0].wrapping_add(y[0]), x[1].min(y[1]), x[2].max(y[2])]
}

impl Case for [u32; 2] {
    fn ops() -> Ops<Self> {
        vec![(0, "affine composition", compose)]
    }
    fn random(rng: &mut StdRng) -> Self {
        // Odd slopes: a product of even ones soon becomes 0 and hides order.
        [rng.random::<u32>() | 1, rng.random()]
    }
    fn reduce(
        k: &Kernels,
        cfg: LaunchConfig,
        [a, b]: [&DeviceBuffer<Self>; 2],
        [x, y, z]: [&mut DeviceBuffer<Self>; 3],
        w: &mut DeviceBuffer<u64>,
        _op: u32,
    ) -> Option<Result<(), Error>> {
        Some(k.grid_reduce_affine.launch(cfg, a, b, x, y, z, w))
    }
    fn scan(
        k: &Kernels,
        cfg: LaunchConfig,
        i: &DeviceBuffer<Self>,
        [x, y, z]: [&mut DeviceBuffer<Self>; 3],
        w: &mut DeviceBuffer<u64>,
        _op: u32,
    ) -> Result<(), Error> {
        k.grid_scan_affine.launch(cfg, i, x, y, z, w)
    }
}

impl Case for [u32; 3] {
    fn ops() -> Ops<Self> {
        vec![(0, "sum-min-max merge", merge)]
    }
    fn random(rng: &mut StdRng) -> Self {
        let v = rng.random::<u32>();
        [v, v, v]
    }
    fn reduce(
        _: &Kernels,
        _: LaunchConfig,
        _: [&DeviceBuffer<Self>; 2],
        _: [&mut DeviceBuffer<Self>; 3],
        _: &mut DeviceBuffer<u64>,
        _: u32,
    ) -> Option<Result<(), Error>> {
        None
    }
    fn scan(
        k: &Kernels,
        cfg: LaunchConfig,
        i: &DeviceBuffer<Self>,
        [x, y, z]: [&mut DeviceBuffer<Self>; 3],
        w: &mut DeviceBuffer<u64>,
        _op: u32,
    ) -> Result<(), Error> {
        k.grid_scan_stats.launch(cfg, i, x, y, z, w)
    }
}

/// `Case` for a type of the wrapping-sum probes (`grid_scan_u8` ...): no
/// reduction probe (the scan probe ends with one), one operator.
macro_rules! sum_case {
    ($t:ty, $scan:ident, $sum:expr) => {
        impl Case for $t {
            fn ops() -> Ops<Self> {
                vec![(0, "wrapping sum", $sum)]
            }
            fn random(rng: &mut StdRng) -> Self {
                rng.random()
            }
            fn reduce(
                _: &Kernels,
                _: LaunchConfig,
                _: [&DeviceBuffer<Self>; 2],
                _: [&mut DeviceBuffer<Self>; 3],
                _: &mut DeviceBuffer<u64>,
                _: u32,
            ) -> Option<Result<(), Error>> {
                None
            }
            fn scan(
                k: &Kernels,
                cfg: LaunchConfig,
                i: &DeviceBuffer<Self>,
                [x, y, z]: [&mut DeviceBuffer<Self>; 3],
                w: &mut DeviceBuffer<u64>,
                _op: u32,
            ) -> Result<(), Error> {
                k.$scan.launch(cfg, i, x, y, z, w)
            }
        }
    };
}

/// The element-wise wrapping sum of two arrays of `$e`.
macro_rules! sum_each {
    ($e:ty, $n:expr) => {
        |x: [$e; $n], y: [$e; $n]| std::array::from_fn(|i| x[i].wrapping_add(y[i]))
    };
}

sum_case!(u8, grid_scan_u8, |a: u8, b: u8| a.wrapping_add(b));
sum_case!(u16, grid_scan_u16, |a: u16, b: u16| a.wrapping_add(b));
sum_case!([u8; 3], grid_scan_u8x3, sum_each!(u8, 3));
sum_case!(u64, grid_scan_u64, |a: u64, b: u64| a.wrapping_add(b));
sum_case!([u16; 5], grid_scan_u16x5, sum_each!(u16, 5));
sum_case!([u64; 2], grid_scan_u64x2, sum_each!(u64, 2));
sum_case!([u32; 5], grid_scan_u32x5, sum_each!(u32, 5));
sum_case!([u64; 4], grid_scan_u64x4, sum_each!(u64, 4));

/// `n` random values.
fn random<T: Case>(rng: &mut StdRng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::random(rng)).collect()
}

/// A buffer of `n` poisoned elements (at least one: a launch needs an
/// address).
fn poisoned<T: Case>(gpu: &Gpu, n: usize) -> DeviceBuffer<T> {
    let mut v = vec![T::zeroed(); n.max(1)];
    bytemuck::cast_slice_mut::<T, u8>(&mut v).fill(POISON);
    gpu.upload(&v).unwrap()
}

/// The float check of a total: within `γ(n - 1) Σ|x|` of the exact sum.
fn check_float_total<T: Case>(what: &str, got: T, values: &[T]) {
    let Some(got) = got.float() else { return };
    let exact: f64 = values.iter().map(|v| v.float().unwrap()).sum();
    let abs: f64 = values.iter().map(|v| v.float().unwrap().abs()).sum();
    let u = f32::EPSILON as f64 / 2.0;
    let k = values.len().saturating_sub(1) as f64;
    if k * u >= 1.0 {
        // γ(n - 1) is defined for (n - 1) u < 1 only (n below 2^24 for
        // `f32`): past it the bound says nothing, and the models' bits
        // are the check.
        return;
    }
    let bound = k * u / (1.0 - k * u) * abs;
    assert!(
        (got - exact).abs() <= bound,
        "{what}: {got} is {} from the exact sum {exact}, beyond γ(n - 1) Σ|x| = {bound}",
        (got - exact).abs()
    );
}

/// The first element where `got` and `want` differ, as a message.
fn first_difference<T: Case>(got: &[T], want: &[T]) -> Option<String> {
    let i = got.iter().zip(want).position(|(g, w)| g != w)?;
    Some(format!(
        "element {i} of {}: got {:?}, want {:?}",
        want.len(),
        got[i],
        want[i]
    ))
}

/// `grid_reduce` three times back to back on one scratch, every thread's
/// three totals against the model.
fn reduce_case<T: Case>(gpu: &Gpu, k: &Kernels, rng: &mut StdRng, blocks: u32, threads: u32) {
    let n = (blocks * threads) as usize;
    for (sel, name, f) in T::ops() {
        let (a, b) = (random::<T>(rng, n), random::<T>(rng, n));
        let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
        let mut outs = [
            poisoned::<T>(gpu, n),
            poisoned::<T>(gpu, n),
            poisoned::<T>(gpu, n),
        ];
        let mut words = gpu
            .filled(grid_scratch_words::<T>(blocks, threads, 0), 0u64)
            .unwrap();
        let cfg = LaunchConfig::new(blocks, threads);
        let [x, y, z] = &mut outs;
        let Some(launched) = T::reduce(k, cfg, [&da, &db], [x, y, z], &mut words, sel) else {
            return;
        };
        launched.unwrap();
        gpu.synchronize().unwrap();
        let want_a = model_reduce(&f, &a, threads as usize);
        let want_b = model_reduce(&f, &b, threads as usize);
        for (i, (out, want, values)) in [
            (&outs[0], want_a, &a),
            (&outs[1], want_b, &b),
            (&outs[2], want_a, &a),
        ]
        .into_iter()
        .enumerate()
        {
            let got = out.to_vec().unwrap();
            let what = format!("grid_reduce #{} of {name} on {blocks} x {threads}", i + 1);
            if let Some(d) = first_difference(&got, &vec![want; n]) {
                panic!("{what}: {d}");
            }
            check_float_total(&what, got[0], values);
        }
        if a[0].float().is_none() {
            let seq = a.iter().copied().reduce(f).unwrap();
            assert_eq!(want_a, seq, "the model of {name} against a sequential fold");
        }
    }
}

/// Sizes around the tile of `threads` threads and the first window of 32
/// tiles, and a length of no tile size.
fn scan_sizes<T>(threads: u32) -> Vec<usize> {
    let tile = threads as usize * items_per_thread::<T>();
    let mut s = vec![0, 1, 255, 256, 257, tile - 1, tile, tile + 1, 2 * tile + 3];
    s.extend([31 * tile, 32 * tile, 33 * tile + 1, 100_003]);
    s.sort();
    s.dedup();
    s
}

/// The exclusive and inclusive scans and the `grid_reduce` after them
/// against the models, for every operator of `T`, at `n` elements.
fn scan_case<T: Case>(
    gpu: &Gpu,
    k: &Kernels,
    rng: &mut StdRng,
    blocks: u32,
    threads: u32,
    n: usize,
) {
    let g = (blocks * threads) as usize;
    for (sel, name, f) in T::ops() {
        let input = random::<T>(rng, n);
        let mut outs = [
            poisoned::<T>(gpu, n),
            poisoned::<T>(gpu, n),
            poisoned::<T>(gpu, g),
        ];
        let mut words = gpu
            .filled(grid_scratch_words::<T>(blocks, threads, n), 0u64)
            .unwrap();
        let cfg = LaunchConfig::new(blocks, threads);
        let [x, y, z] = &mut outs;
        let din = gpu.upload(&input).unwrap();
        T::scan(k, cfg, &din, [x, y, z], &mut words, sel).unwrap();
        gpu.synchronize().unwrap();
        let what = format!("{name} of {n} elements on {blocks} x {threads}");
        let (want_e, want_i) = model_scan(&f, &input, threads as usize, items_per_thread::<T>());
        let got_e = outs[0].to_vec().unwrap();
        let got_i = outs[1].to_vec().unwrap();
        if let Some(d) = first_difference(&got_e[..n], &want_e) {
            panic!("grid_exclusive_scan, {what}: {d}");
        }
        if let Some(d) = first_difference(&got_i[..n], &want_i) {
            panic!("grid_inclusive_scan, {what}: {d}");
        }
        if n == 0 {
            assert!(
                bytemuck::cast_slice::<T, u8>(&got_e)
                    .iter()
                    .all(|&b| b == POISON),
                "an empty scan wrote its output"
            );
            continue;
        }
        // The integer models against a plain fold.
        if input[0].float().is_none() {
            let mut acc: Option<T> = None;
            for (i, &v) in input.iter().enumerate() {
                assert_eq!(want_e[i], acc.unwrap_or_else(T::zeroed), "model, {what}");
                acc = then(&f, acc, Some(v));
                assert_eq!(want_i[i], acc.unwrap(), "model, {what}");
            }
        } else {
            check_float_total(
                &format!("the inclusive scan's last, {what}"),
                want_i[n - 1],
                &input,
            );
        }
        let values: Vec<T> = (0..g).map(|i| *input.get(i).unwrap_or(&input[0])).collect();
        let want_total = model_reduce(&f, &values, threads as usize);
        if let Some(d) = first_difference(&outs[2].to_vec().unwrap(), &vec![want_total; g]) {
            panic!("grid_reduce after the scans, {what}: {d}");
        }
    }
}

fn reduce_all<T: Case>(test: &str) {
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS.into_iter().chain([(64, 32), (100, 40)]) {
        reduce_case::<T>(&gpu, &k, &mut rng, blocks, threads);
    }
}

fn scan_all<T: Case>(test: &str) {
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS {
        for n in scan_sizes::<T>(threads) {
            scan_case::<T>(&gpu, &k, &mut rng, blocks, threads, n);
        }
    }
}

#[test]
fn grid_reduce_u32_matches_the_model() {
    reduce_all::<u32>("grid_reduce_u32_matches_the_model");
}

#[test]
fn grid_reduce_i32_matches_the_model() {
    reduce_all::<i32>("grid_reduce_i32_matches_the_model");
}

#[test]
fn grid_reduce_f32_matches_the_model_bit_for_bit() {
    reduce_all::<f32>("grid_reduce_f32_matches_the_model_bit_for_bit");
}

#[test]
fn grid_reduce_of_affine_maps_keeps_rank_order() {
    reduce_all::<[u32; 2]>("grid_reduce_of_affine_maps_keeps_rank_order");
}

#[test]
fn grid_scans_u32_match_the_model() {
    scan_all::<u32>("grid_scans_u32_match_the_model");
}

#[test]
fn grid_scans_i32_match_the_model() {
    scan_all::<i32>("grid_scans_i32_match_the_model");
}

#[test]
fn grid_scans_f32_match_the_model_bit_for_bit() {
    scan_all::<f32>("grid_scans_f32_match_the_model_bit_for_bit");
}

#[test]
fn grid_scans_of_affine_maps_keep_rank_order() {
    scan_all::<[u32; 2]>("grid_scans_of_affine_maps_keep_rank_order");
}

#[test]
fn grid_scans_of_12_byte_values_match_the_model() {
    scan_all::<[u32; 3]>("grid_scans_of_12_byte_values_match_the_model");
}

/// The scans and a reduction on a few sizes for values of every size
/// class of a slot and of the per-thread items (1, 2, 3, 8, 10, 16, 20 and
/// 32 bytes): an empty and a one-element scan, a tile and one, and past a
/// window of 32 tiles, on blocks of whole warps and on a partial last warp.
fn scan_some<T: Case>(gpu: &Gpu, k: &Kernels, rng: &mut StdRng) {
    for (blocks, threads) in [(2, 64), (7, 40)] {
        let tile = threads as usize * items_per_thread::<T>();
        for n in [0, 1, tile + 1, 33 * tile + 1] {
            scan_case::<T>(gpu, k, rng, blocks, threads, n);
        }
    }
}

#[test]
fn grid_scans_of_values_of_every_size_match_the_model() {
    let test = "grid_scans_of_values_of_every_size_match_the_model";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    scan_some::<u8>(&gpu, &k, &mut rng);
    scan_some::<u16>(&gpu, &k, &mut rng);
    scan_some::<[u8; 3]>(&gpu, &k, &mut rng);
    scan_some::<u64>(&gpu, &k, &mut rng);
    scan_some::<[u16; 5]>(&gpu, &k, &mut rng);
    scan_some::<[u64; 2]>(&gpu, &k, &mut rng);
    scan_some::<[u32; 5]>(&gpu, &k, &mut rng);
    scan_some::<[u64; 4]>(&gpu, &k, &mut rng);
}

/// More than 1024 tiles: the ladder's top level (the chain of 1024-tile
/// prefixes) in the scans, with a float sum.
#[test]
fn grid_scans_cross_the_1024_tile_level() {
    let test = "grid_scans_cross_the_1024_tile_level";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    let tile = 32 * items_per_thread::<f32>();
    for n in [1024 * tile, 1024 * tile + 1, 2100 * tile + 17] {
        scan_case::<f32>(&gpu, &k, &mut rng, 7, 32, n);
    }
}

/// Seeds of the simulator's skewed schedule for the look-back's scans.
/// Each replays one launch's schedule; 32 and 39 form the cycle of waits
/// below (about 1 seed in 20 does, at 1,200 tiles).
const SKEW_SEEDS: std::ops::Range<u64> = 32..40;

/// The look-back with its blocks out of step: on the simulator under its
/// skewed schedule (`cg_sim::Schedule::Skewed`: blocks resumed in a new
/// order every pass, at speeds of their own, started late, held back for
/// up to thousands of passes while the others run ahead), the scans of
/// affine maps (an order a wrong prefix shows in) over 1,201 tiles on 22
/// blocks of a warp, under several seeds, and
/// `grid_select` of `u32` as long under one. On the fair schedule the
/// blocks move in step, and a cycle of waits that needs one block tiles
/// behind the others never forms: a tile queue whose window duty came
/// before its look-back (`docs/probes/tile-queue/`) passed there and hung
/// an H200. There, the block holding tile 1023 (it publishes the prefix
/// through it, which every later look-back waits for) stalls; each other
/// block takes 3 tiles past it and waits in the look-back of the first;
/// the stalled block's next tile is then 1024 + 3 (B - 1), and with B =
/// 22 blocks that tile closes a window of 32 whose duty, done first,
/// waits for a tile that a waiting block holds. Seeds 32 and 39 stall it
/// so (a livelock report, in 2 to 4 s). On a GPU the blocks are out of
/// step anyway: the same cases, once.
#[test]
fn grid_scans_and_select_with_blocks_out_of_step() {
    let test = "grid_scans_and_select_with_blocks_out_of_step";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    let (blocks, threads) = (22, 32);
    let scan_n = 1200 * threads as usize * items_per_thread::<[u32; 2]>() + 1;
    let select_n = 1200 * threads as usize * select_items_per_thread::<u32>() + 1;
    let seeds = if gpu.is_simulator() { SKEW_SEEDS } else { 0..1 };
    for seed in seeds.clone() {
        let started = std::time::Instant::now();
        sim::with_schedule(Schedule::Skewed { seed }, || {
            scan_case::<[u32; 2]>(&gpu, &k, &mut rng, blocks, threads, scan_n);
            if seed == seeds.start {
                select_u32_case(&gpu, &k, &mut rng, blocks, threads, select_n);
            }
        });
        println!("skew:{seed}: {:.1} s", started.elapsed().as_secs_f64());
    }
}

/// On a GPU only (the simulator keeps 8,192 threads and would take hours):
/// the largest cooperative grid of 256-thread blocks scans `u32` sums of
/// 2^20, 2^24 + 5 and 2^26 elements (checked against a sequential wrapping
/// fold), and an `f32` sum of 2^22 + 3 elements (bit for bit against the
/// model). No timing: correctness at sizes where thousands of tiles wait
/// on each other at once.
#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: millions of elements")]
fn grid_scans_of_millions_on_the_gpu() {
    let test = "grid_scans_of_millions_on_the_gpu";
    let Some(gpu) = common::real_gpu(test, "millions of elements, sizes for a GPU") else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    let cfg = k
        .grid_scan_u32
        .function()
        .cooperative_config(256, 0)
        .unwrap();
    let (blocks, threads) = (cfg.num_blocks() as u32, 256);
    for n in common::sizes(&[1 << 20, (1 << 24) + 5, 1 << 26]) {
        let input = random::<u32>(&mut rng, n);
        let din = gpu.upload(&input).unwrap();
        let g = (blocks * threads) as usize;
        let mut outs = [
            poisoned::<u32>(&gpu, n),
            poisoned::<u32>(&gpu, n),
            poisoned::<u32>(&gpu, g),
        ];
        let mut words = gpu
            .filled(grid_scratch_words::<u32>(blocks, threads, n), 0u64)
            .unwrap();
        let [x, y, z] = &mut outs;
        k.grid_scan_u32
            .launch(cfg, &din, x, y, z, &mut words, 0)
            .unwrap();
        gpu.synchronize().unwrap();
        let (e, i) = (outs[0].to_vec().unwrap(), outs[1].to_vec().unwrap());
        let mut acc = 0u32;
        for j in 0..n {
            assert_eq!(
                e[j], acc,
                "exclusive u32 sum of {n} on {blocks} x 256, element {j}"
            );
            acc = acc.wrapping_add(input[j]);
            assert_eq!(
                i[j], acc,
                "inclusive u32 sum of {n} on {blocks} x 256, element {j}"
            );
        }
    }
    for n in common::sizes(&[(1 << 22) + 3]) {
        scan_case::<f32>(&gpu, &k, &mut rng, blocks, threads, n);
    }
}

/// Sizes of the selections and slice reductions on blocks of `threads`:
/// empty, one, around a tile of `T`, past a window of 32 tiles, and a
/// length of no tile size.
fn select_sizes<T>(threads: u32) -> Vec<usize> {
    let tile = threads as usize * select_items_per_thread::<T>();
    let mut s = vec![0, 1, tile - 1, tile, tile + 1, 33 * tile + 1, 100_003];
    s.sort();
    s.dedup();
    s
}

/// `grid_reduce_slice`'s order (its docs): thread `g` of `s` folds its
/// elements into eight accumulators from `identity`: for 4-byte `T` (a
/// device buffer, so no unaligned head) its grid-stride groups of four,
/// element `e` of the `k`-th into `4 (k % 2) + e`, then tail element `g`
/// into the fifth; for other `T` its grid-stride elements, the `k`-th
/// into `k % 8`. It combines them as the pairwise tree `op(op(op(a0,
/// a1), op(a2, a3)), op(op(a4, a5), op(a6, a7)))`, and `grid_reduce`
/// takes the threads' values.
fn model_reduce_slice<T: Copy>(
    op: &impl Op<T>,
    input: &[T],
    identity: T,
    blocks: u32,
    threads: u32,
) -> T {
    let s = (blocks * threads) as usize;
    let values: Vec<T> = (0..s)
        .map(|g| {
            let mut acc = [identity; 8];
            if std::mem::size_of::<T>() == 4 {
                let groups = input.len() / 4;
                let step = s.min(groups.max(1));
                for (k, q) in (g..groups).step_by(step).enumerate() {
                    for e in 0..4 {
                        let a = 4 * (k % 2) + e;
                        acc[a] = op(acc[a], input[4 * q + e]);
                    }
                }
                if let Some(&x) = input[4 * groups..].get(g) {
                    acc[4] = op(acc[4], x);
                }
            } else {
                let step = s.min(input.len().max(1));
                for (k, &x) in input.iter().skip(g).step_by(step).enumerate() {
                    acc[k % 8] = op(acc[k % 8], x);
                }
            }
            let pair = |a: usize| op(acc[a], acc[a + 1]);
            op(op(pair(0), pair(2)), op(pair(4), pair(6)))
        })
        .collect();
    model_reduce(op, &values, threads as usize)
}

/// `grid_reduce_slice` of `f64` (8-byte values: the element-wise order):
/// the sum bit for bit with the model's.
#[test]
fn grid_reduce_slice_f64_matches_the_model_bit_for_bit() {
    let test = "grid_reduce_slice_f64_matches_the_model_bit_for_bit";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS.into_iter().chain([(100, 40)]) {
        let g = (blocks * threads) as usize;
        for n in select_sizes::<f64>(threads) {
            let input: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let din = gpu.upload(&input).unwrap();
            let poison = f64::from_bits(u64::from_ne_bytes([POISON; 8]));
            let mut sums = gpu.filled(g, poison).unwrap();
            let words = grid_scratch_words::<f64>(blocks, threads, 0);
            let mut words = gpu.filled(words, 0u64).unwrap();
            let cfg = LaunchConfig::new(blocks, threads);
            k.grid_reduce_slice_f64
                .launch(cfg, &din, &mut sums, &mut words)
                .unwrap();
            gpu.synchronize().unwrap();
            let sum = model_reduce_slice(&|a: f64, b: f64| a + b, &input, 0.0, blocks, threads);
            for (t, got) in sums.to_vec().unwrap().into_iter().enumerate() {
                assert_eq!(
                    got.to_bits(),
                    sum.to_bits(),
                    "grid_reduce_slice f64 sum of {n} on {blocks} x {threads}, thread {t}: \
                     {got} against the model's {sum}"
                );
            }
        }
    }
}

/// A selection's output against the kept elements of `input`: the kept
/// ones in order, the rest of the buffer still poisoned, and every
/// thread's count.
fn check_selection<T: Case>(
    what: &str,
    input: &[T],
    keep: impl Fn(&T) -> bool,
    kept: &DeviceBuffer<T>,
    counts: &DeviceBuffer<u32>,
) {
    let want: Vec<T> = input.iter().copied().filter(keep).collect();
    let got = kept.to_vec().unwrap();
    if let Some(d) = first_difference(&got[..want.len()], &want) {
        panic!("grid_select, {what}: {d}");
    }
    assert!(
        bytemuck::cast_slice::<T, u8>(&got[want.len()..])
            .iter()
            .all(|&b| b == POISON),
        "grid_select, {what}: wrote past the {} kept elements",
        want.len()
    );
    let counts = counts.to_vec().unwrap();
    if let Some(d) = first_difference(&counts, &vec![want.len() as u32; counts.len()]) {
        panic!("grid_select's count, {what}: {d}");
    }
}

/// `grid_select` of `u32` below a threshold (none, about a quarter, all
/// but `u32::MAX`), then `grid_reduce_slice`'s wrapping sum on the same
/// scratch after its barrier.
fn select_u32_case(gpu: &Gpu, k: &Kernels, rng: &mut StdRng, blocks: u32, threads: u32, n: usize) {
    let g = (blocks * threads) as usize;
    let mut input = random::<u32>(rng, n);
    if let Some(x) = input.get_mut(n / 2) {
        *x = u32::MAX;
    }
    let din = gpu.upload(&input).unwrap();
    for threshold in [0, 1 << 30, u32::MAX] {
        let mut kept = poisoned::<u32>(gpu, n);
        let mut counts = poisoned::<u32>(gpu, g);
        let mut sums = poisoned::<u32>(gpu, g);
        let words = grid_select_scratch_words::<u32>(blocks, threads, n);
        let mut words = gpu.filled(words, 0u64).unwrap();
        let cfg = LaunchConfig::new(blocks, threads);
        k.grid_select_u32
            .launch(
                cfg,
                &din,
                &mut kept,
                &mut counts,
                &mut sums,
                &mut words,
                threshold,
            )
            .unwrap();
        gpu.synchronize().unwrap();
        let what = format!("u32 below {threshold} of {n} on {blocks} x {threads}");
        check_selection(&what, &input, |&v| v < threshold, &kept, &counts);
        let add = |a: u32, b: u32| a.wrapping_add(b);
        let want = model_reduce_slice(&add, &input, 0, blocks, threads);
        assert_eq!(
            want,
            input.iter().fold(0, |a, &b| add(a, b)),
            "model, {what}"
        );
        if let Some(d) = first_difference(&sums.to_vec().unwrap(), &vec![want; g]) {
            panic!("grid_reduce_slice after grid_select, {what}: {d}");
        }
    }
}

#[test]
fn grid_select_u32_keeps_the_model_s_elements_in_order() {
    let test = "grid_select_u32_keeps_the_model_s_elements_in_order";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS {
        for n in select_sizes::<u32>(threads) {
            select_u32_case(&gpu, &k, &mut rng, blocks, threads, n);
        }
    }
}

/// `grid_select` of positive `f32` (NaNs and negative zeros among them)
/// and of odd `u64` (tiles of 4 elements a thread).
#[test]
fn grid_select_f32_and_u64_keep_the_model_s_elements_in_order() {
    let test = "grid_select_f32_and_u64_keep_the_model_s_elements_in_order";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS {
        let g = (blocks * threads) as usize;
        let cfg = LaunchConfig::new(blocks, threads);
        for n in select_sizes::<f32>(threads) {
            let mut input = random::<f32>(&mut rng, n);
            for (i, x) in input.iter_mut().enumerate().step_by(97) {
                *x = if i % 2 == 0 { f32::NAN } else { -0.0 };
            }
            let din = gpu.upload(&input).unwrap();
            let (mut kept, mut counts) = (poisoned::<f32>(&gpu, n), poisoned::<u32>(&gpu, g));
            let words = grid_select_scratch_words::<f32>(blocks, threads, n);
            let mut words = gpu.filled(words, 0u64).unwrap();
            k.grid_select_f32
                .launch(cfg, &din, &mut kept, &mut counts, &mut words)
                .unwrap();
            gpu.synchronize().unwrap();
            let what = format!("positive f32 of {n} on {blocks} x {threads}");
            // Compared as bits: a kept value is never NaN.
            check_selection(&what, &input, |&v| v > 0.0, &kept, &counts);
        }
        for n in select_sizes::<u64>(threads) {
            let input = random::<u64>(&mut rng, n);
            let din = gpu.upload(&input).unwrap();
            let (mut kept, mut counts) = (poisoned::<u64>(&gpu, n), poisoned::<u32>(&gpu, g));
            let words = grid_select_scratch_words::<u64>(blocks, threads, n);
            let mut words = gpu.filled(words, 0u64).unwrap();
            k.grid_select_u64
                .launch(cfg, &din, &mut kept, &mut counts, &mut words)
                .unwrap();
            gpu.synchronize().unwrap();
            let what = format!("odd u64 of {n} on {blocks} x {threads}");
            check_selection(&what, &input, |&v| v & 1 == 1, &kept, &counts);
        }
    }
}

/// `grid_reduce_slice` of `f32`: the sum bit for bit with the model's
/// order (and within `γ(n - 1) Σ|x|` of the exact sum), then the maximum,
/// on one scratch.
#[test]
fn grid_reduce_slice_f32_matches_the_model_bit_for_bit() {
    let test = "grid_reduce_slice_f32_matches_the_model_bit_for_bit";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    for (blocks, threads) in GRIDS.into_iter().chain([(100, 40)]) {
        let g = (blocks * threads) as usize;
        for n in select_sizes::<f32>(threads) {
            let input = random::<f32>(&mut rng, n);
            let din = gpu.upload(&input).unwrap();
            let (mut sums, mut maxes) = (poisoned::<f32>(&gpu, g), poisoned::<f32>(&gpu, g));
            let words = grid_scratch_words::<f32>(blocks, threads, 0);
            let mut words = gpu.filled(words, 0u64).unwrap();
            let cfg = LaunchConfig::new(blocks, threads);
            k.grid_reduce_slice_f32
                .launch(cfg, &din, &mut sums, &mut maxes, &mut words)
                .unwrap();
            gpu.synchronize().unwrap();
            let what = format!("f32 slice of {n} on {blocks} x {threads}");
            let sum = model_reduce_slice(&|a: f32, b: f32| a + b, &input, 0.0, blocks, threads);
            if let Some(d) = first_difference(&sums.to_vec().unwrap(), &vec![sum; g]) {
                panic!("grid_reduce_slice sum, {what}: {d}");
            }
            check_float_total(&what, sum, &input);
            let max = input.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            if let Some(d) = first_difference(&maxes.to_vec().unwrap(), &vec![max; g]) {
                panic!("grid_reduce_slice maximum, {what}: {d}");
            }
        }
    }
}

/// The bins of `input` on the host, by the levels' own rule (unit-tested
/// against the exact formula in cg-core), added to `start`.
fn model_histogram<T: Sample>(input: &[T], even: &Even<T>, start: &[u32]) -> Vec<u32> {
    let mut bins = start.to_vec();
    for &x in input {
        if let Some(b) = even.bin(x) {
            bins[b as usize] += 1;
        }
    }
    bins
}

/// `grid_histogram` of `u32` (bins dividing the range, bins that do not,
/// the whole range of `u32`) and of `f32` (NaNs and values outside the
/// range among them), added to bins that start non-zero.
#[test]
fn grid_histogram_counts_as_the_model() {
    let test = "grid_histogram_counts_as_the_model";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    let int_levels = [
        (0u32, 256u32, 256u32),
        (10, 1010, 10),
        (0, 1000, 7),
        (0, u32::MAX, 64),
    ];
    for (blocks, threads) in GRIDS {
        let cfg = LaunchConfig::new(blocks, threads);
        for n in [0, 1, 1000, 100_003] {
            for (lower, upper, nbins) in int_levels {
                let input: Vec<u32> = (0..n)
                    .map(|_| match upper {
                        u32::MAX => rng.random(),
                        _ => rng.random_range(0..upper + upper / 8),
                    })
                    .collect();
                let start: Vec<u32> = (0..nbins).map(|b| b * 3).collect();
                let mut bins = gpu.upload(&start).unwrap();
                let din = gpu.upload(&input).unwrap();
                k.grid_histogram_u32
                    .launch(cfg, &din, &mut bins, lower, upper, nbins)
                    .unwrap();
                gpu.synchronize().unwrap();
                let want = model_histogram(&input, &Even::new(lower, upper, nbins), &start);
                assert_eq!(
                    bins.to_vec().unwrap(),
                    want,
                    "u32 histogram of {n} in {nbins} bins of [{lower}, {upper}) on {blocks} x {threads}"
                );
            }
            let mut input = (0..n)
                .map(|_| rng.random_range(-1.5f32..1.5))
                .collect::<Vec<_>>();
            for x in input.iter_mut().step_by(101) {
                *x = f32::NAN;
            }
            let start = vec![0u32; 100];
            let mut bins = gpu.upload(&start).unwrap();
            let din = gpu.upload(&input).unwrap();
            k.grid_histogram_f32
                .launch(cfg, &din, &mut bins, -1.0, 1.0, 100)
                .unwrap();
            gpu.synchronize().unwrap();
            let want = model_histogram(&input, &Even::new(-1.0f32, 1.0, 100), &start);
            assert_eq!(
                bins.to_vec().unwrap(),
                want,
                "f32 histogram of {n} on {blocks} x {threads}"
            );
        }
    }
}

/// On a GPU only (sizes the simulator would take hours over): on the
/// largest cooperative grid of 256-thread blocks, `grid_select` of `u32`
/// and the wrapping sum after it at 2^20 + 3 and 2^24, the `f32` slice sum
/// at 2^24 (bit for bit with the model), and the `u32` and `f32`
/// histograms at 2^24 on the same grid.
#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: millions of elements")]
fn grid_select_reduce_and_histogram_of_millions_on_the_gpu() {
    let test = "grid_select_reduce_and_histogram_of_millions_on_the_gpu";
    let Some(gpu) = common::real_gpu(test, "millions of elements, sizes for a GPU") else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    // One grid for every kernel launched here: the fewest blocks any of
    // them can keep resident (their registers differ).
    let cfg = [
        k.grid_select_u32.function(),
        k.grid_reduce_slice_f32.function(),
        k.grid_histogram_u32.function(),
    ]
    .into_iter()
    .map(|f| f.cooperative_config(256, 0).unwrap())
    .min_by_key(|c| c.num_blocks())
    .unwrap();
    let (blocks, threads) = (cfg.num_blocks() as u32, 256);
    let g = (blocks * threads) as usize;
    for n in common::sizes(&[(1 << 20) + 3, 1 << 24]) {
        select_u32_case(&gpu, &k, &mut rng, blocks, threads, n);
        let input = random::<f32>(&mut rng, n);
        let din = gpu.upload(&input).unwrap();
        let (mut sums, mut maxes) = (poisoned::<f32>(&gpu, g), poisoned::<f32>(&gpu, g));
        let words = grid_scratch_words::<f32>(blocks, threads, 0);
        let mut words = gpu.filled(words, 0u64).unwrap();
        k.grid_reduce_slice_f32
            .launch(cfg, &din, &mut sums, &mut maxes, &mut words)
            .unwrap();
        gpu.synchronize().unwrap();
        let sum = model_reduce_slice(&|a: f32, b: f32| a + b, &input, 0.0, blocks, threads);
        assert_eq!(sums.to_vec().unwrap(), vec![sum; g], "f32 slice sum of {n}");
        let mut bins = gpu.filled(256, 0u32).unwrap();
        let ints = random::<u32>(&mut rng, n);
        let dints = gpu.upload(&ints).unwrap();
        k.grid_histogram_u32
            .launch(cfg, &dints, &mut bins, 0, u32::MAX, 256)
            .unwrap();
        gpu.synchronize().unwrap();
        let even = Even::new(0, u32::MAX, 256);
        assert_eq!(
            bins.to_vec().unwrap(),
            model_histogram(&ints, &even, &[0; 256]),
            "u32 histogram of {n}"
        );
        let mut bins = gpu.filled(256, 0u32).unwrap();
        k.grid_histogram_f32
            .launch(cfg, &din, &mut bins, -1.0, 1.0, 256)
            .unwrap();
        gpu.synchronize().unwrap();
        let even = Even::new(-1.0f32, 1.0, 256);
        assert_eq!(
            bins.to_vec().unwrap(),
            model_histogram(&input, &even, &[0; 256]),
            "f32 histogram of {n}"
        );
    }
}
