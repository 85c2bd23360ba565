//! Shared memory and asynchronous copies.

use cg_core::prelude::*;

/// Elements per block of [`guide_reverse_chunks`].
pub const CHUNK: usize = 256;

// ANCHOR: reverse_chunks
/// `out` is `input` with each chunk of [`CHUNK`] elements reversed (a
/// last, shorter chunk too): each block copies its chunk into shared
/// memory with `memcpy_async`, waits, and writes it back reversed. Launch
/// blocks of `CHUNK` threads.
#[kernel]
pub fn guide_reverse_chunks(input: &[f32], mut out: Output<f32, Chunks>) {
    let block = this_thread_block();
    let buffer = shared_array!(f32; CHUNK);
    out.truncate(input.len());
    for chunk in out.block_chunks(&block, Const::<CHUNK>) {
        let start = chunk.start();
        let len = memcpy_async(&block, buffer.as_slice(), &input[start..]);
        wait(&block);
        chunk.for_thread(|o, t| *o = buffer.get(len - 1 - t));
        // The next chunk's copy overwrites what this one read.
        block.sync();
    }
}
// ANCHOR_END: reverse_chunks
