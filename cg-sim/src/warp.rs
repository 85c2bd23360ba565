//! Warp-synchronous instructions: what each lane of a rendezvous gets back.
//!
//! A warp instruction with a member mask (`shfl.sync`, `vote.sync`,
//! `match.sync`, `redux.sync`, `bar.warp.sync`) completes when every lane
//! of the mask that has not exited has arrived at it with the same
//! instruction and mask. [`complete`] then computes every arrived lane's
//! result at once, from all the lanes' operands, exactly as the PTX ISA
//! defines it. A lane that reads a lane that is not there (exited, never
//! launched in a partial warp, or outside the mask) gets [`POISON`] and the
//! read is reported as undefined.

/// What a read of a lane that is not there returns: PTX leaves the value
/// undefined; the simulator returns this and reports the read
/// ([`crate::Undefined`]). As an `f32` it is a NaN.
pub const POISON: u32 = 0xffff_ffff;

/// The four `shfl.sync` modes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShflMode {
    /// `shfl.sync.idx`.
    Idx,
    /// `shfl.sync.up`.
    Up,
    /// `shfl.sync.down`.
    Down,
    /// `shfl.sync.bfly`.
    Bfly,
}

/// The operations of `redux.sync`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReduxOp {
    /// `.add.u32` (wrapping).
    Add,
    /// `.min.u32`.
    MinU32,
    /// `.max.u32`.
    MaxU32,
    /// `.min.s32`.
    MinS32,
    /// `.max.s32`.
    MaxS32,
    /// `.and.b32`.
    And,
    /// `.or.b32`.
    Or,
    /// `.xor.b32`.
    Xor,
}

/// A warp instruction with a member mask. Two lanes meet at one
/// instruction only when their `WarpOp`s are equal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WarpOp {
    /// `bar.warp.sync`.
    Sync,
    /// `shfl.sync.<mode>.b32`; the operand is the value, `b` the lane or
    /// offset and `c` the clamp and segment mask.
    Shfl(ShflMode),
    /// `vote.sync.ballot.b32`.
    Ballot,
    /// `vote.sync.any.pred`.
    Any,
    /// `vote.sync.all.pred`.
    All,
    /// `match.any.sync.b32` (`false`) or `.b64` (`true`).
    MatchAny(bool),
    /// `match.all.sync.b32` (`false`) or `.b64` (`true`).
    MatchAll(bool),
    /// `redux.sync.<op>`.
    Redux(ReduxOp),
}

impl WarpOp {
    /// The instruction's PTX name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            WarpOp::Sync => "bar.warp.sync",
            WarpOp::Shfl(ShflMode::Idx) => "shfl.sync.idx",
            WarpOp::Shfl(ShflMode::Up) => "shfl.sync.up",
            WarpOp::Shfl(ShflMode::Down) => "shfl.sync.down",
            WarpOp::Shfl(ShflMode::Bfly) => "shfl.sync.bfly",
            WarpOp::Ballot => "vote.sync.ballot",
            WarpOp::Any => "vote.sync.any",
            WarpOp::All => "vote.sync.all",
            WarpOp::MatchAny(false) => "match.any.sync.b32",
            WarpOp::MatchAny(true) => "match.any.sync.b64",
            WarpOp::MatchAll(false) => "match.all.sync.b32",
            WarpOp::MatchAll(true) => "match.all.sync.b64",
            WarpOp::Redux(_) => "redux.sync",
        }
    }
}

/// One lane's arrival at a warp instruction.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    /// The instruction.
    pub op: WarpOp,
    /// Its member mask.
    pub mask: u32,
    /// The value operand (a predicate is 0 or 1).
    pub value: u64,
    /// `shfl`'s `b` operand.
    pub b: u32,
    /// `shfl`'s `c` operand.
    pub c: u32,
}

