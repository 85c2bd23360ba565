//! The device side of cg-primitives: one kernel per primitive and value
//! type, each a call of the grid collective that does the work
//! (`cg_core::grid_collectives`, `cg_core::grid_histogram`). The host
//! crate sizes the grid, the scratch and the shared memory.
#![no_std]
// The kernels' bodies compile for the host only with cg-core's `sim`
// feature (the simulator's build): the imports they use are theirs.
#![allow(unused_imports)]

use cg_core::atomic::AtomicSlice;
use cg_core::grid_histogram::{grid_histogram, Even};
use cg_core::prelude::*;

/// The most bins [`histogram_even_u32`] and [`histogram_even_f32`] count
/// in shared memory (4 KiB a block).
pub const MAX_BINS: usize = 1024;

/// What `select_*` keeps: `v < operand`.
pub const KEEP_LESS: u32 = 0;
/// What `select_*` keeps: `v > operand`.
pub const KEEP_GREATER: u32 = 1;
/// What `select_*` keeps: `v != operand`.
pub const KEEP_NOT_EQUAL: u32 = 2;

/// The exclusive sum of `input` into `out` (wrapping for integers).
macro_rules! exclusive_sum {
    ($name:ident, $t:ty) => {
        #[doc = concat!("The exclusive sum of `", stringify!($t), "` values.")]
        // At most 64 registers, for four blocks of 256 threads an SM: the
        // scan keeps a tile a block in flight, so its speed follows the
        // blocks resident (a few registers more, as small changes to the
        // collective have cost, would make it three; the offline `ptx`
        // test checks that none spill).
        #[kernel(cooperative, launch_bounds(256, 4))]
        pub fn $name(input: &[$t], mut out: Output<$t, Chunks<Runs>>, words: AtomicSlice<u64>) {
            let grid = this_grid();
            let _ = grid_exclusive_scan(&grid, grid_scratch!($t, words), input, &mut out, Plus);
        }
    };
}

/// The sum of `input` into `out[0]`.
macro_rules! sum {
    ($name:ident, $t:ty, $zero:expr) => {
        #[doc = concat!("The sum of `", stringify!($t), "` values into `out[0]`.")]
        #[kernel(cooperative)]
        pub fn $name(input: &[$t], mut out: Output<$t>, words: AtomicSlice<u64>) {
            let grid = this_grid();
            let mut scratch = grid_scratch!($t, words);
            let total = grid_reduce_slice(&grid, &mut scratch, input, $zero, Plus);
            out.for_thread(&grid, |o| *o = total);
        }
    };
}

/// The values of `input` that compare with `operand` as `keep` says
/// (`KEEP_*`) into `out`, and their count into `count[0]`.
macro_rules! select {
    ($name:ident, $t:ty) => {
        #[doc = concat!("Stream compaction of `", stringify!($t), "` values by a comparison.")]
        // At most 85 registers, three blocks of 256 an SM: with 16
        // elements a thread (`select_items_per_thread`) it takes 80, and
        // held at 64 it would spill.
        #[kernel(cooperative, launch_bounds(256, 3))]
        pub fn $name(
            input: &[$t],
            mut out: Output<$t, Selection>,
            mut count: Output<u32>,
            words: AtomicSlice<u64>,
            keep: u32,
            operand: $t,
        ) {
            let grid = this_grid();
            let scratch = grid_scratch!(u32, words);
            // One selection whose test branches on `keep` (the same in
            // every thread): one copy of the collective, not three.
            let (n, _) = grid_select(&grid, scratch, input, &mut out, |v| match keep {
                KEEP_LESS => *v < operand,
                KEEP_GREATER => *v > operand,
                _ => *v != operand,
            });
            // `count[0]` alone: the host's buffer may be longer.
            count.truncate(1);
            count.for_thread(&grid, |o| *o = n as u32);
        }
    };
}

/// The histogram of `input` in `nbins` even bins over `[lower, upper)`,
/// added to `bins`.
macro_rules! histogram_even {
    ($name:ident, $t:ty) => {
        #[doc = concat!("Even bins of `", stringify!($t), "` samples.")]
        #[kernel]
        pub fn $name(input: &[$t], bins: AtomicSlice<u32>, lower: $t, upper: $t, nbins: u32) {
            let grid = this_grid();
            let even = Even::new(lower, upper, nbins);
            let shared = shared_array!(u32; MAX_BINS).as_slice();
            grid_histogram(&grid, input, &even, shared, &bins);
        }
    };
}

// One per line: a macro's shared arrays are named by the line that calls it.
exclusive_sum!(exclusive_sum_u32, u32);
exclusive_sum!(exclusive_sum_f32, f32);
sum!(sum_u32, u32, 0);
sum!(sum_f32, f32, 0.0);
select!(select_u32, u32);
select!(select_f32, f32);
histogram_even!(histogram_even_u32, u32);
histogram_even!(histogram_even_f32, f32);
