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
//! # The barrier
//!
//! CUDA's `grid.sync()` has every block arrive on one word of the driver's
//! workspace; at a thousand blocks the arrivals queue on that word's L2
//! slice (2.2 µs a barrier on an H200). This one spreads them over 16
//! counters 4 KiB apart ([`layout`]), in memory the host gives every module
//! of the GPU: `bar.sync 0`; one lane of the block's first warp adds the
//! block's arrival to its counter (`atom.add.release.gpu`; block `b`
//! arrives on counter `b % 16`); lanes 0 to 15 of the first warp each poll
//! one counter (`ld.acquire.gpu`) until its phase byte moves past the
//! arrival's, and the warp leaves when a vote says every lane's counter
//! has; `bar.sync 0`. Each counter's first block adds `2^24 - (share - 1)`
//! and the others 1, so a barrier moves every counter by exactly `2^24`:
//! between barriers their low 24 bits are 0 and their phase bytes agree,
//! whatever grid ran before. Blocks of fewer than 16 threads use one
//! counter of their own, with the same protocol.
//!
//! Which L2 slice a counter lands in depends on where the memory lies
//! physically, and two counters sharing a slice cost a barrier up to twice
//! as much; so the host times the barrier at [`layout::SLOTS`] places of
//! its region when the first module with a grid barrier loads on a GPU,
//! and gives every such module the fastest. [`this_grid`] computes the
//! thread's part once and keeps it packed in one register; at the barrier
//! only the counter's address is left to form, from the place's address:
//! a kernel parameter cg-builder adds to every entry point that reaches a
//! barrier and the host fills in at launch ([`layout::PARAM_SUFFIX`];
//! ptxas reads it from the parameter bank as an operand, so no register
//! holds the address through the kernel's loops and no load waits at a
//! barrier). A barrier in a device function the compiler did not inline
//! reads the module word `cg_grid_barrier` instead, which the host sets
//! too. The place changes what a barrier costs, never what it does. All
//! work on a GPU runs on one stream (the host API), so one cooperative
//! launch runs at a time and the counters are its own. No `-rdc`, no device runtime library.
//!
//! Under an ordinary launch the workspace pointer is usually 0 and `sync()`
//! traps (the launch fails) instead of hanging. That guard is best effort:
//! after a cooperative launch in the same process the driver can leave a
//! workspace in place; the host API is what makes the misuse impossible.

use crate::group::{sealed_groups, Dim3, GroupSync};
use crate::stride::Stride;
use crate::{fault, intrinsics};

/// The comment every `grid.sync()` (and split barrier) leaves in the PTX,
/// after `//`: cg-builder finds the kernels that must be launched
/// cooperatively by it, and the host the modules whose grid barriers need
/// counters.
pub const SYNC_MARKER: &str = "cg-core: grid.sync";

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
    /// This thread's part in the barrier, packed ([`plan`]'s bits): one
    /// register through a kernel's loops. The counters' address is read
    /// where a barrier needs it (a kernel parameter, see the module docs).
    plan: u32,
}

/// The bits of [`GridGroup`]'s `plan`.
mod plan {
    /// Bits 0-4: the lane of the first warp whose arrival's old value gives
    /// the barrier's phase.
    pub(super) const PHASE_LANE: u32 = 0x1f;
    /// The thread polls its counter.
    pub(super) const POLLS: u32 = 1 << 5;
    /// The thread is in its block's first warp.
    pub(super) const FIRST_WARP: u32 = 1 << 6;
    /// The thread adds its block's arrival to its counter.
    pub(super) const ARRIVES: u32 = 1 << 7;
    /// Its block is the counter's first: it adds `PHASE - (share - 1)`,
    /// not 1.
    pub(super) const FIRST_BLOCK: u32 = 1 << 8;
    /// The barrier can run: the launch is cooperative and the counters'
    /// place is set.
    pub(super) const RUNS: u32 = 1 << 9;
    /// Bits 11-15: the counter's byte offset from the place's start (a
    /// multiple of 2 KiB below 64 KiB).
    pub(super) const OFFSET: u32 = 0xf800;
    /// Bits 16-31: `share - 1`, where the block is the counter's first.
    pub(super) const SHARE_SHIFT: u32 = 16;

    // Every offset the layout gives fits the field.
    const _: () = {
        use super::layout::{COUNTERS, COUNTER_STRIDE, SMALL_GRID_COUNTER};
        assert!(SMALL_GRID_COUNTER & !OFFSET == 0);
        assert!(COUNTER_STRIDE & !OFFSET == 0);
        assert!(((COUNTERS - 1) * COUNTER_STRIDE) & !OFFSET == 0);
    };
}

