//! Thread-block clusters (sm_90): neighbour sum, cluster reduction and a
//! cluster-wide histogram, beside their CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin clusters [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::clusters;
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let sizes: &[u32] = if opts.quick { &[20] } else { &[24, 28] };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        clusters::clusters(&mut b, sizes)?;
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
