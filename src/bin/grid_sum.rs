//! The main sample: the whole-array sum in one cooperative kernel with
//! `grid.sync()` (and four other ways, with CUB), each result checked
//! against a float64 sum, timed beside its CUDA C++ twin built by nvcc
//! (kernels/cuda/kernels.cu) in the same process.
//!
//! ```text
//! cargo run --release --bin grid_sum [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//! ```
//!
//! Exits 2 when there is no GPU, 1 when a result is wrong.

use cg_samples::bench;
use cg_samples::experiments::reductions;
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let sizes = b.opts.sizes();
        reductions::array_sums(b, sizes)
    })
}
