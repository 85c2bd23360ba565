//! A tiled transpose whose reads go through `cg_core::matrix::Matrix`
//! (the size checked once, `None` outside the matrix): the reads of a
//! partial tile at the matrix's right and bottom edges are skipped, not
//! faults.

use cg_core::prelude::*;

/// `t` = the transpose of the `rows x cols` row-major matrix `a`, in
/// tiles of 16 x 16 through shared memory; blocks of 16 x 2 threads (eight
/// rows of a tile each), one per tile (`ceil(cols / 16) x ceil(rows / 16)`
/// of them), each writing its tile of `t` through `Tiles2d<Transposed>`.
/// Does nothing if `a` holds fewer than `rows * cols` elements.
#[kernel]
pub fn matrix_transpose(
    a: &[f32],
    mut t: Output<f32, Tiles2d<Transposed>>,
    rows: Uniform<u32>,
    cols: Uniform<u32>,
) {
    const TILE: usize = 16;
    let block = this_thread_block();
    // TILE x (TILE + 1), spelled out: the macro's array length cannot
    // name a local constant.
    let tile = shared_array!(f32; 16 * 17);
    let Some(a) = Matrix::new(a, rows.get() as usize, cols.get() as usize) else {
        return;
    };
    let (b, th) = (block.group_index(), block.thread_index());
    let (x, y) = (th.x as usize, th.y as usize);
    let (row0, col0) = (b.y as usize * TILE, b.x as usize * TILE);
    for k in 0..TILE / 2 {
        let r = y + 2 * k;
        if let Some(v) = a.get(row0 + r, col0 + x) {
            tile.set(r * (TILE + 1) + x, v);
        }
    }
    block.sync();
    // The transpose's tile of this block starts at row `col0`, column
    // `row0` (`Transposed`).
    let mine = t.block_tile(&block, rows, cols, Const::<TILE>, Const::<2>);
    mine.for_each(|r, c, out| *out = tile.get((c - row0) * (TILE + 1) + (r - col0)));
}
