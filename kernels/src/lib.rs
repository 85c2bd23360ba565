//! The project's kernels: samples and the kernels behind the GPU tests.
//! Each `#[kernel]` here gets a typed host handle in
//! `cooperative_groups::kernels`.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch)]

pub mod api;
pub mod async_copy;
pub mod barrier_cost;
pub mod block_reduce;
#[cfg(target_feature = "sm_90")]
pub mod cluster;
pub mod faults;
pub mod grid_sum;
pub mod harness;
pub mod histogram;
pub mod jacobi;
pub mod patterns;
pub mod planted;
pub mod probes;
pub mod readme;
