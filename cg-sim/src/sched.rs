//! Runs a launch: the blocks that must be alive together (all of them in
//! a cooperative launch, a cluster's, or one block) as coroutines on this
//! OS thread, each resumed in turn until it waits; a rendezvous wakes the
//! threads it completes. When nothing can run, the launch deadlocked, and
//! the report says who waits where. The blocks take turns in a fixed order,
//! or out of step under a skewed schedule (`schedule`).

use crate::device::{self, Abort, CURRENT};
use crate::fault::{Coords, Fault, FaultKind, Report};
use crate::schedule::{Rng, Schedule, Skew};
use crate::state::{BlockState, ClusterState, LaunchState, Run, ThreadCx, Wait, Yield};
use crate::warp::Outcome;
use crate::Shape;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

type Thread = Coroutine<(), Yield, (), DefaultStack>;

/// Passes in a row in which threads only polled memory before the launch
/// is called a livelock.
const SPIN_LIMIT: u64 = 200_000;

thread_local! {
    /// Stacks of finished threads, for the next ones.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// The last panic of a simulated thread: its message and location.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The stack size of a simulated thread (`CG_SIM_STACK_KIB` overrides it):
/// 1 MiB, which the probes of this project's tests need in a debug build.
/// Only the pages a thread touches are backed by memory.
fn stack_bytes() -> usize {
    std::env::var("CG_SIM_STACK_KIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(1024 * 1024, |k| k * 1024)
}

fn take_stack() -> DefaultStack {
    STACKS.with(|s| s.borrow_mut().pop()).unwrap_or_else(|| {
        DefaultStack::new(stack_bytes()).expect("cg-sim: cannot map a thread stack")
    })
}

/// A panic of a simulated thread is part of the launch's result, not
/// something to print: the hook keeps its message for the fault.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        #[cfg(unix)]
        crate::overflow::install();
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if device::inside() {
                let payload = info.payload();
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(a panic without a message)".to_string());
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked at {at}: {msg}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `kernel` over `shape` in the order of `schedule`.
pub(crate) fn run(
    shape: Shape,
    schedule: Schedule,
    kernel: &(dyn Fn() + Sync),
) -> Result<Report, Fault> {
    install_panic_hook();
    let launch = LaunchState::new(shape);
    let mut rng = match schedule {
        Schedule::Fair => None,
        Schedule::Skewed { seed } => Some(Rng::new(seed)),
    };
    let [gx, gy, gz] = shape.grid;
    let [cx, cy, cz] = shape.cluster;
    let mut blocks = Vec::new();
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                blocks.push([x, y, z]);
            }
        }
    }
    // The blocks that are alive together.
    let cluster_of = |b: [u32; 3]| [b[0] / cx, b[1] / cy, b[2] / cz];
    let mut groups: Vec<Vec<[u32; 3]>> = if shape.cooperative {
        vec![blocks]
    } else {
        let mut by_cluster: BTreeMap<[u32; 3], Vec<[u32; 3]>> = BTreeMap::new();
        for b in blocks {
            let c = cluster_of(b);
            by_cluster.entry([c[2], c[1], c[0]]).or_default().push(b);
        }
        by_cluster.into_values().collect()
    };
    if let Some(rng) = rng.as_mut() {
        rng.shuffle(&mut groups);
    }
    for group in groups {
        run_resident(&launch, kernel, &group, rng.as_mut()).map_err(|mut f| {
            // What replays it.
            if schedule != Schedule::Fair {
                f.message.push_str(&format!(
                    "\n(under the simulator's schedule {schedule}: CG_SIM_SCHEDULE={schedule} or \
                     cg_sim::with_schedule replays it)"
                ));
            }
            f
        })?;
    }
    Ok(launch.report.into_inner())
}

