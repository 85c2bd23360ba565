//! The lane arithmetic of the groups inside a warp: which lanes a group
//! holds, which rank a lane has, how a parent's ranks are cut into pieces.
//!
//! Plain functions of their arguments (the lane, the masks the instructions
//! returned), with no instruction of their own, so that the host tests them
//! against straightforward references. The group types call them with
//! `%lanemask_lt`, `activemask`, ballots and `fns` results; every function
//! is `#[inline(always)]` and folds into the caller as if written there.
//!
//! Masks have bit `l` for lane `l`; rank masks have bit `r` for rank `r`.

/// The lanes below `lane` (0..=32): `%lanemask_lt` of that lane; every lane
/// for 32.
#[inline(always)]
pub(crate) const fn lanes_below(lane: u32) -> u32 {
    ((1u64 << lane) - 1) as u32
}

/// The rank of a member whose lower lanes are `below` (its
/// `%lanemask_lt`) in a group of the lanes `mask`: how many members lie
/// below it.
#[inline(always)]
pub(crate) const fn rank_in(mask: u32, below: u32) -> u32 {
    (mask & below).count_ones()
}

/// Packs the lanes `lanes` of a group of the lanes `mask` into ranks: bit
/// `r` of the result is bit `l` of `lanes` where `l` is the lane of rank
/// `r` (a parallel bit extract over `mask`).
#[inline(always)]
pub(crate) const fn lanes_to_ranks(mask: u32, lanes: u32) -> u32 {
    if mask == u32::MAX {
        return lanes;
    }
    let mut members = mask;
    let mut rank_bit = 1u32;
    let mut ranks = 0;
    while members != 0 {
        let lowest = members & members.wrapping_neg();
        if lanes & lowest != 0 {
            ranks |= rank_bit;
        }
        rank_bit <<= 1;
        members ^= lowest;
    }
    ranks
}

/// The lanes of the aligned segment of `width` lanes (a power of two at
/// most 32) that holds `lane`.
#[inline(always)]
pub(crate) const fn segment_lanes(width: u32, lane: u32) -> u32 {
    if width == 32 {
        u32::MAX
    } else {
        (((1u64 << width) - 1) as u32) << (lane & !(width - 1))
    }
}

/// The first lane of the aligned segment of `width` lanes that holds
/// `lane`.
#[inline(always)]
pub(crate) const fn segment_base(width: u32, lane: u32) -> u32 {
    if width == 32 {
        0
    } else {
        lane & !(width - 1)
    }
}

/// The rank of `lane` in its aligned segment of `width` lanes.
#[inline(always)]
pub(crate) const fn segment_rank(width: u32, lane: u32) -> u32 {
    lane & (width - 1)
}

/// The lanes of `mask` from lane `lo` up to, not including, lane `hi`
/// (`lo <= hi <= 32`): a piece of a coalesced group whose first member is
/// in lane `lo` and whose next piece starts in lane `hi`.
#[inline(always)]
pub(crate) const fn lanes_between(mask: u32, lo: u32, hi: u32) -> u32 {
    mask & lanes_below(hi) & !lanes_below(lo)
}

/// `(meta_group_rank, meta_group_size)` of the piece of `n` ranks that
/// holds rank `rank` of a parent of `size` members, the last piece possibly
/// short: `(rank / n, ceil(size / n))`.
#[inline(always)]
pub(crate) const fn piece_meta(rank: u32, size: u32, n: u32) -> (u32, u32) {
    (rank / n, size.div_ceil(n))
}

/// The lanes of the caller's warp that exist in a block of `num_threads`
/// threads, for the thread of block rank `rank`: all 32, except in a last
/// warp the block's size cuts short.
#[inline(always)]
pub(crate) const fn warp_lanes(num_threads: u32, rank: u32) -> u32 {
    let in_warp = num_threads - (rank & !31);
    if in_warp >= 32 {
        u32::MAX
    } else {
        (1u32 << in_warp) - 1
    }
}

/// `binary_partition` of a group of the lanes `all` whose members with the
/// predicate are `yes`, for a caller with predicate `pred`:
/// `(lanes, meta_group_rank, meta_group_size)`. When the predicate splits
/// the group, the members with it are meta group 1 of 2 and the others 0;
/// when every member agrees, the whole group is meta group 0 of 1 (CUDA's
/// numbering).
#[inline(always)]
pub(crate) const fn binary_split(all: u32, yes: u32, pred: bool) -> (u32, u32, u32) {
    if yes == all || yes == 0 {
        (all, 0, 1)
    } else {
        (if pred { yes } else { all & !yes }, pred as u32, 2)
    }
}

/// `(meta_group_rank, meta_group_size)` of the `labeled_partition` group
/// whose lowest lane is `leader`, given the lowest lane of every group
/// (`leaders`): groups are numbered by their lowest lane.
#[inline(always)]
pub(crate) const fn leader_meta(leaders: u32, leader: u32) -> (u32, u32) {
    (
        (leaders & (1u32 << leader).wrapping_sub(1)).count_ones(),
        leaders.count_ones(),
    )
}

