//! The async-copy guide's kernels: vector addition through shared memory by
//! hand, with `memcpy_async`, on a block barrier and through pipelines, and
//! the pipelined "in between" kernel, beside their CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin async_copy [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::async_copy;
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let sizes: &[u32] = if opts.quick { &[20] } else { &[26, 28] };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        async_copy::async_copies(&mut b, sizes)?;
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
