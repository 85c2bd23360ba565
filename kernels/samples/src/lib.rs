//! The samples' kernels: block reductions, whole-array sums, Jacobi,
//! asynchronous copies, thread-block clusters, histograms, the seed guide's
//! other patterns, the README's example, and the benchmark harness's two
//! helper kernels. Each `#[kernel]` here gets a typed host handle in
//! `cg_samples::kernels`.
#![no_std]

pub mod async_copy;
pub mod barrier_cost;
pub mod block_reduce;
// sm_90 on the GPU; on the host (the simulator) always.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub mod cluster;
pub mod grid_sum;
pub mod guide;
pub mod harness;
pub mod histogram;
pub mod jacobi;
pub mod patterns;
pub mod readme;
mod select;
