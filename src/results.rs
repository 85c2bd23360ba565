//! The measured rows of a benchmark run: times with their spread, the
//! fixed-width table, and the JSON the chart is drawn from.

use std::fmt::Write as _;
use std::path::Path;

/// The times of one kernel over many runs: median and spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median, milliseconds.
    pub ms: f64,
    /// 10th percentile, milliseconds.
    pub p10_ms: f64,
    /// 90th percentile, milliseconds.
    pub p90_ms: f64,
}

impl Timing {
    /// The median and the 10th/90th percentiles of `times` (milliseconds).
    pub fn of(times: &mut [f64]) -> Timing {
        let ms = cooperative_groups::median(times);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        Timing {
            ms,
            p10_ms: at(0.1),
            p90_ms: at(0.9),
        }
    }

    /// A single value with no spread (derived figures such as per-barrier
    /// costs).
    pub fn exact(ms: f64) -> Timing {
        Timing {
            ms,
            p10_ms: ms,
            p90_ms: ms,
        }
    }

    /// `(p90 - p10) / median`: the run-to-run spread.
    pub fn spread(&self) -> f64 {
        (self.p90_ms - self.p10_ms) / self.ms
    }
}

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
    /// `(p90 - p10) / median` of the Rust times and of the CUDA C++ times.
    pub spread: (Option<f64>, Option<f64>),
}

impl Row {
    /// A kernel row: times in milliseconds (as `Bench::time_pair` gives
    /// them), shown in microseconds, with the bytes the kernel must move.
    pub fn timed(
        name: &str,
        size: &str,
        rust: Timing,
        cuda: Option<Timing>,
        bytes: f64,
        verified: bool,
    ) -> Row {
        Row {
            name: name.into(),
            size: size.into(),
            rust: rust.ms * 1e3,
            cuda: cuda.map(|c| c.ms * 1e3),
            library: None,
            unit: "us",
            bytes: Some(bytes),
            verified,
            spread: (Some(rust.spread()), cuda.map(|c| c.spread())),
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

/// Writes `rows` as JSON (what [`rows_from_json`] reads), with the device
/// and the copy bandwidth of the run.
pub fn write_json(
    path: &Path,
    device: &str,
    copy_gbps: Option<f64>,
    rows: &[Row],
) -> std::io::Result<()> {
    let rows: Vec<_> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "experiment": r.name, "size": r.size, "unit": r.unit, "bytes": r.bytes,
                "rust": r.rust, "cuda": r.cuda, "library": r.library,
                "ratio": r.ratio(), "rust_gbps": r.gbps(), "verified": r.verified,
                "rust_spread": r.spread.0, "cuda_spread": r.spread.1,
            })
        })
        .collect();
    let doc = serde_json::json!({ "device": device, "copy_gbps": copy_gbps, "rows": rows });
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap_or_default())
}

/// A benchmark run as `--json` wrote it.
#[derive(Clone, Debug)]
pub struct Run {
    /// The device, as the run named it.
    pub device: String,
    /// The device-to-device copy rate of the run (GB/s), when measured.
    pub copy_gbps: Option<f64>,
    /// The rows, in the run's order.
    pub rows: Vec<Row>,
}

/// Reads a run written by `--json`.
pub fn run_from_json(path: &Path) -> Result<Run, String> {
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
            spread: (r["rust_spread"].as_f64(), r["cuda_spread"].as_f64()),
        })
        .collect();
    Ok(Run {
        device: doc["device"].as_str().unwrap_or("").into(),
        copy_gbps: doc["copy_gbps"].as_f64(),
        rows,
    })
}

/// Reads rows written by `--json` (device name and rows).
pub fn rows_from_json(path: &Path) -> Result<(String, Vec<Row>), String> {
    run_from_json(path).map(|run| (run.device, run.rows))
}

