//! Kernels that break the promise of the output patterns (no two threads
//! reach one element), one per way: the simulator must report each
//! (`tests/sim_races.rs`), naming the lines marked `// RACE:`. Beside
//! them, the same kernels with what makes them correct, which it must not
//! report.
//!
//! Most of these ways no longer compile in safe code (the pattern is the
//! `Output`'s type, the shaping arguments are `Uniform`:
//! `tests/ui/output_*.rs` are the compile-fail tests): here they are
//! planted through the `unsafe` escape hatches (`Output::into_pattern`,
//! `Uniform::new_unchecked`), breaking their contracts on purpose, so
//! that the simulator's check stays tested for what `unsafe` code can
//! still do. Two remain safe code and are the simulator's alone: a raw
//! grid barrier in one branch against `Output::sync` in the other, and
//! two uniform shapes of one pattern in one phase.

use cg_core::prelude::*;

/// Two patterns in one phase: thread 1 (`for_thread`) and block 1's
/// leader (`for_leader`) both reach `out[1]`.
#[kernel]
pub fn race_mixed_patterns(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1); // RACE: mixed thread
                                       // SAFETY: broken on purpose: another pattern in the same phase.
    let mut out = unsafe { out.into_pattern::<Leaders<ThreadBlock>>() };
    out.for_leader(&block, |y| *y = 2); // RACE: mixed leader
}

/// The same two patterns with a grid barrier between them.
#[kernel(cooperative)]
pub fn race_mixed_patterns_synced(mut out: Output<u32>) {
    let (grid, block) = (this_grid(), this_thread_block());
    out.for_thread(&grid, |y| *y = 1);
    let mut out: Output<u32, Leaders<ThreadBlock>> = out.sync(&grid).into_output_as(&grid);
    out.for_leader(&block, |y| *y = 2);
}

/// A write by one pattern and a read through another: each block's
/// leader writes its element, then each tile's leader reads its tile's
/// element, which for tile 1 of block 0 is block 1's.
#[kernel]
pub fn race_leader_then_tile_leader(
    mut out: Output<u32, Leaders<ThreadBlock>>,
    mut seen: Output<u32>,
) {
    let block = this_thread_block();
    let tile = tiled_partition::<32>(&block);
    out.for_leader(&block, |y| *y = block.group_index().x + 1); // RACE: block leader
                                                                // SAFETY: broken on purpose: another pattern in the same phase.
    let mut out = unsafe { out.into_pattern::<Leaders<ThreadBlockTile<32>>>() };
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
    // SAFETY: launched with one block, whose barrier orders the two
    // patterns (the contract asks for a grid barrier; one block's is one).
    let mut out = unsafe { out.into_pattern::<Leaders<ThreadBlockTile<32>>>() };
    out.for_leader(&tiled_partition::<32>(&block), |y| *y += 1);
}

/// `block_chunk`'s length depends on the block: block 1's chunk starts
/// inside block 0's.
#[kernel]
pub fn race_chunk_len_per_block(mut out: Output<u32, Chunks>, len: u32) {
    let block = this_thread_block();
    let len = len + this_grid().block_rank(); // a length per block
                                              // SAFETY: broken on purpose: a length per block.
    let len = unsafe { Uniform::new_unchecked(len) };
    let chunk = out.block_chunk(&block, len); // RACE: chunk
    if let Some(chunk) = chunk {
        chunk.for_thread(|y, j| *y = j as u32);
    }
}

/// `thread_element_2d`'s width depends on the thread: two threads get one
/// element.
#[kernel]
pub fn race_width_per_thread(mut out: Output<u32, Grid2d>, width: u32) {
    let grid = this_grid();
    let width = width + (grid.thread_rank() % 2) as u32;
    // SAFETY: broken on purpose: a width per thread.
    let width = unsafe { Uniform::new_unchecked(width as usize) };
    let element = out.thread_element_2d(&grid, width); // RACE: width
    if let Some(y) = element {
        *y = 1;
    }
}

/// `block_tile` with two tile heights in one phase: block `(0, 1)`'s
/// tile of 4 rows lies inside block `(0, 0)`'s tile of 8.
#[kernel]
pub fn race_two_tile_heights(
    mut out: Output<u32, Tiles2d>,
    width: Uniform<u32>,
    height: Uniform<u32>,
) {
    let block = this_thread_block();
    let eight = out.block_tile(&block, width, height, Const::<8>, Const::<2>); // RACE: tile of 8
    eight.for_each(|_, _, y| *y = 1);
    let four = out.block_tile(&block, width, height, Const::<4>, Const::<2>); // RACE: tile of 4
    four.for_each(|_, _, y| *y = 2);
}

/// `block_tile`'s width depends on the block.
#[kernel]
pub fn race_tile_width_per_block(mut out: Output<u32, Tiles2d>, width: u32, height: u32) {
    let block = this_thread_block();
    let width = width as usize + block.group_index().y as usize;
    // SAFETY: broken on purpose: a width per block.
    let uniform = |v| unsafe { Uniform::new_unchecked(v) };
    let (w, h) = (uniform(width), uniform(height as usize));
    let tile = out.block_tile(&block, w, h, Const::<8>, Const::<2>); // RACE: tile width
    tile.for_each(|_, _, y| *y = 1);
}

/// A window whose columns depend on the block.
#[kernel]
pub fn race_window_per_block(mut out: Output<u32, Points>, width: u32, rows: u32) {
    let grid = this_grid();
    // SAFETY: broken on purpose: the window's end depends on the block.
    let uniform = |v| unsafe { Uniform::new_unchecked(v) };
    let x = uniform(0)..uniform(width - grid.block_rank() % 2);
    let window = Window::new(uniform(width), x, uniform(0)..uniform(rows));
    let points = out.grid_stride_window(&grid, window); // RACE: window
    for (_, y) in points {
        *y = 1;
    }
}

/// A walk whose rows depend on the thread.
#[kernel]
pub fn race_walk_per_thread(mut out: Output<u32, Points>, width: u32, rows: u32) {
    let grid = this_grid();
    // SAFETY: broken on purpose: the window's first row depends on the
    // thread.
    let uniform = |v| unsafe { Uniform::new_unchecked(v) };
    let y = uniform((grid.thread_rank() % 2) as u32)..uniform(rows);
    let window = Window::new(uniform(width), uniform(0)..uniform(width), y);
    let walk = Walk::new(&grid, window); // RACE: walk
    out.walk(&walk).for_each(|(_, y)| *y = 1);
}

/// A stencil sweep whose width depends on the block.
#[kernel]
pub fn race_stencil_per_block(src: &[f32], mut dst: Output<f32, Points>, nx: u32, ny: u32) {
    let grid = this_grid();
    // SAFETY: broken on purpose: the width depends on the block.
    let (nx, ny) = unsafe {
        (
            Uniform::new_unchecked(nx - grid.block_rank() % 2),
            Uniform::new_unchecked(ny),
        )
    };
    let sweep = dst.grid_stride_stencil(&grid, src, nx, ny); // RACE: stencil
    sweep.for_each(|(n, u)| *u = n.west() + n.east());
}

/// A stencil walk whose height depends on the block.
#[kernel]
pub fn race_stencil_walk_per_block(src: &[f32], mut dst: Output<f32, Points>, nx: u32, ny: u32) {
    let grid = this_grid();
    // SAFETY: broken on purpose: the height depends on the block.
    let (nx, ny) = unsafe {
        (
            Uniform::new_unchecked(nx),
            Uniform::new_unchecked(ny - grid.block_rank() % 2),
        )
    };
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
