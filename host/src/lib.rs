//! CUDA Cooperative Groups in Rust: the host side. Kernels are written in a
//! `#![no_std]` kernel crate with `cg-core`; this crate launches them, and
//! with its `build` feature ([`build`]) compiles them to PTX from `build.rs`
//! and generates one typed launch handle per `#[kernel]`:
//!
//! ```toml
//! [dependencies]
//! cooperative-groups = "0.1"
//! [build-dependencies]
//! cooperative-groups = { version = "0.1", features = ["build"] }
//! ```
//!
//! The runtime, over cudarc's safe layer:
//!
//! ```text
//! Gpu ──load_module(&PtxSet)──▶ Module ──function(name, kind)──▶ Function ──launch──▶ stream
//!  └── upload / alloc ──▶ DeviceBuffer<T: Pod>
//! ```
//!
//! Most code never touches [`Module`] or [`Function`] directly: `cg-builder`
//! generates a typed handle per `#[kernel]` whose `launch` takes exactly the
//! kernel's parameters and launches the way the kernel declared
//! (cooperatively for `#[kernel(cooperative)]`). Every failure is an
//! [`Error`] that says what happened and what to do; nothing panics on a
//! missing driver, a missing device or a bad launch.
//!
//! Several GPUs of one machine work together through a [`GpuSet`]: peer
//! access between them (a kernel may take another GPU's buffers), and
//! [`GpuSet::launch`] for `#[kernel(multi_grid)]` kernels, one grid per GPU
//! with `multi_grid.sync()` across them. With the `nccl` feature,
//! `cooperative_groups::nccl` moves data between GPUs (and processes, and
//! machines) over NCCL, in order with the GPU's kernels or beside them
//! (`nccl::Overlap`, the buffers borrowed until the transfers finish).
//!
//! Without a GPU, `Gpu::simulator()` (the `sim` feature) is a device that
//! runs the same kernels on the CPU with CUDA's semantics, through the same
//! handles, buffers and launch checks: see the `simulator` module.
//!
//! A kernel that panics is reported as a Rust panic is, with its file, line,
//! block and thread ([`Error::KernelPanic`]). The fault loses the GPU's
//! context, and every later call says so ([`Error::ContextLost`]);
//! [`Gpu::reset`] opens a new context where the driver allows the process
//! to recover (the drivers measured here do not).
#![warn(missing_docs)]

pub mod args;
mod buffer;
mod context;
mod error;
mod fault;
mod gpu;
mod gpu_set;
mod grid_barrier;
mod indices;
pub mod launch;
mod module;
#[cfg(feature = "nccl")]
pub mod nccl;
#[cfg(feature = "sim")]
pub mod simulator;
mod strings;
pub mod testing;
mod timing;
mod uses;

pub use buffer::DeviceBuffer;
/// What a buffer's element type must be (`#[derive(Pod, Zeroable)]` on a
/// `#[repr(C)]` struct of your own): bytemuck's traits, re-exported.
pub use bytemuck::{Pod, Zeroable};
pub use error::Error;
pub use gpu::{driver_present, DeviceInfo, Gpu, Graph};
pub use gpu_set::{GpuSet, MultiGridMember};
pub use grid_barrier::{GridBarrierPlace, PlaceChoice};
pub use indices::{IndexBuffer, IndexValue};
pub use launch::{Dim3, LaunchConfig, LaunchKind};
pub use module::{Function, Module, Ptx, PtxSet};
pub use timing::{median, EventTimer};

/// The kernel builder, for `build.rs` (the `build` feature): compiles a
/// kernel crate to PTX and generates its typed launch handles. See
/// [`build::KernelBuild`].
#[cfg(feature = "build")]
pub use cg_builder as build;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
