//! Reductions: block reductions three ways, whole-array sums five ways
//! (with CUB), barrier costs, and the other patterns (divergent-branch
//! reduction, per-category sums, cooperative prefix sum), each beside its
//! CUDA C++ twin.
//!
//! ```text
//! cargo run --release --bin reduce [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//! ```

use cg_samples::bench;
use cg_samples::experiments::{barriers, patterns, reductions};
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let sizes = b.opts.sizes();
        reductions::block_reductions(b, sizes)?;
        reductions::array_sums(b, sizes)?;
        barriers::barrier_costs(b)?;
        patterns::patterns(b, &sizes[..1])
    })
}
