//! What the ports' host binaries share: their options, the GPU (or the
//! notice that there is none), the kernels built elsewhere (nvcc's, and
//! ours without contraction) under a port's typed handle once their PTX
//! parameters are checked, the bitwise comparison of two results, timing
//! (CUDA events, or the wall clock across GPUs), the rows of `--json`,
//! and the conjugate gradients' sparse matrices ([`csr`]).

#![warn(missing_docs)]

pub mod csr;
pub use csr::Csr;

use cooperative_groups::{EventTimer, Function, Gpu, LaunchKind, Module, PtxSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The errors of a port: every message says what failed.
pub type Result<T, E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

/// The environment variable that names the nvcc-built PTX when `--cuda` is
/// not given.
pub const CUDA_PTX_VAR: &str = "CG_PORT_CUDA_PTX";

/// A port's command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `--cuda FILE` (else [`CUDA_PTX_VAR`]): the port's CUDA C++ version
    /// compiled by `nvcc -ptx`, run beside the Rust kernel.
    pub cuda: Option<PathBuf>,
    /// `--json FILE`: the comparison and timing rows, as JSON.
    pub json: Option<PathBuf>,
    /// `--runs N`: timed runs of each kernel (default 30).
    pub runs: usize,
    /// `--quick`: the smaller sizes only, 5 timed runs.
    pub quick: bool,
    /// `--profile`: for a profiler, each build's kernels launched once, in
    /// the order Rust (contraction fast), Rust (contraction off), nvcc, on
    /// the largest size; nothing else launched, nothing timed.
    pub profile: bool,
    /// `--gpus N`: for a port that runs on several GPUs, the first `N`
    /// (default: every GPU).
    pub gpus: Option<usize>,
}

impl Options {
    /// The options in `args` (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut opts = Options {
            cuda: std::env::var_os(CUDA_PTX_VAR).map(PathBuf::from),
            json: None,
            runs: 30,
            quick: false,
            profile: false,
            gpus: None,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| format!("{name} needs a value (see --help)"))
            };
            match arg.as_str() {
                "--cuda" => opts.cuda = Some(value("--cuda")?.into()),
                "--json" => opts.json = Some(value("--json")?.into()),
                "--runs" => {
                    let v = value("--runs")?;
                    opts.runs = v
                        .parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("--runs {v}: expected a positive integer"))?;
                }
                "--quick" => {
                    opts.quick = true;
                    opts.runs = opts.runs.min(5);
                }
                "--profile" => opts.profile = true,
                "--gpus" => {
                    let v = value("--gpus")?;
                    opts.gpus = Some(
                        v.parse()
                            .ok()
                            .filter(|&n| n > 0)
                            .ok_or_else(|| format!("--gpus {v}: expected a positive integer"))?,
                    );
                }
                "--help" | "-h" => return Err(USAGE.into()),
                other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
            }
        }
        Ok(opts)
    }
}

/// What every port accepts.
pub const USAGE: &str = "usage: PORT [--cuda PORT.ptx] [--json FILE] [--runs N] [--quick] [--profile] [--gpus N]
  --cuda FILE   the port's CUDA C++ version built by `nvcc -arch=sm_90 -ptx` (else $CG_PORT_CUDA_PTX):
                run beside the Rust kernel on the same inputs and launch shape, compared bit for bit and timed
  --json FILE   write the rows (comparison and times) as JSON
  --runs N      timed runs of each kernel (default 30)
  --quick       the smaller sizes only, 5 timed runs
  --profile     for a profiler (ncu): each build's kernels launched once, Rust (contraction fast),
                Rust (contraction off), then nvcc, on the largest size; nothing else
  --gpus N      a port on several GPUs: the first N (default: every GPU)";

