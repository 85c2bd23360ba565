//! `grid_group`: every thread of a launch, with a grid-wide barrier.
//!
//! `sync()` needs a cooperative launch (`cuLaunchCooperativeKernel`), which
//! guarantees that all blocks are resident at once and hands the kernel a
//! barrier workspace. Kernels that call it are declared
//! `#[kernel(cooperative)]`; their host handles always launch them
//! cooperatively, and `cg-builder` refuses to build a kernel that reaches
//! `grid.sync()` without that declaration.
//!
//! `barrier_arrive()`/`barrier_wait(token)` split the barrier in two halves
//! (CUDA 12's `grid_group::barrier_arrive`); `sync()` is the two in a row.
//!
//! The barrier is the one CUDA's headers implement over the same workspace
//! (`{u32 size; u32 barrier}` at `{%envreg2, %envreg1}`): `bar.sync 0`; thread
//! 0 of each block does `atom.add.release.gpu` on the barrier word (block 0
//! adds `0x80000000 - (blocks - 1)`, the others 1), so the last arrival flips
//! bit 31; it spins on `ld.acquire.gpu` until the bit differs from the value
//! it read; `bar.sync 0`. No `-rdc`, no device runtime library.
//!
//! Under an ordinary launch the workspace pointer is usually 0 and `sync()`
//! traps (the launch fails) instead of hanging. That guard is best effort:
//! after a cooperative launch in the same process the driver can leave a
//! workspace in place; the host API is what makes the misuse impossible.

use crate::group::{sealed_groups, Dim3, GroupSync};
use crate::stride::Stride;
use crate::{fault, intrinsics};

/// All blocks of the launch. Obtain it with [`this_grid`].
///
/// ```ignore
/// let grid = this_grid();
/// out[grid.thread_rank() as usize] = phase_one();
/// grid.sync();                 // needs #[kernel(cooperative)]
/// let neighbour = out[(grid.thread_rank() as usize + 1) % n];
/// ```
#[derive(Clone, Copy)]
pub struct GridGroup {
    workspace: u64,
}

/// `cg::this_grid()`.
#[inline(always)]
pub fn this_grid() -> GridGroup {
    GridGroup {
        workspace: intrinsics::grid_workspace(),
    }
}

