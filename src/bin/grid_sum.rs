//! The main sample: a whole-array sum in one cooperative kernel with
//! `grid.sync()`, checked against a float64 reference and timed beside its
//! CUDA C++ twin (bench/grid_sum.cu, built by nvcc) in the same process.
//!
//! ```text
//! cargo run --release --bin grid_sum [-- --twins DIR] [--runs N] [--max-log2 K]
//! ```
//!
//! Exits non-zero when there is no GPU or a result is wrong.

use cg_host::{Error, Gpu, LaunchKind};
use cooperative_groups::bench::{self, Row};
use cooperative_groups::kernels::{GridSum, Kernels};
use rand::Rng;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("grid_sum: a result was wrong (FAILED above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("grid_sum: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, Error> {
    let args: Vec<String> = std::env::args().collect();
    let runs = bench::arg(&args, "--runs", 50usize);
    let max_log2 = bench::arg(&args, "--max-log2", 28u32);
    let gpu = Gpu::new(0)?;
    let info = gpu.info().clone();
    let k = Kernels::load(&gpu)?;
    let twins = bench::twins_dir(&args);
    let twin = match bench::load_twin(&gpu, twins.as_deref(), "grid_sum")? {
        // SAFETY: bench/grid_sum.cu declares grid_sum(const float*, unsigned
        // long long, float*, float*): the PTX parameters of our grid_sum.
        Some(m) => Some(unsafe {
            GridSum::from_function(m.function("grid_sum", LaunchKind::Cooperative)?)
        }),
        None => {
            println!(
                "(no CUDA C++ twin: build bench/grid_sum.cu with nvcc -ptx and pass --twins DIR)"
            );
            None
        }
    };
    let threads = 256;
    let cfg = k.grid_sum.function().cooperative_config(threads, 0)?;
    println!(
        "{} (sm_{}, {} SMs, L2 {} MB): cooperative grid of {} blocks x {threads} threads",
        info.name,
        info.sm,
        info.multiprocessors,
        info.l2_bytes >> 20,
        cfg.grid.x
    );
    let copy = bench::copy_bandwidth(&gpu, 1 << 30, 20)?;
    println!("device-to-device copy: {copy:.0} GB/s (read + write, 1 GiB)");
    let mut rows = Vec::new();
    let mut rng = rand::rng();
    for log2 in [24u32, 28].into_iter().filter(|&l| l <= max_log2) {
        let n = 1usize << log2;
        let values: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let input = gpu.upload(&values)?;
        let mut partials = gpu.filled(cfg.grid.x as usize, f32::NAN)?;
        let mut out = gpu.filled(1, f32::NAN)?;
        let mut twin_partials = gpu.filled(cfg.grid.x as usize, f32::NAN)?;
        let mut twin_out = gpu.filled(1, f32::NAN)?;
        let exact: f64 = values.iter().map(|&v| v as f64).sum();
        let magnitude: f64 = values.iter().map(|&v| (v as f64).abs()).sum();
        let close =
            |got: f32| ((got as f64) - exact).abs() <= magnitude * 64.0 * f32::EPSILON as f64;
        let (rust_ms, cuda_ms) = {
            let mut rust = || k.grid_sum.launch(cfg, &input, &mut partials, &mut out);
            let (input, p, o) = (&input, &mut twin_partials, &mut twin_out);
            let mut cuda = twin.as_ref().map(|t| move || t.launch(cfg, input, p, o));
            let cuda: Option<&mut dyn FnMut() -> Result<(), Error>> = cuda.as_mut().map(|f| f as _);
            bench::time_pair(&gpu, 5, runs, &mut rust, cuda)?
        };
        let rust_got = out.to_vec()?[0];
        let mut verified = close(rust_got);
        println!("n = 2^{log2}: Rust sum {rust_got}, float64 reference {exact}");
        if twin.is_some() {
            let cuda_got = twin_out.to_vec()?[0];
            println!("n = 2^{log2}: CUDA C++ sum {cuda_got}");
            verified &= close(cuda_got);
        }
        rows.push(Row {
            name: "grid_sum (cooperative)".into(),
            size: bench::size_label(n),
            rust_us: rust_ms * 1e3,
            cuda_us: cuda_ms.map(|m| m * 1e3),
            bytes: 4.0 * n as f64,
            verified,
        });
    }
    println!("\n{}", bench::table(&info.name, &rows));
    Ok(rows.iter().all(|r| r.verified))
}
