//! Block-wide sums: each warp reduces with `shfl_down` on a 32-thread tile,
//! warp leaders meet in shared memory, the first warp finishes.

use crate::select::pick;
use cg_core::prelude::*;

/// Where the warp totals of [`block_sum`] meet: one slot per warp of the
/// largest block. The kernel declares it (`shared_array!(f32; 32)`) and
/// passes it to each sum; two sums on one array need a barrier between
/// them (the first warp reads it after the sum's only barrier).
pub type WarpTotals = SharedArray<f32, 32>;

/// Sum of `v` over the calling block, valid in thread 0 of the block. Every
/// thread of the block must call it; blocks of up to 1024 threads, a whole
/// number of warps.
#[inline(always)]
pub fn block_sum(block: &ThreadBlock, totals: &WarpTotals, v: f32) -> f32 {
    let warp = tiled_partition::<32>(block);
    let v = warp_sum(&warp, v);
    sum_warp_totals(block, &warp, totals, v)
}

/// The block's sum from each warp's total held in the warp's rank 0: the
/// totals meet in `totals` and the first warp adds them up. Valid in
/// thread 0 of the block.
#[inline(always)]
pub fn sum_warp_totals(
    block: &ThreadBlock,
    warp: &ThreadBlockTile<32>,
    totals: &WarpTotals,
    v: f32,
) -> f32 {
    share_warp_totals(block, warp, totals, v);
    let mut v = v;
    if warp.meta_group_rank() == 0 {
        v = if warp.thread_rank() < warp.meta_group_size() {
            totals.get(warp.thread_rank() as usize)
        } else {
            0.0
        };
        v = warp_sum(warp, v);
    }
    v
}

/// Each warp's rank 0 puts its total `v` in the warp's slot of `totals`;
/// then the block synchronizes, so that the slots can be read.
#[inline(always)]
fn share_warp_totals(block: &ThreadBlock, warp: &ThreadBlockTile<32>, totals: &WarpTotals, v: f32) {
    // A block has at most 1024 threads, so at most 32 warps: the warp's
    // rank is a valid slot (and the compiler knows it, so no check).
    if warp.thread_rank() == 0 {
        totals.set(warp.meta_group_rank() as usize, v);
    }
    block.sync();
}

/// Tree sum over a warp with `shfl_down`; the total lands in rank 0.
#[inline(always)]
pub fn warp_sum(warp: &ThreadBlockTile<32>, mut v: f32) -> f32 {
    let mut offset = 16;
    while offset > 0 {
        v += warp.shfl_down(v, offset);
        offset >>= 1;
    }
    v
}

/// This thread's input element, or 0 past the end: one element per thread,
/// `blockDim` elements per block.
#[inline(always)]
pub fn block_element(block: &ThreadBlock, input: &[f32]) -> f32 {
    let i = block.group_index().x as usize * block.num_threads() as usize
        + block.thread_rank() as usize;
    if i < input.len() {
        input[i]
    } else {
        0.0
    }
}

/// Writes the block's result from thread 0, into the block's element.
#[inline(always)]
pub fn write_block_result(
    block: &ThreadBlock,
    block_sums: &mut Output<f32, Leaders<ThreadBlock>>,
    s: f32,
) {
    block_sums.for_leader(block, |slot| *slot = s);
}

// ---- One chunk of `blockDim` elements per block ---------------------------
//
// The seed's three kernels, each twice: as the seed writes them, for any
// block size, and as `#[kernel(block_size(256))]`, where `blockDim` is a
// constant, so the tree's steps and the warps' count fold at compile time
// (what CUDA C++ gets by writing the block size as a template parameter).
// A block of these kernels holds one load per thread in flight, so how
// long it lives after its load sets the rate: the 256-thread forms end
// with shorter steps that add in the same order as the seed's (the sums
// keep their bits): thread 0 adds the eight warp totals itself, where the
// seed's first warp spends a chain of five shuffles on them, and the
// classic tree's last warp adds its 64 values in registers, where the
// seed's takes six more block barriers.

/// Warp-tile reduction (the seed's approach 2): one partial sum per block,
/// `block_sums[b] = sum(input[b * blockDim .. (b + 1) * blockDim])`.
#[kernel(grid_1d)]
pub fn block_reduce_warp(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let totals = shared_array!(f32; 32);
    let s = block_sum(&block, &totals, block_element(&block, input));
    write_block_result(&block, &mut block_sums, s);
}

/// Threads per block of the `*_256` kernels (their
/// `#[kernel(block_size(256))]`).
pub const FIXED_THREADS: u32 = 256;

