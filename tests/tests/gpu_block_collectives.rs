//! Differential GPU tests of the block-wide collectives
//! (`cg_core::block_collectives`): CUB judges.
//!
//! The probes of `kernels/tests/src/api/block_collectives.rs` run beside their
//! CUDA C++ twins (`tests/twins/block_collectives.cu`: `cub::BlockReduce`
//! and `cub::BlockScan`, built to `$CG_TWINS_DIR/block_collectives.ptx` by
//! scripts/gpu-run) on the same random inputs (the seed is printed), for
//! every operator and value type of the warp-level probes, on blocks of
//! whole warps, with a partial last warp, 2-D and 3-D. Both launch through
//! the Rust kernel's typed handle (the twin's PTX parameter list is checked
//! to be the kernel's first) into poisoned buffers, and every value they
//! write is compared bit for bit.
//!
//! One stated rule: a float sum (`Plus`, or the closure `|a, b| a + b`),
//! reduced or scanned, over a block whose last warp is partial. There CUB
//! follows other orders than in whole warps: its `BlockReduce` adds the
//! partial warp's lanes in pairs, and its `BlockScan` falls back from the
//! warp-scans algorithm to raking (`SAFE_ALGORITHM` in `cub/block/
//! block_scan.cuh`: warp scans only for blocks of whole warps), while
//! cg-core scans every warp the same way; so the two may round
//! differently. Where every sum of the values involved is exact (integers
//! whose magnitudes add up to less than 2^mantissa), the order cannot
//! matter and the values are compared bit for bit; otherwise Rust's value
//! must lie within `2 γ(n - 1) Σ|x|` of CUB's (each is within `γ(n - 1)
//! Σ|x|` of the exact sum, `γ(k) = k u / (1 - k u)`, `u` the unit
//! roundoff, for any order of summation), and the reduction of the scans
//! within that plus the scans' differences carried into it. In blocks of
//! whole warps, and for every other operator and type, every value is bit
//! for bit, and every
//! thread's `block_reduce` must have the bits of its block's thread 0.
//!
//! Each probe runs its five two-barrier collectives back to back on one
//! scratch with no barrier between them, then `block_reduce_to_first`,
//! the scratch's barrier (`UsedScratch::sync`) and `block_reduce_to_first`
//! again on the same scratch. Under compute-sanitizer's racecheck
//! (scripts/gpu-run's sanitizer stage runs this binary with `CG_QUICK=1`)
//! that is the check that reusing a scratch races nowhere.
//!
//! Without a GPU, or without the twins, each comparison with CUB says `GPU
//! TEST NOT RUN` and returns; with `CG_REQUIRE_GPU=1` that is a failure.
//! The Rust probes also run on the simulator, everywhere, and where there is
//! a GPU every value they write there is compared with the GPU's, bit for
//! bit (`rust_collectives_on_the_simulator_agree_with_the_gpu`).

mod common;

use cg_tests::kernels::{
    ApiBlockCollectivesF32, ApiBlockCollectivesF64, ApiBlockCollectivesI32,
    ApiBlockCollectivesStruct, ApiBlockCollectivesU32, ApiBlockCollectivesU64, Kernels, PTX,
};
use common::api::{int_words, poisoned, reset, Dims, Geometry};
use cooperative_groups::{DeviceBuffer, Error, Function, Gpu, LaunchConfig, LaunchKind, Module};
use rand::rngs::StdRng;
use rand::Rng;
use std::io::Write;
use std::sync::OnceLock;

/// Values each thread writes (`VALUES` of the probes and the twins).
const VALUES: usize = 7;

/// What each of a thread's values is.
const VALUE_NAMES: [&str; VALUES] = [
    "block_reduce",
    "block_inclusive_scan",
    "block_exclusive_scan",
    "block_inclusive_scan_with_total's total",
    "block_exclusive_scan_with_total's total",
    "block_reduce_to_first (thread 0)",
    "block_reduce_to_first of the inclusive scans, after UsedScratch::sync (thread 0)",
];

