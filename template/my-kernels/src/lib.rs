//! The kernels of my-app. An ordinary `no_std` library: `cooperative_groups`'s
//! builder (my-app/build.rs) compiles it to PTX and gives every `#[kernel]`
//! a typed launch handle on the host.
#![no_std]

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// `out[i] = a * x[i] + y[i]`, one element per thread. Each thread owns
/// one element of `out` (`thread_element`), so no `unsafe` is needed.
#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let i = grid.thread_rank() as usize;
    if let (Some(o), Some(&x), Some(&y)) = (out.thread_element(&grid), x.get(i), y.get(i)) {
        *o = a * x + y;
    }
}

/// Counts the positive elements of `input`: each tile of 32 threads sums
/// its flags with `reduce` (one `redux.sync`), and its first thread adds the
/// tile's count to `count[0]`.
#[kernel]
pub fn count_positive(input: &[f32], count: AtomicSlice<u32>) {
    let block = this_thread_block();
    let tile = tiled_partition::<32>(&block);
    let i = this_grid().thread_rank() as usize;
    let positive = (i < input.len() && input[i] > 0.0) as u32;
    let n = reduce(&tile, positive, Plus);
    if tile.thread_rank() == 0 && n > 0 {
        count.at(0).add(n, Ordering::Relaxed);
    }
}

/// Per warp, the sum of the `PER_THREAD * 32` elements its threads hold
/// (thread `i` adds `input[i * PER_THREAD ..][..PER_THREAD]`, then the warp
/// reduces with one `reduce`): `sums[w]` for warp `w` of the grid, written
/// by the warp's leader (`leader_element`). One
/// generic kernel and its instances, as CUDA's `template <typename T, int
/// PER_THREAD> __global__` with explicit instantiations: each instance is a
/// kernel of its own, with a typed handle of its own.
#[kernel(instances(
    warp_sums_u32_1 = <u32, 1>,
    warp_sums_u32_4 = <u32, 4>,
    warp_sums_i32_2 = <i32, 2>,
    warp_sums_u64_8 = <u64, 8>,
    warp_sums_f32_4 = <f32, 4>,
    warp_sums_f64_1 = <f64, 1>,
))]
pub fn warp_sums<T: Pod + core::ops::Add<Output = T>, const PER_THREAD: usize>(
    input: &[T],
    mut sums: Output<T, Leaders<ThreadBlockTile<32>>>,
) {
    let warp = tiled_partition::<32>(&this_thread_block());
    let i = this_grid().thread_rank() as usize;
    let mut own = T::zeroed();
    for k in 0..PER_THREAD {
        if let Some(&v) = input.get(i * PER_THREAD + k) {
            own = own + v;
        }
    }
    let total = reduce(&warp, own, Plus);
    let w = i / 32;
    if w * 32 * PER_THREAD < input.len() {
        if let Some(sum) = sums.leader_element(&warp) {
            *sum = total;
        }
    }
}
