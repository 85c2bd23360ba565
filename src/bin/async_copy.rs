//! The async-copy guide's kernels: vector addition through shared memory by
//! hand, with `memcpy_async`, on a block barrier and through pipelines, and
//! the pipelined "in between" kernel, beside their CUDA C++ twins.
//!
//! ```text
//! cargo run --release --bin async_copy [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//! ```

use cg_samples::bench;
use cg_samples::experiments::async_copy;
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let sizes = b.opts.copy_sizes();
        async_copy::async_copies(b, sizes)
    })
}
