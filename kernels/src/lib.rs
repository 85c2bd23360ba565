//! The project's kernels: samples and the kernels behind the GPU tests.
//! Each `#[kernel]` here gets a typed host handle in
//! `cooperative_groups::kernels`.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch)]

pub mod api;
pub mod block_reduce;
pub mod grid_sum;
pub mod probes;
