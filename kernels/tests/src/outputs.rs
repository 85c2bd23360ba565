//! The ownership patterns of `Output`: probes that write, through each
//! pattern, the rank of the thread each element is handed to (the GPU
//! tests check every element against the pattern's map, and that nothing
//! else is written), the barrier phases of `Output`/`Synced`, and each hot
//! loop beside the same loop through a raw pointer (the PTX tests compare
//! their instructions; the GPU tests their results).

use cg_core::prelude::*;

/// Through pattern `pattern` (the GPU test's `PATTERNS` names them), each
/// element handed to a thread gets that thread's grid rank + 1. `a` and
/// `b` are the pattern's sizes (a width and a height, or a chunk length).
#[kernel]
pub fn output_probe(pattern: Uniform<u32>, a: Uniform<u32>, b: Uniform<u32>, out: Output<u32>) {
    let grid = this_grid();
    let block = this_thread_block();
    let me = grid.thread_rank() as u32 + 1;
    let (ua, ub) = (Uniform::<usize>::from(a), Uniform::<usize>::from(b));
    let put = |x: Option<&mut u32>| {
        if let Some(x) = x {
            *x = me;
        }
    };
    // The buffer in the pattern of this launch's arm.
    macro_rules! as_pattern {
        ($p:ty) => {
            // SAFETY: `pattern` is a launch parameter: every thread takes
            // the same arm, so the buffer is written in one pattern.
            unsafe { out.into_pattern::<$p>() }
        };
    }
    match pattern.get() {
        0 => put(as_pattern!(Threads).thread_element(&grid)),
        1 => put(as_pattern!(Grid2d).thread_element_2d(&grid, ua)),
        2 => put(as_pattern!(Grid3d).thread_element_3d(&grid, ua, ub)),
        3 => as_pattern!(Threads)
            .grid_stride(&grid)
            .for_each(|(_, x)| *x = me),
        4 => {
            let window = Window::interior(a, b);
            as_pattern!(Points)
                .grid_stride_window(&grid, window)
                .for_each(|(_, x)| *x = me)
        }
        5 => {
            let window = Window::new(
                a,
                Const::<2>.into_uniform()..a - Const::<1>,
                Const::<0>.into_uniform()..b,
            );
            for (p, x) in as_pattern!(Points).grid_stride_window(&grid, window) {
                // The point's coordinates agree with its index.
                *x = if p.index == p.y * a.get() + p.x {
                    me
                } else {
                    u32::MAX
                };
            }
        }
        6 => put(as_pattern!(Leaders<ThreadBlock>).leader_element(&block)),
        7 => {
            put(as_pattern!(Leaders<ThreadBlockTile<4>>)
                .leader_element(&tiled_partition::<4>(&block)))
        }
        8 => put(as_pattern!(Leaders<ThreadBlockTile<32>>)
            .leader_element(&tiled_partition::<32>(&block))),
        9 => {
            put(as_pattern!(Leaders<MultiWarpTile<64>>)
                .leader_element(&tiled_partition::<64>(&block)))
        }
        10 => put(as_pattern!(Chunks)
            .block_chunk(&block, ua)
            .and_then(|c| c.thread_element())
            .map(|e| e.value)),
        11 => {
            if let Some(c) = as_pattern!(Chunks).block_chunk(&block, ua) {
                c.block_stride().for_each(|(_, x)| *x = me);
            }
        }
        12 => {
            for c in as_pattern!(Chunks).block_chunks(&block, ua) {
                put(c.thread_element().map(|e| e.value));
            }
        }
        13 => {
            if let Some(c) = as_pattern!(Chunks).block_chunk(&block, ua) {
                let (nt, t) = (block.num_threads() as usize, block.thread_rank() as usize);
                // Every thread of the block takes every round: a block
                // barrier inside is reached by all of them. Round `k`'s
                // index must be `k * threads + rank` (else the element
                // gets u32::MAX).
                for (k, round) in c.block_rounds().enumerate() {
                    block.sync();
                    if let Some(x) = round.value {
                        *x = if round.index == k * nt + t {
                            me
                        } else {
                            u32::MAX
                        };
                    }
                }
            }
        }
        14 => {
            // Staged in shared memory (launched with at least `a` u32 of
            // it): each thread stages its block-stride elements, then the
            // block copies the stage into the chunk.
            if let Some(c) = as_pattern!(Chunks).block_chunk(&block, ua) {
                let stage = dynamic_shared::<u32>();
                let (nt, t) = (block.num_threads() as usize, block.thread_rank() as usize);
                let mut j = t;
                while j < c.len() {
                    stage.set(j, me);
                    j += nt;
                }
                block.sync();
                c.copy_from(stage);
            }
        }
        _ => {}
    }
}

