//! Thread-block clusters (sm_90): neighbour sum, cluster reduction and a
//! cluster-wide histogram, beside their CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin clusters [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//! ```

use cg_samples::bench;
use cg_samples::experiments::clusters;
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let sizes = b.opts.sizes();
        clusters::clusters(b, sizes)
    })
}
