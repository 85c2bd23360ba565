//! CUDA Cooperative Groups for Rust kernels.
//!
//! ```text
//! GridGroup                this_grid()                          all blocks of a launch
//! └─ ThreadBlock           this_thread_block()                  one block (CTA)
//!    ├─ ThreadBlockTile<N> tiled_partition::<N>(&parent)        N = 1, 2, 4, 8, 16, 32
//!    ├─ MultiWarpTile<N>   tiled_partition::<N>(&parent)        N = 64, 128, 256, 512
//!    ├─ DynamicTile        tiled_partition_dynamic(&parent, n)  n chosen at run time
//!    └─ CoalescedGroup     coalesced_threads(),                 any lanes of one warp
//!                          labeled_partition, binary_partition
//! ```
//!
//! In the order of the CUDA Programming Guide's chapter:
//!
//! * group types and their queries: [`block`], [`tile`], [`coalesced`],
//!   [`grid`], and the traits they share in [`group`]
//!   ([`ThreadGroup`](group::ThreadGroup), free [`sync`](group::sync));
//! * warp-level operations on tiles and coalesced groups
//!   ([`WarpGroup`](group::WarpGroup):
//!   `shfl`, `shfl_up`, `shfl_down`, `shfl_xor` on tiles, `any`, `all`,
//!   `ballot`, `match_any`, `match_all`), for any [`Pod`] value of at most
//!   32 bytes ([`shuffle`]);
//! * collectives: [`collectives`] (`reduce`, `inclusive_scan`,
//!   `exclusive_scan`, `invoke_one`) and, block-wide over scratch the
//!   caller declares, [`block_collectives`] (`block_scratch!`,
//!   `block_reduce`, `block_reduce_to_first`, `block_inclusive_scan`,
//!   `block_exclusive_scan`: CUB's `BlockReduce` and `BlockScan`) and,
//!   grid-wide in a cooperative kernel, [`grid_collectives`]
//!   (`grid_scratch!`, `grid_reduce`, `grid_exclusive_scan`,
//!   `grid_inclusive_scan`: a decoupled look-back with a fixed order);
//! * shared memory: [`shared`] (static arrays, the dynamic region);
//! * kernel outputs written without `unsafe`: [`output`] (`Output`,
//!   `Synced` and the patterns that hand each element to one thread);
//!   atomics and fences: [`atomic`]; CUDA's math library with std's method
//!   names (`x.exp()`, `x.sin()`, ... through
//!   [`FloatMath`](math::FloatMath)), the fast intrinsics
//!   ([`math::fast`]) and the explicit fused multiply-add: [`math`];
//!   half precision (`f16`, `bf16` and their pairs through PTX's
//!   half-precision instructions): [`half`];
//! * printing from a kernel: [`println!`] and [`print!`] (CUDA's `printf`,
//!   with Rust's format syntax; the formats in [`mod@print`]);
//! * asynchronous copies to shared memory: [`memcpy_async`] (`memcpy_async`,
//!   `wait`, `wait_prior`), the block-scope [`barrier`] they can complete
//!   on, and the multi-stage [`pipeline`].
//!
//! ```ignore
//! use cg_core::prelude::*;
//!
//! #[kernel]
//! pub fn count_positive(input: &[f32], mut out: Output<u32>) {
//!     let block = this_thread_block();
//!     let tile = tiled_partition::<16>(&block);
//!     let i = this_grid().thread_rank() as usize;
//!     let positive = (i < input.len() && input[i] > 0.0) as u32;
//!     let n = reduce(&tile, positive, Plus);          // redux.sync.add.u32
//!     out.for_leader(&tile, |count| *count = n);      // one element per tile
//! }
//! ```
//!
//! The names follow the CUDA Programming Guide's Cooperative Groups chapter,
//! so the guide reads as this crate's manual. Every operation is an
//! `#[inline(always)]` wrapper over one PTX instruction (or a short fixed
//! sequence); the raw instructions live in one crate-private module
//! (`intrinsics`), the only one with inline assembly. They are `unsafe`
//! where PTX leaves them undefined (a member mask that does not hold the
//! caller, an address that is not valid). The group types, whose traits are
//! sealed, call them with masks that hold the caller by construction, so
//! their operations are safe under the rule CUDA's have too: every member
//! of a group calls each of its collective operations together.
//!
//! Kernels are written with [`kernel`] and compiled to PTX by `cg-builder`.
//! The whole crate also compiles on other targets, for documentation, lints
//! and the unit tests of its lane arithmetic, and so that host crates can
//! check kernel signatures; there every instruction panics
//! (`cg-core: ... runs only on the GPU`).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, stdarch_nvptx, core_float_math)
)]
#![warn(missing_docs)]

// The simulator's host bodies (`sim` feature) use std: fused multiply-add,
// atomics on host memory, the simulated device itself.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
extern crate std;

