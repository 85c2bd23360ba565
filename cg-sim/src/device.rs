//! What a simulated thread calls where a GPU thread executes an
//! instruction: cg-core's instruction layer calls these off the GPU. Each
//! function acts for the calling simulated thread; outside a simulated
//! launch ([`inside`] is false) none may be called.
//!
//! Memory instructions on global memory need no simulator: a global
//! address is a host address, and cg-core performs loads, stores and
//! atomics on it directly. Shared memory is per block: [`shared_ptr`]
//! turns a shared-window address into the host address of this block's
//! byte (or, for a distributed-shared-memory address from [`mapa`], the
//! byte of that block of the cluster).

use crate::fault::{Coords, FaultKind, Read, Undefined};
use crate::race::Found;
use crate::state::{BlockState, Mbarrier, Run, ThreadCx, Wait, Yield};
use crate::warp::{self, Arrival, Outcome, WarpOp};
use std::cell::Cell;
use std::panic::Location;
use std::sync::atomic::AtomicU32;

thread_local! {
    /// The simulated thread running on this OS thread, if any.
    pub(crate) static CURRENT: Cell<*const ThreadCx> = const { Cell::new(std::ptr::null()) };
}

/// The payload a thread unwinds with after a device call recorded a fault.
pub(crate) struct Abort;

/// Whether the caller is a simulated thread (inside [`crate::launch`]).
pub fn inside() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

fn cx() -> &'static ThreadCx {
    let p = CURRENT.with(|c| c.get());
    assert!(
        !p.is_null(),
        "cg-sim: a device instruction was called outside a simulated launch"
    );
    // SAFETY: the scheduler sets CURRENT to a live thread only while that
    // thread runs, and the reference does not outlive the device call.
    unsafe { &*p }
}

/// Stops the launch with `kind`, naming the calling thread.
#[track_caller]
pub(crate) fn raise(kind: FaultKind, message: String) -> ! {
    let t = cx();
    t.launch().set_fault(kind, Some(t.coords), message);
    std::panic::resume_unwind(Box::new(Abort))
}

fn suspend(t: &ThreadCx, why: Yield) {
    // SAFETY: the yielder is the running coroutine's own, set when it
    // started; this is that coroutine.
    let y = unsafe { &*t.yielder.get() };
    y.suspend(why);
}

fn block_until_woken(t: &ThreadCx, wait: Wait) {
    t.wait.set(wait);
    t.run.set(Run::Blocked);
    suspend(t, Yield::Blocked);
}

/// `%tid`.
pub fn thread_idx() -> [u32; 3] {
    cx().coords.thread
}

/// `%ntid`.
pub fn block_dim() -> [u32; 3] {
    cx().launch().shape.block
}

/// `%ctaid`.
pub fn block_idx() -> [u32; 3] {
    cx().coords.block
}

/// `%nctaid`.
pub fn grid_dim() -> [u32; 3] {
    cx().launch().shape.grid
}

/// `%lanemask_lt`.
pub fn lanemask_lt() -> u32 {
    (1u32 << cx().coords.lane) - 1
}

/// `%globaltimer`: nanoseconds since the launch began.
pub fn globaltimer() -> u64 {
    cx().launch().start.elapsed().as_nanos() as u64
}

/// A poll of memory that another thread may change (a spin loop's load,
/// `nanosleep`, an unfinished `mbarrier.test_wait`): lets the other
/// threads run.
pub fn spin() {
    suspend(cx(), Yield::Spin);
}

/// `activemask.b32` at `site`: the lanes of the warp that execute it
/// together. The simulator runs a warp's lanes one at a time, so it takes
/// "together" as: the lanes that wait at an `activemask` of the same call
/// site once every lane of the warp still running waits somewhere.
pub fn activemask(site: &'static Location<'static>) -> u32 {
    let t = cx();
    block_until_woken(t, Wait::ActiveMask(site));
    t.result.get().value as u32
}

