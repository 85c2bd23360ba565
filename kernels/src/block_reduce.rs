//! Block-wide sum: each warp reduces with `shfl_down` on a 32-thread tile,
//! warp leaders meet in shared memory, the first warp finishes.

use cg_core::prelude::*;

/// Sum of `v` over the calling block, valid in thread 0 of the block. Every
/// thread of the block must call it; blocks of up to 1024 threads, a whole
/// number of warps.
#[inline(always)]
pub fn block_sum(block: &ThreadBlock, v: f32) -> f32 {
    let warp = tiled_partition::<32>(block);
    let partials = shared_array!(f32; 32);
    let mut v = warp_sum(&warp, v);
    if warp.thread_rank() == 0 {
        partials.set(warp.meta_group_rank() as usize, v);
    }
    block.sync();
    if warp.meta_group_rank() == 0 {
        v = if warp.thread_rank() < warp.meta_group_size() {
            partials.get(warp.thread_rank() as usize)
        } else {
            0.0
        };
        v = warp_sum(&warp, v);
    }
    v
}

/// Tree sum over a warp with `shfl_down`; the total lands in rank 0.
#[inline(always)]
pub fn warp_sum(warp: &ThreadBlockTile<32>, mut v: f32) -> f32 {
    let mut offset = 16;
    while offset > 0 {
        v += warp.shfl_down(v, offset);
        offset >>= 1;
    }
    v
}

/// One partial sum per block: `block_sums[b]` is the sum of
/// `input[b * blockDim .. (b + 1) * blockDim]` (clipped to the input).
#[kernel]
pub fn block_reduce_warp(input: &[f32], block_sums: *mut f32) {
    let block = this_thread_block();
    let b = block.group_index().x as usize;
    let i = b * block.num_threads() as usize + block.thread_rank() as usize;
    let v = if i < input.len() { input[i] } else { 0.0 };
    let s = block_sum(&block, v);
    if block.thread_rank() == 0 {
        unsafe { *block_sums.add(b) = s };
    }
}
