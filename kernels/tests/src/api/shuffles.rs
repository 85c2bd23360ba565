//! Shuffles of every kind, for 4- to 32-byte values, on every group kind.
//!
//! Values travel as 32-bit words: element `i` of a `T` array is words
//! `i * W .. (i + 1) * W` with `W = size_of::<T>() / 4`.

use super::{index, load, store, with_group, Key, Probe};
use bytemuck::Zeroable;
use cg_core::prelude::*;

/// A 12-byte struct: three 32-bit fields of different types.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub struct Mixed12 {
    /// A word.
    pub a: u32,
    /// A float.
    pub b: f32,
    /// A signed word.
    pub c: i32,
}

/// A 32-byte struct, CUDA's largest shuffled size.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub struct Wide32 {
    /// Four 64-bit words.
    pub words: [u64; 4],
}

/// The shuffle operations, selected by `op`:
/// 0 `shfl(v, src)`, 1 `shfl_up(v, arg)`, 2 `shfl_down(v, arg)`,
/// 3 `shfl_xor(v, arg)` (tiles only). For coalesced groups `src` is taken
/// modulo the group's size first (their `shfl` needs an existing rank).
struct Shuffle<T> {
    value: T,
    src: u32,
    op: u32,
    arg: u32,
}

impl<T: Pod> Probe for Shuffle<T> {
    type Out = Option<T>;

    #[inline(always)]
    fn tile<G: TileGroup>(&self, g: &G) -> Option<T> {
        match self.op {
            0 => Some(g.shfl(self.value, self.src)),
            3 => Some(g.shfl_xor(self.value, self.arg)),
            _ => self.group(g),
        }
    }

    #[inline(always)]
    fn group<G: WarpGroup>(&self, g: &G) -> Option<T> {
        match self.op {
            0 => Some(g.shfl(self.value, self.src % g.num_threads())),
            1 => Some(g.shfl_up(self.value, self.arg)),
            2 => Some(g.shfl_down(self.value, self.arg)),
            _ => None,
        }
    }
}

/// Shuffles of `T` (see [`Shuffle`] for `op`), one instance per type;
/// `info` gets the group.
#[allow(clippy::too_many_arguments)]
#[kernel(instances(
    api_shfl_u32 = <u32>,
    api_shfl_i32 = <i32>,
    api_shfl_f32 = <f32>,
    api_shfl_u64 = <u64>,
    api_shfl_f64 = <f64>,
    api_shfl_mixed12 = <Mixed12>,
    api_shfl_wide32 = <Wide32>,
))]
pub fn api_shfl<T: Pod>(
    input: &[u32],
    src: &[u32],
    keys: &[u32],
    out: *mut u32,
    info: *mut u32,
    sel: u32,
    op: u32,
    arg: u32,
) {
    let i = index();
    let key = Key(keys[i]);
    let probe = Shuffle {
        value: load::<T>(input, i),
        src: src[i],
        op,
        arg,
    };
    if let Some(Some(v)) = with_group(sel, key, &probe, info, i) {
        store(out, i, v);
    }
}
