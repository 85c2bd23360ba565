//! Reductions: block reductions three ways, whole-array sums five ways
//! (with CUB), barrier costs, and the other patterns (divergent-branch
//! reduction, per-category sums, cooperative prefix sum), each beside its
//! CUDA C++ twin.
//!
//! ```text
//! cargo run --release --bin reduce [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::{barriers, patterns, reductions};
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let sizes: &[u32] = if opts.quick { &[20] } else { &[24, 28] };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        reductions::block_reductions(&mut b, sizes)?;
        reductions::array_sums(&mut b, sizes)?;
        barriers::barrier_costs(&mut b)?;
        patterns::patterns(&mut b, &sizes[..1])?;
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
