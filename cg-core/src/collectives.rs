//! Collectives over a tile or coalesced group (`cg::reduce`,
//! `cg::inclusive_scan`, `cg::exclusive_scan`, `cg::invoke_one`), and a
//! block-wide reduce.
//!
//! The operator is one of [`Plus`], [`Less`] (minimum), [`Greater`]
//! (maximum), [`BitAnd`], [`BitOr`], [`BitXor`] (CUDA's `cg::plus<T>()` and
//! friends) or any closure `Fn(T, T) -> T`. It must be associative; values
//! are always combined in rank order (`op(lower ranks, higher ranks)`), so
//! it need not be commutative, and every member gets the same bits back.
//!
//! | call | how |
//! |---|---|
//! | `reduce` of `u32`/`i32` with a built-in operator, sm_80+ | one `redux.sync.{add,min,max,and,or,xor}` |
//! | `reduce` on a tile (or a whole-warp coalesced group) | butterfly: log2(size) `shfl.sync.bfly` |
//! | `reduce` on a sparse coalesced group | inclusive scan, then a shuffle from the last rank |
//! | `inclusive_scan` | Hillis–Steele: log2(size) `shfl_up` |
//! | `exclusive_scan` | inclusive scan, then `shfl_up` by one; rank 0 gets `T::zeroed()` (CUDA's `T{}`) |
//!
//! `redux.sync` is chosen when the module is built for sm_80 or newer
//! (`cfg(target_feature = "sm_80")`); otherwise, and for every other type,
//! the shuffle trees run. `T` is any [`Pod`] type of at most 32 bytes.
//!
//! ```ignore
//! let tile = tiled_partition::<16>(&this_thread_block());
//! let total = reduce(&tile, x, Plus);                  // redux.sync.add.u32 for u32
//! let biggest = reduce(&tile, f, Greater);             // shuffle tree for f32
//! let offset = exclusive_scan(&tile, count, Plus);     // where this thread's items go
//! let prod = reduce(&tile, m, |a: Mat2, b: Mat2| a.mul(b)); // any associative closure
//! ```

use crate::block::ThreadBlock;
use crate::coalesced::CoalescedGroup;
use crate::group::{GroupSync, ThreadGroup, WarpGroup};
use crate::intrinsics::{self, ShflMode};
use crate::shared::{ld_shared, st_shared};
use crate::shuffle::{segment_c, shfl_pod};
use bytemuck::Pod;
use core::mem::size_of;

/// A binary operator for [`reduce`] and the scans. Implemented by the
/// built-in operators and by every closure `Fn(T, T) -> T`.
pub trait Operator<T> {
    /// `a op b`, with `a` from the lower ranks.
    fn apply(&self, a: T, b: T) -> T;

    /// The whole-group reduction in one hardware instruction, when there is
    /// one for this operator and type (`redux.sync` on sm_80+); `None`
    /// otherwise.
    #[inline(always)]
    fn reduce_in_hardware(&self, _value: T, _mask: u32) -> Option<T> {
        None
    }
}

impl<T, F: Fn(T, T) -> T> Operator<T> for F {
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        self(a, b)
    }
}

/// `redux.sync` for `u32` and `i32`, when the target has it.
#[inline(always)]
#[allow(unused_variables)]
fn redux<T: Pod>(
    unsigned: intrinsics::ReduxOp,
    signed: intrinsics::ReduxOp,
    value: T,
    mask: u32,
) -> Option<T> {
    #[cfg(target_feature = "sm_80")]
    {
        use crate::shuffle::{bits32, from_bits32};
        use core::any::TypeId;
        let t = TypeId::of::<T>();
        let op = if t == TypeId::of::<u32>() {
            unsigned
        } else if t == TypeId::of::<i32>() {
            signed
        } else {
            return None;
        };
        return Some(from_bits32(intrinsics::redux_sync(op, bits32(value), mask)));
    }
    #[allow(unreachable_code)]
    None
}

