//! Draws the benchmark's bar chart from the JSON that `bench --json` wrote
//! (for a machine where the benchmark ran without a font) and, given a
//! third path, writes the results page (`docs/results.md`) from the same
//! run:
//!
//! ```text
//! cargo run --release --bin plot -- bench.json bench.png [results.md]
//! ```
//!
//! The page links the chart by its path relative to the page's folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let (json, png, page) = match args.as_slice() {
        [json, png] => (json, png, None),
        [json, png, page] => (json, png, Some(page)),
        _ => {
            eprintln!("usage: plot BENCH.json OUT.png [RESULTS.md]");
            return ExitCode::from(2);
        }
    };
    let result = cg_samples::results::run_from_json(json).and_then(|run| {
        cg_samples::plot::bar_chart(&run.device, &run.rows, png)?;
        let Some(page) = page else { return Ok(()) };
        let folder = page.parent().unwrap_or(Path::new(""));
        let chart = png.strip_prefix(folder).unwrap_or(png);
        let text = cg_samples::results::results_page(
            &run,
            &json.display().to_string(),
            &chart.display().to_string(),
        );
        std::fs::write(page, text).map_err(|e| format!("writing {}: {e}", page.display()))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plot: {e}");
            ExitCode::FAILURE
        }
    }
}