/// A warp instruction with member mask `mask` (see [`WarpOp`]): waits for
/// the lanes of `mask` that are still running, and returns this lane's
/// result.
pub fn warp(op: WarpOp, mask: u32, value: u64, b: u32, c: u32) -> Outcome {
    let t = cx();
    let lane = t.coords.lane;
    if mask >> lane & 1 == 0 {
        raise(
            FaultKind::CallerNotInMask,
            format!(
                "{} with member mask {mask:#010x}, which does not hold the calling lane {lane}: \
                 PTX leaves that undefined",
                op.name()
            ),
        );
    }
    let block = t.block();
    let w = t.coords.warp as usize;
    let me = Arrival {
        op,
        mask,
        value,
        b,
        c,
    };
    {
        let mut slots = block.warp_slots[w].borrow_mut();
        for j in 0..32u32 {
            let Some(other) = slots[j as usize] else {
                continue;
            };
            if mask >> j & 1 == 1
                && other.mask >> lane & 1 == 1
                && (other.op != op || other.mask != mask)
            {
                drop(slots);
                raise(
                    FaultKind::WarpMismatch,
                    format!(
                        "lane {lane} is at {} with mask {mask:#010x} while lane {j}, in that mask, waits at \
                         {} with mask {:#010x} (which holds lane {lane}): neither can complete",
                        op.name(),
                        other.op.name(),
                        other.mask
                    ),
                );
            }
        }
        slots[lane as usize] = Some(me);
    }
    if !try_complete(block, w, op, mask) {
        block_until_woken(t, Wait::Warp(me));
    }
    t.result.get()
}

/// Completes the rendezvous of `op` with `mask` in warp `w` if every
/// running lane of the mask has arrived at it: hands each its result and
/// wakes the others. Returns whether it completed.
pub(crate) fn try_complete(block: &BlockState, w: usize, op: WarpOp, mask: u32) -> bool {
    let needed = mask & block.warp_live[w].get();
    let mut slots = block.warp_slots[w].borrow_mut();
    let ready = (0..32u32)
        .filter(|&l| needed >> l & 1 == 1)
        .all(|l| matches!(slots[l as usize], Some(a) if a.op == op && a.mask == mask));
    if !ready {
        return false;
    }
    let mut arrivals = [None; 32];
    for l in (0..32u32).filter(|&l| needed >> l & 1 == 1) {
        arrivals[l as usize] = slots[l as usize].take();
    }
    drop(slots);
    let results = warp::complete(op, mask, &arrivals);
    let launch = block.thread(0).launch();
    // For the race check: the rendezvous orders its lanes' accesses, and
    // what one of them acquired, all of them have.
    let seq = block.warp_seq[w].get() + 1;
    block.warp_seq[w].set(seq);
    let lanes = || (0..32u32).filter(|&l| needed >> l & 1 == 1);
    let acquired = lanes()
        .map(|l| block.thread(w as u32 * 32 + l).acquired.get())
        .max()
        .unwrap_or(0);
    let acquired_global = lanes()
        .map(|l| block.thread(w as u32 * 32 + l).acquired_global.get())
        .max()
        .unwrap_or(0);
    for l in lanes() {
        block.lane_synced[w][l as usize].set(seq);
        let th = block.thread(w as u32 * 32 + l);
        th.acquired.set(acquired);
        th.acquired_global.set(acquired_global);
    }
    for l in (0..32u32).filter(|&l| needed >> l & 1 == 1) {
        let th = block.thread(w as u32 * 32 + l);
        let r = results[l as usize];
        if let Some(source_lane) = r.undefined_source {
            let mut report = launch.report.borrow_mut();
            report.undefined.push(Undefined {
                at: th.coords,
                op: op.name(),
                read: Read::Lane(source_lane),
            });
        }
        th.result.set(r);
        th.wake();
    }
    launch.progress();
    true
}

/// `bar.sync 0` at `site`: waits for every thread of the block. A thread
/// that reaches it at another call site than the threads already waiting
/// is a fault: `bar.sync` is an aligned barrier, which every thread of the
/// block must reach at the same instruction (PTX leaves it undefined
/// otherwise).
pub fn bar_sync(site: &'static Location<'static>) {
    let t = cx();
    let block = t.block();
    match block.bar_site.get() {
        None => block.bar_site.set(Some((site, t.linear()))),
        Some((first, who)) => {
            if let Some(message) = crate::uniform::block_barrier(t, site, first, who) {
                raise(FaultKind::BarrierDivergence, message);
            }
        }
    }
    block.bar_arrived.set(block.bar_arrived.get() + 1);
    if block.bar_arrived.get() == block.live.get() {
        release_block_barrier(block);
        t.wait.set(Wait::Nothing);
    } else {
        block_until_woken(t, Wait::BlockBarrier);
    }
}

