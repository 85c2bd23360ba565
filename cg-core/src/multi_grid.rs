//! `multi_grid_group`: every thread of one kernel running on several GPUs
//! at once, with a barrier across all of them.
//!
//! CUDA had this type until CUDA 12 (`this_multi_grid()`, launched with
//! `cudaLaunchCooperativeKernelMultiDevice`, deprecated in 11.3); CUDA 13's
//! `cooperative_groups.h` no longer has it. Here it is built on what the
//! driver still offers: each GPU of the set runs the kernel as an ordinary
//! cooperative launch (its own grid barrier), and the host hands every grid
//! a workspace, the module global `cg_multi_grid`: its rank, the number of
//! grids, and the addresses of the barrier's counters, one in each GPU's
//! memory, which every GPU of the set reaches through peer access. Kernels
//! that use it are declared `#[kernel(multi_grid)]` and launched through
//! the host's `GpuSet`; `cg-builder` refuses to build a kernel that reaches
//! `multi_grid.sync()` without that declaration.
//!
//! The barrier: each GPU has a counter of the set's, and the module
//! global gives every grid the addresses of all of them. A block arrives
//! on its grid's barrier as `grid.sync()` does (its first warp adds the
//! block's arrival to one of 16 counters, `atom.add.release.gpu`); block 0
//! alone waits until its grid's blocks have all arrived, then arrives for
//! the whole grid on every GPU's counter at once: one `fence.acq_rel.sys`
//! and one `red.relaxed.sys.add` a GPU, posted (nothing waits for the
//! round trip). Grid `r` adds `0x80000000 - (grids - 1)` to counter `r`
//! and 1 to the others, so the last arrival flips bit 31 of each. Every
//! block's thread 0 then polls its own GPU's counter (`ld.acquire.sys`,
//! memory next to it) until the bit flips. One grid barrier's arrival,
//! one fence and one one-way trip over the link. Memory written before
//! `sync()` by any thread of any grid (to its own GPU's memory or to a
//! peer's) is visible to every thread after it: each step is a
//! release/acquire pair, and PTX's releases are cumulative.
//!
//! The counters are never reset: a barrier leaves each one with its low
//! 31 bits as it found them, so a launch finds them ready whatever ran
//! before, as long as every grid of every earlier launch passed the same
//! number of barriers (`multi_grid.sync()` is collective).

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

/// The most GPUs a multi-grid launch spans: the module global holds
/// every grid's counter address.
pub const MAX_GRIDS: u32 = 8;

/// What [`MultiGridGroup::barrier_arrive`] returns and
/// [`MultiGridGroup::barrier_wait`] consumes: this GPU's counter as the
/// block found it before arriving (meaningful in the block's thread 0).
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
    /// launched as a multi-grid launch; returns this GPU's counter. The
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

    /// The first half of a split multi-grid barrier. Every block arrives
    /// on its grid's barrier; block 0 waits until its grid's blocks have
    /// all arrived and then arrives for the grid on every GPU's counter.
    /// Work that depends on no other thread can go before
    /// [`barrier_wait`](Self::barrier_wait).
    ///
    /// Every thread of every grid must arrive, then wait with its token,
    /// before arriving again. Traps when the kernel was not launched as a
    /// multi-grid launch.
    #[inline(always)]
    #[track_caller]
    pub fn barrier_arrive(&self) -> MultiGridArrivalToken {
        let counter = self.counter();
        self.grid.check_barrier();
        crate::checks::Site::here().grid_barrier();
        // SAFETY: the barrier is collective: every thread of every block
        // arrives (this method's contract).
        unsafe { intrinsics::bar_sync() };
        let mut old = 0;
        if self.grid.in_first_warp() {
            let t = intrinsics::thread_idx();
            let first_thread = t[0] | t[1] | t[2] == 0;
            // SAFETY: `counter` is this GPU's counter of the set, a 4-byte
            // aligned word the host allocated, only accessed atomically.
            // It cannot flip before this block arrives below; the warp
            // barrier orders the read before the arriving lane's atomic.
            unsafe {
                if first_thread {
                    old = atom::ld_b32(Place::Global(counter), Sem::Relaxed, Scope::Sys);
                }
                intrinsics::bar_warp_sync(intrinsics::first_warp_mask_in_place());
            }
            let phase = self.grid.arrive_in_first_warp();
            let b = intrinsics::block_idx();
            if b[0] | b[1] | b[2] == 0 {
                self.grid.wait_in_first_warp(phase);
                // SAFETY: the first warp, every lane of it (the mask).
                // Orders what the polling lanes acquired before thread 0's
                // fence.
                unsafe { intrinsics::bar_warp_sync(intrinsics::first_warp_mask_in_place()) };
                if first_thread {
                    self.arrive_for_the_grid();
                }
            }
        }
        MultiGridArrivalToken { old }
    }

    /// Block 0's thread 0, once its grid has arrived: the grid's arrival on
    /// every GPU's counter, released at system scope.
    #[inline(always)]
    fn arrive_for_the_grid(&self) {
        atom::fence_acq_rel(Scope::Sys);
        // `grids` is at most MAX_GRIDS (the host refuses larger sets). The
        // bound is read through an opaque move each round, so that the
        // loop stays one load and one reduction a GPU, not unrolled into
        // registers the kernel's other code would pay for.
        let mut r = 0;
        while r < intrinsics::computed_in_place(self.grids) {
            let add = if r == self.rank {
                0x8000_0000u32.wrapping_sub(self.grids - 1)
            } else {
                1
            };
            let c = Place::Global(intrinsics::multi_grid_counter_of(r));
            // SAFETY: the host set every grid's counter address (a word of
            // a GPU of the set, reachable through peer access) for each
            // rank below `grids`; only accessed atomically.
            unsafe { atom::red_add_u32(c, add, Sem::Relaxed, Scope::Sys) };
            r += 1;
        }
    }

    /// The second half of a split multi-grid barrier: each block's thread 0
    /// polls its GPU's counter until the last grid's arrival flips it; then
    /// the block synchronizes (`bar.sync`).
    #[inline(always)]
    #[track_caller]
    pub fn barrier_wait(&self, token: MultiGridArrivalToken) {
        let counter = Place::Global(self.counter());
        let t = intrinsics::thread_idx();
        if t[0] | t[1] | t[2] == 0 {
            // SAFETY: as in `barrier_arrive`.
            unsafe {
                while (token.old ^ atom::ld_b32(counter, Sem::Acquire, Scope::Sys)) & 0x8000_0000
                    == 0
                {}
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