/// Through `block_chunk(chunk)` and `block_rounds().reading(input)`, with
/// a block barrier in every round (every thread takes every round): each
/// element of a block's chunk gets its input + 1, or `u32::MAX` where the
/// round's input and element do not come together or the index is not
/// the round's. `truncate` (0 or 1): whether the output is first cut to
/// the input's length (without it, an input that ends inside a chunk is a
/// failed check).
#[kernel]
pub fn rounds_reading_probe(
    input: &[u32],
    chunk: Uniform<u32>,
    truncate: u32,
    mut out: Output<u32, Chunks>,
) {
    let block = this_thread_block();
    if truncate != 0 {
        out.truncate(input.len());
    }
    let (nt, t) = (block.num_threads() as usize, block.thread_rank() as usize);
    if let Some(c) = out.block_chunk(&block, chunk) {
        let mut k = 0;
        c.block_rounds().reading(input).for_each(|round| {
            block.sync();
            match (round.input, round.value) {
                (Some(v), Some(x)) => {
                    *x = if round.index == k * nt + t {
                        v.wrapping_add(1)
                    } else {
                        u32::MAX
                    }
                }
                (None, Some(x)) => *x = u32::MAX,
                _ => {}
            }
            k += 1;
        });
    }
}

/// The barrier phases, each reading what other blocks wrote before it:
/// `a[i] = 3i + 1`; `sync`; `b[i] = a[i] + a[(i + 1) % n]`; `sync_swap`;
/// `a[i] = b[n - 1 - i]`; `(a, b).sync` (one barrier); `b[i] = a[i] ^ 0xffff`.
/// Both buffers hold `n` elements.
#[kernel(cooperative)]
pub fn output_phases(mut a: Output<u32>, mut b: Output<u32>) {
    let grid = this_grid();
    for (i, x) in a.grid_stride(&grid) {
        *x = 3 * i as u32 + 1;
    }
    let a = a.sync(&grid);
    let n = a.len();
    b.truncate(n);
    for (i, x) in b.grid_stride(&grid) {
        *x = a[i].wrapping_add(a[(i + 1) % n]);
    }
    let (b, mut a) = b.sync_swap(a, &grid);
    for (i, x) in a.grid_stride(&grid) {
        *x = b[n - 1 - i];
    }
    // Both buffers change phase at one barrier.
    let (a, mut b) = (a, b).sync(&grid);
    for (i, x) in b.grid_stride(&grid) {
        *x = a[i] ^ 0xffff;
    }
}

/// `out[i] = a * x[i]`, grid-stride, through `Output::grid_stride`.
#[kernel]
pub fn cost_stride_safe(x: &[f32], mut out: Output<f32>, a: f32) {
    let grid = this_grid();
    out.truncate(x.len());
    for (i, y) in out.grid_stride(&grid) {
        *y = a * x[i];
    }
}

/// [`cost_stride_safe`] through a raw pointer.
#[kernel]
pub fn cost_stride_raw(x: &[f32], out: *mut f32, a: f32) {
    let grid = this_grid();
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    while i < x.len() {
        // SAFETY: the host passes `out` as long as `x`; thread ranks are
        // distinct modulo the stride.
        unsafe { *out.add(i) = a * x[i] };
        i += stride;
    }
}

/// This thread's grid-stride sum of `x * y` (a dot product's share) into
/// `out`, over `grid.stride(x.len())`: plain indexing, as a user writes it.
#[kernel]
pub fn cost_dot_stride(x: &[f32], y: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let y = &y[..x.len()];
    let mut sum = 0.0;
    for i in grid.stride(x.len()) {
        sum += x[i] * y[i];
    }
    out.for_thread(&grid, |o| *o = sum);
}

/// [`cost_dot_stride`] over `(rank..n).step_by(threads)`, the form
/// `grid.stride` replaces.
#[kernel]
pub fn cost_dot_step_by(x: &[f32], y: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let y = &y[..x.len()];
    let mut sum = 0.0;
    for i in (grid.thread_rank() as usize..x.len()).step_by(grid.num_threads() as usize) {
        sum += x[i] * y[i];
    }
    out.for_thread(&grid, |o| *o = sum);
}

