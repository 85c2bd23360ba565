//! The raw PTX instructions every group type is built from. This is the only
//! module with inline assembly (`intrinsics/*.rs` included); group types
//! call these with masks and widths they have computed. It is private to the
//! crate: kernels use the safe group API.
//!
//! Warp operations are `nomem` (they move registers only) but not `pure`:
//! they must stay where the program put them, because which threads execute
//! them is part of their meaning. The `.sync` warp instructions tolerate the
//! optimizer duplicating them into both arms of a branch (each thread still
//! executes one of them, with the same mask); the aligned block barrier does
//! not, which is why [`bar_sync`] is an LLVM intrinsic and not inline asm.
//!
//! # The masked instructions
//!
//! `bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync` and `redux.sync`
//! take a member mask, and PTX leaves them undefined when the calling
//! thread is not in it, or when a lane of the mask that has not exited does
//! not execute the same instruction with the same mask. They are `unsafe`,
//! with that contract as their `# Safety` section; a group type calls them
//! with its own lanes, which hold the caller by construction.
//!
//! # Off the GPU
//!
//! Every instruction's body is written with `device!`: the instruction on
//! `nvptx64`; on any other target, with the `sim` feature and inside a
//! simulated launch, what the instruction does on the simulated device
//! (`cg_sim::device`, or host memory and host atomics for global memory);
//! anywhere else a call to [`device_only`], which panics with the
//! instruction's name. Device code therefore compiles on the host (for
//! documentation, lints and the unit tests of its lane arithmetic), and
//! runs on the GPU or in the simulator; `device!` and `device_only` are the
//! one place that decides what it does elsewhere.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]

/// The body of one raw instruction: `$body` on `nvptx64`; on any other
/// target, `$sim` inside a simulated launch (with the `sim` feature), and
/// [`device_only`]`($insn)` anywhere else.
macro_rules! device {
    ($insn:expr, $body:block, sim: $sim:block) => {{
        #[cfg(target_arch = "nvptx64")]
        $body
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        {
            if cg_sim::device::inside() {
                $sim
            } else {
                $crate::intrinsics::device_only($insn)
            }
        }
        #[cfg(all(not(target_arch = "nvptx64"), not(feature = "sim")))]
        {
            $crate::intrinsics::device_only($insn)
        }
    }};
}

pub(crate) mod atom;
// The fault record is written on the GPU only: off it a failed check is a
// panic (`fault::check_failed`).
#[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
pub(crate) mod fault;
#[cfg(target_arch = "nvptx64")]
pub(crate) mod half;
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
mod sim;

#[cfg(target_arch = "nvptx64")]
use core::arch::{asm, nvptx};

/// What an instruction of this layer does off the GPU: it stops the program,
/// naming the instruction.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
pub fn device_only(instruction: &'static str) -> ! {
    panic!(
        "cg-core: `{instruction}` runs only on the GPU (nvptx64); on the host, device code is \
         compiled, linted and documented, but not run"
    )
}

/// Reads the three components of a special register through LLVM's
/// `core::arch::nvptx` intrinsics.
macro_rules! sreg3 {
    ($(#[$doc:meta] $name:ident => $insn:literal, $x:ident, $y:ident, $z:ident;)*) => {$(
        #[$doc]
        #[inline(always)]
        pub(crate) fn $name() -> [u32; 3] {
            device!($insn, {
                // SAFETY: reads a special register; no operands.
                unsafe { [nvptx::$x() as u32, nvptx::$y() as u32, nvptx::$z() as u32] }
            }, sim: { cg_sim::device::$name() })
        }
    )*};
}

sreg3! {
    /// `%tid.{x,y,z}`.
    thread_idx => "mov.u32 %tid", _thread_idx_x, _thread_idx_y, _thread_idx_z;
    /// `%ntid.{x,y,z}`.
    block_dim => "mov.u32 %ntid", _block_dim_x, _block_dim_y, _block_dim_z;
    /// `%ctaid.{x,y,z}`.
    block_idx => "mov.u32 %ctaid", _block_idx_x, _block_idx_y, _block_idx_z;
    /// `%nctaid.{x,y,z}`.
    grid_dim => "mov.u32 %nctaid", _grid_dim_x, _grid_dim_y, _grid_dim_z;
}

/// `x`, with what the compiler knows of its range forgotten (an empty asm
/// statement, no instruction): a loop stepping by it has no trip count
/// LLVM can compute, so the build does not unroll it at run time
/// (`cg_builder::compile::LOOP_FLAGS`). For library loops that run about
/// once per thread, where unrolling only adds the trip count's division
/// and registers (the asynchronous copies' element loops).
#[inline(always)]
pub(crate) fn keep_rolled(x: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let mut x = x;
        // SAFETY: no instruction; `x` is its own input and output.
        unsafe { asm!("/* keep_rolled {x} */", x = inout(reg32) x, options(pure, nomem, nostack)) };
        x
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x
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
pub(crate) fn lane_id() -> u32 {
    let [tx, ty, tz] = thread_idx();
    let [bx, by, _] = block_dim();
    ((tz * by + ty) * bx + tx) & 31
}

/// `%lanemask_lt`: the lanes below this thread's lane.
#[inline(always)]
pub(crate) fn lanemask_lt() -> u32 {
    device!("mov.u32 %lanemask_lt", {
        let r: u32;
        // SAFETY: reads a special register.
        unsafe {
            asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(nomem, nostack, pure))
        };
        r
    }, sim: { cg_sim::device::lanemask_lt() })
}

/// `activemask.b32`: the lanes of the warp executing this instruction
/// together with the caller (`__activemask()`). Not `pure`: the answer
/// depends on where in the program it is asked. In the simulator, the call
/// site (the caller's, through `#[track_caller]`) tells apart the branches
/// of a divergent warp.
#[inline(always)]
#[track_caller]
pub(crate) fn activemask() -> u32 {
    device!("activemask.b32", {
        let r: u32;
        // SAFETY: reads which lanes are active; no operands.
        unsafe { asm!("activemask.b32 {r};", r = out(reg32) r, options(nomem, nostack)) };
        r
    }, sim: { cg_sim::device::activemask(core::panic::Location::caller()) })
}

/// `bar.sync 0`: the block-wide barrier (`__syncthreads`).
///
/// `bar.sync` is `barrier.sync.aligned`: every thread of a warp must execute
/// the same instruction. This goes through LLVM's barrier intrinsic, which is
/// `convergent`, so the optimizer never duplicates it into divergent paths
/// (it would, for an inline-asm barrier, and the block would deadlock).
///
/// # Safety
/// Every thread of the block that has not exited reaches this barrier, the
/// threads of one warp the same instruction (an aligned barrier reached by
/// part of a warp is undefined). On the simulator the caller's line is the
/// barrier's call site, which every thread of the block must share.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub(crate) unsafe fn bar_sync() {
    device!("bar.sync", {
        // SAFETY: every thread of the block that has not exited reaches this
        // barrier, each warp's threads the same one (this function's
        // contract): what `bar.sync`, aligned, asks.
        unsafe { nvptx::_syncthreads() }
    }, sim: {
        cg_sim::device::bar_sync(core::panic::Location::caller())
    })
}

