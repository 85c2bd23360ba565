//! Draws the benchmark's bar chart from the JSON that `bench --json` wrote
//! (for a machine where the benchmark ran without a font):
//!
//! ```text
//! cargo run --release --bin plot -- bench.json bench.png
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [json, png] = args.as_slice() else {
        eprintln!("usage: plot BENCH.json OUT.png");
        return ExitCode::from(2);
    };
    let result = cg_samples::results::rows_from_json(json)
        .and_then(|(device, rows)| cg_samples::plot::bar_chart(&device, &rows, png));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plot: {e}");
            ExitCode::FAILURE
        }
    }
}
