//! A tiled transpose whose reads go through `cg_core::matrix::Matrix`
//! (the size checked once, `None` outside the matrix): the reads of a
//! partial tile at the matrix's right and bottom edges are skipped, not
//! faults.

use cg_core::prelude::*;

/// `t` = the transpose of the `rows x cols` row-major matrix `a`, in
/// tiles of 32 x 32 through shared memory; blocks of 32 x 8 threads, one
/// per tile (`ceil(cols / 32) x ceil(rows / 32)` of them). Does nothing
/// if `a` holds fewer than `rows * cols` elements.
#[kernel]
pub fn matrix_transpose(a: &[f32], mut t: Output<f32>, rows: u32, cols: u32) {
    let block = this_thread_block();
    let tile = shared_array!(f32; 32 * 33);
    let (rows, cols) = (rows as usize, cols as usize);
    let Some(a) = Matrix::new(a, rows, cols) else {
        return;
    };
    let b = block.group_index();
    let th = block.thread_index();
    let (tx, ty) = (th.x as usize, th.y as usize);
    let (r0, c0) = (b.y as usize * 32, b.x as usize * 32);
    for j in [0, 8, 16, 24] {
        if let Some(v) = a.get(r0 + ty + j, c0 + tx) {
            tile.set((ty + j) * 33 + tx, v);
        }
    }
    block.sync();
    t.truncate(rows * cols);
    let len = t.len();
    let t = t.as_mut_ptr();
    for j in [0, 8, 16, 24] {
        let (r, c) = (c0 + ty + j, r0 + tx);
        if r < cols && c < rows {
            let i = r * rows + c;
            assert!(i < len);
            // SAFETY: i < len, and each element of t is this thread's
            // alone: the tiles do not overlap, and inside a tile (tx, ty +
            // j) is one thread's.
            unsafe { *t.add(i) = tile.get(tx * 33 + ty + j) };
        }
    }
}
