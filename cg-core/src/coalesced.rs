//! `coalesced_group`: any set of lanes of one warp.
//!
//! A coalesced group comes from [`coalesced_threads`] (the threads that
//! execute the call together, `activemask`), from [`labeled_partition`]
//! (`match.any.sync` on a label) or [`binary_partition`]
//! (`vote.sync.ballot` on a predicate) of a tile or coalesced group, or
//! from [`tiled_partition_dynamic`](crate::tile::tiled_partition_dynamic)
//! of a coalesced group.
//!
//! Ranks are dense: the member in the lowest lane has rank 0, the next one
//! rank 1, and so on (`thread_rank = popc(mask & %lanemask_lt)`). Every
//! operation speaks in ranks, as CUDA's do:
//!
//! * `shfl(v, r)` reads the lane of rank `r`, found by a binary search
//!   with `popc` over the mask (`r < num_threads()`);
//! * `shfl_up`/`shfl_down` read rank `thread_rank() ∓ delta`; a rank with no
//!   such member keeps its own value;
//! * `ballot`, `match_any`, `match_all` return bit `r` for rank `r`: the
//!   warp-wide lane mask is packed into ranks.
//!
//! When the group is the whole warp these are the plain full-warp
//! instructions. There is no `shfl_xor` (CUDA has none for coalesced
//! groups).
//!
//! Which threads run together after a branch is up to the hardware:
//! `coalesced_threads()` inside `if` gives a subset of the threads that took
//! the branch (in practice all of those in the warp), never a thread that
//! did not.

use crate::group::{
    meta_group_from_fields, sealed, sealed_groups, GroupSync, ThreadGroup, WarpGroup,
};
use crate::intrinsics::{self, ShflMode};
use crate::lanes;
use crate::shuffle::{segment_c, shfl_pod};
use bytemuck::Pod;

/// A set of lanes of one warp that acts as a group. See the module docs.
///
/// ```ignore
/// if input[i] > 0 {
///     let active = coalesced_threads();
///     // One atomic per warp instead of one per thread:
///     let base = invoke_one_broadcast(&active, || unsafe { atomic_add(counter, active.num_threads()) });
///     out[base + active.thread_rank()] = input[i];
/// }
/// ```
#[derive(Clone, Copy)]
pub struct CoalescedGroup {
    mask: u32,
    meta_rank: u32,
    meta_size: u32,
}

/// `cg::coalesced_threads()`: the threads of the caller's warp that execute
/// this call together with it (`activemask.b32`). In the simulator, the
/// lanes that reach this call site together (see `cg_sim::device::activemask`).
#[inline(always)]
#[track_caller]
pub fn coalesced_threads() -> CoalescedGroup {
    // SAFETY: `activemask` holds the caller, and its lanes are the threads
    // that run this call together: the group's members.
    unsafe { CoalescedGroup::from_mask(intrinsics::activemask()) }
}

/// A label of [`labeled_partition`]: an integer of 32 or 64 bits (CUDA
/// takes any integral or pointer type; 8- and 16-bit integers widen to 32
/// bits, pointers are 64-bit labels: pass `ptr as usize`). A `bool` label is
/// a [`binary_partition`], as in CUDA.
pub trait Label: Copy + label::Sealed {
    /// The lanes of `mask` whose label has the same bits as the caller's
    /// (`match.any.sync.b32` or `.b64`).
    ///
    /// # Safety
    /// As the instruction's: the caller's lane is in `mask`, and every lane
    /// of `mask` that has not exited calls this with the same mask.
    #[doc(hidden)]
    unsafe fn same_label_lanes(self, mask: u32) -> u32;
}

mod label {
    /// Keeps [`Label`](super::Label) to the integer types.
    pub trait Sealed {}
}

macro_rules! label {
    ($($t:ty => $wide:ty, $insn:ident;)*) => {$(
        impl label::Sealed for $t {}
        impl Label for $t {
            #[inline(always)]
            unsafe fn same_label_lanes(self, mask: u32) -> u32 {
                // SAFETY: `match.any.sync`'s contract is this method's: the
                // caller's lane is in `mask`, and every lane of it that has
                // not exited calls this, one instruction, with the same mask.
                unsafe { intrinsics::$insn(self as $wide, mask) }
            }
        }
    )*};
}