/// `bar.warp.sync mask`: the threads in `mask` wait for each other.
///
/// # Safety
/// The calling thread's lane is in `mask`, and every lane of `mask` that
/// has not exited executes a `bar.warp.sync` with the same mask.
#[inline(always)]
pub(crate) unsafe fn bar_warp_sync(mask: u32) {
    device!("bar.warp.sync", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack))
        }
    }, sim: {
        cg_sim::device::warp(cg_sim::warp::WarpOp::Sync, mask, 0, 0, 0);
    })
}

/// The four `shfl.sync` modes.
#[derive(Clone, Copy)]
pub(crate) enum ShflMode {
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
///
/// # Safety
/// The calling thread's lane is in `mask`, and every lane of `mask` that
/// has not exited executes a `shfl.sync` with the same mode and mask.
#[inline(always)]
pub(crate) unsafe fn shfl_sync(mode: ShflMode, value: u32, b: u32, c: u32, mask: u32) -> u32 {
    device!("shfl.sync", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
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
            r
        }
    }, sim: {
        let mode = match mode {
            ShflMode::Idx => cg_sim::warp::ShflMode::Idx,
            ShflMode::Up => cg_sim::warp::ShflMode::Up,
            ShflMode::Down => cg_sim::warp::ShflMode::Down,
            ShflMode::Bfly => cg_sim::warp::ShflMode::Bfly,
        };
        cg_sim::device::warp(cg_sim::warp::WarpOp::Shfl(mode), mask, value as u64, b, c).value as u32
    })
}

/// `vote.sync.ballot.b32`: bit `i` set when lane `i` of `mask` has `pred`.
///
/// # Safety
/// The calling thread's lane is in `mask`, and every lane of `mask` that
/// has not exited executes a `vote.sync` with the same mode and mask.
#[inline(always)]
pub(crate) unsafe fn vote_ballot(pred: bool, mask: u32) -> u32 {
    device!("vote.sync.ballot.b32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
                r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
            r
        }
    }, sim: { cg_sim::device::warp(cg_sim::warp::WarpOp::Ballot, mask, pred as u64, 0, 0).value as u32 })
}

/// `vote.sync.any.pred`.
///
/// # Safety
/// As [`vote_ballot`].
#[inline(always)]
pub(crate) unsafe fn vote_any(pred: bool, mask: u32) -> bool {
    device!("vote.sync.any.pred", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.any.pred p, p, {m}; selp.u32 {r}, 1, 0, p; }}",
                r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
            r != 0
        }
    }, sim: { cg_sim::device::warp(cg_sim::warp::WarpOp::Any, mask, pred as u64, 0, 0).value != 0 })
}

/// `vote.sync.all.pred`.
///
/// # Safety
/// As [`vote_ballot`].
#[inline(always)]
pub(crate) unsafe fn vote_all(pred: bool, mask: u32) -> bool {
    device!("vote.sync.all.pred", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.all.pred p, p, {m}; selp.u32 {r}, 1, 0, p; }}",
                r = out(reg32) r, x = in(reg32) pred as u32, m = in(reg32) mask, options(nomem, nostack));
            r != 0
        }
    }, sim: { cg_sim::device::warp(cg_sim::warp::WarpOp::All, mask, pred as u64, 0, 0).value != 0 })
}

/// `match.any.sync.b32`: the lanes of `mask` whose `value` equals this
/// lane's.
///
/// # Safety
/// The calling thread's lane is in `mask`, and every lane of `mask` that
/// has not exited executes a `match.sync` of the same kind and width with
/// the same mask.
#[inline(always)]
pub(crate) unsafe fn match_any_b32(value: u32, mask: u32) -> u32 {
    device!("match.any.sync.b32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            asm!("match.any.sync.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) value, m = in(reg32) mask,
                options(nomem, nostack));
            r
        }
    }, sim: { cg_sim::device::warp(cg_sim::warp::WarpOp::MatchAny(false), mask, value as u64, 0, 0).value as u32 })
}

/// `match.any.sync.b64`: as [`match_any_b32`] for 64-bit values.
///
/// # Safety
/// As [`match_any_b32`].
#[inline(always)]
pub(crate) unsafe fn match_any_b64(value: u64, mask: u32) -> u32 {
    device!("match.any.sync.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            asm!("match.any.sync.b64 {r}, {v}, {m};", r = out(reg32) r, v = in(reg64) value, m = in(reg32) mask,
                options(nomem, nostack));
            r
        }
    }, sim: { cg_sim::device::warp(cg_sim::warp::WarpOp::MatchAny(true), mask, value, 0, 0).value as u32 })
}

/// `match.all.sync.b32`: `Some(mask)` when every lane of `mask` has the
/// same `value`, `None` otherwise.
///
/// # Safety
/// As [`match_any_b32`].
#[inline(always)]
pub(crate) unsafe fn match_all_b32(value: u32, mask: u32) -> Option<u32> {
    device!("match.all.sync.b32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let (r, ok): (u32, u32);
            asm!("{{ .reg .pred p; match.all.sync.b32 {r}|p, {v}, {m}; selp.u32 {ok}, 1, 0, p; }}",
                r = out(reg32) r, ok = out(reg32) ok, v = in(reg32) value, m = in(reg32) mask,
                options(nomem, nostack));
            if ok != 0 {
                Some(r)
            } else {
                None
            }
        }
    }, sim: {
        let r = cg_sim::device::warp(cg_sim::warp::WarpOp::MatchAll(false), mask, value as u64, 0, 0);
        r.pred.then_some(r.value as u32)
    })
}

/// `match.all.sync.b64`: as [`match_all_b32`] for 64-bit values.
///
/// # Safety
/// As [`match_any_b32`].
#[inline(always)]
pub(crate) unsafe fn match_all_b64(value: u64, mask: u32) -> Option<u32> {
    device!("match.all.sync.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let (r, ok): (u32, u32);
            asm!("{{ .reg .pred p; match.all.sync.b64 {r}|p, {v}, {m}; selp.u32 {ok}, 1, 0, p; }}",
                r = out(reg32) r, ok = out(reg32) ok, v = in(reg64) value, m = in(reg32) mask,
                options(nomem, nostack));
            if ok != 0 {
                Some(r)
            } else {
                None
            }
        }
    }, sim: {
        let r = cg_sim::device::warp(cg_sim::warp::WarpOp::MatchAll(true), mask, value, 0, 0);
        r.pred.then_some(r.value as u32)
    })
}

