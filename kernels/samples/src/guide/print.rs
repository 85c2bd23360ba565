//! Printing from a kernel.

use cg_core::prelude::*;
use cg_core::println;

// ANCHOR: show
/// Each thread below `x.len()` prints its element in three forms.
#[kernel]
pub fn guide_show(x: &[f32]) {
    let i = this_grid().thread_rank() as usize;
    if i < x.len() {
        println!(
            "thread {i}: x = {}, {:.3}, bits {:#x}",
            x[i],
            x[i],
            x[i].to_bits()
        );
    }
}
// ANCHOR_END: show
