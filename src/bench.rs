//! What the sample and benchmark binaries share: the GPU and kernels, the
//! CUDA C++ twins built by nvcc (and CUB, as a shared library), timing by
//! events (median of many runs, Rust and C++ interleaved so that clock drift
//! hits both alike), the copy-bandwidth ceiling, and the result table.

use crate::kernels::Kernels;
use cg_host::{Error, EventTimer, Function, Gpu, LaunchKind, Module};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of a result table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Experiment.
    pub name: String,
    /// Problem size, as printed.
    pub size: String,
    /// Rust kernel time, in `unit`.
    pub rust: f64,
    /// CUDA C++ twin time, in `unit`.
    pub cuda: Option<f64>,
    /// Best library's time (CUB), in `unit`.
    pub library: Option<f64>,
    /// `"us"` for kernels, `"ns"` for per-barrier costs.
    pub unit: &'static str,
    /// Bytes the Rust kernel must move at least, for GB/s.
    pub bytes: Option<f64>,
    /// Whether every result of the row was checked and right.
    pub verified: bool,
}

impl Row {
    /// A kernel row: times in milliseconds (as [`Bench::time_pair`] gives
    /// them), shown in microseconds, with the bytes the kernel must move.
    pub fn timed(
        name: &str,
        size: &str,
        rust_ms: f64,
        cuda_ms: Option<f64>,
        bytes: f64,
        verified: bool,
    ) -> Row {
        Row {
            name: name.into(),
            size: size.into(),
            rust: rust_ms * 1e3,
            cuda: cuda_ms.map(|m| m * 1e3),
            library: None,
            unit: "us",
            bytes: Some(bytes),
            verified,
        }
    }

    /// Rust time over CUDA C++ time.
    pub fn ratio(&self) -> Option<f64> {
        self.cuda.map(|c| self.rust / c)
    }

    /// Rust GB/s (for `us` rows with a byte count).
    pub fn gbps(&self) -> Option<f64> {
        match (self.unit, self.bytes) {
            ("us", Some(b)) => Some(b / (self.rust * 1e-6) / 1e9),
            _ => None,
        }
    }
}

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
            quick: args.iter().any(|a| a == "--quick"),
            only: value("--only"),
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

    /// Jacobi problems `(nx, ny, sweeps)`.
    pub fn jacobi_shapes(&self) -> &'static [(u32, u32, u32)] {
        if self.quick {
            &[(256, 256, 50)]
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
pub fn run(body: impl FnOnce(&mut Bench) -> Result<(), Error>) -> std::process::ExitCode {
    let result = Bench::open(Options::from_args()).and_then(|mut b| {
        body(&mut b)?;
        b.finish()
    });
    exit(result)
}

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
    twins: Option<Module>,
    /// Rows measured so far.
    pub rows: Vec<Row>,
}

