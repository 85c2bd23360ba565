//! `multi_grid_group`: every thread of one kernel running on several GPUs
//! at once, with a barrier across all of them.
//!
//! CUDA had this type until CUDA 12 (`this_multi_grid()`, launched with
//! `cudaLaunchCooperativeKernelMultiDevice`, deprecated in 11.3); CUDA 13's
//! `cooperative_groups.h` no longer has it. Here it is built on what the
//! driver still offers: each GPU of the set runs the kernel as an ordinary
//! cooperative launch (its own grid barrier), and the host hands every grid
//! a workspace, the module global `cg_multi_grid`: its rank, the number of
//! grids, and a counter in the first GPU's memory that every GPU of the set
//! reaches through peer access. Kernels that use it are declared
//! `#[kernel(multi_grid)]` and launched through the host's `GpuSet`;
//! `cg-builder` refuses to build a kernel that reaches `multi_grid.sync()`
//! without that declaration.
//!
//! The barrier: each block arrives on its grid's barrier word of the
//! driver's workspace (the one CUDA's own `grid.sync()` uses; cg-core's
//! `grid.sync()` spreads its arrivals over counters of its own instead);
//! block 0 waits until every
//! other block of its grid has arrived, then arrives for the whole grid on
//! the set's counter (`atom.add.release.sys`: grid 0 adds
//! `0x80000000 - (grids - 1)`, the others 1, so that the last arrival flips
//! bit 31) and spins (`ld.acquire.sys`) until the bit flips; then it
//! releases its grid (the flip of the grid's own barrier word that the
//! other blocks spin on). One grid barrier's worth of work per GPU plus
//! one round trip between GPUs. Memory written before `sync()` by any
//! thread of any grid (to its own GPU's memory or to a peer's) is visible
//! to every thread after it: each step is a release/acquire pair, and PTX's
//! releases are cumulative.

use crate::grid::{this_grid, GridGroup};
use crate::group::{sealed_groups, GroupSync};
use crate::intrinsics::atom::{self, Place, Scope, Sem};
use crate::{fault, intrinsics};

/// Every thread of a multi-grid launch: the same kernel on each GPU of a
/// set. Obtain it with [`this_multi_grid`].
///
/// ```ignore
/// #[kernel(multi_grid)]
/// fn k(mut mine: Output<u32>, mut theirs: Output<u32>) {
///     let mg = this_multi_grid();
///     mine.for_thread(&mg.grid(), |x| *x = mg.grid_rank());
///     mg.sync(); // every GPU's writes are visible on every GPU
/// }
/// ```
#[derive(Clone, Copy)]
pub struct MultiGridGroup {
    grid: GridGroup,
    counter: u64,
    rank: u32,
    grids: u32,
}

/// `cg::this_multi_grid()`.
#[inline(always)]
pub fn this_multi_grid() -> MultiGridGroup {
    let [counter, ranks] = intrinsics::multi_grid_workspace();
    MultiGridGroup {
        grid: this_grid(),
        counter,
        rank: ranks as u32,
        grids: (ranks >> 32) as u32,
    }
}

/// What [`MultiGridGroup::barrier_arrive`] returns and
/// [`MultiGridGroup::barrier_wait`] consumes: the set's counter as this
/// grid's arrival found it (meaningful in block 0's thread 0 only).
#[must_use = "a multi-grid arrival must be completed with barrier_wait"]
pub struct MultiGridArrivalToken {
    old: u32,
}

