//! The raw PTX instructions every group type is built from. This is the only
//! module with inline assembly for warp and barrier operations; group types
//! call these with masks and widths they have computed.
//!
//! Warp operations are `nomem` (they move registers only) but not `pure`:
//! they must stay where the program put them, because which threads execute
//! them is part of their meaning. The `.sync` warp instructions tolerate the
//! optimizer duplicating them into both arms of a branch (each thread still
//! executes one of them, with the same mask); the aligned block barrier does
//! not, which is why [`bar_sync`] is an LLVM intrinsic and not inline asm.

pub mod atom;

use core::arch::asm;
use core::arch::nvptx;

/// `%tid.{x,y,z}`.
#[inline(always)]
pub fn thread_idx() -> [u32; 3] {
    unsafe {
        [
            nvptx::_thread_idx_x() as u32,
            nvptx::_thread_idx_y() as u32,
            nvptx::_thread_idx_z() as u32,
        ]
    }
}

/// `%ntid.{x,y,z}`.
#[inline(always)]
pub fn block_dim() -> [u32; 3] {
    unsafe {
        [
            nvptx::_block_dim_x() as u32,
            nvptx::_block_dim_y() as u32,
            nvptx::_block_dim_z() as u32,
        ]
    }
}

/// `%ctaid.{x,y,z}`.
#[inline(always)]
pub fn block_idx() -> [u32; 3] {
    unsafe {
        [
            nvptx::_block_idx_x() as u32,
            nvptx::_block_idx_y() as u32,
            nvptx::_block_idx_z() as u32,
        ]
    }
}

/// `%nctaid.{x,y,z}`.
#[inline(always)]
pub fn grid_dim() -> [u32; 3] {
    unsafe {
        [
            nvptx::_grid_dim_x() as u32,
            nvptx::_grid_dim_y() as u32,
            nvptx::_grid_dim_z() as u32,
        ]
    }
}

/// This thread's lane in its warp, 0..32.
///
/// Warps are formed from consecutive linear thread indices, so this is the
/// linear index in the block modulo 32: what CUDA's headers compute too. It
/// reuses the `%tid`/`%ntid` reads the block rank needs (the compiler knows
/// those are pure) instead of a separate `%laneid` read, which sits on the
/// critical path of a warp reduction.
#[inline(always)]
pub fn lane_id() -> u32 {
    let [tx, ty, tz] = thread_idx();
    let [bx, by, _] = block_dim();
    ((tz * by + ty) * bx + tx) & 31
}

/// `%lanemask_lt`: the lanes below this thread's lane.
#[inline(always)]
pub fn lanemask_lt() -> u32 {
    let r: u32;
    unsafe { asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// `activemask.b32`: the lanes of the warp executing this instruction
/// together with the caller (`__activemask()`). Not `pure`: the answer
/// depends on where in the program it is asked.
#[inline(always)]
pub fn activemask() -> u32 {
    let r: u32;
    unsafe { asm!("activemask.b32 {r};", r = out(reg32) r, options(nomem, nostack)) };
    r
}

/// `fns.b32`: the position of the `offset`-th set bit of `mask` counting
/// from bit `base` (upwards for a positive offset, downwards for a negative
/// one; offset 1 or -1 finds `base` itself when it is set), or `0xffffffff`
/// when there is none. `base` must be at most 31.
#[inline(always)]
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    let r: u32;
    unsafe {
        asm!("fns.b32 {r}, {m}, {b}, {o};", r = out(reg32) r, m = in(reg32) mask, b = in(reg32) base,
            o = in(reg32) offset, options(nomem, nostack, pure))
    };
    r
}

/// `bar.sync 0`: the block-wide barrier (`__syncthreads`).
///
/// `bar.sync` is `barrier.sync.aligned`: every thread of a warp must execute
/// the same instruction. This goes through LLVM's barrier intrinsic, which is
/// `convergent`, so the optimizer never duplicates it into divergent paths
/// (it would, for an inline-asm barrier, and the block would deadlock).
#[inline(always)]
pub fn bar_sync() {
    unsafe { nvptx::_syncthreads() };
}

/// `bar.warp.sync mask`: the threads in `mask` wait for each other.
#[inline(always)]
pub fn bar_warp_sync(mask: u32) {
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) };
}

