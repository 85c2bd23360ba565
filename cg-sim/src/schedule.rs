//! The order in which the simulator resumes the blocks of a launch: fair
//! round-robin, or skewed (blocks out of step, reproducibly for a seed).
//!
//! A launch runs in passes: in each, every thread that can run is resumed
//! once, until it waits again. [`Schedule::Fair`] resumes the blocks in
//! the same order in every pass, so the blocks of a launch move in step: a
//! bug that shows only when one block runs far ahead of another (a cycle
//! of waits in a decoupled look-back, a block that assumes the others
//! have started) passes. [`Schedule::Skewed`] puts them out of step, as a
//! GPU does when some blocks start late or their SMs run slowly.
//!
//! The schedule of a launch is, first found: the one of the innermost
//! [`with_schedule`] around it on the launching OS thread, then the
//! `CG_SIM_SCHEDULE` environment variable (`fair` or `skew:<seed>`, the
//! seed a decimal `u64`), then [`Schedule::Fair`].

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;

/// How the simulator orders the blocks of a launch. A launch runs in
/// passes: in each, every thread that can run is resumed once, until it
/// waits again. A launch's schedule is, first found: the one of the
/// innermost [`with_schedule`] around it on the launching OS thread, then
/// the `CG_SIM_SCHEDULE` environment variable (`fair` or `skew:<seed>`,
/// the seed a decimal `u64`), then [`Schedule::Fair`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Schedule {
    /// Every pass resumes the blocks in the same order (row-major block
    /// index), and the blocks of an ordinary launch run in that order: the
    /// blocks of a launch move in step. The default.
    #[default]
    Fair,
    /// Blocks out of step, every decision drawn from a generator seeded
    /// with `seed` at the start of each launch (so one seed replays one
    /// launch exactly). In every pass the blocks are resumed in a new
    /// random order, and a block may be left out of it:
    ///
    /// * each block has a speed, drawn at the start and again about every
    ///   [`PHASE_ODDS`] passes: full (half the blocks), or resumed in
    ///   only one pass in 2, 4, 8 or 16, so that the blocks of a loop
    ///   drift apart (a slow block's next step comes after many steps of
    ///   the others, as on a GPU of hundreds of blocks);
    /// * each block starts late with probability 1/2, and after a pass
    ///   that made progress, each block is held back with probability
    ///   1/[`HOLD_ODDS`]: not resumed for 1 to [`MAX_HOLD`] passes
    ///   (log-uniform: short stalls often, long ones sometimes), while the
    ///   others run many steps ahead of it.
    ///
    /// The blocks of an ordinary launch (the clusters, in a launch with
    /// clusters) run in a random order. The threads of one block are
    /// resumed in thread order, as under [`Schedule::Fair`], and faults
    /// are found alike: a block left out is never what a deadlock waits
    /// for (when nothing else could run, the next pass resumes every
    /// block), and after [`GRACE`] passes in a row without progress (every
    /// running thread only polled memory), no block is left out until one
    /// makes progress, and only such passes count towards a livelock's
    /// limit: a spin loop that cannot end is still reported, [`GRACE`]
    /// passes later.
    Skewed {
        /// The generator's seed.
        seed: u64,
    },
}

/// The longest a [`Schedule::Skewed`] launch holds a block back, in passes.
pub const MAX_HOLD: u32 = 4096;

/// In a [`Schedule::Skewed`] launch, one block in `HOLD_ODDS` is held back
/// after a pass that made progress.
pub const HOLD_ODDS: u64 = 512;

/// In a [`Schedule::Skewed`] launch, one block in `PHASE_ODDS` draws a new
/// speed in each pass.
pub const PHASE_ODDS: u64 = 2048;

/// In a [`Schedule::Skewed`] launch, passes in a row without progress
/// after which every block runs until one makes progress.
pub const GRACE: u32 = 1024;

impl fmt::Display for Schedule {
    /// `fair` or `skew:<seed>`, as `CG_SIM_SCHEDULE` takes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Fair => f.write_str("fair"),
            Schedule::Skewed { seed } => write!(f, "skew:{seed}"),
        }
    }
}

impl FromStr for Schedule {
    type Err = String;

    /// `fair`, or `skew:<seed>` with a decimal `u64` seed.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s == "fair" {
            return Ok(Schedule::Fair);
        }
        s.strip_prefix("skew:")
            .and_then(|seed| seed.parse::<u64>().ok())
            .map(|seed| Schedule::Skewed { seed })
            .ok_or_else(|| {
                format!("CG_SIM_SCHEDULE={s}: expected `fair` or `skew:<seed>` (a decimal u64)")
            })
    }
}

thread_local! {
    /// The schedule of the innermost `with_schedule` on this thread.
    static SCOPED: Cell<Option<Schedule>> = const { Cell::new(None) };
}

