//! The async-copy guide's kernels (seeds/002): vector addition `c = a + b`
//! through shared memory four ways, and the pipelined "in between" kernel.
//!
//! Every kernel walks the arrays in block-sized chunks, grid-stride, and
//! stages each chunk of `a` and `b` in dynamic shared memory (launch with
//! `2 * block * 4` bytes, times the stage count for the pipelined ones).
//! The last chunk may be partial. `b` must be at least as long as `a`; the
//! length of `a` is the problem size (elements of `a` past the end of `c`
//! are not added). Each chunk of `c` is the block's
//! ([`Output::block_chunks`]), each element of it one thread's.

use cg_core::prelude::*;

/// The walk every kernel shares: this block's first chunk, the grid
/// stride, the block size, this thread's rank, and the element count.
struct BlockWalk {
    first: usize,
    stride: usize,
    block: usize,
    t: usize,
    n: usize,
}

impl BlockWalk {
    #[inline(always)]
    fn new(block: &ThreadBlock, n: usize) -> Self {
        let size = block.num_threads() as usize;
        let grid = this_grid();
        BlockWalk {
            first: grid.block_rank() as usize * size,
            stride: grid.num_blocks() as usize * size,
            block: size,
            t: block.thread_rank() as usize,
            n,
        }
    }
}

/// Stage 1: each thread copies its element of `a` and `b` into shared
/// memory by hand, the block syncs, adds, and syncs again.
#[kernel(grid_1d)]
pub fn vadd_sync(a: &[f32], b: &[f32], mut c: Output<f32, Chunks>) {
    let block = this_thread_block();
    let w = BlockWalk::new(&block, a.len());
    // One length for both inputs: a shorter `b` traps here, and no index
    // below needs a check of its own.
    let b = &b[..w.n];
    let smem = dynamic_shared::<f32>();
    let (sa, sb) = (smem.subslice(0, w.block), smem.subslice(w.block, w.block));
    c.truncate(w.n);
    for chunk in c.block_chunks(&block, block.uniform_num_threads()) {
        let i = chunk.start() + w.t;
        if i < w.n {
            sa.set(w.t, a[i]);
            sb.set(w.t, b[i]);
        }
        block.sync();
        chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
        block.sync();
    }
}

/// Stage 2: the block copies each chunk with `memcpy_async` (what fits of
/// `a[start..]` in a block-sized buffer) and `wait`s.
#[kernel(grid_1d)]
pub fn vadd_memcpy_async(a: &[f32], b: &[f32], mut c: Output<f32, Chunks>) {
    let block = this_thread_block();
    let w = BlockWalk::new(&block, a.len());
    let b = &b[..w.n];
    let smem = dynamic_shared::<f32>();
    let (sa, sb) = (smem.subslice(0, w.block), smem.subslice(w.block, w.block));
    c.truncate(w.n);
    for chunk in c.block_chunks(&block, block.uniform_num_threads()) {
        let start = chunk.start();
        memcpy_async(&block, sa, &a[start..]);
        memcpy_async(&block, sb, &b[start..]);
        wait(&block);
        chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
        // The next chunk's copy overwrites what this one read.
        block.sync();
    }
}

/// Stage 3: the copies complete on a block barrier; `arrive_and_wait`
/// before reading and again before the next copy overwrites.
#[kernel(grid_1d)]
pub fn vadd_barrier(a: &[f32], b: &[f32], mut c: Output<f32, Chunks>) {
    let block = this_thread_block();
    let w = BlockWalk::new(&block, a.len());
    let b = &b[..w.n];
    let smem = dynamic_shared::<f32>();
    let (sa, sb) = (smem.subslice(0, w.block), smem.subslice(w.block, w.block));
    let bar = block_barrier!(&block, block.num_threads());
    c.truncate(w.n);
    for chunk in c.block_chunks(&block, block.uniform_num_threads()) {
        let start = chunk.start();
        bar.memcpy_async(&block, sa, &a[start..]);
        bar.memcpy_async(&block, sb, &b[start..]);
        bar.arrive_and_wait();
        chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
        bar.arrive_and_wait();
    }
}