/// `cg::this_grid()`. Computes this thread's part in the grid barrier
/// (once: a kernel's loop of barriers keeps it in one register).
///
/// A cooperative kernel whose threads each write one element, then, after
/// the grid barrier, read another's, run on the simulator (the `sim`
/// feature; on a GPU it is launched through its typed handle):
///
#[cfg_attr(feature = "sim", doc = "```")]
#[cfg_attr(not(feature = "sim"), doc = "```ignore")]
/// use cg_core::prelude::*;
/// use cg_core::sim::{self, Buffer, Shape};
///
/// #[kernel(cooperative)]
/// pub fn reverse(mut copy: Output<u32>, mut out: Output<u32>) {
///     let grid = this_grid();
///     copy.for_thread(&grid, |c| *c = grid.thread_rank() as u32);
///     let copy = copy.sync(&grid); // the grid barrier: now readable
///     let n = grid.num_threads() as usize;
///     out.for_thread(&grid, |o| *o = copy[n - 1 - grid.thread_rank() as usize]);
/// }
///
/// let (copy, out) = (Buffer::<u32>::zeroed(256), Buffer::<u32>::zeroed(256));
/// sim::launch(Shape::new(4, 64).cooperative(), || reverse(copy.view(), out.view())).unwrap();
/// assert_eq!(out.to_vec(), (0..256).rev().collect::<Vec<u32>>());
/// ```
#[inline(always)]
pub fn this_grid() -> GridGroup {
    let blocks = Dim3::from(intrinsics::grid_dim());
    let block = blocks.linear(intrinsics::block_idx().into());
    let threads = Dim3::from(intrinsics::block_dim());
    let rank = threads.linear(intrinsics::thread_idx().into());
    let lane = layout::lane_plan(block, blocks.volume(), threads.volume(), rank);
    let mut plan = lane.phase_lane | lane.offset;
    if lane.polls {
        plan |= plan::POLLS;
    }
    if rank < 32 {
        plan |= plan::FIRST_WARP;
    }
    match lane.arrival {
        layout::Arrival::None => {}
        layout::Arrival::One => plan |= plan::ARRIVES,
        layout::Arrival::First { share } => {
            plan |= plan::ARRIVES | plan::FIRST_BLOCK | ((share - 1) << plan::SHARE_SHIFT)
        }
    }
    if intrinsics::grid_workspace() != 0 && intrinsics::grid_barrier_counters_set() {
        plan |= plan::RUNS;
    }
    GridGroup { plan }
}

/// Where the grid barrier's counters lie and which thread arrives on and
/// polls which: the arithmetic [`this_grid`] does once, and the layout the
/// host allocates and times (`cooperative-groups`).
pub mod layout {
    /// Counters a grid of 16 blocks or more, of 16 threads or more, arrives
    /// on: one lane of the first warp polls each.
    pub const COUNTERS: u32 = 16;

    /// Bytes from one counter to the next: a 4 KiB page each.
    pub const COUNTER_STRIDE: u32 = 4096;

    /// Where the one counter of the other grids (fewer than 16 blocks, or
    /// blocks of fewer than 16 threads) lies: in the first counter's page,
    /// 16 lines after it. It has phases of its own.
    pub const SMALL_GRID_COUNTER: u32 = 2048;

    /// Bytes of one place for the counters.
    pub const SLOT_BYTES: u32 = COUNTERS * COUNTER_STRIDE;

    // The small grids' counter is a line of its own in the first page.
    const _: () = assert!(SMALL_GRID_COUNTER % 128 == 0 && SMALL_GRID_COUNTER < COUNTER_STRIDE);

    /// Places the host times, one after another in one allocation.
    pub const SLOTS: u32 = 32;

    /// The module word the host sets to the chosen place's address. The
    /// barrier's PTX reads it (`ld.global.nc.u64 %rd, [cg_grid_barrier]`)
    /// where it needs the address.
    pub const SYMBOL: &str = "cg_grid_barrier";

    /// The name cg-builder gives the `.u64` parameter it appends to an
    /// entry point that reaches a grid barrier, after the entry's name
    /// (`grid_sum_cg_grid_barrier`): it rewrites the entry's reads of
    /// [`SYMBOL`] into reads of that parameter, and the host passes the
    /// place's address there at every launch of the entry. A kernel's declared
    /// parameters, and the typed handle's, never include it.
    pub const PARAM_SUFFIX: &str = "_cg_grid_barrier";

    /// What one barrier adds to every counter in use: the phase byte (bits
    /// 24-31) moves by one.
    pub const PHASE: u32 = 1 << 24;