/// The operations of `redux.sync` (sm_80 and newer).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReduxOp {
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
///
/// # Safety
/// The calling thread's lane is in `mask`, and every lane of `mask` that
/// has not exited executes a `redux.sync` with the same operation and mask.
#[cfg(any(
    target_feature = "sm_80",
    all(not(target_arch = "nvptx64"), feature = "sim")
))]
#[inline(always)]
pub(crate) unsafe fn redux_sync(op: ReduxOp, value: u32, mask: u32) -> u32 {
    device!("redux.sync", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let r: u32;
            macro_rules! redux {
                ($insn:literal) => {
                    asm!(concat!($insn, " {r}, {v}, {m};"), r = out(reg32) r, v = in(reg32) value, m = in(reg32) mask,
                        options(nomem, nostack))
                };
            }
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
            r
        }
    }, sim: {
        use cg_sim::warp::ReduxOp as R;
        let op = match op {
            ReduxOp::Add => R::Add,
            ReduxOp::MinU32 => R::MinU32,
            ReduxOp::MaxU32 => R::MaxU32,
            ReduxOp::MinS32 => R::MinS32,
            ReduxOp::MaxS32 => R::MaxS32,
            ReduxOp::And => R::And,
            ReduxOp::Or => R::Or,
            ReduxOp::Xor => R::Xor,
        };
        cg_sim::device::warp(cg_sim::warp::WarpOp::Redux(op), mask, value as u64, 0, 0).value as u32
    })
}

/// The grid workspace pointer the driver passes to cooperative launches,
/// `{%envreg2, %envreg1}` (the ABI of CUDA's own headers). 0 under an
/// ordinary launch in a process that has made no cooperative launch.
#[inline(always)]
pub(crate) fn grid_workspace() -> u64 {
    device!("mov.b64 {%envreg2, %envreg1}", {
        let r: u64;
        // SAFETY: reads two special registers.
        unsafe {
            asm!("mov.b64 {r}, {{%envreg2, %envreg1}};", r = out(reg64) r, options(nomem, nostack, pure))
        };
        r
    }, sim: { cg_sim::device::grid_workspace() })
}

// The address of the grid barrier's counters (`grid::layout`): the module
// global `cg_grid_barrier`, which the host sets to the place it chose in
// the GPU's counter region when it loads the module (0 until then).
#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(".visible .global .align 8 .u64 cg_grid_barrier = 0;");

/// The address of the grid barrier's counters, read where it is used (an
/// asm statement with effects: the compiler neither merges two reads nor
/// keeps one in a register through a loop). The PTX reads the module
/// global `cg_grid_barrier` (`ld.global.nc.u64`); in an entry point that
/// reaches a barrier cg-builder makes it a read of a kernel parameter it
/// adds and the host fills in (`grid::layout::PARAM_SUFFIX`): ptxas takes
/// the address from the parameter bank as an operand, so no register holds
/// it between barriers and no load waits at one. A device function the
/// compiler did not inline keeps the global's read. On the simulator, a
/// zeroed place of the launch's own.
#[inline(always)]
pub(crate) fn grid_barrier_counters() -> u64 {
    device!("ld.global.nc.u64 [cg_grid_barrier]", {
        let r: u64;
        // SAFETY: the module global declared above, 8-byte aligned (or the
        // parameter cg-builder puts in its place); the host writes both
        // only between launches.
        unsafe {
            asm!("ld.global.nc.u64 {r}, [cg_grid_barrier];", r = out(reg64) r,
                 options(nomem, nostack, preserves_flags))
        };
        r
    }, sim: { cg_sim::device::grid_barrier_counters(crate::grid::layout::SLOT_BYTES as usize) })
}

/// Whether the grid barrier's counters are set: [`grid_barrier_counters`]
/// is not 0. The same read, but one the compiler may merge, move or drop
/// where nothing uses it (an asm statement without effects), so that a
/// kernel that never reaches a barrier keeps nothing of it.
#[inline(always)]
pub(crate) fn grid_barrier_counters_set() -> bool {
    device!("ld.global.nc.u64 [cg_grid_barrier]", {
        let r: u64;
        // SAFETY: as in `grid_barrier_counters`.
        unsafe {
            asm!("ld.global.nc.u64 {r}, [cg_grid_barrier];", r = out(reg64) r,
                 options(nomem, nostack, pure, preserves_flags))
        };
        r != 0
    }, sim: { grid_barrier_counters() != 0 })
}

/// `v`, through an asm statement with effects: what is computed from it
/// cannot move out of a loop. For values a barrier computes only when it
/// runs (hoisted, a persistent kernel would keep each of them in a
/// register through its whole loop of barriers).
#[inline(always)]
pub(crate) fn computed_in_place(v: u32) -> u32 {
    device!("mov.u32", {
        let r: u32;
        // SAFETY: a register move.
        unsafe { asm!("mov.u32 {r}, {v};", r = out(reg32) r, v = in(reg32) v, options(nomem, nostack, preserves_flags)) };
        r
    }, sim: { v })
}

/// The lanes of the block's first warp, as a mask (all 32 unless the block
/// has fewer threads), from `%ntid`, computed where it is used: an asm
/// statement with effects, so that the compiler keeps no register for it
/// through a loop (ptxas reads `%ntid` from the constant bank).
#[inline(always)]
pub(crate) fn first_warp_mask_in_place() -> u32 {
    device!("first warp mask from %ntid", {
        let r: u32;
        // SAFETY: reads special registers; register arithmetic.
        unsafe {
            asm!(
                "{{",
                ".reg .u32 %cg_t, %cg_u;",
                "mov.u32 %cg_t, %ntid.x;",
                "mov.u32 %cg_u, %ntid.y;",
                "mul.lo.u32 %cg_t, %cg_t, %cg_u;",
                "mov.u32 %cg_u, %ntid.z;",
                "mul.lo.u32 %cg_t, %cg_t, %cg_u;",
                "min.u32 %cg_t, %cg_t, 32;",
                "sub.u32 %cg_t, 32, %cg_t;",
                "shr.b32 {r}, -1, %cg_t;",
                "}}",
                r = out(reg32) r, options(nomem, nostack, preserves_flags))
        };
        r
    }, sim: {
        let [x, y, z] = cg_sim::device::block_dim();
        u32::MAX >> (32 - (x * y * z).min(32))
    })
}

