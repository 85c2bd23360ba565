//! Atomics: a histogram.

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

// ANCHOR: histogram
/// `bins[v % bins.len()] += 1` for every value `v` of `values`, in a
/// grid-stride loop (`bins` is zeroed before the launch).
#[kernel]
pub fn guide_histogram(values: &[u32], bins: AtomicSlice<u32>) {
    let grid = this_grid();
    let n = bins.len();
    for i in grid.stride(values.len()) {
        if let Some(bin) = bins.get(values[i] as usize % n) {
            bin.add(1, Ordering::Relaxed);
        }
    }
}
// ANCHOR_END: histogram