label! {
    u8 => u32, match_any_b32;
    u16 => u32, match_any_b32;
    u32 => u32, match_any_b32;
    i8 => u32, match_any_b32;
    i16 => u32, match_any_b32;
    i32 => u32, match_any_b32;
    u64 => u64, match_any_b64;
    i64 => u64, match_any_b64;
    usize => u64, match_any_b64;
    isize => u64, match_any_b64;
}

/// `cg::labeled_partition(group, label)`: splits a tile or coalesced group
/// into coalesced groups of the members that passed the same `label`
/// (`match.any.sync.b32`, or `.b64` for 64-bit labels).
///
/// As in CUDA, `meta_group_size()` is the number of distinct labels in the
/// group and `meta_group_rank()` numbers the groups by their lowest lane
/// (the number of groups whose lowest lane is below this group's): one
/// `vote.sync.ballot` of the groups' leaders.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let same_bucket = labeled_partition(&warp, bucket);
/// let count = same_bucket.num_threads();
/// let by_pointer = labeled_partition(&warp, row_ptr as usize);  // 64-bit label
/// ```
#[inline(always)]
pub fn labeled_partition<G: WarpGroup, L: Label>(group: &G, label: L) -> CoalescedGroup {
    let all = group.mask();
    // SAFETY: the group's lanes hold the caller and its members call
    // together (`WarpGroup`'s contract).
    let same = unsafe { label.same_label_lanes(all) };
    let leader = same.trailing_zeros();
    // SAFETY: as above.
    let leaders = unsafe { intrinsics::vote_ballot(intrinsics::lane_id() == leader, all) };
    let (meta_rank, meta_size) = lanes::leader_meta(leaders, leader);
    CoalescedGroup {
        mask: same,
        meta_rank,
        meta_size,
    }
}

/// `cg::binary_partition(group, pred)`: splits a tile or coalesced group
/// into the members with `pred` and those without (`vote.sync.ballot`).
///
/// As in CUDA: when the predicate splits the group, the members with
/// `pred` are meta group 1 of 2 and the others meta group 0; when every
/// member agrees, the result is the whole group as meta group 0 of 1.
///
/// ```ignore
/// let warp = tiled_partition::<32>(&this_thread_block());
/// let side = binary_partition(&warp, x < pivot);
/// let my_slot = side.thread_rank();
/// ```
#[inline(always)]
pub fn binary_partition<G: WarpGroup>(group: &G, pred: bool) -> CoalescedGroup {
    let all = group.mask();
    // SAFETY: the group's lanes hold the caller and its members call
    // together (`WarpGroup`'s contract).
    let yes = unsafe { intrinsics::vote_ballot(pred, all) };
    let (mask, meta_rank, meta_size) = lanes::binary_split(all, yes, pred);
    CoalescedGroup {
        mask,
        meta_rank,
        meta_size,
    }
}

impl CoalescedGroup {
    /// The group of the lanes in `mask`, with meta group rank 0 of 1
    /// (CUDA's internal constructor).
    ///
    /// # Safety
    /// The caller's lane is in `mask`, and every lane of `mask` that has not
    /// exited uses the group together: each operation of the group is a
    /// warp instruction with `mask` as its member mask, undefined
    /// otherwise.
    #[inline(always)]
    pub unsafe fn from_mask(mask: u32) -> Self {
        CoalescedGroup {
            mask,
            meta_rank: 0,
            meta_size: 1,
        }
    }

    /// Whether the group is the whole warp (the fast paths).
    #[inline(always)]
    fn is_full(&self) -> bool {
        self.mask == u32::MAX
    }

    /// The lane of rank `rank` (`0xffffffff` when there is none).
    #[inline(always)]
    fn lane_of(&self, rank: u32) -> u32 {
        lanes::nth_lane(self.mask, rank)
    }