/// Stops the kernel, at the caller's line, on a block of another size than
/// [`FIXED_THREADS`] (a check that folds away under `block_size(256)`; it
/// guards a direct call of the host build).
#[inline(always)]
#[track_caller]
fn assert_fixed_threads(block: &ThreadBlock) {
    assert!(
        block.num_threads() == FIXED_THREADS,
        "the *_256 block reductions take blocks of 256 threads"
    );
}

/// [`sum_warp_totals`] for blocks of [`FIXED_THREADS`] threads, added up by
/// thread 0 alone: the warp totals meet in `totals`, thread 0 reads the
/// eight and adds them pairwise in the order of the first warp's
/// shuffles (totals 4 apart, then 2, then 1), so the sum has the bits of
/// [`sum_warp_totals`]'s. Valid in thread 0 of the block. Stops the kernel
/// on a block of another size (a check that folds away under
/// `block_size(256)`).
#[inline(always)]
pub fn first_thread_sums_warp_totals(
    block: &ThreadBlock,
    warp: &ThreadBlockTile<32>,
    totals: &WarpTotals,
    v: f32,
) -> f32 {
    const WARPS: usize = FIXED_THREADS as usize / 32;
    assert_fixed_threads(block);
    share_warp_totals(block, warp, totals, v);
    if block.thread_rank() != 0 {
        return v;
    }
    let mut t: [f32; WARPS] = core::array::from_fn(|w| totals.get(w));
    let mut half = WARPS / 2;
    while half > 0 {
        for i in 0..half {
            t[i] += t[i + half];
        }
        half /= 2;
    }
    // The first warp's shuffles add its lanes past the eighth, all +0.0,
    // to each total: a sum of -0.0 comes out +0.0 there, and here.
    t[0] + 0.0
}

/// [`block_reduce_warp`] for blocks of exactly [`FIXED_THREADS`] threads,
/// thread 0 adding the warp totals
/// ([`first_thread_sums_warp_totals`]); the same sums, bit for bit.
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_warp_256(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let totals = shared_array!(f32; 32);
    let v = warp_sum(&warp, block_element(&block, input));
    let s = first_thread_sums_warp_totals(&block, &warp, &totals, v);
    write_block_result(&block, &mut block_sums, s);
}

/// The library's block collective, CUB's shape: `block_reduce_to_first` on
/// scratch the kernel declares (one barrier; the sum in thread 0), for
/// blocks of 256 threads. Its twin is `cub::BlockReduce<float, 256>::Sum`,
/// whose block size is a template parameter.
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_library(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let scratch = block_scratch!(f32);
    let (sum, _) = block_reduce_to_first(&block, scratch, block_element(&block, input), Plus);
    if let Some(sum) = sum {
        write_block_result(&block, &mut block_sums, sum);
    }
}

/// Classic shared-memory tree (the seed's approach 1), for blocks of up to
/// 1024 threads (a power of two).
#[kernel(grid_1d)]
pub fn block_reduce_classic(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let sdata = shared_array!(f32; 1024);
    // Every index below is under blockDim <= 1024, which the compiler
    // knows from the block's rank and size: no bounds checks.
    let tid = block.thread_rank();
    sdata.set(tid as usize, block_element(&block, input));
    block.sync();
    let mut s = block.num_threads() / 2;
    while s > 0 {
        if tid < s {
            let (i, j) = (tid as usize, (tid + s) as usize);
            sdata.set(i, sdata.get(i) + sdata.get(j));
        }
        block.sync();
        s >>= 1;
    }
    write_block_result(&block, &mut block_sums, sdata.get(0));
}

/// [`block_reduce_classic`] for blocks of exactly [`FIXED_THREADS`]
/// threads: the tree's steps down to 64 values in shared memory, each
/// followed by a block barrier, then the first warp adds the 64 in
/// registers (each lane its two, then shuffles 16, 8, 4, 2 and 1 apart:
/// the tree's last six steps, in its order); the same sums, bit for bit.
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_classic_256(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let sdata = shared_array!(f32; FIXED_THREADS as usize);
    assert_fixed_threads(&block);
    let tid = block.thread_rank() as usize;
    sdata.set(tid, block_element(&block, input));
    block.sync();
    let step = |s: usize| {
        if tid < s {
            sdata.set(tid, sdata.get(tid) + sdata.get(tid + s));
        }
        block.sync();
    };
    // Written out, as the chunked tree's steps below (a constant offset
    // each: no bounds check).
    step(128);
    step(64);
    // The other warps are done: they leave now, not after the sum's
    // bounds test (leaving after it cost 3.5% at 2^28 on an H200,
    // docs/NOTES.md).
    let warp = tiled_partition::<32>(&block);
    if tid < 32 {
        let sum = warp_sum(&warp, sdata.get(tid) + sdata.get(tid + 32));
        write_block_result(&block, &mut block_sums, sum);
    }
}