/// Block shapes, as `SHAPES` of tests/twins/block_collectives.cu
/// instantiates them: whole warps (32, 96, 256, 1024, 16x8), partial last
/// warps (20 = one partial warp, 33 = a warp and one lane, 1000 = 31 warps
/// and 8 lanes, 24x3 = 2 warps and 8 lanes, 7x3x5 = 3 warps and 9 lanes),
/// 2-D and 3-D blocks.
const BLOCK_SHAPES: [(Dims, Dims); 11] = [
    ((2, 1, 1), (32, 1, 1)),
    ((3, 1, 1), (20, 1, 1)),
    ((2, 1, 1), (33, 1, 1)),
    ((2, 1, 1), (96, 1, 1)),
    ((2, 1, 1), (256, 1, 1)),
    ((2, 1, 1), (1000, 1, 1)),
    ((1, 1, 1), (1024, 1, 1)),
    ((2, 3, 1), (16, 8, 1)),
    ((2, 1, 1), (24, 3, 1)),
    ((2, 1, 2), (8, 4, 2)),
    ((2, 1, 1), (7, 3, 5)),
];

/// The shapes under `CG_QUICK=1` (compute-sanitizer): a warp and one
/// lane, a 2-D block of whole warps, a 3-D block with a partial warp.
const QUICK_SHAPES: [(Dims, Dims); 3] = [
    ((2, 1, 1), (33, 1, 1)),
    ((2, 3, 1), (16, 8, 1)),
    ((2, 1, 1), (7, 3, 5)),
];

/// A probe's value type, as the comparison sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Value {
    /// Integers and structs of integers: every order gives the same bits.
    Words(usize),
    F32,
    F64,
}

impl Value {
    /// 32-bit words per value.
    fn words(self) -> usize {
        match self {
            Value::Words(n) => n,
            Value::F32 => 1,
            Value::F64 => 2,
        }
    }

    /// The float a value's words hold.
    fn float(self, w: &[u32]) -> f64 {
        match self {
            Value::F32 => f32::from_bits(w[0]) as f64,
            Value::F64 => f64::from_bits(w[0] as u64 | (w[1] as u64) << 32),
            Value::Words(_) => unreachable!("not a float"),
        }
    }

    /// Mantissa bits and unit roundoff of a float type.
    fn precision(self) -> (i32, f64) {
        match self {
            Value::F32 => (24, f32::EPSILON as f64 / 2.0),
            Value::F64 => (53, f64::EPSILON / 2.0),
            Value::Words(_) => unreachable!("not a float"),
        }
    }

    /// The words of `n` random inputs: integers from `int_words`; floats
    /// either uniform in [-1, 1) or small integers (whose sums are exact),
    /// by a coin per launch.
    fn inputs(self, rng: &mut StdRng, n: usize) -> Vec<u32> {
        let small = rng.random_bool(0.5);
        let float = |rng: &mut StdRng| {
            if small {
                rng.random_range(-64..64) as f64
            } else {
                rng.random_range(-1.0..1.0)
            }
        };
        match self {
            Value::Words(w) => int_words(rng, w * n),
            Value::F32 => (0..n).map(|_| (float(rng) as f32).to_bits()).collect(),
            Value::F64 => (0..n)
                .flat_map(|_| {
                    let b = float(rng).to_bits();
                    [b as u32, (b >> 32) as u32]
                })
                .collect(),
        }
    }
}

/// The float rule's verdict on one reduced value of one block.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Verdict {
    /// Compared bit for bit.
    Bits,
    /// A float sum over a partial warp of inexact values: within `bound`
    /// of CUB's.
    Within(f64),
}

/// A probe kernel's handle, any of the six (they share one signature).
trait BlockProbe {
    fn run(
        &self,
        cfg: LaunchConfig,
        input: &DeviceBuffer<u32>,
        out: &mut DeviceBuffer<u32>,
        op: u32,
    ) -> Result<(), Error>;
}

macro_rules! block_probes {
    ($($handle:ty),*) => {$(
        impl BlockProbe for $handle {
            fn run(&self, cfg: LaunchConfig, input: &DeviceBuffer<u32>, out: &mut DeviceBuffer<u32>, op: u32) -> Result<(), Error> {
                self.launch(cfg, input, out, op)
            }
        }
    )*};
}

block_probes!(
    ApiBlockCollectivesU32,
    ApiBlockCollectivesI32,
    ApiBlockCollectivesU64,
    ApiBlockCollectivesF32,
    ApiBlockCollectivesF64,
    ApiBlockCollectivesStruct
);

