//! Jacobi: a persistent cooperative kernel (a grid barrier per sweep, or
//! several sweeps in shared memory per grid barrier) against one launch
//! per sweep (and a CUDA graph of those launches), beside the CUDA C++
//! twins; with
//! `--gpus N`, the field split over N GPUs (a multi-grid kernel with peer
//! memory, and launches with an NCCL halo exchange) against one GPU; with
//! `--nccl-process`, one rank of the NCCL method, one process per GPU.
//!
//! ```text
//! cargo run --release --bin jacobi [-- --twins DIR] [--runs N] [--json FILE] [--quick] [--sim]
//! cargo run --release --bin jacobi -- --gpus N [--runs N] [--json FILE] [--quick]
//! CG_NCCL_RANK=r CG_NCCL_RANKS=n CG_NCCL_ID_FILE=path cargo run --release --bin jacobi -- --nccl-process
//! ```

use cg_samples::bench::{self, Options};
use cg_samples::experiments::{jacobi, jacobi_multi, jacobi_nccl};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let gpus = args
        .windows(2)
        .find(|w| w[0] == "--gpus")
        .map(|w| w[1].parse::<usize>());
    let multi = match gpus {
        Some(Ok(n)) => Some(jacobi_multi::multi_gpu(&Options::from_args(), n)),
        Some(Err(_)) => {
            eprintln!("--gpus takes a number of GPUs (0: every GPU)");
            return ExitCode::from(2);
        }
        None if args.iter().any(|a| a == "--nccl-process") => {
            Some(jacobi_nccl::nccl_process(&Options::from_args()))
        }
        None => None,
    };
    match multi {
        Some(result) => bench::exit(result),
        None => bench::run(|b| {
            let shapes = b.opts.jacobi_shapes();
            jacobi::jacobi(b, shapes)
        }),
    }
}
