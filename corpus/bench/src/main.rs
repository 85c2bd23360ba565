//! The corpus's benchmark (corpus/SPEC.md): every corpus kernel, built from
//! Rust twice (floating-point contraction fast, as nvcc; and off) and, given
//! the directory of its CUDA C++ versions compiled by `nvcc -ptx`
//! (`--cuda DIR`, `DIR/<kernel>.ptx`), by nvcc, each run on the same random
//! inputs with the same launch shape, checked against the CPU, compared
//! with the others and timed with CUDA events; one line per kernel at the
//! end: Rust ms, CUDA C++ ms, their ratio.
//!
//! ```text
//! corpus-bench [--cuda DIR] [--json FILE] [--runs N] [--quick] [--profile] [--sim]
//! ```

use cooperative_groups::{DeviceBuffer, Function, Gpu, LaunchConfig, LaunchKind, Ptx, PtxSet};
use ports_common::{Diff, Lcg, Options, Row, Rows, Spread, Step, Timed, Value};
use std::path::PathBuf;

// The kernel crate's host build, which `--sim` runs on the CPU simulator.
use corpus_kernels as _;

/// The typed launch handles of `../kernels` (contraction fast), generated
/// by build.rs.
mod kernels {
    include!(concat!(env!("OUT_DIR"), "/cg_kernels.rs"));
}

/// The kernels built without floating-point contraction.
static CONTRACT_OFF: PtxSet = PtxSet::new(&[Ptx {
    sm: 90,
    source: include_str!(concat!(env!("OUT_DIR"), "/kernels_contract_off.ptx")),
}]);

/// Threads per block of the 1-D kernels (SPEC.md).
const THREADS: u32 = 256;

/// Blocks of the kernels SPEC.md launches on a fixed grid (and the cap of
/// saxpy's).
const FIXED_BLOCKS: u32 = 1056;

/// The same on the simulator, whose blocks run one after another.
const SIM_BLOCKS: u32 = 8;

/// Launches per timed run.
const BATCH: usize = 10;

/// The environment variable that names the `--cuda` directory when the
/// option is not given.
pub const CUDA_DIR_VAR: &str = "CG_CORPUS_CUDA_DIR";

/// What `corpus-bench` accepts.
const USAGE: &str = "usage: corpus-bench [--cuda DIR] [--json FILE] [--runs N] [--quick] [--profile] [--sim]
  --cuda DIR    the corpus's CUDA C++ versions built by `nvcc -O3 -arch=sm_90 -ptx`, one DIR/<kernel>.ptx
                per kernel (else $CG_CORPUS_CUDA_DIR): run beside the Rust kernels on the same inputs and
                launch shapes, checked and timed
  --json FILE   write the rows (comparison and times) as JSON
  --runs N      timed runs of each kernel (default 30)
  --quick       medium sizes (about the L2's), 5 timed runs
  --profile     for a profiler (ncu): each kernel launched once per build, Rust (contraction fast),
                then nvcc, at the --quick sizes, results checked; nothing timed
  --sim         the Rust kernels (contraction fast) on the CPU simulator, at small sizes, checked;
                nothing timed";

/// The command line: the ports' options (`cuda` names a directory here)
/// and `--sim`.
#[derive(Debug, Clone, PartialEq)]
struct Args {
    opts: Options,
    sim: bool,
}

impl Args {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let args: Vec<String> = args.into_iter().collect();
        let sim = args.iter().any(|a| a == "--sim");
        let rest: Vec<String> = args.iter().filter(|a| *a != "--sim").cloned().collect();
        let mut opts = Options::parse(rest.iter().cloned()).map_err(|e| {
            if e == ports_common::USAGE {
                USAGE.to_string()
            } else {
                e.replace(ports_common::USAGE, USAGE)
            }
        })?;
        if !rest.iter().any(|a| a == "--cuda") {
            opts.cuda = std::env::var_os(CUDA_DIR_VAR).map(PathBuf::from);
        }
        if sim {
            opts.quick = true;
        }
        Ok(Args { opts, sim })
    }
}

/// The problem sizes of one run: SPEC.md's, `--quick`'s, or the
/// simulator's (partial blocks, warps and tiles in every shape).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sizes {
    /// Elements of saxpy, block_sum, exclusive_scan, histogram, compact,
    /// gelu, and options of black_scholes.
    n: usize,
    /// The grid of jacobi_step and the matrix of transpose: rows, columns.
    grid: (usize, usize),
    /// spmv_csr's rows (and the length of its `x`).
    spmv_rows: usize,
    /// row_normalize's and softmax's rows and columns.
    norm: (usize, usize),
}

impl Sizes {
    fn of(args: &Args) -> Sizes {
        if args.sim {
            Sizes {
                n: 5_003,
                grid: (45, 70),
                spmv_rows: 301,
                norm: (6, 300),
            }
        } else if args.opts.quick || args.opts.profile {
            Sizes {
                n: 1 << 22,
                grid: (2048, 2048),
                spmv_rows: 1 << 16,
                norm: (1 << 11, 2048),
            }
        } else {
            Sizes {
                n: 1 << 26,
                grid: (8192, 8192),
                spmv_rows: 1 << 22,
                norm: (1 << 15, 2048),
            }
        }
    }
}

/// One kernel's times, for the closing table.
#[derive(Debug, Clone)]
struct Summary {
    kernel: &'static str,
    size: String,
    fast: Option<Spread>,
    off: Option<Spread>,
    nvcc: Option<Spread>,
    /// How the Rust build with contraction fast differs from nvcc's.
    diff: Option<Diff>,
}

/// What every kernel's run shares.
struct Ctx<'a> {
    gpu: &'a Gpu,
    args: &'a Args,
    /// The build without contraction and its PTX (not on the simulator).
    off: Option<(cooperative_groups::Module, &'static str)>,
    rows: Rows,
    summary: Vec<Summary>,
}

/// The other builds of one kernel: without contraction, and nvcc's.
struct Others<H> {
    off: Option<H>,
    nvcc: Option<H>,
}

