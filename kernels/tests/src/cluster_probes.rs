//! Probes of thread-block clusters (sm_90): every query of a cluster group,
//! and the grid barrier inside a cooperative cluster launch.
//! Compiled only into modules for sm_90 and newer.

use cg_core::cluster::this_cluster;
use cg_core::prelude::*;

/// Per thread, 8 words: cluster `num_blocks`, `block_rank`, `block_index`
/// (x, y, z), `thread_rank`, `num_threads`, and the cluster's linear index
/// in the grid of clusters; indexed by grid thread rank. Launched with a
/// run-time cluster shape.
#[kernel(cluster)]
pub fn probe_cluster(out: *mut u32) {
    let cluster = this_cluster();
    let r = this_grid().thread_rank() as usize * 8;
    let b = cluster.block_index();
    let (c, dc) = (cluster.cluster_index(), cluster.dim_clusters());
    let words = [
        cluster.num_blocks(),
        cluster.block_rank(),
        b.x,
        b.y,
        b.z,
        cluster.thread_rank(),
        cluster.num_threads(),
        dc.linear(c),
    ];
    for (k, w) in words.into_iter().enumerate() {
        // SAFETY: `out` holds 8 words per thread of the grid (the test's
        // launch): this thread's own 8, `r..r + 8`.
        unsafe { *out.add(r + k) = w };
    }
    cluster.sync();
}

/// Cooperative and clustered at once: phase 1 writes `scratch[i]`, then
/// `grid.sync()` and `cluster.sync()`; phase 2 reads a value written by
/// another block of the grid and adds this block's cluster rank:
/// `out[i] = scratch[(i + 1) % n] + cluster.block_rank()`.
#[kernel(cooperative, cluster(2))]
pub fn probe_cluster_grid(scratch: *mut u32, out: *mut u32, n: u32) {
    let grid = this_grid();
    let cluster = this_cluster();
    let i = grid.thread_rank() as u32;
    if i < n {
        // SAFETY: `scratch` holds `n` values (the test's launch) and `i < n`:
        // this thread's own slot, read by others only after the grid barrier
        // below.
        unsafe { *scratch.add(i as usize) = i.wrapping_mul(2_654_435_761) };
    }
    grid.sync();
    cluster.sync();
    if i < n {
        // SAFETY: `out` and `scratch` hold `n` values and `i < n`: this
        // thread's own slot of `out`; every slot of `scratch` was written
        // before the grid barrier above.
        unsafe {
            *out.add(i as usize) = *scratch.add(((i + 1) % n) as usize) + cluster.block_rank()
        };
    }
}