pub use bytemuck::{Pod, Zeroable};
/// Turns a function into a kernel entry point; see `cg_macros`.
pub use cg_macros::kernel;

pub mod atomic;
pub mod barrier;
pub mod block;
pub mod block_collectives;
mod checks;
pub mod clock;
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub mod cluster;
pub mod coalesced;
pub mod collectives;
pub mod fault;
pub mod grid;
pub mod grid_collectives;
pub mod grid_histogram;
pub mod group;
pub mod half;
pub mod indices;
mod intrinsics;
mod lanes;
pub mod math;
pub mod matrix;
pub mod memcpy_async;
pub mod multi_grid;
pub mod multi_warp;
pub mod output;
pub mod pipeline;
pub mod print;
pub mod segments;
pub mod shared;
pub mod shared_stencil;
pub mod shuffle;
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
pub mod sim;
pub mod stride;
pub mod tile;
pub mod uniform;
mod unrolled;
pub mod vector;
pub mod zip;

/// Everything a kernel usually needs: `use cg_core::prelude::*;`.
pub mod prelude {
    pub use crate::barrier::{ArrivalToken, Barrier};
    pub use crate::block::{this_thread_block, BlockArrivalToken, ThreadBlock};
    pub use crate::block_barrier;
    pub use crate::block_collectives::{
        block_exclusive_scan, block_exclusive_scan_with_total, block_inclusive_scan,
        block_inclusive_scan_with_total, block_reduce, block_reduce_to_first, BlockBarrier,
        BlockScratch, UsedScratch,
    };
    pub use crate::block_scratch;
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    pub use crate::cluster::{this_cluster, ClusterGroup};
    pub use crate::coalesced::{
        binary_partition, coalesced_threads, labeled_partition, CoalescedGroup, Label,
    };
    pub use crate::collectives::{
        exclusive_scan, inclusive_scan, invoke_one, invoke_one_broadcast, reduce, BitAnd, BitOr,
        BitXor, Collective, Greater, Less, Operator, Plus,
    };
    pub use crate::grid::{this_grid, GridArrivalToken, GridGroup};
    pub use crate::grid_collectives::{
        grid_exclusive_scan, grid_inclusive_scan, grid_reduce, grid_reduce_slice,
        grid_scratch_words, grid_select, grid_select_scratch_words, GridScratch, UsedGridScratch,
    };
    pub use crate::grid_scratch;
    pub use crate::group::{sync, Dim3, GroupSync, ThreadGroup, TileGroup, WarpGroup};
    pub use crate::half::{bf16, f16, Half2, HalfFloat, HalfMath};
    pub use crate::indices::{Gather, Indices, Row, Rows};
    pub use crate::kernel;
    pub use crate::math::{mul_add, FloatMath};
    pub use crate::matrix::Matrix;
    pub use crate::memcpy_async::{
        memcpy_async, memcpy_async_aligned, wait, wait_prior, AsyncCopyGroup,
    };
    pub use crate::multi_grid::{this_multi_grid, MultiGridArrivalToken, MultiGridGroup};
    pub use crate::multi_warp::MultiWarpTile;
    pub use crate::output::{
        AtBlock, Chunks, Grid2d, Grid3d, GridBarrier, LeaderSlot, Leaders, Output, Points, Runs,
        Selection, StencilWalk, SyncPhases, Synced, Threads, Tiles2d, Transposed, Walk, Window,
    };
    pub use crate::pipeline::{make_pipeline, Pipeline};
    pub use crate::segments::WarpSegments;
    pub use crate::shared::{dynamic_shared, SharedArray, SharedSlice};
    pub use crate::shared_array;
    pub use crate::shared_stencil::SharedStencil;
    pub use crate::tile::{
        this_thread, tiled_partition, tiled_partition_dynamic, DynamicTile, ThreadBlockTile,
    };
    pub use crate::uniform::{Const, IntoUniform, Uniform};
    pub use crate::vector::{vectorized, Vec4, Vectorized};
    pub use crate::Pod;
}

/// The host function `#[kernel]` emits beside the PTX entry point: the
/// kernel itself, to run in the simulator. Expands to its input with the
/// `sim` feature (off the GPU), to nothing otherwise, so a kernel crate
/// compiled for the host without the simulator is unchanged.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cg_host_kernel {
    ($($item:tt)*) => { $($item)* };
}

/// See the `sim` form.
#[cfg(not(all(not(target_arch = "nvptx64"), feature = "sim")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cg_host_kernel {
    ($($item:tt)*) => {};
}

#[doc(hidden)]
pub mod __private {
    /// What `println!` and `print!` expand to (`cg_macros`): the C format
    /// string and the argument buffer of one call of CUDA's `printf`.
    pub use cg_macros::print_call;

