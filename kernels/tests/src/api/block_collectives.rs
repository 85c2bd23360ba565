//! The block-wide collectives (`block_reduce`, `block_reduce_to_first`,
//! the block scans) with every operator and value type of the warp-level
//! probes, all on one scratch per kernel, beside CUB's `BlockReduce` and
//! `BlockScan` (tests/twins/block_collectives.cu,
//! tests/gpu_block_collectives.rs).

use super::collectives::{merge, then, Affine, Stats};
use super::{index, load, store};
use cg_core::prelude::*;
use core::ops::{Add, BitAnd as And, BitOr as Or, BitXor as Xor};

/// Values of `T` each thread writes (see [`probe`]).
pub const VALUES: usize = 7;

/// Thread `i` reads its value `v` (element `i` of `input`, as words) and
/// writes `VALUES` values of `T` from element `VALUES * i` of `out`:
///
/// * 0: `block_reduce` of `v`;
/// * 1, 2: `block_inclusive_scan` and `block_exclusive_scan` of `v`;
/// * 3, 4: the totals of `block_inclusive_scan_with_total` and
///   `block_exclusive_scan_with_total` of `v`;
/// * 5 (thread 0 only): `block_reduce_to_first` of `v`;
/// * 6 (thread 0 only): after the scratch's barrier
///   ([`UsedScratch::sync`]), `block_reduce_to_first` of the inclusive
///   scans.
///
/// Every collective uses `scratch`: the first five back to back with no
/// barrier between them.
#[inline(always)]
fn probe<T: Pod, Op: Operator<T> + Copy>(
    scratch: BlockScratch<T>,
    input: &[u32],
    out: *mut u32,
    op: Op,
) {
    let block = this_thread_block();
    let i = index();
    let v = load::<T>(input, i);
    let total = block_reduce(&block, &scratch, v, op);
    let inclusive = block_inclusive_scan(&block, &scratch, v, op);
    let exclusive = block_exclusive_scan(&block, &scratch, v, op);
    let (_, inclusive_total) = block_inclusive_scan_with_total(&block, &scratch, v, op);
    let (_, exclusive_total) = block_exclusive_scan_with_total(&block, &scratch, v, op);
    let (first, used) = block_reduce_to_first(&block, scratch, v, op);
    let scratch = used.sync(&block);
    let (again, _) = block_reduce_to_first(&block, scratch, inclusive, op);
    store(out, VALUES * i, total);
    store(out, VALUES * i + 1, inclusive);
    store(out, VALUES * i + 2, exclusive);
    store(out, VALUES * i + 3, inclusive_total);
    store(out, VALUES * i + 4, exclusive_total);
    if let (Some(first), Some(again)) = (first, again) {
        store(out, VALUES * i + 5, first);
        store(out, VALUES * i + 6, again);
    }
}

/// Integer types: `op` 0 plus, 1 less, 2 greater, 3 bit_and, 4 bit_or,
/// 5 bit_xor, 6 the closure `|a, b| a + b`.
#[inline(always)]
fn integers<T>(scratch: BlockScratch<T>, input: &[u32], out: *mut u32, op: u32)
where
    T: Pod + Add<Output = T> + PartialOrd + And<Output = T> + Or<Output = T> + Xor<Output = T>,
{
    match op {
        0 => probe(scratch, input, out, Plus),
        1 => probe(scratch, input, out, Less),
        2 => probe(scratch, input, out, Greater),
        3 => probe(scratch, input, out, BitAnd),
        4 => probe(scratch, input, out, BitOr),
        5 => probe(scratch, input, out, BitXor),
        6 => probe(scratch, input, out, |a: T, b: T| a + b),
        _ => {}
    }
}

/// Floating-point types: `op` 0 plus, 1 less, 2 greater, 6 the closure
/// `|a, b| a + b`.
#[inline(always)]
fn floats<T>(scratch: BlockScratch<T>, input: &[u32], out: *mut u32, op: u32)
where
    T: Pod + Add<Output = T> + PartialOrd,
{
    match op {
        0 => probe(scratch, input, out, Plus),
        1 => probe(scratch, input, out, Less),
        2 => probe(scratch, input, out, Greater),
        6 => probe(scratch, input, out, |a: T, b: T| a + b),
        _ => {}
    }
}

/// [`probe`] on `u32` values (one word each; `op` as `integers`).
#[kernel]
pub fn api_block_collectives_u32(input: &[u32], out: *mut u32, op: u32) {
    integers(block_scratch!(u32), input, out, op)
}

/// [`probe`] on `i32` values.
#[kernel]
pub fn api_block_collectives_i32(input: &[u32], out: *mut u32, op: u32) {
    integers(block_scratch!(i32), input, out, op)
}

/// [`probe`] on `u64` values (two words each).
#[kernel]
pub fn api_block_collectives_u64(input: &[u32], out: *mut u32, op: u32) {
    integers(block_scratch!(u64), input, out, op)
}

/// [`probe`] on `f32` values (`op` 0, 1, 2, 6 as `floats`).
#[kernel]
pub fn api_block_collectives_f32(input: &[u32], out: *mut u32, op: u32) {
    floats(block_scratch!(f32), input, out, op)
}

/// [`probe`] on `f64` values (two words each).
#[kernel]
pub fn api_block_collectives_f64(input: &[u32], out: *mut u32, op: u32) {
    floats(block_scratch!(f64), input, out, op)
}

/// [`probe`] on structs with closures: `op` 0 composes [`Affine`] maps (2
/// words per value, [`then`]: associative, not commutative), `op` 1
/// merges [`Stats`] (3 words per value, [`merge`]).
#[kernel]
pub fn api_block_collectives_struct(input: &[u32], out: *mut u32, op: u32) {
    match op {
        0 => probe(block_scratch!(Affine), input, out, then),
        1 => probe(block_scratch!(Stats), input, out, merge),
        _ => {}
    }
}
