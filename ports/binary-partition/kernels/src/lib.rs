//! The odd/even count and sum of CUDA's `binaryPartitionCG` sample, as a
//! Rust user writes it: in a grid-stride loop each warp splits by the
//! parity of its elements with `binary_partition`, each part sums its
//! elements with `reduce`, and the part's first thread adds the part's
//! count and sum to the totals with one atomic add each.
#![no_std]
#![warn(missing_docs)]

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// Counts the odd elements of `input` into `odd_count[0]` and sums the odd
/// ones into `sums[0]` and the even ones into `sums[1]` (wrapping), added
/// to what is there. Launch whole warps; `input.len()` a multiple of 32
/// (every warp's lanes take every round of the loop together, as
/// `binary_partition` of a whole warp needs).
#[kernel]
pub fn odd_even_count_and_sum(input: &[i32], odd_count: AtomicSlice<u32>, sums: AtomicSlice<i32>) {
    let grid = this_grid();
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    for i in grid.stride(input.len()) {
        let elem = input[i];
        let odd = elem & 1 != 0;
        let part = binary_partition(&warp, odd);
        if odd {
            let part_sum = reduce(&part, elem, Plus);
            if part.thread_rank() == 0 {
                odd_count.at(0).add(part.num_threads(), Ordering::Relaxed);
                sums.at(0).add(part_sum, Ordering::Relaxed);
            }
        } else {
            let part_sum = reduce(&part, elem, Plus);
            if part.thread_rank() == 0 {
                sums.at(1).add(part_sum, Ordering::Relaxed);
            }
        }
        warp.sync();
    }
}