/// The rows as a fixed-width table: times with their spread ((p90 - p10)
/// / median, in percent), the ratio to CUDA C++, and the Rust rate as GB/s
/// and as a share of `copy_gbps`, the device-to-device copy of the same run.
pub fn table(device: &str, rows: &[Row], copy_gbps: Option<f64>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "device: {device}");
    if let Some(c) = copy_gbps {
        let _ = writeln!(
            s,
            "device-to-device copy: {c:.0} GB/s (read + write, 1 GiB)"
        );
    }
    let _ = writeln!(
        s,
        "{:<44} {:>8} {:>4} {:>10} {:>5} {:>10} {:>5} {:>10} {:>8} {:>9} {:>6}  result",
        "experiment",
        "size",
        "unit",
        "Rust",
        "+-%",
        "CUDA C++",
        "+-%",
        "CUB",
        "Rust/C++",
        "Rust GB/s",
        "%copy"
    );
    let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
    for r in rows {
        let ok = if r.verified { "verified" } else { "FAILED" };
        let share = r.gbps().zip(copy_gbps).map(|(g, c)| 100.0 * g / c);
        let _ = writeln!(
            s,
            "{:<44} {:>8} {:>4} {:>10.2} {:>5} {:>10} {:>5} {:>10} {:>8} {:>9} {:>6}  {ok}",
            r.name,
            r.size,
            r.unit,
            r.rust,
            opt(r.spread.0.map(|x| 100.0 * x), 1),
            opt(r.cuda, 2),
            opt(r.spread.1.map(|x| 100.0 * x), 1),
            opt(r.library, 2),
            opt(r.ratio(), 3),
            opt(r.gbps(), 0),
            opt(share, 0),
        );
    }
    s
}

/// The results page (`docs/results.md`): where the run came from, the table
/// of every row in Markdown, the chart (`chart`, a path relative to the
/// page), and the rows where Rust is more than 1% slower than its CUDA C++
/// baseline, listed again so that they cannot be missed.
pub fn results_page(run: &Run, source: &str, chart: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Results\n");
    let _ = writeln!(
        s,
        "Generated by `cargo run --release --bin plot -- {source} <chart> docs/results.md` \
         from the JSON of the last full benchmark run (`bench --json`); do not edit by hand. \
         How the benchmark measures (launch latency hidden, inputs larger than L2 and \
         rotated, median of the runs and the 10th-90th percentile spread) is in the guide's \
         performance chapter.\n"
    );
    let _ = writeln!(s, "Device: **{}**.", run.device);
    if let Some(c) = run.copy_gbps {
        let _ = writeln!(
            s,
            "Device-to-device copy in the same run: {c:.0} GB/s (read + write), the ceiling the \
             rates are shown against."
        );
    }
    let _ = writeln!(s, "\n![Rust and CUDA C++ rates]({chart})\n");
    let _ = writeln!(
        s,
        "| experiment | size | Rust | +-% | CUDA C++ | +-% | CUB | Rust / C++ | Rust GB/s | result |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
    for r in &run.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name.replace('|', "\\|"),
            r.size,
            r.rust,
            r.unit,
            opt(r.spread.0.map(|x| 100.0 * x), 1),
            opt(r.cuda, 2),
            opt(r.spread.1.map(|x| 100.0 * x), 1),
            opt(r.library, 2),
            opt(r.ratio(), 3),
            opt(r.gbps(), 0),
            if r.verified { "verified" } else { "**FAILED**" },
        );
    }
    let slower: Vec<&Row> = run
        .rows
        .iter()
        .filter(|r| r.ratio().is_some_and(|q| q > 1.01))
        .collect();
    let _ = writeln!(s, "\n## Where Rust is slower\n");
    if slower.is_empty() {
        let _ = writeln!(
            s,
            "No row is more than 1% slower than its CUDA C++ baseline."
        );
    } else {
        for r in slower {
            let _ = writeln!(
                s,
                "- {} ({}): {:.3} of the CUDA C++ time",
                r.name,
                r.size,
                r.ratio().unwrap_or(f64::NAN)
            );
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_results_page_lists_every_row_and_the_slower_ones_again() {
        let t = |ms| Timing::exact(ms);
        let run = Run {
            device: "NVIDIA H200".into(),
            copy_gbps: Some(4000.0),
            rows: vec![
                Row::timed("sum | a", "2^24", t(0.1), Some(t(0.1)), 6.7e7, true),
                Row::timed("scan", "2^28", t(1.1), Some(t(1.0)), 2.1e9, false),
            ],
        };
        let page = results_page(&run, "bench.json", "results/bench.png");
        assert!(page.contains("Device: **NVIDIA H200**."));
        assert!(page.contains("| sum \\| a | 2^24 | 100.00 us |"));
        assert!(page.contains("| scan | 2^28 | 1100.00 us |"));
        assert!(page.contains("**FAILED**"));
        assert!(page.contains("![Rust and CUDA C++ rates](results/bench.png)"));
        let slower = page.split("## Where Rust is slower").nth(1).unwrap();
        assert!(slower.contains("- scan (2^28): 1.100 of the CUDA C++ time"));
        assert!(!slower.contains("sum"));
    }
}
