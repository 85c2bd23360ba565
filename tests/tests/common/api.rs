//! The probe kernels' side of the GPU API tests, shared by
//! `tests/gpu_api.rs` (which checks every result against this CPU model of
//! CUDA's semantics) and `tests/gpu_differential.rs` (which compares every
//! result with CUDA's own, and uses the model only to tell which values
//! CUDA leaves undefined): the launch shapes, the group selectors of
//! `kernels/tests/src/api`, the key bits, random inputs, and the model of the
//! group each selector gives each thread.

use cooperative_groups::{DeviceBuffer, Gpu, LaunchConfig};
use rand::rngs::StdRng;
use rand::Rng;

/// What every output buffer holds before a launch: a word still equal to
/// it was not written.
pub const POISON: u32 = 0xDEAD_BEEF;

/// A grid or block extent: x, y, z.
pub type Dims = (u32, u32, u32);

/// Grid and block shapes: whole warps (32, 96, 1024, 16x8), partial last
/// warps (1000 = 31 warps + 8 lanes, 7x3x5 = 105 = 3 warps + 9 lanes, 20),
/// 2-D and 3-D blocks.
pub const SHAPES: [(Dims, Dims); 8] = [
    ((2, 1, 1), (32, 1, 1)),
    ((3, 1, 1), (96, 1, 1)),
    ((2, 1, 1), (1000, 1, 1)),
    ((2, 3, 1), (16, 8, 1)),
    ((2, 1, 2), (8, 4, 2)),
    ((2, 1, 1), (7, 3, 5)),
    ((1, 1, 1), (1024, 1, 1)),
    ((3, 1, 1), (20, 1, 1)),
];

/// The selector scheme, shared with the probe kernels.
#[path = "../../../kernels/tests/src/api/scheme.rs"]
mod scheme;
// Each test binary uses part of it.
#[allow(unused_imports)]
pub use scheme::{Key, BLOCK_SEL, BRANCH, BRANCH_LABELED, GROUP_KINDS, INFO_WORDS, QUERY_KINDS};

/// Threads (or blocks) in an extent.
pub fn volume(d: Dims) -> usize {
    (d.0 * d.1 * d.2) as usize
}

/// The group a selector of `with_group` or `api_group_queries` names.
pub fn describe_sel(sel: u32) -> String {
    scheme::SELECTORS
        .get(sel as usize)
        .map_or_else(|| format!("selector {sel}?"), |s| s.to_string())
}

// ---------------------------------------------------------------- keys

/// The bits of a key ([`Key`]), as free functions of the key's word.
pub fn split(key: u32) -> bool {
    Key(key).split()
}
pub fn label(key: u32) -> u32 {
    Key(key).label()
}
pub fn vote(key: u32) -> bool {
    Key(key).vote()
}
pub fn matched(key: u32) -> u32 {
    Key(key).matched()
}
pub fn wide_label(key: u32) -> u64 {
    Key(key).wide_label()
}

/// Random keys, chosen per warp of each block (of `b` threads) so that
/// uniform warps (every predicate true, every predicate false, every value
/// equal) occur as well as mixed ones.
pub fn random_keys(rng: &mut StdRng, b: usize, total: usize) -> Vec<u32> {
    let pick = |rng: &mut StdRng, mode: u32| match mode {
        0 => true,
        1 => false,
        _ => rng.random_bool(0.5),
    };
    let mut keys = Vec::with_capacity(total);
    while keys.len() < total {
        let in_block = keys.len() % b;
        let warp_len = (b - in_block).min(32);
        let split_mode = rng.random_range(0..4u32);
        let vote_mode = rng.random_range(0..4u32);
        let same_value = rng.random_bool(0.4);
        let value = rng.random_range(0..4u32);
        for _ in 0..warp_len {
            let s = pick(rng, split_mode) as u32;
            let l = rng.random_range(0..4u32);
            let v = pick(rng, vote_mode) as u32;
            let m = if same_value {
                value
            } else {
                rng.random_range(0..4u32)
            };
            keys.push(s | l << 1 | v << 3 | m << 4);
        }
    }
    keys
}