/// Runs the blocks of `group` together to the end.
fn run_resident(
    launch: &LaunchState,
    kernel: &(dyn Fn() + Sync),
    group: &[[u32; 3]],
    rng: Option<&mut Rng>,
) -> Result<(), Fault> {
    let shape = &launch.shape;
    let [cx, cy, cz] = shape.cluster;
    let threads_per_block = shape.block[0] * shape.block[1] * shape.block[2];
    let warps = threads_per_block.div_ceil(32);

    let mut clusters: Vec<Box<ClusterState>> = Vec::new();
    let mut cluster_index: HashMap<[u32; 3], usize> = HashMap::new();
    let mut blocks: Vec<Box<BlockState>> = Vec::with_capacity(group.len());
    for &b in group {
        let c = [b[0] / cx, b[1] / cy, b[2] / cz];
        let ci = *cluster_index.entry(c).or_insert_with(|| {
            clusters.push(Box::new(ClusterState {
                idx: c,
                blocks: RefCell::new(Vec::new()),
                live: Cell::new(0),
                arrived: Cell::new(0),
                phase: Cell::new(0),
            }));
            clusters.len() - 1
        });
        let rank = (b[0] % cx) + cx * ((b[1] % cy) + cy * (b[2] % cz));
        let cluster: &ClusterState = &clusters[ci];
        let mut live_per_warp = Vec::with_capacity(warps as usize);
        for w in 0..warps {
            let n = (threads_per_block - w * 32).min(32);
            live_per_warp.push(Cell::new(if n == 32 { u32::MAX } else { (1u32 << n) - 1 }));
        }
        blocks.push(Box::new(BlockState {
            idx: b,
            cluster_rank: rank,
            cluster: cluster as *const ClusterState,
            shared: RefCell::new(Vec::new()),
            threads: Vec::with_capacity(threads_per_block as usize),
            live: Cell::new(threads_per_block),
            first_exit: Cell::new(None),
            exited: Cell::new(0),
            bar_arrived: Cell::new(0),
            bar_site: Cell::new(None),
            warp_slots: (0..warps).map(|_| RefCell::new([None; 32])).collect(),
            warp_live: live_per_warp,
            mbarriers: RefCell::new(HashMap::new()),
            epoch: Cell::new(0),
            releases: Cell::new(0),
            warp_seq: (0..warps).map(|_| Cell::new(0)).collect(),
            lane_synced: (0..warps)
                .map(|_| std::array::from_fn(|_| Cell::new(0)))
                .collect(),
            shadow: RefCell::new(Vec::new()),
        }));
    }
    for block in &blocks {
        let cluster = block.cluster();
        let mut members = cluster.blocks.borrow_mut();
        let rank = block.cluster_rank as usize;
        if members.len() <= rank {
            members.resize(rank + 1, std::ptr::null());
        }
        members[rank] = &**block as *const BlockState;
        cluster.live.set(cluster.live.get() + threads_per_block);
    }

    let mut threads: Vec<Box<ThreadCx>> =
        Vec::with_capacity(blocks.len() * threads_per_block as usize);
    for block in &mut blocks {
        let block_ptr = &**block as *const BlockState;
        let [bx, by, _] = shape.block;
        for linear in 0..threads_per_block {
            let t = Box::new(ThreadCx {
                coords: Coords {
                    block: block.idx,
                    thread: [linear % bx, (linear / bx) % by, linear / (bx * by)],
                    warp: linear / 32,
                    lane: linear % 32,
                },
                block: block_ptr,
                launch: launch as *const LaunchState,
                run: Cell::new(Run::Runnable),
                wait: Cell::new(Wait::Nothing),
                result: Cell::new(Outcome::default()),
                yielder: Cell::new(std::ptr::null()),
                cluster_phase: Cell::new(0),
                acquired: Cell::new(0),
                grid_phase: Cell::new(0),
                acquired_global: Cell::new(0),
                edges: RefCell::new(Vec::new()),
                last_read: Cell::new(None),
                argument_calls: RefCell::new(HashMap::new()),
            });
            block.threads.push(&*t as *const ThreadCx);
            threads.push(t);
        }
    }

    let mut coroutines: Vec<Option<Thread>> = threads
        .iter()
        .map(|t| {
            let cx = &**t as *const ThreadCx as usize;
            let body = move |y: &corosensei::Yielder<(), Yield>, ()| {
                // SAFETY: the thread's context outlives its coroutine.
                let t = unsafe { &*(cx as *const ThreadCx) };
                t.yielder.set(y as *const _);
                kernel();
            };
            // SAFETY: every coroutine is finished or dropped before this
            // function returns, while `kernel` and the contexts are alive.
            Some(unsafe { Coroutine::with_stack_unchecked(take_stack(), body) })
        })
        .collect();

    let mut skew = rng.map(|r| Skew::new(r, blocks.len()));
    let result = schedule(launch, &threads, &blocks, &mut coroutines, skew.as_mut());
    // Unfinished threads unwind here (their stacks are not reused).
    for co in coroutines.iter_mut() {
        if let Some(c) = co.take() {
            if c.done() {
                STACKS.with(|s| s.borrow_mut().push(c.into_stack()));
            } else {
                drop(c);
            }
        }
    }
    result
}

