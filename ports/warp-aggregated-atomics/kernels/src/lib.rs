//! The warp-aggregated atomics of CUDA's `warpAggregatedAtomicsCG` sample,
//! as a Rust user writes them: the threads that take a branch together
//! form a `coalesced_threads()` group, its first thread takes slots for the
//! whole group with one atomic add and shares the first slot, and each
//! thread writes to its own slot; with `labeled_partition`, one atomic add
//! per group of threads with the same bucket.
#![no_std]
#![warn(missing_docs)]

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// A slot of `counter` for the calling thread: the threads running this
/// call together take consecutive slots with one atomic add.
#[inline(always)]
fn aggregated_increment(counter: &AtomicSlice<u32>) -> u32 {
    let active = coalesced_threads();
    let first = invoke_one_broadcast(&active, || {
        counter
            .at(0)
            .fetch_add(active.num_threads(), Ordering::Relaxed)
    });
    first + active.thread_rank()
}

/// A slot of `counters[bucket]` for the calling thread: the threads running
/// this call together with the same `bucket` take consecutive slots with
/// one atomic add.
#[inline(always)]
fn aggregated_increment_in(bucket: u32, counters: &AtomicSlice<u32>) -> u32 {
    let active = coalesced_threads();
    let same = labeled_partition(&active, bucket);
    let first = invoke_one_broadcast(&same, || {
        counters
            .at(bucket as usize)
            .fetch_add(same.num_threads(), Ordering::Relaxed)
    });
    first + same.thread_rank()
}

/// Stream compaction: the elements of `src` above zero land in `dst` (in no
/// particular order) and `count[0]` grows by their number. `count[0]` is 0
/// before the launch (else the elements land from there on).
///
/// A slot taken by an atomic add belongs to this thread, but `Output`'s
/// patterns cannot see that (they hand out elements by the thread's own
/// coordinates); `dst` is an `AtomicSlice` instead and each element is
/// written with a relaxed atomic store.
#[kernel]
pub fn filter_positive(src: &[i32], dst: AtomicSlice<i32>, count: AtomicSlice<u32>) {
    let grid = this_grid();
    for i in grid.stride(src.len()) {
        if src[i] > 0 {
            let slot = aggregated_increment(&count);
            dst.at(slot as usize).store(src[i], Ordering::Relaxed);
        }
    }
}

/// Places the index of every element of `src` below `counters.len()` (its
/// bucket) into `indices`, at the slot `counters[bucket]` gives it (the
/// counters start at each bucket's region of `indices`, and grow by the
/// number of elements in the bucket).
#[kernel]
pub fn map_to_buckets(src: &[u32], indices: AtomicSlice<u32>, counters: AtomicSlice<u32>) {
    let grid = this_grid();
    for i in grid.stride(src.len()) {
        let bucket = src[i];
        if (bucket as usize) < counters.len() {
            let slot = aggregated_increment_in(bucket, &counters);
            indices.at(slot as usize).store(i as u32, Ordering::Relaxed);
        }
    }
}
