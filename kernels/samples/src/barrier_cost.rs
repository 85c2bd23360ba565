//! Barriers in a loop, to measure what one costs: time `iters` barriers,
//! subtract the time of none, divide.
//!
//! The kernels differ only in their group, so a `macro_rules!` macro
//! writes them; their host handles come from the `#[kernel]` records in the
//! PTX like any other kernel's.

use cg_core::prelude::*;

/// `$name(iters: u32, out: Output<u32>)`: `iters` barriers of the group
/// `$make` builds (from the block, `$block`), named `$group`; then the
/// thread for which `$first` holds writes `iters` to `out[0]`, so that the
/// loop stays.
macro_rules! barrier_cost {
    ($(#[$attr:meta])* $name:ident, |$block:ident, $group:ident| $make:expr, $first:expr) => {
        $(#[$attr])*
        pub fn $name(iters: u32, mut out: Output<u32>) {
            let $block = this_thread_block();
            let $group = $make;
            for _ in 0..iters {
                $group.sync();
            }
            if $first {
                if let Some(o) = out.thread_element(&this_grid()) {
                    *o = iters;
                }
            }
        }
    };
}

barrier_cost!(
    /// `iters` grid barriers (cooperative launch).
    #[kernel(cooperative)]
    barrier_cost_grid,
    |_block, grid| this_grid(),
    grid.thread_rank() == 0
);

barrier_cost!(
    /// `iters` multi-grid barriers: every GPU of a set (`GpuSet::launch`).
    #[kernel(multi_grid)]
    barrier_cost_multi_grid,
    |_block, mg| this_multi_grid(),
    mg.thread_rank() == 0
);

barrier_cost!(
    /// `iters` block barriers.
    #[kernel]
    barrier_cost_block,
    |block, group| &block,
    block.thread_rank() == 0 && block.group_index().x == 0
);

barrier_cost!(
    /// `iters` warp-tile barriers.
    #[kernel]
    barrier_cost_tile,
    |block, warp| tiled_partition::<32>(&block),
    block.thread_rank() == 0 && block.group_index().x == 0
);
