//! Thread-block cluster kernels (sm_90): the seed's
//! neighbour sum through distributed shared memory, a cluster-wide
//! reduction, and a histogram whose bins are spread over the cluster's
//! shared memory.
//! Compiled only into modules for sm_90 and newer.

use crate::block_reduce::{block_element, block_sum};
use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::cluster::this_cluster;
use cg_core::prelude::*;

/// The seed's cluster kernel: `out[i] = data[i] + data[j]`, where `j` is
/// the same thread of the next block of the cluster (rank + 1, wrapping),
/// read from that block's shared memory. Blocks of at most 1024 threads.
#[kernel(cluster(2), grid_1d)]
pub fn cluster_neighbour_sum(data: &[f32], mut out: Output<f32>) {
    let cluster = this_cluster();
    let block = this_thread_block();
    let local = shared_array!(f32; 1024);
    let t = block.thread_rank() as usize;
    local.set(t, block_element(&block, data));
    cluster.sync();
    let peer = cluster.map_shared_rank(&local, (cluster.block_rank() + 1) % cluster.num_blocks());
    out.for_thread(&this_grid(), |o| *o = local.get(t) + peer.get(t));
    // No block may leave while a neighbour still reads its shared memory.
    cluster.sync();
}

/// One sum per cluster of 4 blocks: each block reduces its elements, block
/// rank r writes its total into slot r of block 0's shared memory, and
/// block 0 adds the slots. `cluster_sums[c]` for cluster `c`.
///
/// A block may touch another block's shared memory only once that block
/// has started: the split barrier's arrive/wait brackets the block's own
/// reduction, so waiting for the others costs little.
#[kernel(cluster(4), grid_1d)]
pub fn cluster_reduce(input: &[f32], mut cluster_sums: Output<f32, Leaders<ClusterGroup>>) {
    let cluster = this_cluster();
    let block = this_thread_block();
    let slots = shared_array!(f32; 8);
    let started = cluster.barrier_arrive();
    let totals = shared_array!(f32; 32);
    let s = block_sum(&block, &totals, block_element(&block, input));
    cluster.barrier_wait(started);
    if block.thread_rank() == 0 {
        cluster
            .map_shared_rank(&slots, 0)
            .set(cluster.block_rank() as usize, s);
    }
    cluster.sync();
    if let Some(sum) = cluster_sums.leader_element(&cluster) {
        let mut total = 0.0f32;
        for r in 0..cluster.num_blocks() as usize {
            total += slots.get(r);
        }
        *sum = total;
    }
}

/// Bins per block of the cluster histogram.
pub const HISTOGRAM_BINS_PER_BLOCK: usize = 2048;

/// Histogram of `values` (each below `4 * 2048`) over clusters of 4 blocks:
/// bin `b` lives in the shared memory of block `b / 2048` of the cluster;
/// every thread adds its values' counts there (atomically, through
/// distributed shared memory), then each block adds its bins into `bins`.
#[kernel(cluster(4), grid_1d)]
pub fn cluster_histogram(values: &[u32], bins: AtomicSlice<u32>) {
    let cluster = this_cluster();
    let block = this_thread_block();
    let local = shared_array!(u32; HISTOGRAM_BINS_PER_BLOCK);
    for b in block.stride(HISTOGRAM_BINS_PER_BLOCK) {
        local.set(b, 0);
    }
    cluster.sync();
    for i in this_grid().stride(values.len()) {
        let v = values[i] as usize;
        let owner = cluster.map_shared_rank(&local, (v / HISTOGRAM_BINS_PER_BLOCK) as u32);
        owner.atomic_add(v % HISTOGRAM_BINS_PER_BLOCK, 1);
    }
    cluster.sync();
    let base = cluster.block_rank() as usize * HISTOGRAM_BINS_PER_BLOCK;
    let bins = bins.prefix(base + HISTOGRAM_BINS_PER_BLOCK);
    for b in block.stride(HISTOGRAM_BINS_PER_BLOCK) {
        let n = local.get(b);
        if n != 0 {
            bins.at(base + b).add(n, Ordering::Relaxed);
        }
    }
}
