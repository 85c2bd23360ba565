//! Probe kernels behind `tests/gpu_api.rs`: every Cooperative Groups
//! operation on every group kind, each thread writing what it got so the
//! host can compare it with a CPU model of CUDA's semantics.
//!
//! A probe takes a group selector `sel` (see [`with_group`]) and usually an
//! operation selector `op`, and dispatches with `match` to generic helpers,
//! so one kernel covers every tile size and group kind. Threads are indexed
//! by their grid rank `i`; per-thread inputs are `keys[i]`, whose bits pick
//! the predicates and labels (see [`Key`]).

use cg_core::prelude::*;

pub mod atomics;
pub mod block_collectives;
pub mod collectives;
pub mod copies;
pub mod full_warp;
pub mod grid;
pub mod groups;
pub mod multi_warp;
pub mod scheme;
pub mod segments;
pub mod shuffles;
pub mod votes;

pub use scheme::{Key, GROUP_KINDS, INFO_WORDS};

/// This thread's rank in the grid: the index of its inputs and outputs.
#[inline(always)]
pub fn index() -> usize {
    this_grid().thread_rank() as usize
}

/// What a probe does with a group; [`with_group`] calls `tile` for tiles
/// and `group` for coalesced groups.
pub trait Probe {
    /// What the probe returns.
    type Out;

    /// Runs on a tile (by default as on any warp group).
    #[inline(always)]
    fn tile<G: TileGroup>(&self, g: &G) -> Self::Out {
        self.group(g)
    }

    /// Runs on any warp group.
    fn group<G: WarpGroup>(&self, g: &G) -> Self::Out;
}

/// Writes the group's info (when `info` is not null), then runs the probe
/// on it as a tile.
#[inline(always)]
fn visit_tile<G: TileGroup, P: Probe>(g: &G, probe: &P, info: *mut u32, i: usize) -> P::Out {
    if !info.is_null() {
        write_info(g, info, i);
    }
    probe.tile(g)
}

/// Writes the group's info (when `info` is not null), then runs the probe
/// on it as a warp group.
#[inline(always)]
fn visit_group<G: WarpGroup, P: Probe>(g: &G, probe: &P, info: *mut u32, i: usize) -> P::Out {
    if !info.is_null() {
        write_info(g, info, i);
    }
    probe.group(g)
}

/// Runs `probe` on the group `sel` names, after writing that group's
/// [`write_info`] for thread `i` to `info` (unless `info` is null); `None`
/// when the calling thread has no such group.
///
/// | `sel` | group |
/// |---|---|
/// | 0..=5 | `tiled_partition::<1 << sel>(&block)` |
/// | 6..=11 | `tiled_partition_dynamic(&block, 1 << (sel - 6))` |
/// | 12 | `binary_partition(&warp, key.split())` |
/// | 13 | `labeled_partition(&warp, key.label())` |
/// | 14 | `coalesced_threads()` of the threads with `key.split()` (others: `None`) |
/// | 15 | `tiled_partition_dynamic(&binary_partition(&warp, key.split()), 4)` |
/// | 16 | `labeled_partition(&tiled_partition::<8>(&block), key.label())` |
/// | 17 | `binary_partition(&tiled_partition::<16>(&block), key.split())` |
/// | 18 | `labeled_partition(&warp, key.wide_label())` (a 64-bit label) |
/// | 19 | `binary_partition(&labeled_partition(&warp, key.label()), key.split())` |
/// | 20 | `labeled_partition(&coalesced_threads(), key.label())` of the threads with `key.split()` (others: `None`) |
///
/// `warp` is `tiled_partition_dynamic(&block, 32)`, which holds only the
/// lanes that exist in a partial last warp. The info and the probe see the
/// same group (for selectors 14 and 20, one `coalesced_threads()` call).
#[inline(always)]
pub fn with_group<P: Probe>(
    sel: u32,
    key: Key,
    probe: &P,
    info: *mut u32,
    i: usize,
) -> Option<P::Out> {
    let block = this_thread_block();
    Some(match sel {
        0 => visit_tile(&tiled_partition::<1>(&block), probe, info, i),
        1 => visit_tile(&tiled_partition::<2>(&block), probe, info, i),
        2 => visit_tile(&tiled_partition::<4>(&block), probe, info, i),
        3 => visit_tile(&tiled_partition::<8>(&block), probe, info, i),
        4 => visit_tile(&tiled_partition::<16>(&block), probe, info, i),
        5 => visit_tile(&tiled_partition::<32>(&block), probe, info, i),
        6..=11 => visit_tile(
            &tiled_partition_dynamic(&block, 1 << (sel - 6)),
            probe,
            info,
            i,
        ),
        16 => visit_group(
            &labeled_partition(&tiled_partition::<8>(&block), key.label()),
            probe,
            info,
            i,
        ),
        17 => visit_group(
            &binary_partition(&tiled_partition::<16>(&block), key.split()),
            probe,
            info,
            i,
        ),
        12..=15 | 18..=20 => {
            if (sel == 14 || sel == 20) && !key.split() {
                return None;
            }
            let warp = tiled_partition_dynamic(&block, 32);
            let g = match sel {
                12 => binary_partition(&warp, key.split()),
                13 => labeled_partition(&warp, key.label()),
                14 => coalesced_threads(),
                15 => tiled_partition_dynamic(&binary_partition(&warp, key.split()), 4),
                18 => labeled_partition(&warp, key.wide_label()),
                19 => binary_partition(&labeled_partition(&warp, key.label()), key.split()),
                _ => labeled_partition(&coalesced_threads(), key.label()),
            };
            visit_group(&g, probe, info, i)
        }
        _ => return None,
    })
}

/// Writes `[thread_rank, num_threads, mask, meta_group_rank,
/// meta_group_size]` of `g` for thread `i`.
#[inline(always)]
pub fn write_info<G: WarpGroup>(g: &G, info: *mut u32, i: usize) {
    let words = [
        g.thread_rank(),
        g.num_threads(),
        g.mask(),
        g.meta_group_rank(),
        g.meta_group_size(),
    ];
    store(info, i, words);
}

/// Reads element `i` of an array of `T` stored as 32-bit words (`T` is a
/// whole number of words, aligned to at least 4).
#[inline(always)]
pub fn load<T: Pod>(words: &[u32], i: usize) -> T {
    let n = core::mem::size_of::<T>() / 4;
    let mut v = T::zeroed();
    let dst = &mut v as *mut T as *mut u32;
    for k in 0..n {
        // SAFETY: `dst` points to `v`, a local `T` of `n` whole words, aligned
        // to at least 4 (what the doc above asks of the callers' `T`), and
        // `k < n`.
        unsafe { *dst.add(k) = words[i * n + k] };
    }
    v
}

/// Writes element `i` of an array of `T` stored as 32-bit words.
#[inline(always)]
pub fn store<T: Pod>(words: *mut u32, i: usize, v: T) {
    let n = core::mem::size_of::<T>() / 4;
    let src = &v as *const T as *const u32;
    for k in 0..n {
        // SAFETY: the callers (this crate's kernels) pass `words` holding at
        // least `(i + 1) * n` words, `i` their own element; `src` points to
        // `v`, a local `T` of `n` whole words aligned to at least 4 (as in
        // `load`), and `k < n`.
        unsafe { *words.add(i * n + k) = *src.add(k) };
    }
}