/// One lane's result: the value (a predicate is 0 or 1), `match.all`'s
/// predicate in `pred`, and the source lane it read when that lane was not
/// there (an undefined read).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The destination register.
    pub value: u64,
    /// `match.all`'s predicate.
    pub pred: bool,
    /// `Some(lane)`: the value is [`POISON`], read from `lane`, which was
    /// not there.
    pub undefined_source: Option<u32>,
}

/// The results of a completed rendezvous: `arrivals[lane]` is `Some` for
/// every lane of `mask` that arrived (the others have exited or never
/// existed); returns each arrived lane's [`Outcome`].
pub fn complete(op: WarpOp, mask: u32, arrivals: &[Option<Arrival>; 32]) -> [Outcome; 32] {
    let mut out = [Outcome::default(); 32];
    let present = |lane: u32| arrivals[lane as usize].filter(|_| mask >> lane & 1 == 1);
    let here: u32 = (0..32)
        .filter(|&l| present(l).is_some())
        .fold(0, |m, l| m | 1 << l);
    for lane in 0..32u32 {
        let Some(me) = present(lane) else { continue };
        out[lane as usize] = match op {
            WarpOp::Sync => Outcome::default(),
            WarpOp::Shfl(mode) => {
                let j = shfl_source(mode, lane, me.b, me.c);
                match present(j) {
                    Some(src) => Outcome {
                        value: src.value & 0xffff_ffff,
                        ..Outcome::default()
                    },
                    None => Outcome {
                        value: POISON as u64,
                        pred: false,
                        undefined_source: Some(j),
                    },
                }
            }
            WarpOp::Ballot => Outcome {
                value: ballot(here, |l| present(l).unwrap().value != 0) as u64,
                ..Outcome::default()
            },
            WarpOp::Any => Outcome {
                value: (ballot(here, |l| present(l).unwrap().value != 0) != 0) as u64,
                ..Outcome::default()
            },
            WarpOp::All => Outcome {
                value: (ballot(here, |l| present(l).unwrap().value != 0) == here) as u64,
                ..Outcome::default()
            },
            WarpOp::MatchAny(wide) => Outcome {
                value: ballot(here, |l| same(wide, present(l).unwrap().value, me.value)) as u64,
                ..Outcome::default()
            },
            WarpOp::MatchAll(wide) => {
                let all = ballot(here, |l| same(wide, present(l).unwrap().value, me.value)) == here;
                Outcome {
                    value: if all { here as u64 } else { 0 },
                    pred: all,
                    undefined_source: None,
                }
            }
            WarpOp::Redux(r) => Outcome {
                value: (0..32)
                    .filter_map(|l| present(l).map(|a| a.value as u32))
                    .reduce(|a, b| redux(r, a, b))
                    .unwrap_or(0) as u64,
                ..Outcome::default()
            },
        };
    }
    out
}

/// The lane `shfl.sync` reads, as the PTX ISA computes it: out of the
/// segment or past the clamp, the lane reads itself.
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> u32 {
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let segmask = ((c >> 8) & 31) as i32;
    let lane = lane as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    if pval {
        j as u32
    } else {
        lane as u32
    }
}

fn ballot(lanes: u32, pred: impl Fn(u32) -> bool) -> u32 {
    (0..32)
        .filter(|&l| lanes >> l & 1 == 1 && pred(l))
        .fold(0, |m, l| m | 1 << l)
}

fn same(wide: bool, a: u64, b: u64) -> bool {
    if wide {
        a == b
    } else {
        a as u32 == b as u32
    }
}

