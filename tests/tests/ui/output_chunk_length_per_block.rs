// A chunk length that depends on the block makes chunks overlap: block 1's
// chunk would start inside block 0's. The length must be a `Uniform`.
use cg_core::prelude::*;

fn chunks(mut out: Output<u32, Chunks>, len: Uniform<u32>) {
    let block = this_thread_block();
    let len = len.get() + this_grid().block_rank();
    if let Some(chunk) = out.block_chunk(&block, len as usize) {
        chunk.for_thread(|y, j| *y = j as u32);
    }
}

fn main() {}
