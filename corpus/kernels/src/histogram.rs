//! A 256-bin histogram of the top byte of each element: per block in
//! shared memory, then added to `bins` (zeroed by the host).

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

#[kernel]
pub fn histogram(x: &[u32], bins: AtomicSlice<u32>) {
    let grid = this_grid();
    let block = this_thread_block();
    let hist = shared_array!(u32; 256);

    for i in block.stride(256) {
        hist.set(i, 0);
    }
    block.sync();

    for i in grid.stride(x.len()) {
        hist.atomic((x[i] >> 24) as usize).add(1, Ordering::Relaxed);
    }
    block.sync();

    for i in block.stride(256) {
        let count = hist.get(i);
        if count != 0 {
            bins.at(i).add(count, Ordering::Relaxed);
        }
    }
}
