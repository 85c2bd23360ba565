//! The grid-wide collectives (`grid_reduce`, the grid scans) with the
//! operators and value types of the block collectives' probes
//! (tests/gpu_grid_collectives.rs compares them with CPU models of the
//! order `cg_core::grid_collectives` states).

use crate::api::collectives::{merge, then, Affine, Stats};
use bytemuck::cast;
use cg_core::atomic::AtomicSlice;
use cg_core::grid_collectives::GridScratch;
use cg_core::prelude::*;

/// [`then`] on the words of two [`Affine`] maps (the host handles name
/// only plain types).
#[inline(always)]
fn then_words(f: [u32; 2], g: [u32; 2]) -> [u32; 2] {
    cast(then(cast::<_, Affine>(f), cast::<_, Affine>(g)))
}

/// [`merge`] on the words of two [`Stats`].
#[inline(always)]
fn merge_words(x: [u32; 3], y: [u32; 3]) -> [u32; 3] {
    cast(merge(cast::<_, Stats>(x), cast::<_, Stats>(y)))
}

/// Thread `g` of the grid reduces `a[g]`, then `b[g]`, then `a[g]`
/// again, back to back on one scratch (the two halves and a half reused),
/// and writes the three totals to element `g` of `ra`, `rb` and `rc`.
/// `a` and `b` hold one value per thread of the grid.
#[inline(always)]
fn reduce_probe<T: Pod, Op: Operator<T> + Copy>(
    mut scratch: GridScratch<'_, T>,
    a: &[T],
    b: &[T],
    outs: [&mut Output<T>; 3],
    op: Op,
) {
    let grid = this_grid();
    let g = grid.thread_rank() as usize;
    let first = grid_reduce(&grid, &mut scratch, a[g], op);
    let second = grid_reduce(&grid, &mut scratch, b[g], op);
    let third = grid_reduce(&grid, &mut scratch, a[g], op);
    let [ra, rb, rc] = outs;
    ra.for_thread(&grid, |o| *o = first);
    rb.for_thread(&grid, |o| *o = second);
    rc.for_thread(&grid, |o| *o = third);
}

/// The exclusive scan of `input` into `exclusive`, the barrier that gives
/// the scratch back, then the inclusive scan into `inclusive` on the same
/// scratch, and a last `grid_reduce` of each thread's rank-th input (or
/// the first input where there are fewer) into `total`, one per thread.
/// The outputs of [`scan_probe`]: the two scans' (written in the pattern
/// the grid scans write in) and the reduction's.
type ScanOutputs<'a, T> = (
    &'a mut Output<T, Chunks<Runs>>,
    &'a mut Output<T, Chunks<Runs>>,
    &'a mut Output<T>,
);

#[inline(always)]
fn scan_probe<T: Pod, Op: Operator<T> + Copy>(
    scratch: GridScratch<'_, T>,
    input: &[T],
    outs: ScanOutputs<'_, T>,
    op: Op,
) {
    let grid = this_grid();
    let (exclusive, inclusive, total) = outs;
    let used = grid_exclusive_scan(&grid, scratch, input, exclusive, op);
    let scratch = used.sync(&grid);
    let used = grid_inclusive_scan(&grid, scratch, input, inclusive, op);
    let mut scratch = used.sync(&grid);
    if let Some(&first) = input.first() {
        let g = grid.thread_rank() as usize;
        let v = input.get(g).copied().unwrap_or(first);
        let sum = grid_reduce(&grid, &mut scratch, v, op);
        total.for_thread(&grid, |o| *o = sum);
    }
}

/// `op`: 0 wrapping plus, 1 maximum, 2 minimum.
#[kernel(cooperative)]
pub fn grid_reduce_u32(
    a: &[u32],
    b: &[u32],
    mut ra: Output<u32>,
    mut rb: Output<u32>,
    mut rc: Output<u32>,
    words: AtomicSlice<u64>,
    op: u32,
) {
    let outs = [&mut ra, &mut rb, &mut rc];
    let scratch = grid_scratch!(u32, words);
    match op {
        0 => reduce_probe(scratch, a, b, outs, Plus),
        1 => reduce_probe(scratch, a, b, outs, Greater),
        _ => reduce_probe(scratch, a, b, outs, Less),
    }
}

/// `op`: 1 maximum, 2 minimum.
#[kernel(cooperative)]
pub fn grid_reduce_i32(
    a: &[i32],
    b: &[i32],
    mut ra: Output<i32>,
    mut rb: Output<i32>,
    mut rc: Output<i32>,
    words: AtomicSlice<u64>,
    op: u32,
) {
    let outs = [&mut ra, &mut rb, &mut rc];
    let scratch = grid_scratch!(i32, words);
    match op {
        1 => reduce_probe(scratch, a, b, outs, Greater),
        _ => reduce_probe(scratch, a, b, outs, Less),
    }
}

/// The float sum (`Plus`).
#[kernel(cooperative)]
pub fn grid_reduce_f32(
    a: &[f32],
    b: &[f32],
    mut ra: Output<f32>,
    mut rb: Output<f32>,
    mut rc: Output<f32>,
    words: AtomicSlice<u64>,
) {
    let outs = [&mut ra, &mut rb, &mut rc];
    reduce_probe(grid_scratch!(f32, words), a, b, outs, Plus)
}

/// [`Affine`] maps composed in rank order (8 bytes: a tag word and a value
/// word a slot).
#[kernel(cooperative)]
pub fn grid_reduce_affine(
    a: &[[u32; 2]],
    b: &[[u32; 2]],
    mut ra: Output<[u32; 2]>,
    mut rb: Output<[u32; 2]>,
    mut rc: Output<[u32; 2]>,
    words: AtomicSlice<u64>,
) {
    let outs = [&mut ra, &mut rb, &mut rc];
    reduce_probe(grid_scratch!([u32; 2], words), a, b, outs, then_words)
}