    /// What a thread adds to its counter when its block arrives.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Arrival {
        /// It does not arrive.
        None,
        /// It arrives for its block: adds 1.
        One,
        /// It arrives for the counter's first block: adds
        /// `PHASE - (share - 1)`, `share` blocks arriving on the counter.
        First {
            /// The blocks arriving on the counter.
            share: u32,
        },
    }

    impl Arrival {
        /// What it adds.
        #[inline(always)]
        #[cfg(test)]
        fn add(self) -> u32 {
            match self {
                Arrival::None => 0,
                Arrival::One => 1,
                Arrival::First { share } => PHASE.wrapping_sub(share - 1),
            }
        }
    }

    /// One thread's part in the grid barrier.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct LanePlan {
        /// Its counter's byte offset from the place's start (0 where it
        /// does not poll).
        pub(crate) offset: u32,
        /// Whether it polls the counter.
        pub(crate) polls: bool,
        /// What it adds to the counter when its block arrives.
        pub(crate) arrival: Arrival,
        /// The lane of the first warp whose arrival's old value gives the
        /// phase (it arrives in every block).
        pub(crate) phase_lane: u32,
    }

    /// The part of thread `rank` of block `block` in a grid of `blocks`
    /// blocks of `threads` threads. With `k` counters (16, or 1 for grids
    /// of fewer than 16 blocks or blocks of fewer than 16 threads), lane
    /// `j < k` of every block polls counter `j`, and lane `b % k` of block
    /// `b` arrives on counter `b % k`: the counter's first block adds
    /// `PHASE - (share - 1)`, the others 1, so that every counter in use
    /// moves by [`PHASE`] a barrier.
    #[inline(always)]
    pub(crate) fn lane_plan(block: u32, blocks: u32, threads: u32, rank: u32) -> LanePlan {
        let spread = threads >= COUNTERS && blocks >= COUNTERS;
        let (k, shift) = if spread {
            (COUNTERS, COUNTERS.trailing_zeros())
        } else {
            (1, 0)
        };
        let polls = rank < k;
        let mine = block & (k - 1);
        let arrival = if rank != mine {
            Arrival::None
        } else if block < k {
            // The blocks arriving on counter `mine`: `mine`, `mine + k`,
            // ... (wrapping: an ordinary launch of 2^32 threads or more
            // computes this too, and never uses it).
            Arrival::First {
                share: (blocks.wrapping_sub(1 + mine) >> shift) + 1,
            }
        } else {
            Arrival::One
        };
        let offset = match (polls, spread) {
            (false, _) => 0,
            (true, false) => SMALL_GRID_COUNTER,
            (true, true) => rank * COUNTER_STRIDE,
        };
        LanePlan {
            offset,
            polls,
            arrival,
            phase_lane: mine,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The most blocks sharing one counter (`Arrival::First`'s `share`
        /// is kept in 16 bits of the plan): far more than a GPU holds at
        /// once.
        const MAX_SHARE: u32 = 1 << 16;

        /// Every counter a grid uses moves by exactly one phase a barrier,
        /// every block polls each of them, and the phase lane arrives.
        #[test]
        fn every_counter_moves_one_phase_a_barrier() {
            let threads_cases = [1, 2, 7, 15, 16, 17, 31, 32, 33, 64, 96, 256, 1024];
            let blocks_cases = (1..=40).chain([127, 128, 129, 383, 384, 385, 1056, 2047, 65535]);
            for blocks in blocks_cases {
                for threads in threads_cases {
                    let spread = blocks >= COUNTERS && threads >= COUNTERS;
                    let k = if spread { COUNTERS } else { 1 };
                    let mut sums = std::collections::BTreeMap::<u32, u32>::new();
                    for block in 0..blocks {
                        let lanes: Vec<_> = (0..threads.min(32))
                            .map(|r| lane_plan(block, blocks, threads, r))
                            .collect();
                        let polled: Vec<_> =
                            lanes.iter().filter(|l| l.polls).map(|l| l.offset).collect();
                        let expected: Vec<_> = (0..k)
                            .map(|j| {
                                if spread {
                                    j * COUNTER_STRIDE
                                } else {
                                    SMALL_GRID_COUNTER
                                }
                            })
                            .collect();
                        assert_eq!(polled, expected, "{blocks} x {threads}, block {block}");
                        let phase = lanes[0].phase_lane as usize;
                        assert_ne!(lanes[phase].arrival, Arrival::None, "{blocks} x {threads}");
                        assert!(lanes.iter().all(|l| l.phase_lane as usize == phase));
                        let arriving = lanes.iter().filter(|l| l.arrival != Arrival::None);
                        assert_eq!(arriving.clone().count(), 1, "{blocks} x {threads}");
                        for l in arriving {
                            assert!(l.polls, "the arriving lane polls its counter");
                            if let Arrival::First { share } = l.arrival {
                                assert!(share <= MAX_SHARE || blocks > 1 << 20);
                            }
                            let s = sums.entry(l.offset).or_default();
                            *s = s.wrapping_add(l.arrival.add());
                        }
                    }
                    assert_eq!(sums.len() as u32, k, "{blocks} x {threads}: counters used");
                    for (offset, sum) in sums {
                        assert_eq!(sum, PHASE, "{blocks} x {threads}: counter at {offset}");
                    }
                }
            }
        }
    }
}

impl GridGroup {
    /// `grid_group::is_valid()`: whether the driver's grid workspace of a
    /// cooperative launch is there, as CUDA's own reads it.
    ///
    /// True in every cooperative launch. In an ordinary launch it is **not**
    /// a reliable "launched cooperatively": the CUDA 13 driver keeps the
    /// workspace for the rest of the process after the first cooperative
    /// launch on the device, so an ordinary launch after one reads true, and
    /// cooperative-groups makes a cooperative launch when it loads a module
    /// with a grid barrier (the timing of the barrier's place, unless
    /// `CG_GRID_BARRIER_SLOT` is set). On the simulator it is exactly the
    /// launch kind. A `#[kernel(cooperative)]` kernel needs no check: its
    /// typed handle launches it only cooperatively. (`tests/tests/guide.rs`
    /// checks both answers; the guide's grid chapter says more.)
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        intrinsics::grid_workspace() != 0
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
    /// caller's line) unless it was launched cooperatively with its
    /// module's counters set. The marker lets cg-builder find kernels that
    /// reach a grid barrier (they must be `#[kernel(cooperative)]`).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn check_barrier(&self) {
        intrinsics::grid_sync_marker("grid.sync()");
        if intrinsics::computed_in_place(self.plan) & plan::RUNS == 0 {
            barrier_refused();
        }
    }

    /// Stops the kernel (a failed check the host reports, naming the
    /// caller's line) unless it was launched cooperatively, and leaves the
    /// grid barrier's marker, so that cg-builder requires
    /// `#[kernel(cooperative)]` of a kernel that reaches it: what a grid
    /// collective that waits for other blocks needs (every block resident
    /// at once), without a barrier of its own. `what` names it in the
    /// simulator's fault.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn require_cooperative(&self, what: &'static str) {
        intrinsics::grid_sync_marker(what);
        if intrinsics::grid_workspace() == 0 {
            fault::check_failed(
                "grid collectives wait for other blocks: the kernel was not launched \
                 cooperatively; declare it #[kernel(cooperative)] so that its handle launches it \
                 with cuLaunchCooperativeKernel",
            )
        }
    }

    /// Whether this thread is in its block's first warp, the one that
    /// arrives and polls.
    #[inline(always)]
    pub(crate) fn in_first_warp(&self) -> bool {
        self.plan & plan::FIRST_WARP != 0
    }

    /// This thread's counter (meaningful where its plan says it polls),
    /// from the place's address and the plan's offset.
    #[inline(always)]
    fn counter(plan: u32) -> *mut u32 {
        intrinsics::grid_barrier_counters().wrapping_add((plan & plan::OFFSET) as u64) as *mut u32
    }

    /// The first warp's part of an arrival, after the block's `bar.sync`:
    /// the arriving lane adds the block's arrival to its counter; every
    /// lane gets the phase byte the counters had before it.
    #[inline(always)]
    pub(crate) fn arrive_in_first_warp(&self) -> u32 {
        let plan = intrinsics::computed_in_place(self.plan);
        let mut old = 0;
        if plan & plan::ARRIVES != 0 {
            let add = if plan & plan::FIRST_BLOCK != 0 {
                layout::PHASE - (plan >> plan::SHARE_SHIFT)
            } else {
                1
            };
            // SAFETY: the counter is a 4-byte aligned word of the place
            // the host set (`check_barrier` stops the kernel where none
            // was), only accessed atomically.
            old = unsafe { intrinsics::atom_add_release_gpu(Self::counter(plan), add) };
        }
        let lane = plan & plan::PHASE_LANE;
        // SAFETY: every lane of the first warp (the mask) runs this.
        let old = unsafe {
            intrinsics::shfl_sync(
                intrinsics::ShflMode::Idx,
                old,
                lane,
                0x1f,
                intrinsics::first_warp_mask_in_place(),
            )
        };
        old / layout::PHASE
    }

    /// The first warp's part of a wait: each polling lane reads its counter
    /// until its phase byte differs from `phase`; the warp leaves when
    /// every lane's has.
    #[inline(always)]
    pub(crate) fn wait_in_first_warp(&self, phase: u32) {
        let plan = intrinsics::computed_in_place(self.plan);
        let mask = intrinsics::first_warp_mask_in_place();
        let mut done = plan & plan::POLLS == 0;
        let counter = Self::counter(plan);
        loop {
            // SAFETY: as in `arrive_in_first_warp`; a lane that is done
            // reads nothing.
            let v = unsafe { intrinsics::ld_acquire_gpu_unless(done, counter) };
            done |= v / layout::PHASE != phase;
            // SAFETY: every lane of the first warp (the mask) runs the loop
            // until the vote ends it for all of them at once.
            if unsafe { intrinsics::vote_all(done, mask) } {
                break;
            }
        }
    }

    /// `grid.barrier_arrive()`: the first half of a split grid barrier. The
    /// block synchronizes (`bar.sync`), then one thread of it adds the
    /// block's arrival to its counter (`atom.add.release.gpu`), so that
    /// writes before the arrival are visible to every thread after the
    /// matching [`barrier_wait`](Self::barrier_wait). Work that does not
    /// depend on other blocks can go between the two.
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
        self.check_barrier();
        crate::checks::Site::here().grid_barrier();
        // SAFETY: the grid barrier is collective: every thread of every
        // block arrives (this method's contract), so every thread of this
        // block reaches this barrier.
        unsafe { intrinsics::bar_sync() };
        let mut phase = 0;
        if self.plan & plan::FIRST_WARP != 0 {
            phase = self.arrive_in_first_warp();
        }
        GridArrivalToken { phase }
    }

    /// `grid.barrier_wait(token)`: the second half of a split grid barrier.
    /// The block's first warp polls the counters (`ld.acquire.gpu`) until
    /// every block has arrived; then the block synchronizes (`bar.sync`).
    #[inline(always)]
    #[track_caller]
    pub fn barrier_wait(&self, token: GridArrivalToken) {
        self.check_barrier();
        if self.plan & plan::FIRST_WARP != 0 {
            self.wait_in_first_warp(token.phase);
        }
        // SAFETY: every thread of the block waits with its token (this
        // method's contract), so all of them reach this barrier.
        unsafe { intrinsics::bar_sync() };
        crate::checks::grid_barrier_passed();
    }

    /// `grid.sync()`: barrier over every thread of the grid, with memory
    /// ordering: writes before it are visible to every thread after it.
    /// `barrier_wait(barrier_arrive())`, with the first warp arriving and
    /// polling in one branch. Traps when the kernel was not launched
    /// cooperatively (see the module docs).
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        self.check_barrier();
        crate::checks::Site::here().grid_barrier();
        // SAFETY: as in `barrier_arrive` and `barrier_wait`.
        unsafe { intrinsics::bar_sync() };
        if self.plan & plan::FIRST_WARP != 0 {
            let phase = self.arrive_in_first_warp();
            self.wait_in_first_warp(phase);
        }
        // SAFETY: as above.
        unsafe { intrinsics::bar_sync() };
        crate::checks::grid_barrier_passed();
    }
}