impl Ctx<'_> {
    /// Kernel `name` built without contraction and by nvcc (from
    /// `DIR/<name>.ptx`), each as the typed handle of ours once its PTX
    /// parameters are found equal to ours.
    ///
    /// # Safety
    /// `make` is the `from_function` of kernel `name`'s typed handle, and
    /// corpus/cuda/`<name>`.cu gives each parameter the Rust kernel's
    /// meaning.
    unsafe fn others<H>(
        &self,
        name: &str,
        kind: LaunchKind,
        make: unsafe fn(Function) -> H,
    ) -> ports_common::Result<Others<H>> {
        let off = match &self.off {
            Some((module, ptx)) => {
                let f = ports_common::function_like(
                    module,
                    ptx,
                    "the build without contraction",
                    name,
                    kind,
                    &kernels::PTX,
                )?;
                // SAFETY: the same kernel source, and the same PTX
                // parameters (checked).
                Some(unsafe { make(f) })
            }
            None => None,
        };
        let nvcc = match (&self.args.opts.cuda, self.gpu.is_simulator()) {
            (Some(dir), false) => {
                let path = dir.join(format!("{name}.ptx"));
                let (module, text) = ports_common::load_cuda(self.gpu, &path)?;
                let f = ports_common::function_like(
                    &module,
                    &text,
                    &path.display().to_string(),
                    name,
                    kind,
                    &kernels::PTX,
                )?;
                // SAFETY: the caller's contract; the parameter types are
                // checked.
                Some(unsafe { make(f) })
            }
            _ => None,
        };
        Ok(Others { off, nvcc })
    }

    /// Blocks of a kernel SPEC.md launches on a fixed grid of 1056.
    fn fixed_blocks(&self) -> u32 {
        if self.gpu.is_simulator() {
            SIM_BLOCKS
        } else {
            FIXED_BLOCKS
        }
    }

    /// The most blocks of 256 threads every build of a cooperative kernel
    /// can run co-resident.
    fn cooperative_blocks<'h>(
        &self,
        functions: impl IntoIterator<Item = &'h Function>,
    ) -> ports_common::Result<u32> {
        let mut blocks = u32::MAX;
        for f in functions {
            blocks = blocks.min(f.max_cooperative_blocks(THREADS, 0)?);
        }
        Ok(blocks)
    }
}

/// One kernel's comparison: what it is, and its builds.
struct Case<'h, H> {
    kernel: &'static str,
    size: String,
    launch: String,
    builds: Vec<(&'static str, &'h H)>,
}

/// The builds of a kernel, in the order Rust (contraction fast), Rust
/// (contraction off), nvcc; only fast and nvcc with `--profile`.
fn builds<'h, H>(fast: &'h H, others: &'h Others<H>, profile: bool) -> Vec<(&'static str, &'h H)> {
    let mut v = vec![(FAST, fast)];
    if !profile {
        v.extend(others.off.as_ref().map(|h| (OFF, h)));
    }
    v.extend(others.nvcc.as_ref().map(|h| (NVCC, h)));
    v
}

const FAST: &str = "Rust, contraction fast";
const OFF: &str = "Rust, contraction off";
const NVCC: &str = "nvcc -O3";

/// Where `got` differs from `expected` (NaN equal to NaN, any other value
/// by its bits): the count and the first such index.
fn mismatches<T: Value>(got: &[T], expected: &[T]) -> (usize, Option<usize>) {
    let mut count = got.len().abs_diff(expected.len());
    let mut first = (count > 0).then_some(got.len().min(expected.len()));
    for (i, (&a, &b)) in got.iter().zip(expected).enumerate() {
        let both_nan = a.to_f64().is_nan() && b.to_f64().is_nan();
        if !(a.same_bits(b) || both_nan) {
            count += 1;
            first = Some(first.map_or(i, |f| f.min(i)));
        }
    }
    (count, first)
}

/// The check of a result that must be the CPU's `expected` bit for bit
/// (NaN equal to NaN).
fn exactly<T: Value + std::fmt::Debug>(
    expected: &[T],
) -> impl Fn(&[T]) -> Result<String, String> + '_ {
    move |r| match mismatches(r, expected) {
        (_, None) => Ok(format!("the CPU's result, {} values", r.len())),
        (count, Some(i)) => Err(format!(
            "{count} of {} values are not the CPU's; the first at {i}: {:?}, the CPU's {:?}",
            expected.len(),
            r.get(i),
            expected.get(i)
        )),
    }
}

/// The check of a result computed with rounded math functions: every
/// value within `bound(i)` of the CPU's `reference[i]` (computed in
/// `f64`); what it matched says the largest error as a fraction of its
/// bound.
fn within<'a>(
    reference: &'a [f64],
    bound: impl Fn(usize) -> f64 + 'a,
) -> impl Fn(&[f32]) -> Result<String, String> + 'a {
    move |r| {
        if r.len() != reference.len() {
            return Err(format!("{} values, the CPU's {}", r.len(), reference.len()));
        }
        let (mut worst, mut count, mut first) = (0.0f64, 0, None);
        for (i, (&got, &want)) in r.iter().zip(reference).enumerate() {
            let (err, b) = ((got as f64 - want).abs(), bound(i));
            // A NaN is outside every bound.
            if err.is_nan() || err > b {
                count += 1;
                first.get_or_insert(i);
            }
            worst = worst.max(err / b);
        }
        match first {
            None => Ok(format!(
                "within the bound of the CPU's f64 result, {} values (largest error {worst:.3} of its bound)",
                r.len()
            )),
            Some(i) => Err(format!(
                "{count} of {} values are outside the bound of the CPU's f64 result; the first at {i}: {}, the CPU's {} (bound {:e})",
                r.len(),
                r[i],
                reference[i],
                bound(i)
            )),
        }
    }
}

/// Runs each build of `case` once on its own outputs (`make`), checks its
/// result (`read`) against the CPU's `expected`, bit for bit, and then,
/// unless profiling or on the simulator, times them alternately (`launch`
/// queues one launch, with whatever reset it needs first) and pushes a row
/// per comparison: fast and off against nvcc, fast against off.
fn compare<H, O, T: Value + std::fmt::Debug>(
    ctx: &mut Ctx,
    case: Case<H>,
    make: impl Fn() -> cooperative_groups::Result<O>,
    launch: impl Fn(&H, &mut O) -> cooperative_groups::Result<()>,
    read: impl Fn(&O) -> cooperative_groups::Result<Vec<T>>,
    expected: &[T],
) -> ports_common::Result<()> {
    compare_with(ctx, case, make, launch, read, exactly(expected))
}

