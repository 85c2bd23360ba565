//! `reduce`, `inclusive_scan`, `exclusive_scan` with every operator on
//! every group kind; `block_reduce`; `invoke_one`.

use super::{index, load, store, with_group, Key, Probe};
use bytemuck::Zeroable;
use cg_core::prelude::*;
use core::ops::{Add, BitAnd as And, BitOr as Or, BitXor as Xor};
use core::sync::atomic::{AtomicU32, Ordering};

/// An affine map `x -> a * x + b` over wrapping `u32`; composing maps is
/// associative but not commutative, so it shows the order of combination.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub struct Affine {
    /// Slope.
    pub a: u32,
    /// Offset.
    pub b: u32,
}

/// `then(f, g)`: `f` first, then `g`.
#[inline(always)]
pub fn then(f: Affine, g: Affine) -> Affine {
    Affine {
        a: g.a.wrapping_mul(f.a),
        b: g.a.wrapping_mul(f.b).wrapping_add(g.b),
    }
}

/// Sum, minimum and maximum at once: a 12-byte operand.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub struct Stats {
    /// Wrapping sum.
    pub sum: u32,
    /// Minimum.
    pub min: u32,
    /// Maximum.
    pub max: u32,
}

/// Combines two [`Stats`].
#[inline(always)]
pub fn merge(x: Stats, y: Stats) -> Stats {
    Stats {
        sum: x.sum.wrapping_add(y.sum),
        min: x.min.min(y.min),
        max: x.max.max(y.max),
    }
}

/// `[reduce, inclusive_scan, exclusive_scan]` of one value with one
/// operator.
struct Collect<T, Op> {
    value: T,
    op: Op,
}

impl<T: Pod, Op: Operator<T> + Copy> Probe for Collect<T, Op> {
    type Out = [T; 3];

    #[inline(always)]
    fn group<G: WarpGroup>(&self, g: &G) -> [T; 3] {
        [
            reduce(g, self.value, self.op),
            inclusive_scan(g, self.value, self.op),
            exclusive_scan(g, self.value, self.op),
        ]
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<T: Pod, Op: Operator<T> + Copy>(
    sel: u32,
    key: Key,
    value: T,
    op: Op,
    out: *mut u32,
    info: *mut u32,
    i: usize,
) {
    if let Some(r) = with_group(sel, key, &Collect { value, op }, info, i) {
        store(out, i, r);
    }
}

/// Per thread `[reduce, inclusive_scan, exclusive_scan]` of integers of
/// type `T` (one or two words per value); `info` gets the group. `op`:
/// 0 plus, 1 less, 2 greater, 3 bit_and, 4 bit_or, 5 bit_xor, 6 the
/// closure `|a, b| a + b` (no hardware path).
#[kernel(instances(
    api_collective_u32 = <u32>,
    api_collective_i32 = <i32>,
    api_collective_u64 = <u64>,
))]
pub fn api_collective_integer<T>(
    input: &[u32],
    keys: &[u32],
    out: *mut u32,
    info: *mut u32,
    sel: u32,
    op: u32,
) where
    T: Pod + Add<Output = T> + PartialOrd + And<Output = T> + Or<Output = T> + Xor<Output = T>,
{
    let i = index();
    let key = Key(keys[i]);
    let v = load::<T>(input, i);
    match op {
        0 => run(sel, key, v, Plus, out, info, i),
        1 => run(sel, key, v, Less, out, info, i),
        2 => run(sel, key, v, Greater, out, info, i),
        3 => run(sel, key, v, BitAnd, out, info, i),
        4 => run(sel, key, v, BitOr, out, info, i),
        5 => run(sel, key, v, BitXor, out, info, i),
        6 => run(sel, key, v, |a: T, b: T| a + b, out, info, i),
        _ => {}
    }
}

/// As [`api_collective_integer`] for floating-point types, `op` 0 plus,
/// 1 less, 2 greater, 6 the closure `|a, b| a + b`.
#[kernel(instances(api_collective_f32 = <f32>, api_collective_f64 = <f64>))]
pub fn api_collective_float<T: Pod + Add<Output = T> + PartialOrd>(
    input: &[u32],
    keys: &[u32],
    out: *mut u32,
    info: *mut u32,
    sel: u32,
    op: u32,
) {
    let i = index();
    let key = Key(keys[i]);
    let v = load::<T>(input, i);
    match op {
        0 => run(sel, key, v, Plus, out, info, i),
        1 => run(sel, key, v, Less, out, info, i),
        2 => run(sel, key, v, Greater, out, info, i),
        6 => run(sel, key, v, |a: T, b: T| a + b, out, info, i),
        _ => {}
    }
}