/// The four `shfl.sync` modes.
#[derive(Clone, Copy)]
pub enum ShflMode {
    /// `shfl.sync.idx`: read from an absolute lane.
    Idx,
    /// `shfl.sync.up`: read from `lane - delta`.
    Up,
    /// `shfl.sync.down`: read from `lane + delta`.
    Down,
    /// `shfl.sync.bfly`: read from `lane ^ mask`.
    Bfly,
}

/// `shfl.sync.<mode>.b32 d, a, b, c, mask`. `c` packs the segment mask and
/// clamp as PTX defines it (see [`crate::shuffle`]).
#[inline(always)]
pub fn shfl_sync(mode: ShflMode, value: u32, b: u32, c: u32, mask: u32) -> u32 {
    let r: u32;
    unsafe {
        match mode {
            ShflMode::Idx => asm!("shfl.sync.idx.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) value, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask,
                options(nomem, nostack)),
            ShflMode::Up => asm!("shfl.sync.up.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) value, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask,
                options(nomem, nostack)),
            ShflMode::Down => asm!("shfl.sync.down.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) value, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask,
                options(nomem, nostack)),
            ShflMode::Bfly => asm!("shfl.sync.bfly.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) value, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask,
                options(nomem, nostack)),
        }
    }
    r
}

/// `vote.sync.ballot.b32`: bit `i` set when lane `i` of `mask` has `pred`.
#[inline(always)]
pub fn vote_ballot(pred: bool, mask: u32) -> u32 {
    let r: u32;
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
            r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
    }
    r
}

/// `vote.sync.any.pred`.
#[inline(always)]
pub fn vote_any(pred: bool, mask: u32) -> bool {
    let r: u32;
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.any.pred p, p, {m}; selp.u32 {r}, 1, 0, p; }}",
            r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
    }
    r != 0
}

/// `vote.sync.all.pred`.
#[inline(always)]
pub fn vote_all(pred: bool, mask: u32) -> bool {
    let r: u32;
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.all.pred p, p, {m}; selp.u32 {r}, 1, 0, p; }}",
            r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
    }
    r != 0
}

/// `match.any.sync.b32`: the lanes of `mask` whose `value` equals this
/// lane's.
#[inline(always)]
pub fn match_any_b32(value: u32, mask: u32) -> u32 {
    let r: u32;
    unsafe {
        asm!("match.any.sync.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) value, m = in(reg32) mask,
            options(nomem, nostack))
    };
    r
}

/// `match.any.sync.b64`: as [`match_any_b32`] for 64-bit values.
#[inline(always)]
pub fn match_any_b64(value: u64, mask: u32) -> u32 {
    let r: u32;
    unsafe {
        asm!("match.any.sync.b64 {r}, {v}, {m};", r = out(reg32) r, v = in(reg64) value, m = in(reg32) mask,
            options(nomem, nostack))
    };
    r
}

/// `match.all.sync.b32`: `Some(mask)` when every lane of `mask` has the
/// same `value`, `None` otherwise.
#[inline(always)]
pub fn match_all_b32(value: u32, mask: u32) -> Option<u32> {
    let (r, ok): (u32, u32);
    unsafe {
        asm!("{{ .reg .pred p; match.all.sync.b32 {r}|p, {v}, {m}; selp.u32 {ok}, 1, 0, p; }}",
            r = out(reg32) r, ok = out(reg32) ok, v = in(reg32) value, m = in(reg32) mask,
            options(nomem, nostack))
    };
    if ok != 0 {
        Some(r)
    } else {
        None
    }
}

/// `match.all.sync.b64`: as [`match_all_b32`] for 64-bit values.
#[inline(always)]
pub fn match_all_b64(value: u64, mask: u32) -> Option<u32> {
    let (r, ok): (u32, u32);
    unsafe {
        asm!("{{ .reg .pred p; match.all.sync.b64 {r}|p, {v}, {m}; selp.u32 {ok}, 1, 0, p; }}",
            r = out(reg32) r, ok = out(reg32) ok, v = in(reg64) value, m = in(reg32) mask,
            options(nomem, nostack))
    };
    if ok != 0 {
        Some(r)
    } else {
        None
    }
}

/// The operations of `redux.sync` (sm_80 and newer).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReduxOp {
    /// `redux.sync.add.u32` (wrapping; the same bits for `s32`).
    Add,
    /// `redux.sync.min.u32`.
    MinU32,
    /// `redux.sync.max.u32`.
    MaxU32,
    /// `redux.sync.min.s32`.
    MinS32,
    /// `redux.sync.max.s32`.
    MaxS32,
    /// `redux.sync.and.b32`.
    And,
    /// `redux.sync.or.b32`.
    Or,
    /// `redux.sync.xor.b32`.
    Xor,
}