macro_rules! operator {
    ($(#[$doc:meta])* $name:ident, $bound:path, |$a:ident, $b:ident| $body:expr, $unsigned:ident, $signed:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl<T: Pod + $bound> Operator<T> for $name {
            #[inline(always)]
            fn apply(&self, $a: T, $b: T) -> T {
                $body
            }

            #[inline(always)]
            fn reduce_in_hardware(&self, value: T, mask: u32) -> Option<T> {
                redux(intrinsics::ReduxOp::$unsigned, intrinsics::ReduxOp::$signed, value, mask)
            }
        }
    };
}

operator!(
    /// `cg::plus<T>()`: `a + b` (wrapping for integers, as in release
    /// kernels and `redux.sync.add`).
    Plus, core::ops::Add<Output = T>, |a, b| a + b, Add, Add
);
operator!(
    /// `cg::less<T>()`: the minimum, `if b < a { b } else { a }` (CUDA's
    /// definition, NaN handling included).
    Less, PartialOrd, |a, b| if b < a { b } else { a }, MinU32, MinS32
);
operator!(
    /// `cg::greater<T>()`: the maximum, `if a < b { b } else { a }`.
    Greater, PartialOrd, |a, b| if a < b { b } else { a }, MaxU32, MaxS32
);
operator!(
    /// `cg::bit_and<T>()`: `a & b`.
    BitAnd, core::ops::BitAnd<Output = T>, |a, b| a & b, And, And
);
operator!(
    /// `cg::bit_or<T>()`: `a | b`.
    BitOr, core::ops::BitOr<Output = T>, |a, b| a | b, Or, Or
);
operator!(
    /// `cg::bit_xor<T>()`: `a ^ b`.
    BitXor, core::ops::BitXor<Output = T>, |a, b| a ^ b, Xor, Xor
);

/// Butterfly reduction over an aligned segment of `width` lanes: after
/// step `k` every lane holds its 2^k-block's value, combined in lane order.
#[inline(always)]
fn butterfly<T: Pod, Op: Operator<T>>(mut value: T, op: &Op, width: u32, mask: u32) -> T {
    let lane = intrinsics::lane_id();
    let c = segment_c(ShflMode::Bfly, width);
    let mut offset = 1;
    while offset < width {
        let other = shfl_pod(ShflMode::Bfly, value, offset, c, mask);
        value = if lane & offset == 0 {
            op.apply(value, other)
        } else {
            op.apply(other, value)
        };
        offset <<= 1;
    }
    value
}

/// `cg::reduce(group, value, op)`: `op` over the `value` of every member,
/// in rank order, returned to every member.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let sum = reduce(&warp, x, Plus);
/// ```
#[inline(always)]
pub fn reduce<G: WarpGroup, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    reduce_ref(group, value, &op)
}

#[inline(always)]
fn reduce_ref<G: WarpGroup, T: Pod, Op: Operator<T>>(group: &G, value: T, op: &Op) -> T {
    if let Some(r) = op.reduce_in_hardware(value, group.mask()) {
        return r;
    }
    match group.segment_width() {
        Some(width) => butterfly(value, op, width, group.mask()),
        None => {
            let scan = inclusive_scan_ref(group, value, op);
            group.shfl(scan, group.num_threads() - 1)
        }
    }
}

/// `cg::inclusive_scan(group, value, op)`: rank `r` gets `op` over the
/// values of ranks `0..=r`.
///
/// ```ignore
/// let running_total = inclusive_scan(&tile, x, Plus);
/// ```
#[inline(always)]
pub fn inclusive_scan<G: WarpGroup, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    inclusive_scan_ref(group, value, &op)
}

#[inline(always)]
fn inclusive_scan_ref<G: WarpGroup, T: Pod, Op: Operator<T>>(
    group: &G,
    mut value: T,
    op: &Op,
) -> T {
    let rank = group.thread_rank();
    let size = group.num_threads();
    let mut delta = 1;
    while delta < size {
        let lower = group.shfl_up(value, delta);
        if rank >= delta {
            value = op.apply(lower, value);
        }
        delta <<= 1;
    }
    value
}

