//! A histogram in each block's shared memory, counted with block-scope
//! shared-memory atomics: the baseline of the cluster histogram.

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;

/// Bins of [`shared_histogram`]: the cluster histogram's 8192, in one
/// block's shared memory (32 KiB).
pub const SHARED_HISTOGRAM_BINS: usize = 8192;

/// The same histogram as the cluster sample's `cluster_histogram`, without a cluster: every
/// block counts into all 8192 bins in its own shared memory
/// (`red.relaxed.cta.shared.add.u32`), then adds its non-zero bins into
/// `bins` (`red.relaxed.gpu.global.add.u32`). Values of 8192 and above
/// fall in no bin and are not counted (as in CUB's `DeviceHistogram`).
#[kernel(grid_1d)]
pub fn shared_histogram(values: &[u32], bins: AtomicSlice<u32>) {
    let block = this_thread_block();
    let local = shared_array!(u32; SHARED_HISTOGRAM_BINS);
    for b in block.stride(SHARED_HISTOGRAM_BINS) {
        local.set(b, 0);
    }
    block.sync();
    for i in this_grid().stride(values.len()) {
        if let Some(bin) = local.get_atomic(values[i] as usize) {
            bin.add(1, Ordering::Relaxed);
        }
    }
    block.sync();
    let bins = bins.prefix(SHARED_HISTOGRAM_BINS);
    for b in block.stride(SHARED_HISTOGRAM_BINS) {
        let n = local.get(b);
        if n != 0 {
            bins.at(b).add(n, Ordering::Relaxed);
        }
    }
}