/// `redux.sync.<op>`: `op` over `value` of every lane of `mask`, returned to
/// each of them. Only on sm_80 and newer (`cfg(target_feature = "sm_80")`).
#[cfg(target_feature = "sm_80")]
#[inline(always)]
pub fn redux_sync(op: ReduxOp, value: u32, mask: u32) -> u32 {
    let r: u32;
    macro_rules! redux {
        ($insn:literal) => {
            asm!(concat!($insn, " {r}, {v}, {m};"), r = out(reg32) r, v = in(reg32) value, m = in(reg32) mask,
                options(nomem, nostack))
        };
    }
    unsafe {
        match op {
            ReduxOp::Add => redux!("redux.sync.add.u32"),
            ReduxOp::MinU32 => redux!("redux.sync.min.u32"),
            ReduxOp::MaxU32 => redux!("redux.sync.max.u32"),
            ReduxOp::MinS32 => redux!("redux.sync.min.s32"),
            ReduxOp::MaxS32 => redux!("redux.sync.max.s32"),
            ReduxOp::And => redux!("redux.sync.and.b32"),
            ReduxOp::Or => redux!("redux.sync.or.b32"),
            ReduxOp::Xor => redux!("redux.sync.xor.b32"),
        }
    }
    r
}

/// The grid workspace pointer the driver passes to cooperative launches,
/// `{%envreg2, %envreg1}` (the ABI of CUDA's own headers). 0 under an
/// ordinary launch in a process that has made no cooperative launch.
#[inline(always)]
pub fn grid_workspace() -> u64 {
    let r: u64;
    unsafe {
        asm!("mov.b64 {r}, {{%envreg2, %envreg1}};", r = out(reg64) r, options(nomem, nostack, pure))
    };
    r
}

/// `atom.add.release.gpu.u32`: returns the old value.
///
/// # Safety
/// `ptr` must be a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn atom_add_release_gpu(ptr: *mut u32, v: u32) -> u32 {
    let old: u32;
    asm!("atom.add.release.gpu.u32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) ptr, v = in(reg32) v, options(nostack));
    old
}

/// `ld.acquire.gpu.u32`.
///
/// # Safety
/// `ptr` must be a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn ld_acquire_gpu(ptr: *const u32) -> u32 {
    let v: u32;
    asm!("ld.acquire.gpu.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) ptr, options(nostack));
    v
}

/// `%globaltimer`: a nanosecond clock shared by the whole GPU.
#[inline(always)]
pub fn globaltimer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) };
    t
}