/// `cg::exclusive_scan(group, value, op)`: rank `r > 0` gets `op` over the
/// values of ranks `0..r`; rank 0 gets `T::zeroed()` (CUDA's `T{}`).
///
/// ```ignore
/// let slot = exclusive_scan(&tile, count, Plus);
/// ```
#[inline(always)]
pub fn exclusive_scan<G: WarpGroup, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    let inclusive = inclusive_scan_ref(group, value, &op);
    let before = group.shfl_up(inclusive, 1);
    if group.thread_rank() == 0 {
        T::zeroed()
    } else {
        before
    }
}

/// `cg::invoke_one(group, f)`: one member (rank 0) calls `f`; then the group
/// synchronizes, so what `f` wrote is visible to every member.
///
/// ```ignore
/// invoke_one(&warp, || unsafe { *flag = 1 });
/// ```
#[inline(always)]
pub fn invoke_one<G: WarpGroup>(group: &G, f: impl FnOnce()) {
    if group.thread_rank() == 0 {
        f();
    }
    group.sync();
}

/// `cg::invoke_one_broadcast(group, f)`: one member (rank 0) calls `f`, and
/// every member gets its result (a shuffle from rank 0).
///
/// ```ignore
/// let base = invoke_one_broadcast(&active, || unsafe { atomic_add(counter, active.num_threads()) });
/// ```
#[inline(always)]
pub fn invoke_one_broadcast<G: WarpGroup, T: Pod>(group: &G, f: impl FnOnce() -> T) -> T {
    let mut value = T::zeroed();
    if group.thread_rank() == 0 {
        value = f();
    }
    group.shfl(value, 0)
}

/// Block-wide reduce: `op` over the `value` of every thread of the block,
/// in rank order, returned to every thread. Each warp reduces (as
/// [`reduce`] does, a partial last warp over the lanes that exist), warp
/// results meet in shared memory, the first warp reduces those, and the
/// result is broadcast through shared memory. Two `bar.sync`s.
///
/// Every thread of the block must call it, with the same operator; blocks
/// of any shape up to 1024 threads. `T` is at most 32 bytes.
///
/// ```ignore
/// let block = this_thread_block();
/// let total = block_reduce(&block, x, Plus);
/// let top = block_reduce(&block, x, Greater);
/// ```
#[inline(always)]
pub fn block_reduce<T: Pod, Op: Operator<T>>(block: &ThreadBlock, value: T, op: Op) -> T {
    // 32 warp results and the block's result, 32 bytes each at most. The
    // result has a fixed place after the room for 32 partials of any type:
    // every call shares this one array, and a call's partials (written
    // before its first barrier) must not overlap the previous call's
    // result, which slower threads may still be reading.
    let scratch = crate::shared_array!(u32; 33 * 8);
    let base = scratch.shared_addr();
    let slot = |i: u32| base + i * size_of::<T>() as u32;
    let result = base + 32 * 32;
    let rank = block.thread_rank();
    let warp = CoalescedGroup::from_mask(block.warp_lanes());
    let partial = reduce_ref(&warp, value, &op);
    if warp.thread_rank() == 0 {
        // SAFETY: slot rank / 32 < 32 lies inside the scratch array.
        unsafe { st_shared(slot(rank / 32), partial) };
    }
    block.sync();
    let warps = block.num_threads().div_ceil(32);
    if rank < warps {
        let leaders = CoalescedGroup::from_mask(((1u64 << warps) - 1) as u32);
        // SAFETY: rank < warps <= 32 slots were written before the barrier.
        let total = reduce_ref(&leaders, unsafe { ld_shared::<T>(slot(rank)) }, &op);
        if rank == 0 {
            // SAFETY: the last 32 bytes of the scratch array.
            unsafe { st_shared(result, total) };
        }
    }
    block.sync();
    // SAFETY: written by thread 0 before the barrier.
    unsafe { ld_shared(result) }
}
