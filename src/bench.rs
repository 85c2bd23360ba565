//! What the sample and benchmark binaries share: loading the CUDA C++ twins
//! built by nvcc, timing by events (median of many runs, interleaved so that
//! clock drift hits both sides alike), the copy-bandwidth ceiling, and the
//! result table.

use cg_host::{EventTimer, Gpu, Module};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the nvcc-built twins are: `--twins DIR`, else `CG_TWINS_DIR`.
pub fn twins_dir(args: &[String]) -> Option<PathBuf> {
    args.windows(2)
        .find(|w| w[0] == "--twins")
        .map(|w| PathBuf::from(&w[1]))
        .or_else(|| std::env::var_os("CG_TWINS_DIR").map(PathBuf::from))
}

/// The value after `flag`, parsed, or `default`.
pub fn arg<T: std::str::FromStr>(args: &[String], flag: &str, default: T) -> T {
    args.windows(2)
        .find(|w| w[0] == flag)
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(default)
}

/// Loads `DIR/<name>.ptx` (built by `nvcc -ptx`), if present.
pub fn load_twin(
    gpu: &Gpu,
    dir: Option<&Path>,
    name: &str,
) -> Result<Option<Module>, cg_host::Error> {
    let Some(dir) = dir else { return Ok(None) };
    let path = dir.join(format!("{name}.ptx"));
    if !path.exists() {
        return Ok(None);
    }
    Module::from_ptx_file(gpu, &path).map(Some)
}

/// Median milliseconds of `a` and of `b`, timed alternately `runs` times
/// each after `warmup` runs of each.
pub fn time_pair(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut a: impl FnMut() -> Result<(), cg_host::Error>,
    mut b: Option<&mut dyn FnMut() -> Result<(), cg_host::Error>>,
) -> Result<(f64, Option<f64>), cg_host::Error> {
    let timer = EventTimer::new(gpu)?;
    for _ in 0..warmup {
        a()?;
        if let Some(b) = b.as_mut() {
            b()?;
        }
    }
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ta.push(timer.time(&mut a)?);
        if let Some(b) = b.as_mut() {
            tb.push(timer.time(&mut **b)?);
        }
    }
    let mb = if tb.is_empty() {
        None
    } else {
        Some(cg_host::median(&mut tb))
    };
    Ok((cg_host::median(&mut ta), mb))
}

/// Device-to-device copy bandwidth in GB/s (bytes read plus bytes written),
/// the ceiling a memory-bound kernel is measured against.
pub fn copy_bandwidth(gpu: &Gpu, bytes: usize, runs: usize) -> Result<f64, cg_host::Error> {
    let src = gpu.filled(bytes / 4, 1.0f32)?;
    let mut dst = gpu.filled(bytes / 4, 0.0f32)?;
    let timer = EventTimer::new(gpu)?;
    let ms = timer.median_ms(3, runs, || dst.copy_from_device(&src))?;
    Ok(2.0 * bytes as f64 / (ms * 1e-3) / 1e9)
}

/// One row of a result table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Experiment.
    pub name: String,
    /// Problem size, as printed.
    pub size: String,
    /// Rust kernel, microseconds.
    pub rust_us: f64,
    /// CUDA C++ twin, microseconds.
    pub cuda_us: Option<f64>,
    /// Bytes the kernel must move at least (for GB/s).
    pub bytes: f64,
    /// Whether every result was checked and right.
    pub verified: bool,
}

impl Row {
    /// Rust time over CUDA C++ time.
    pub fn ratio(&self) -> Option<f64> {
        self.cuda_us.map(|c| self.rust_us / c)
    }
}

/// The rows as a fixed-width table.
pub fn table(device: &str, rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "device: {device}");
    let _ = writeln!(
        s,
        "{:<28} {:>10} {:>11} {:>12} {:>10} {:>10}  result",
        "experiment", "size", "Rust us", "CUDA C++ us", "Rust/C++", "Rust GB/s"
    );
    for r in rows {
        let cuda = r.cuda_us.map_or("-".into(), |c| format!("{c:.2}"));
        let ratio = r.ratio().map_or("-".into(), |x| format!("{x:.3}"));
        let gbs = r.bytes / (r.rust_us * 1e-6) / 1e9;
        let ok = if r.verified { "verified" } else { "FAILED" };
        let _ = writeln!(
            s,
            "{:<28} {:>10} {:>11.2} {:>12} {:>10} {:>10.0}  {ok}",
            r.name, r.size, r.rust_us, cuda, ratio, gbs
        );
    }
    s
}

/// `2^k` for sizes that are powers of two, else the number.
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}
