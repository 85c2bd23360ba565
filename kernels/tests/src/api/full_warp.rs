//! Every warp operation on a 32-thread tile, whose member mask is the
//! constant `0xffffffff`: the PTX tests check that each lowers to its one
//! instruction with that constant; the GPU tests check the results.

use super::{index, store};
use cg_core::prelude::*;

/// Words per thread written by [`api_full_warp_ops`].
pub const FULL_WARP_WORDS: usize = 16;

/// Per thread (blocks of whole warps), with `v = input[i]`, `w = wide[i]`:
/// `shfl(v, 5)`, `shfl_up(v, 1)`, `shfl_down(v, 2)`, `shfl_xor(v, 3)`,
/// `any(v odd)`, `all(v odd)`, `ballot(v odd)`, `match_any(v & 3)`,
/// `match_any(w)`, `match_all(v & 3)` as `[found, ranks]`,
/// `reduce(v, Plus)`, `reduce(v, Less)`, `reduce(v, BitXor)`,
/// `inclusive_scan(v, Plus)`, `exclusive_scan(v, Plus)`.
#[kernel]
pub fn api_full_warp_ops(input: &[u32], wide: &[u64], out: *mut u32) {
    let warp = tiled_partition::<32>(&this_thread_block());
    let i = index();
    let v = input[i];
    let odd = v & 1 != 0;
    let all = warp.match_all(v & 3);
    let words: [u32; FULL_WARP_WORDS] = [
        warp.shfl(v, 5),
        warp.shfl_up(v, 1),
        warp.shfl_down(v, 2),
        warp.shfl_xor(v, 3),
        warp.any(odd) as u32,
        warp.all(odd) as u32,
        warp.ballot(odd),
        warp.match_any(v & 3),
        warp.match_any(wide[i]),
        all.is_some() as u32,
        all.unwrap_or(0),
        reduce(&warp, v, Plus),
        reduce(&warp, v, Less),
        reduce(&warp, v, BitXor),
        inclusive_scan(&warp, v, Plus),
        exclusive_scan(&warp, v, Plus),
    ];
    store(out, i, words);
}