/// Releases the threads waiting at the block barrier, once every running
/// thread has arrived; a block one of whose threads exited instead is a
/// fault.
pub(crate) fn release_block_barrier(block: &BlockState) {
    if let Some(gone) = block.first_exit.get() {
        let launch = block.thread(0).launch();
        launch.set_fault(
            FaultKind::BarrierNotReached,
            Some(gone),
            format!(
                "this thread exited without reaching the block barrier (bar.sync: block.sync(), \
                 __syncthreads) that {} other threads of its block reached; {} of the block's {} \
                 threads exited. CUDA requires every thread of the block to reach it (it hangs or \
                 corrupts otherwise): keep the threads with nothing to do in the kernel until its \
                 last barrier instead of returning early",
                block.bar_arrived.get(),
                block.exited.get(),
                block.threads.len()
            ),
        );
    }
    block.bar_arrived.set(0);
    block.bar_site.set(None);
    block.end_barrier_phase(|w| matches!(w, Wait::BlockBarrier));
}

/// The grid barrier's workspace: the address of a word every block's
/// first thread arrives on, in a cooperative launch; 0 otherwise.
pub fn grid_workspace() -> u64 {
    let launch = cx().launch();
    if launch.shape.cooperative {
        launch.grid_barrier.as_ptr() as u64
    } else {
        0
    }
}

/// The address of `bytes` zeroed bytes for cg-core's grid barrier
/// counters (on the GPU a place in a region the host allocates, whose
/// counters keep their values from launch to launch; here each launch
/// starts from zero, one of the states the GPU's counters can be in).
pub fn grid_barrier_counters(bytes: usize) -> u64 {
    let launch = cx().launch();
    let counters = launch
        .grid_barrier_counters
        .get_or_init(|| (0..bytes / 4).map(|_| AtomicU32::new(0)).collect());
    assert_eq!(
        counters.len(),
        bytes / 4,
        "one size of grid barrier counters"
    );
    counters.as_ptr() as u64
}

/// Where a grid barrier (`grid.sync()`, `multi_grid.sync()`) is reached:
/// a fault unless the launch is cooperative.
pub fn grid_sync(what: &str) {
    if !cx().launch().shape.cooperative {
        raise(
            FaultKind::GridSyncNotCooperative,
            format!(
                "{what} in a launch that is not cooperative: the blocks of an ordinary launch need \
                 not run at the same time, so a grid barrier may wait forever. Launch the kernel \
                 cooperatively (`#[kernel(cooperative)]`, `Shape::cooperative`)"
            ),
        );
    }
}

/// The host address of the `bytes` bytes at shared-window address `addr`:
/// this block's shared memory, or (for an address from [`mapa`]) the
/// shared memory of that block of the cluster.
pub fn shared_ptr(addr: u32, bytes: u32) -> *mut u8 {
    let t = cx();
    let (block, offset) = if addr & CLUSTER_BIT != 0 {
        let rank = (addr >> 20) & 0x7ff;
        match t.block().cluster().block(rank) {
            Some(b) => (b, addr & 0xf_ffff),
            None => raise(
                FaultKind::SharedOutOfBounds,
                format!("distributed shared memory of cluster rank {rank}, which the cluster does not have"),
            ),
        }
    } else {
        (t.block(), addr)
    };
    let end = offset as u64 + bytes as u64;
    let limit = t.launch().shared_end.get() as u64;
    if end > limit {
        raise(
            FaultKind::SharedOutOfBounds,
            format!(
                "shared memory access of {bytes} bytes at {offset:#x}, past the block's {limit} bytes \
                 of shared memory"
            ),
        );
    }
    let mut arena = block.shared.borrow_mut();
    if end as usize > arena.len() {
        arena.resize(limit as usize, SHARED_POISON);
    }
    // SAFETY: in bounds (checked); the arena is not resized while the
    // caller uses the pointer (no other device call happens in between).
    unsafe { arena.as_mut_ptr().add(offset as usize) }
}