    /// What the host build of a `#[kernel]` function starts with: its
    /// name, for the simulator's reports.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub fn kernel_started(name: &'static str) {
        crate::checks::kernel_name(name);
    }

    /// What `#[kernel(grid_1d)]` starts its entry point with: the grid is
    /// one row of blocks (`gridDim.y == gridDim.z == 1`), so `blockIdx.y`
    /// and `.z` are 0 and every rank in the grid folds to one computed
    /// from `blockIdx.x`. On the simulator the launch is checked instead.
    ///
    /// # Safety
    /// Every launch of the kernel is a grid of one row (the host handles
    /// check it: `Function::requiring_grid_1d`).
    #[inline(always)]
    pub unsafe fn assume_grid_1d() {
        #[cfg(target_arch = "nvptx64")]
        {
            let [_, rows, planes] = crate::intrinsics::grid_dim();
            let [_, row, plane] = crate::intrinsics::block_idx();
            // SAFETY: the caller's contract; a block's index is below the
            // grid's extent.
            unsafe {
                core::hint::assert_unchecked(rows == 1 && planes == 1 && row == 0 && plane == 0)
            };
        }
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            let [_, rows, planes] = cg_sim::device::grid_dim();
            assert!(
                rows == 1 && planes == 1,
                "a #[kernel(grid_1d)] launched on a grid of {rows} rows and {planes} planes: \
                 launch one row of blocks"
            );
        }
    }

    /// What `#[kernel(block_size(x, y, z))]` starts its entry point with:
    /// every block is `x * y * z` threads of that shape, so `blockDim` is
    /// a constant, each `threadIdx` component is below it, and the block's
    /// sizes, ranks and loops over them fold at compile time. On the
    /// simulator the launch is checked instead.
    ///
    /// # Safety
    /// Every launch of the kernel has blocks of exactly this shape (the
    /// host handles check it: `Function::requiring_block_shape`; the PTX
    /// entry's `.reqntid` makes the driver refuse any other).
    #[inline(always)]
    pub unsafe fn assume_block_shape(shape: [u32; 3]) {
        #[cfg(not(any(target_arch = "nvptx64", feature = "sim")))]
        let _ = shape;
        #[cfg(target_arch = "nvptx64")]
        {
            let [x, y, z] = crate::intrinsics::block_dim();
            let [tx, ty, tz] = crate::intrinsics::thread_idx();
            // SAFETY: the caller's contract; a thread's index is below the
            // block's extent. One promise a component: LLVM folds a
            // register's reads from an equality only when it stands alone.
            unsafe {
                core::hint::assert_unchecked(x == shape[0]);
                core::hint::assert_unchecked(y == shape[1]);
                core::hint::assert_unchecked(z == shape[2]);
                core::hint::assert_unchecked(tx < shape[0] && ty < shape[1] && tz < shape[2]);
            }
        }
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            let block = cg_sim::device::block_dim();
            assert!(
                block == shape,
                "a #[kernel(block_size({}, {}, {}))] launched with blocks of {block:?} threads: \
                 launch blocks of exactly its shape",
                shape[0],
                shape[1],
                shape[2]
            );
        }
    }

    /// Where `#[kernel]` registers the host build of each entry point, for
    /// a simulated device to find by name (`cg_sim::registry`).
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    pub use cg_sim::registry;

    /// Compile-time check behind `#[kernel]`: every parameter type (or
    /// element type) must be plain old data to cross to the device.
    pub const fn assert_pod<T: bytemuck::Pod>() {}

    /// Compile-time check behind `#[kernel]`: an `Indices<I>` parameter
    /// holds one of the index types ([`IndexValue`](crate::indices::IndexValue)).
    pub const fn assert_index_value<I: crate::indices::IndexValue>() {}

    /// Tells the compiler what every buffer a kernel receives satisfies:
    /// `len` elements of `T` take at most `isize::MAX` bytes (Rust's rule
    /// for any allocation). With that bound a strided loop `while i < len {
    /// ..; i += step }` whose step is below 2^32 cannot wrap, so LLVM can
    /// count its trips and unroll it (the builder's loop settings,
    /// `cg_builder::compile::LOOP_FLAGS`); without it the loop issues one load per
    /// iteration.
    ///
    /// # Safety
    /// `len` elements of `T` are one allocation.
    #[inline(always)]
    pub unsafe fn assume_allocation_len<T>(len: usize) {
        // SAFETY: the caller's contract; no allocation is larger.
        unsafe {
            core::hint::assert_unchecked(
                len <= isize::MAX as usize / core::mem::size_of::<T>().max(1),
            )
        }
    }

    /// A `&[T]` kernel parameter rebuilt from its pointer and length, with
    /// its length's bound told to the compiler ([`assume_allocation_len`]).
    ///
    /// # Safety
    /// `ptr` and `len` are a live device allocation of `len` elements that
    /// nothing writes for `'a`.
    #[inline(always)]
    pub unsafe fn kernel_slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
        // SAFETY: the caller's contract.
        unsafe {
            assume_allocation_len::<T>(len);
            core::slice::from_raw_parts(ptr, len)
        }
    }

    /// A buffer parameter of a `#[kernel]` (`Output<T>`, `Synced<T>`,
    /// `AtomicSlice<T>`): the PTX entry point takes a pointer and a length,
    /// and the macro rebuilds the parameter from them.
    ///
    /// # Safety
    /// Implemented only for views whose `from_raw_parts` contract a
    /// `&mut DeviceBuffer` of the host meets.
    pub unsafe trait KernelBuffer {
        /// The element type.
        type Elem: bytemuck::Pod;
        /// The view of the buffer the host passed.
        ///
        /// # Safety
        /// `ptr` and `len` are a device buffer the launch borrowed mutably.
        unsafe fn from_kernel_buffer(ptr: *mut Self::Elem, len: usize) -> Self;
    }

    // SAFETY: `Output::from_raw_parts` asks for `len` valid elements that
    // the kernel reaches only through the `Output`: the host's
    // `&mut DeviceBuffer` is this launch's only way to the buffer.
    unsafe impl<T: bytemuck::Pod, P: crate::output::Pattern> KernelBuffer
        for crate::output::Output<T, P>
    {
        type Elem = T;
        #[inline(always)]
        unsafe fn from_kernel_buffer(ptr: *mut T, len: usize) -> Self {
            // SAFETY: `ptr` and `len` are a device buffer the launch borrowed
            // mutably (this method's contract): one live allocation of `len`
            // elements, so at most `isize::MAX` bytes (`assume_allocation_len`),
            // and the view's contract holds as the comment on the impl says.
            unsafe {
                assume_allocation_len::<T>(len);
                Self::from_raw_parts(ptr, len)
            }
        }
    }

    // SAFETY: `Synced::from_raw_parts` asks for `len` valid elements that
    // nothing writes while the view could read them: the host's
    // `&mut DeviceBuffer` is this launch's only way to the buffer, and the
    // kernel has no `Output` of it (the parameter is the `Synced`).
    unsafe impl<T: bytemuck::Pod> KernelBuffer for crate::output::Synced<T> {
        type Elem = T;
        #[inline(always)]
        unsafe fn from_kernel_buffer(ptr: *mut T, len: usize) -> Self {
            // SAFETY: `ptr` and `len` are a device buffer the launch borrowed
            // mutably (this method's contract): one live allocation of `len`
            // elements, so at most `isize::MAX` bytes (`assume_allocation_len`),
            // and the view's contract holds as the comment on the impl says.
            unsafe {
                assume_allocation_len::<T>(len);
                Self::from_raw_parts(ptr, len)
            }
        }
    }

    // SAFETY: `AtomicSlice::from_raw_parts` asks for `len` live, aligned
    // elements in global memory: a device allocation of `T` (aligned to at
    // least 256 bytes by the driver) that the `&mut DeviceBuffer` borrowed.
    unsafe impl<T: crate::atomic::AtomicValue, S: crate::atomic::Scope> KernelBuffer
        for crate::atomic::AtomicSlice<'_, T, S>
    {
        type Elem = T;
        #[inline(always)]
        unsafe fn from_kernel_buffer(ptr: *mut T, len: usize) -> Self {
            // SAFETY: `ptr` and `len` are a device buffer the launch borrowed
            // mutably (this method's contract): one live allocation of `len`
            // elements, so at most `isize::MAX` bytes (`assume_allocation_len`),
            // and the view's contract holds as the comment on the impl says.
            unsafe {
                assume_allocation_len::<T>(len);
                Self::from_raw_parts(ptr, len)
            }
        }
    }

    /// FNV-1a over a string, at compile time: gives each `shared_array!`
    /// declaration a symbol unique to its file and module.
    pub const fn fnv1a(s: &str) -> u64 {
        let b = s.as_bytes();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut i = 0;
        while i < b.len() {
            h ^= b[i] as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        h
    }

    /// What `shared_array!` does off the GPU.
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::intrinsics::{shared_array_addr_off_gpu, SharedSite};
}

/// A kernel that stops instead of unwinding: a panic (bounds checks
/// included) records where it happened for the host ([`fault`]) and traps;
/// the host reports it as `Error::KernelPanic`.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
// rustc says `#[inline]` is ignored on the handler, but it does fold the
// handler into `core::panicking::panic_fmt` (one call fewer on the path to
// the trap).
#[allow(unused_attributes)]
#[inline(always)]
fn panic(info: &core::panic::PanicInfo) -> ! {
    fault::report_panic(info)
}
