//! Collectives over a tile or coalesced group (`cg::reduce`,
//! `cg::inclusive_scan`, `cg::exclusive_scan`, `cg::invoke_one`). The
//! block-wide ones are in [`block_collectives`](crate::block_collectives).
//!
//! The operator is one of [`Plus`], [`Less`] (minimum), [`Greater`]
//! (maximum), [`BitAnd`], [`BitOr`], [`BitXor`] (CUDA's `cg::plus<T>()` and
//! friends) or any closure `Fn(T, T) -> T`. It must be associative, and
//! every member gets the same bits back. The two kinds combine in different
//! orders ([`Operator::CUDA_ORDER`]):
//!
//! * the built-in operators follow nvcc's `cooperative_groups` exactly:
//!   `reduce` on a tile is `v = op(v, shfl_xor(v, m))` for `m = N/2, ..., 1`
//!   and the scans combine `op(own, lower)`, so a float `reduce(&tile, x,
//!   Plus)` has the bits of `cg::reduce(tile, x, cg::plus<float>())`;
//! * closures combine in rank order (`op(lower ranks, higher ranks)`, the
//!   butterfly with offsets 1, 2, 4, ...), so they need not be commutative
//!   (an affine-map composition works). A float closure `|a, b| a + b`
//!   on a tile of 4 or more can therefore differ from nvcc's lambda in the
//!   last bit: use [`Plus`] for CUDA's bits.
//!
//! | call | how |
//! |---|---|
//! | `reduce` of `u32`/`i32` with a built-in operator, sm_80+ | one `redux.sync.{add,min,max,and,or,xor}` |
//! | `reduce` on a tile (or a whole-warp coalesced group) | butterfly: log2(size) `shfl.sync.bfly` (see above for the order) |
//! | `reduce` on a sparse coalesced group | inclusive scan, then a shuffle from the last rank |
//! | `inclusive_scan` | Hillis–Steele: log2(size) `shfl_up` |
//! | `exclusive_scan` | inclusive scan, then `shfl_up` by one; rank 0 gets `T::zeroed()` (CUDA's `T{}`) |
//!
//! `redux.sync` is chosen when the module is built for sm_80 or newer
//! (`cfg(target_feature = "sm_80")`), and in the simulator, which takes
//! the newest architecture's paths; otherwise, and for every other type,
//! the shuffle trees run. `T` is any [`Pod`] type of at most 32 bytes.
//!
//! ```ignore
//! let tile = tiled_partition::<16>(&this_thread_block());
//! let total = reduce(&tile, x, Plus);                  // redux.sync.add.u32 for u32
//! let biggest = reduce(&tile, f, Greater);             // shuffle tree for f32
//! let offset = exclusive_scan(&tile, count, Plus);     // where this thread's items go
//! let prod = reduce(&tile, m, |a: Mat2, b: Mat2| a.mul(b)); // any associative closure
//! ```

use crate::coalesced::CoalescedGroup;
use crate::group::{ThreadGroup, WarpGroup};
use crate::intrinsics::{self, ShflMode};
use crate::segments::WarpSegments;
use crate::shuffle::{segment_c, shfl_pod};
use crate::tile::{DynamicTile, ThreadBlockTile};
use bytemuck::Pod;

/// A binary operator for [`reduce`] and the scans. Implemented by the
/// built-in operators and by every closure `Fn(T, T) -> T`.
pub trait Operator<T> {
    /// Whether the operator combines values in CUDA's order (`true` for the
    /// built-in operators, which are commutative: [`reduce`] then gives
    /// the bits nvcc's `cg::reduce` gives), or in rank order (`false`, every
    /// closure: any associative operator, commutative or not).
    const CUDA_ORDER: bool = false;

    /// `a op b`. In rank order `a` holds the lower ranks.
    fn apply(&self, a: T, b: T) -> T;