/// [`shared_ptr`] for a plain load (`write` false) or store of this
/// thread. With the launch's shared-memory checks on: a fault when another
/// thread touched one of the bytes with nothing ordering the two accesses,
/// and an undefined read reported when a load reads a byte no thread wrote.
pub fn shared_access(addr: u32, bytes: u32, write: bool) -> *mut u8 {
    let p = shared_ptr(addr, bytes);
    let t = cx();
    if !t.launch().shape.shared_checks || addr & CLUSTER_BIT != 0 {
        return p;
    }
    let block = t.block();
    let me = t.linear();
    match crate::race::access(block, me, t.acquired.get(), addr, bytes, write) {
        None => {}
        Some(Found::Uninitialized { offset }) => {
            let op = if bytes == 8 {
                "ld.shared.b64"
            } else if bytes == 4 {
                "ld.shared.b32"
            } else {
                "ld.shared.b8"
            };
            t.launch().report.borrow_mut().undefined.push(Undefined {
                at: t.coords,
                op,
                read: Read::Shared(offset),
            });
        }
        Some(Found::Race {
            other: o,
            other_wrote,
            offset,
        }) => {
            let other = block.thread(o).coords.thread;
            raise(
                FaultKind::SharedRace,
                format!(
                    "{} shared memory at {offset:#x}, which thread ({}, {}, {}) of this block {} with \
                     nothing between the two accesses that orders them: put a block barrier \
                     (block.sync()) between them, or, within one warp, a warp sync both take part in",
                    if write { "writes" } else { "reads" },
                    other[0],
                    other[1],
                    other[2],
                    if other_wrote { "wrote" } else { "read" }
                ),
            );
        }
    }
    p
}

/// Marks `bytes` bytes at shared address `addr` written by this thread's
/// atomic or asynchronous copy (for the uninitialized-read check).
pub fn shared_filled(addr: u32, bytes: u32) {
    let t = cx();
    if t.launch().shape.shared_checks && addr & CLUSTER_BIT == 0 {
        crate::race::filled(t.block(), addr, bytes);
    }
}

/// A release operation of this thread (an atomic or store with release
/// semantics, a fence): for the race check, what it did before may be
/// seen by a thread that acquires after it.
pub fn release() {
    let t = cx();
    let block = t.block();
    block.releases.set(block.releases.get() + 1);
    let launch = t.launch();
    launch.global_releases.set(launch.global_releases.get() + 1);
}

/// An acquire operation of this thread (an atomic or load with acquire
/// semantics, a fence): for the race check, it is ordered after every
/// release of the block so far.
pub fn acquire() {
    let t = cx();
    t.acquired.set(t.block().releases.get());
    t.acquired_global.set(t.launch().global_releases.get());
}

/// `vprintf(format, args)`, CUDA's `printf`: formats the call as the CUDA
/// driver does ([`crate::printf::format`]) and writes its text whole (to
/// standard output, or to a [`crate::printf::capture`]); returns the
/// number of arguments read.
///
/// # Safety
/// As [`crate::printf::format`].
pub unsafe fn vprintf(format: *const u8, args: *const u8) -> i32 {
    // Only inside a launch, as every device call.
    let _ = cx();
    // SAFETY: the caller's contract.
    let (text, count) = unsafe { crate::printf::format(format, args) };
    crate::printf::emit(&text);
    count
}

/// The kernel's name (`#[kernel]` functions say it when they start), for
/// the faults that name it.
pub fn kernel_name(name: &'static str) {
    let launch = cx().launch();
    if launch.kernel.get().is_none() {
        launch.kernel.set(Some(name));
    }
}

/// An output view (`Output<T>`, `Synced<T>`) of `len` elements of `size`
/// bytes at `base` was made: the global race check keeps its elements'
/// accesses.
pub fn global_buffer(base: u64, len: u64, size: u64) {
    let launch = cx().launch();
    if launch.shape.global_checks {
        crate::global::buffer(launch, base, len, size);
    }
}

