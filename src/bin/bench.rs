//! Every experiment in one run: block reductions, whole-array sums (with
//! CUB), barrier costs, Jacobi, the other patterns and clusters, each beside
//! its CUDA C++ twin.
//!
//! ```text
//! cargo run --release --bin bench [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//!     [--only block_reductions|array_sums|barriers|jacobi|patterns|clusters|async_copies|primitives]
//! ```

use cg_samples::bench;
use cg_samples::experiments::{
    async_copy, barriers, clusters, jacobi, patterns, primitives, reductions,
};
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::run(|b| {
        let (sizes, shapes, copies) = (b.opts.sizes(), b.opts.jacobi_shapes(), b.opts.copy_sizes());
        if b.wants("block_reductions") {
            reductions::block_reductions(b, sizes)?;
        }
        if b.wants("array_sums") {
            reductions::array_sums(b, sizes)?;
        }
        if b.wants("barriers") {
            barriers::barrier_costs(b)?;
        }
        if b.wants("jacobi") {
            jacobi::jacobi(b, shapes)?;
        }
        if b.wants("patterns") {
            patterns::patterns(b, &sizes[..1])?;
        }
        if b.wants("clusters") {
            clusters::clusters(b, sizes)?;
        }
        if b.wants("async_copies") {
            async_copy::async_copies(b, copies)?;
        }
        if b.wants("primitives") {
            primitives::primitives(b, b.opts.primitive_sizes())?;
        }
        Ok(())
    })
}
