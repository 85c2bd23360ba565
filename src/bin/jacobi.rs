//! Jacobi: a persistent cooperative kernel against one launch per sweep
//! (and a CUDA graph of those launches), beside the CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin jacobi [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::jacobi;
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let shapes: &[(u32, u32, u32)] = if opts.quick {
        &[(256, 256, 50)]
    } else {
        &[(4096, 4096, 100), (512, 512, 1000)]
    };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        jacobi::jacobi(&mut b, shapes)?;
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