    /// The whole-group reduction in one hardware instruction, when there is
    /// one for this operator and type (`redux.sync` on sm_80+); `None`
    /// otherwise.
    ///
    /// # Safety
    /// As `redux.sync`'s: the caller's lane is in `mask`, and every lane of
    /// `mask` that has not exited calls this with the same mask.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn reduce_in_hardware(&self, _value: T, _mask: u32) -> Option<T> {
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
///
/// # Safety
/// As [`Operator::reduce_in_hardware`].
#[inline(always)]
#[allow(unused_variables)]
unsafe fn redux<T: Pod>(
    unsigned: intrinsics::ReduxOp,
    signed: intrinsics::ReduxOp,
    value: T,
    mask: u32,
) -> Option<T> {
    #[cfg(any(
        target_feature = "sm_80",
        all(not(target_arch = "nvptx64"), feature = "sim")
    ))]
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
        // SAFETY: `redux.sync`'s contract is this function's (the caller's
        // lane is in `mask`; every lane of it that has not exited calls
        // this with the same mask, so with the same operation, which
        // depends only on the operator and type).
        return Some(from_bits32(unsafe {
            intrinsics::redux_sync(op, bits32(value), mask)
        }));
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
            const CUDA_ORDER: bool = true;

            #[inline(always)]
            fn apply(&self, $a: T, $b: T) -> T {
                $body
            }

            #[inline(always)]
            unsafe fn reduce_in_hardware(&self, value: T, mask: u32) -> Option<T> {
                // SAFETY: `redux`'s contract is this method's, passed on.
                unsafe {
                    redux(intrinsics::ReduxOp::$unsigned, intrinsics::ReduxOp::$signed, value, mask)
                }
            }
        }
    };
}

operator!(
    /// `cg::plus<T>()`: `a + b` (wrapping for integers, as in release
    /// kernels and `redux.sync.add`; for [`f16`](crate::half::f16) and
    /// [`bf16`](crate::half::bf16) the instruction `__hadd` is,
    /// [`HalfFloat::hadd`](crate::half::HalfFloat::hadd)).
    Plus, core::ops::Add<Output = T>, |a, b| crate::half::add_as_cuda(a, b, |a, b| a + b), Add, Add
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

/// Butterfly reduction over an aligned segment of `width` lanes.
///
/// * CUDA's order (built-in operators): `v = op(v, shfl_xor(v, m))` for
///   `m = width / 2, ..., 1`, the tree of nvcc's `cg::reduce`, so float
///   sums have its bits.
/// * Rank order (closures): offsets `1, 2, 4, ...`; after step `k` every
///   lane holds its aligned run of `2^k` lanes combined in lane order.
///
/// # Safety
/// The `shfl.sync` contract for `mask`: it holds the caller's lane, and
/// every lane of it that has not exited calls this together.
#[inline(always)]
pub(crate) unsafe fn butterfly<T: Pod, Op: Operator<T>>(
    mut value: T,
    op: &Op,
    width: u32,
    mask: u32,
) -> T {
    let c = segment_c(ShflMode::Bfly, width);
    if Op::CUDA_ORDER {
        let mut offset = width / 2;
        while offset > 0 {
            // SAFETY: `mask` holds this lane and every lane of it that has
            // not exited runs this loop (this function's contract), with
            // the same trip count (`width` is the same in every lane).
            let other = unsafe { shfl_pod(ShflMode::Bfly, value, offset, c, mask) };
            value = op.apply(value, other);
            offset /= 2;
        }
        return value;
    }
    let lane = intrinsics::lane_id();
    let mut offset = 1;
    while offset < width {
        // SAFETY: as in the loop above: this function's contract, and the
        // same trip count in every lane.
        let other = unsafe { shfl_pod(ShflMode::Bfly, value, offset, c, mask) };
        value = if lane & offset == 0 {
            op.apply(value, other)
        } else {
            op.apply(other, value)
        };
        offset <<= 1;
    }
    value
}

/// A group [`reduce`] and the scans accept: every tile, coalesced group
/// and multi-warp tile (CUDA's `cg::reduce` takes the same groups). Sealed:
/// the methods are the implementations behind the free functions.
pub trait Collective: ThreadGroup + sealed::Sealed {
    #[doc(hidden)]
    fn reduce_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T;
    #[doc(hidden)]
    fn inclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T;
    #[doc(hidden)]
    fn exclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T;
}

pub(crate) mod sealed {
    /// Keeps [`Collective`](super::Collective) to this crate's groups.
    pub trait Sealed {}
}

/// The warp-level collectives, for every group that lives in one warp.
macro_rules! warp_collective {
    ($([$($generics:tt)*] $group:ty),* $(,)?) => {$(
        impl<$($generics)*> sealed::Sealed for $group {}
        impl<$($generics)*> Collective for $group {
            #[inline(always)]
            fn reduce_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
                warp_reduce(self, value, op)
            }

            #[inline(always)]
            fn inclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
                warp_inclusive_scan(self, value, op)
            }

            #[inline(always)]
            fn exclusive_scan_with<T: Pod, Op: Operator<T>>(&self, value: T, op: &Op) -> T {
                let inclusive = warp_inclusive_scan(self, value, op);
                let before = self.shfl_up(inclusive, 1);
                if self.thread_rank() == 0 {
                    T::zeroed()
                } else {
                    before
                }
            }
        }
    )*};
}

