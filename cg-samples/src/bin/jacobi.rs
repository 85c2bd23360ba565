//! Jacobi: a persistent cooperative kernel against one launch per sweep
//! (and a CUDA graph of those launches), beside the CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin jacobi [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cg_samples::bench;
use cg_samples::experiments::jacobi;
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let shapes = b.opts.jacobi_shapes();
        jacobi::jacobi(b, shapes)
    })
}