/// The hierarchical reduction's warp step: the 4-thread tiles' sums, then
/// the eight tile leaders'; the warp's total in its rank 0.
#[inline(always)]
fn hierarchical_warp_total(warp: &ThreadBlockTile<32>, mut v: f32) -> f32 {
    let tile4 = warp.segments::<4>();
    v += tile4.shfl_down(v, 2);
    v += tile4.shfl_down(v, 1);
    v += warp.shfl_down(v, 16);
    v += warp.shfl_down(v, 8);
    v += warp.shfl_down(v, 4);
    v
}

/// Hierarchical tiles (the seed's approach 3): 4-thread tiles, then the
/// eight tile leaders of each warp, then the block. Every lane takes part
/// in every shuffle (a full-warp shuffle from a divergent branch, as the
/// seed writes it, is undefined behaviour). The warp runs together, so its
/// 4-lane tiles are [`WarpSegments`]: one full-warp shuffle serves all
/// eight (CUDA's `thread_block_tile<4>` issues one per tile mask).
#[kernel(grid_1d)]
pub fn block_reduce_hierarchical(input: &[f32], mut block_sums: Output<f32, Leaders<ThreadBlock>>) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let v = hierarchical_warp_total(&warp, block_element(&block, input));
    let totals = shared_array!(f32; 32);
    let s = sum_warp_totals(&block, &warp, &totals, v);
    write_block_result(&block, &mut block_sums, s);
}

/// [`block_reduce_hierarchical`] for blocks of exactly [`FIXED_THREADS`]
/// threads, thread 0 adding the warp totals
/// ([`first_thread_sums_warp_totals`]); the same sums, bit for bit.
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_hierarchical_256(
    input: &[f32],
    mut block_sums: Output<f32, Leaders<ThreadBlock>>,
) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let v = hierarchical_warp_total(&warp, block_element(&block, input));
    let totals = shared_array!(f32; 32);
    let s = first_thread_sums_warp_totals(&block, &warp, &totals, v);
    write_block_result(&block, &mut block_sums, s);
}

// ---- The same sums, several chunks per block ------------------------------
//
// A block of the kernels above holds one load in flight per thread, then
// spends its life in barriers and shuffles: the GPU runs out of blocks to
// hide memory latency with long before it runs out of bandwidth. The
// kernels below give each block `CHUNKS` chunks of `blockDim` elements:
// every thread loads its element of each chunk first (all loads in
// flight), then the block reduces the chunks together, through the same
// barriers. Each chunk's sum has the bits of the one-chunk kernel's.
// Their blocks are 256 threads (`block_size(256)`), so the tree's steps and
// the warps' count are constants.

/// Chunks of `blockDim` elements per block of the `*_chunks` kernels.
pub const CHUNKS: usize = 8;

/// Threads per block of the `*_chunks` kernels (their
/// `#[kernel(block_size(256))]`): their shared memory holds `CHUNKS`
/// values per thread.
pub const CHUNK_THREADS: u32 = FIXED_THREADS;

/// The distance between two chunks' slots of one thread in the classic
/// tree's shared memory.
const STRIDE: usize = CHUNK_THREADS as usize;

/// One value per chunk (a thread's elements, or a warp's totals).
type Values = [f32; CHUNKS];

/// This thread's element of each of the block's chunks (`CHUNKS *
/// block_rank + k`, of `blockDim` elements each), all loads in flight; 0
/// past the end. Stops the kernel on a block of another size than
/// [`CHUNK_THREADS`] (a check that folds away under the kernels'
/// `block_size(256)`; it guards a direct call of the host build).
#[inline(always)]
fn chunk_elements(block: &ThreadBlock, input: &[f32]) -> Values {
    assert!(
        block.num_threads() == CHUNK_THREADS,
        "the *_chunks block reductions take blocks of 256 threads"
    );
    let threads = block.num_threads() as usize;
    let first = block.group_index().x as usize * CHUNKS * threads + block.thread_rank() as usize;
    core::array::from_fn(|k| input.get(first + k * threads).copied().unwrap_or(0.0))
}

/// Writes the block's chunk sums: thread `k` writes chunk `k`'s
/// (`sums(k)`, called in threads `k < CHUNKS` only).
#[inline(always)]
fn write_chunk_results(
    block: &ThreadBlock,
    block_sums: &mut Output<f32, Chunks>,
    sums: impl Fn(usize) -> f32,
) {
    if let Some(chunk) = block_sums.block_chunk(block, Const::<CHUNKS>) {
        chunk.for_thread(|slot, k| *slot = sums(k));
    }
}

/// [`warp_sum`] of each value, the chains interleaved (one shuffle of
/// each per step).
#[inline(always)]
fn warp_sums(warp: &ThreadBlockTile<32>, mut v: Values) -> Values {
    let mut offset = 16;
    while offset > 0 {
        for v in v.iter_mut() {
            *v += warp.shfl_down(*v, offset);
        }
        offset >>= 1;
    }
    v
}

