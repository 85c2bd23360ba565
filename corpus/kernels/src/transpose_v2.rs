//! `transpose` again, without `unsafe` and with nvcc's loads in flight: the
//! reads through a `Matrix` view (its size checked once, so no read can
//! panic) gathered before the shared stores, and the writes through the
//! `Tiles2d<Transposed>` output pattern (each thread its column of the
//! block's tile of the transpose, rows 8 apart). Same algorithm and launch
//! as `transpose` (SPEC.md).

use cg_core::matrix::Matrix;
use cg_core::prelude::*;

#[kernel]
pub fn transpose_v2(
    a: &[f32],
    mut t: Output<f32, Tiles2d<Transposed>>,
    rows: Uniform<u32>,
    cols: Uniform<u32>,
) {
    let block = this_thread_block();
    let tile = shared_array!(f32; 32 * 33);
    let Some(a) = Matrix::new(a, rows.get() as usize, cols.get() as usize) else {
        return;
    };
    let b = block.group_index();
    let th = block.thread_index();
    let (tx, ty) = (th.x as usize, th.y as usize);
    let (r0, c0) = (b.y as usize * 32, b.x as usize * 32);

    // The four reads first (none can panic), then the shared stores.
    let v = [0, 8, 16, 24].map(|j| a.get(r0 + ty + j, c0 + tx));
    for (k, v) in v.iter().enumerate() {
        if let Some(v) = *v {
            tile.set((ty + 8 * k) * 33 + tx, v);
        }
    }
    block.sync();

    // The transpose is `cols` rows of `rows`; this block's tile of it is
    // tile row `b.x`, tile column `b.y`: rows from `c0`, columns from `r0`.
    let mine = t.block_tile(&block, rows, cols, Const::<32>, Const::<8>);
    mine.for_each(|r, c, out| *out = tile.get((c - r0) * 33 + (r - c0)));
}
