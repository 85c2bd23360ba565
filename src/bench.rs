//! What the sample and benchmark binaries share: the GPU and kernels, the
//! CUDA C++ twins built by nvcc (and CUB, as a shared library), timing by
//! events (median of many runs, Rust and C++ interleaved so that clock drift
//! hits both alike), the copy-bandwidth ceiling; it prints the result
//! table and writes the JSON and the chart ([`crate::results`],
//! [`crate::plot`]).

use crate::kernels::Kernels;
use crate::plot::bar_chart;
use crate::results::{table, write_json, Row, Timing};
use cooperative_groups::{
    DeviceBuffer, Error, EventTimer, Function, Gpu, GridBarrierPlace, LaunchConfig, LaunchKind,
    Module, PlaceChoice,
};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// The command-line options every benchmark binary takes.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--twins DIR` (else `CG_TWINS_DIR`): nvcc-built twins and CUB.
    pub twins: Option<PathBuf>,
    /// `--runs N`: timed runs per measurement (median), default 50.
    pub runs: usize,
    /// `--json FILE`: also write the rows as JSON.
    pub json: Option<PathBuf>,
    /// `--plot FILE`: also draw the GB/s bar chart as a PNG.
    pub plot: Option<PathBuf>,
    /// `--quick`: small sizes only (a smoke run).
    pub quick: bool,
    /// `--only NAME`: only the experiments whose name contains NAME.
    pub only: Option<String>,
    /// `--no-nccl`: leave the NCCL method out of `jacobi --gpus N` (under
    /// compute-sanitizer, which reports NCCL's own kernels and calls).
    pub no_nccl: bool,
    /// `--sim`: run on the CPU simulator (`Gpu::simulator`), at the
    /// `--quick` sizes: every row verified, nothing timed against CUDA (the
    /// times shown are the simulator's, on the host).
    pub sim: bool,
    /// `--gpu` (or `CG_REQUIRE_GPU=1`): no GPU is an error at once, with no
    /// run on the simulator first (see [`run`]).
    pub require_gpu: bool,
}

impl Options {
    /// Reads the process arguments.
    pub fn from_args() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let value = |flag: &str| args.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
        Options {
            twins: value("--twins")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("CG_TWINS_DIR").map(PathBuf::from)),
            runs: value("--runs").and_then(|v| v.parse().ok()).unwrap_or(50),
            json: value("--json").map(PathBuf::from),
            plot: value("--plot").map(PathBuf::from),
            quick: args.iter().any(|a| a == "--quick" || a == "--sim"),
            only: value("--only"),
            no_nccl: args.iter().any(|a| a == "--no-nccl"),
            sim: args.iter().any(|a| a == "--sim"),
            require_gpu: args.iter().any(|a| a == "--gpu")
                || std::env::var_os("CG_REQUIRE_GPU").is_some_and(|v| v == "1"),
        }
    }
}

impl Options {
    /// Sizes (log2 of the element count) of the reductions, sums, patterns
    /// and clusters: 2^24 and 2^28, or 2^20 with `--quick`.
    pub fn sizes(&self) -> &'static [u32] {
        if self.quick {
            &[20]
        } else {
            &[24, 28]
        }
    }

    /// Sizes (log2) of the device-wide primitives beside CUB: 2^20, 2^24
    /// and 2^28; 2^20 with `--quick`, 2^12 on the simulator.
    pub fn primitive_sizes(&self) -> &'static [u32] {
        if self.sim {
            &[12]
        } else if self.quick {
            &[20]
        } else {
            &[20, 24, 28]
        }
    }

    /// Jacobi problems `(nx, ny, sweeps)`; with `--quick` 20 sweeps (the
    /// persistent kernel on 1,056 blocks pays about 0.4 s a grid barrier
    /// under racecheck).
    pub fn jacobi_shapes(&self) -> &'static [(u32, u32, u32)] {
        if self.quick {
            &[(256, 256, 20)]
        } else {
            &[(4096, 4096, 100), (512, 512, 1000)]
        }
    }

    /// The async-copy guide's array sizes: 2^26 and 2^28 elements, or 2^20
    /// with `--quick`.
    pub fn copy_sizes(&self) -> &'static [u32] {
        if self.quick {
            &[20]
        } else {
            &[26, 28]
        }
    }
}