/// The lane of the member of rank `rank` of `mask` (ranks counted from
/// 0, lowest lane first), or `0xffffffff` when `mask` has `rank` or fewer
/// members. A binary search with `popc` over halves, quarters, ... of the
/// mask: five steps, about twenty instructions, where ptxas expands
/// `fns.b32` into fifty on sm_90.
#[inline(always)]
pub(crate) const fn nth_lane(mask: u32, rank: u32) -> u32 {
    if rank >= mask.count_ones() {
        return u32::MAX;
    }
    let (mut rest, mut left, mut lane) = (mask, rank, 0);
    let mut width = 16;
    while width > 0 {
        // Members in the lower `width` lanes of what is left: if the one
        // sought is not among them, it is in the upper part.
        let low = (rest & ((1u32 << width) - 1)).count_ones();
        if low <= left {
            left -= low;
            rest >>= width;
            lane += width;
        }
        width /= 2;
    }
    lane
}

/// The `fns.b32` offset that finds the member `delta` ranks away from the
/// caller's lane, counting the caller itself (`fns` offset 1 or -1 is the
/// base lane when it is a member): downwards for `step` -1, upwards for 1.
#[cfg(test)]
pub(crate) const fn fns_offset(delta: u32, step: i32) -> i32 {
    (delta.wrapping_add(1) as i32).wrapping_mul(step)
}

/// The first of the block's warps in the multi-warp tile of `n` threads
/// (a multiple of 32) that holds the thread of block rank `block_rank`.
#[inline(always)]
pub(crate) const fn first_warp_of_tile(block_rank: u32, n: u32) -> u32 {
    block_rank / n * (n / 32)
}

/// The warps `first .. first + warps` of a block as a mask (`warps` at
/// most 32, all of them for 32).
#[inline(always)]
pub(crate) const fn warp_run(warps: u32, first: u32) -> u32 {
    if warps == 32 {
        u32::MAX
    } else {
        ((1u32 << warps) - 1) << first
    }
}