/// `compare` with the check of each build's result given: `check` says
/// what the result matched (`Ok`) or where it does not (`Err`).
fn compare_with<H, O, T: Value>(
    ctx: &mut Ctx,
    case: Case<H>,
    make: impl Fn() -> cooperative_groups::Result<O>,
    launch: impl Fn(&H, &mut O) -> cooperative_groups::Result<()>,
    read: impl Fn(&O) -> cooperative_groups::Result<Vec<T>>,
    check: impl Fn(&[T]) -> Result<String, String>,
) -> ports_common::Result<()> {
    let mut outs = Vec::new();
    let mut results = Vec::new();
    for (side, h) in &case.builds {
        let mut o = make()?;
        launch(h, &mut o)?;
        let r = read(&o)?;
        let matched =
            check(&r).map_err(|e| format!("{} ({side}, {}): {e}", case.kernel, case.size))?;
        println!(
            "{} ({side}, {}, {}): {matched}",
            case.kernel, case.size, case.launch
        );
        outs.push(o);
        results.push(r);
    }
    if ctx.args.opts.profile || ctx.gpu.is_simulator() {
        return Ok(());
    }
    let runs = ctx.args.opts.runs;
    let launch = &launch;
    let mut timed: Vec<Timed> = case
        .builds
        .iter()
        .zip(outs.iter_mut())
        .map(|(&(_, h), o)| -> Timed {
            Box::new(move |step| match step {
                Step::Prepare => Ok(()),
                Step::Launch => launch(h, o),
            })
        })
        .collect();
    let times = ports_common::time_alternating(ctx.gpu, runs, BATCH, &mut timed)?;
    drop(timed);
    let at = |side: &str| case.builds.iter().position(|(s, _)| *s == side);
    let (fast, off, nvcc) = (at(FAST), at(OFF), at(NVCC));
    let mut pairs = Vec::new();
    if let Some(c) = nvcc {
        pairs.push((fast, c));
        pairs.push((off, c));
    }
    pairs.push((fast, off.unwrap_or(usize::MAX)));
    for (a, b) in pairs {
        let (Some(a), true) = (a, b < case.builds.len()) else {
            continue;
        };
        ctx.rows.push(Row {
            port: "corpus".into(),
            kernel: case.kernel.into(),
            size: case.size.clone(),
            launch: case.launch.clone(),
            side: case.builds[a].0.into(),
            against: case.builds[b].0.into(),
            diff: Diff::of(&results[a], &results[b]),
            time: Some(times[a]),
            other: Some(times[b]),
            runs,
            batch: BATCH,
        });
    }
    ctx.summary.push(Summary {
        kernel: case.kernel,
        size: case.size,
        fast: fast.map(|i| times[i]),
        off: off.map(|i| times[i]),
        nvcc: nvcc.map(|i| times[i]),
        diff: fast
            .zip(nvcc)
            .map(|(a, c)| Diff::of(&results[a], &results[c])),
    });
    Ok(())
}

/// Prints each build's registers and blocks per SM, not on the simulator.
fn occupancy<H>(
    ctx: &Ctx,
    kernel: &str,
    threads: u32,
    builds: &[(&str, &H)],
    function: impl Fn(&H) -> &Function,
) -> ports_common::Result<()> {
    if ctx.gpu.is_simulator() {
        return Ok(());
    }
    let all: Vec<(&str, &Function)> = builds.iter().map(|(s, h)| (*s, function(h))).collect();
    ports_common::print_occupancy(kernel, threads, &all)
}

impl<'h, H> Case<'h, H> {
    /// The case of kernel `kernel` (its builds: `fast`, and `others` as
    /// `builds` lists them), with each build's occupancy printed.
    fn new(
        ctx: &Ctx,
        kernel: &'static str,
        (size, launch): (String, String),
        (fast, others): (&'h H, &'h Others<H>),
        function: impl Fn(&H) -> &Function,
    ) -> ports_common::Result<Self> {
        let case = Case {
            kernel,
            size,
            launch,
            builds: builds(fast, others, ctx.args.opts.profile),
        };
        occupancy(ctx, kernel, THREADS, &case.builds, function)?;
        Ok(case)
    }
}

impl Ctx<'_> {
    /// Blocks of a grid-stride kernel over `n` elements (SPEC.md):
    /// `ceil(n / 256)`, at least 1, capped at 1056 (8 on the simulator).
    fn grid_stride_blocks(&self, n: usize) -> u32 {
        (n.div_ceil(THREADS as usize) as u32).clamp(1, self.fixed_blocks())
    }
}

// ---------------------------------------------------------------------------
// Inputs and CPU references.

/// `n` integers in [-1000, 1000] as `f32` (exact in every sum and product
/// the kernels make of them).
fn small_ints(rng: &mut Lcg, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.next_u31() % 2001) as f32 - 1000.0)
        .collect()
}

/// 32 random bits.
fn next_u32(rng: &mut Lcg) -> u32 {
    (rng.next_u31() << 1) ^ (rng.next_u31() >> 15)
}

/// `z = a * x + y` (exact for `a = 0.5` and small integers).
fn saxpy_cpu(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(&x, &y)| a * x + y).collect()
}

/// Block `b`'s chunk of `n` elements over `blocks` blocks (SPEC.md):
/// `[b * c, min((b + 1) * c, n))`, `c = ceil(n / blocks)`.
fn chunk(n: usize, blocks: usize, b: usize) -> std::ops::Range<usize> {
    let c = n.div_ceil(blocks);
    (b * c).min(n)..((b + 1) * c).min(n)
}

/// `partials` then `total`, as block_sum computes them (exact for
/// integer-valued inputs whose total is below 2^24).
fn block_sum_cpu(x: &[f32], blocks: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..blocks)
        .map(|b| x[chunk(x.len(), blocks, b)].iter().sum())
        .collect();
    v.push(v.iter().sum());
    v
}

/// `y` (the exclusive prefix sums, wrapping) then `block_totals`.
fn exclusive_scan_cpu(x: &[u32], blocks: usize) -> Vec<u32> {
    let mut y = Vec::with_capacity(x.len() + blocks);
    let mut s = 0u32;
    for &v in x {
        y.push(s);
        s = s.wrapping_add(v);
    }
    for b in 0..blocks {
        let r = chunk(x.len(), blocks, b);
        y.push(x[r].iter().fold(0u32, |a, &v| a.wrapping_add(v)));
    }
    y
}