/// A sample's whole `main`: reads the options, opens the GPU and the
/// kernels, runs `body`, prints the table. Exit status 0 when every row was
/// verified, 1 when one was wrong, 2 on an error (no driver, no GPU ...),
/// with the message.
///
/// Where there is no GPU (no driver, or a driver that reports none), the
/// sample says so, then runs on the simulator as `--sim` does, so that its
/// kernels are seen to run and to verify, and still exits 2: the GPU run
/// asked for did not happen. `--gpu` (or `CG_REQUIRE_GPU=1`) exits 2 at
/// once instead; `--sim` asks for the simulator and exits 0 when every row
/// verified.
pub fn run(body: impl Fn(&mut Bench) -> Result<(), Error>) -> std::process::ExitCode {
    let opts = Options::from_args();
    let require_gpu = opts.require_gpu;
    let run_with = |opts| {
        Bench::open(opts).and_then(|mut b| {
            body(&mut b)?;
            b.finish()
        })
    };
    match run_with(opts) {
        Err(e @ (Error::NoDriver | Error::NoDevice(_))) if !require_gpu => {
            eprintln!("{}", no_gpu_banner(&e));
            let verified = run_with(Options {
                sim: true,
                quick: true,
                ..Options::from_args()
            });
            if let Ok(false) | Err(_) = verified {
                return exit(verified);
            }
            eprintln!(
                "every row verified on the SIMULATOR; exit status 2: the GPU run did not happen \
                 ({e})"
            );
            std::process::ExitCode::from(2)
        }
        result => exit(result),
    }
}

/// What a sample prints before it runs on the simulator for want of a GPU.
fn no_gpu_banner(e: &Error) -> String {
    let rule = "=".repeat(72);
    format!(
        "{rule}\n NO CUDA GPU HERE: {e}\n\n Running on the CPU SIMULATOR instead (as --sim): every row \
         is verified,\n the sizes are small, and the times are the simulator's, NOT A GPU'S.\n The \
         exit status stays 2. --gpu (or CG_REQUIRE_GPU=1) skips this run.\n{rule}"
    )
}

/// Untimed runs of each side before [`Bench::time_pair`] times any.
pub const WARM_UPS: usize = 5;

/// The `cuda` argument of [`Bench::time_pair`] when there is no twin.
pub const NO_TWIN: Option<fn() -> Result<(), Error>> = None;

/// A benchmark session: the GPU, our kernels, the twins, the rows so far.
pub struct Bench {
    /// The GPU.
    pub gpu: Gpu,
    /// Our kernels.
    pub k: Kernels,
    /// The options.
    pub opts: Options,
    /// The twins' module and its PTX text.
    twins: Option<(Module, String)>,
    /// Rows measured so far.
    pub rows: Vec<Row>,
    /// Twice the L2's size, read before every timed run.
    evict: DeviceBuffer<u32>,
    /// Where the eviction kernel would write (it never does).
    sink: RefCell<DeviceBuffer<u32>>,
    /// The device-to-device copy rate of this run (GB/s, read + write), the
    /// ceiling the rows' rates are shown against; measured at the first
    /// row that has a rate.
    copy_gbps: Option<f64>,
}

