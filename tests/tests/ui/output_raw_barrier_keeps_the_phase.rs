// A raw `grid.sync()` does not move a buffer's phase: the buffer is still
// written in its pattern and cannot be read (only `out.sync(&grid)` makes
// the read view), nor given another pattern (only at a barrier of the
// buffer's own, `into_output_as`).
use cg_core::prelude::*;

fn phases(mut out: Output<u32>) -> u32 {
    let grid = this_grid();
    out.for_thread(&grid, |y| *y = 1);
    grid.sync();
    let leaders: Output<u32, Leaders<ThreadBlock>> = out;
    let _ = leaders;
    out[0]
}

fn main() {}
