//! A CPU simulator of a CUDA device, for kernels written with `cg-core`.
//!
//! Every CUDA thread of a launch is a coroutine with a stack of its own,
//! run on the calling OS thread. A thread runs until it must wait for
//! others (a block barrier, a warp instruction with a member mask, a
//! cluster barrier) or polls memory in a spin loop; then the next thread
//! runs. A rendezvous completes when every thread it waits for has
//! arrived, and computes every participant's result exactly as PTX
//! defines it ([`warp`]). So a kernel's results are those of the GPU
//! wherever CUDA defines them, and where it does not, the simulator says
//! so instead of inventing a plausible value:
//!
//! * a shuffle that reads a lane that is not there (exited, never launched
//!   in a partial warp, outside the mask) returns [`warp::POISON`], and a
//!   load of shared memory no thread wrote returns
//!   [`device::SHARED_POISON`] bytes; both are listed in the launch's
//!   [`Report`] (and what a kernel computes from them is undefined too);
//! * a block barrier that some threads passed after others exited, a warp
//!   instruction whose mask does not hold the caller, two lanes waiting at
//!   different warp instructions for each other, `grid.sync()` in a launch
//!   that is not cooperative, a deadlock, a spin loop that cannot end, a
//!   shared-memory access past the block's shared memory, two threads
//!   touching a shared byte with nothing ordering them (see
//!   [`Shape::shared_checks`]), two threads reaching one element of a
//!   global buffer through cg-core's output views in one barrier phase
//!   with nothing ordering them (see [`Shape::global_checks`]), threads
//!   reaching a grid barrier (or, in one block, a block barrier) at
//!   different call sites, an argument every thread must pass alike that
//!   differs between threads,
//!   and any panic of the kernel stop the launch with a [`Fault`] that names the thread
//!   (block, thread, warp, lane) and what it waited for.
//!
//! Which blocks are alive together: all of them in a cooperative launch
//! (so grid barriers work), the blocks of one cluster in a launch with
//! clusters, one block otherwise. They take turns in a fixed order, so
//! they move in step, or out of step, reproducibly for a seed, under a
//! skewed [`Schedule`] ([`with_schedule`], `CG_SIM_SCHEDULE=skew:<seed>`). Global memory is host memory: the
//! kernel's buffers are the host's, and atomics on them are host atomics.
//! Memory is sequentially consistent (one OS thread runs a launch), so a
//! missing fence is not found here; timing is not modelled at all.
//!
//! Kernels reach the simulator through `cg-core` built with its `sim`
//! feature: its instructions call [`device`] off the GPU. This crate knows
//! nothing of `cg-core`; `cg_core::sim` is where a kernel author starts.
#![warn(missing_docs)]

pub mod device;
mod fault;
mod global;
#[cfg(unix)]
mod overflow;
pub mod printf;
mod race;
pub mod registry;
mod sched;
mod schedule;
mod state;
mod uniform;
pub mod warp;

pub use fault::{Coords, Fault, FaultKind, Read, Report, Undefined};
pub use schedule::{with_schedule, Schedule, GRACE, HOLD_ODDS, MAX_HOLD, PHASE_ODDS};

/// The shape of a simulated launch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shape {
    /// Blocks in the grid, per dimension.
    pub grid: [u32; 3],
    /// Threads in a block, per dimension.
    pub block: [u32; 3],
    /// Blocks in a cluster, per dimension (`[1, 1, 1]`: no clusters).
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory per block.
    pub dynamic_shared: u32,
    /// A cooperative launch: every block alive at once, grid barriers
    /// allowed.
    pub cooperative: bool,
    /// Check plain shared-memory accesses: races (a fault) and loads of
    /// bytes no thread wrote (undefined reads in the report). On unless
    /// turned off ([`Shape::without_shared_checks`]).
    pub shared_checks: bool,
    /// Check the accesses to global buffers made through the output views
    /// (`Output`'s patterns, `Synced`'s reads): two threads on one element
    /// in one barrier phase, one of them writing, with nothing ordering
    /// them, is a fault. On unless turned off
    /// ([`Shape::without_global_checks`]).
    pub global_checks: bool,
}

/// The most threads in a block, as on every CUDA GPU since sm_20.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// The most shared memory a block may use (an sm_90 GPU's 227 KiB).
pub const MAX_SHARED_BYTES: u32 = 227 * 1024;
/// The simulated device's streaming multiprocessors: few, since every
/// thread alive at once (all of a cooperative launch) needs a stack of its
/// own.
pub const SMS: u32 = 4;
/// The most threads resident on one simulated SM (as on sm_80 and sm_90).
pub const SM_THREADS: u32 = 2048;
/// The most blocks resident on one simulated SM (as on sm_90).
pub const SM_BLOCKS: u32 = 32;
/// The shared memory of one simulated SM (an sm_90 SM's 228 KiB).
pub const SM_SHARED_BYTES: u32 = 228 * 1024;
/// The most threads a cooperative launch may have: every SM full.
pub const MAX_COOPERATIVE_THREADS: u64 = SMS as u64 * SM_THREADS as u64;
/// The most blocks in a cluster (CUDA's portable limit).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