/// `atom.acq_rel.cta.shared.or.b32`: sets the bits `v` in the shared word
/// at `addr`, returns the old value.
///
/// # Safety
/// `addr` must be a valid, 4-byte-aligned address in this block's shared
/// window.
#[inline(always)]
pub unsafe fn atom_or_acq_rel_cta_shared(addr: u32, v: u32) -> u32 {
    let old: u32;
    asm!("atom.acq_rel.cta.shared.or.b32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr, v = in(reg32) v, options(nostack));
    old
}

/// `red.relaxed.cta.shared.and.b32`: clears the bits not in `v` of the
/// shared word at `addr`.
///
/// # Safety
/// As [`atom_or_acq_rel_cta_shared`].
#[inline(always)]
pub unsafe fn red_and_relaxed_cta_shared(addr: u32, v: u32) {
    asm!("red.relaxed.cta.shared.and.b32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack));
}

/// `ld.acquire.cta.shared.u32`.
///
/// # Safety
/// As [`atom_or_acq_rel_cta_shared`].
#[inline(always)]
pub unsafe fn ld_acquire_cta_shared(addr: u32) -> u32 {
    let v: u32;
    asm!("ld.acquire.cta.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(nostack));
    v
}

/// `trap`: abort the kernel; the launch fails with an error on the host.
#[inline(always)]
pub fn trap() -> ! {
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}

/// Reads a 32-bit special register by name, in the cluster family (sm_90).
macro_rules! cluster_sreg {
    ($(#[$doc:meta] $name:ident => $reg:literal;)*) => {$(
        #[$doc]
        #[cfg(target_feature = "sm_90")]
        #[inline(always)]
        pub fn $name() -> u32 {
            let r: u32;
            unsafe { asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r, options(nomem, nostack, pure)) };
            r
        }
    )*};
}

cluster_sreg! {
    /// `%cluster_ctarank`: this block's rank in its cluster.
    cluster_ctarank => "%cluster_ctarank";
    /// `%cluster_nctarank`: blocks in the cluster.
    cluster_nctarank => "%cluster_nctarank";
    /// `%cluster_ctaid.x`.
    cluster_ctaid_x => "%cluster_ctaid.x";
    /// `%cluster_ctaid.y`.
    cluster_ctaid_y => "%cluster_ctaid.y";
    /// `%cluster_ctaid.z`.
    cluster_ctaid_z => "%cluster_ctaid.z";
    /// `%cluster_nctaid.x`.
    cluster_nctaid_x => "%cluster_nctaid.x";
    /// `%cluster_nctaid.y`.
    cluster_nctaid_y => "%cluster_nctaid.y";
    /// `%cluster_nctaid.z`.
    cluster_nctaid_z => "%cluster_nctaid.z";
    /// `%clusterid.x`.
    cluster_id_x => "%clusterid.x";
    /// `%clusterid.y`.
    cluster_id_y => "%clusterid.y";
    /// `%clusterid.z`.
    cluster_id_z => "%clusterid.z";
    /// `%nclusterid.x`.
    cluster_nid_x => "%nclusterid.x";
    /// `%nclusterid.y`.
    cluster_nid_y => "%nclusterid.y";
    /// `%nclusterid.z`.
    cluster_nid_z => "%nclusterid.z";
}

/// `barrier.cluster.arrive` (release semantics): this thread has arrived at
/// the cluster barrier. Not the `.aligned` form, so that the optimizer may
/// duplicate it into divergent paths safely.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn barrier_cluster_arrive() {
    unsafe { asm!("barrier.cluster.arrive;", options(nostack)) };
}

/// `barrier.cluster.wait` (acquire semantics): waits until every thread of
/// the cluster has arrived.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn barrier_cluster_wait() {
    unsafe { asm!("barrier.cluster.wait;", options(nostack)) };
}

/// `mapa.shared::cluster.u32`: the address, in the cluster's shared window,
/// of shared address `addr` of block `rank` of the cluster.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn mapa_shared_cluster(addr: u32, rank: u32) -> u32 {
    let r: u32;
    unsafe {
        asm!("mapa.shared::cluster.u32 {r}, {a}, {k};", r = out(reg32) r, a = in(reg32) addr, k = in(reg32) rank,
            options(nomem, nostack, pure))
    };
    r
}

/// `atom.shared::cluster.add.u32`: adds `v` to the word at a cluster shared
/// address (from `mapa`), atomically; returns the old value.
///
/// # Safety
/// `addr` must be a valid, 4-byte-aligned `.shared::cluster` address.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn atom_add_shared_cluster_u32(addr: u32, v: u32) -> u32 {
    let old: u32;
    asm!("atom.shared::cluster.add.u32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr, v = in(reg32) v, options(nostack));
    old
}

