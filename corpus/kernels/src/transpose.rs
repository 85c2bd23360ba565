//! `t = a^T` for a `rows` x `cols` row-major `a`: each block moves one
//! 32 x 32 tile through shared memory (rows padded to 33 floats).

use cg_core::prelude::*;

#[kernel]
pub fn transpose(a: &[f32], mut t: Output<f32>, rows: u32, cols: u32) {
    let block = this_thread_block();
    let tile = shared_array!(f32; 32 * 33);
    let (rows, cols) = (rows as usize, cols as usize);
    let b = block.group_index();
    let th = block.thread_index();
    let (tx, ty) = (th.x as usize, th.y as usize);
    let (r0, c0) = (b.y as usize * 32, b.x as usize * 32);

    // Read: this thread's 4 rows of the tile, ty, ty + 8, ty + 16, ty + 24.
    for j in [0, 8, 16, 24] {
        let (r, c) = (r0 + ty + j, c0 + tx);
        if r < rows && c < cols {
            tile.set((ty + j) * 33 + tx, a[r * cols + c]);
        }
    }
    block.sync();

    // Write the transposed tile the same way: row c0 + ty + j of t (a
    // column of a), column r0 + tx (a row of a). No Output pattern covers
    // these 4 strided elements of a tile: raw pointer.
    t.truncate(rows * cols);
    let len = t.len();
    let t = t.as_mut_ptr();
    for j in [0, 8, 16, 24] {
        let (r, c) = (c0 + ty + j, r0 + tx);
        if r < cols && c < rows {
            let i = r * rows + c;
            assert!(i < len);
            // SAFETY: i < len, and each element of t is this thread's
            // alone: the blocks' tiles do not overlap, and inside a tile
            // (tx, ty + j) is one thread's.
            unsafe { *t.add(i) = tile.get(tx * 33 + ty + j) };
        }
    }
}