/// The failed check of a grid barrier (`grid.sync()` or `multi_grid.sync()`)
/// in a launch that is not cooperative.
const NOT_COOPERATIVE: &str = "grid.sync(): the kernel was not launched cooperatively; declare it \
     #[kernel(cooperative)] so that its handle launches it with cuLaunchCooperativeKernel";

/// Why the grid barrier cannot run, as a failed check naming the caller's
/// line: no cooperative launch, or a module whose counters were never set.
#[cold]
#[inline(never)]
#[track_caller]
fn barrier_refused() -> ! {
    if intrinsics::grid_workspace() == 0 {
        fault::check_failed(NOT_COOPERATIVE)
    }
    fault::check_failed(
        "grid.sync(): the module's grid barrier counters were never set (cg_grid_barrier is 0); \
         load the module and launch the kernel through cooperative-groups' Gpu, which sets them",
    )
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
/// counters' phase before this block's arrival.
#[must_use = "a grid arrival must be completed with barrier_wait"]
pub struct GridArrivalToken {
    phase: u32,
}

#[cfg(test)]
mod tests {
    use super::SYNC_MARKER;

    #[test]
    fn the_marker_is_the_comment_grid_sync_leaves() {
        let asm = format!("\"// {SYNC_MARKER}\"");
        assert!(include_str!("intrinsics.rs").contains(&asm), "{asm}");
    }
}