/// Runs `f` with `schedule` for every launch that it makes on this OS
/// thread (a launch runs on the thread that makes it, through
/// `cooperative-groups`' `Gpu::simulator()` too), over `CG_SIM_SCHEDULE`;
/// the previous schedule is back when `f` returns or unwinds.
///
/// ```
/// use cg_sim::{with_schedule, Schedule, Shape};
/// let report = with_schedule(Schedule::Skewed { seed: 7 }, || {
///     cg_sim::launch(Shape::new(4, 32).cooperative(), &|| {})
/// });
/// assert!(report.is_ok());
/// ```
pub fn with_schedule<R>(schedule: Schedule, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Schedule>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.replace(Some(schedule))));
    f()
}

/// The schedule of a launch made now on this thread, or why
/// `CG_SIM_SCHEDULE` names none.
pub(crate) fn current() -> Result<Schedule, String> {
    if let Some(s) = SCOPED.with(Cell::get) {
        return Ok(s);
    }
    match std::env::var("CG_SIM_SCHEDULE") {
        Ok(v) => v.parse(),
        Err(std::env::VarError::NotPresent) => Ok(Schedule::Fair),
        Err(e) => Err(format!("CG_SIM_SCHEDULE: {e}")),
    }
}

/// SplitMix64: small, and the same numbers for a seed in every build (a
/// seed replays a launch across versions of the simulator's dependencies).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (> 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Shuffles `v` (Fisher–Yates).
    pub(crate) fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }

    /// A hold's length: 1 to `MAX_HOLD` passes, log-uniform.
    pub(crate) fn hold(&mut self) -> u32 {
        let bits = MAX_HOLD.trailing_zeros() as u64;
        let top = 1u64 << self.below(bits + 1);
        (top / 2 + self.below(top / 2 + 1)).max(1) as u32
    }
}

/// A resident group's skew: the blocks' order, which blocks a pass leaves
/// out, and why.
pub(crate) struct Skew<'r> {
    rng: &'r mut Rng,
    /// The blocks (indices into the group) in this pass's order.
    pub(crate) order: Vec<usize>,
    /// Passes each block is still held back for.
    held: Vec<u32>,
    /// Each block is resumed in one pass in `1 << slow`.
    slow: Vec<u32>,
    /// The blocks this pass leaves out.
    out: Vec<bool>,
    /// Passes in a row without progress.
    quiet: u32,
    /// Whether the next pass resumes every block.
    force: bool,
}

impl<'r> Skew<'r> {
    /// The skew of `blocks` blocks: each starts late with probability
    /// 1/2, and at a speed of its own.
    pub(crate) fn new(rng: &'r mut Rng, blocks: usize) -> Self {
        let held = (0..blocks)
            .map(|_| if rng.below(2) == 0 { rng.hold() } else { 0 })
            .collect();
        let slow = (0..blocks).map(|_| Self::speed(rng)).collect();
        Skew {
            rng,
            order: (0..blocks).collect(),
            held,
            slow,
            out: vec![false; blocks],
            quiet: 0,
            force: false,
        }
    }

    /// A block's speed: full with probability 1/2, else one pass in 2, 4,
    /// 8 or 16.
    fn speed(rng: &mut Rng) -> u32 {
        if rng.below(2) == 0 {
            0
        } else {
            1 + rng.below(4) as u32
        }
    }

    /// Starts a pass after one that `progressed` or not: a new order,
    /// holds counted down and new ones, new speeds, and which blocks this
    /// pass leaves out.
    pub(crate) fn next_pass(&mut self, progressed: bool) {
        self.quiet = if progressed { 0 } else { self.quiet + 1 };
        let everyone = std::mem::take(&mut self.force) || self.quiet >= GRACE;
        self.rng.shuffle(&mut self.order);
        for b in 0..self.held.len() {
            if self.held[b] > 0 {
                self.held[b] -= 1;
            } else if progressed && self.rng.below(HOLD_ODDS) == 0 {
                self.held[b] = self.rng.hold();
            }
            if self.rng.below(PHASE_ODDS) == 0 {
                self.slow[b] = Self::speed(self.rng);
            }
            let slow = self.slow[b];
            let skip = self.held[b] > 0 || (slow > 0 && self.rng.below(1 << slow) != 0);
            self.out[b] = skip && !everyone;
        }
    }

    /// Whether this pass leaves block `b` out (held back, or a slow
    /// block's pass off).
    pub(crate) fn left_out(&self, b: usize) -> bool {
        self.out[b]
    }

    /// Whether this pass leaves any block out.
    pub(crate) fn any_left_out(&self) -> bool {
        self.out.iter().any(|&o| o)
    }

    /// Makes the next pass resume every block.
    pub(crate) fn release_all(&mut self) {
        self.force = true;
    }
}
