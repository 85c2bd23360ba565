//! `grid_select`, `grid_reduce_slice` and `grid_histogram` probes
//! (tests/gpu_grid_select.rs compares them with CPU models).

use cg_core::atomic::AtomicSlice;
use cg_core::grid_histogram::{grid_histogram, Even};
use cg_core::prelude::*;

/// Keeps the values below `threshold` of `input` into `kept`, each
/// thread's count to `counts[g]`; then, on the same scratch after its
/// barrier, the wrapping sum of `input` (`grid_reduce_slice`) to `sums[g]`.
#[kernel(cooperative)]
pub fn grid_select_u32(
    input: &[u32],
    mut kept: Output<u32, Selection>,
    mut counts: Output<u32>,
    mut sums: Output<u32>,
    words: AtomicSlice<u64>,
    threshold: u32,
) {
    let grid = this_grid();
    let scratch = grid_scratch!(u32, words);
    let (count, used) = grid_select(&grid, scratch, input, &mut kept, |&v| v < threshold);
    let mut scratch = used.sync(&grid);
    let sum = grid_reduce_slice(&grid, &mut scratch, input, 0, Plus);
    counts.for_thread(&grid, |o| *o = count as u32);
    sums.for_thread(&grid, |o| *o = sum);
}

/// Keeps the positive values of `input` (not NaN, not -0.0) into `kept`,
/// each thread's count to `counts[g]`.
#[kernel(cooperative)]
pub fn grid_select_f32(
    input: &[f32],
    mut kept: Output<f32, Selection>,
    mut counts: Output<u32>,
    words: AtomicSlice<u64>,
) {
    let grid = this_grid();
    let scratch = grid_scratch!(u32, words);
    let (count, _used) = grid_select(&grid, scratch, input, &mut kept, |&v| v > 0.0);
    counts.for_thread(&grid, |o| *o = count as u32);
}

/// Keeps the odd values of `input` (8 bytes: 4 a thread, tiles of half
/// a `u32` one's) into `kept`, each thread's count to `counts[g]`.
#[kernel(cooperative)]
pub fn grid_select_u64(
    input: &[u64],
    mut kept: Output<u64, Selection>,
    mut counts: Output<u32>,
    words: AtomicSlice<u64>,
) {
    let grid = this_grid();
    let scratch = grid_scratch!(u32, words);
    let (count, _used) = grid_select(&grid, scratch, input, &mut kept, |&v| v & 1 == 1);
    counts.for_thread(&grid, |o| *o = count as u32);
}

/// The `f32` sum of `input` to `sums[g]` and its maximum (from -inf) to
/// `maxes[g]`, back to back on one scratch.
#[kernel(cooperative)]
pub fn grid_reduce_slice_f32(
    input: &[f32],
    mut sums: Output<f32>,
    mut maxes: Output<f32>,
    words: AtomicSlice<u64>,
) {
    let grid = this_grid();
    let mut scratch = grid_scratch!(f32, words);
    let sum = grid_reduce_slice(&grid, &mut scratch, input, 0.0, Plus);
    let max = grid_reduce_slice(&grid, &mut scratch, input, f32::NEG_INFINITY, Greater);
    sums.for_thread(&grid, |o| *o = sum);
    maxes.for_thread(&grid, |o| *o = max);
}

/// The `f64` sum of `input` to `sums[g]`: values of 8 bytes, which take
/// the element-wise order (no 16-byte groups).
#[kernel(cooperative)]
pub fn grid_reduce_slice_f64(input: &[f64], mut sums: Output<f64>, words: AtomicSlice<u64>) {
    let grid = this_grid();
    let mut scratch = grid_scratch!(f64, words);
    let sum = grid_reduce_slice(&grid, &mut scratch, input, 0.0, Plus);
    sums.for_thread(&grid, |o| *o = sum);
}

/// The histogram of `input` in `nbins` (at most 256) even bins over
/// `[lower, upper)`, added to `bins`. An ordinary launch.
#[kernel]
pub fn grid_histogram_u32(
    input: &[u32],
    bins: AtomicSlice<u32>,
    lower: u32,
    upper: u32,
    nbins: u32,
) {
    let grid = this_grid();
    let even = Even::new(lower, upper, nbins);
    grid_histogram(
        &grid,
        input,
        &even,
        shared_array!(u32; 256).as_slice(),
        &bins,
    );
}

/// As [`grid_histogram_u32`] for `f32` samples.
#[kernel]
pub fn grid_histogram_f32(
    input: &[f32],
    bins: AtomicSlice<u32>,
    lower: f32,
    upper: f32,
    nbins: u32,
) {
    let grid = this_grid();
    let even = Even::new(lower, upper, nbins);
    grid_histogram(
        &grid,
        input,
        &even,
        shared_array!(u32; 256).as_slice(),
        &bins,
    );
}
