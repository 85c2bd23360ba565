//! The corpus kernels, one file each, written from the README and the API
//! docs. An ordinary `no_std` library: the host crate's build.rs compiles
//! it to PTX and gives every `#[kernel]` a typed launch handle.
#![no_std]

pub mod black_scholes;
pub mod block_sum;
pub mod compact;
pub mod exclusive_scan;
pub mod gelu;
pub mod histogram;
pub mod jacobi_step;
pub mod row_normalize;
pub mod saxpy;
pub mod softmax;
pub mod spmv_csr;
pub mod transpose;
pub mod transpose_v2;