/// This thread takes the global element at `addr` for writing (`&mut`,
/// from an output pattern) at `site`, the kernel's line: a fault when
/// another thread took it, or read its buffer through a read view, in the
/// same barrier phase with nothing ordering the two.
pub fn global_exclusive(addr: u64, site: &'static Location<'static>) {
    let t = cx();
    if !t.launch().shape.global_checks {
        return;
    }
    if let Some(message) = crate::global::exclusive(t, addr, site) {
        raise(FaultKind::GlobalRace, message);
    }
}

/// This thread reads the buffer at `base` through a read view (`Synced`)
/// at `site`: a fault when another thread took one of its elements for
/// writing in the same barrier phase with nothing ordering the two.
pub fn global_read(base: u64, site: &'static Location<'static>) {
    let t = cx();
    if !t.launch().shape.global_checks {
        return;
    }
    if let Some(message) = crate::global::read(t, base, site) {
        raise(FaultKind::GlobalRace, message);
    }
}

/// This thread's accesses to the buffer at `base` from now on are
/// ordered after every access to it so far (`Output::assume_synced`,
/// whose caller vouches for the ordering).
pub fn global_acquire(base: u64) {
    let t = cx();
    if t.launch().shape.global_checks {
        crate::global::acquire(t, base);
    }
}

/// This thread reaches a grid barrier at `site`: a fault when another
/// thread reached the same barrier (the same count of grid barriers
/// before it) at another call site.
pub fn grid_barrier_arrive(site: &'static Location<'static>) {
    let t = cx();
    if let Some(message) = crate::uniform::grid_barrier(t, site) {
        raise(FaultKind::BarrierDivergence, message);
    }
}

/// This thread has passed a grid barrier: its accesses from now on are
/// ordered after every access before the barrier.
pub fn grid_barrier_passed() {
    let t = cx();
    t.grid_phase.set(t.grid_phase.get() + 1);
}

/// This thread passes `values` for an argument every thread must pass
/// alike (`what`: its names) at `site`: a fault when another thread
/// passed other values in the same call there.
pub fn uniform_argument(site: &'static Location<'static>, what: &'static str, values: &[u64]) {
    let t = cx();
    if let Some(message) = crate::uniform::argument(t, site, what, values) {
        raise(FaultKind::NonUniformArgument, message);
    }
}

/// What fresh shared memory holds: CUDA leaves it uninitialized; all-ones
/// bytes make an `f32` read of it a NaN and an integer one the largest.
pub const SHARED_POISON: u8 = 0xff;

const CLUSTER_BIT: u32 = 0x8000_0000;

/// `mapa.shared::cluster`: the address of `addr` in the shared memory of
/// the cluster's block `rank`.
pub fn mapa(addr: u32, rank: u32) -> u32 {
    CLUSTER_BIT | (rank & 0x7ff) << 20 | (addr & 0xf_ffff)
}

/// The shared-window address of the static shared array whose call site
/// is `site` (the address of a static there), of `bytes` bytes: the same
/// in every block of the launch.
pub fn shared_site(site: usize, bytes: u32) -> u32 {
    let launch = cx().launch();
    let mut sites = launch.shared_sites.borrow_mut();
    *sites.entry(site).or_insert_with(|| {
        let at = launch.shared_end.get().next_multiple_of(16);
        launch.shared_end.set(at + bytes);
        at
    })
}

/// The size of the launch's dynamic shared memory; it starts at
/// shared-window address 0.
pub fn dynamic_shared_size() -> u32 {
    cx().launch().shape.dynamic_shared
}

/// `%cluster_ctarank`.
pub fn cluster_ctarank() -> u32 {
    cx().block().cluster_rank
}

/// `%cluster_nctarank`.
pub fn cluster_nctarank() -> u32 {
    let [x, y, z] = cx().launch().shape.cluster;
    x * y * z
}

/// `%cluster_ctaid`.
pub fn cluster_ctaid() -> [u32; 3] {
    let t = cx();
    let c = t.launch().shape.cluster;
    let b = t.coords.block;
    [b[0] % c[0], b[1] % c[1], b[2] % c[2]]
}

/// `%cluster_nctaid`.
pub fn cluster_nctaid() -> [u32; 3] {
    cx().launch().shape.cluster
}

/// `%clusterid`.
pub fn cluster_id() -> [u32; 3] {
    cx().block().cluster().idx
}