/// `ld.acquire.gpu.u32` unless `skip`, predicated (no branch): 0 where
/// skipped.
///
/// # Safety
/// Unless `skip`, `ptr` must be a valid, 4-byte-aligned global address.
#[inline(always)]
pub(crate) unsafe fn ld_acquire_gpu_unless(skip: bool, ptr: *const u32) -> u32 {
    device!("@!p ld.acquire.gpu.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let v: u32;
            asm!(
                "{{",
                ".reg .pred %cg_skip;",
                "setp.ne.u32 %cg_skip, {s}, 0;",
                "mov.u32 {v}, 0;",
                "@!%cg_skip ld.acquire.gpu.u32 {v}, [{p}];",
                "}}",
                v = out(reg32) v, s = in(reg32) skip as u32, p = in(reg64) ptr, options(nostack));
            v
        }
    }, sim: {
        if skip {
            0
        } else {
            let v = sim::load::<u32>(atom::Place::Global(ptr as u64));
            sim::after(atom::Sem::Acquire);
            v
        }
    })
}

/// The comment `// cg-core: grid.sync` in the PTX, where a grid barrier is
/// reached, or a grid collective that waits for other blocks
/// (`grid_collectives`): cg-builder follows the calls to it to find the
/// kernels that must be launched cooperatively. No instruction. In the
/// simulator, `what` (`"grid.sync()"`) names the call in the fault of a
/// launch that is not cooperative.
#[inline(always)]
#[allow(unused_variables)]
pub(crate) fn grid_sync_marker(what: &'static str) {
    device!("// cg-core: grid.sync", {
        // SAFETY: a comment; it touches no register or memory.
        unsafe {
            asm!(
                "// cg-core: grid.sync",
                options(nomem, nostack, preserves_flags)
            )
        };
    }, sim: { cg_sim::device::grid_sync(what) })
}

// The multi-grid workspace, the module global `cg_multi_grid` the host
// sets before a multi-grid launch: the address of this GPU's barrier
// counter (0: not a multi-grid launch); this grid's rank (low word) and
// the number of grids (high word); then the address of every grid's
// counter, in rank order (`crate::multi_grid::MAX_GRIDS` of them). In
// constant memory: block 0 reads the counters' addresses right after its
// system-scope fence, which invalidates L1 (`CCTL.IVALL`); a global word
// would cost a trip to L2 for each GPU there, a constant one stays cached.
#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(
    ".visible .const .align 16 .u64 cg_multi_grid[10] = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};"
);

/// `ld.const.v2.u64` of `cg_multi_grid`'s first two words: constant for
/// the whole launch.
#[inline(always)]
pub(crate) fn multi_grid_workspace() -> [u64; 2] {
    device!("ld.const.v2.u64 [cg_multi_grid]", {
        let (a, b): (u64, u64);
        // SAFETY: the module global declared above, 16-byte aligned; the
        // host writes it only between launches.
        unsafe {
            asm!("ld.const.v2.u64 {{{a}, {b}}}, [cg_multi_grid];", a = out(reg64) a, b = out(reg64) b,
                 options(nostack, pure, readonly))
        };
        [a, b]
    }, sim: { [0, 0] })
}

/// The address of grid `rank`'s barrier counter, from `cg_multi_grid`
/// (`rank` below `crate::multi_grid::MAX_GRIDS`): read where it is used,
/// from the constant cache (constant for the launch).
#[inline(always)]
pub(crate) fn multi_grid_counter_of(rank: u32) -> u64 {
    device!("ld.const.u64 [cg_multi_grid + 16 + 8 * rank]", {
        let a: u64;
        // SAFETY: the module global declared above, 80 bytes; the offset
        // is below 80 for `rank < MAX_GRIDS` (this function's contract);
        // the host writes it only between launches.
        unsafe {
            asm!(
                "{{",
                ".reg .u64 %cg_w;",
                "mov.u64 %cg_w, cg_multi_grid;",
                "mad.wide.u32 %cg_w, {r}, 8, %cg_w;",
                "ld.const.u64 {a}, [%cg_w+16];",
                "}}",
                a = out(reg64) a, r = in(reg32) rank,
                options(nostack, pure, readonly)
            )
        };
        a
    }, sim: { let _ = rank; 0 })
}

/// The comment `// cg-core: multi_grid.sync` in the PTX, where a
/// multi-grid barrier is reached: cg-builder follows the calls to it to
/// find the kernels that must be declared `#[kernel(multi_grid)]`.
#[inline(always)]
pub(crate) fn multi_grid_sync_marker() {
    device!("// cg-core: multi_grid.sync", {
        // SAFETY: a comment; it touches no register or memory.
        unsafe {
            asm!(
                "// cg-core: multi_grid.sync",
                options(nomem, nostack, preserves_flags)
            )
        };
    }, sim: { cg_sim::device::grid_sync("multi_grid.sync()") })
}

/// `atom.add.release.gpu.u32`: returns the old value.
///
/// # Safety
/// `ptr` must be a valid, 4-byte-aligned global address.
#[inline(always)]
pub(crate) unsafe fn atom_add_release_gpu(ptr: *mut u32, v: u32) -> u32 {
    device!("atom.add.release.gpu.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let old: u32;
            asm!("atom.add.release.gpu.u32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) ptr, v = in(reg32) v, options(nostack));
            old
        }
    }, sim: {
        sim::before(atom::Sem::Release);
        sim::rmw::<u32>(atom::Place::Global(ptr as u64), |o| o.wrapping_add(v))
    })
}

/// `.f32` instructions of one operand that `math::fast` is built from (on
/// the GPU only: `math::fast` computes their host versions itself).
#[cfg(target_arch = "nvptx64")]
macro_rules! f32_unary {
    ($($(#[$doc:meta])* $name:ident => $insn:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: f32) -> f32 {
            let d: f32;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!($insn, " {d}, {a};"), d = out(reg32) d, a = in(reg32) a,
                     options(pure, nomem, nostack))
            };
            d
        }
    )*};
}

/// `.f32` instructions of two operands, as [`f32_unary`].
#[cfg(target_arch = "nvptx64")]
macro_rules! f32_binary {
    ($($(#[$doc:meta])* $name:ident => $insn:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name(a: f32, b: f32) -> f32 {
            let d: f32;
            // SAFETY: arithmetic on registers.
            unsafe {
                asm!(concat!($insn, " {d}, {a}, {b};"), d = out(reg32) d, a = in(reg32) a,
                     b = in(reg32) b, options(pure, nomem, nostack))
            };
            d
        }
    )*};
}

/// The approximate and directed-rounding `.f32` instructions behind CUDA's
/// fast intrinsics (`__expf`, `__fadd_rz`, ...), as nvcc emits them.
#[cfg(target_arch = "nvptx64")]
pub(crate) mod fast_f32 {
    use core::arch::asm;

    f32_unary! {
        /// `ex2.approx.f32`.
        ex2_approx => "ex2.approx.f32";
        /// `lg2.approx.f32`.
        lg2_approx => "lg2.approx.f32";
        /// `sin.approx.f32`.
        sin_approx => "sin.approx.f32";
        /// `cos.approx.f32`.
        cos_approx => "cos.approx.f32";
        /// `cvt.sat.f32.f32`: clamped to [0, 1], NaN to 0.
        saturate => "cvt.sat.f32.f32";
    }