/// Runs a port's `main`: parses the options, opens GPU 0 and calls `port`.
/// Without a CUDA driver or GPU it says so and exits with status 2; any
/// error (a wrong result included) is printed and exits with status 1.
pub fn main(port: impl FnOnce(&Gpu, &Options, &mut Rows) -> Result<()>) -> std::process::ExitCode {
    use std::process::ExitCode;
    let opts = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e @ (cooperative_groups::Error::NoDriver | cooperative_groups::Error::NoDevice(_))) => {
            eprintln!("error: {e}\nthis port runs its kernels on a GPU: nothing was run");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: opening GPU 0: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "GPU 0: {} (sm_{}, {} SMs)",
        gpu.info().name,
        gpu.info().sm,
        gpu.info().multiprocessors
    );
    println!(
        "Rust kernels built twice: contraction fast (a * b + c fused, as nvcc's default -fmad=true: \
         expected equal to nvcc bit for bit where the order of operations is fixed) and contraction \
         off (every operation rounded, as Rust on the host)"
    );
    let mut rows = Rows::default();
    let result = port(&gpu, &opts, &mut rows);
    if let Some(path) = &opts.json {
        if let Err(e) = std::fs::write(path, rows.to_json()) {
            eprintln!("error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The PTX parameter types of entry `name` in `ptx` (`None` without it).
pub fn entry_params(ptx: &str, name: &str) -> Option<Vec<String>> {
    cg_ptx::Module::parse(ptx)
        .entry(name)
        .map(|f| f.declared_param_types())
}

/// The size in bytes of the module-scope variable `name` of `ptx`, in
/// global or constant memory (`.global`, `.const`), when it declares one of
/// a known size (`None` otherwise): for CUDA C++ versions that declare a
/// variable the library writes (a multi-grid kernel's `cg_multi_grid`).
pub fn global_bytes(ptx: &str, name: &str) -> Option<u64> {
    let module = cg_ptx::Module::parse(ptx);
    let g = module
        .global(name)
        .filter(|g| matches!(g.space, ".global" | ".const"))?;
    let bits: u64 =
        g.ty.trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .ok()?;
    let elements = match g.len {
        cg_ptx::Length::Scalar => 1,
        cg_ptx::Length::Elements(n) => n as u64,
        cg_ptx::Length::Unsized => return None,
    };
    Some(bits / 8 * elements)
}

/// Kernel `name` of another module (nvcc's PTX file, or our own kernels
/// built another way), once its PTX parameters are found equal to those of
/// our kernel of that name in `ours` (the typed handles' module).
///
/// The caller makes the typed handle from it with the handle's `unsafe fn
/// from_function`: the check here makes the parameter list the same, and
/// the port's CUDA C++ version gives each parameter the Rust kernel's
/// meaning.
pub fn function_like(
    module: &Module,
    module_ptx: &str,
    what: &str,
    name: &str,
    kind: LaunchKind,
    ours: &PtxSet,
) -> Result<Function> {
    let sm = module.sm();
    let ours = ours
        .select(sm)
        .and_then(|p| entry_params(p.source, name))
        .ok_or_else(|| format!("our kernels have no `{name}` for sm_{sm}"))?;
    let theirs = entry_params(module_ptx, name).ok_or_else(|| {
        format!("{what} has no kernel `{name}` (an `extern \"C\" __global__` of that name)")
    })?;
    if ours != theirs {
        return Err(format!(
            "the PTX parameters of `{name}` in {what} are {theirs:?}, the Rust kernel's are {ours:?}: \
             it must take the Rust kernel's parameters in its order (each slice, Output or \
             AtomicSlice as a pointer and an unsigned 64-bit length)"
        )
        .into());
    }
    Ok(module.function(name, kind)?)
}

/// A port's kernels built the two other ways: ours without floating-point
/// contraction, and nvcc's when `--cuda` names its PTX.
pub struct Builds {
    ours: &'static PtxSet,
    off: Module,
    off_ptx: &'static str,
    cuda: Option<(Module, String, String)>,
}

impl Builds {
    /// Loads `off` (the port's kernels built with `FpContract::Off`) and the
    /// nvcc-built PTX of `opts`; `ours` is the typed handles' module.
    pub fn load(
        gpu: &Gpu,
        opts: &Options,
        ours: &'static PtxSet,
        off: &'static PtxSet,
    ) -> Result<Self> {
        let module = gpu.load_module(off)?;
        let off_ptx = off.select(module.sm()).map(|p| p.source).unwrap_or("");
        let cuda = match &opts.cuda {
            Some(path) => {
                let (m, text) = load_cuda(gpu, path)?;
                Some((m, text, path.display().to_string()))
            }
            None => {
                println!(
                    "(no nvcc-built PTX: pass --cuda FILE to run the CUDA C++ version beside it)"
                );
                None
            }
        };
        Ok(Builds {
            ours,
            off: module,
            off_ptx,
            cuda,
        })
    }

    /// Kernel `name` built without contraction, as its typed handle.
    ///
    /// # Safety
    /// `make` is the `from_function` of the typed handle of kernel `name`.
    pub unsafe fn off<H>(
        &self,
        name: &str,
        kind: LaunchKind,
        make: unsafe fn(Function) -> H,
    ) -> Result<H> {
        let f = function_like(
            &self.off,
            self.off_ptx,
            "the build without contraction",
            name,
            kind,
            self.ours,
        )?;
        // SAFETY: the same kernel source, and the same PTX parameters (checked).
        Ok(unsafe { make(f) })
    }

    /// nvcc's kernel `name`, as the typed handle of ours, when `--cuda` was
    /// given.
    ///
    /// # Safety
    /// `make` is the `from_function` of the typed handle of kernel `name`,
    /// and each parameter of nvcc's kernel means what the Rust kernel's
    /// parameter of the same place means (the types are checked).
    pub unsafe fn cuda<H>(
        &self,
        name: &str,
        kind: LaunchKind,
        make: unsafe fn(Function) -> H,
    ) -> Result<Option<H>> {
        let Some((module, text, path)) = &self.cuda else {
            return Ok(None);
        };
        let f = function_like(module, text, path, name, kind, self.ours)?;
        // SAFETY: the caller's contract; the parameter types are checked.
        Ok(Some(unsafe { make(f) }))
    }
}

/// Prints, for each named build of one kernel, its registers per thread
/// and how many of its blocks of `threads` threads fit on a
/// multiprocessor (what bounds a cooperative grid).
pub fn print_occupancy(kernel: &str, threads: u32, builds: &[(&str, &Function)]) -> Result<()> {
    for (what, f) in builds {
        println!(
            "{kernel}, {what}: {} registers per thread, {} blocks of {threads} threads per SM",
            f.registers_per_thread()?,
            f.max_blocks_per_sm(threads, 0)?
        );
    }
    Ok(())
}

/// The nvcc-built PTX at `path`, loaded, with its text.
pub fn load_cuda(gpu: &Gpu, path: &Path) -> Result<(Module, String)> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("reading the nvcc-built PTX {}: {e}", path.display()))?;
    Ok((Module::from_ptx_file(gpu, path)?, text))
}

/// Values whose bits a comparison counts, and their distance in units in
/// the last place (for integers, their difference).
pub trait Value: Copy {
    /// The value as `f64` (for the largest absolute difference).
    fn to_f64(self) -> f64;
    /// How many representable values lie from `self` to `other`.
    fn ulps(self, other: Self) -> u64;
    /// Whether the two have the same bits.
    fn same_bits(self, other: Self) -> bool;
}

/// A float's bits (sign bit `sign`) as an integer that orders like the
/// float: negative values below positive ones, -0 just below +0.
fn ordered(bits: i64, sign: i64) -> i64 {
    if bits & sign != 0 {
        -(bits & !sign) - 1
    } else {
        bits
    }
}

impl Value for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn ulps(self, other: Self) -> u64 {
        let s = i64::MIN;
        ordered(self.to_bits() as i64, s).abs_diff(ordered(other.to_bits() as i64, s))
    }
    fn same_bits(self, other: Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Value for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn ulps(self, other: Self) -> u64 {
        let s = 1i64 << 31;
        ordered(self.to_bits() as i64, s).abs_diff(ordered(other.to_bits() as i64, s))
    }
    fn same_bits(self, other: Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

macro_rules! integer_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn ulps(self, other: Self) -> u64 {
                (self as i128 - other as i128).unsigned_abs() as u64
            }
            fn same_bits(self, other: Self) -> bool {
                self == other
            }
        }
    )*};
}
integer_value!(i32, u32);