/// A probe's operators: `(op, name, value type, float sum)`.
type Ops = Vec<(u32, &'static str, Value, bool)>;

/// One probe kernel beside its twin, with its operators.
struct Pair {
    kernel: &'static str,
    rust: &'static dyn BlockProbe,
    cuda: Box<dyn BlockProbe>,
    ops: Ops,
}

/// One Rust probe kernel, with its operators.
struct RustProbe {
    kernel: &'static str,
    run: &'static dyn BlockProbe,
    ops: Ops,
}

/// The six Rust probe kernels of `k` (in the order of their handle types),
/// each with its operators.
fn rust_probes(k: &'static Kernels) -> Vec<RustProbe> {
    let int_ops = |v| {
        [
            "plus",
            "less",
            "greater",
            "bit_and",
            "bit_or",
            "bit_xor",
            "closure a + b",
        ]
        .into_iter()
        .enumerate()
        .map(move |(op, name)| (op as u32, name, v, false))
        .collect::<Vec<_>>()
    };
    let float_ops = |v| {
        vec![
            (0, "plus", v, true),
            (1, "less", v, false),
            (2, "greater", v, false),
            (6, "closure a + b", v, true),
        ]
    };
    let probe = |kernel, run, ops| RustProbe { kernel, run, ops };
    vec![
        probe(
            ApiBlockCollectivesU32::NAME,
            &k.api_block_collectives_u32,
            int_ops(Value::Words(1)),
        ),
        probe(
            ApiBlockCollectivesI32::NAME,
            &k.api_block_collectives_i32,
            int_ops(Value::Words(1)),
        ),
        probe(
            ApiBlockCollectivesU64::NAME,
            &k.api_block_collectives_u64,
            int_ops(Value::Words(2)),
        ),
        probe(
            ApiBlockCollectivesF32::NAME,
            &k.api_block_collectives_f32,
            float_ops(Value::F32),
        ),
        probe(
            ApiBlockCollectivesF64::NAME,
            &k.api_block_collectives_f64,
            float_ops(Value::F64),
        ),
        probe(
            ApiBlockCollectivesStruct::NAME,
            &k.api_block_collectives_struct,
            vec![
                (
                    0,
                    "Affine composition (not commutative)",
                    Value::Words(2),
                    false,
                ),
                (1, "Stats merge (12 bytes)", Value::Words(3), false),
            ],
        ),
    ]
}

/// The twins' module and PTX, loaded once per process (the driver compiles
/// the PTX on load).
struct Twins {
    module: Module,
    ptx: String,
}

/// The twin of the Rust kernel behind handle type `$handle`, as that
/// handle, once its PTX parameter list is found to be the kernel's.
macro_rules! twin {
    ($twins:expr, $ours:expr, $handle:ty) => {{
        let name = <$handle>::NAME;
        let ours = common::entry_params($ours, name).expect("our kernel");
        let theirs = common::entry_params(&$twins.ptx, name)
            .unwrap_or_else(|| panic!("tests/twins/block_collectives.cu has no twin `{name}`"));
        assert_eq!(
            theirs, ours,
            "the twin `{name}` must have the Rust kernel's PTX parameter list"
        );
        let function: Function = $twins.module.function(name, LaunchKind::Plain).unwrap();
        // SAFETY: the parameter lists were just found equal, one for one.
        Box::new(unsafe { <$handle>::from_function(function) }) as Box<dyn BlockProbe>
    }};
}

/// The GPU, our kernels' handles and the twins beside them; `None` after a
/// `GPU TEST NOT RUN` notice when there is no GPU or no twins (where the
/// build found neither, the tests are ignored instead).
fn open(test: &str) -> Option<(Gpu, Vec<Pair>)> {
    let gpu = common::real_gpu(test, "a comparison with the CUDA C++ twins")?;
    let path = common::twins_path(test, "block_collectives.ptx", "GPU TEST NOT RUN")?;
    static TWINS: OnceLock<Twins> = OnceLock::new();
    let twins = TWINS.get_or_init(|| Twins {
        module: Module::from_ptx_file(&gpu, &path)
            .unwrap_or_else(|e| panic!("loading the CUDA twins {}: {e}", path.display())),
        ptx: std::fs::read_to_string(&path).unwrap(),
    });
    let ours = PTX
        .select(gpu.info().sm)
        .expect("a PTX module of our kernels for this GPU")
        .source;
    let k: &'static Kernels = Box::leak(Box::new(Kernels::load(&gpu).unwrap()));
    let twins_of = [
        twin!(twins, ours, ApiBlockCollectivesU32),
        twin!(twins, ours, ApiBlockCollectivesI32),
        twin!(twins, ours, ApiBlockCollectivesU64),
        twin!(twins, ours, ApiBlockCollectivesF32),
        twin!(twins, ours, ApiBlockCollectivesF64),
        twin!(twins, ours, ApiBlockCollectivesStruct),
    ];
    let pairs = rust_probes(k)
        .into_iter()
        .zip(twins_of)
        .map(|(probe, cuda)| Pair {
            kernel: probe.kernel,
            rust: probe.run,
            cuda,
            ops: probe.ops,
        })
        .collect();
    Some((gpu, pairs))
}

/// Counts of a test's comparisons, and the first differences.
#[derive(Default)]
struct Tally {
    bits: u64,
    within: u64,
    differences: u64,
    shown: Vec<String>,
    /// Launches the host refused before launch: blocks larger than a
    /// kernel's registers allow (`(kernel, block threads)`).
    refused: Vec<(&'static str, u32)>,
}

/// At most this many differences are spelled out in a failure.
const SHOWN: usize = 20;

impl Tally {
    fn differ(&mut self, what: impl FnOnce() -> String) {
        self.differences += 1;
        if self.shown.len() < SHOWN {
            self.shown.push(what());
        }
    }

    /// Prints the counts past the harness's capture and fails on any
    /// difference.
    fn finish(self, test: &str) {
        let _ = writeln!(
            std::io::stderr(),
            "{test}: compared {} values bit for bit, {} float sums and scans within the partial-warp rule, {} differences",
            self.bits,
            self.within,
            self.differences
        );
        for (kernel, threads) in &self.refused {
            let _ = writeln!(
                std::io::stderr(),
                "{test}: NOT COMPARED: `{kernel}` in blocks of {threads} threads (more than its registers allow; the launch was refused as expected)"
            );
        }
        assert!(
            self.shown.is_empty(),
            "{test}: {} values differ between the Rust kernels and CUB; the first:\n{}",
            self.differences,
            self.shown.join("\n")
        );
    }
}

/// Sum of the magnitudes of a block's values `k` (of `VALUES`) in `out`
/// (`values` of the block's threads).
fn magnitude(value: Value, out: &[u32], threads: std::ops::Range<usize>, k: usize) -> f64 {
    let w = value.words();
    threads
        .map(|i| value.float(&out[(VALUES * i + k) * w..]).abs())
        .sum()
}

/// Whether every sum of some of `xs` is exact in a float of `mantissa`
/// bits: all are integers and their magnitudes add up to less than
/// 2^mantissa.
fn sums_exact(xs: impl Iterator<Item = f64>, mantissa: i32) -> bool {
    let mut total = 0.0;
    for x in xs {
        if x.fract() != 0.0 {
            return false;
        }
        total += x.abs();
    }
    total < 2f64.powi(mantissa)
}

/// Runs every pair and operator on every shape of `shapes` and compares
/// Rust's values with CUB's.
fn compare_with_cub(test: &str, shapes: &[(Dims, Dims)], op_filter: impl Fn(u32) -> bool) {
    let Some((gpu, pairs)) = open(test) else {
        return;
    };
    let mut rng = common::rng(test);
    let mut tally = Tally::default();
    for &shape in shapes {
        let geo = Geometry::new(shape);
        let cfg = geo.cfg();
        let partial_warp = !geo.b.is_multiple_of(32);
        for pair in &pairs {
            for &(op, op_name, value, float_sum) in pair.ops.iter().filter(|o| op_filter(o.0)) {
                let w = value.words();
                let input = value.inputs(&mut rng, geo.total);
                let input_buf = gpu.upload(&input).unwrap();
                let mut outs = [
                    poisoned(&gpu, VALUES * w * geo.total),
                    poisoned(&gpu, VALUES * w * geo.total),
                ];
                let mut ran = Vec::new();
                for (side, out) in [pair.rust, &*pair.cuda].into_iter().zip(&mut outs) {
                    reset(out);
                    ran.push(side.run(cfg, &input_buf, out, op));
                }
                let [rust_ran, cuda_ran] = [ran.remove(0), ran.remove(0)];
                cuda_ran.unwrap_or_else(|e| panic!("{}: the CUB twin: {e}", pair.kernel));
                if let Err(e) = rust_ran {
                    // The one refusal expected: a block larger than the
                    // kernel's registers allow, said before launch.
                    let text = e.to_string();
                    assert!(
                        matches!(e, Error::InvalidLaunch { .. }) && text.contains("runs at most"),
                        "{}: {text}",
                        pair.kernel
                    );
                    if !tally.refused.contains(&(pair.kernel, geo.b as u32)) {
                        tally.refused.push((pair.kernel, geo.b as u32));
                    }
                    continue;
                }
                let [rust, cuda] = outs.map(|o| o.to_vec().unwrap());
                for block in 0..geo.total / geo.b {
                    let threads = block * geo.b..(block + 1) * geo.b;
                    // The rule for each reduced value of this block, from
                    // the inputs (and, for the reduction of the inclusive
                    // scans, CUB's scans, compared bit for bit themselves).
                    let verdict = |k: usize| {
                        // In a block that is not a whole number of warps,
                        // CUB's BlockScan falls back from the warp-scans
                        // algorithm to raking (its `SAFE_ALGORITHM`), and
                        // its BlockReduce adds the partial warp's lanes in
                        // pairs: float sums and scans there follow another
                        // order than ours, so they are held to the error
                        // bound; everything else is compared bit for bit.
                        if !(float_sum && partial_warp) {
                            return Verdict::Bits;
                        }
                        let (mantissa, unit) = value.precision();
                        let (exact, mag) = if k == 6 {
                            let scans = threads
                                .clone()
                                .map(|i| value.float(&cuda[(VALUES * i + 1) * w..]));
                            (
                                sums_exact(scans, mantissa),
                                magnitude(value, &cuda, threads.clone(), 1),
                            )
                        } else {
                            let xs = threads.clone().map(|i| value.float(&input[i * w..]));
                            (sums_exact(xs.clone(), mantissa), xs.map(f64::abs).sum())
                        };
                        // Each sum is within gamma(n - 1) * mag of the
                        // exact one, gamma(k) = k u / (1 - k u).
                        let ku = (geo.b - 1) as f64 * unit;
                        let gamma = ku / (1.0 - ku);
                        if exact {
                            Verdict::Bits
                        } else if k == 6 {
                            // A reduction of the scans: its own error on
                            // each side, plus the scans' differences, each
                            // within the bound below, carried into the sum.
                            let xs = threads.clone().map(|i| value.float(&input[i * w..]));
                            let inputs: f64 = xs.map(f64::abs).sum();
                            let carried = geo.b as f64 * 2.0 * gamma * inputs;
                            Verdict::Within(2.0 * gamma * mag + carried)
                        } else {
                            Verdict::Within(2.0 * gamma * mag)
                        }
                    };
                    let verdicts: Vec<Verdict> = (0..VALUES).map(verdict).collect();
                    let first = VALUES * threads.start * w;
                    for i in threads.clone() {
                        for (k, &verdict) in verdicts.iter().enumerate() {
                            let at = (VALUES * i + k) * w;
                            let (ours, theirs) = (&rust[at..at + w], &cuda[at..at + w]);
                            let show = || {
                                format!(
                                    "{}: {op_name}, grid {:?} block {:?}, thread {i} (block {block}, rank {}): {}: Rust {ours:#010x?}, CUB {theirs:#010x?}",
                                    pair.kernel,
                                    geo.grid,
                                    geo.block,
                                    i - threads.start,
                                    VALUE_NAMES[k]
                                )
                            };
                            if k == 0 && ours != &rust[first..first + w] {
                                tally.differ(|| format!("{} differs from thread 0's", show()));
                            }
                            match verdict {
                                _ if ours == theirs => tally.bits += 1,
                                Verdict::Within(bound)
                                    if (value.float(ours) - value.float(theirs)).abs() <= bound =>
                                {
                                    tally.within += 1
                                }
                                Verdict::Within(bound) => {
                                    tally.differ(|| format!("{} (bound {bound:e})", show()))
                                }
                                Verdict::Bits => tally.differ(show),
                            }
                        }
                    }
                }
            }
        }
    }
    tally.finish(test);
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUB"
)]
fn block_collectives_agree_with_cub() {
    let shapes: &[(Dims, Dims)] = if common::quick() {
        &QUICK_SHAPES
    } else {
        &BLOCK_SHAPES
    };
    // Under the sanitizers: a hardware reduction (plus), an order-sensitive
    // operator (less) and a closure, and both struct operators.
    let quick = common::quick();
    compare_with_cub("block_collectives_agree_with_cub", shapes, |op| {
        !quick || matches!(op, 0 | 1 | 6)
    });
}

/// Many blocks of 1024 threads, each running the probe's collectives back
/// to back on one scratch (and `block_reduce_to_first` twice around the
/// scratch's barrier), against CUB: what racecheck watches.
#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUB"
)]
fn consecutive_collectives_share_one_scratch() {
    let blocks = if common::quick() { 2 } else { 64 };
    compare_with_cub(
        "consecutive_collectives_share_one_scratch",
        &[
            ((blocks, 1, 1), (1024, 1, 1)),
            ((blocks, 1, 1), (1000, 1, 1)),
        ],
        |op| op == 0,
    );
}