    /// `shfl_up` (`ShflMode::Up`) or `shfl_down` (`ShflMode::Down`) by
    /// `delta` ranks: one `shfl.sync` for a whole warp, else a read of the
    /// lane of rank `thread_rank() -/+ delta`.
    #[inline(always)]
    fn shift<T: Pod>(&self, mode: ShflMode, value: T, delta: u32) -> T {
        if self.is_full() {
            // SAFETY: the whole warp is the group: every lane is a member
            // and the members call together (`WarpGroup`'s contract).
            return unsafe { shfl_pod(mode, value, delta, segment_c(mode, 32), u32::MAX) };
        }
        let rank = self.thread_rank();
        let lane = match mode {
            ShflMode::Up => rank
                .checked_sub(delta)
                .map_or(u32::MAX, |r| self.lane_of(r)),
            _ => self.lane_of(rank.saturating_add(delta)),
        };
        self.read_lane(value, lane)
    }

    /// Reads `value` from `lane` of the group, or keeps the caller's when
    /// `lane` is `0xffffffff`.
    #[inline(always)]
    fn read_lane<T: Pod>(&self, value: T, lane: u32) -> T {
        let lane = if lane >= 32 {
            intrinsics::lane_id()
        } else {
            lane
        };
        // SAFETY: the group's mask holds the caller and its members call
        // together (`WarpGroup`'s contract).
        unsafe {
            shfl_pod(
                ShflMode::Idx,
                value,
                lane,
                segment_c(ShflMode::Idx, 32),
                self.mask,
            )
        }
    }

    /// The piece of `n` ranks holding the caller (see
    /// [`tiled_partition_dynamic`](crate::tile::tiled_partition_dynamic)).
    #[inline(always)]
    pub(crate) fn tiled(&self, n: u32) -> CoalescedGroup {
        let size = self.num_threads();
        if size <= n {
            return *self;
        }
        let rank = self.thread_rank();
        let first = rank / n * n;
        let lo = self.lane_of(first);
        let hi = if first + n < size {
            self.lane_of(first + n)
        } else {
            32
        };
        let (meta_rank, meta_size) = lanes::piece_meta(rank, size, n);
        CoalescedGroup {
            mask: lanes::lanes_between(self.mask, lo, hi),
            meta_rank,
            meta_size,
        }
    }
}

sealed_groups!([] CoalescedGroup);

impl GroupSync for CoalescedGroup {
    /// `bar.warp.sync` with the group's mask.
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: the group's mask holds the caller and its members call
        // together (`GroupSync`'s contract).
        unsafe { intrinsics::bar_warp_sync(self.mask) }
    }
}

impl ThreadGroup for CoalescedGroup {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        self.mask.count_ones()
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        lanes::rank_in(self.mask, intrinsics::lanemask_lt())
    }
}

impl sealed::WarpLanes for CoalescedGroup {
    #[inline(always)]
    fn sync_mask(&self) -> u32 {
        self.mask
    }

    /// Packs the lanes into ranks (a parallel bit extract over the mask).
    #[inline(always)]
    fn lanes_to_ranks(&self, lanes: u32) -> u32 {
        lanes::lanes_to_ranks(self.mask, lanes)
    }

    #[inline(always)]
    fn segment_width(&self) -> Option<u32> {
        if self.is_full() {
            Some(32)
        } else {
            None
        }
    }
}

impl WarpGroup for CoalescedGroup {
    #[inline(always)]
    fn mask(&self) -> u32 {
        self.mask
    }

    meta_group_from_fields!();

    #[inline(always)]
    fn shfl<T: Pod>(&self, value: T, src_rank: u32) -> T {
        let lane = if self.is_full() {
            src_rank
        } else {
            self.lane_of(src_rank)
        };
        // SAFETY: the group's mask holds the caller and its members call
        // together (`WarpGroup`'s contract).
        unsafe {
            shfl_pod(
                ShflMode::Idx,
                value,
                lane,
                segment_c(ShflMode::Idx, 32),
                self.mask,
            )
        }
    }

    #[inline(always)]
    fn shfl_up<T: Pod>(&self, value: T, delta: u32) -> T {
        self.shift(ShflMode::Up, value, delta)
    }

    #[inline(always)]
    fn shfl_down<T: Pod>(&self, value: T, delta: u32) -> T {
        self.shift(ShflMode::Down, value, delta)
    }
}