/// Runs the threads in passes until all have finished or one faults:
/// each pass resumes every runnable thread once, block by block (in the
/// skew's order, leaving out the blocks it holds back, under a skewed
/// schedule).
fn schedule(
    launch: &LaunchState,
    threads: &[Box<ThreadCx>],
    blocks: &[Box<BlockState>],
    coroutines: &mut [Option<Thread>],
    mut skew: Option<&mut Skew<'_>>,
) -> Result<(), Fault> {
    let per_block = threads.len() / blocks.len().max(1);
    let fair: Vec<usize> = (0..blocks.len()).collect();
    let mut stalled = 0u64;
    let mut progressed = true;
    loop {
        let before = launch.events.get();
        let mut ran = false;
        let mut remaining = false;
        // Runnable threads of blocks this pass leaves out.
        let mut left_out_runnable = false;
        if let Some(skew) = skew.as_deref_mut() {
            skew.next_pass(progressed);
        }
        let order = skew.as_deref().map_or(&fair, |s| &s.order);
        for &b in order {
            let left_out = skew.as_deref().is_some_and(|s| s.left_out(b));
            for i in b * per_block..(b + 1) * per_block {
                let t = &threads[i];
                match t.run.get() {
                    Run::Done => continue,
                    Run::Blocked => {
                        remaining = true;
                        continue;
                    }
                    Run::Runnable => {}
                }
                remaining = true;
                if left_out {
                    left_out_runnable = true;
                    continue;
                }
                ran = true;
                let co = coroutines[i]
                    .as_mut()
                    .expect("a running thread has its coroutine");
                CURRENT.with(|c| c.set(&**t as *const ThreadCx));
                let step = panic::catch_unwind(AssertUnwindSafe(|| co.resume(())));
                CURRENT.with(|c| c.set(std::ptr::null()));
                match step {
                    Ok(CoroutineResult::Yield(Yield::Blocked)) => launch.progress(),
                    Ok(CoroutineResult::Yield(Yield::Spin)) => {}
                    Ok(CoroutineResult::Return(())) => {
                        let c = coroutines[i].take().expect("finished thread");
                        STACKS.with(|s| s.borrow_mut().push(c.into_stack()));
                        finish(t);
                    }
                    Err(payload) => {
                        if payload.downcast_ref::<Abort>().is_none() {
                            let message = LAST_PANIC
                                .with(|p| p.borrow_mut().take())
                                .unwrap_or_else(|| "panicked".to_string());
                            launch.set_fault(FaultKind::Panic, Some(t.coords), message);
                        }
                        coroutines[i] = None;
                    }
                }
                if let Some(f) = launch.fault.borrow_mut().take() {
                    return Err(f);
                }
            }
        }
        let woke = resolve_activemasks(blocks);
        if let Some(f) = launch.fault.borrow_mut().take() {
            return Err(f);
        }
        if !remaining {
            return Ok(());
        }
        // Blocks left out while nothing else could run: not a deadlock
        // (the next pass resumes them all), and not a pass to count as a
        // livelock's.
        let leaving_out = skew.as_deref().is_some_and(|s| s.any_left_out());
        if !ran && !woke && left_out_runnable {
            if let Some(skew) = skew.as_deref_mut() {
                skew.release_all();
            }
            progressed = false;
            continue;
        }
        if !ran && !woke {
            return Err(Fault {
                kind: FaultKind::Deadlock,
                at: None,
                message: format!(
                    "deadlock: every thread that has not finished waits for another\n{}",
                    who_waits_where(blocks)
                ),
            });
        }
        progressed = launch.events.get() != before || woke;
        if !progressed {
            // A livelock counts only passes in which every block ran
            // (under the skew, every pass after `GRACE` without progress).
            if !leaving_out {
                stalled += 1;
            }
            if stalled > SPIN_LIMIT {
                return Err(Fault {
                    kind: FaultKind::Livelock,
                    at: None,
                    message: format!(
                        "livelock: for {SPIN_LIMIT} rounds, the threads still running only polled \
                         memory that no thread changed (a spin loop waiting for a thread that waits \
                         itself, or for a block of an ordinary launch that runs later: only a \
                         cooperative launch keeps every block alive at once)\n{}",
                        who_waits_where(blocks)
                    ),
                });
            }
        } else {
            stalled = 0;
        }
    }
}