/// [`cost_dot_stride`] written as the CUDA C++ loop, reads unchecked.
#[kernel]
pub fn cost_dot_raw(x: &[f32], y: &[f32], mut out: Output<f32>) {
    let grid = this_grid();
    let y = &y[..x.len()];
    let stride = grid.num_threads() as usize;
    let mut i = grid.thread_rank() as usize;
    let mut sum = 0.0;
    while i < x.len() {
        // SAFETY: `i < x.len() == y.len()`.
        sum += unsafe { x.get_unchecked(i) * y.get_unchecked(i) };
        i += stride;
    }
    out.for_thread(&grid, |o| *o = sum);
}

/// `sweeps` Jacobi sweeps of an `nx` x `ny` field, ping-pong, through
/// `Output::grid_stride_stencil` and `sync_swap`.
#[kernel(cooperative)]
pub fn cost_stencil_safe(
    a: Synced<f32>,
    b: Output<f32, Points>,
    nx: Uniform<u32>,
    ny: Uniform<u32>,
    sweeps: u32,
) {
    let grid = this_grid();
    let (mut src, mut dst) = (a, b);
    for _ in 0..sweeps {
        dst.grid_stride_stencil(&grid, &src, nx, ny)
            .for_each(|(n, u)| *u = 0.25 * (((n.west() + n.east()) + n.north()) + n.south()));
        (src, dst) = dst.sync_swap(src, &grid);
    }
}

/// [`cost_stencil_safe`] with the walk made once, before the loop of
/// sweeps (`StencilWalk`, `Output::stencil`).
#[kernel(cooperative)]
pub fn cost_stencil_walk(
    a: Synced<f32>,
    b: Output<f32, Points>,
    nx: Uniform<u32>,
    ny: Uniform<u32>,
    sweeps: u32,
) {
    let grid = this_grid();
    let walk = StencilWalk::new(&grid, nx, ny);
    let (mut src, mut dst) = (a, b);
    for _ in 0..sweeps {
        dst.stencil(&walk, &src)
            .for_each(|(n, u)| *u = 0.25 * (((n.west() + n.east()) + n.north()) + n.south()));
        (src, dst) = dst.sync_swap(src, &grid);
    }
}

/// [`cost_stencil_safe`] through raw pointers, the interior walked with
/// the same 32-bit arithmetic.
#[kernel(cooperative)]
pub fn cost_stencil_raw(a: *mut f32, b: *mut f32, nx: u32, ny: u32, sweeps: u32) {
    let grid = this_grid();
    let (rank, stride) = (grid.thread_rank() as u32, grid.num_threads() as u32);
    for s in 0..sweeps {
        let (src, dst) = if s % 2 == 0 { (a, b) } else { (b, a) };
        if nx >= 3 && ny >= 3 {
            let w = nx - 2;
            let n = w * (ny - 2);
            let (dy, dx) = (stride / w, stride % w);
            let (mut y, mut x) = (rank / w, rank % w);
            let mut k = rank;
            while k < n {
                // 32-bit indices, as CUDA C++ writes them (`unsigned i`).
                let i = (y + 1) * nx + x + 1;
                let at = |j: u32| j as usize;
                // SAFETY: an interior point of an nx * ny field the host
                // allocated twice; each thread its own points.
                unsafe {
                    let s = ((*src.add(at(i - 1)) + *src.add(at(i + 1))) + *src.add(at(i - nx)))
                        + *src.add(at(i + nx));
                    *dst.add(at(i)) = 0.25 * s;
                }
                k += stride;
                x += dx;
                y += dy;
                if x >= w {
                    x -= w;
                    y += 1;
                }
            }
        }
        grid.sync();
    }
}

/// `out[i] = 2 * x[i]`, in block-sized chunks walked grid-stride, through
/// `Output::block_chunks`.
#[kernel]
pub fn cost_chunks_safe(x: &[f32], mut out: Output<f32, Chunks>) {
    let block = this_thread_block();
    out.truncate(x.len());
    for chunk in out.block_chunks(&block, block.uniform_num_threads()) {
        let start = chunk.start();
        chunk.for_thread(|y, t| *y = 2.0 * x[start + t]);
    }
}

