//! What a simulated launch reports: the fault that stopped it, with the
//! thread that made it, and the undefined reads it survived.

use std::fmt;

/// Where a simulated thread is: its block and thread index, and its warp
/// and lane in the block.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Coords {
    /// `blockIdx`.
    pub block: [u32; 3],
    /// `threadIdx`.
    pub thread: [u32; 3],
    /// The warp in the block (linear thread index / 32).
    pub warp: u32,
    /// The lane in the warp.
    pub lane: u32,
}

impl fmt::Display for Coords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(
            f,
            "block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz}) (warp {}, lane {})",
            self.warp, self.lane
        )
    }
}

/// Why a simulated launch stopped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FaultKind {
    /// The kernel panicked (a bounds check, an `unwrap`, an `assert!`, a
    /// `trap`): `message` is the panic's, with its location.
    Panic,
    /// A block barrier (`bar.sync`: `block.sync()`, `__syncthreads`) that
    /// some threads of the block passed while others had exited without
    /// reaching it: CUDA leaves that undefined (it hangs or corrupts).
    BarrierNotReached,
    /// A warp instruction whose member mask does not hold the calling lane.
    CallerNotInMask,
    /// Two lanes of one warp wait at different warp instructions (or the
    /// same one with different masks), each with the other in its mask:
    /// neither can complete.
    WarpMismatch,
    /// `grid.sync()` (or a multi-grid barrier) in a launch that is not
    /// cooperative.
    GridSyncNotCooperative,
    /// Every thread that has not finished waits for another: the message
    /// says who waits where.
    Deadlock,
    /// Threads spin on memory that nothing left running will change.
    Livelock,
    /// A shared-memory access outside the block's shared memory.
    SharedOutOfBounds,
    /// Two threads of a block access a shared byte, at least one of them
    /// writing, with no barrier or warp rendezvous between them.
    SharedRace,
    /// Two threads reach one element of a global buffer through the
    /// output views (`Output`'s patterns, `Synced`'s reads) in the same
    /// barrier phase, at least one of them for writing (`&mut`), with
    /// nothing the simulator knows of ordering the two (a grid barrier, a
    /// block barrier of their block, a release the reader acquired).
    GlobalRace,
    /// Threads of one launch reach a barrier, in the same phase, at
    /// different call sites: one grid barrier (`grid.sync()`, directly or
    /// through `Output::sync`) for all, or one block barrier per block.
    /// CUDA leaves that undefined.
    BarrierDivergence,
    /// Threads pass different values for an argument every thread of the
    /// launch must pass alike (a chunk's length, a row's width, a window,
    /// a stencil's sizes) at the same call: the pattern's promise that no
    /// two threads reach one element no longer holds.
    NonUniformArgument,
    /// The launch itself is refused (its shape, its shared memory).
    BadLaunch,
}

/// A simulated launch that did not complete: what happened, and the
/// thread it happened in (none for a launch refused before it ran).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fault {
    /// What happened.
    pub kind: FaultKind,
    /// The thread that made the fault, where one thread did.
    pub at: Option<Coords>,
    /// The whole story, in words.
    pub message: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "simulated kernel fault at {at}: {}", self.message),
            None => write!(f, "simulated kernel fault: {}", self.message),
        }
    }
}

impl std::error::Error for Fault {}

/// What an undefined read read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Read {
    /// A warp instruction read this lane, which is not there (exited,
    /// never launched in a partial warp, or outside the member mask).
    Lane(u32),
    /// A plain load read this shared-memory address, which no thread of
    /// the block had written (CUDA's shared memory starts uninitialized).
    Shared(u32),
}

/// A read whose value CUDA leaves undefined: a warp instruction that read a
/// lane that is not there (it got [`crate::warp::POISON`]) or a load of
/// shared memory no thread wrote (it got
/// [`crate::device::SHARED_POISON`] bytes). What is computed from such a
/// value is undefined too.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Undefined {
    /// The reading thread.
    pub at: Coords,
    /// The instruction's PTX name.
    pub op: &'static str,
    /// What it read.
    pub read: Read,
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.read {
            Read::Lane(lane) => write!(
                f,
                "{}: {} read lane {lane}, which is not there; the value is undefined",
                self.at, self.op
            ),
            Read::Shared(addr) => write!(
                f,
                "{}: {} read shared memory at {addr:#x}, which no thread wrote; the value is undefined",
                self.at, self.op
            ),
        }
    }
}

/// What a completed simulated launch reports besides its results.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Report {
    /// Every read whose value CUDA leaves undefined, in the order they
    /// happened.
    pub undefined: Vec<Undefined>,
}

impl Report {
    /// Fails with every undefined read listed, where there was one: for
    /// kernels whose every result must be defined.
    pub fn all_defined(&self) -> Result<(), String> {
        if self.undefined.is_empty() {
            return Ok(());
        }
        let mut s = format!("{} undefined reads:", self.undefined.len());
        for u in self.undefined.iter().take(10) {
            s.push_str(&format!("\n  {u}"));
        }
        Err(s)
    }
}
