//! The [`Tiles2d`] pattern: a 2-D tile of a row-major array per block,
//! each thread a column of it with rows a block height apart (the writes
//! of CUDA's tiled transpose).

use super::pattern::{InTiles, TileMap};
use super::{element_at, Output, Pattern};
use crate::block::ThreadBlock;
use crate::checks::Site;
use crate::fault;
use crate::intrinsics;
use crate::uniform::Const;
use crate::uniform::IntoUniform;
use crate::unrolled::{self, unrolled};
use crate::Pod;
use core::marker::PhantomData;

impl<T: Pod, P: Pattern> Output<T, P> {
    /// This thread's elements of its block's tile of the buffer read as a
    /// row-major array of `height` rows of `width`: the tile is
    /// `TILE_ROWS` rows of `block.dim_threads().x` columns, placed by `M`
    /// ([`AtBlock`](super::pattern::AtBlock): block `(x, y)` takes tile
    /// row `y`, tile column `x`; [`Transposed`](super::pattern::Transposed):
    /// tile row `x`, tile column `y`), and the block is `BLOCK_ROWS`
    /// threads high (a block of another height stops the kernel with a
    /// failed check). Thread `(tx, ty)` owns column `tx` of the tile and
    /// its rows `ty`, `ty + BLOCK_ROWS`, ... below `TILE_ROWS`;
    /// [`TileColumn::for_each`] calls a closure with each as `(row,
    /// column, element)` in the array, leaving out rows at or past
    /// `height` and columns at or past `width`. A buffer shorter than
    /// `width * height` is taken as the rows it holds whole (its size is
    /// checked once, here, so that no element needs a check). Blocks or threads with a `z` index above 0
    /// own nothing (in a 3-D launch their tiles would be shared).
    ///
    /// The two heights are constants (CUDA's `TILE_DIM` and
    /// `BLOCK_ROWS`): a thread's rows are then written out in full, each
    /// behind its own test, as nvcc writes the C++ loop (an iterator's
    /// `for` loop over them stayed a loop, one store a trip). `width` and
    /// `height` are [`Uniform`](crate::uniform::Uniform): a size per block
    /// would make tiles overlap.
    ///
    /// ```ignore
    /// #[kernel]
    /// pub fn transpose(a: &[f32], mut t: Output<f32, Tiles2d<Transposed>>, rows: Uniform<u32>, cols: Uniform<u32>) {
    ///     // .. the block's 32 x 32 tile of `a` read into `tile`, then block.sync() ..
    ///     let (c0, r0) = (b.x as usize * 32, b.y as usize * 32);
    ///     let mine = t.block_tile(&block, rows, cols, Const::<32>, Const::<8>);
    ///     mine.for_each(|r, c, out| *out = tile.get((c - r0) * 33 + (r - c0)));
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn block_tile<M: TileMap, const TILE_ROWS: usize, const BLOCK_ROWS: usize>(
        &mut self,
        block: &ThreadBlock,
        width: impl IntoUniform<usize>,
        height: impl IntoUniform<usize>,
        _tile_rows: Const<TILE_ROWS>,
        _block_rows: Const<BLOCK_ROWS>,
    ) -> TileColumn<'_, T>
    where
        P: InTiles<M>,
    {
        let width = width.into_uniform().get();
        let height = height.into_uniform().get();
        let site = Site::here();
        #[cfg(not(target_arch = "nvptx64"))]
        site.uniform("block_tile's width, height", &[width as u64, height as u64]);
        let (b, t, dim) = (
            block.group_index(),
            block.thread_index(),
            block.dim_threads(),
        );
        fault::check(
            dim.y as usize == BLOCK_ROWS && BLOCK_ROWS > 0,
            "block_tile: the block's height in threads is not the BLOCK_ROWS passed",
        );
        // The rows the buffer holds whole (the division only for a
        // buffer too short, the caller's mistake).
        let height = match height.checked_mul(width) {
            Some(n) if n <= self.len => height,
            _ => self.len / width.max(1),
        };
        // `z == 0` for both as one `or` of two special registers (as
        // `thread_element_2d`).
        let [_, _, bz] = intrinsics::block_idx();
        let [_, _, tz] = intrinsics::thread_idx();
        let (tile_r, tile_c) = M::tile_of(b.x as usize, b.y as usize);
        let col = tile_c
            .saturating_mul(dim.x as usize)
            .saturating_add(t.x as usize);
        let first = tile_r.saturating_mul(TILE_ROWS);
        let owns = (bz | tz == 0) & (col < width);
        TileColumn {
            ptr: self.ptr,
            width,
            col,
            row: first.saturating_add(t.y as usize),
            end: if owns {
                first.saturating_add(TILE_ROWS).min(height)
            } else {
                0
            },
            step: BLOCK_ROWS,
            rows: TILE_ROWS.div_ceil(BLOCK_ROWS.max(1)),
            site,
            _out: PhantomData,
        }
    }
}

/// One thread's column of its block's tile ([`Output::block_tile`]).
pub struct TileColumn<'a, T> {
    ptr: *mut T,
    width: usize,
    col: usize,
    /// The thread's first row.
    row: usize,
    /// The tile's end row, at most the array's height (0 when the thread
    /// owns nothing).
    end: usize,
    /// The rows between two of this thread's (`BLOCK_ROWS`).
    step: usize,
    /// The thread's rows in a whole tile (a constant).
    rows: usize,
    site: Site,
    _out: PhantomData<&'a mut T>,
}

impl<T> TileColumn<'_, T> {
    /// `f(row, column, element)` for each of the thread's elements, row
    /// by row: the calls written out, each behind its row's test.
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(usize, usize, &mut T)) {
        let mut from = 0;
        while from < self.rows {
            unrolled((self.rows - from).min(unrolled::MAX), |k| {
                let row = self.row + (from + k) * self.step;
                if row < self.end {
                    let i = row * self.width + self.col;
                    // SAFETY: `row < height` and `col < width` with
                    // `height * width` at most the buffer's length
                    // (`block_tile`), so `i` is in it. Element `(row, col)`
                    // has one owner: `col` gives the tile column and `tx`
                    // (tiles are `dim.x` wide), `row` the tile row and the
                    // offset in the tile (tiles are `TILE_ROWS` high, a
                    // constant), the offset `ty` (`offset mod BLOCK_ROWS`,
                    // the block's height); `M` gives distinct blocks
                    // distinct tiles, and only `z == 0` blocks and threads
                    // own any. Each call's reference ends with it.
                    f(row, self.col, unsafe { element_at(self.ptr, i, self.site) });
                }
            });
            from += unrolled::MAX;
        }
    }
}