    f32_binary! {
        /// `div.approx.f32`.
        div_approx => "div.approx.f32";
        /// `add.rn.f32`.
        add_rn => "add.rn.f32";
        /// `add.rz.f32`.
        add_rz => "add.rz.f32";
        /// `add.rm.f32`.
        add_rd => "add.rm.f32";
        /// `add.rp.f32`.
        add_ru => "add.rp.f32";
        /// `sub.rn.f32`.
        sub_rn => "sub.rn.f32";
        /// `sub.rz.f32`.
        sub_rz => "sub.rz.f32";
        /// `sub.rm.f32`.
        sub_rd => "sub.rm.f32";
        /// `sub.rp.f32`.
        sub_ru => "sub.rp.f32";
        /// `mul.rn.f32`.
        mul_rn => "mul.rn.f32";
        /// `mul.rz.f32`.
        mul_rz => "mul.rz.f32";
        /// `mul.rm.f32`.
        mul_rd => "mul.rm.f32";
        /// `mul.rp.f32`.
        mul_ru => "mul.rp.f32";
        /// `div.rn.f32`.
        div_rn => "div.rn.f32";
        /// `div.rz.f32`.
        div_rz => "div.rz.f32";
        /// `div.rm.f32`.
        div_rd => "div.rm.f32";
        /// `div.rp.f32`.
        div_ru => "div.rp.f32";
    }
}

/// One conversion instruction, `$insn` (its whole name, such as
/// `"cvt.rni.s32.f32"`), of `$a` (of type `$from`, in a `$rin` register) to
/// `$to` (in a `$rout` register): the instructions of `math::convert`,
/// which names each one beside the CUDA function it is.
#[cfg(target_arch = "nvptx64")]
macro_rules! cvt {
    ($insn:expr, $a:expr, $from:ty => $to:ty, $rin:ident => $rout:ident) => {{
        let a: $from = $a;
        let d: $to;
        // SAFETY: arithmetic on registers.
        unsafe {
            core::arch::asm!(concat!($insn, " {d}, {a};"), d = out($rout) d, a = in($rin) a,
                             options(pure, nomem, nostack))
        };
        d
    }};
}
#[cfg(target_arch = "nvptx64")]
pub(crate) use cvt;

/// `cvt!` into an 8-bit integer from a `bf16` (`$insn`: `"cvt.rzi.s8.bf16"`
/// or `"cvt.rzi.u8.bf16"`), which ptxas takes only into a `.b8` register
/// (an `f16`'s goes into a wider one): through one, as cuda_bf16.h does,
/// then its bits in the low byte of a 16-bit register, zeros above
/// (sm_90: below it `bf16` has no `cvt` to integers).
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
macro_rules! cvt_b8 {
    ($insn:expr, $a:expr) => {{
        let a: u16 = $a;
        let d: u16;
        // SAFETY: arithmetic on registers (`t` is local to the braces).
        unsafe {
            core::arch::asm!(concat!("{{ .reg .b8 t; ", $insn, " t, {a}; mov.b16 {d}, {{t, 0}}; }}"),
                             d = out(reg16) d, a = in(reg16) a, options(pure, nomem, nostack))
        };
        d
    }};
}
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub(crate) use cvt_b8;

/// `fma.rn.f32`: `a * b + c` with one rounding, to nearest even.
#[inline(always)]
pub(crate) fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    device!("fma.rn.f32", {
        let d: f32;
        // SAFETY: arithmetic on registers.
        unsafe {
            asm!("fma.rn.f32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a,
                 b = in(reg32) b, c = in(reg32) c, options(pure, nomem, nostack))
        };
        d
    }, sim: { crate::math::host_fma_f32(a, b, c) })
}

/// `fma.rn.f64`: `a * b + c` with one rounding, to nearest even.
#[inline(always)]
pub(crate) fn fma_rn_f64(a: f64, b: f64, c: f64) -> f64 {
    device!("fma.rn.f64", {
        let d: f64;
        // SAFETY: arithmetic on registers.
        unsafe {
            asm!("fma.rn.f64 {d}, {a}, {b}, {c};", d = out(reg64) d, a = in(reg64) a,
                 b = in(reg64) b, c = in(reg64) c, options(pure, nomem, nostack))
        };
        d
    }, sim: { crate::math::host_fma_f64(a, b, c) })
}

/// `%globaltimer`: a nanosecond clock shared by the whole GPU.
#[inline(always)]
pub(crate) fn globaltimer() -> u64 {
    device!("mov.u64 %globaltimer", {
        let t: u64;
        // SAFETY: reads a special register.
        unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) };
        t
    }, sim: { cg_sim::device::globaltimer() })
}

/// `vprintf(format, args)`: CUDA's `printf`, a call the CUDA driver links
/// when it loads the module (nvcc's `printf` is this call too). `args` is
/// the buffer of the arguments, each at an offset aligned to its size;
/// returns the number of arguments the format read, or a negative value.
///
/// # Safety
/// `format` is a NUL-terminated C format string and `args` holds an
/// argument for each of its conversions, laid out as CUDA's `printf`
/// reads them (null when there is none); a `%s` argument points to a
/// NUL-terminated string.
#[inline(always)]
pub(crate) unsafe fn vprintf(format: *const u8, args: *const u8) -> i32 {
    device!("vprintf", {
        extern "C" {
            fn vprintf(format: *const u8, args: *const u8) -> i32;
        }
        // SAFETY: the caller's contract.
        unsafe { vprintf(format, args) }
    }, sim: {
        // SAFETY: the caller's contract.
        unsafe { cg_sim::device::vprintf(format, args) }
    })
}

/// `atom.acq_rel.cta.shared.or.b32`: sets the bits `v` in the shared word
/// at `addr`, returns the old value.
///
/// # Safety
/// `addr` must be a valid, 4-byte-aligned address in this block's shared
/// window.
#[inline(always)]
pub(crate) unsafe fn atom_or_acq_rel_cta_shared(addr: u32, v: u32) -> u32 {
    device!("atom.acq_rel.cta.shared.or.b32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let old: u32;
            asm!("atom.acq_rel.cta.shared.or.b32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr, v = in(reg32) v, options(nostack));
            old
        }
    }, sim: {
        sim::before(atom::Sem::AcqRel);
        let old = sim::rmw::<u32>(atom::Place::Shared(addr), |o| o | v);
        sim::after(atom::Sem::AcqRel);
        old
    })
}

