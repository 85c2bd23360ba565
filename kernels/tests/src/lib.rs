//! The kernels behind the GPU tests: the API probes compared with CUDA
//! (`api`), the foundation probes, the safe output patterns beside their
//! raw-pointer forms (`outputs`), the planted bugs the sanitizers must
//! catch, the kernels that fault on purpose, a kernel that outlasts the
//! host's next call (`peer`), the races of the output patterns that the
//! simulator must catch (`races`), kernels that print (`print`), and a
//! transpose that reads through a `Matrix` (`matrix`). Each `#[kernel]`
//! here gets a typed host handle in `cg_tests::kernels`.
#![no_std]

pub mod api;
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub mod cluster_probes;
pub mod faults;
pub mod grid_collectives;
pub mod grid_select;
pub mod half;
pub mod loops;
pub mod math;
pub mod matrix;
pub mod multi_grid;
pub mod outputs;
pub mod peer;
pub mod planted;
pub mod print;
pub mod probes;
pub mod races;
