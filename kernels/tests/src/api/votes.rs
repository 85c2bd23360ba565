//! Votes (`any`, `all`, `ballot`) and matches (`match_any`, `match_all`)
//! of 32- and 64-bit values on every group kind.

use super::{index, store, with_group, Key, Probe};
use cg_core::prelude::*;

/// Words per thread written by [`api_votes`].
pub const VOTE_WORDS: usize = 12;

struct Votes {
    key: Key,
    wide: u64,
}

/// `Some(m)` as `[1, m]`, `None` as `[0, 0]`.
#[inline(always)]
fn flagged(m: Option<u32>) -> [u32; 2] {
    match m {
        Some(m) => [1, m],
        None => [0, 0],
    }
}

impl Probe for Votes {
    type Out = [u32; VOTE_WORDS];

    #[inline(always)]
    fn group<G: WarpGroup>(&self, g: &G) -> [u32; VOTE_WORDS] {
        let p = self.key.vote();
        let all32 = flagged(g.match_all(self.key.matched()));
        let all64 = flagged(g.match_all(self.wide));
        [
            g.any(p) as u32,
            g.all(p) as u32,
            g.ballot(p),
            g.match_any(self.key.matched()),
            all32[0],
            all32[1],
            g.match_any(self.wide),
            all64[0],
            all64[1],
            g.match_any(self.key.matched() as f32),
            g.thread_rank(),
            g.mask(),
        ]
    }
}

/// Per thread, [`VOTE_WORDS`] words: `any(vote)`, `all(vote)`,
/// `ballot(vote)`, `match_any(m)`, `match_all(m)` as `[found, ranks]`,
/// `match_any(wide)`, `match_all(wide)` as `[found, ranks]`,
/// `match_any(m as f32)`, `thread_rank`, `mask`; `vote` and `m` come from
/// the key ([`Key::vote`], [`Key::matched`]), `wide` is `wide[i]`;
/// `info` gets the group.
#[kernel]
pub fn api_votes(keys: &[u32], wide: &[u64], out: *mut u32, info: *mut u32, sel: u32) {
    let i = index();
    let key = Key(keys[i]);
    let probe = Votes { key, wide: wide[i] };
    if let Some(w) = with_group(sel, key, &probe, info, i) {
        store(out, i, w);
    }
}