/// One line on where `grid.sync()` counts on the GPU, for the header.
fn describe_grid_barrier_place(place: &GridBarrierPlace) -> String {
    match &place.chosen {
        PlaceChoice::Timed {
            blocks,
            barriers,
            launch_us,
        } => {
            let (lo, hi) = launch_us
                .iter()
                .fold((f64::INFINITY, 0f64), |(lo, hi), &us| {
                    (lo.min(us), hi.max(us))
                });
            format!(
                "grid barrier counters at place {} of {}, the fastest of {lo:.1}-{hi:.1} us \
                 a launch of {barriers} barriers on {blocks} blocks of 256",
                place.slot,
                launch_us.len(),
            )
        }
        PlaceChoice::Fixed => format!(
            "grid barrier counters at place {}, fixed by CG_GRID_BARRIER_SLOT",
            place.slot
        ),
        PlaceChoice::Untimed => format!("grid barrier counters at place {}, untimed", place.slot),
    }
}

/// How long the spin kernel before each timed run keeps the GPU busy: more
/// than a launch takes to queue.
const SPIN_NS: u64 = 20_000;

impl Bench {
    /// Opens GPU 0, loads our kernels and, when found, the twins.
    pub fn open(opts: Options) -> Result<Self, Error> {
        let gpu = if opts.sim {
            eprintln!(
                "(the simulator: every row runs once on the CPU and is verified; no CUDA C++ \
                 twins, and the times are the simulator's, not a GPU's)"
            );
            Gpu::simulator()
        } else {
            Gpu::new(0)?
        };
        let k = Kernels::load(&gpu)?;
        let twins = match opts.twins.as_deref().map(|d| d.join("kernels.ptx")) {
            _ if opts.sim => None,
            Some(p) if p.exists() => Some((
                Module::from_ptx_file(&gpu, &p)?,
                std::fs::read_to_string(&p).map_err(|e| Error::InvalidLaunch {
                    kernel: "the CUDA C++ twins".into(),
                    reason: format!("reading {}: {e}", p.display()),
                })?,
            )),
            _ => {
                eprintln!("(no CUDA C++ twins: scripts/gpu-run builds kernels/cuda/kernels.cu; pass --twins DIR)");
                None
            }
        };
        let info = gpu.info();
        eprintln!(
            "{} (sm_{}, {} SMs, L2 {} MB)",
            info.name,
            info.sm,
            info.multiprocessors,
            info.l2_bytes >> 20
        );
        if let Some(place) = gpu.grid_barrier_place() {
            eprintln!("{}", describe_grid_barrier_place(&place));
        }
        let evict = gpu.filled((2 * info.l2_bytes as usize / 4).max(1 << 20), 1u32)?;
        let sink = RefCell::new(gpu.filled(1, 0u32)?);
        Ok(Self {
            gpu,
            k,
            opts,
            twins,
            rows: Vec::new(),
            evict,
            sink,
            copy_gbps: None,
        })
    }