/// How two results of one computation differ.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Diff {
    /// Values compared (the shorter length; a length difference is an error
    /// of the caller).
    pub compared: usize,
    /// Values whose bits differ.
    pub different: usize,
    /// The largest absolute difference.
    pub max_abs: f64,
    /// The largest distance in units in the last place.
    pub max_ulps: u64,
}

impl Diff {
    /// `a` against `b`, element by element.
    pub fn of<T: Value>(a: &[T], b: &[T]) -> Diff {
        let mut d = Diff {
            compared: a.len().min(b.len()),
            ..Diff::default()
        };
        for (&x, &y) in a.iter().zip(b) {
            if !x.same_bits(y) {
                d.different += 1;
                d.max_abs = d.max_abs.max((x.to_f64() - y.to_f64()).abs());
                d.max_ulps = d.max_ulps.max(x.ulps(y));
            }
        }
        d
    }

    /// Both differences as one: the counts added, the maxima kept.
    pub fn and(self, other: Diff) -> Diff {
        Diff {
            compared: self.compared + other.compared,
            different: self.different + other.different,
            max_abs: self.max_abs.max(other.max_abs),
            max_ulps: self.max_ulps.max(other.max_ulps),
        }
    }
}

impl std::fmt::Display for Diff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} values differ bitwise (max abs {:e}, max {} ulp)",
            self.different, self.compared, self.max_abs, self.max_ulps
        )
    }
}

/// Times of one kernel, in milliseconds per launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The 10th percentile.
    pub p10: f64,
    /// The 90th percentile.
    pub p90: f64,
}

