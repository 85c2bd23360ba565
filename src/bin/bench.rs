//! Every experiment in one run: block reductions, whole-array sums (with
//! CUB), barrier costs, Jacobi, the other patterns and clusters, each beside
//! its CUDA C++ twin.
//!
//! ```text
//! cargo run --release --bin bench [-- --twins DIR] [--runs N] [--json FILE] [--quick]
//!     [--only block_reductions|array_sums|barriers|jacobi|patterns|clusters|async_copies]
//! ```

use cooperative_groups::bench::{Bench, Options};
use cooperative_groups::experiments::{
    async_copy, barriers, clusters, jacobi, patterns, reductions,
};
use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = Options::from_args();
    let (sizes, shapes): (&[u32], &[(u32, u32, u32)]) = if opts.quick {
        (&[20], &[(256, 256, 50)])
    } else {
        (&[24, 28], &[(4096, 4096, 100), (512, 512, 1000)])
    };
    // The async-copy guide's arrays: 2^26 and 2^28 elements.
    let copies: &[u32] = if opts.quick { &[20] } else { &[26, 28] };
    let run = || -> Result<bool, cg_host::Error> {
        let mut b = Bench::open(opts.clone())?;
        if b.wants("block_reductions") {
            reductions::block_reductions(&mut b, sizes)?;
        }
        if b.wants("array_sums") {
            reductions::array_sums(&mut b, sizes)?;
        }
        if b.wants("barriers") {
            barriers::barrier_costs(&mut b)?;
        }
        if b.wants("jacobi") {
            jacobi::jacobi(&mut b, shapes)?;
        }
        if b.wants("patterns") {
            patterns::patterns(&mut b, &sizes[..1])?;
        }
        if b.wants("clusters") {
            clusters::clusters(&mut b, sizes)?;
        }
        if b.wants("async_copies") {
            async_copy::async_copies(&mut b, copies)?;
        }
        b.finish()
    };
    cooperative_groups::bench::exit(run())
}