/// Structs with closures: `op` 0 composes [`Affine`] maps (2 words per
/// value, [`then`]), `op` 1 merges [`Stats`] (3 words per value,
/// [`merge`]).
#[kernel]
pub fn api_collective_struct(
    input: &[u32],
    keys: &[u32],
    out: *mut u32,
    info: *mut u32,
    sel: u32,
    op: u32,
) {
    let i = index();
    let key = Key(keys[i]);
    match op {
        0 => run(sel, key, load::<Affine>(input, i), then, out, info, i),
        1 => run(sel, key, load::<Stats>(input, i), merge, out, info, i),
        _ => {}
    }
}

/// Per thread, 4 words of `out`: `block_reduce` of `input[i]` with `op`
/// (as [`api_collective_integer`]), then, on the same scratch with no barrier
/// between, `block_reduce` of `input[i] ^ 0x5555_5555` with `Plus`, then
/// the composition of the block's [`Affine`] maps `{ a: input[i] | 1, b:
/// input[i] >> 7 }` in rank order; `out_wide[i]`: `block_reduce` of
/// `wide[i]` with plus, less, greater for `op % 3` = 0, 1, 2.
#[kernel]
pub fn api_block_reduce(input: &[u32], wide: &[f64], out: *mut u32, out_wide: *mut f64, op: u32) {
    let block = this_thread_block();
    let words = block_scratch!(u32);
    let i = index();
    let v = input[i];
    let first = match op {
        0 => block_reduce(&block, &words, v, Plus),
        1 => block_reduce(&block, &words, v, Less),
        2 => block_reduce(&block, &words, v, Greater),
        3 => block_reduce(&block, &words, v, BitAnd),
        4 => block_reduce(&block, &words, v, BitOr),
        5 => block_reduce(&block, &words, v, BitXor),
        _ => block_reduce(&block, &words, v, |a: u32, b: u32| a.wrapping_add(b)),
    };
    let second = block_reduce(&block, &words, v ^ 0x5555_5555, Plus);
    let map = block_reduce(
        &block,
        &block_scratch!(Affine),
        Affine {
            a: v | 1,
            b: v >> 7,
        },
        then,
    );
    store(out, i, [first, second, map.a, map.b]);
    let w = wide[i];
    let wides = block_scratch!(f64);
    let total = match op % 3 {
        0 => block_reduce(&block, &wides, w, Plus),
        1 => block_reduce(&block, &wides, w, Less),
        _ => block_reduce(&block, &wides, w, Greater),
    };
    // SAFETY: `out_wide` holds one value per thread of the grid (the test's
    // launch): this thread's own slot.
    unsafe { *out_wide.add(i) = total };
}

struct InvokeOne(*mut u32);

impl Probe for InvokeOne {
    type Out = u32;

    #[inline(always)]
    fn group<G: WarpGroup>(&self, g: &G) -> u32 {
        // SAFETY: `counters` holds two u32 counters used only atomically.
        let (tickets, calls) = unsafe {
            (
                AtomicU32::from_ptr(self.0),
                AtomicU32::from_ptr(self.0.add(1)),
            )
        };
        let ticket = invoke_one_broadcast(g, || tickets.fetch_add(1, Ordering::Relaxed));
        invoke_one(g, || {
            calls.fetch_add(1, Ordering::Relaxed);
        });
        ticket
    }
}

/// `out[i]`: the ticket `invoke_one_broadcast` handed the group (one
/// `fetch_add` on `counters[0]` per group); `invoke_one` adds 1 to
/// `counters[1]` once per group; `info` gets the group.
#[kernel]
pub fn api_invoke_one(keys: &[u32], counters: *mut u32, out: *mut u32, info: *mut u32, sel: u32) {
    let i = index();
    let key = Key(keys[i]);
    if let Some(t) = with_group(sel, key, &InvokeOne(counters), info, i) {
        // SAFETY: `out` holds one value per thread of the grid (the test's
        // launch): this thread's own slot.
        unsafe { *out.add(i) = t };
    }
}