warp_collective!(
    [const N: u32] ThreadBlockTile<N>,
    [const N: u32] WarpSegments<N>,
    [] DynamicTile,
    [] CoalescedGroup,
);

/// `cg::reduce(group, value, op)`: `op` over the `value` of every member,
/// returned to every member (see the module docs for the combine order).
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let sum = reduce(&warp, x, Plus);
/// ```
#[inline(always)]
pub fn reduce<G: Collective, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    group.reduce_with(value, &op)
}

#[inline(always)]
fn warp_reduce<G: WarpGroup, T: Pod, Op: Operator<T>>(group: &G, value: T, op: &Op) -> T {
    // `redux.sync` reduces over its whole member mask: only for groups that
    // issue their instructions with their own lanes.
    if group.sync_mask() == group.mask() {
        // SAFETY: the group's lanes hold the caller and its members call
        // together (`WarpGroup`'s contract).
        if let Some(r) = unsafe { op.reduce_in_hardware(value, group.mask()) } {
            return r;
        }
    }
    match group.segment_width() {
        // SAFETY: the group's member mask holds the caller, and the lanes
        // of that mask call together (`WarpGroup`'s contract).
        Some(width) => unsafe { butterfly(value, op, width, group.sync_mask()) },
        None => {
            let scan = warp_inclusive_scan(group, value, op);
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
pub fn inclusive_scan<G: Collective, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    group.inclusive_scan_with(value, &op)
}

/// One Hillis–Steele step's combination: CUDA's `op(own, lower)` for the
/// built-in operators, rank order `op(lower, own)` for closures.
#[inline(always)]
fn combine_lower<T, Op: Operator<T>>(op: &Op, lower: T, own: T) -> T {
    if Op::CUDA_ORDER {
        op.apply(own, lower)
    } else {
        op.apply(lower, own)
    }
}

#[inline(always)]
fn warp_inclusive_scan<G: WarpGroup, T: Pod, Op: Operator<T>>(
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
            value = combine_lower(op, lower, value);
        }
        delta <<= 1;
    }
    value
}

/// Inclusive scan inside every aligned segment of `width` lanes of a whole
/// warp (Hillis–Steele, as [`inclusive_scan`] on a tile of `width`).
///
/// # Safety
/// Every lane of the warp calls it together (full-warp `shfl.sync`).
#[inline(always)]
pub(crate) unsafe fn segment_inclusive_scan<T: Pod, Op: Operator<T>>(
    mut value: T,
    op: &Op,
    width: u32,
) -> T {
    let rank = intrinsics::lane_id() & (width - 1);
    let c = segment_c(ShflMode::Up, width);
    let mut delta = 1;
    while delta < width {
        // SAFETY: every lane of the warp calls this together (this
        // function's contract), and runs the loop as often (`width` is the
        // same in every lane): a full-warp `shfl.sync`.
        let lower = unsafe { shfl_pod(ShflMode::Up, value, delta, c, u32::MAX) };
        if rank >= delta {
            value = combine_lower(op, lower, value);
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
pub fn exclusive_scan<G: Collective, T: Pod, Op: Operator<T>>(group: &G, value: T, op: Op) -> T {
    group.exclusive_scan_with(value, &op)
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