impl Shape {
    /// `grid` blocks of `block` threads (1-D).
    pub fn new(grid: u32, block: u32) -> Self {
        Shape::dims([grid, 1, 1], [block, 1, 1])
    }

    /// A grid and block of up to three dimensions.
    pub fn dims(grid: [u32; 3], block: [u32; 3]) -> Self {
        Shape {
            grid,
            block,
            cluster: [1, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
            shared_checks: true,
            global_checks: true,
        }
    }

    /// With `bytes` of dynamic shared memory per block.
    pub fn with_dynamic_shared(mut self, bytes: u32) -> Self {
        self.dynamic_shared = bytes;
        self
    }

    /// As a cooperative launch.
    pub fn cooperative(mut self) -> Self {
        self.cooperative = true;
        self
    }

    /// Without the shared-memory checks (they keep the last accesses of
    /// every byte of shared memory and check every plain access).
    pub fn without_shared_checks(mut self) -> Self {
        self.shared_checks = false;
        self
    }

    /// Without the global-memory race check (it keeps the last access of
    /// every element the output views handed out).
    pub fn without_global_checks(mut self) -> Self {
        self.global_checks = false;
        self
    }

    /// With clusters of `cluster` blocks.
    pub fn with_cluster(mut self, cluster: [u32; 3]) -> Self {
        self.cluster = cluster;
        self
    }

    /// Threads per block.
    pub fn block_threads(&self) -> u32 {
        self.block.iter().product()
    }

    /// Blocks in the grid.
    pub fn num_blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }

    /// Why the simulated device refuses this shape, if it does.
    pub fn check(&self) -> Result<(), String> {
        if self.grid.contains(&0) || self.block.contains(&0) || self.cluster.contains(&0) {
            return Err(format!(
                "a launch of grid {:?}, block {:?}, cluster {:?} has a dimension of 0",
                self.grid, self.block, self.cluster
            ));
        }
        let threads = self.block.iter().map(|&b| b as u64).product::<u64>();
        if threads > MAX_BLOCK_THREADS as u64 {
            return Err(format!(
                "a block of {:?} = {threads} threads: the most is {MAX_BLOCK_THREADS}",
                self.block
            ));
        }
        if self.dynamic_shared > MAX_SHARED_BYTES {
            return Err(format!(
                "{} bytes of dynamic shared memory: a block may have at most {MAX_SHARED_BYTES}",
                self.dynamic_shared
            ));
        }
        if (0..3).any(|d| self.grid[d] % self.cluster[d] != 0) {
            return Err(format!(
                "the grid {:?} is not a whole number of clusters {:?}",
                self.grid, self.cluster
            ));
        }
        let cluster_blocks = self.cluster.iter().product::<u32>();
        if cluster_blocks > MAX_CLUSTER_BLOCKS {
            return Err(format!(
                "clusters of {cluster_blocks} blocks: the most is {MAX_CLUSTER_BLOCKS}"
            ));
        }
        if self.cooperative && self.num_blocks() * threads > MAX_COOPERATIVE_THREADS {
            return Err(format!(
                "a cooperative launch of {} blocks of {threads} threads: the simulated device keeps at \
                 most {MAX_COOPERATIVE_THREADS} threads alive at once (4 SMs of 2,048); launch fewer \
                 blocks (a grid-stride loop covers the rest)",
                self.num_blocks()
            ));
        }
        Ok(())
    }
}

/// Runs `kernel` as every thread of a launch of `shape`, on this OS
/// thread, and returns when every thread has returned, or at the first
/// fault. Every thread calls `kernel`; inside it, `cg-core`'s queries
/// (`this_grid()`, `thread_rank()`, ...) tell the threads apart. The
/// blocks take turns as the [`Schedule`] of the launch says
/// ([`with_schedule`], `CG_SIM_SCHEDULE`; fair round-robin by default);
/// an unreadable `CG_SIM_SCHEDULE` is a `BadLaunch` fault.
pub fn launch(shape: Shape, kernel: &(dyn Fn() + Sync)) -> Result<Report, Fault> {
    let bad = |message| Fault {
        kind: FaultKind::BadLaunch,
        at: None,
        message,
    };
    shape.check().map_err(bad)?;
    let schedule = schedule::current().map_err(bad)?;
    sched::run(shape, schedule, kernel)
}