fn redux(op: ReduxOp, a: u32, b: u32) -> u32 {
    match op {
        ReduxOp::Add => a.wrapping_add(b),
        ReduxOp::MinU32 => a.min(b),
        ReduxOp::MaxU32 => a.max(b),
        ReduxOp::MinS32 => (a as i32).min(b as i32) as u32,
        ReduxOp::MaxS32 => (a as i32).max(b as i32) as u32,
        ReduxOp::And => a & b,
        ReduxOp::Or => a | b,
        ReduxOp::Xor => a ^ b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrive(
        mask: u32,
        op: WarpOp,
        value: impl Fn(u32) -> u64,
        b: u32,
        c: u32,
    ) -> [Option<Arrival>; 32] {
        let mut a = [None; 32];
        for lane in 0..32 {
            if mask >> lane & 1 == 1 {
                a[lane as usize] = Some(Arrival {
                    op,
                    mask,
                    value: value(lane),
                    b,
                    c,
                });
            }
        }
        a
    }

    #[test]
    fn shfl_down_in_4_lane_segments_clamps_at_the_segment_end() {
        // __shfl_down_sync(~0, v, 1, 4): c = ((32 - 4) << 8) | 31.
        let c = (28 << 8) | 31;
        assert_eq!(shfl_source(ShflMode::Down, 0, 1, c), 1);
        assert_eq!(shfl_source(ShflMode::Down, 3, 1, c), 3);
        assert_eq!(shfl_source(ShflMode::Down, 6, 2, c), 6);
        assert_eq!(shfl_source(ShflMode::Down, 5, 2, c), 7);
    }

    #[test]
    fn shfl_up_and_idx_stay_in_the_segment() {
        let c_up = 28 << 8; // width 4
        assert_eq!(shfl_source(ShflMode::Up, 4, 1, c_up), 4);
        assert_eq!(shfl_source(ShflMode::Up, 5, 1, c_up), 4);
        let c_idx = (28 << 8) | 31;
        assert_eq!(shfl_source(ShflMode::Idx, 13, 2, c_idx), 14);
        assert_eq!(shfl_source(ShflMode::Idx, 13, 6, c_idx), 14);
        assert_eq!(shfl_source(ShflMode::Bfly, 13, 16, 31), 29);
    }

    #[test]
    fn a_read_of_a_lane_that_is_not_there_is_poison_and_says_so() {
        // A partial warp of 20 lanes: the full mask, lanes 20.. never arrive.
        let a = arrive(
            0xf_ffff,
            WarpOp::Shfl(ShflMode::Down),
            |l| l as u64 * 10,
            16,
            31,
        );
        let out = complete(WarpOp::Shfl(ShflMode::Down), u32::MAX, &a);
        assert_eq!(out[3].value, 190);
        assert_eq!(out[3].undefined_source, None);
        assert_eq!(out[4].value, POISON as u64);
        assert_eq!(out[4].undefined_source, Some(20));
        // Lane 16 + 16 = 32 is past the clamp: it reads itself.
        assert_eq!(out[16].value, 160);
    }

    #[test]
    fn votes_and_matches_count_only_the_lanes_present() {
        let a = arrive(0x0000_00ff, WarpOp::Ballot, |l| (l % 3 == 0) as u64, 0, 0);
        assert_eq!(complete(WarpOp::Ballot, 0xff, &a)[1].value, 0b0100_1001);
        let a = arrive(
            0x0000_00ff,
            WarpOp::MatchAny(true),
            |l| (l as u64 % 2) << 40,
            0,
            0,
        );
        let out = complete(WarpOp::MatchAny(true), 0xff, &a);
        assert_eq!(out[0].value, 0x55);
        assert_eq!(out[1].value, 0xaa);
        let a = arrive(0xf0, WarpOp::MatchAll(false), |_| 7, 0, 0);
        let out = complete(WarpOp::MatchAll(false), 0xf0, &a);
        assert!(out[4].pred);
        assert_eq!(out[4].value, 0xf0);
        let a = arrive(
            0xf0,
            WarpOp::Redux(ReduxOp::MinS32),
            |l| (l as i32 - 6) as u32 as u64,
            0,
            0,
        );
        assert_eq!(
            complete(WarpOp::Redux(ReduxOp::MinS32), 0xf0, &a)[7].value as u32,
            (-2i32) as u32
        );
    }
}
