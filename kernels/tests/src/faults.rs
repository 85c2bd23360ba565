//! Kernels that stop on purpose, for the fault tests (`tests/gpu_faults.rs`):
//! each stops in the thread whose grid rank is `bad` (or in every thread
//! past an end), so that a test can check that the host reports the right
//! file, line, column, block and thread. The lines marked `// FAULT:` are
//! the ones the tests look for; a thread that does not stop writes its rank.

use cg_core::prelude::*;

/// Thread `bad` indexes `input` one past its end: a bounds-check panic.
#[kernel]
pub fn fault_index_past_end(input: &[u32], out: *mut u32, bad: u32) {
    let i = this_grid().thread_rank() as u32;
    let j = if i == bad { input.len() } else { 0 };
    let v = input[j]; // FAULT: index

    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot. (The planted fault is the read of `input` above.)
    unsafe { *out.add(i as usize) = v + i };
}

/// Thread `bad` unwraps a `None`.
#[kernel]
pub fn fault_unwrap_none(out: *mut u32, bad: u32) {
    let i = this_grid().thread_rank() as u32;
    let found = (i != bad).then_some(i);
    let v = found.unwrap(); // FAULT: unwrap

    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot.
    unsafe { *out.add(i as usize) = v };
}

/// Thread `bad` fails an `assert!`.
#[kernel]
pub fn fault_assert(out: *mut u32, bad: u32) {
    let i = this_grid().thread_rank() as u32;
    assert!(i != bad); // FAULT: assert

    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot.
    unsafe { *out.add(i as usize) = i };
}

/// Every thread at or past `n` indexes `input` past its end (`n` is its
/// length): many threads panic at once, and one record must come back whole.
#[kernel]
pub fn fault_many_threads(input: &[u32], out: *mut u32) {
    let i = this_grid().thread_rank() as usize;
    let v = input[i]; // FAULT: many

    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot.
    unsafe { *out.add(i) = v };
}

/// Thread `bad` stores through a raw pointer `offset` elements past `out`
/// (far enough to leave every allocation): an illegal address.
#[kernel]
pub fn fault_wild_write(out: *mut u32, bad: u32, offset: u64) {
    let i = this_grid().thread_rank() as u32;
    let at = if i == bad {
        offset as usize
    } else {
        i as usize
    };
    // SAFETY: none for thread `bad`, on purpose: `at` is far past the end of
    // `out`, the illegal address the test expects the GPU to report. The other
    // threads write their own slot of `out`, which holds one value per thread.
    unsafe { core::ptr::write_volatile(out.wrapping_add(at), i) }; // FAULT: wild
}

/// Splits the block into run-time tiles of `size` threads: cg-core's check
/// stops the kernel when `size` is not a power of two up to 32.
#[kernel]
pub fn fault_tile_size(out: *mut u32, size: u32) {
    let block = this_thread_block();
    let tile = tiled_partition_dynamic(&block, size);
    let i = this_grid().thread_rank() as usize;
    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot.
    unsafe { *out.add(i) = tile.thread_rank() };
}

/// Reads, in a block's rounds, an input shorter than the chunk: the check
/// of `Rounds::reading` stops the kernel, naming this line.
#[kernel]
pub fn fault_rounds_reading(input: &[u32], mut out: Output<u32, Chunks>) {
    let block = this_thread_block();
    if let Some(c) = out.block_chunk(&block, Const::<64>) {
        c.block_rounds()
            .reading(input) // FAULT: reading
            .for_each(|round| {
                if let (Some(v), Some(x)) = (round.input, round.value) {
                    *x = v;
                }
            });
    }
}

/// Releases a stage of a pipeline that holds none: cg-core's pipeline
/// check stops the kernel, naming this line.
#[kernel]
pub fn fault_pipeline_release(out: *mut u32) {
    let mut pipe = make_pipeline::<2>();
    pipe.consumer_release(); // FAULT: pipeline
    let i = this_grid().thread_rank() as usize;
    // SAFETY: `out` holds one value per thread of the grid (the test's launch):
    // this thread's own slot.
    unsafe { *out.add(i) = i as u32 };
}
