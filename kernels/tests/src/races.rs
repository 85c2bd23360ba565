//! Kernels without `unsafe` that break the promise of the output patterns
//! (no two threads reach one element) in the ways the types do not catch,
//! one per way: the simulator must report each (`tests/sim_races.rs`),
//! naming the lines marked `// RACE:`. Beside them, the same kernels with
//! what makes them correct, which it must not report.

use cg_core::prelude::*;

/// Two patterns in one phase: thread 1 (`for_thread`) and block 1's
/// leader (`for_leader`) both reach `out[1]`.
#[kernel]
pub fn race_mixed_patterns(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1); // RACE: mixed thread
    out.for_leader(&block, |y| *y = 2); // RACE: mixed leader
}

/// The same two patterns with a grid barrier between them.
#[kernel(cooperative)]
pub fn race_mixed_patterns_synced(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1);
    let mut out = out.sync(&grid).into_output(&grid);
    out.for_leader(&block, |y| *y = 2);
}

/// A write by one pattern and a read through another: each block's
/// leader writes its element, then each tile's leader reads its tile's
/// element, which for tile 1 of block 0 is block 1's.
#[kernel]
pub fn race_leader_then_tile_leader(mut out: Output<u32>, mut seen: Output<u32>) {
    let block = this_thread_block();
    let tile = tiled_partition::<32>(&block);
    out.for_leader(&block, |y| *y = block.group_index().x + 1); // RACE: block leader
    let mut v = 0;
    let element = out.leader_element(&tile); // RACE: tile leader
    if let Some(y) = element {
        v = *y;
    }
    seen.for_thread(&this_grid(), |s| *s = v);
}

/// Within one block, two patterns separated by a block barrier: ordered
/// (in a launch of one block; tile leaders of other blocks would reach
/// elements block 0 wrote).
#[kernel]
pub fn race_patterns_across_a_block_barrier(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1);
    block.sync();
    out.for_leader(&tiled_partition::<32>(&block), |y| *y += 1);
}

/// `block_chunk`'s length depends on the block: block 1's chunk starts
/// inside block 0's.
#[kernel]
pub fn race_chunk_len_per_block(mut out: Output<u32>, len: u32) {
    let block = this_thread_block();
    let len = len + this_grid().block_rank(); // a length per block
    let chunk = out.block_chunk(&block, len as usize); // RACE: chunk
    if let Some(chunk) = chunk {
        chunk.for_thread(|y, j| *y = j as u32);
    }
}

/// `thread_element_2d`'s width depends on the thread: two threads get one
/// element.
#[kernel]
pub fn race_width_per_thread(mut out: Output<u32>, width: u32) {
    let grid = this_grid();
    let width = width + (grid.thread_rank() % 2) as u32;
    let element = out.thread_element_2d(&grid, width as usize); // RACE: width
    if let Some(y) = element {
        *y = 1;
    }
}

/// A window whose columns depend on the block.
#[kernel]
pub fn race_window_per_block(mut out: Output<u32>, width: u32, rows: u32) {
    let grid = this_grid();
    let x = 0..width - grid.block_rank() % 2;
    let window = Window {
        width,
        x,
        y: 0..rows,
    };
    let points = out.grid_stride_window(&grid, window); // RACE: window
    for (_, y) in points {
        *y = 1;
    }
}

/// A walk whose rows depend on the thread.
#[kernel]
pub fn race_walk_per_thread(mut out: Output<u32>, width: u32, rows: u32) {
    let grid = this_grid();
    let y = (grid.thread_rank() % 2) as u32..rows;
    let window = Window {
        width,
        x: 0..width,
        y,
    };
    let walk = Walk::new(&grid, window); // RACE: walk
    out.walk(&walk).for_each(|(_, y)| *y = 1);
}

/// A stencil sweep whose width depends on the block.
#[kernel]
pub fn race_stencil_per_block(src: &[f32], mut dst: Output<f32>, nx: u32, ny: u32) {
    let grid = this_grid();
    let nx = nx - grid.block_rank() % 2;
    let sweep = dst.grid_stride_stencil(&grid, src, nx, ny); // RACE: stencil
    sweep.for_each(|(n, u)| *u = n.west() + n.east());
}

/// A stencil walk whose height depends on the block.
#[kernel]
pub fn race_stencil_walk_per_block(src: &[f32], mut dst: Output<f32>, nx: u32, ny: u32) {
    let grid = this_grid();
    let ny = ny - grid.block_rank() % 2;
    let walk = StencilWalk::new(&grid, nx, ny); // RACE: stencil walk
    dst.stencil(&walk, src)
        .for_each(|(n, u)| *u = n.north() + n.south());
}

/// A barrier outside the phase types: block 0 makes `out` readable and
/// reads its neighbour's element, the other blocks pass a raw grid
/// barrier and keep writing.
#[kernel(cooperative)]
pub fn race_sync_in_one_branch(mut out: Output<u32>, mut seen: Output<u32>) {
    let grid = this_grid();
    out.for_thread(&grid, |y| *y = 1);
    if grid.block_rank() == 0 {
        let read = out.sync(&grid); // RACE: branch sync
        let n = read.len();
        let v = read[(grid.thread_rank() as usize + 64) % n];
        seen.for_thread(&grid, |s| *s = v);
    } else {
        grid.sync(); // RACE: branch raw
        out.for_thread(&grid, |y| *y = 2);
    }
}