impl Bench {
    /// Opens GPU 0, loads our kernels and, when found, the twins.
    pub fn open(opts: Options) -> Result<Self, Error> {
        let gpu = Gpu::new(0)?;
        let k = Kernels::load(&gpu)?;
        let twins = match opts.twins.as_deref().map(|d| d.join("kernels.ptx")) {
            Some(p) if p.exists() => Some(Module::from_ptx_file(&gpu, &p)?),
            _ => {
                eprintln!("(no CUDA C++ twins: scripts/gpu-run builds bench/kernels.cu; pass --twins DIR)");
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
        Ok(Self {
            gpu,
            k,
            opts,
            twins,
            rows: Vec::new(),
        })
    }

    /// The twin of a kernel, as the same typed handle.
    ///
    /// # Safety
    /// The twin must have exactly the kernel's PTX parameter list
    /// (bench/kernels.cu is written that way).
    pub unsafe fn twin<H>(
        &self,
        name: &str,
        kind: LaunchKind,
        make: unsafe fn(Function) -> H,
    ) -> Result<Option<H>, Error> {
        match &self.twins {
            Some(m) => Ok(Some(make(m.function(name, kind)?))),
            None => Ok(None),
        }
    }

    /// Whether experiment `name` is to run (see [`Options::only`]).
    pub fn wants(&self, name: &str) -> bool {
        self.opts.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// Where the twins live, for the CUB libraries.
    pub fn twins_dir(&self) -> Option<&Path> {
        self.opts.twins.as_deref()
    }

    /// `symbol` of the nvcc-built library `lib` in the twins directory
    /// (bench/lib_*.cu, e.g. CUB's reference implementations), when it is
    /// there. The library stays loaded for the rest of the process.
    ///
    /// # Safety
    /// `F` must be the symbol's C signature.
    pub unsafe fn library_fn<F: Copy>(&self, lib: &str, symbol: &str) -> Option<F> {
        let path = self.twins_dir()?.join(lib);
        if !path.exists() {
            return None;
        }
        // SAFETY: our own library, built from bench/lib_*.cu; never unloaded.
        let lib = unsafe { libloading::Library::new(&path) }.ok()?;
        let f = *unsafe { lib.get::<F>(symbol.as_bytes()) }.ok()?;
        std::mem::forget(lib);
        Some(f)
    }

    /// Median milliseconds of `rust` and of `cuda` (when present; pass
    /// [`NO_TWIN`] to time one side), timed alternately after 5 warm-up runs
    /// of each.
    pub fn time_pair(
        &self,
        mut rust: impl FnMut() -> Result<(), Error>,
        mut cuda: Option<impl FnMut() -> Result<(), Error>>,
    ) -> Result<(f64, Option<f64>), Error> {
        let timer = EventTimer::new(&self.gpu)?;
        for _ in 0..5 {
            rust()?;
            if let Some(c) = cuda.as_mut() {
                c()?;
            }
        }
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        for _ in 0..self.opts.runs {
            ta.push(timer.time(&mut rust)?);
            if let Some(c) = cuda.as_mut() {
                tb.push(timer.time(c)?);
            }
        }
        let b = if tb.is_empty() {
            None
        } else {
            Some(cg_host::median(&mut tb))
        };
        Ok((cg_host::median(&mut ta), b))
    }

    /// Adds a row and prints it as it lands (long runs show progress).
    pub fn push(&mut self, row: Row) {
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
        println!("\n{}", table(&self.gpu.info().name, &self.rows));
        if let Some(path) = &self.opts.json {
            let rows: Vec<_> = self
                .rows
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "experiment": r.name, "size": r.size, "unit": r.unit, "bytes": r.bytes,
                        "rust": r.rust, "cuda": r.cuda, "library": r.library,
                        "ratio": r.ratio(), "rust_gbps": r.gbps(), "verified": r.verified,
                    })
                })
                .collect();
            let doc = serde_json::json!({ "device": self.gpu.info().name, "rows": rows });
            std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap_or_default()).map_err(
                |source| Error::Io {
                    context: format!("writing {}", path.display()),
                    source,
                },
            )?;
        }
        if let Some(path) = &self.opts.plot {
            match crate::plot::bar_chart(&self.gpu.info().name, &self.rows, path) {
                Ok(()) => eprintln!("chart: {}", path.display()),
                Err(e) => eprintln!("no chart: {e}"),
            }
        }
        Ok(self.rows.iter().all(|r| r.verified))
    }
}

/// Reads rows written by `--json` (device name and rows).
pub fn rows_from_json(path: &Path) -> Result<(String, Vec<Row>), String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let rows = doc["rows"]
        .as_array()
        .ok_or_else(|| format!("{}: no rows", path.display()))?
        .iter()
        .map(|r| Row {
            name: r["experiment"].as_str().unwrap_or("").into(),
            size: r["size"].as_str().unwrap_or("").into(),
            rust: r["rust"].as_f64().unwrap_or(f64::NAN),
            cuda: r["cuda"].as_f64(),
            library: r["library"].as_f64(),
            unit: if r["unit"] == "ns" { "ns" } else { "us" },
            bytes: r["bytes"].as_f64().or_else(|| {
                // Files from before "bytes" was written: derive it from the rate.
                Some(r["rust_gbps"].as_f64()? * 1e9 * r["rust"].as_f64()? * 1e-6)
            }),
            verified: r["verified"].as_bool().unwrap_or(false),
        })
        .collect();
    Ok((doc["device"].as_str().unwrap_or("").into(), rows))
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

/// The rows as a fixed-width table.
pub fn table(device: &str, rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "device: {device}");
    let _ = writeln!(
        s,
        "{:<40} {:>10} {:>4} {:>10} {:>10} {:>10} {:>9} {:>9}  result",
        "experiment", "size", "unit", "Rust", "CUDA C++", "CUB", "Rust/C++", "Rust GB/s"
    );
    let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
    for r in rows {
        let ok = if r.verified { "verified" } else { "FAILED" };
        let _ = writeln!(
            s,
            "{:<40} {:>10} {:>4} {:>10.2} {:>10} {:>10} {:>9} {:>9}  {ok}",
            r.name,
            r.size,
            r.unit,
            r.rust,
            opt(r.cuda, 2),
            opt(r.library, 2),
            opt(r.ratio(), 3),
            opt(r.gbps(), 0)
        );
    }
    s
}

/// `2^k` for powers of two, else the number.
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
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
    use rand::Rng;
    let mut rng = rand::rng();
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// The exit status of a benchmark binary: 0 when every row verified, 1 when
/// a result was wrong, 2 when it could not run (no GPU, a launch failed).
fn exit(result: Result<bool, Error>) -> std::process::ExitCode {
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