// -------------------------------------------------------------- groups

/// The CPU model of one thread's group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Grid indices of the members that exist, in rank order (a static tile
    /// past the block's end lacks its last ranks).
    pub members: Vec<usize>,
    pub rank: u32,
    /// `num_threads()` as the group reports it.
    pub size: u32,
    pub mask: u32,
    pub meta: (u32, u32),
    /// `Some(width)` for tiles (source ranks of `shfl` are taken modulo the
    /// width); `None` for coalesced groups.
    pub tile: Option<u32>,
}

impl Group {
    /// A static tile that runs past the block's end: operations that read
    /// the missing lanes are undefined.
    pub fn partial(&self) -> bool {
        (self.members.len() as u32) < self.size
    }

    pub fn member(&self, rank: u32) -> Option<usize> {
        self.members.get(rank as usize).copied()
    }

    pub fn all_ranks(&self) -> u32 {
        if self.size >= 32 {
            u32::MAX
        } else {
            (1 << self.size) - 1
        }
    }
}

pub fn lanes(first: u32, count: u32) -> u32 {
    (((1u64 << count) - 1) << first) as u32
}

/// A static tile of `n` of the thread at grid index `i` (block size `b`).
pub fn static_tile(i: usize, b: usize, n: u32, meta: (u32, u32)) -> Group {
    let r = (i % b) as u32;
    let block0 = i - r as usize;
    let base = r & !(n - 1);
    let exist = n.min(b as u32 - base);
    Group {
        members: (0..exist).map(|k| block0 + (base + k) as usize).collect(),
        rank: r % n,
        size: n,
        mask: lanes(base % 32, n),
        meta,
        tile: Some(n),
    }
}

/// A dynamic tile of `n`, clipped to block ranks below `end`.
pub fn dynamic_tile(i: usize, b: usize, n: u32, end: u32, meta: (u32, u32)) -> Group {
    let r = (i % b) as u32;
    let block0 = i - r as usize;
    let base = r & !(n - 1);
    let stop = (base + n).min(end);
    Group {
        members: (base..stop).map(|k| block0 + k as usize).collect(),
        rank: r % n,
        size: stop - base,
        mask: lanes(base % 32, stop - base),
        meta,
        tile: Some(n),
    }
}

/// A coalesced group of the given grid indices (sorted), containing `i`,
/// in blocks of `b` threads (a lane is a block rank modulo 32).
pub fn coalesced(i: usize, members: Vec<usize>, meta: (u32, u32), b: usize) -> Group {
    let rank = members.iter().position(|&m| m == i).expect("member") as u32;
    let mask = members.iter().fold(0u32, |m, &g| m | 1 << ((g % b) % 32));
    Group {
        size: members.len() as u32,
        members,
        rank,
        mask,
        meta,
        tile: None,
    }
}

/// The lanes of `i`'s warp that exist, as grid indices.
pub fn warp_of(i: usize, b: usize) -> Vec<usize> {
    let r = i % b;
    let start = i - r % 32;
    let end = (i - r + b).min(start + 32);
    (start..end).collect()
}

/// The static tile of `n` holding thread `i`, as a parent of a partition:
/// its members that exist (grid indices) and its lane mask.
pub fn tile_parent(i: usize, b: usize, n: u32) -> (Vec<usize>, u32) {
    let t = static_tile(i, b, n, (0, 0));
    (t.members, t.mask)
}

/// `labeled_partition` of the parent `members` by `labels`: CUDA's meta
/// group numbers the groups by their lowest lane.
pub fn labeled(i: usize, members: &[usize], label_of: impl Fn(usize) -> u64, b: usize) -> Group {
    let same: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&g| label_of(g) == label_of(i))
        .collect();
    let mut leaders: Vec<usize> = Vec::new();
    for &m in members {
        if !members.iter().any(|&o| o < m && label_of(o) == label_of(m)) {
            leaders.push(m);
        }
    }
    let rank = leaders.iter().filter(|&&l| l < same[0]).count() as u32;
    coalesced(i, same, (rank, leaders.len() as u32), b)
}