/// The Rust probes on the simulator (`Gpu::simulator`), every operator and
/// shape: nothing undefined read, every thread's `block_reduce` with its
/// block's thread 0's bits, and, where there is a GPU, every value the same
/// bits as the same kernel's on the GPU (the order of every combine is
/// cg-core's on both). Without a GPU the simulator side runs alone (so CI
/// runs these kernels too) and says it ran on the simulator alone.
#[test]
fn rust_collectives_on_the_simulator_agree_with_the_gpu() {
    let test = "rust_collectives_on_the_simulator_agree_with_the_gpu";
    let sim = Gpu::simulator();
    let on_sim = rust_probes(Box::leak(Box::new(Kernels::load(&sim).unwrap())));
    let gpu = common::gpu_part(test, "a comparison of the simulator with the GPU");
    let on_gpu = gpu
        .as_ref()
        .map(|g| rust_probes(Box::leak(Box::new(Kernels::load(g).unwrap()))));
    let shapes: &[(Dims, Dims)] = if common::quick() {
        &QUICK_SHAPES
    } else {
        &BLOCK_SHAPES
    };
    let mut rng = common::rng(test);
    let (mut launches, mut compared) = (0u64, 0u64);
    for &shape in shapes {
        let geo = Geometry::new(shape);
        let cfg = geo.cfg();
        for (p, probe) in on_sim.iter().enumerate() {
            for &(op, op_name, value, _) in &probe.ops {
                let w = value.words();
                let input = value.inputs(&mut rng, geo.total);
                let what = || {
                    format!(
                        "{}: {op_name}, grid {:?} block {:?}",
                        probe.kernel, geo.grid, geo.block
                    )
                };
                let mut out = poisoned(&sim, VALUES * w * geo.total);
                probe
                    .run
                    .run(cfg, &sim.upload(&input).unwrap(), &mut out, op)
                    .unwrap_or_else(|e| panic!("{}: {e}", what()));
                let report = sim.simulator_report().expect("a launch ran");
                report
                    .all_defined()
                    .unwrap_or_else(|e| panic!("{}: {e}", what()));
                launches += 1;
                let simulated = out.to_vec().unwrap();
                for block in 0..geo.total / geo.b {
                    let first = VALUES * block * geo.b * w;
                    for i in block * geo.b..(block + 1) * geo.b {
                        let at = VALUES * i * w;
                        assert_eq!(
                            simulated[at..at + w],
                            simulated[first..first + w],
                            "{}: thread {i}'s block_reduce differs from its block's thread 0's",
                            what()
                        );
                    }
                }
                let (Some(gpu), Some(on_gpu)) = (&gpu, &on_gpu) else {
                    continue;
                };
                let mut out = poisoned(gpu, VALUES * w * geo.total);
                match on_gpu[p]
                    .run
                    .run(cfg, &gpu.upload(&input).unwrap(), &mut out, op)
                {
                    Ok(()) => {}
                    // Blocks larger than the kernel's registers allow on
                    // the GPU (the simulator has no registers).
                    Err(Error::InvalidLaunch { .. }) => continue,
                    Err(e) => panic!("{}: on the GPU: {e}", what()),
                }
                let real = out.to_vec().unwrap();
                for (i, (g, s)) in real.chunks(w).zip(simulated.chunks(w)).enumerate() {
                    assert_eq!(
                        g,
                        s,
                        "{}: thread {}, {}: GPU {g:#010x?}, simulator {s:#010x?}",
                        what(),
                        i / VALUES,
                        VALUE_NAMES[i % VALUES]
                    );
                }
                compared += (VALUES * w * geo.total) as u64;
            }
        }
    }
    println!(
        "{test}: {launches} simulated launches; {compared} words equal to the GPU's, bit for bit"
    );
}
