//! Safe outputs and the loops that are fast.

use cg_core::prelude::*;

// ANCHOR: saxpy
/// `out[i] = a * x[i] + y[i]` over the shorter input, in a grid-stride
/// loop over the output: each thread gets the elements `rank, rank +
/// stride, ...` as `&mut f32`, with no `unsafe` and no bounds check per
/// element.
#[kernel]
pub fn guide_saxpy(a: f32, x: &[f32], y: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let y = &y[..x.len()]; // one check: y is at least as long as x
    out.truncate(x.len());
    for (i, o) in out.grid_stride(&grid) {
        *o = a * x[i] + y[i];
    }
}
// ANCHOR_END: saxpy

// ANCHOR: chunk_sums
/// `sums[c]` is the (wrapping) sum of chunk `c` of `input`, chunks of
/// `len` elements: the blocks take the chunks in a grid-stride loop
/// (`block_chunks` of one output element each), the block's threads read
/// their chunk in a block-stride loop, reduce, and the block writes its
/// one element.
#[kernel]
pub fn guide_chunk_sums(input: &[u32], len: u32, mut sums: Output<u32, Chunks>) {
    let block = this_thread_block();
    let scratch = block_scratch!(u32);
    let len = len as usize;
    sums.truncate(input.len().div_ceil(len));
    for sum in sums.block_chunks(&block, Const::<1>) {
        let first = sum.start() * len;
        let part = &input[first..input.len().min(first + len)];
        let mut x = 0u32;
        for j in block.stride(part.len()) {
            x = x.wrapping_add(part[j]);
        }
        let total = block_reduce(&block, &scratch, x, Plus);
        sum.for_thread(|s, _| *s = total);
    }
}
// ANCHOR_END: chunk_sums