/// `binary_partition` of a parent with lane mask `parent_mask` and the
/// existing `members`: CUDA gives the whole parent as (0, 1) when the
/// predicate does not split it, else the side of `pred` as (`pred`, 2). The
/// side of `false` is the parent's mask less the lanes that voted `true`:
/// in a static tile past the block's end, with the missing lanes.
pub fn binary(
    i: usize,
    members: &[usize],
    parent_mask: u32,
    pred: impl Fn(usize) -> bool,
    b: usize,
) -> Group {
    let lane = |g: usize| 1u32 << ((g % b) % 32);
    let yes = members
        .iter()
        .filter(|&&g| pred(g))
        .fold(0, |m, &g| m | lane(g));
    if yes == parent_mask || yes == 0 {
        let mut g = coalesced(i, members.to_vec(), (0, 1), b);
        g.mask = parent_mask;
        g.size = parent_mask.count_ones();
        g
    } else {
        let side: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&g| pred(g) == pred(i))
            .collect();
        let mut g = coalesced(i, side, (pred(i) as u32, 2), b);
        g.mask = if pred(i) { yes } else { parent_mask & !yes };
        g.size = g.mask.count_ones();
        g
    }
}

/// The model of the group `sel` gives thread `i`; `None` when it has none.
pub fn model(sel: u32, i: usize, b: usize, keys: &[u32]) -> Option<Group> {
    let r = (i % b) as u32;
    let bu = b as u32;
    let key = keys[i];
    let ceil = |n: u32| bu.div_ceil(n);
    let warp = warp_of(i, b);
    let warp_mask = warp.iter().fold(0u32, |m, &g| m | 1 << ((g % b) % 32));
    let by_label = |g: usize| label(keys[g]) as u64;
    let by_split = |g: usize| split(keys[g]);
    Some(match sel {
        0..=5 => {
            let n = 1 << sel;
            static_tile(i, b, n, (r / n, ceil(n)))
        }
        6..=11 => {
            let n = 1 << (sel - 6);
            dynamic_tile(i, b, n, bu, (r / n, ceil(n)))
        }
        12 => binary(i, &warp, warp_mask, by_split, b),
        13 => labeled(i, &warp, by_label, b),
        14 | 20 => {
            if !split(key) {
                return None;
            }
            let branch: Vec<usize> = warp.into_iter().filter(|&g| split(keys[g])).collect();
            if sel == BRANCH_LABELED {
                labeled(i, &branch, by_label, b)
            } else {
                coalesced(i, branch, (0, 1), b)
            }
        }
        15 => {
            // CUDA's tiled_partition(coalesced_group, 4) returns a side of
            // at most 4 members itself, with the binary partition's meta
            // group.
            let parent = binary(i, &warp, warp_mask, by_split, b);
            let side = &parent.members;
            if side.len() > 4 {
                let pr = side.iter().position(|&g| g == i).unwrap();
                let first = pr / 4 * 4;
                let piece = side[first..(first + 4).min(side.len())].to_vec();
                coalesced(
                    i,
                    piece,
                    ((pr / 4) as u32, side.len().div_ceil(4) as u32),
                    b,
                )
            } else {
                parent
            }
        }
        16 => labeled(i, &tile_parent(i, b, 8).0, by_label, b),
        17 => {
            let (members, mask) = tile_parent(i, b, 16);
            binary(i, &members, mask, by_split, b)
        }
        18 => labeled(i, &warp, |g| wide_label(keys[g]), b),
        19 => {
            let parent = labeled(i, &warp, by_label, b);
            binary(i, &parent.members, parent.mask, by_split, b)
        }
        21..=26 => {
            let n = 1 << (sel - 21);
            static_tile(i, b, n, ((r % 32) / n, 32 / n))
        }
        27..=32 => {
            let n = 1 << (sel - 27);
            if n >= 8 {
                static_tile(i, b, 8, (r / 8, ceil(8)))
            } else {
                static_tile(i, b, n, ((r % 8) / n, 8 / n))
            }
        }
        33..=38 => {
            let n = 1 << (sel - 33);
            let parent_base = r & !15;
            let parent_end = (parent_base + 16).min(bu);
            let parent_size = parent_end - parent_base;
            if parent_size <= n {
                dynamic_tile(i, b, 16, bu, (r / 16, ceil(16)))
            } else {
                dynamic_tile(i, b, n, parent_end, ((r % 16) / n, parent_size / n))
            }
        }
        40 => static_tile(i, b, 1, (0, 1)),
        _ => unreachable!("selector {sel}"),
    })
}

