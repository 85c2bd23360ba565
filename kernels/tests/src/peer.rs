//! A kernel that is still running when the host touches its output: for
//! the tests that the host waits for a kernel on another GPU before it
//! reads, writes or frees a buffer that kernel uses (tests/gpu_peer_waits.rs).

use cg_core::clock::globaltimer;
use cg_core::prelude::*;

/// Every thread spins for `ns` nanoseconds of the GPU's clock, then the
/// grid writes `value + i` to element `i` of `out`.
#[kernel]
pub fn slow_fill(ns: u64, value: u32, mut out: Output<u32>) {
    let grid = this_grid();
    let start = globaltimer();
    while globaltimer().wrapping_sub(start) < ns {}
    out.grid_stride(&grid)
        .for_each(|(i, x)| *x = value.wrapping_add(i as u32));
}
