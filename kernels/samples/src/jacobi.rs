//! Jacobi sweeps of the 2-D Laplace equation on an `nx` x `ny` grid with
//! fixed boundary values: one persistent cooperative kernel with a grid
//! barrier between sweeps, one that runs several sweeps in shared memory
//! between grid barriers, or one launch per sweep.

use cg_core::output::Neighbours;
use cg_core::prelude::*;

/// One sweep over this thread's interior points: the mean of each point's
/// four neighbours, from `src` into `dst`.
///
/// The interior points are numbered row by row and the thread walks them
/// with a grid stride ([`Output::grid_stride_stencil`]): its coordinates
/// advance by the stride's own quotient and remainder, so the loop has one
/// division before it and none inside, all index arithmetic is 32-bit,
/// and the array bounds are checked once, before the loop.
#[inline(always)]
fn sweep(
    grid: &GridGroup,
    src: &[f32],
    dst: &mut Output<f32, Points>,
    nx: Uniform<u32>,
    ny: Uniform<u32>,
) {
    dst.grid_stride_stencil(grid, src, nx, ny).for_each(mean);
}

/// A point's new value: the mean of its four neighbours.
#[inline(always)]
fn mean((n, u): (Neighbours<'_, f32>, &mut f32)) {
    *u = mean_of(n.west(), n.east(), n.north(), n.south());
}

/// The mean of a point's four neighbours, added in the one order every
/// kernel here adds them (so that they agree bit for bit).
#[inline(always)]
fn mean_of(west: f32, east: f32, north: f32, south: f32) -> f32 {
    0.25 * (((west + east) + north) + south)
}

/// `sweeps` sweeps in one launch, ping-ponging between `a` and `b` (the
/// result is in `b` after an odd number of sweeps, in `a` after an even
/// one). Both must hold the same boundary values. The field and the grid's
/// threads together stay below 2^32 (checked).
#[kernel(cooperative, grid_1d)]
pub fn jacobi_persistent(
    a: Synced<f32>,
    b: Output<f32, Points>,
    nx: Uniform<u32>,
    ny: Uniform<u32>,
    sweeps: u32,
) {
    let grid = this_grid();
    // The thread's walk over the interior, its divisions and checks done
    // once for every sweep.
    let walk = StencilWalk::new(&grid, nx, ny);
    let (mut src, mut dst) = (a, b);
    for _ in 0..sweeps {
        // `for_each` (internal iteration) rather than `for`: inside the
        // loop of sweeps it compiles to the hand-written loop, where `for`
        // would keep one never-taken branch per point.
        dst.stencil(&walk, &src).for_each(mean);
        // One barrier: what this sweep wrote becomes the next one's
        // source, and the old source the next one's destination.
        (src, dst) = dst.sync_swap(src, &grid);
    }
}

/// Rows of the field each block owns in [`jacobi_in_shared`]: the field's
/// `ny` rows shared out over `blocks` blocks, whole rows each.
#[inline(always)]
pub fn rows_per_block(ny: u32, blocks: u32) -> u32 {
    ny.div_ceil(blocks.max(1))
}

/// The sweeps [`jacobi_in_shared`] makes between two grid barriers when
/// asked for `depth`: at least one, and no more than the field is high
/// (deeper computes nothing more).
#[inline(always)]
pub fn sweeps_a_barrier(depth: u32, ny: u32) -> u32 {
    depth.clamp(1, ny.max(1))
}

/// Bytes of dynamic shared memory [`jacobi_in_shared`] needs on a grid of
/// `blocks` blocks: two buffers of `rows_per_block + 2 * depth` rows of
/// `nx` values (`depth` as [`sweeps_a_barrier`] clips it).
pub fn in_shared_bytes(nx: u32, ny: u32, blocks: u32, depth: u32) -> u64 {
    let rows = rows_per_block(ny, blocks) as u64 + 2 * sweeps_a_barrier(depth, ny) as u64;
    2 * rows * nx as u64 * core::mem::size_of::<f32>() as u64
}

/// `sweeps` sweeps in one launch, up to `depth` of them between two grid
/// barriers: the same field as [`jacobi_persistent`], bit for bit, with a
/// barrier every `depth` sweeps instead of every sweep.
///
/// Block `b` owns rows `[b R, (b + 1) R)` ([`rows_per_block`]). A round of
/// `k <= depth` sweeps copies those rows and `depth` more on each side
/// (what the neighbours own, clipped to the field) into shared memory
/// (`memcpy_async_aligned`: 16-byte pieces where the rows allow), sweeps
/// there `k` times, one row narrower on each side each time (the
/// neighbours' rows it needs it computes again itself), and writes its own
/// rows back; then one grid barrier. Rounds ping-pong between `a` and `b`
/// as sweeps do: where the number of rounds and of sweeps would differ in
/// parity, the first round is split in two, so the field ends in `b` after
/// an odd number of sweeps and in `a` after an even one. Launch with at
/// least [`in_shared_bytes`] of dynamic shared memory (a smaller region
/// traps).
///
/// Declared for blocks of up to 1024 threads, one a multiprocessor (its
/// shared memory is large): without a bound ptxas gives it more registers
/// than a block of 1024 threads can have; with `launch_bounds(1024)` alone
/// it aims at two blocks a multiprocessor, 32 registers, and spills on
/// sm_80; with both it spills nothing (the PTX test checks every module).
#[kernel(cooperative, grid_1d, launch_bounds(1024, 1))]
pub fn jacobi_in_shared(
    a: Synced<f32>,
    b: Output<f32, Chunks>,
    nx: Uniform<u32>,
    ny: Uniform<u32>,
    sweeps: u32,
    depth: u32,
) {
    // The band's length, as every block computes it (a chunk per block).
    let band =
        Uniform::<usize>::from(ny.div_ceil(this_grid().uniform_num_blocks().max(Const::<1>)) * nx);
    let (nx, ny) = (nx.get(), ny.get());
    if nx < 3 || ny < 3 {
        // No interior: both buffers already hold the field.
        return;
    }
    let grid = this_grid();
    let block = this_thread_block();
    let depth = sweeps_a_barrier(depth, ny);
    let rows = rows_per_block(ny, grid.num_blocks());
    let band0 = grid.block_rank().saturating_mul(rows);
    let band1 = band0.saturating_add(rows).min(ny);
    // Every index of the field fits in 32 bits (checked once), so the
    // rows' offsets are 32-bit products.
    if nx.checked_mul(ny).is_none() {
        field_too_large();
    }
    let at = |row: u32| (row * nx) as usize;
    // Both buffers end with the field: the last band's chunk too.
    let (mut a, mut b) = (a, b);
    a.truncate(at(ny));
    b.truncate(at(ny));
    // Two buffers of `rows + 2 depth` rows, row `r` of the field at row
    // `r - origin` of each (their length in 64 bits; the region's check
    // then bounds every shared offset below).
    let origin = band0.saturating_sub(depth);
    let span = (rows as usize + 2 * depth as usize) * nx as usize;
    let region = dynamic_shared::<f32>();
    let (buf0, buf1) = (region.subslice(0, span), region.subslice(span, span));
    // The rows this block holds: its band and `depth` rows on each side.
    // Every round copies them all into the first buffer (a round of fewer
    // sweeps needs fewer, but the same copy every round leaves the
    // compiler nothing to recompute); the second buffer gets them once,
    // for its boundary values (columns 0 and nx - 1, rows 0 and ny - 1),
    // which no sweep changes. (The first round's `wait` completes it.)
    let end = band1.saturating_add(depth).min(ny);
    let held = at(origin)..at(end);
    if band0 < ny && sweeps > 0 {
        memcpy_async_aligned(&block, buf1, &a[held.clone()]);
    }
    // The two buffers, and this thread's points in each row, found once.
    let mut field = SharedStencil::new(&block, nx, buf0, buf1);
    let rounds = sweeps.div_ceil(depth);
    let split = rounds % 2 != sweeps % 2;
    let (mut src, mut dst) = (a, b);
    let (mut done, mut round) = (0, 0);
    while done < sweeps {
        let k = match (split, round) {
            (true, 0) => 1,
            (true, 1) => depth.min(sweeps) - 1,
            _ => depth.min(sweeps - done),
        };
        if band0 < ny {
            memcpy_async_aligned(&block, buf0, &src[held.clone()]);
            wait(&block);
            field.restart();
            for s in 0..k {
                // Rows this sweep must get right: the band and the `e`
                // rows on each side that the next sweeps still read.
                let e = k - 1 - s;
                let lo = band0.saturating_sub(e).max(1);
                let hi = band1.saturating_add(e).min(ny - 1);
                field.sweep(lo - origin..hi - origin, |n| {
                    0.25 * (((n.west() + n.east()) + n.north()) + n.south())
                });
                block.sync();
            }
            // The band's rows, from the newest buffer.
            if let Some(chunk) = dst.block_chunk(&block, band) {
                chunk.copy_from(field.newest().tail_from(at(band0 - origin)));
            }
        }
        (src, dst) = dst.sync_swap(src, &grid);
        done += k;
        round += 1;
    }
}

#[cold]
#[track_caller]
fn field_too_large() -> ! {
    panic!("jacobi_in_shared: the field has 2^32 points or more")
}

/// One sweep from `u` into `u_new` (launch at least as many threads as
/// interior points, or rely on the grid-stride loop).
#[kernel(grid_1d)]
pub fn jacobi_sweep(u: &[f32], mut u_new: Output<f32, Points>, nx: Uniform<u32>, ny: Uniform<u32>) {
    sweep(&this_grid(), u, &mut u_new, nx, ny);
}

/// The first and last rows of one GPU's band of the field, swept: `src`
/// holds the band's `rows` rows (`nx` wide) and `above` and `below` the
/// rows beside it (the neighbouring GPUs' edge rows, or the field's
/// boundary). Writes rows 0 and `rows - 1` of `dst`, and the same values
/// into `up` and `down` (one row each: what the neighbours receive as
/// halo rows). With [`jacobi_sweep`] over the band (its rows 1 to
/// `rows - 2`) it makes one sweep, bit for bit what one GPU computes; and
/// `jacobi_sweep` can run while `up` and `down` are sent: the overlapped
/// NCCL halo exchange. Columns 0 and `nx - 1` are boundary values, left as
/// they are.
#[allow(clippy::too_many_arguments)]
#[kernel(grid_1d)]
pub fn jacobi_edges(
    above: &[f32],
    src: &[f32],
    below: &[f32],
    mut dst: Output<f32, Points>,
    mut up: Output<f32, Points>,
    mut down: Output<f32, Points>,
    nx: Uniform<u32>,
    rows: Uniform<u32>,
) {
    if rows.get() == 0 {
        return;
    }
    let grid = this_grid();
    let w = nx.get() as usize;
    let last = rows - Const::<1>;
    let row = |r: usize| &src[r * w..(r + 1) * w];
    let north = |r: usize| if r == 0 { above } else { row(r - 1) };
    let south = |r: usize| {
        if r == last.get() as usize {
            below
        } else {
            row(r + 1)
        }
    };
    let value = |r: usize, x: usize| {
        let here = row(r);
        mean_of(here[x - 1], here[x + 1], north(r)[x], south(r)[x])
    };
    let inner = || Const::<1>.into_uniform()..nx.saturating_sub(Const::<1>);
    let first = Const::<0>.into_uniform()..Const::<1>.into_uniform();
    let edges = [(first.clone(), 0), (last..rows, last.get() as usize)];
    for (y, r) in edges {
        dst.grid_stride_window(&grid, Window::new(nx, inner(), y))
            .for_each(|(p, x)| *x = value(r, p.x as usize));
    }
    up.grid_stride_window(&grid, Window::new(nx, inner(), first.clone()))
        .for_each(|(p, x)| *x = value(0, p.x as usize));
    down.grid_stride_window(&grid, Window::new(nx, inner(), first))
        .for_each(|(p, x)| *x = value(last.get() as usize, p.x as usize));
}

/// Row `from` of `band` (`nx` wide, `from` neither its first nor its last
/// row), swept: the new values of its interior points, written into row
/// `to` of `halo`, a neighbouring GPU's band, grid-stride over the row. The
/// values the sweep writes into row `from` of this GPU's destination, bit
/// for bit, computed again from the source; columns 0 and `nx - 1` are
/// boundary values, left as they are.
#[inline(always)]
fn sweep_row_into(
    grid: &GridGroup,
    band: &[f32],
    from: u32,
    halo: &mut Output<f32, Points>,
    to: Uniform<u32>,
    nx: Uniform<u32>,
) {
    let inner = Const::<1>.into_uniform()..nx.saturating_sub(Const::<1>);
    let row = Window::new(nx, inner, to..to + Const::<1>);
    let w = nx.get() as usize;
    // Rows `from - 1` to `from + 1`: one check for the three.
    let rows = &band[(from as usize - 1) * w..(from as usize + 2) * w];
    halo.grid_stride_window(grid, row).for_each(|(p, x)| {
        let i = w + p.x as usize;
        *x = mean_of(rows[i - 1], rows[i + 1], rows[i - w], rows[i + w]);
    });
}

/// Jacobi on several GPUs, one band of rows each: this GPU's band of the
/// field, `nx` wide and `rows` high with one halo row above and below (the
/// first GPU's top row and the last one's bottom row are the field's
/// fixed boundary). Each sweep updates the band's interior as
/// [`jacobi_persistent`] does, and computes its first and last interior
/// rows a second time, from the same source, straight into the halo rows
/// of the neighbouring GPUs' bands of the same parity (`up_*`: the
/// previous GPU's band, whose bottom halo row receives ours; `down_*`: the
/// next GPU's), through peer memory; then one multi-grid barrier, which is
/// also the ping-pong's. Computing the two rows again, rather than copying
/// them from the destination, leaves no grid barrier between the sweep and
/// the send. `up_*` is ignored on the first GPU and `down_*` on the last
/// (pass empty buffers). After `sweeps` sweeps the band is in `b` for an
/// odd count and in `a` for an even one, bit for bit what one GPU
/// computes.
#[allow(clippy::too_many_arguments)]
#[kernel(multi_grid)]
pub fn jacobi_multi_gpu(
    a: Synced<f32>,
    b: Output<f32, Points>,
    up_a: Output<f32, Points>,
    up_b: Output<f32, Points>,
    down_a: Output<f32, Points>,
    down_b: Output<f32, Points>,
    nx: Uniform<u32>,
    rows: Uniform<u32>,
    sweeps: u32,
) {
    let mg = this_multi_grid();
    let grid = mg.grid();
    let (first, last) = (mg.grid_rank() == 0, mg.grid_rank() + 1 == mg.num_grids());
    let (mut src, mut dst) = (a, b);
    // The neighbours' bands of the parity this sweep writes.
    let (mut up, mut up_next) = (up_b, up_a);
    let (mut down, mut down_next) = (down_b, down_a);
    // A band without interior rows has nothing to sweep or send.
    let sends = rows.get() >= 3;
    // SAFETY: the last row of the previous GPU's band (both buffers of
    // it have its length), from a buffer length no thread changes and a
    // uniform width: the same in every thread. (A wrong row only makes the
    // window's check stop the kernel.)
    let up_last = unsafe { Uniform::new_unchecked((up.len() / nx.get().max(1) as usize) as u32) }
        .saturating_sub(Const::<1>);
    for _ in 0..sweeps {
        sweep(&grid, &src, &mut dst, nx, rows);
        if sends && !first {
            sweep_row_into(&grid, &src, 1, &mut up, up_last, nx);
        }
        if sends && !last {
            let to = Const::<0>.into_uniform();
            sweep_row_into(&grid, &src, rows.get() - 2, &mut down, to, nx);
        }
        // One barrier over every GPU: this sweep and every GPU's halo rows
        // are written and readable; the old source is free.
        (src, dst) = dst.sync_swap(src, &mg);
        core::mem::swap(&mut up, &mut up_next);
        core::mem::swap(&mut down, &mut down_next);
    }
}
