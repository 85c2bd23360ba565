//! The seed guide's experiments, each checked and timed beside its CUDA C++
//! twin: block reductions, whole-array sums, barrier costs, Jacobi, the
//! seed's other patterns, thread-block clusters, and asynchronous copies;
//! Jacobi on several GPUs; and the device-wide primitives beside CUB.

pub mod async_copy;
pub mod barriers;
pub mod clusters;
pub mod jacobi;
pub mod jacobi_multi;
pub mod jacobi_nccl;
pub mod patterns;
pub mod primitives;
pub mod reductions;