// ------------------------------------------------------------ launching

/// A launch shape: the grid, the block, threads per block and in all.
pub struct Geometry {
    pub grid: Dims,
    pub block: Dims,
    pub b: usize,
    pub total: usize,
}

impl Geometry {
    pub fn new((grid, block): (Dims, Dims)) -> Self {
        let b = volume(block);
        Geometry {
            grid,
            block,
            b,
            total: b * volume(grid),
        }
    }

    pub fn cfg(&self) -> LaunchConfig {
        LaunchConfig::new(self.grid, self.block)
    }
}

/// Uniformly random words.
pub fn random_words(rng: &mut StdRng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.random()).collect()
}

/// A buffer of `n` words of [`POISON`].
pub fn poisoned(gpu: &Gpu, n: usize) -> DeviceBuffer<u32> {
    gpu.filled(n, POISON).unwrap()
}

/// Fills a buffer with [`POISON`] again.
pub fn reset(buf: &mut DeviceBuffer<u32>) {
    let n = buf.len();
    buf.copy_from(&vec![POISON; n]).unwrap();
}

/// Which member's value `op` gives thread `i` of group `g`: `Some(Some(m))`
/// member `m`, `Some(None)` a lane that does not exist (undefined: not
/// checked), `None` when the probe writes nothing (xor on a coalesced
/// group).
pub fn shuffle_source(g: &Group, i: usize, op: u32, arg: u32, src: u32) -> Option<Option<usize>> {
    let own = Some(Some(i));
    let at = |rank: u32| Some(g.member(rank));
    match (op, g.tile) {
        (0, Some(width)) => {
            let k = src % width;
            if k >= g.size {
                own
            } else {
                at(k)
            }
        }
        (0, None) => at(src % g.size),
        (1, _) => {
            if g.rank >= arg {
                at(g.rank - arg)
            } else {
                own
            }
        }
        (2, _) => {
            if g.rank + arg < g.size {
                at(g.rank + arg)
            } else {
                own
            }
        }
        (3, Some(_)) => {
            let k = g.rank ^ arg;
            if k >= g.size {
                own
            } else {
                at(k)
            }
        }
        (3, None) => None,
        _ => unreachable!(),
    }
}

/// Integers: values drawn from a few ranges so that sums wrap, minima tie
/// and bit operations see both dense and sparse words.
pub fn int_words(rng: &mut StdRng, words: usize) -> Vec<u32> {
    let mode = rng.random_range(0..3);
    (0..words)
        .map(|_| match mode {
            0 => rng.random(),
            1 => rng.random_range(0..8),
            _ => u32::MAX - rng.random_range(0..8),
        })
        .collect()
}

/// Block shapes for multi-warp tiles: each a whole number of the largest
/// tile (512 threads), 1-D and 2-D.
pub const MULTI_WARP_SHAPES: [(Dims, Dims); 3] = [
    ((2, 1, 1), (512, 1, 1)),
    ((3, 1, 1), (1024, 1, 1)),
    ((2, 1, 1), (32, 16, 1)),
];

/// `n` 64-bit match values, per warp all equal or drawn from three, that
/// differ only in their high half (even warps) or only in their low half
/// (odd warps): a 32-bit match would get them wrong.
pub fn random_wide_matches(rng: &mut StdRng, n: usize) -> Vec<u64> {
    let mut wide = vec![0u64; n];
    for (w, chunk) in wide.chunks_mut(32).enumerate() {
        let same = rng.random_bool(0.3);
        let v0 = rng.random_range(0..3u64);
        for x in chunk.iter_mut() {
            let v = if same { v0 } else { rng.random_range(0..3u64) };
            *x = if w % 2 == 0 { v << 40 | 7 } else { 7 << 40 | v };
        }
    }
    wide
}