impl MultiGridGroup {
    /// Whether the kernel was launched as a multi-grid launch (through the
    /// host's `GpuSet`), so that `sync()` is allowed.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        (self.counter != 0) & self.grid.is_valid()
    }

    /// This GPU's grid.
    #[inline(always)]
    pub fn grid(&self) -> GridGroup {
        self.grid
    }

    /// The number of grids (GPUs) in the launch (`num_grids()`).
    #[inline(always)]
    pub fn num_grids(&self) -> u32 {
        self.grids
    }

    /// This grid's rank among them, 0-based, in the order of the host's
    /// `GpuSet` (`grid_rank()`).
    #[inline(always)]
    pub fn grid_rank(&self) -> u32 {
        self.rank
    }

    /// Threads in every grid together (every grid has the same shape).
    #[inline(always)]
    pub fn num_threads(&self) -> u64 {
        self.grids as u64 * self.grid.num_threads()
    }

    /// This thread's rank among them: the grids' threads in grid-rank
    /// order.
    #[inline(always)]
    pub fn thread_rank(&self) -> u64 {
        self.rank as u64 * self.grid.num_threads() + self.grid.thread_rank()
    }

    /// Stops the kernel (a failed check the host reports) unless it was
    /// launched as a multi-grid launch; returns the set's counter. The
    /// marker lets cg-builder find kernels that reach a multi-grid barrier.
    #[inline(always)]
    #[track_caller]
    fn counter(&self) -> u64 {
        intrinsics::multi_grid_sync_marker();
        if self.counter == 0 {
            fault::check_failed(
                "multi_grid.sync(): the kernel was not launched as a multi-grid launch; declare it \
                 #[kernel(multi_grid)] and launch it through GpuSet::launch",
            );
        }
        self.counter
    }

    /// The first half of a split multi-grid barrier. Every block arrives on
    /// its grid's barrier word; block 0 waits for its grid's other blocks
    /// and then arrives for the grid on the set's counter. Work that
    /// depends on no other thread can go before [`barrier_wait`](Self::barrier_wait).
    ///
    /// Every thread of every grid must arrive, then wait with its token,
    /// before arriving again. Traps when the kernel was not launched as a
    /// multi-grid launch.
    #[inline(always)]
    #[track_caller]
    pub fn barrier_arrive(&self) -> MultiGridArrivalToken {
        let counter = self.counter();
        crate::checks::Site::here().grid_barrier();
        let word = crate::grid::driver_barrier_word();
        // SAFETY: the barrier is collective: every thread of every block
        // arrives (this method's contract).
        unsafe { intrinsics::bar_sync() };
        let t = intrinsics::thread_idx();
        let b = intrinsics::block_idx();
        let mut old = 0;
        if t[0] | t[1] | t[2] == 0 {
            let others = self.grid.num_blocks() - 1;
            // SAFETY: `word` is the barrier word of the driver's workspace
            // (`driver_barrier_word` stops the kernel where there is none) and
            // `counter` the set's counter the host allocated, readable and
            // writable by every GPU of the set; both 4-byte aligned and only
            // accessed atomically.
            unsafe {
                if b[0] | b[1] | b[2] == 0 {
                    // Between barriers the word's low 31 bits are 0; each
                    // other block adds 1.
                    let w = Place::Global(word as u64);
                    while atom::ld_b32(w, Sem::Acquire, Scope::Gpu) & 0x7fff_ffff != others {}
                    let add = if self.rank == 0 {
                        0x8000_0000u32.wrapping_sub(self.grids - 1)
                    } else {
                        1
                    };
                    old = atom::atom_add_u32(Place::Global(counter), add, Sem::Release, Scope::Sys);
                } else {
                    old =
                        atom::atom_add_u32(Place::Global(word as u64), 1, Sem::Release, Scope::Gpu);
                }
            }
        }
        MultiGridArrivalToken { old }
    }

    /// The second half of a split multi-grid barrier: block 0's thread 0
    /// spins until the last grid's arrival flips the set's counter, then
    /// releases its grid; the other blocks' thread 0 spin until it does.
    /// Then each block synchronizes (`bar.sync`).
    #[inline(always)]
    #[track_caller]
    pub fn barrier_wait(&self, token: MultiGridArrivalToken) {
        let counter = self.counter();
        let word = crate::grid::driver_barrier_word();
        let t = intrinsics::thread_idx();
        if t[0] | t[1] | t[2] == 0 {
            let b = intrinsics::block_idx();
            let w = Place::Global(word as u64);
            // SAFETY: as in `barrier_arrive`.
            unsafe {
                if b[0] | b[1] | b[2] == 0 {
                    let c = Place::Global(counter);
                    while (token.old ^ atom::ld_b32(c, Sem::Acquire, Scope::Sys)) & 0x8000_0000 == 0
                    {
                    }
                    // Flips bit 31 and clears the other blocks' arrivals.
                    let others = self.grid.num_blocks() - 1;
                    let _ = atom::atom_add_u32(
                        w,
                        0x8000_0000u32.wrapping_sub(others),
                        Sem::Release,
                        Scope::Gpu,
                    );
                } else {
                    while (token.old ^ atom::ld_b32(w, Sem::Acquire, Scope::Gpu)) & 0x8000_0000 == 0
                    {
                    }
                }
            }
        }
        // SAFETY: every thread of the block waits with its token (this
        // method's contract).
        unsafe { intrinsics::bar_sync() };
        crate::checks::grid_barrier_passed();
    }

    /// `multi_grid.sync()`: barrier over every thread of every grid, with
    /// memory ordering across the GPUs. Traps when the kernel was not
    /// launched as a multi-grid launch.
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        self.barrier_wait(self.barrier_arrive())
    }
}

sealed_groups!([] MultiGridGroup);

impl GroupSync for MultiGridGroup {
    /// [`MultiGridGroup::sync`].
    #[inline(always)]
    #[track_caller]
    fn sync(&self) {
        MultiGridGroup::sync(self)
    }
}