/// `%dynamic_smem_size`: bytes of dynamic shared memory this launch gave
/// each block.
#[inline(always)]
pub fn dynamic_smem_size() -> u32 {
    let r: u32;
    unsafe {
        asm!("mov.u32 {r}, %dynamic_smem_size;", r = out(reg32) r, options(nomem, nostack, pure))
    };
    r
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], BYTES;` (sm_80): starts
/// copying `BYTES` (4, 8 or 16) from global to shared memory, completed by
/// a later [`cp_async_commit`] + wait or [`cp_async_mbarrier_arrive`].
/// The 16-byte form bypasses L1 (`.cg`), as CUDA's does.
///
/// # Safety
/// `dst` must be a shared address and `src` a global address, both
/// `BYTES`-aligned, of `BYTES` valid bytes.
#[inline(always)]
pub unsafe fn cp_async<const BYTES: u32>(dst: u32, src: *const u8) {
    match BYTES {
        16 => {
            asm!("cp.async.cg.shared.global [{d}], [{s}], 16;", d = in(reg32) dst, s = in(reg64) src, options(nostack))
        }
        8 => {
            asm!("cp.async.ca.shared.global [{d}], [{s}], 8;", d = in(reg32) dst, s = in(reg64) src, options(nostack))
        }
        4 => {
            asm!("cp.async.ca.shared.global [{d}], [{s}], 4;", d = in(reg32) dst, s = in(reg64) src, options(nostack))
        }
        _ => panic!("cp.async copies 4, 8 or 16 bytes"),
    }
}

/// `cp.async.commit_group`: closes the calling thread's batch of
/// `cp.async` copies.
#[inline(always)]
pub fn cp_async_commit() {
    unsafe { asm!("cp.async.commit_group;", options(nostack)) };
}

/// `cp.async.wait_group N`: waits until at most `N` of the calling thread's
/// committed batches are still in flight.
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
}

/// `cp.async.wait_group STAGES - 1`: waits until fewer than `STAGES` of
/// the calling thread's committed batches are still in flight (the oldest
/// of `STAGES` has landed).
#[inline(always)]
pub fn cp_async_wait_oldest_of<const STAGES: usize>() {
    unsafe { asm!("cp.async.wait_group {n};", n = const STAGES - 1, options(nostack)) };
}

/// `cp.async.mbarrier.arrive.shared.b64`: the mbarrier at `bar` gets one
/// more pending arrival now and that arrival when all of the calling
/// thread's earlier `cp.async` copies have landed (the arrival count
/// expected by the barrier is unchanged).
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub unsafe fn cp_async_mbarrier_arrive(bar: u32) {
    asm!("cp.async.mbarrier.arrive.shared.b64 [{b}];", b = in(reg32) bar, options(nostack));
}

/// `mbarrier.init.shared.b64 [bar], count`.
///
/// # Safety
/// `bar` must be an 8-byte-aligned shared address no thread is using as a
/// barrier yet.
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    asm!("mbarrier.init.shared.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count, options(nostack));
}

/// `mbarrier.arrive.shared.b64` (release): returns the phase token.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) -> u64 {
    let t: u64;
    asm!("mbarrier.arrive.shared.b64 {t}, [{b}];", t = out(reg64) t, b = in(reg32) bar, options(nostack));
    t
}

/// `mbarrier.arrive_drop.shared.b64`: arrives and lowers the expected
/// count of every later phase by one.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub unsafe fn mbarrier_arrive_drop(bar: u32) {
    asm!("mbarrier.arrive_drop.shared.b64 _, [{b}];", b = in(reg32) bar, options(nostack));
}

/// Whether the phase of `token` is complete (acquire): `mbarrier.try_wait`
/// on sm_90 (the thread may sleep in it for a while), `mbarrier.test_wait`
/// before.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub unsafe fn mbarrier_test_wait(bar: u32, token: u64) -> bool {
    let done: u32;
    #[cfg(target_feature = "sm_90")]
    asm!(
        "{{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [{b}], {t}; selp.u32 {d}, 1, 0, p; }}",
        d = out(reg32) done, b = in(reg32) bar, t = in(reg64) token, options(nostack)
    );
    #[cfg(not(target_feature = "sm_90"))]
    asm!(
        "{{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [{b}], {t}; selp.u32 {d}, 1, 0, p; }}",
        d = out(reg32) done, b = in(reg32) bar, t = in(reg64) token, options(nostack)
    );
    done != 0
}

/// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64` (sm_90): the current
/// phase also waits for `bytes` more bytes of bulk copies.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn mbarrier_expect_tx(bar: u32, bytes: u32) {
    asm!("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{b}], {n};", b = in(reg32) bar, n = in(reg32) bytes, options(nostack));
}

/// `fence.proxy.async.shared::cta` (sm_90): orders the calling thread's
/// earlier shared-memory accesses (and those it has seen through a barrier)
/// before later bulk copies into the same memory.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn fence_proxy_async_shared() {
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
}

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`
/// (sm_90): the bulk copy engine copies `bytes` from global to shared
/// memory and reports them to the mbarrier at `bar`.
///
/// # Safety
/// `dst` (this block's shared window) and `src` (global) must be 16-byte
/// aligned with `bytes` valid bytes, `bytes` a multiple of 16, and `bar`
/// an initialised mbarrier of this block.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn cp_async_bulk_global_to_shared(dst: u32, src: *const u8, bytes: u32, bar: u32) {
    asm!(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{s}], {n}, [{b}];",
        d = in(reg32) dst, s = in(reg64) src, n = in(reg32) bytes, b = in(reg32) bar, options(nostack)
    );
}