/// `red.relaxed.cta.shared.and.b32`: clears the bits not in `v` of the
/// shared word at `addr`.
///
/// # Safety
/// As [`atom_or_acq_rel_cta_shared`].
#[inline(always)]
pub(crate) unsafe fn red_and_relaxed_cta_shared(addr: u32, v: u32) {
    device!("red.relaxed.cta.shared.and.b32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("red.relaxed.cta.shared.and.b32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack));
        }
    }, sim: {
        sim::rmw::<u32>(atom::Place::Shared(addr), |o| o & v);
    })
}

/// `ld.acquire.cta.shared.u32`.
///
/// # Safety
/// As [`atom_or_acq_rel_cta_shared`].
#[inline(always)]
pub(crate) unsafe fn ld_acquire_cta_shared(addr: u32) -> u32 {
    device!("ld.acquire.cta.shared.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let v: u32;
            asm!("ld.acquire.cta.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(nostack));
            v
        }
    }, sim: {
        let v = sim::load::<u32>(atom::Place::Shared(addr));
        sim::after(atom::Sem::Acquire);
        v
    })
}

/// `trap`: abort the kernel; the launch fails with an error on the host.
#[inline(always)]
pub(crate) fn trap() -> ! {
    device!("trap", {
        // SAFETY: ends the kernel; nothing runs after it.
        unsafe { asm!("trap;", options(noreturn, nostack)) }
    }, sim: { panic!("trap: the kernel stopped itself (cg_core::fault::trap)") })
}

/// Reads a 32-bit special register by name, in the cluster family (sm_90).
macro_rules! cluster_sreg {
    ($(#[$doc:meta] $name:ident => $reg:literal, $sim:expr;)*) => {$(
        #[$doc]
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        #[inline(always)]
        pub(crate) fn $name() -> u32 {
            device!(concat!("mov.u32 ", $reg), {
                let r: u32;
                // SAFETY: reads a special register.
                unsafe { asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r, options(nomem, nostack, pure)) };
                r
            }, sim: { $sim })
        }
    )*};
}

cluster_sreg! {
    /// `%cluster_ctarank`: this block's rank in its cluster.
    cluster_ctarank => "%cluster_ctarank", cg_sim::device::cluster_ctarank();
    /// `%cluster_nctarank`: blocks in the cluster.
    cluster_nctarank => "%cluster_nctarank", cg_sim::device::cluster_nctarank();
    /// `%cluster_ctaid.x`.
    cluster_ctaid_x => "%cluster_ctaid.x", cg_sim::device::cluster_ctaid()[0];
    /// `%cluster_ctaid.y`.
    cluster_ctaid_y => "%cluster_ctaid.y", cg_sim::device::cluster_ctaid()[1];
    /// `%cluster_ctaid.z`.
    cluster_ctaid_z => "%cluster_ctaid.z", cg_sim::device::cluster_ctaid()[2];
    /// `%cluster_nctaid.x`.
    cluster_nctaid_x => "%cluster_nctaid.x", cg_sim::device::cluster_nctaid()[0];
    /// `%cluster_nctaid.y`.
    cluster_nctaid_y => "%cluster_nctaid.y", cg_sim::device::cluster_nctaid()[1];
    /// `%cluster_nctaid.z`.
    cluster_nctaid_z => "%cluster_nctaid.z", cg_sim::device::cluster_nctaid()[2];
    /// `%clusterid.x`.
    cluster_id_x => "%clusterid.x", cg_sim::device::cluster_id()[0];
    /// `%clusterid.y`.
    cluster_id_y => "%clusterid.y", cg_sim::device::cluster_id()[1];
    /// `%clusterid.z`.
    cluster_id_z => "%clusterid.z", cg_sim::device::cluster_id()[2];
    /// `%nclusterid.x`.
    cluster_nid_x => "%nclusterid.x", cg_sim::device::cluster_nid()[0];
    /// `%nclusterid.y`.
    cluster_nid_y => "%nclusterid.y", cg_sim::device::cluster_nid()[1];
    /// `%nclusterid.z`.
    cluster_nid_z => "%nclusterid.z", cg_sim::device::cluster_nid()[2];
}

/// `barrier.cluster.arrive` (release semantics): this thread has arrived at
/// the cluster barrier. Not the `.aligned` form, so that the optimizer may
/// duplicate it into divergent paths safely.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) fn barrier_cluster_arrive() {
    device!("barrier.cluster.arrive", {
        // SAFETY: the unaligned form, defined for any thread; no operands.
        unsafe { asm!("barrier.cluster.arrive;", options(nostack)) };
    }, sim: { cg_sim::device::cluster_arrive() })
}

/// `barrier.cluster.wait` (acquire semantics): waits until every thread of
/// the cluster has arrived.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) fn barrier_cluster_wait() {
    device!("barrier.cluster.wait", {
        // SAFETY: the unaligned form, defined for any thread; no operands.
        unsafe { asm!("barrier.cluster.wait;", options(nostack)) };
    }, sim: { cg_sim::device::cluster_wait() })
}

/// `mapa.shared::cluster.u32`: the address, in the cluster's shared window,
/// of shared address `addr` of block `rank` of the cluster.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) fn mapa_shared_cluster(addr: u32, rank: u32) -> u32 {
    device!("mapa.shared::cluster.u32", {
        let r: u32;
        // SAFETY: computes an address; nothing is accessed.
        unsafe {
            asm!("mapa.shared::cluster.u32 {r}, {a}, {k};", r = out(reg32) r, a = in(reg32) addr, k = in(reg32) rank,
                options(nomem, nostack, pure))
        };
        r
    }, sim: { cg_sim::device::mapa(addr, rank) })
}

/// `atom.shared::cluster.add.u32`: adds `v` to the word at a cluster shared
/// address (from `mapa`), atomically; returns the old value.
///
/// # Safety
/// `addr` must be a valid, 4-byte-aligned `.shared::cluster` address.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) unsafe fn atom_add_shared_cluster_u32(addr: u32, v: u32) -> u32 {
    device!("atom.shared::cluster.add.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let old: u32;
            asm!("atom.shared::cluster.add.u32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr, v = in(reg32) v, options(nostack));
            old
        }
    }, sim: { sim::rmw::<u32>(atom::Place::Shared(addr), |o| o.wrapping_add(v)) })
}

/// `%dynamic_smem_size`: bytes of dynamic shared memory this launch gave
/// each block.
#[inline(always)]
pub(crate) fn dynamic_smem_size() -> u32 {
    device!("mov.u32 %dynamic_smem_size", {
        let r: u32;
        // SAFETY: reads a special register.
        unsafe {
            asm!("mov.u32 {r}, %dynamic_smem_size;", r = out(reg32) r, options(nomem, nostack, pure))
        };
        r
    }, sim: { cg_sim::device::dynamic_shared_size() })
}

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(".extern .shared .align 16 .b8 cg_dynamic_shared[];");