/// Counts of `v >> 24`.
fn histogram_cpu(x: &[u32]) -> Vec<u32> {
    let mut bins = vec![0u32; 256];
    for &v in x {
        bins[(v >> 24) as usize] += 1;
    }
    bins
}

/// One Jacobi sweep of the `nx` x `ny` grid `src` (row-major).
fn jacobi_cpu(src: &[f32], nx: usize, ny: usize) -> Vec<f32> {
    let mut dst = src.to_vec();
    for y in 1..ny.saturating_sub(1) {
        for x in 1..nx.saturating_sub(1) {
            let i = y * nx + x;
            dst[i] = 0.25 * (((src[i - 1] + src[i + 1]) + src[i - nx]) + src[i + nx]);
        }
    }
    dst
}

/// A CSR matrix.
struct Csr {
    row_ptr: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<f32>,
}

/// `rows` x `rows` with 1 to 63 nonzeros a row (32 on average), small
/// integer values in random columns.
fn csr(rng: &mut Lcg, rows: usize) -> Csr {
    let mut row_ptr = Vec::with_capacity(rows + 1);
    row_ptr.push(0u32);
    let mut cols = Vec::new();
    let mut vals = Vec::new();
    for _ in 0..rows {
        let len = 1 + rng.next_u31() % 63;
        for _ in 0..len {
            cols.push(rng.next_u31() % rows as u32);
            vals.push((rng.next_u31() % 17) as f32 - 8.0);
        }
        row_ptr.push(cols.len() as u32);
    }
    Csr {
        row_ptr,
        cols,
        vals,
    }
}

/// `y = A x` (exact for small integers).
fn spmv_cpu(a: &Csr, x: &[f32]) -> Vec<f32> {
    a.row_ptr
        .windows(2)
        .map(|r| {
            (r[0] as usize..r[1] as usize)
                .map(|k| a.vals[k] * x[a.cols[k] as usize])
                // From +0.0, as the kernels' sums start (`sum()` starts
                // from -0.0: a row of -0.0 products would be -0.0).
                .fold(0.0, |s, p| s + p)
        })
        .collect()
}

/// The count, then the elements above zero, sorted: compaction's result
/// in a form that does not depend on the order of the atomics.
fn compact_canonical(count: u32, kept: &[i32]) -> Vec<i32> {
    let mut v = Vec::with_capacity(kept.len() + 1);
    v.push(count as i32);
    let mut k = kept.to_vec();
    k.sort_unstable();
    v.extend(k);
    v
}

/// The transpose of the `rows` x `cols` matrix `a` (row-major).
fn transpose_cpu(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; a.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = a[r * cols + c];
        }
    }
    t
}

/// Each row of `a` divided by its largest absolute value.
fn row_normalize_cpu(a: &[f32], cols: usize) -> Vec<f32> {
    a.chunks(cols)
        .flat_map(|row| {
            let m = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            row.iter().map(move |v| v / m)
        })
        .collect()
}

/// `n` values on a grid of 1/1024 in [-8, 8): `a - m` is exact in `f32`
/// for any two of them, and `exp(a - m)` far from underflow.
fn softmax_inputs(rng: &mut Lcg, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.next_u31() % 16384) as f32 / 1024.0 - 8.0)
        .collect()
}

/// Each row's softmax (SPEC.md), in `f64` from the `f32` inputs.
fn softmax_cpu(a: &[f32], cols: usize) -> Vec<f64> {
    let mut b = Vec::with_capacity(a.len());
    for row in a.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        b.extend(row.iter().map(|&v| (v as f64 - m).exp() / s));
    }
    b
}

