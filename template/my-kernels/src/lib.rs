//! The kernels of my-app. An ordinary `no_std` library: `cooperative_groups`'s
//! builder (my-app/build.rs) compiles it to PTX and gives every `#[kernel]`
//! a typed launch handle on the host.
#![no_std]

use cg_core::prelude::*;

/// `out[i] = a * x[i] + y[i]`, one element per thread.
#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &[f32], out: *mut f32) {
    let i = this_grid().thread_rank() as usize;
    if i < x.len() && i < y.len() {
        // SAFETY: the caller passes an `out` of at least `x.len()` elements
        // (my-app's `saxpy` does), and only thread `i` writes element `i`.
        unsafe { *out.add(i) = a * x[i] + y[i] };
    }
}

/// Counts the positive elements of `input`: each tile of 32 threads sums
/// its flags with `reduce` (one `redux.sync`), and its first thread adds the
/// tile's count to `count[0]`.
#[kernel]
pub fn count_positive(input: &[f32], count: *mut u32) {
    let block = this_thread_block();
    let tile = tiled_partition::<32>(&block);
    let i = this_grid().thread_rank() as usize;
    let positive = (i < input.len() && input[i] > 0.0) as u32;
    let n = reduce(&tile, positive, Plus);
    if tile.thread_rank() == 0 && n > 0 {
        // SAFETY: `count` points to at least one u32 (the host allocates it).
        unsafe { cg_core::atomic::atomic_add_u32(count, n) };
    }
}
