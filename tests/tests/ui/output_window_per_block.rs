// A window, a walk or a stencil whose size depends on the block or thread
// hands one point to two threads. Their sizes must be `Uniform`.
use cg_core::prelude::*;

fn windows(mut out: Output<f32, Points>, src: &[f32], nx: Uniform<u32>, ny: Uniform<u32>) {
    let grid = this_grid();
    let narrower = nx.get() - grid.block_rank() % 2;
    let window = Window::interior(narrower, ny);
    let walk = StencilWalk::new(&grid, nx, ny.get() - grid.block_rank() % 2);
    out.grid_stride_stencil(&grid, src, narrower, ny)
        .for_each(|(n, u)| *u = n.west());
    let _ = (window, walk);
}

fn main() {}