/// PTX's `fns.b32 d, mask, base, offset` as the ISA describes it: the
/// `offset`-th set bit of `mask` counting from `base` (upwards for a
/// positive offset, downwards for a negative one, `base` itself counting;
/// offset 0 finds `base` only if it is set), or `0xffffffff`: the tests'
/// reference for [`nth_lane`].
#[cfg(test)]
pub(crate) fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if offset == 0 {
        return if mask >> (base & 31) & 1 == 1 {
            base
        } else {
            u32::MAX
        };
    }
    let mut left = offset.unsigned_abs();
    let mut lane = base as i64;
    while (0..32).contains(&lane) {
        if mask >> lane & 1 == 1 {
            left -= 1;
            if left == 0 {
                return lane as u32;
            }
        }
        lane += offset.signum() as i64;
    }
    u32::MAX
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// The lanes of `mask`, lowest first.
    fn members(mask: u32) -> Vec<u32> {
        (0..32).filter(|l| mask >> l & 1 == 1).collect()
    }

    #[test]
    fn lanes_below_is_lanemask_lt() {
        for lane in 0..=32u32 {
            let reference = (0..lane).fold(0u32, |m, l| m | 1 << l);
            assert_eq!(lanes_below(lane), reference, "lane {lane}");
        }
    }

    #[test]
    fn segments_are_the_aligned_runs_of_lanes() {
        for width in [1u32, 2, 4, 8, 16, 32] {
            for lane in 0..32 {
                let base = lane / width * width;
                let reference = (base..base + width).fold(0u32, |m, l| m | 1 << l);
                assert_eq!(segment_lanes(width, lane), reference, "{width} {lane}");
                assert_eq!(segment_base(width, lane), base);
                assert_eq!(segment_rank(width, lane), lane - base);
            }
        }
    }

    #[test]
    fn warp_lanes_are_the_threads_that_exist() {
        for threads in 1..=1024u32 {
            for rank in 0..threads {
                let warp_start = rank / 32 * 32;
                let reference = (0..32)
                    .filter(|l| warp_start + l < threads)
                    .fold(0u32, |m, l| m | 1 << l);
                assert_eq!(warp_lanes(threads, rank), reference, "{threads} {rank}");
            }
        }
    }

    #[test]
    fn multi_warp_tiles_are_runs_of_whole_warps() {
        for n in [64u32, 128, 256, 512] {
            for rank in 0..1024 {
                let first = first_warp_of_tile(rank, n);
                let tile_start = rank - rank % n;
                assert_eq!(first * 32, tile_start, "{n} {rank}");
                let warps = warp_run(n / 32, first);
                assert!(
                    warps >> (rank / 32) & 1 == 1,
                    "the caller's warp is in its tile"
                );
                assert_eq!(warps.count_ones(), n / 32);
            }
        }
    }

    #[test]
    fn warp_runs_are_consecutive_warps() {
        for warps in [1u32, 2, 4, 8, 16, 32] {
            for first in (0..32).step_by(warps as usize) {
                let reference = (first..first + warps).fold(0u32, |m, w| m | 1 << w);
                assert_eq!(warp_run(warps, first), reference);
            }
        }
    }

    proptest! {
        #[test]
        fn ranks_count_the_members_below(mask in any::<u32>(), lane in 0..32u32) {
            let below = members(mask).iter().filter(|&&l| l < lane).count() as u32;
            prop_assert_eq!(rank_in(mask, lanes_below(lane)), below);
        }

        #[test]
        fn lanes_pack_into_ranks_in_lane_order(mask in any::<u32>(), lanes in any::<u32>()) {
            let reference = members(mask)
                .iter()
                .enumerate()
                .filter(|&(_, &l)| lanes >> l & 1 == 1)
                .fold(0u32, |m, (r, _)| m | 1 << r);
            prop_assert_eq!(lanes_to_ranks(mask, lanes), reference);
        }

        #[test]
        fn nth_lane_is_the_lane_of_each_rank(mask in any::<u32>(), rank in 0u32..34) {
            let m = members(mask);
            prop_assert_eq!(nth_lane(mask, rank), m.get(rank as usize).copied().unwrap_or(u32::MAX));
            prop_assert_eq!(nth_lane(mask, rank), fns(mask, 0, fns_offset(rank, 1)));
        }

        #[test]
        fn fns_offsets_find_the_member_delta_ranks_away(
            mask in any::<u32>(), lane in 0..32u32, delta in 0..40u32, up in any::<bool>()
        ) {
            let mask = mask | 1 << lane;
            let m = members(mask);
            let rank = m.iter().position(|&l| l == lane).unwrap() as i64;
            let target = if up { rank - delta as i64 } else { rank + delta as i64 };
            let expected = usize::try_from(target).ok().and_then(|t| m.get(t)).copied();
            let found = fns(mask, lane, fns_offset(delta, if up { -1 } else { 1 }));
            prop_assert_eq!(found, expected.unwrap_or(u32::MAX));
            // Rank `r` from lane 0: the lane of a rank.
            prop_assert_eq!(fns(mask, 0, fns_offset(delta, 1)), m.get(delta as usize).copied().unwrap_or(u32::MAX));
        }

        #[test]
        fn pieces_of_a_coalesced_group_hold_their_ranks(
            mask in any::<u32>().prop_filter("a member", |m| *m != 0),
            pick in any::<prop::sample::Index>(),
            log_n in 0..6u32,
        ) {
            let n = 1 << log_n;
            let m = members(mask);
            let size = m.len() as u32;
            let rank = pick.index(m.len()) as u32;
            // What CoalescedGroup::tiled computes, with `fns` for the lanes.
            let first = rank / n * n;
            let lo = fns(mask, 0, fns_offset(first, 1));
            let hi = if first + n < size { fns(mask, 0, fns_offset(first + n, 1)) } else { 32 };
            let reference = m
                .iter()
                .enumerate()
                .filter(|&(r, _)| r as u32 / n == rank / n)
                .fold(0u32, |acc, (_, &l)| acc | 1 << l);
            prop_assert_eq!(lanes_between(mask, lo, hi), reference);
            let (meta_rank, meta_size) = piece_meta(rank, size, n);
            prop_assert_eq!(meta_rank, rank / n);
            let pieces: std::collections::BTreeSet<u32> = (0..size).map(|r| r / n).collect();
            prop_assert_eq!(meta_size, pieces.len() as u32);
        }

        #[test]
        fn binary_partitions_split_by_the_predicate(all in any::<u32>(), preds in any::<u32>(), lane in 0..32u32) {
            let all = all | 1 << lane;
            let yes = all & preds;
            let pred = preds >> lane & 1 == 1;
            let (lanes, meta_rank, meta_size) = binary_split(all, yes, pred);
            prop_assert!(lanes >> lane & 1 == 1, "the caller is in its group");
            let same: u32 = members(all)
                .into_iter()
                .filter(|&l| (preds >> l & 1 == 1) == pred)
                .fold(0, |m, l| m | 1 << l);
            if same == all {
                prop_assert_eq!((lanes, meta_rank, meta_size), (all, 0, 1));
            } else {
                prop_assert_eq!((lanes, meta_rank, meta_size), (same, pred as u32, 2));
            }
        }

        #[test]
        fn labeled_groups_are_numbered_by_their_lowest_lane(labels in prop::array::uniform32(0..4u8), all in any::<u32>(), lane in 0..32u32) {
            let all = all | 1 << lane;
            let groups: Vec<u32> = members(all)
                .into_iter()
                .map(|l| members(all).into_iter().filter(|&k| labels[k as usize] == labels[l as usize]).fold(0, |m, k| m | 1 << k))
                .collect();
            let leaders = groups.iter().fold(0u32, |m, g| m | 1 << g.trailing_zeros());
            let mine = groups[members(all).iter().position(|&l| l == lane).unwrap()];
            let leader = mine.trailing_zeros();
            let mut distinct: Vec<u32> = groups.clone();
            distinct.sort_by_key(|g| g.trailing_zeros());
            distinct.dedup();
            let expected_rank = distinct.iter().position(|&g| g == mine).unwrap() as u32;
            prop_assert_eq!(leader_meta(leaders, leader), (expected_rank, distinct.len() as u32));
        }
    }
}