/// [`cost_chunks_safe`] through a raw pointer.
#[kernel]
pub fn cost_chunks_raw(x: &[f32], out: *mut f32) {
    let block = this_thread_block();
    let grid = this_grid();
    let size = block.num_threads() as usize;
    let t = block.thread_rank() as usize;
    let mut start = grid.block_rank() as usize * size;
    while start < x.len() {
        let i = start + t;
        if i < x.len() {
            // SAFETY: `out` is as long as `x`; each element one thread's.
            unsafe { *out.add(i) = 2.0 * x[i] };
        }
        start += grid.num_blocks() as usize * size;
    }
}

/// Per block, a chunk of `chunk` elements in rounds of one element a
/// thread, a block barrier in each round (a collective's place), `out[i] =
/// 3 * x[i]`, through `Rounds::reading`.
#[kernel]
pub fn cost_rounds_reading(x: &[u32], chunk: Uniform<u32>, mut out: Output<u32, Chunks>) {
    let block = this_thread_block();
    out.truncate(x.len());
    if let Some(c) = out.block_chunk(&block, chunk) {
        c.block_rounds().reading(x).for_each(|round| {
            let v = round.input.unwrap_or(0);
            block.sync();
            if let Some(y) = round.value {
                *y = v.wrapping_mul(3);
            }
        });
    }
}

/// [`cost_rounds_reading`] through a raw pointer.
#[kernel]
pub fn cost_rounds_raw(x: &[u32], chunk: u32, out: *mut u32) {
    let block = this_thread_block();
    let (nt, t) = (block.num_threads() as usize, block.thread_rank() as usize);
    let (n, chunk) = (x.len(), chunk as usize);
    let start = this_grid().block_rank() as usize * chunk;
    if start < n && chunk > 0 {
        let end = (start + chunk).min(n);
        let stop = start + (end - start).div_ceil(nt) * nt;
        let mut i = start + t;
        while i < stop {
            let v = if i < end { x[i] } else { 0 };
            block.sync();
            if i < end {
                // SAFETY: `out` is as long as `x`; each element one thread's.
                unsafe { *out.add(i) = v.wrapping_mul(3) };
            }
            i += nt;
        }
    }
}

/// `sweeps` sweeps of a `nx`-wide, `rows`-high field between two halves of
/// dynamic shared memory with [`SharedStencil`] (its bounds checked once a
/// sweep); the PTX tests compare its loops with
/// [`cost_shared_stencil_raw`]'s.
#[kernel]
pub fn cost_shared_stencil_safe(nx: u32, rows: u32, sweeps: u32) {
    let block = this_thread_block();
    let n = nx as usize * rows as usize;
    let region = dynamic_shared::<f32>();
    let (a, b) = (region.subslice(0, n), region.subslice(n, n));
    let mut field = SharedStencil::new(&block, nx, a, b);
    for _ in 0..sweeps {
        field.sweep(1..rows.saturating_sub(1), |p| {
            0.25 * (((p.west() + p.east()) + p.north()) + p.south())
        });
        block.sync();
    }
}

/// [`cost_shared_stencil_safe`] with unchecked shared loads and stores and
/// the same share of the points per thread.
#[kernel]
pub fn cost_shared_stencil_raw(nx: u32, rows: u32, sweeps: u32) {
    let block = this_thread_block();
    let n = nx as usize * rows as usize;
    let region = dynamic_shared::<f32>();
    let (a, b) = (region.subslice(0, n), region.subslice(n, n));
    if nx < 3 {
        return;
    }
    let (t, threads) = (block.thread_rank(), block.num_threads());
    let c = threads.min(nx - 2);
    let (q, col, row) = (threads / c, 1 + t % c, t / c);
    for s in 0..sweeps {
        let (src, dst) = if s % 2 == 0 { (a, b) } else { (b, a) };
        if t < q * c {
            let mut y = 1 + row;
            while y + 1 < rows {
                let mut x = col;
                while x < nx - 1 {
                    let i = (y * nx + x) as usize;
                    let w = nx as usize;
                    // SAFETY: an interior point of the field: it and its
                    // neighbours are inside both halves.
                    unsafe {
                        let sum = ((src.get_unchecked(i - 1) + src.get_unchecked(i + 1))
                            + src.get_unchecked(i - w))
                            + src.get_unchecked(i + w);
                        dst.set_unchecked(i, 0.25 * sum);
                    }
                    x += c;
                }
                y += q;
            }
        }
        block.sync();
    }
}