/// A thread returned from the kernel: it leaves its warp and block, and
/// the rendezvous that waited only for it complete.
fn finish(t: &ThreadCx) {
    t.run.set(Run::Done);
    let block = t.block();
    let launch = t.launch();
    launch.progress();
    block.live.set(block.live.get() - 1);
    block.exited.set(block.exited.get() + 1);
    if block.first_exit.get().is_none() {
        block.first_exit.set(Some(t.coords));
    }
    let w = t.coords.warp as usize;
    block.warp_live[w].set(block.warp_live[w].get() & !(1 << t.coords.lane));
    // Warp instructions that waited for this lane.
    let waiting: Vec<_> = block.warp_slots[w]
        .borrow()
        .iter()
        .flatten()
        .map(|a| (a.op, a.mask))
        .collect();
    for (op, mask) in waiting {
        if mask >> t.coords.lane & 1 == 1 {
            device::try_complete(block, w, op, mask);
        }
    }
    if block.bar_arrived.get() > 0 && block.bar_arrived.get() == block.live.get() {
        device::release_block_barrier(block);
    }
    let cluster = block.cluster();
    cluster.live.set(cluster.live.get() - 1);
    if cluster.arrived.get() > 0 && cluster.arrived.get() == cluster.live.get() {
        device::release_cluster_barrier(cluster);
    }
}

/// `activemask` waiters of warps in which every running lane now waits:
/// each gets the lanes waiting at its call site. Returns whether any did.
fn resolve_activemasks(blocks: &[Box<BlockState>]) -> bool {
    let mut woke = false;
    for block in blocks {
        for w in 0..block.warp_slots.len() as u32 {
            let live = block.warp_live[w as usize].get();
            let mut sites: BTreeMap<usize, u32> = BTreeMap::new();
            let mut quiet = true;
            for lane in (0..32).filter(|l| live >> l & 1 == 1) {
                let th = block.thread(w * 32 + lane);
                if th.run.get() != Run::Blocked {
                    quiet = false;
                    break;
                }
                if let Wait::ActiveMask(site) = th.wait.get() {
                    *sites.entry(site as *const _ as usize).or_default() |= 1 << lane;
                }
            }
            if !quiet || sites.is_empty() {
                continue;
            }
            for (_, mask) in sites {
                for lane in (0..32).filter(|l| mask >> l & 1 == 1) {
                    let th = block.thread(w * 32 + lane);
                    th.result.set(Outcome {
                        value: mask as u64,
                        ..Outcome::default()
                    });
                    th.wake();
                }
            }
            woke = true;
        }
    }
    woke
}

/// Who waits where, block by block, threads with the same wait together.
fn who_waits_where(blocks: &[Box<BlockState>]) -> String {
    let mut s = String::new();
    for block in blocks {
        let mut by_wait: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for i in 0..block.threads.len() as u32 {
            let th = block.thread(i);
            let what = match (th.run.get(), th.wait.get()) {
                (Run::Done, _) => continue,
                (Run::Runnable, _) => "polls memory in a spin loop".to_string(),
                (Run::Blocked, Wait::BlockBarrier) => format!(
                    "wait at the block barrier (bar.sync), which {} of the block's {} running threads reached",
                    block.bar_arrived.get(),
                    block.live.get()
                ),
                (Run::Blocked, Wait::Warp(a)) => {
                    let missing = a.mask & block.warp_live[th.coords.warp as usize].get();
                    format!(
                        "wait at {} with member mask {:#010x} in warp {} (running lanes of the mask: {missing:#010x})",
                        a.op.name(),
                        a.mask,
                        th.coords.warp
                    )
                }
                (Run::Blocked, Wait::ActiveMask(at)) => format!("wait at activemask ({at})"),
                (Run::Blocked, Wait::ClusterBarrier) => "wait at the cluster barrier".to_string(),
                (Run::Blocked, Wait::Nothing) => "are blocked".to_string(),
            };
            by_wait.entry(what).or_default().push(i);
        }
        for (what, ids) in by_wait {
            let [x, y, z] = block.idx;
            let _ = writeln!(
                s,
                "  block ({x}, {y}, {z}), threads {}: {what}",
                ranges(&ids)
            );
        }
    }
    s
}

/// `0..=3, 7, 9..=10` for linear thread indices.
fn ranges(ids: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        while i + 1 < ids.len() && ids[i + 1] == ids[i] + 1 {
            i += 1;
        }
        out.push(if ids[i] == start {
            format!("{start}")
        } else {
            format!("{start}..={}", ids[i])
        });
        i += 1;
    }
    out.join(", ")
}