/// The shared-window address of the block's dynamic shared memory (the
/// module's `cg_dynamic_shared`, 16-byte aligned).
#[inline(always)]
pub(crate) fn dynamic_shared_addr() -> u32 {
    device!("mov.u32 cg_dynamic_shared", {
        let addr: u32;
        // SAFETY: reads the address of the region declared above.
        unsafe {
            asm!("mov.u32 {a}, cg_dynamic_shared;", a = out(reg32) addr, options(nomem, nostack, pure))
        };
        addr
    }, sim: { 0 })
}

/// Declares a 16-byte-aligned `.shared` array of `[$ty; $n]` for the call
/// site of the outermost macro (its symbol is derived from that call's
/// file, line and column) and evaluates to its shared-window address: the
/// instructions behind [`shared_array!`](crate::shared_array).
#[doc(hidden)]
#[macro_export]
macro_rules! __cg_shared_array_addr {
    ($ty:ty; $n:expr) => {{
        #[cfg(target_arch = "nvptx64")]
        {
            #[allow(unused_imports)]
            mod __cg_shared_decl {
                use super::*;
                ::core::arch::global_asm!(
                    ".shared .align 16 .b8 cg_shared_{h}_{l}_{c}[{bytes}];",
                    h = const $crate::__private::fnv1a(file!()),
                    l = const line!(), c = const column!(),
                    bytes = const ::core::mem::size_of::<[$ty; $n]>(),
                );
            }
            let addr: u32;
            // SAFETY: reads the address of the array declared just above.
            unsafe {
                ::core::arch::asm!(
                    "mov.u32 {a}, cg_shared_{h}_{l}_{c};",
                    a = out(reg32) addr,
                    h = const $crate::__private::fnv1a(file!()),
                    l = const line!(), c = const column!(),
                    options(nomem, nostack, pure),
                )
            };
            addr
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // This call site's array: the static's address names it.
            static SITE: $crate::__private::SharedSite =
                $crate::__private::SharedSite::new(::core::mem::size_of::<[$ty; $n]>());
            $crate::__private::shared_array_addr_off_gpu(&SITE)
        }
    }};
}

/// The host body of [`__cg_shared_array_addr!`]: `device_only` behind a
/// function that returns an address, so that the code after a
/// `shared_array!` does not look unreachable to the compiler.
#[cfg(not(target_arch = "nvptx64"))]
pub fn shared_array_addr_off_gpu(site: &'static SharedSite) -> u32 {
    device!(".shared array", {}, sim: {
        cg_sim::device::shared_site(site as *const SharedSite as usize, site.bytes as u32)
    })
}

/// A `shared_array!` call site off the GPU: a static whose address names
/// the site, with the array's size.
#[cfg(not(target_arch = "nvptx64"))]
pub struct SharedSite {
    #[cfg_attr(not(feature = "sim"), allow(dead_code))]
    bytes: usize,
}

#[cfg(not(target_arch = "nvptx64"))]
impl SharedSite {
    /// The site of an array of `bytes` bytes.
    pub const fn new(bytes: usize) -> Self {
        SharedSite { bytes }
    }
}

/// `ld.shared{::cluster}.bN` and `st.shared{::cluster}.bN`: one load and one
/// store per window and width.
macro_rules! shared_ld_st {
    ($($(#[$cfg:meta])* $ld:ident, $st:ident, $space:literal, $w:literal, $t:ty, $class:ident;)*) => {$(
        #[doc = concat!("`ld.", $space, ".b", $w, "`.")]
        ///
        /// # Safety
        /// `addr` must be a valid address in that window, aligned to the
        /// width.
        $(#[$cfg])*
        #[inline(always)]
        pub(crate) unsafe fn $ld(addr: u32) -> $t {
            device!(concat!("ld.", $space, ".b", $w), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    let v: $t;
                    asm!(concat!("ld.", $space, ".b", $w, " {v}, [{a}];"), v = out($class) v, a = in(reg32) addr, options(nostack, readonly));
                    v
                }
            }, sim: { sim::shared_load(addr, sim::bytes_of_width($w)) as $t })
        }

        #[doc = concat!("`st.", $space, ".b", $w, "`.")]
        ///
        /// # Safety
        #[doc = concat!("As [`", stringify!($ld), "`].")]
        $(#[$cfg])*
        #[inline(always)]
        pub(crate) unsafe fn $st(addr: u32, v: $t) {
            device!(concat!("st.", $space, ".b", $w), {
                // SAFETY: the instruction's contract is this function's `# Safety`,
                // which its caller upholds.
                unsafe {
                    asm!(concat!("st.", $space, ".b", $w, " [{a}], {v};"), v = in($class) v, a = in(reg32) addr, options(nostack));
                }
            }, sim: { sim::shared_store(addr, sim::bytes_of_width($w), v as u64) })
        }
    )*};
}

shared_ld_st! {
    ld_shared_b8, st_shared_b8, "shared", "8", u16, reg16;
    ld_shared_b32, st_shared_b32, "shared", "32", u32, reg32;
    ld_shared_b64, st_shared_b64, "shared", "64", u64, reg64;
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    ld_shared_cluster_b8, st_shared_cluster_b8, "shared::cluster", "8", u16, reg16;
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    ld_shared_cluster_b32, st_shared_cluster_b32, "shared::cluster", "32", u32, reg32;
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    ld_shared_cluster_b64, st_shared_cluster_b64, "shared::cluster", "64", u64, reg64;
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
pub(crate) unsafe fn cp_async<const BYTES: u32>(dst: u32, src: *const u8) {
    device!("cp.async", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
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
    }, sim: {
        // The copy completes at once; the waits have nothing to wait for.
        // SAFETY: `src` holds `BYTES` readable bytes and `dst` is this
        // block's shared memory with room for them (this function's
        // contract); `shared_ptr` gives the simulated block's bytes there,
        // which do not overlap global memory.
        unsafe {
            core::ptr::copy_nonoverlapping(src, cg_sim::device::shared_ptr(dst, BYTES), BYTES as usize)
        };
        cg_sim::device::shared_filled(dst, BYTES);
    })
}

/// `cp.async.commit_group`: closes the calling thread's batch of
/// `cp.async` copies.
#[inline(always)]
pub(crate) fn cp_async_commit() {
    device!("cp.async.commit_group", {
        // SAFETY: acts on the calling thread's own copies; no operands.
        unsafe { asm!("cp.async.commit_group;", options(nostack)) };
    }, sim: {})
}

/// `cp.async.wait_group N`: waits until at most `N` of the calling thread's
/// committed batches are still in flight.
#[inline(always)]
pub(crate) fn cp_async_wait_group<const N: u32>() {
    device!("cp.async.wait_group", {
        // SAFETY: waits for the calling thread's own copies.
        unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
    }, sim: {})
}

/// `cp.async.wait_group STAGES - 1`: waits until fewer than `STAGES` of
/// the calling thread's committed batches are still in flight (the oldest
/// of `STAGES` has landed).
#[inline(always)]
pub(crate) fn cp_async_wait_oldest_of<const STAGES: usize>() {
    device!("cp.async.wait_group", {
        // SAFETY: waits for the calling thread's own copies.
        unsafe { asm!("cp.async.wait_group {n};", n = const STAGES - 1, options(nostack)) };
    }, sim: {})
}

/// `prefetch.L2`: asks for the line holding `at` to be brought into L2,
/// without waiting and without a register for the data. A hint: it reads
/// nothing the program sees, and the simulator has no cache to warm.
#[inline(always)]
pub(crate) fn prefetch_l2<T>(at: *const T) {
    device!("prefetch.L2", {
        // SAFETY: a prefetch never faults and changes no memory the
        // program reads; `at` is an address of the caller's slice.
        unsafe { asm!("prefetch.L2 [{a}];", a = in(reg64) at, options(nostack, readonly, preserves_flags)) };
    }, sim: { let _ = at; })
}

/// `cp.async.mbarrier.arrive.shared.b64`: the mbarrier at `bar` gets one
/// more pending arrival now and that arrival when all of the calling
/// thread's earlier `cp.async` copies have landed (the arrival count
/// expected by the barrier is unchanged).
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub(crate) unsafe fn cp_async_mbarrier_arrive(bar: u32) {
    device!("cp.async.mbarrier.arrive.shared.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("cp.async.mbarrier.arrive.shared.b64 [{b}];", b = in(reg32) bar, options(nostack));
        }
    }, sim: {
        // Without `.noinc` the arrival is counted in advance and made when
        // the copies complete: no net change, and they completed already.
        cg_sim::device::shared_ptr(bar, 8);
    })
}