impl Spread {
    /// Of the samples `t` (not empty).
    pub fn of(t: &mut [f64]) -> Spread {
        t.sort_by(f64::total_cmp);
        let median = cooperative_groups::median(t);
        let at = |q: f64| t[((t.len() - 1) as f64 * q).round() as usize];
        Spread {
            median,
            p10: at(0.1),
            p90: at(0.9),
        }
    }
}

impl std::fmt::Display for Spread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.4} ms (p10 {:.4}, p90 {:.4})",
            self.median, self.p10, self.p90
        )
    }
}

/// What a kernel being timed is asked to queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// What must precede every timed batch (resetting what the kernel
    /// consumes), queued outside the timed span.
    Prepare,
    /// One launch.
    Launch,
}

/// A kernel to time: queues what each [`Step`] asks for.
pub type Timed<'a> = Box<dyn FnMut(Step) -> cooperative_groups::Result<()> + 'a>;

/// Times each of `kernels`, alternating between them run after run: 3
/// warm-up runs, then `runs` timed runs of `batch` launches each, queued
/// back to back between two CUDA events (a batch hides the launch latency
/// of all but its first launch); per-launch milliseconds.
pub fn time_alternating(
    gpu: &Gpu,
    runs: usize,
    batch: usize,
    kernels: &mut [Timed<'_>],
) -> Result<Vec<Spread>> {
    let timer = EventTimer::new(gpu)?;
    alternate(runs, kernels, |t| {
        t(Step::Prepare)?;
        let ms = timer.time(|| {
            for _ in 0..batch {
                t(Step::Launch)?;
            }
            Ok(())
        })?;
        Ok(ms / batch as f64)
    })
}

/// Times each of `kernels` as [`time_alternating`] does, one launch per
/// run, by the wall clock: from before the launch is queued until `wait`
/// returns (for launches on several GPUs, whose streams no pair of CUDA
/// events spans: `wait` waits for all of them). What `Step::Prepare`
/// queues is waited for before the clock starts.
pub fn time_alternating_wall(
    runs: usize,
    kernels: &mut [Timed<'_>],
    wait: impl Fn() -> cooperative_groups::Result<()>,
) -> Result<Vec<Spread>> {
    alternate(runs, kernels, |t| {
        t(Step::Prepare)?;
        wait()?;
        let start = std::time::Instant::now();
        t(Step::Launch)?;
        wait()?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    })
}

/// 3 warm-up rounds, then `runs` rounds, each timing every kernel in turn
/// with `time` (milliseconds); the spread of each kernel's timed rounds.
fn alternate(
    runs: usize,
    kernels: &mut [Timed<'_>],
    mut time: impl FnMut(&mut Timed<'_>) -> Result<f64>,
) -> Result<Vec<Spread>> {
    let mut samples = vec![Vec::with_capacity(runs); kernels.len()];
    for run in 0..runs + 3 {
        for (k, t) in kernels.iter_mut().enumerate() {
            let ms = time(t)?;
            if run >= 3 {
                samples[k].push(ms);
            }
        }
    }
    Ok(samples.iter_mut().map(|s| Spread::of(s)).collect())
}

/// The rows a port prints and writes with `--json`.
#[derive(Debug, Default)]
pub struct Rows {
    rows: Vec<Row>,
}

/// One comparison of the Rust kernel with another build of the same kernel.
#[derive(Debug, Clone)]
pub struct Row {
    /// The port (`conjugate-gradient`, ...).
    pub port: String,
    /// The kernel's name.
    pub kernel: String,
    /// The problem size, in the port's words.
    pub size: String,
    /// The launch shape, `blocks x threads`.
    pub launch: String,
    /// The kernel build compared (`Rust, contraction fast`, ...).
    pub side: String,
    /// What it is compared with (`nvcc -O3`, another Rust build, another
    /// run of itself).
    pub against: String,
    /// How the results differ.
    pub diff: Diff,
    /// The compared kernel's time.
    pub time: Option<Spread>,
    /// The other kernel's time.
    pub other: Option<Spread>,
    /// Timed runs.
    pub runs: usize,
    /// Launches per timed run.
    pub batch: usize,
}

impl Rows {
    /// Prints `row` and keeps it for `--json`.
    pub fn push(&mut self, row: Row) {
        println!(
            "{} {} [{}, {}]: {} vs {}: {}",
            row.port, row.kernel, row.size, row.launch, row.side, row.against, row.diff
        );
        if let (Some(r), Some(o)) = (row.time, row.other) {
            println!(
                "    per launch: {} {r}; {} {o}; ratio {:.3} ({} runs of {} launches)",
                row.side,
                row.against,
                r.median / o.median,
                row.runs,
                row.batch
            );
        }
        self.rows.push(row);
    }

    /// Every row, as a JSON array of objects.
    pub fn to_json(&self) -> String {
        let mut s = String::from("[\n");
        for (i, r) in self.rows.iter().enumerate() {
            let time = |t: Option<Spread>| match t {
                Some(t) => format!(
                    "{{\"median_ms\": {}, \"p10_ms\": {}, \"p90_ms\": {}}}",
                    json_number(t.median),
                    json_number(t.p10),
                    json_number(t.p90)
                ),
                None => "null".into(),
            };
            let ratio = match (r.time, r.other) {
                (Some(a), Some(b)) => json_number(a.median / b.median),
                _ => "null".into(),
            };
            let _ = writeln!(
                s,
                "  {{\"port\": {}, \"kernel\": {}, \"size\": {}, \"launch\": {}, \"side\": {}, \
                 \"against\": {}, \"compared\": {}, \"bitwise_different\": {}, \"max_abs\": {}, \
                 \"max_ulps\": {}, \"time\": {}, \"other_time\": {}, \"ratio\": {}, \"runs\": {}, \"batch\": {}}}{}",
                json_string(&r.port),
                json_string(&r.kernel),
                json_string(&r.size),
                json_string(&r.launch),
                json_string(&r.side),
                json_string(&r.against),
                r.diff.compared,
                r.diff.different,
                json_number(r.diff.max_abs),
                r.diff.max_ulps,
                time(r.time),
                time(r.other),
                ratio,
                r.runs,
                r.batch,
                if i + 1 < self.rows.len() { "," } else { "" }
            );
        }
        s.push_str("]\n");
        s
    }
}

/// `x` as a JSON number (`null` where it is not finite).
fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:e}")
    } else {
        "null".into()
    }
}

/// `s` as a JSON string.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The ports' build scripts: every host builds its kernel crate twice.
#[cfg(feature = "build")]
pub mod build {
    use cooperative_groups::build::{FpContract, KernelBuild};
    use std::path::PathBuf;

    /// Compiles the kernel crate at `dir` to PTX for sm_90 twice: with
    /// floating-point contraction as nvcc does by default
    /// (`FpContract::Fast`: the typed launch handles,
    /// `OUT_DIR/cg_kernels.rs`, which the comparison with nvcc uses), and
    /// without (`FpContract::Off`, Rust's rounding of every operation:
    /// `OUT_DIR/kernels_contract_off.ptx`, run beside it). Exits the build
    /// script with the error on failure.
    pub fn kernels_both_ways(dir: &str) {
        let kernels = KernelBuild::new(dir).arch(90);
        let built = kernels
            .clone()
            .fp_contract(FpContract::Fast)
            .emit()
            .and_then(|()| kernels.fp_contract(FpContract::Off).build());
        let modules = match built {
            Ok(modules) => modules,
            Err(e) => {
                eprintln!("\nerror: {dir} could not be built to PTX\n\n{e}\n");
                std::process::exit(1);
            }
        };
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set for build.rs"));
        for (sm, ptx) in modules {
            let path = out.join("kernels_contract_off.ptx");
            assert_eq!(sm, 90, "one architecture was asked for");
            if let Err(e) = std::fs::write(&path, ptx) {
                eprintln!("\nerror: writing {}: {e}\n", path.display());
                std::process::exit(1);
            }
        }
    }
}

/// Offline checks of a port's kernels, for its tests: the CUDA C++
/// version's parameters against the Rust kernel's, and the PTX through
/// `ptxas` and back through `nvdisasm`. The tools are found as the kernel
/// builder finds them (`cg_builder::sass::cuda_tool`: `CG_NVCC`, `CG_PTXAS`,
/// `CG_NVDISASM`, then the PATH, then PyPI's `nvidia-cuda-nvcc`).
pub mod checks {
    use super::{entry_params, Result};
    pub use cg_builder::sass::cuda_tool;
    use cg_builder::sass::Sass;
    use cooperative_groups::PtxSet;
    use std::path::Path;
    use std::process::Command;

    /// Runs `cmd`; its standard error (where ptxas and nvcc report), or
    /// an error with it.
    fn output(mut cmd: Command, what: &str) -> Result<String> {
        let o = cmd.output().map_err(|e| format!("running {what}: {e}"))?;
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if !o.status.success() {
            return Err(format!("{what} failed:\n{err}").into());
        }
        Ok(err)
    }

    /// Compiles `cu` with `nvcc -O3 -arch=sm_90 -ptx` (as gpu-run does)
    /// and checks that each kernel of `names` takes the parameters of the
    /// Rust kernel of that name in `ours`. `Ok(false)` (after a notice)
    /// where there is no nvcc.
    pub fn cuda_params_match(cu: &Path, ours: &PtxSet, names: &[&str]) -> Result<bool> {
        let Some(theirs) = cuda_ptx(cu)? else {
            return Ok(false);
        };
        let ours = ours.select(90).ok_or("our kernels have no sm_90 module")?;
        for name in names {
            let a = entry_params(ours.source, name);
            let b = entry_params(&theirs, name);
            if a.is_none() || a != b {
                return Err(format!(
                    "`{name}`: the Rust kernel's PTX parameters are {a:?}, {}'s are {b:?}",
                    cu.display()
                )
                .into());
            }
        }
        Ok(true)
    }

    /// `cu` compiled by `nvcc -O3 -arch=sm_90 -ptx` (as gpu-run does): its
    /// PTX, or `None` (after a notice) where there is no nvcc.
    pub fn cuda_ptx(cu: &Path) -> Result<Option<String>> {
        let Some(nvcc) = cuda_tool("nvcc") else {
            println!(
                "NVCC NOT FOUND: {} not compiled, its parameters not checked",
                cu.display()
            );
            return Ok(None);
        };
        let out = std::env::temp_dir().join(format!(
            "cg-port-{}-{}.ptx",
            std::process::id(),
            cu.file_stem().and_then(|s| s.to_str()).unwrap_or("cuda")
        ));
        let mut cmd = Command::new(&nvcc);
        cmd.args(["-O3", "-arch=sm_90", "-ptx", "-o"])
            .arg(&out)
            .arg(cu);
        // PyPI's nvcc keeps the CCCL headers (`nv/target`, which the
        // Cooperative Groups headers include) in include/cccl, outside its
        // default search path; a full toolkit needs nothing here.
        if let Some(cccl) = nvcc
            .parent()
            .and_then(Path::parent)
            .map(|root| root.join("include/cccl"))
            .filter(|d| d.join("nv/target").exists())
        {
            cmd.arg("-I").arg(cccl);
        }
        output(cmd, &format!("nvcc on {}", cu.display()))?;
        let ptx = std::fs::read_to_string(&out)?;
        let _ = std::fs::remove_file(&out);
        Ok(Some(ptx))
    }

    /// Assembles the sm_90 module of both builds of a port's kernels
    /// (contraction fast and off) with [`ptxas_report`], printing each
    /// report: an error where one spills registers or holds the ptxas 13.0
    /// miscompile ([`late_predicates`]).
    pub fn assemble_both_builds(fast: &PtxSet, off: &PtxSet) -> Result<()> {
        for (what, set) in [("contraction fast", fast), ("contraction off", off)] {
            let ptx = set.select(90).ok_or("no sm_90 module")?.source;
            if let Some(report) = ptxas_report(ptx, what)? {
                println!("{what}:\n{report}");
            }
        }
        Ok(())
    }

    /// Assembles `ptx` for sm_90 with `ptxas -v`; its report, or an error
    /// when it fails, spills registers or holds the ptxas 13.0 miscompile
    /// (read back with `nvdisasm`, [`late_predicates`]). `Ok(None)` (after
    /// a notice) where there is no ptxas; a notice where there is no
    /// nvdisasm.
    pub fn ptxas_report(ptx: &str, what: &str) -> Result<Option<String>> {
        let Some(ptxas) = cuda_tool("ptxas") else {
            println!("PTXAS NOT FOUND: {what} not assembled");
            return Ok(None);
        };
        let name = what.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
        let dir = std::env::temp_dir().join(format!("cg-port-ptxas-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let src = dir.join("module.ptx");
        std::fs::write(&src, ptx)?;
        let mut cmd = Command::new(ptxas);
        cmd.args(["-arch=sm_90", "-v", "-o"])
            .arg(dir.join("out.cubin"))
            .arg(&src);
        let report = output(cmd, &format!("ptxas on {what}"))?;
        let sass = match cuda_tool("nvdisasm") {
            Some(_) => Some(Sass::of_cubin(&dir.join("out.cubin"))),
            None => {
                println!("NVDISASM NOT FOUND: {what} not read back for late predicates");
                None
            }
        };
        let _ = std::fs::remove_dir_all(&dir);
        let sass = sass.transpose().map_err(|e| format!("{what}: {e}"))?;
        if report.lines().any(|l| {
            l.contains("spill") && !l.contains("0 bytes spill stores, 0 bytes spill loads")
        }) {
            return Err(format!("{what} spills registers:\n{report}").into());
        }
        if let Some(sass) = sass {
            late_predicates(&sass, what)?;
        }
        Ok(Some(report))
    }

    /// What the sm_90 build of a kernel's busiest innermost loop issues a
    /// trip, in global loads ([`most_loads_per_iteration`]): the loads in
    /// flight a strided loop gets from the build.
    ///
    /// [`most_loads_per_iteration`]: cg_builder::sass::KernelSass::most_loads_per_iteration
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Loads {
        /// At least this many: the loop unrolls, and fewer is a regression
        /// of the build.
        AtLeast(u32),
        /// Exactly this many: a loop the build does not unroll yet (or no
        /// strided loop: the kernel's only loops are its panic path's);
        /// more means it now does, and the table should say so.
        Rolled(u32),
    }

    /// Checks each kernel of `expected` in the sm_90 module of `set`
    /// against its [`Loads`], printing what each issues; an error naming
    /// every kernel that differs, with its loops. `Ok(false)` (after a
    /// notice) where there is no ptxas or nvdisasm.
    pub fn loads_per_iteration(set: &PtxSet, expected: &[(&str, Loads)]) -> Result<bool> {
        if cuda_tool("ptxas").is_none() || cuda_tool("nvdisasm").is_none() {
            println!("PTXAS OR NVDISASM NOT FOUND: loads per iteration not checked");
            return Ok(false);
        }
        let ptx = set.select(90).ok_or("no sm_90 module")?.source;
        let sass = Sass::of(ptx, 90).map_err(|e| e.to_string())?;
        let mut wrong = Vec::new();
        for &(name, want) in expected {
            let k = sass
                .kernel(name)
                .ok_or(format!("no kernel `{name}` in the module"))?;
            let loads = k.most_loads_per_iteration();
            println!("{name}: {loads} loads per iteration ({want:?})");
            let fine = match want {
                Loads::AtLeast(n) => loads >= n,
                Loads::Rolled(n) => loads == n,
            };
            if !fine {
                wrong.push(format!(
                    "{name}: {loads}, expected {want:?}\n  {}",
                    k.loop_report()
                ));
            }
        }
        if wrong.is_empty() {
            return Ok(true);
        }
        Err(format!(
            "loads per iteration of the strided loops (fewer: the build no longer unrolls them, \
             cg_builder::compile::LOOP_FLAGS; more where rolled: record the gain):\n{}",
            wrong.join("\n")
        )
        .into())
    }

    /// An error naming every instruction of `sass` (the module `what`)
    /// that ptxas predicated on a register it sets only after it
    /// ([`Sass::late_predicates`]: the ptxas 13.0 miscompile the library's
    /// block collectives avoid, `docs/probes/unroll-remainder/` of the
    /// library's repository), none where there is none.
    pub fn late_predicates(sass: &Sass, what: &str) -> Result<()> {
        let found = sass.late_predicates();
        if found.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{what}: instructions predicated on a register set only after them (the ptxas 13.0 \
             miscompile; one `redux.sync` a reduction avoids it):\n{}",
            found.join("\n")
        )
        .into())
    }
}

/// A deterministic stream of pseudo-random numbers (a 64-bit linear
/// congruential generator, Knuth's constants): the ports' inputs are the
/// same on every machine.
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    /// The stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }

    /// The next 31 random bits (as C's `rand()` with `RAND_MAX` 2^31 - 1).
    pub fn next_u31(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    /// A number in [0, 1].
    pub fn next_unit(&mut self) -> f64 {
        self.next_u31() as f64 / RAND_MAX as f64
    }
}

/// The largest value of [`Lcg::next_u31`].
pub const RAND_MAX: u32 = (1 << 31) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    /// A planted module: `REDUX` predicated on `P1`, which is copied from
    /// `UP1` only after it (what ptxas 13.0 made of two `redux.sync`s).
    #[test]
    fn a_late_predicate_fails_the_check_and_names_the_instruction() {
        let planted = cg_builder::sass::Sass::from_disassembly(
            ".text.stale:\n\
             /*24e0*/ ULOP3.LUT UP1, URZ, UR4, 0x1f, URZ, 0xc0, !UPT ;\n\
             /*24f0*/ @!P1 REDUX.SUM UR9, R25 ;\n\
             /*2550*/ PLOP3.LUT P1, PT, PT, PT, UP1, 0x80, 0x0 ;\n",
        );
        let err = checks::late_predicates(&planted, "planted")
            .unwrap_err()
            .to_string();
        assert!(err.contains("stale: `@!P1 REDUX.SUM UR9, R25`"), "{err}");
        let clean = cg_builder::sass::Sass::from_disassembly(
            ".text.clean:\n/*0000*/ ISETP.NE.AND P1, PT, R0, RZ, PT ;\n/*0010*/ @!P1 EXIT ;\n",
        );
        checks::late_predicates(&clean, "clean").unwrap();
    }

    #[test]
    fn options_parse_and_refuse() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = Options::parse(args(&[
            "--cuda", "p.ptx", "--runs", "7", "--json", "o.json",
        ]))
        .unwrap();
        assert_eq!(o.cuda.as_deref(), Some(Path::new("p.ptx")));
        assert_eq!(o.json.as_deref(), Some(Path::new("o.json")));
        assert_eq!(o.runs, 7);
        assert!(Options::parse(args(&["--runs", "0"])).is_err());
        assert!(Options::parse(args(&["--cuda"])).is_err());
        assert!(Options::parse(args(&["--frobnicate"]))
            .unwrap_err()
            .contains("unknown argument"));
        assert_eq!(Options::parse(args(&["--quick"])).unwrap().runs, 5);
        assert!(Options::parse(args(&["--profile"])).unwrap().profile);
        assert_eq!(
            Options::parse(args(&["--gpus", "2"])).unwrap().gpus,
            Some(2)
        );
        assert_eq!(Options::parse(args(&[])).unwrap().gpus, None);
        assert!(Options::parse(args(&["--gpus", "0"])).is_err());
    }

    #[test]
    fn global_sizes_of_both_compilers_declarations() {
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
                   .global .align 8 .b8 nvcc_style[80];\n\
                   .visible .global .align 16 .u64 rust_style[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};\n\
                   .shared .align 8 .b8 tile[64];\n";
        assert_eq!(global_bytes(ptx, "nvcc_style"), Some(80));
        assert_eq!(global_bytes(ptx, "rust_style"), Some(80));
        assert_eq!(global_bytes(ptx, "tile"), None);
        assert_eq!(global_bytes(ptx, "absent"), None);
    }

    #[test]
    fn diff_counts_bits_and_ulps() {
        let a = [1.0f32, 2.0, -0.0, f32::NAN];
        let b = [1.0f32, f32::from_bits(2.0f32.to_bits() + 3), 0.0, f32::NAN];
        let d = Diff::of(&a, &b);
        assert_eq!(d.compared, 4);
        assert_eq!(d.different, 2);
        assert_eq!(d.max_ulps, 3);
        assert_eq!(1.0f64.ulps(f64::from_bits(1.0f64.to_bits() - 2)), 2);
        assert_eq!((-1.0f64).ulps(1.0), 2 * 1.0f64.to_bits() + 1);
        assert_eq!(0.0f64.ulps(-0.0), 1);
        assert_eq!(Diff::of(&[3i32, 5], &[3, 9]).max_ulps, 4);
    }

    #[test]
    fn spread_percentiles() {
        let mut t: Vec<f64> = (1..=11).map(f64::from).collect();
        let s = Spread::of(&mut t);
        assert_eq!((s.p10, s.median, s.p90), (2.0, 6.0, 10.0));
    }

    #[test]
    fn wall_timing_prepares_and_waits_around_every_launch() {
        use std::cell::RefCell;
        let log = RefCell::new(String::new());
        let mut kernels: Vec<Timed> = ["a", "b"]
            .into_iter()
            .map(|name| {
                let log = &log;
                Box::new(move |step| {
                    log.borrow_mut().push_str(match step {
                        Step::Prepare => name,
                        Step::Launch => "!",
                    });
                    Ok(())
                }) as Timed
            })
            .collect();
        let times = time_alternating_wall(2, &mut kernels, || {
            log.borrow_mut().push('w');
            Ok(())
        })
        .unwrap();
        drop(kernels);
        assert_eq!(times.len(), 2);
        assert!(times.iter().all(|t| t.p10 <= t.median && t.median <= t.p90));
        // 3 warm-up rounds and 2 timed, each kernel in turn.
        assert_eq!(log.into_inner(), "aw!wbw!w".repeat(5));
    }

    #[test]
    fn json_rows_are_escaped() {
        let mut rows = Rows::default();
        rows.push(Row {
            port: "p\"q".into(),
            kernel: "k".into(),
            size: "n=1".into(),
            launch: "1 x 32".into(),
            side: "Rust, contraction fast".into(),
            against: "nvcc -O3".into(),
            diff: Diff::default(),
            time: Some(Spread {
                median: 2.0,
                p10: 1.0,
                p90: 3.0,
            }),
            other: Some(Spread {
                median: 1.0,
                p10: 1.0,
                p90: 1.0,
            }),
            runs: 3,
            batch: 1,
        });
        let j = rows.to_json();
        assert!(j.contains("\"p\\\"q\""));
        assert!(j.contains("\"ratio\": 2e0"));
    }

    #[test]
    fn lcg_is_deterministic() {
        let (mut a, mut b) = (Lcg::new(1), Lcg::new(1));
        for _ in 0..100 {
            let x = a.next_u31();
            assert_eq!(x, b.next_u31());
            assert!(x <= RAND_MAX);
        }
    }
}
