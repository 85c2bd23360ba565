//! The simulated device's state during a launch: the launch, its clusters,
//! blocks and threads. One OS thread runs a launch, so the state is plain
//! `Cell`s and `RefCell`s; no borrow is held while a thread is suspended.

use crate::fault::{Coords, Fault, FaultKind, Report};
use crate::warp::{Arrival, Outcome};
use crate::Shape;
use corosensei::Yielder;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use std::time::Instant;

/// Why a simulated thread gave the OS thread back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Yield {
    /// It waits for other threads; someone else marks it runnable.
    Blocked,
    /// It polls memory (a spin loop): runnable, but it made no progress.
    Spin,
}

/// Whether a thread can run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Run {
    Runnable,
    Blocked,
    Done,
}

/// What a blocked thread waits for (for the rendezvous and for deadlock
/// reports).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wait {
    Nothing,
    BlockBarrier,
    Warp(Arrival),
    /// `activemask` at a call site (threads at the same `Location`, by
    /// address, are one site).
    ActiveMask(&'static std::panic::Location<'static>),
    ClusterBarrier,
}

/// One simulated CUDA thread.
pub(crate) struct ThreadCx {
    pub coords: Coords,
    pub block: *const BlockState,
    pub launch: *const LaunchState,
    pub run: Cell<Run>,
    pub wait: Cell<Wait>,
    pub result: Cell<Outcome>,
    pub yielder: Cell<*const Yielder<(), Yield>>,
    /// The cluster barrier phase this thread arrived in.
    pub cluster_phase: Cell<u64>,
    /// The block's release count at this thread's last acquire operation
    /// (the race check's).
    pub acquired: Cell<u64>,
    /// The global race check's: grid barriers passed, the launch's release
    /// count at the last acquire, explicit acquires of buffers (base
    /// address, access count), the last whole-buffer read recorded.
    pub grid_phase: Cell<u32>,
    pub acquired_global: Cell<u64>,
    pub edges: RefCell<Vec<(u64, u64)>>,
    pub last_read: Cell<Option<(u64, u32, u64, u64)>>,
    /// Calls so far per call site of a pattern whose arguments must be
    /// uniform.
    pub argument_calls: RefCell<HashMap<crate::uniform::Site, u64>>,
}

impl ThreadCx {
    pub fn block(&self) -> &BlockState {
        // SAFETY: blocks outlive their threads (both live in one resident
        // set, dropped threads first).
        unsafe { &*self.block }
    }

    pub fn launch(&self) -> &LaunchState {
        // SAFETY: the launch outlives every resident set.
        unsafe { &*self.launch }
    }

    /// The linear thread index in the block.
    pub fn linear(&self) -> u32 {
        self.coords.warp * 32 + self.coords.lane
    }

    /// Its wait is over: it runs again.
    pub fn wake(&self) {
        self.wait.set(Wait::Nothing);
        self.run.set(Run::Runnable);
    }
}

/// An `mbarrier` object in shared memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mbarrier {
    pub expected: u32,
    pub pending: u32,
    pub tx: i64,
    pub phase: u64,
}

/// One simulated block.
pub(crate) struct BlockState {
    pub idx: [u32; 3],
    /// The block's rank in its cluster, and the cluster.
    pub cluster_rank: u32,
    pub cluster: *const ClusterState,
    pub shared: RefCell<Vec<u8>>,
    pub threads: Vec<*const ThreadCx>,
    pub live: Cell<u32>,
    /// The first thread that exited, and how many have.
    pub first_exit: Cell<Option<Coords>>,
    pub exited: Cell<u32>,
    pub bar_arrived: Cell<u32>,
    /// Where the block barrier's first waiting thread reached it, and
    /// which thread that was (its linear index).
    pub bar_site: Cell<Option<(&'static std::panic::Location<'static>, u32)>>,
    /// Per warp: the lanes' pending arrivals, and the lanes still running.
    pub warp_slots: Vec<RefCell<[Option<Arrival>; 32]>>,
    pub warp_live: Vec<Cell<u32>>,
    pub mbarriers: RefCell<HashMap<u32, Mbarrier>>,
    /// The race check's state: the barrier epoch (block barriers, cluster
    /// barriers and mbarrier phases completed), per warp the count of its
    /// completed rendezvous and per lane the count at the last one it took
    /// part in, and per shared byte its last accesses.
    pub epoch: Cell<u64>,
    pub releases: Cell<u64>,
    pub warp_seq: Vec<Cell<u64>>,
    pub lane_synced: Vec<[Cell<u64>; 32]>,
    pub shadow: RefCell<Vec<crate::race::Shadow>>,
}