/// [`sum_warp_totals`] of each chunk: the warps' totals meet in `totals`
/// (chunk `k`'s of warp `w` at `k * 32 + w`: no bank conflicts), the
/// first warp adds them up; returns, in each lane `k < CHUNKS` of the
/// first warp, chunk `k`'s sum (broadcast from lane 0).
#[inline(always)]
fn sum_chunk_totals(
    block: &ThreadBlock,
    warp: &ThreadBlockTile<32>,
    totals: &SharedArray<f32, { 32 * CHUNKS }>,
    v: Values,
) -> f32 {
    let (lane, w) = (warp.thread_rank() as usize, warp.meta_group_rank() as usize);
    if lane == 0 {
        for (k, &v) in v.iter().enumerate() {
            totals.set(k * 32 + w, v);
        }
    }
    block.sync();
    let mut mine = 0.0;
    if w == 0 {
        let v = if lane < warp.meta_group_size() as usize {
            core::array::from_fn(|k| totals.get(k * 32 + lane))
        } else {
            [0.0; CHUNKS]
        };
        let sums = warp_sums(warp, v).map(|s| warp.shfl(s, 0));
        mine = pick(&sums, lane);
    }
    mine
}

/// [`block_reduce_classic`], `CHUNKS` chunks per block: one tree over
/// every chunk at once (chunk `k`'s slot of thread `t` at `k * 256 + t`),
/// the same barriers. Launch `ceil(n / (CHUNKS * 256))` blocks of
/// [`CHUNK_THREADS`] threads; `block_sums`
/// holds one sum per `blockDim` elements.
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_classic_chunks(input: &[f32], mut block_sums: Output<f32, Chunks>) {
    let block = this_thread_block();
    let sdata = shared_array!(f32; CHUNKS * STRIDE);
    let v = chunk_elements(&block, input);
    // Below 256 (`block_size(256)`): the tree's indices are in bounds.
    let tid = block.thread_rank();
    for (k, &v) in v.iter().enumerate() {
        sdata.set(k * STRIDE + tid as usize, v);
    }
    block.sync();
    let step = |s: u32| {
        if tid < s {
            // Every load of the step before its first store: the
            // shared-memory accesses keep their order in the PTX.
            let (i, j) = (tid as usize, (tid + s) as usize);
            let a: Values = core::array::from_fn(|k| sdata.get(k * STRIDE + i));
            let b: Values = core::array::from_fn(|k| sdata.get(k * STRIDE + j));
            for k in 0..CHUNKS {
                sdata.set(k * STRIDE + i, a[k] + b[k]);
            }
        }
        block.sync();
    };
    // The tree's eight steps over 256 threads written out, as nvcc lays out
    // its `#pragma unroll` (LLVM keeps a loop of this body rolled): each
    // offset is a constant, so `tid + s` needs no bounds check.
    const { assert!(CHUNK_THREADS == 256) };
    step(128);
    step(64);
    step(32);
    step(16);
    step(8);
    step(4);
    step(2);
    step(1);
    write_chunk_results(&block, &mut block_sums, |k| sdata.get(k % CHUNKS * STRIDE));
}

/// [`block_reduce_warp`], `CHUNKS` chunks per block (the warp sums of the
/// chunks interleaved, one barrier for all of them). Launch as
/// [`block_reduce_classic_chunks`].
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_warp_chunks(input: &[f32], mut block_sums: Output<f32, Chunks>) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let totals = shared_array!(f32; 32 * CHUNKS);
    let v = warp_sums(&warp, chunk_elements(&block, input));
    let s = sum_chunk_totals(&block, &warp, &totals, v);
    write_chunk_results(&block, &mut block_sums, |_| s);
}

/// [`block_reduce_hierarchical`], `CHUNKS` chunks per block. Launch as
/// [`block_reduce_classic_chunks`].
#[kernel(grid_1d, block_size(256))]
pub fn block_reduce_hierarchical_chunks(input: &[f32], mut block_sums: Output<f32, Chunks>) {
    let block = this_thread_block();
    let warp = tiled_partition::<32>(&block);
    let tile4 = warp.segments::<4>();
    let mut v = chunk_elements(&block, input);
    for offset in [2, 1] {
        for v in v.iter_mut() {
            *v += tile4.shfl_down(*v, offset);
        }
    }
    for offset in [16, 8, 4] {
        for v in v.iter_mut() {
            *v += warp.shfl_down(*v, offset);
        }
    }
    let totals = shared_array!(f32; 32 * CHUNKS);
    let s = sum_chunk_totals(&block, &warp, &totals, v);
    write_chunk_results(&block, &mut block_sums, |_| s);
}