/// `op`: 0 wrapping plus, 1 maximum, 2 minimum.
#[kernel(cooperative)]
pub fn grid_scan_u32(
    input: &[u32],
    mut exclusive: Output<u32, Chunks<Runs>>,
    mut inclusive: Output<u32, Chunks<Runs>>,
    mut total: Output<u32>,
    words: AtomicSlice<u64>,
    op: u32,
) {
    let outs = (&mut exclusive, &mut inclusive, &mut total);
    let scratch = grid_scratch!(u32, words);
    match op {
        0 => scan_probe(scratch, input, outs, Plus),
        1 => scan_probe(scratch, input, outs, Greater),
        _ => scan_probe(scratch, input, outs, Less),
    }
}

/// `op`: 1 maximum, 2 minimum.
#[kernel(cooperative)]
pub fn grid_scan_i32(
    input: &[i32],
    mut exclusive: Output<i32, Chunks<Runs>>,
    mut inclusive: Output<i32, Chunks<Runs>>,
    mut total: Output<i32>,
    words: AtomicSlice<u64>,
    op: u32,
) {
    let outs = (&mut exclusive, &mut inclusive, &mut total);
    let scratch = grid_scratch!(i32, words);
    match op {
        1 => scan_probe(scratch, input, outs, Greater),
        _ => scan_probe(scratch, input, outs, Less),
    }
}

/// The float sum (`Plus`).
#[kernel(cooperative)]
pub fn grid_scan_f32(
    input: &[f32],
    mut exclusive: Output<f32, Chunks<Runs>>,
    mut inclusive: Output<f32, Chunks<Runs>>,
    mut total: Output<f32>,
    words: AtomicSlice<u64>,
) {
    let outs = (&mut exclusive, &mut inclusive, &mut total);
    scan_probe(grid_scratch!(f32, words), input, outs, Plus)
}

/// [`Affine`] maps composed in rank order.
#[kernel(cooperative)]
pub fn grid_scan_affine(
    input: &[[u32; 2]],
    mut exclusive: Output<[u32; 2], Chunks<Runs>>,
    mut inclusive: Output<[u32; 2], Chunks<Runs>>,
    mut total: Output<[u32; 2]>,
    words: AtomicSlice<u64>,
) {
    let outs = (&mut exclusive, &mut inclusive, &mut total);
    scan_probe(grid_scratch!([u32; 2], words), input, outs, then_words)
}

/// [`Stats`] merged (12 bytes: two value words a slot, two elements a
/// thread).
#[kernel(cooperative)]
pub fn grid_scan_stats(
    input: &[[u32; 3]],
    mut exclusive: Output<[u32; 3], Chunks<Runs>>,
    mut inclusive: Output<[u32; 3], Chunks<Runs>>,
    mut total: Output<[u32; 3]>,
    words: AtomicSlice<u64>,
) {
    let outs = (&mut exclusive, &mut inclusive, &mut total);
    scan_probe(grid_scratch!([u32; 3], words), input, outs, merge_words)
}

/// Element-wise wrapping sums of arrays, written as a user would (a loop
/// over the elements).
macro_rules! wrapping_sum {
    ($name:ident, $e:ty, $n:expr) => {
        #[doc = concat!("The element-wise wrapping sum of `[", stringify!($e), "; ", stringify!($n), "]`.")]
        #[inline(always)]
        fn $name(x: [$e; $n], y: [$e; $n]) -> [$e; $n] {
            let mut r = x;
            for i in 0..$n {
                r[i] = x[i].wrapping_add(y[i]);
            }
            r
        }
    };
}

wrapping_sum!(sum_u8x3, u8, 3);
wrapping_sum!(sum_u16x5, u16, 5);
wrapping_sum!(sum_u64x2, u64, 2);
wrapping_sum!(sum_u32x5, u32, 5);
wrapping_sum!(sum_u64x4, u64, 4);

/// A [`scan_probe`] kernel of wrapping sums over `$t` (one per line: a
/// macro's shared arrays are named by the line that calls it).
macro_rules! sum_scan_probe {
    ($name:ident, $t:ty, $op:expr) => {
        #[doc = concat!("The scans and a reduction of wrapping sums of `", stringify!($t), "`.")]
        #[kernel(cooperative)]
        pub fn $name(
            input: &[$t],
            mut exclusive: Output<$t, Chunks<Runs>>,
            mut inclusive: Output<$t, Chunks<Runs>>,
            mut total: Output<$t>,
            words: AtomicSlice<u64>,
        ) {
            let outs = (&mut exclusive, &mut inclusive, &mut total);
            scan_probe(grid_scratch!($t, words), input, outs, $op)
        }
    };
}

// Every size class of a slot and of the per-thread items: packed values of
// 1, 2 and 3 bytes; one value word (8 bytes, and 10 with 2-byte alignment
// and 3 items a thread); two (16 bytes); three with a partial last (20
// bytes, 1 item a thread); four (32 bytes).
sum_scan_probe!(grid_scan_u8, u8, Plus);
sum_scan_probe!(grid_scan_u16, u16, Plus);
sum_scan_probe!(grid_scan_u8x3, [u8; 3], sum_u8x3);
sum_scan_probe!(grid_scan_u64, u64, Plus);
sum_scan_probe!(grid_scan_u16x5, [u16; 5], sum_u16x5);
sum_scan_probe!(grid_scan_u64x2, [u64; 2], sum_u64x2);
sum_scan_probe!(grid_scan_u32x5, [u32; 5], sum_u32x5);
sum_scan_probe!(grid_scan_u64x4, [u64; 4], sum_u64x4);