impl BlockState {
    pub fn thread(&self, linear: u32) -> &ThreadCx {
        // SAFETY: threads live as long as their block's resident set.
        unsafe { &*self.threads[linear as usize] }
    }

    pub fn cluster(&self) -> &ClusterState {
        // SAFETY: clusters outlive their blocks.
        unsafe { &*self.cluster }
    }

    /// A barrier phase of this block ended: the threads `waiting` for it
    /// run again, and for the race check what came before it is ordered
    /// before what comes after.
    pub fn end_barrier_phase(&self, waiting: impl Fn(Wait) -> bool) {
        self.epoch.set(self.epoch.get() + 1);
        // What one thread of the block acquired, the others have after the
        // barrier (it orders them after that thread).
        let acquired = (0..self.threads.len() as u32)
            .map(|i| self.thread(i).acquired_global.get())
            .max()
            .unwrap_or(0);
        for i in 0..self.threads.len() as u32 {
            self.thread(i).acquired_global.set(acquired);
        }
        for i in 0..self.threads.len() as u32 {
            let th = self.thread(i);
            if waiting(th.wait.get()) {
                th.wake();
            }
        }
        self.thread(0).launch().progress();
    }
}

/// One simulated cluster (a single block when the launch has none).
pub(crate) struct ClusterState {
    pub idx: [u32; 3],
    pub blocks: RefCell<Vec<*const BlockState>>,
    pub live: Cell<u32>,
    pub arrived: Cell<u32>,
    pub phase: Cell<u64>,
}

impl ClusterState {
    pub fn block(&self, rank: u32) -> Option<&BlockState> {
        // SAFETY: as `BlockState::cluster`.
        self.blocks
            .borrow()
            .get(rank as usize)
            .map(|b| unsafe { &**b })
    }
}

/// The whole launch.
pub(crate) struct LaunchState {
    pub shape: Shape,
    /// Static shared arrays: the address of each call site's static, and
    /// its offset in every block's shared memory.
    pub shared_sites: RefCell<HashMap<usize, u32>>,
    /// Where the next static shared array goes (after the dynamic region).
    pub shared_end: Cell<u32>,
    /// The grid barrier's workspace (cooperative launches), laid out as
    /// the driver's: its second word is the barrier word that
    /// `multi_grid.sync()` arrives on (`grid.sync()` uses
    /// `grid_barrier_counters`).
    pub grid_barrier: Box<[AtomicU32; 4]>,
    /// cg-core's grid barrier counters (on the GPU a place the host
    /// chose, here one zeroed region per launch), made at their first use.
    pub grid_barrier_counters: std::cell::OnceCell<Box<[AtomicU32]>>,
    /// Progress: bumped whenever a thread completes a wait or finishes.
    pub events: Cell<u64>,
    pub report: RefCell<Report>,
    /// The fault a device call raised before unwinding the thread.
    pub fault: RefCell<Option<Fault>>,
    pub start: Instant,
    /// The kernel's name, from its first call (`#[kernel]` functions).
    pub kernel: Cell<Option<&'static str>>,
    /// The global race check's state, and the launch's release operations
    /// so far.
    pub global: RefCell<crate::global::Shadow>,
    pub global_releases: Cell<u64>,
    /// What every thread must do alike (`uniform`).
    pub uniform: RefCell<crate::uniform::Uniform>,
}

impl LaunchState {
    pub fn new(shape: Shape) -> Self {
        LaunchState {
            shared_end: Cell::new(shape.dynamic_shared.next_multiple_of(16)),
            shape,
            shared_sites: RefCell::new(HashMap::new()),
            grid_barrier: Box::new([const { AtomicU32::new(0) }; 4]),
            grid_barrier_counters: std::cell::OnceCell::new(),
            events: Cell::new(0),
            report: RefCell::new(Report::default()),
            fault: RefCell::new(None),
            start: Instant::now(),
            kernel: Cell::new(None),
            global: RefCell::new(crate::global::Shadow::default()),
            global_releases: Cell::new(0),
            uniform: RefCell::new(crate::uniform::Uniform::default()),
        }
    }

    pub fn progress(&self) {
        self.events.set(self.events.get() + 1);
    }

    /// Records `fault` (the first one wins).
    pub fn set_fault(&self, kind: FaultKind, at: Option<Coords>, message: String) {
        let mut f = self.fault.borrow_mut();
        if f.is_none() {
            *f = Some(Fault { kind, at, message });
        }
    }
}