/// `0.5 * x * (1 + erf(x / sqrt(2)))` in `f64`.
fn gelu_cpu(x: f32) -> f64 {
    let x = x as f64;
    0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// The options of black_scholes: CUDA's BlackScholes sample's ranges,
/// price in [5, 30], strike in [1, 100], years in [0.25, 10].
struct OptionInputs {
    price: Vec<f32>,
    strike: Vec<f32>,
    years: Vec<f32>,
}

fn options(rng: &mut Lcg, n: usize) -> OptionInputs {
    let mut uniform = |lo: f64, hi: f64| -> Vec<f32> {
        (0..n)
            .map(|_| (lo + (hi - lo) * rng.next_unit()) as f32)
            .collect()
    };
    OptionInputs {
        price: uniform(5.0, 30.0),
        strike: uniform(1.0, 100.0),
        years: uniform(0.25, 10.0),
    }
}

/// black_scholes's rate and volatility (the sample's).
const RISKFREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;

/// The call prices, then the put prices (SPEC.md, the normal CDF through
/// `erfc`), in `f64` from the `f32` inputs.
fn black_scholes_cpu(o: &OptionInputs, riskfree: f32, volatility: f32) -> Vec<f64> {
    let (r, v) = (riskfree as f64, volatility as f64);
    let cdf = |d: f64| 0.5 * libm::erfc(-d / std::f64::consts::SQRT_2);
    let n = o.price.len();
    let mut out = vec![0.0; 2 * n];
    for i in 0..n {
        let (s, x, t) = (o.price[i] as f64, o.strike[i] as f64, o.years[i] as f64);
        let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let e = (-r * t).exp();
        out[i] = s * cdf(d1) - x * e * cdf(d2);
        out[n + i] = x * e * (1.0 - cdf(d2)) - s * (1.0 - cdf(d1));
    }
    out
}

// ---------------------------------------------------------------------------
// The kernels.

fn saxpy(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::Saxpy as H;
    // SAFETY: the handle of `saxpy`; cuda/saxpy.cu takes its parameters
    // with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(1);
    let a = 0.5f32;
    let (x, y) = (small_ints(&mut rng, n), small_ints(&mut rng, n));
    let expected = saxpy_cpu(a, &x, &y);
    let (dx, dy) = (ctx.gpu.upload(&x)?, ctx.gpu.upload(&y)?);
    let blocks = (n.div_ceil(THREADS as usize) as u32).min(ctx.fixed_blocks());
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("n={n} f32"),
        launch: format!("{blocks} x {THREADS}"),
        builds: builds(&k.saxpy, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || gpu.filled(n, f32::NAN),
        |h: &H, z| h.launch(config, a, &dx, &dy, z),
        |z| z.to_vec(),
        &expected,
    )
}

/// One build's outputs of a kernel with two outputs.
struct Two<A, B>(DeviceBuffer<A>, DeviceBuffer<B>);

fn block_sum(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::BlockSum as H;
    // SAFETY: the handle of `block_sum`; cuda/block_sum.cu takes its
    // parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(2);
    // Ones at about one place in eight, zeros elsewhere: every sum is an
    // integer below 2^24, exact in any order.
    let x: Vec<f32> = (0..n)
        .map(|_| ((rng.next_u31() >> 7) & 7 == 0) as u32 as f32)
        .collect();
    let all = builds(&k.block_sum, &others, false);
    let blocks = ctx.cooperative_blocks(all.iter().map(|(_, h)| h.function()))?;
    let expected = block_sum_cpu(&x, blocks as usize);
    let dx = ctx.gpu.upload(&x)?;
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("n={n} f32 (0 or 1)"),
        launch: format!("{blocks} x {THREADS}, cooperative"),
        builds: builds(&k.block_sum, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || {
            Ok(Two(
                gpu.filled(blocks as usize, f32::NAN)?,
                gpu.filled(1, f32::NAN)?,
            ))
        },
        |h: &H, o| h.launch(config, &dx, &mut o.0, &mut o.1),
        |o| {
            let mut v = o.0.to_vec()?;
            v.extend(o.1.to_vec()?);
            Ok(v)
        },
        &expected,
    )
}

fn exclusive_scan(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::ExclusiveScan as H;
    // SAFETY: the handle of `exclusive_scan`; cuda/exclusive_scan.cu takes
    // its parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(3);
    let x: Vec<u32> = (0..n).map(|_| next_u32(&mut rng)).collect();
    let all = builds(&k.exclusive_scan, &others, false);
    let blocks = ctx.cooperative_blocks(all.iter().map(|(_, h)| h.function()))?;
    let expected = exclusive_scan_cpu(&x, blocks as usize);
    let dx = ctx.gpu.upload(&x)?;
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("n={n} u32"),
        launch: format!("{blocks} x {THREADS}, cooperative"),
        builds: builds(&k.exclusive_scan, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || {
            Ok(Two(
                gpu.filled(n, u32::MAX)?,
                gpu.filled(blocks as usize, u32::MAX)?,
            ))
        },
        |h: &H, o| h.launch(config, &dx, &mut o.0, &mut o.1),
        |o| {
            let mut v = o.0.to_vec()?;
            v.extend(o.1.to_vec()?);
            Ok(v)
        },
        &expected,
    )
}

fn histogram(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::Histogram as H;
    // SAFETY: the handle of `histogram`; cuda/histogram.cu takes its
    // parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(4);
    let x: Vec<u32> = (0..n).map(|_| next_u32(&mut rng)).collect();
    let expected = histogram_cpu(&x);
    let dx = ctx.gpu.upload(&x)?;
    let blocks = ctx.fixed_blocks();
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("n={n} u32, 256 bins"),
        launch: format!("{blocks} x {THREADS}"),
        builds: builds(&k.histogram, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || gpu.filled(256, u32::MAX),
        // The bins zeroed before every launch (a 1 KiB memset, the same
        // for every build).
        |h: &H, bins| {
            bins.zero()?;
            h.launch(config, &dx, bins)
        },
        |bins| bins.to_vec(),
        &expected,
    )
}

fn jacobi_step(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::JacobiStep as H;
    // SAFETY: the handle of `jacobi_step`; cuda/jacobi_step.cu takes its
    // parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let (ny, nx) = s.grid;
    let mut rng = Lcg::new(5);
    let src = small_ints(&mut rng, nx * ny);
    let expected = jacobi_cpu(&src, nx, ny);
    let dsrc = ctx.gpu.upload(&src)?;
    let grid = (nx.div_ceil(32) as u32, ny.div_ceil(8) as u32);
    let config = LaunchConfig::new(grid, (32, 8));
    let case = Case {
        kernel: H::NAME,
        size: format!("{nx} x {ny} f32"),
        launch: format!("{} x {} blocks of 32 x 8", grid.0, grid.1),
        builds: builds(&k.jacobi_step, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, 256, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    let (nxu, nyu) = (nx as u32, ny as u32);
    compare(
        ctx,
        case,
        || gpu.filled(nx * ny, f32::NAN),
        |h: &H, dst| h.launch(config, &dsrc, dst, nxu, nyu),
        |dst| dst.to_vec(),
        &expected,
    )
}

fn spmv_csr(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::SpmvCsr as H;
    // SAFETY: the handle of `spmv_csr`; cuda/spmv_csr.cu takes its
    // parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let rows = s.spmv_rows;
    let mut rng = Lcg::new(6);
    let a = csr(&mut rng, rows);
    let x: Vec<f32> = (0..rows)
        .map(|_| (rng.next_u31() % 17) as f32 - 8.0)
        .collect();
    let expected = spmv_cpu(&a, &x);
    let nnz = a.vals.len();
    let (row_ptr, cols) = (ctx.gpu.upload(&a.row_ptr)?, ctx.gpu.upload(&a.cols)?);
    let (vals, dx) = (ctx.gpu.upload(&a.vals)?, ctx.gpu.upload(&x)?);
    drop(a);
    let blocks = ctx.fixed_blocks();
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("{rows} rows, {nnz} nonzeros, f32"),
        launch: format!("{blocks} x {THREADS}"),
        builds: builds(&k.spmv_csr, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || gpu.filled(rows, f32::NAN),
        |h: &H, y| h.launch(config, &row_ptr, &cols, &vals, &dx, y),
        |y| y.to_vec(),
        &expected,
    )
}

fn compact(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::Compact as H;
    // SAFETY: the handle of `compact`; cuda/compact.cu takes its parameters
    // with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(7);
    let x: Vec<i32> = (0..n).map(|_| next_u32(&mut rng) as i32).collect();
    let kept: Vec<i32> = x.iter().copied().filter(|&v| v > 0).collect();
    let expected = compact_canonical(kept.len() as u32, &kept);
    drop(kept);
    let dx = ctx.gpu.upload(&x)?;
    let blocks = ctx.fixed_blocks();
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("n={n} i32, count + sorted kept elements"),
        launch: format!("{blocks} x {THREADS}"),
        builds: builds(&k.compact, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    compare(
        ctx,
        case,
        || Ok(Two(gpu.filled(n, i32::MIN)?, gpu.filled(1, 0u32)?)),
        // The count zeroed before every launch (a 4-byte memset, the same
        // for every build).
        |h: &H, o| {
            o.1.zero()?;
            h.launch(config, &dx, &mut o.0, &mut o.1)
        },
        |o| {
            let count = o.1.to_vec()?[0];
            let out = o.0.to_vec()?;
            Ok(compact_canonical(
                count,
                &out[..(count as usize).min(out.len())],
            ))
        },
        &expected,
    )
}

/// A run of a transpose kernel (`transpose`, `transpose_v2`: one
/// signature, one launch, one `.cu` each).
macro_rules! transpose_run {
    ($name:ident, $handle:ident) => {
        fn $name(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
            use kernels::$handle as H;
            // SAFETY: the handle of the kernel; its `.cu` takes its
            // parameters with their meaning.
            let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
            let (rows, cols) = s.grid;
            let mut rng = Lcg::new(8);
            let a = small_ints(&mut rng, rows * cols);
            let expected = transpose_cpu(&a, rows, cols);
            let da = ctx.gpu.upload(&a)?;
            let grid = (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32);
            let config = LaunchConfig::new(grid, (32, 8));
            let case = Case {
                kernel: H::NAME,
                size: format!("{rows} x {cols} f32"),
                launch: format!("{} x {} blocks of 32 x 8", grid.0, grid.1),
                builds: builds(&k.$name, &others, ctx.args.opts.profile),
            };
            occupancy(ctx, H::NAME, 256, &case.builds, H::function)?;
            let gpu = ctx.gpu;
            let (r, c) = (rows as u32, cols as u32);
            compare(
                ctx,
                case,
                || gpu.filled(rows * cols, f32::NAN),
                |h: &H, t| h.launch(config, &da, t, r, c),
                |t| t.to_vec(),
                &expected,
            )
        }
    };
}

transpose_run!(transpose, Transpose);
transpose_run!(transpose_v2, TransposeV2);

fn row_normalize(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::RowNormalize as H;
    // SAFETY: the handle of `row_normalize`; cuda/row_normalize.cu takes
    // its parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let (rows, cols) = s.norm;
    let mut rng = Lcg::new(9);
    let mut a = small_ints(&mut rng, rows * cols);
    // One row of zeros: NaNs, as the division gives them.
    a[3 * cols..4 * cols].fill(0.0);
    let expected = row_normalize_cpu(&a, cols);
    let da = ctx.gpu.upload(&a)?;
    let config = LaunchConfig::new(rows as u32, THREADS);
    let case = Case {
        kernel: H::NAME,
        size: format!("{rows} x {cols} f32, one row of zeros"),
        launch: format!("{rows} x {THREADS}"),
        builds: builds(&k.row_normalize, &others, ctx.args.opts.profile),
    };
    occupancy(ctx, H::NAME, THREADS, &case.builds, H::function)?;
    let gpu = ctx.gpu;
    let c = cols as u32;
    compare(
        ctx,
        case,
        || gpu.filled(rows * cols, 0.0f32),
        |h: &H, b| h.launch(config, &da, b, c),
        |b| b.to_vec(),
        &expected,
    )
}

fn softmax(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::Softmax as H;
    // SAFETY: the handle of `softmax`; cuda/softmax.cu takes its parameters
    // with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let (rows, cols) = s.norm;
    let a = softmax_inputs(&mut Lcg::new(10), rows * cols);
    let reference = softmax_cpu(&a, cols);
    let da = ctx.gpu.upload(&a)?;
    drop(a);
    let config = LaunchConfig::new(rows as u32, THREADS);
    let case = Case::new(
        ctx,
        H::NAME,
        (
            format!("{rows} x {cols} f32"),
            format!("{rows} x {THREADS}"),
        ),
        (&k.softmax, &others),
        H::function,
    )?;
    let gpu = ctx.gpu;
    let c = cols as u32;
    compare_with(
        ctx,
        case,
        || gpu.filled(rows * cols, f32::NAN),
        |h: &H, b| h.launch(config, &da, b, c),
        |b| b.to_vec(),
        // SPEC.md's bound: relative, 1e-5.
        within(&reference, |i| 1e-5 * reference[i]),
    )
}

fn gelu(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::Gelu as H;
    // SAFETY: the handle of `gelu`; cuda/gelu.cu takes its parameters with
    // their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let mut rng = Lcg::new(11);
    let x: Vec<f32> = (0..n)
        .map(|_| (16.0 * rng.next_unit() - 8.0) as f32)
        .collect();
    let reference: Vec<f64> = x.iter().map(|&v| gelu_cpu(v)).collect();
    let dx = ctx.gpu.upload(&x)?;
    let blocks = ctx.grid_stride_blocks(n);
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case::new(
        ctx,
        H::NAME,
        (format!("n={n} f32"), format!("{blocks} x {THREADS}")),
        (&k.gelu, &others),
        H::function,
    )?;
    let gpu = ctx.gpu;
    compare_with(
        ctx,
        case,
        || gpu.filled(n, f32::NAN),
        |h: &H, y| h.launch(config, &dx, y),
        |y| y.to_vec(),
        // SPEC.md's bound: 2e-6 * max(1, |x|).
        within(&reference, |i| 2e-6 * (x[i].abs() as f64).max(1.0)),
    )
}

fn black_scholes(ctx: &mut Ctx, k: &kernels::Kernels, s: &Sizes) -> ports_common::Result<()> {
    use kernels::BlackScholes as H;
    // SAFETY: the handle of `black_scholes`; cuda/black_scholes.cu takes
    // its parameters with their meaning.
    let others = unsafe { ctx.others(H::NAME, H::KIND, H::from_function)? };
    let n = s.n;
    let o = options(&mut Lcg::new(12), n);
    let reference = black_scholes_cpu(&o, RISKFREE, VOLATILITY);
    let (price, strike) = (ctx.gpu.upload(&o.price)?, ctx.gpu.upload(&o.strike)?);
    let years = ctx.gpu.upload(&o.years)?;
    let blocks = ctx.grid_stride_blocks(n);
    let config = LaunchConfig::new(blocks, THREADS);
    let case = Case::new(
        ctx,
        H::NAME,
        (
            format!("n={n} options f32, call + put"),
            format!("{blocks} x {THREADS}"),
        ),
        (&k.black_scholes, &others),
        H::function,
    )?;
    let gpu = ctx.gpu;
    compare_with(
        ctx,
        case,
        || Ok(Two(gpu.filled(n, f32::NAN)?, gpu.filled(n, f32::NAN)?)),
        |h: &H, o| {
            h.launch(
                config, &price, &strike, &years, &mut o.0, &mut o.1, RISKFREE, VOLATILITY,
            )
        },
        |o| {
            let mut v = o.0.to_vec()?;
            v.extend(o.1.to_vec()?);
            Ok(v)
        },
        // SPEC.md's bound, for the call and the put of option j:
        // 1e-5 * (S + X).
        within(&reference, |i| {
            let j = i % n;
            1e-5 * (o.price[j] + o.strike[j]) as f64
        }),
    )
}

/// A kernel's run: its builds on its inputs, checked and timed.
type KernelRun = fn(&mut Ctx, &kernels::Kernels, &Sizes) -> ports_common::Result<()>;

/// Every kernel, in SPEC.md's order.
const KERNELS: &[(&str, KernelRun)] = &[
    ("saxpy", saxpy),
    ("block_sum", block_sum),
    ("exclusive_scan", exclusive_scan),
    ("histogram", histogram),
    ("jacobi_step", jacobi_step),
    ("spmv_csr", spmv_csr),
    ("compact", compact),
    ("transpose", transpose),
    ("transpose_v2", transpose_v2),
    ("row_normalize", row_normalize),
    ("softmax", softmax),
    ("gelu", gelu),
    ("black_scholes", black_scholes),
];

/// The closing table: one line per kernel, and the geometric mean of the
/// ratios of the kernels as first written (a `_v2`, a later version beside
/// one, is left out of it).
fn print_summary(summary: &[Summary]) {
    if summary.is_empty() {
        return;
    }
    let ms = |t: Option<Spread>| t.map_or("-".to_string(), |t| format!("{:.4}", t.median));
    println!();
    println!(
        "{:<15} {:<44} {:>12} {:>12} {:>12} {:>10} {:>10} {:>14}",
        "kernel",
        "size",
        "Rust ms",
        "Rust off ms",
        "CUDA C++ ms",
        "Rust/C++",
        "off/C++",
        "Rust vs C++"
    );
    let mut logs = Vec::new();
    for s in summary {
        let ratio = |a: Option<Spread>| match (a, s.nvcc) {
            (Some(a), Some(c)) => Some(a.median / c.median),
            _ => None,
        };
        let r = ratio(s.fast);
        if !s.kernel.ends_with("_v2") {
            logs.extend(r.map(f64::ln));
        }
        println!(
            "{:<15} {:<44} {:>12} {:>12} {:>12} {:>10} {:>10} {:>14}",
            s.kernel,
            s.size,
            ms(s.fast),
            ms(s.off),
            ms(s.nvcc),
            r.map_or("-".into(), |r| format!("{r:.3}")),
            ratio(s.off).map_or("-".into(), |r| format!("{r:.3}")),
            s.diff.map_or("-".into(), |d| if d.different == 0 {
                "same bits".into()
            } else {
                format!("max {} ulp", d.max_ulps)
            }),
        );
    }
    if !logs.is_empty() {
        let mean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        println!(
            "geometric mean of Rust / CUDA C++ over {} kernels as first written: {mean:.3}",
            logs.len()
        );
    }
}

fn run(gpu: &Gpu, args: &Args) -> ports_common::Result<()> {
    let sizes = Sizes::of(args);
    let off = if gpu.is_simulator() {
        None
    } else {
        let m = gpu.load_module(&CONTRACT_OFF)?;
        let ptx = CONTRACT_OFF.select(m.sm()).map_or("", |p| p.source);
        Some((m, ptx))
    };
    if args.opts.cuda.is_none() && !gpu.is_simulator() {
        println!("(no --cuda DIR: the CUDA C++ versions are not run)");
    }
    let k = kernels::Kernels::load(gpu)?;
    let mut ctx = Ctx {
        gpu,
        args,
        off,
        rows: Rows::default(),
        summary: Vec::new(),
    };
    let mut failed = Vec::new();
    for (name, f) in KERNELS {
        println!("=== {name}");
        if let Err(e) = f(&mut ctx, &k, &sizes) {
            eprintln!("error: {name}: {e}");
            failed.push(*name);
        }
    }
    print_summary(&ctx.summary);
    if let Some(path) = &args.opts.json {
        std::fs::write(path, ctx.rows.to_json())
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    if !failed.is_empty() {
        return Err(format!("failed: {}", failed.join(", ")).into());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    use std::process::ExitCode;
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let gpu = if args.sim {
        println!("on the CPU simulator: the Rust kernels (contraction fast) at small sizes, checked, not timed");
        Gpu::simulator()
    } else {
        match Gpu::new(0) {
            Ok(g) => g,
            Err(
                e @ (cooperative_groups::Error::NoDriver | cooperative_groups::Error::NoDevice(_)),
            ) => {
                eprintln!(
                    "error: {e}\nthe corpus runs its kernels on a GPU (or --sim): nothing was run"
                );
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("error: opening GPU 0: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    println!(
        "GPU 0: {} (sm_{}, {} SMs)",
        gpu.info().name,
        gpu.info().sm,
        gpu.info().multiprocessors
    );
    match run(&gpu, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The path of corpus/cuda/`<name>`.cu.
    fn cu(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../cuda")
            .join(format!("{name}.cu"))
    }

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_parse() {
        let a = Args::parse(strings(&["--sim", "--cuda", "d", "--runs", "3"])).unwrap();
        assert!(a.sim && a.opts.quick);
        assert_eq!(a.opts.cuda.as_deref(), Some(Path::new("d")));
        assert_eq!(a.opts.runs, 3);
        assert_eq!(Args::parse(strings(&["--help"])).unwrap_err(), USAGE);
        assert!(Args::parse(strings(&["--x"]))
            .unwrap_err()
            .contains("--sim"));
    }

    #[test]
    fn chunks_cover_the_input_once() {
        for (n, blocks) in [(10, 3), (5003, 32), (3, 8), (1 << 20, 1056)] {
            let mut next = 0;
            for b in 0..blocks {
                let r = chunk(n, blocks, b);
                assert_eq!(r.start, next.min(n));
                next = r.end;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn references_on_small_cases() {
        assert_eq!(saxpy_cpu(0.5, &[2.0, -4.0], &[1.0, 1.0]), [2.0, -1.0]);
        assert_eq!(
            block_sum_cpu(&[1.0, 2.0, 3.0, 4.0, 5.0], 2),
            [6.0, 9.0, 15.0]
        );
        // Chunks of 2: [1, 2], [MAX, 4] (wrapping to 3), and an empty one.
        assert_eq!(
            exclusive_scan_cpu(&[1, 2, u32::MAX, 4], 3),
            [0, 1, 3, 2, 3, 3, 0]
        );
        assert_eq!(histogram_cpu(&[0, 1 << 24, u32::MAX])[..2], [1, 1]);
        let j = jacobi_cpu(&(0..9).map(|v| v as f32).collect::<Vec<_>>(), 3, 3);
        assert_eq!(j[4], 0.25 * (((3.0 + 5.0) + 1.0) + 7.0));
        assert_eq!(j[0], 0.0);
        assert_eq!(
            transpose_cpu(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        let n = row_normalize_cpu(&[1.0, -4.0, 0.0, 0.0], 2);
        assert_eq!(n[..2], [0.25, -1.0]);
        assert!(n[2].is_nan() && n[3].is_nan());
        assert_eq!(compact_canonical(2, &[5, 3]), [2, 3, 5]);
        let a = Csr {
            row_ptr: vec![0, 2, 3],
            cols: vec![0, 1, 1],
            vals: vec![2.0, 3.0, 4.0],
        };
        assert_eq!(spmv_cpu(&a, &[1.0, 10.0]), [32.0, 40.0]);
        let e = std::f64::consts::E;
        let sm = softmax_cpu(&[0.0, 1.0, 2.0, 2.0], 2);
        assert_eq!(sm[2..], [0.5, 0.5]);
        assert!((sm[1] - e / (1.0 + e)).abs() < 1e-15);
        assert_eq!(gelu_cpu(0.0), 0.0);
        // Phi(1) = 0.841344746068543.
        assert!((gelu_cpu(1.0) - 0.841_344_746_068_543).abs() < 1e-14);
        // The textbook option: S = X = 100, T = 1, r = 0.05, v = 0.2 gives
        // the call 10.450583572185565 and the put 5.573526022256971.
        let o = OptionInputs {
            price: vec![100.0],
            strike: vec![100.0],
            years: vec![1.0],
        };
        let bs = black_scholes_cpu(&o, 0.05, 0.2);
        // (0.05 and 0.2 as f32 are not the textbook's exactly.)
        assert!((bs[0] - 10.450_583_572_185_565).abs() < 1e-5, "{bs:?}");
        assert!((bs[1] - 5.573_526_022_256_971).abs() < 1e-5, "{bs:?}");
    }

    #[test]
    fn within_reports_the_first_value_outside_and_nan() {
        let check = within(&[1.0, 2.0, 3.0], |_| 0.5);
        assert!(check(&[1.25, 2.0, 3.5])
            .unwrap()
            .contains("1.000 of its bound"));
        let e = check(&[1.0, 2.75, f32::NAN]).unwrap_err();
        assert!(
            e.starts_with("2 of 3 values") && e.contains("first at 1"),
            "{e}"
        );
        assert!(check(&[1.0]).is_err());
    }

    #[test]
    fn mismatches_count_nan_as_equal() {
        assert_eq!(
            mismatches(&[1.0f32, f32::NAN], &[1.0, -f32::NAN]),
            (0, None)
        );
        assert_eq!(mismatches(&[1u32, 2, 3], &[1, 5, 3, 4]), (2, Some(1)));
    }

    #[test]
    fn csr_rows_have_1_to_63_nonzeros() {
        let a = csr(&mut Lcg::new(1), 1000);
        let lens: Vec<u32> = a.row_ptr.windows(2).map(|r| r[1] - r[0]).collect();
        assert!(lens.iter().all(|&l| (1..=63).contains(&l)));
        let mean = a.cols.len() as f64 / 1000.0;
        assert!((28.0..36.0).contains(&mean), "{mean}");
    }

    #[test]
    fn cuda_versions_take_the_kernels_parameters() {
        for (name, _) in KERNELS {
            ports_common::checks::cuda_params_match(&cu(name), &kernels::PTX, &[name]).unwrap();
        }
    }

    /// What the build makes of each kernel's strided loop as first
    /// written (sm_90 SASS): the unrolled ones must not lose loads in
    /// flight, and the rolled ones are recorded, each with why.
    #[test]
    fn strided_loops_issue_the_loads_recorded() {
        use ports_common::checks::{loads_per_iteration, Loads::*};
        let expected = [
            // Four iterations a step (the bodies' sizes against
            // `-unroll-partial-threshold=40`: LOOP_FLAGS); the scan's loop
            // over the earlier blocks' totals reads four a trip.
            ("block_sum", AtLeast(4)),
            ("exclusive_scan", AtLeast(16)),
            // Two elements a step, three loads each (`cols[k]`, `vals[k]`,
            // the gather).
            ("spmv_csr", AtLeast(6)),
            ("softmax", AtLeast(4)),
            ("row_normalize", AtLeast(4)),
            // One element a trip of the grid-stride loop (`x[i]`, `y[i]`;
            // price, strike and years): `Output::grid_stride` with a
            // checked read of a slice its bound does not cover stays
            // rolled (the library's `a_checked_read_in_an_output_loop_stays_rolled`).
            ("saxpy", Rolled(2)),
            ("black_scholes", Rolled(3)),
            ("gelu", Rolled(1)),
            // A load, then an atomic on what it loaded.
            ("histogram", Rolled(1)),
            // A load, then the ballot and the scan of the kept flags.
            ("compact", Rolled(1)),
            // No strided loop: one element or one tile a thread.
            ("jacobi_step", Rolled(1)),
            ("transpose", Rolled(1)),
            ("transpose_v2", Rolled(1)),
        ];
        loads_per_iteration(&kernels::PTX, &expected).unwrap();
    }

    #[test]
    fn both_builds_assemble_without_spills_or_late_predicates() {
        ports_common::checks::assemble_both_builds(&kernels::PTX, &CONTRACT_OFF).unwrap();
    }

    /// The whole run on the simulator: every kernel's launch shape, inputs
    /// and CPU reference, at the simulator's sizes.
    #[test]
    fn every_kernel_matches_the_cpu_on_the_simulator() {
        let args = Args::parse(strings(&["--sim"])).unwrap();
        run(&Gpu::simulator(), &args).unwrap();
    }
}
