//! Whole-array sums to one scalar: in one cooperative kernel with
//! `grid.sync()` (plain and vectorised), in two launches, and with one
//! atomic add per element.

use crate::block_reduce::{block_sum, write_block_result};
use cg_core::atomic::atomic_add_f32;
use cg_core::prelude::*;

/// After each thread has its partial `v`: block sums to `partials`,
/// `grid.sync()`, block 0 adds the partials into `out[0]`.
#[inline(always)]
fn finish_grid_sum(
    grid: &GridGroup,
    block: &ThreadBlock,
    v: f32,
    partials: *mut f32,
    out: *mut f32,
) {
    let s = block_sum(block, v);
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
        let s = block_sum(block, v);
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
    finish_grid_sum(&grid, &block, v, partials, out);
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

/// `out[0] = sum(input)` at memory speed: 16-byte loads, two of them in
/// flight per thread per iteration, then the cooperative finish.
#[kernel(cooperative)]
pub fn grid_sum_vec4(input: &[f32], partials: *mut f32, out: *mut f32) {
    let grid = this_grid();
    let block = this_thread_block();
    let n = input.len();
    let stride = grid.num_threads() as usize;
    let rank = grid.thread_rank() as usize;
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
    finish_grid_sum(&grid, &block, a + b, partials, out);
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
    let s = block_sum(&block, v);
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