/// `mbarrier.init.shared.b64 [bar], count`.
///
/// # Safety
/// `bar` must be an 8-byte-aligned shared address no thread is using as a
/// barrier yet.
#[inline(always)]
pub(crate) unsafe fn mbarrier_init(bar: u32, count: u32) {
    device!("mbarrier.init.shared.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("mbarrier.init.shared.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count, options(nostack));
        }
    }, sim: { cg_sim::device::mbarrier_init(bar, count) })
}

/// `mbarrier.arrive.shared.b64` (release): returns the phase token.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub(crate) unsafe fn mbarrier_arrive(bar: u32) -> u64 {
    device!("mbarrier.arrive.shared.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            let t: u64;
            asm!("mbarrier.arrive.shared.b64 {t}, [{b}];", t = out(reg64) t, b = in(reg32) bar, options(nostack));
            t
        }
    }, sim: { cg_sim::device::mbarrier_arrive(bar) })
}

/// `mbarrier.arrive_drop.shared.b64`: arrives and lowers the expected
/// count of every later phase by one.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub(crate) unsafe fn mbarrier_arrive_drop(bar: u32) {
    device!("mbarrier.arrive_drop.shared.b64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("mbarrier.arrive_drop.shared.b64 _, [{b}];", b = in(reg32) bar, options(nostack));
        }
    }, sim: { cg_sim::device::mbarrier_arrive_drop(bar) })
}

/// Whether the phase of `token` is complete (acquire): `mbarrier.try_wait`
/// on sm_90 (the thread may sleep in it for a while), `mbarrier.test_wait`
/// before.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[inline(always)]
pub(crate) unsafe fn mbarrier_test_wait(bar: u32, token: u64) -> bool {
    device!("mbarrier.test_wait", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
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
    }, sim: { cg_sim::device::mbarrier_test_wait(bar, token) })
}

/// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64` (sm_90): the current
/// phase also waits for `bytes` more bytes of bulk copies.
///
/// # Safety
/// `bar` must be the shared address of an initialised mbarrier.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) unsafe fn mbarrier_expect_tx(bar: u32, bytes: u32) {
    device!("mbarrier.expect_tx", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{b}], {n};", b = in(reg32) bar, n = in(reg32) bytes, options(nostack));
        }
    }, sim: { cg_sim::device::mbarrier_expect_tx(bar, bytes) })
}

/// `fence.proxy.async.shared::cta` (sm_90): orders the calling thread's
/// earlier shared-memory accesses (and those it has seen through a barrier)
/// before later bulk copies into the same memory.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) fn fence_proxy_async_shared() {
    device!("fence.proxy.async.shared::cta", {
        // SAFETY: a fence; no operands.
        unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
    }, sim: {})
}

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`
/// (sm_90): the bulk copy engine copies `bytes` from global to shared
/// memory and reports them to the mbarrier at `bar`.
///
/// # Safety
/// `dst` (this block's shared window) and `src` (global) must be 16-byte
/// aligned with `bytes` valid bytes, `bytes` a multiple of 16, and `bar`
/// an initialised mbarrier of this block.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub(crate) unsafe fn cp_async_bulk_global_to_shared(
    dst: u32,
    src: *const u8,
    bytes: u32,
    bar: u32,
) {
    device!("cp.async.bulk.shared::cluster.global", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{s}], {n}, [{b}];",
                d = in(reg32) dst, s = in(reg64) src, n = in(reg32) bytes, b = in(reg32) bar, options(nostack)
            );
        }
    }, sim: {
        // SAFETY: `src` holds `bytes` readable bytes and `dst` is this
        // block's shared memory with room for them (this function's
        // contract); `shared_ptr` gives the simulated block's bytes there,
        // which do not overlap global memory.
        unsafe {
            core::ptr::copy_nonoverlapping(src, cg_sim::device::shared_ptr(dst, bytes), bytes as usize)
        };
        cg_sim::device::shared_filled(dst, bytes);
        cg_sim::device::mbarrier_complete_tx(bar, bytes);
    })
}

#[cfg(test)]
mod tests {
    use crate::group::GroupSync;

    #[test]
    #[should_panic(expected = "cg-core: `bar.sync` runs only on the GPU (nvptx64)")]
    fn instructions_say_off_the_gpu_that_they_run_only_on_it() {
        crate::block::this_thread_block().sync();
    }

    /// Inline assembly (`asm!`, `global_asm!`) only in this instruction
    /// layer (`intrinsics.rs`, `intrinsics/`), the one place whose unsafe
    /// code is reviewed against the PTX ISA; comments may name it.
    #[test]
    fn inline_assembly_is_only_in_the_instruction_layer() {
        fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    rust_files(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut outside = Vec::new();
        for file in files {
            let rel = file.strip_prefix(&src).unwrap();
            if rel.starts_with("intrinsics") || rel == std::path::Path::new("intrinsics.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap();
                if code.contains("asm!") {
                    outside.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(
            outside.is_empty(),
            "inline assembly outside cg-core's instruction layer:\n{}",
            outside.join("\n")
        );
    }
}
