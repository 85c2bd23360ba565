//! Every experiment in one run: block reductions, whole-array sums (with
//! CUB), barrier costs, Jacobi, the other patterns and clusters, each beside
//! its CUDA C++ twin.
//!
//! ```text
//! cargo run --release --bin bench [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::{barriers, clusters, jacobi, patterns, reductions};
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let (sizes, shapes): (&[u32], &[(u32, u32, u32)]) = if opts.quick {
        (&[20], &[(256, 256, 50)])
    } else {
        (&[24, 28], &[(4096, 4096, 100), (512, 512, 1000)])
    };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        reductions::block_reductions(&mut b, sizes)?;
        reductions::array_sums(&mut b, sizes)?;
        barriers::barrier_costs(&mut b)?;
        jacobi::jacobi(&mut b, shapes)?;
        patterns::patterns(&mut b, &sizes[..1])?;
        clusters::clusters(&mut b, sizes)?;
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