/// `%nclusterid`.
pub fn cluster_nid() -> [u32; 3] {
    let s = &cx().launch().shape;
    [
        s.grid[0] / s.cluster[0],
        s.grid[1] / s.cluster[1],
        s.grid[2] / s.cluster[2],
    ]
}

/// `barrier.cluster.arrive`.
pub fn cluster_arrive() {
    let t = cx();
    let cluster = t.block().cluster();
    t.cluster_phase.set(cluster.phase.get());
    cluster.arrived.set(cluster.arrived.get() + 1);
    if cluster.arrived.get() == cluster.live.get() {
        release_cluster_barrier(cluster);
    }
}

/// Ends the cluster barrier's phase once every running thread of the
/// cluster has arrived.
pub(crate) fn release_cluster_barrier(cluster: &crate::state::ClusterState) {
    cluster.arrived.set(0);
    cluster.phase.set(cluster.phase.get() + 1);
    for rank in 0..cluster.blocks.borrow().len() as u32 {
        if let Some(b) = cluster.block(rank) {
            b.end_barrier_phase(|w| matches!(w, Wait::ClusterBarrier));
        }
    }
}

/// `barrier.cluster.wait`: until the phase this thread arrived in ends.
pub fn cluster_wait() {
    let t = cx();
    if t.block().cluster().phase.get() == t.cluster_phase.get() {
        block_until_woken(t, Wait::ClusterBarrier);
    }
}

fn with_mbarrier<R>(addr: u32, f: impl FnOnce(&mut Mbarrier) -> R) -> R {
    let t = cx();
    let mut bars = t.block().mbarriers.borrow_mut();
    match bars.get_mut(&addr) {
        Some(m) => f(m),
        None => {
            drop(bars);
            raise(
                FaultKind::Panic,
                format!("an mbarrier operation on shared address {addr:#x}, where no mbarrier was initialized"),
            )
        }
    }
}

/// Ends the mbarrier's phase once nothing is pending; an ended phase orders
/// what came before it for the race check, as a block barrier does.
fn mbarrier_step(m: &mut Mbarrier) {
    if m.pending == 0 && m.tx == 0 {
        m.phase += 1;
        m.pending = m.expected;
        let block = cx().block();
        block.epoch.set(block.epoch.get() + 1);
    }
}

/// `mbarrier.init.shared.b64`.
pub fn mbarrier_init(addr: u32, count: u32) {
    shared_ptr(addr, 8);
    let bar = Mbarrier {
        expected: count,
        pending: count,
        tx: 0,
        phase: 0,
    };
    cx().block().mbarriers.borrow_mut().insert(addr, bar);
}

/// `mbarrier.arrive.shared.b64`: returns the phase token.
pub fn mbarrier_arrive(addr: u32) -> u64 {
    with_mbarrier(addr, |m| {
        let token = m.phase;
        m.pending = m.pending.saturating_sub(1);
        mbarrier_step(m);
        token
    })
}

/// `mbarrier.arrive_drop.shared.b64`.
pub fn mbarrier_arrive_drop(addr: u32) {
    with_mbarrier(addr, |m| {
        m.expected = m.expected.saturating_sub(1);
        m.pending = m.pending.saturating_sub(1);
        mbarrier_step(m);
    })
}

/// `mbarrier.expect_tx`.
pub fn mbarrier_expect_tx(addr: u32, bytes: u32) {
    with_mbarrier(addr, |m| m.tx += bytes as i64)
}

/// The `complete_tx` of a bulk copy of `bytes` bytes on the mbarrier.
pub fn mbarrier_complete_tx(addr: u32, bytes: u32) {
    with_mbarrier(addr, |m| {
        m.tx -= bytes as i64;
        mbarrier_step(m);
    })
}

/// `mbarrier.test_wait` / `try_wait`: whether the phase `token` came from
/// has ended. A `false` lets the other threads run (callers poll).
pub fn mbarrier_test_wait(addr: u32, token: u64) -> bool {
    let done = with_mbarrier(addr, |m| m.phase > token);
    if !done {
        spin();
    }
    done
}

/// Where the calling thread is.
pub fn coords() -> Coords {
    cx().coords
}