    /// The twin of a kernel, as the same typed handle, once its PTX
    /// parameter list is found to be the kernel's (an error names both
    /// lists otherwise: a buffer view of ours, `Output<T>` for one, is a
    /// pointer and a length, and kernels/cuda/kernels.cu must take both).
    ///
    /// # Safety
    /// Each parameter of the twin must mean what the kernel's parameter of
    /// the same place and size means (the sizes are checked).
    pub unsafe fn twin<H>(
        &self,
        name: &str,
        kind: LaunchKind,
        make: unsafe fn(Function) -> H,
    ) -> Result<Option<H>, Error> {
        let Some((module, ptx)) = &self.twins else {
            return Ok(None);
        };
        let params = |ptx: &str| {
            cg_ptx::Module::parse(ptx)
                .entry(name)
                .map(|f| f.declared_param_types())
        };
        let ours = crate::kernels::PTX
            .select(self.gpu.info().sm)
            .and_then(|m| params(m.source));
        let theirs = params(ptx);
        if ours != theirs {
            return Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!(
                    "the CUDA C++ twin's PTX parameters {theirs:?} are not the Rust kernel's \
                     {ours:?}: kernels/cuda/kernels.cu must take the kernel's parameters in its \
                     order (each buffer view as a pointer and a u64 length)"
                ),
            });
        }
        // SAFETY: the same parameter list (the caller vouches for meaning).
        Ok(Some(unsafe { make(module.function(name, kind)?) }))
    }

    /// Whether experiment `name` is to run (see [`Options::only`]).
    pub fn wants(&self, name: &str) -> bool {
        self.opts.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// Where the twins live, for the CUB libraries (none on the simulator,
    /// where nvcc's code does not run).
    pub fn twins_dir(&self) -> Option<&Path> {
        if self.gpu.is_simulator() {
            return None;
        }
        self.opts.twins.as_deref()
    }

    /// `symbol` of the nvcc-built library `lib` in the twins directory
    /// (kernels/cuda/lib_*.cu, e.g. CUB's reference implementations), when it is
    /// there. The library stays loaded for the rest of the process.
    ///
    /// # Safety
    /// `F` must be the symbol's C signature.
    pub unsafe fn library_fn<F: Copy>(&self, lib: &str, symbol: &str) -> Option<F> {
        let path = self.twins_dir()?.join(lib);
        if !path.exists() {
            return None;
        }
        // SAFETY: our own library, built from kernels/cuda/lib_*.cu; never unloaded.
        let lib = unsafe { libloading::Library::new(&path) }.ok()?;
        // SAFETY: `F` is the symbol's C signature (this function's contract),
        // and the library is never unloaded (forgotten below), so the function
        // stays valid.
        let f = *unsafe { lib.get::<F>(symbol.as_bytes()) }.ok()?;
        std::mem::forget(lib);
        Some(f)
    }

    /// The times of `rust` and of `cuda` (when present; pass [`NO_TWIN`]
    /// to time one side), runs alternating after [`WARM_UPS`] warm-up runs
    /// of each (as many as timed runs where those are fewer: `--runs 1`
    /// is a check, under compute-sanitizer, where every run costs).
    /// Before every timed run the harness reads a buffer twice the size of
    /// L2 (nothing an earlier run left there survives: every run reads
    /// its inputs from memory) and then queues a 20 us spin kernel, so the
    /// timed work is already queued when the GPU reaches it and no launch
    /// latency enters its time.
    pub fn time_pair(
        &self,
        mut rust: impl FnMut() -> Result<(), Error>,
        mut cuda: Option<impl FnMut() -> Result<(), Error>>,
    ) -> Result<(Timing, Option<Timing>), Error> {
        if self.gpu.is_simulator() {
            // One run, timed on the host: what a kernel costs on the
            // simulator, no GPU figure.
            let start = std::time::Instant::now();
            rust()?;
            return Ok((Timing::exact(start.elapsed().as_secs_f64() * 1e3), None));
        }
        let timer = EventTimer::new(&self.gpu)?;
        for _ in 0..WARM_UPS.min(self.opts.runs) {
            rust()?;
            if let Some(c) = cuda.as_mut() {
                c()?;
            }
        }
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        for _ in 0..self.opts.runs {
            self.prepare_timed_run()?;
            ta.push(timer.time(&mut rust)?);
            if let Some(c) = cuda.as_mut() {
                self.prepare_timed_run()?;
                tb.push(timer.time(c)?);
            }
        }
        let b = if tb.is_empty() {
            None
        } else {
            Some(Timing::of(&mut tb))
        };
        Ok((Timing::of(&mut ta), b))
    }

    /// Evicts L2 by reading [`Bench::evict`], then queues the spin kernel.
    fn prepare_timed_run(&self) -> Result<(), Error> {
        let cfg = LaunchConfig::new(self.gpu.info().multiprocessors * 4, 256);
        let mut sink = self.sink.borrow_mut();
        self.k
            .harness_evict_l2
            .launch(cfg, &self.evict, &mut sink)?;
        self.k.harness_spin.launch(LaunchConfig::new(1, 1), SPIN_NS)
    }

    /// This run's device-to-device copy rate (GB/s, read + write, 1 GiB),
    /// measured the first time it is asked for.
    pub fn copy_gbps(&mut self) -> Result<f64, Error> {
        if let Some(c) = self.copy_gbps {
            return Ok(c);
        }
        if self.gpu.is_simulator() {
            return Err(Error::NeedsGpu {
                operation: "the copy rate".into(),
            });
        }
        let c = copy_bandwidth(&self.gpu, 1 << 30, 20)?;
        self.copy_gbps = Some(c);
        Ok(c)
    }

    /// Adds a row and prints it as it lands (long runs show progress).
    pub fn push(&mut self, mut row: Row) {
        if self.gpu.is_simulator() {
            // The simulator's times are the host's: no rate means anything.
            row.bytes = None;
        }
        if row.gbps().is_some() {
            // The table shows rates against it; a failed copy only leaves
            // that column empty.
            let _ = self.copy_gbps();
        }
        eprintln!(
            "  {:<40} {:>8}  Rust {:>9.2} {}  C++ {:>9}  {}",
            row.name,
            row.size,
            row.rust,
            row.unit,
            row.cuda.map_or("-".into(), |c| format!("{c:.2}")),
            if row.verified { "verified" } else { "FAILED" }
        );
        self.rows.push(row);
    }

    /// Prints the table (and writes the JSON); true when every row verified.
    pub fn finish(&self) -> Result<bool, Error> {
        println!(
            "\n{}",
            table(&self.gpu.info().name, &self.rows, self.copy_gbps)
        );
        if let Some(path) = &self.opts.json {
            write_json(path, &self.gpu.info().name, self.copy_gbps, &self.rows).map_err(
                |source| Error::Io {
                    context: format!("writing {}", path.display()),
                    source,
                },
            )?;
        }
        if let Some(path) = &self.opts.plot {
            match bar_chart(&self.gpu.info().name, &self.rows, path) {
                Ok(()) => eprintln!("chart: {}", path.display()),
                Err(e) => eprintln!("no chart: {e}"),
            }
        }
        Ok(self.rows.iter().all(|r| r.verified))
    }
}