/// Stage 4: `STAGES` chunks in flight through a pipeline; the dynamic
/// shared memory holds a ring of `STAGES` chunks of `a`, then one of `b`.
/// One instance per stage count, `vadd_pipelined_1` to `vadd_pipelined_8`.
#[kernel(grid_1d, instances(
    vadd_pipelined_1 = <1>,
    vadd_pipelined_2 = <2>,
    vadd_pipelined_3 = <3>,
    vadd_pipelined_4 = <4>,
    vadd_pipelined_5 = <5>,
    vadd_pipelined_6 = <6>,
    vadd_pipelined_7 = <7>,
    vadd_pipelined_8 = <8>,
))]
pub fn vadd_pipelined<const STAGES: usize>(a: &[f32], b: &[f32], mut c: Output<f32, Chunks>) {
    let block = this_thread_block();
    let w = BlockWalk::new(&block, a.len());
    let b = &b[..w.n];
    let smem = dynamic_shared::<f32>();
    let mut pipe = make_pipeline::<STAGES>();
    let ring_a = pipe.ring(smem, w.block);
    let ring_b = pipe.ring(smem.subslice(STAGES * w.block, STAGES * w.block), w.block);
    // Stages past the end are committed empty, so that every wait below
    // waits for the same number of stages.
    let produce = |pipe: &mut Pipeline<STAGES>, start: usize| {
        let slot = pipe.producer_acquire();
        if start < w.n {
            pipe.memcpy_async(&block, ring_a.stage(slot), &a[start..]);
            pipe.memcpy_async(&block, ring_b.stage(slot), &b[start..]);
        }
        pipe.producer_commit();
    };
    for s in 0..STAGES {
        produce(&mut pipe, w.first + s * w.stride);
    }
    c.truncate(w.n);
    for chunk in c.block_chunks(&block, block.uniform_num_threads()) {
        let start = chunk.start();
        let slot = pipe.consumer_wait();
        block.sync();
        let (sa, sb) = (ring_a.stage(slot), ring_b.stage(slot));
        chunk.for_thread(|c, t| *c = sa.get(t) + sb.get(t));
        block.sync();
        pipe.consumer_release();
        produce(&mut pipe, start + STAGES * w.stride);
    }
}

/// The guide's pipelined kernel: `dest[i] = 1` when `src[i]` lies strictly
/// between the first and the last element of its chunk, else 0. Each
/// thread copies its own element into the stage with a thread-scope
/// pipeline, 4 stages deep (launch with `4 * block * 4` bytes of dynamic
/// shared memory). In a partial last chunk "last" is its last element.
#[kernel(grid_1d)]
pub fn in_between_pipelined(src: &[i32], mut dest: Output<i32, Chunks>) {
    const STAGES: usize = 4;
    let block = this_thread_block();
    let me = this_thread();
    let w = BlockWalk::new(&block, src.len());
    let mut pipe = make_pipeline::<STAGES>();
    let ring = pipe.ring(dynamic_shared::<i32>(), w.block);
    let produce = |pipe: &mut Pipeline<STAGES>, start: usize| {
        let slot = pipe.producer_acquire();
        let i = start + w.t;
        if i < w.n {
            pipe.memcpy_async(&me, ring.stage(slot).tail_from(w.t), &src[i..i + 1]);
        }
        pipe.producer_commit();
    };
    for k in 0..STAGES {
        produce(&mut pipe, w.first + k * w.stride);
    }
    dest.truncate(w.n);
    for chunk in dest.block_chunks(&block, block.uniform_num_threads()) {
        let start = chunk.start();
        let s = ring.stage(pipe.consumer_wait());
        block.sync();
        // The chunk's first and last elements, the same for every thread
        // (one broadcast read each, and one bounds check for the block).
        let (first, last) = (s.get(0), s.get(chunk.len() - 1));
        chunk.for_thread(|d, t| {
            let v = s.get(t);
            *d = (first < v && v < last) as i32;
        });
        block.sync();
        pipe.consumer_release();
        produce(&mut pipe, start + STAGES * w.stride);
    }
}