impl GridGroup {
    /// Whether the kernel was launched cooperatively, so that `sync()` is
    /// allowed.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        self.workspace != 0
    }

    /// `gridDim`: the grid's extent in blocks.
    #[inline(always)]
    pub fn dim_blocks(&self) -> Dim3 {
        intrinsics::grid_dim().into()
    }

    /// `blockIdx`: this block's index in the grid.
    #[inline(always)]
    pub fn block_index(&self) -> Dim3 {
        intrinsics::block_idx().into()
    }

    /// `gridDim`: CUDA's `grid_group::group_dim()`, the grid's extent in
    /// blocks (the same as [`dim_blocks`](Self::dim_blocks)).
    #[inline(always)]
    pub fn group_dim(&self) -> Dim3 {
        self.dim_blocks()
    }

    /// The grid's extent in threads: `gridDim * blockDim`, per dimension
    /// (`grid_group::dim_threads()`).
    #[inline(always)]
    pub fn dim_threads(&self) -> Dim3 {
        let [gx, gy, gz] = intrinsics::grid_dim();
        let [bx, by, bz] = intrinsics::block_dim();
        Dim3 {
            x: gx * bx,
            y: gy * by,
            z: gz * bz,
        }
    }

    /// This thread's index in the grid, per dimension: `blockIdx *
    /// blockDim + threadIdx` (`grid_group::thread_index()`).
    #[inline(always)]
    pub fn thread_index(&self) -> Dim3 {
        let [bx, by, bz] = intrinsics::block_idx();
        let [dx, dy, dz] = intrinsics::block_dim();
        let [tx, ty, tz] = intrinsics::thread_idx();
        Dim3 {
            x: bx * dx + tx,
            y: by * dy + ty,
            z: bz * dz + tz,
        }
    }

    /// Number of blocks in the grid.
    #[inline(always)]
    pub fn num_blocks(&self) -> u32 {
        self.dim_blocks().volume()
    }

    /// This block's linear rank in the grid, x fastest.
    #[inline(always)]
    pub fn block_rank(&self) -> u32 {
        self.dim_blocks().linear(self.block_index())
    }

    /// Number of threads in the grid.
    #[inline(always)]
    pub fn num_threads(&self) -> u64 {
        self.num_blocks() as u64 * Dim3::from(intrinsics::block_dim()).volume() as u64
    }

    /// This thread's rank in the grid: `block_rank * block_threads + rank in block`.
    #[inline(always)]
    pub fn thread_rank(&self) -> u64 {
        let bd: Dim3 = intrinsics::block_dim().into();
        self.block_rank() as u64 * bd.volume() as u64
            + bd.linear(intrinsics::thread_idx().into()) as u64
    }

    /// This thread's indices of a grid-stride loop over `0..n`:
    /// `thread_rank()`, then every `num_threads()` after it, below `n` —
    /// CUDA's `for (i = grid.thread_rank(); i < n; i += grid.size())`, and
    /// the same loop once compiled. With `n` a slice's length, indexing
    /// that slice needs no bounds check.
    ///
    /// ```ignore
    /// for i in grid.stride(x.len()) {
    ///     sum += x[i] * y[i];
    /// }
    /// ```
    #[inline(always)]
    pub fn stride(&self, n: usize) -> Stride {
        Stride::new(self.thread_rank() as usize, self.num_threads() as usize, n)
    }

    /// Stops the kernel (a failed check the host reports, naming the
    /// caller's line) unless it was launched cooperatively; returns the
    /// barrier word. The marker lets cg-builder find kernels that reach a
    /// grid barrier (they must be `#[kernel(cooperative)]`).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn barrier_word(&self) -> *mut u32 {
        intrinsics::grid_sync_marker();
        if self.workspace == 0 {
            fault::check_failed(
                "grid.sync(): the kernel was not launched cooperatively; declare it \
                 #[kernel(cooperative)] so that its handle launches it with cuLaunchCooperativeKernel",
            );
        }
        (self.workspace + 4) as *mut u32
    }

    /// `grid.barrier_arrive()`: the first half of a split grid barrier. The
    /// block synchronizes (`bar.sync`), then its thread 0 adds the block's
    /// arrival to the barrier word (`atom.add.release.gpu`), so that writes
    /// before the arrival are visible to every thread after the matching
    /// [`barrier_wait`](Self::barrier_wait). Work that does not depend on
    /// other blocks can go between the two.
    ///
    /// Every thread of every block must arrive, then wait with its token,
    /// before arriving again. Traps when the kernel was not launched
    /// cooperatively.
    ///
    /// ```ignore
    /// let grid = this_grid();
    /// publish(grid.thread_rank());
    /// let token = grid.barrier_arrive();
    /// let local = expensive_local_work();
    /// grid.barrier_wait(token);
    /// let theirs = read_what_others_published();
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn barrier_arrive(&self) -> GridArrivalToken {
        let barrier = self.barrier_word();
        // SAFETY: the grid barrier is collective: every thread of every
        // block arrives (this method's contract), so every thread of this
        // block reaches this barrier.
        unsafe { intrinsics::bar_sync() };
        let t = intrinsics::thread_idx();
        let mut old = 0;
        if t[0] | t[1] | t[2] == 0 {
            let b = intrinsics::block_idx();
            let add = if b[0] | b[1] | b[2] == 0 {
                0x8000_0000u32.wrapping_sub(self.num_blocks() - 1)
            } else {
                1
            };
            // SAFETY: `barrier` is the barrier word of the driver's workspace
            // of a cooperative launch (`barrier_word` stops the kernel when
            // there is none), 4-byte aligned and only accessed atomically.
            old = unsafe { intrinsics::atom_add_release_gpu(barrier, add) };
        }
        GridArrivalToken { old }
    }

    /// `grid.barrier_wait(token)`: the second half of a split grid barrier.
    /// Thread 0 of the block spins (`ld.acquire.gpu`) until the last block's
    /// arrival flips bit 31 of the barrier word away from the value in its
    /// `token`; then the block synchronizes (`bar.sync`).
    #[inline(always)]
    #[track_caller]
    pub fn barrier_wait(&self, token: GridArrivalToken) {
        let barrier = self.barrier_word();
        let t = intrinsics::thread_idx();
        if t[0] | t[1] | t[2] == 0 {
            // SAFETY: as in `barrier_arrive`.
            unsafe { while (token.old ^ intrinsics::ld_acquire_gpu(barrier)) & 0x8000_0000 == 0 {} }
        }
        // SAFETY: every thread of the block waits with its token (this
        // method's contract), so all of them reach this barrier.
        unsafe { intrinsics::bar_sync() };
    }

    /// `grid.sync()`: barrier over every thread of the grid, with memory
    /// ordering: writes before it are visible to every thread after it.
    /// `barrier_wait(barrier_arrive())`. Traps when the kernel was not
    /// launched cooperatively (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        self.barrier_wait(self.barrier_arrive())
    }
}

sealed_groups!([] GridGroup);

impl GroupSync for GridGroup {
    /// [`GridGroup::sync`].
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        GridGroup::sync(self)
    }
}

/// What [`GridGroup::barrier_arrive`] returns and
/// [`GridGroup::barrier_wait`] consumes (`grid_group::arrival_token`): the
/// barrier word as this block's arrival found it.
#[must_use = "a grid arrival must be completed with barrier_wait"]
pub struct GridArrivalToken {
    old: u32,
}