/// Device-to-device copy bandwidth in GB/s (bytes read plus bytes written),
/// the ceiling a memory-bound kernel is measured against.
pub fn copy_bandwidth(gpu: &Gpu, bytes: usize, runs: usize) -> Result<f64, Error> {
    let src = gpu.filled(bytes / 4, 1.0f32)?;
    let mut dst = gpu.filled(bytes / 4, 0.0f32)?;
    let timer = EventTimer::new(gpu)?;
    let ms = timer.median_ms(3, runs, || dst.copy_from_device(&src))?;
    Ok(2.0 * bytes as f64 / (ms * 1e-3) / 1e9)
}

/// Whether a float32 sum is within float32 rounding of the float64 sum.
pub fn sum_close(got: f32, values: &[f32]) -> bool {
    let exact: f64 = values.iter().map(|&v| v as f64).sum();
    let magnitude: f64 = values.iter().map(|&v| (v as f64).abs()).sum();
    got.is_finite()
        && ((got as f64) - exact).abs() <= magnitude * 64.0 * f32::EPSILON as f64 + 1e-30
}

/// `n` uniform random floats in [-1, 1).
pub fn random_f32(n: usize) -> Vec<f32> {
    uniform_f32(&mut rand::rng(), n)
}

/// `n` uniform random floats in [-1, 1) from the seed `seed`: the same
/// values in every process (the ranks of a multi-process run).
pub fn random_f32_seeded(n: usize, seed: u64) -> Vec<f32> {
    use rand::SeedableRng;
    uniform_f32(&mut rand::rngs::StdRng::seed_from_u64(seed), n)
}

fn uniform_f32(rng: &mut impl rand::Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// The exit status of a benchmark binary: 0 when every row verified, 1 when
/// a result was wrong, 2 when it could not run (no GPU, a launch failed).
pub fn exit(result: Result<bool, Error>) -> std::process::ExitCode {
    match result {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("a result was wrong (FAILED above)");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::from(2)
        }
    }
}
