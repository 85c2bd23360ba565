//! Whole-array sums to one scalar: in one cooperative kernel with
//! `grid.sync()` (plain and vectorised), in one ordinary launch whose last
//! block adds the partials, in two launches, and with one atomic add per
//! element.

use crate::block_reduce::{block_sum, write_block_result, WarpTotals};
use cg_core::atomic::{atomic_add_f32, fence, AtomicRef, Device, Ordering};
use cg_core::prelude::*;

/// After each thread has its partial `v`: block sums to `partials`,
/// `grid.sync()`, block 0 adds the partials into `out[0]`. Both block sums
/// use `totals`, with the grid barrier between them.
#[inline(always)]
fn finish_grid_sum(
    grid: &GridGroup,
    block: &ThreadBlock,
    totals: &WarpTotals,
    v: f32,
    partials: *mut f32,
    out: *mut f32,
) {
    let s = block_sum(block, totals, v);
    if block.thread_rank() == 0 {
        unsafe { *partials.add(grid.block_rank() as usize) = s };
    }
    grid.sync();
    if grid.block_rank() == 0 {
        let nb = grid.num_blocks();
        let mut j = block.thread_rank();
        let mut v = 0.0f32;
        while j < nb {
            v += unsafe { *partials.add(j as usize) };
            j += block.num_threads();
        }
        let s = block_sum(block, totals, v);
        if block.thread_rank() == 0 {
            unsafe { *out = s };
        }
    }
}

/// `out[0] = sum(input)`: each thread sums a grid-stride slice, one load at
/// a time (the seed's kernel). `partials` holds one value per block.
#[kernel(cooperative)]
pub fn grid_sum(input: &[f32], partials: *mut f32, out: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let n = input.len();
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    let mut v = 0.0f32;
    while i < n {
        v += unsafe { *input.get_unchecked(i) };
        i += stride;
    }
    finish_grid_sum(&grid, &block, &shared_array!(f32; 32), v, partials, out);
}

/// Four floats, 16-byte aligned: one `ld.global.v4.f32`.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct F4([f32; 4]);

impl F4 {
    #[inline(always)]
    fn sum(self) -> f32 {
        (self.0[0] + self.0[1]) + (self.0[2] + self.0[3])
    }
}

/// This thread's part of `sum(input)` at memory speed: 16-byte loads, two
/// of them in flight per iteration, over a grid-stride walk (`rank` of
/// `stride` threads).
#[inline(always)]
fn vec4_partial(input: &[f32], rank: usize, stride: usize) -> f32 {
    let n = input.len();
    let (mut a, mut b) = (0.0f32, 0.0f32);
    // Device allocations are 256-byte aligned; anything else takes the
    // scalar path below for every element.
    let n4 = if (input.as_ptr() as usize) % 16 == 0 {
        n / 4
    } else {
        0
    };
    let v4 = input.as_ptr() as *const F4;
    let mut i = rank;
    while i + stride < n4 {
        let (x, y) = unsafe { (*v4.add(i), *v4.add(i + stride)) };
        a += x.sum();
        b += y.sum();
        i += 2 * stride;
    }
    if i < n4 {
        a += unsafe { *v4.add(i) }.sum();
    }
    let mut t = 4 * n4 + rank;
    while t < n {
        b += unsafe { *input.get_unchecked(t) };
        t += stride;
    }
    a + b
}

/// `out[0] = sum(input)` at memory speed: 16-byte loads, two of them in
/// flight per thread per iteration, then the cooperative finish.
#[kernel(cooperative)]
pub fn grid_sum_vec4(input: &[f32], partials: *mut f32, out: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    finish_grid_sum(&grid, &block, &shared_array!(f32; 32), v, partials, out);
}

/// `out[0] = sum(input)` in one ordinary launch: the 16-byte partials of
/// [`grid_sum_vec4`], block sums to `partials`, and the last block to
/// finish (the one that takes the last ticket of `counter`, a
/// `fetch_add(AcqRel)`) adds them up and resets `counter` to 0 (CUDA's
/// "threadFenceReduction"). `counter` is 0 before the first launch.
#[kernel]
pub fn sum_last_block(input: &[f32], partials: *mut f32, counter: *mut u32, out: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    // Both block sums use `totals`, with the barrier before `last` is read
    // between them.
    let totals = shared_array!(f32; 32);
    let s = block_sum(&block, &totals, v);
    let last = shared_array!(u32; 1);
    let nb = grid.num_blocks();
    // SAFETY: `counter` is one u32, touched only atomically.
    let tickets = unsafe { AtomicRef::<u32>::from_ptr(counter) };
    if block.thread_rank() == 0 {
        unsafe { *partials.add(grid.block_rank() as usize) = s };
        // Release: this block's partial is visible to whoever acquires a
        // later ticket; acquire: the last block sees every partial.
        let ticket = tickets.fetch_add(1, Ordering::AcqRel);
        last.set(0, (ticket == nb - 1) as u32);
    }
    block.sync();
    if last.get(0) != 0 {
        fence::<Device>(Ordering::Acquire);
        let mut j = block.thread_rank();
        let mut v = 0.0f32;
        while j < nb {
            v += unsafe { *partials.add(j as usize) };
            j += block.num_threads();
        }
        let s = block_sum(&block, &totals, v);
        if block.thread_rank() == 0 {
            unsafe { *out = s };
            tickets.store(0, Ordering::Relaxed);
        }
    }
}

/// First launch of the two-launch sum: the 16-byte grid-stride partials
/// of [`grid_sum_vec4`] on a grid that fills the GPU once, one block sum per
/// block into `partials`.
#[kernel]
pub fn sum_block_partials(input: &[f32], partials: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let v = vec4_partial(
        input,
        grid.thread_rank() as usize,
        grid.num_threads() as usize,
    );
    let s = block_sum(&block, &shared_array!(f32; 32), v);
    write_block_result(&block, partials, s);
}

/// Second launch of the two-launch sum: one block adds the block partials
/// into `out[0]`.
#[kernel]
pub fn sum_partials(partials: &[f32], out: *mut f32) {
    let block = this_thread_block();
    let mut j = block.thread_rank() as usize;
    let mut v = 0.0f32;
    while j < partials.len() {
        v += unsafe { *partials.get_unchecked(j) };
        j += block.num_threads() as usize;
    }
    let s = block_sum(&block, &shared_array!(f32; 32), v);
    write_block_result(&block, out, s);
}

/// `out[0] += input[i]` by every thread, atomically: the baseline.
#[kernel]
pub fn sum_atomic(input: &[f32], out: *mut f32) {
    let block = this_thread_block();
    let i = block.group_index().x as usize * block.num_threads() as usize
        + block.thread_rank() as usize;
    if i < input.len() {
        unsafe { atomic_add_f32(out, *input.get_unchecked(i)) };
    }
}
