//! Probes of `memcpy_async`, the block barrier and the pipeline behind
//! `tests/gpu_async.rs`.
//!
//! [`copy_probe`]: block `k` runs case `cases[4k..4k + 4]` = (source offset,
//! destination offset, count, mode), in elements of `T`, over the whole
//! dynamic shared region: it fills the region with `poison`, copies
//! `src[src_off..src_off + count]` to `region[dst_off..]` the way `mode`
//! says, and writes the whole region to `out[k * len..]`. The host checks
//! the copied range and that the poison around it is intact.

use cg_core::prelude::*;

/// The modes of [`copy_probe`].
pub mod mode {
    /// `memcpy_async(block)` + `wait(block)`.
    pub const BLOCK: u32 = 0;
    /// Each warp copies its share with `memcpy_async(tile)` + `wait(tile)`,
    /// the tiles cut at run time (`tiled_partition_dynamic(block, 32)`), so
    /// that the partial last warp is a tile of the threads it has.
    pub const TILES: u32 = 1;
    /// Two batches; the first half is read after `wait_prior::<1>`.
    pub const WAIT_PRIOR: u32 = 2;
    /// On a block barrier (`cp.async` shared out over the block).
    pub const BARRIER: u32 = 3;
    /// Two stages of a 2-stage pipeline, consumed in order.
    pub const PIPELINE: u32 = 4;
    /// In each warp, the lanes whose lane index is a multiple of 3 form a
    /// coalesced group that copies the warp's share.
    pub const COALESCED: u32 = 5;
    /// `memcpy_async(block, dst, &src[src_off..])`: the source runs on past
    /// `count`; the copy takes what fits in `dst` (`count` elements).
    pub const WHAT_FITS: u32 = 6;
    /// On a block barrier with `memcpy_async_bulk`: the bulk copy engine
    /// where the ends and length are 16-byte aligned (sm_90; the module
    /// for older GPUs runs [`BARRIER`]'s copy).
    pub const BARRIER_BULK: u32 = 7;
    /// `memcpy_async_aligned(block)` + `wait(block)`: 16-byte pieces where
    /// the ends and length are 16-byte aligned, else `memcpy_async`'s copy.
    pub const ALIGNED: u32 = 8;
}

/// The share `part` of `parts` of `0..count`: `(start, len)`.
#[inline(always)]
fn share(count: usize, part: usize, parts: usize) -> (usize, usize) {
    let each = count.div_ceil(parts);
    let start = (part * each).min(count);
    (start, each.min(count - start))
}

/// `group` copies warp `warp`'s share of `from` into the same place of
/// `dst`, and waits.
#[inline(always)]
fn copy_share<G: AsyncCopyGroup, T: Pod, W: WarpGroup>(
    group: &G,
    warp: &W,
    dst: SharedSlice<T>,
    from: &[T],
) {
    let (a, n) = share(
        from.len(),
        warp.meta_group_rank() as usize,
        warp.meta_group_size() as usize,
    );
    memcpy_async(group, dst.subslice(a, n), &from[a..a + n]);
    wait(group);
}

/// The copy probe (see the module docs), one instance per element size.
#[kernel(instances(copy_probe_u8 = <u8>, copy_probe_u32 = <u32>, copy_probe_u64 = <u64>))]
pub fn copy_probe<T: Pod>(cases: &[u32], src: &[T], out: *mut T, poison: T) {
    let block = this_thread_block();
    let k = this_grid().block_rank() as usize;
    let (s_off, d_off, count, mode) = (
        cases[4 * k] as usize,
        cases[4 * k + 1] as usize,
        cases[4 * k + 2] as usize,
        cases[4 * k + 3],
    );
    let region = dynamic_shared::<T>();
    let (t, nt) = (block.thread_rank() as usize, block.num_threads() as usize);
    let mut i = t;
    while i < region.len() {
        region.set(i, poison);
        i += nt;
    }
    block.sync();
    let dst = region.subslice(d_off, count);
    let from = &src[s_off..s_off + count];
    // Elements already written to `out` (by the wait_prior mode).
    let mut done = 0;
    match mode {
        mode::BLOCK => {
            memcpy_async(&block, dst, from);
            wait(&block);
        }
        mode::TILES => {
            let warp = tiled_partition_dynamic(&block, 32);
            copy_share(&warp, &warp, dst, from);
            block.sync();
        }
        mode::WAIT_PRIOR => {
            let h = count / 2;
            memcpy_async(&block, dst.subslice(0, h), &from[..h]);
            memcpy_async(&block, dst.subslice(h, count - h), &from[h..]);
            wait_prior::<1>(&block);
            let mut i = t;
            while i < h {
                // SAFETY: `out` holds `region.len()` values per block (the
                // test's launch) and `d_off + i < region.len()`; each index is
                // written by one thread (`i` steps by the block size from the
                // thread's rank).
                unsafe { *out.add(k * region.len() + d_off + i) = dst.get(i) };
                i += nt;
            }
            done = h;
            wait(&block);
        }
        mode::BARRIER => {
            let bar = block_barrier!(&block, block.num_threads());
            bar.memcpy_async(&block, dst, from);
            bar.arrive_and_wait();
        }
        mode::BARRIER_BULK => {
            let bar = block_barrier!(&block, block.num_threads());
            // The poison above was written by ordinary stores; order them
            // before a bulk copy into the same bytes.
            #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
            {
                if block.thread_rank() == 0 {
                    cg_core::barrier::fence_proxy_async_shared();
                }
                bar.memcpy_async_bulk(&block, dst, from);
            }
            #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
            bar.memcpy_async(&block, dst, from);
            bar.arrive_and_wait();
        }
        mode::PIPELINE => {
            let h = count / 2;
            let mut pipe = make_pipeline::<2>();
            let first = pipe.producer_acquire();
            pipe.memcpy_async(&block, dst.subslice(0, h), &from[..h]);
            pipe.producer_commit();
            let second = pipe.producer_acquire();
            pipe.memcpy_async(&block, dst.subslice(h, count - h), &from[h..]);
            pipe.producer_commit();
            let got = pipe.consumer_wait();
            pipe.consumer_release();
            let got2 = pipe.consumer_wait();
            pipe.consumer_release();
            block.sync();
            let slots = [first, second, got, got2].map(|s| s.index());
            if slots[0] != 0 || slots[1] != 1 || slots[2] != 0 || slots[3] != 1 {
                cg_core::fault::trap();
            }
        }
        mode::WHAT_FITS => {
            if memcpy_async(&block, dst, &src[s_off..]) != count {
                cg_core::fault::trap();
            }
            wait(&block);
        }
        mode::ALIGNED => {
            if memcpy_async_aligned(&block, dst, &src[s_off..]) != count {
                cg_core::fault::trap();
            }
            wait(&block);
        }
        _ => {
            let warp = tiled_partition::<32>(&block);
            if warp.thread_rank() % 3 == 0 {
                copy_share(&coalesced_threads(), &warp, dst, from);
            }
            block.sync();
        }
    }
    let mut i = t;
    while i < region.len() {
        if !(d_off..d_off + done).contains(&i) {
            // SAFETY: `out` holds `region.len()` values per block (the test's
            // launch) and `i < region.len()`; each index is written by one
            // thread (`i` steps by the block size from the thread's rank).
            unsafe { *out.add(k * region.len() + i) = region.get(i) };
        }
        i += nt;
    }
}

/// A block barrier through phases with split arrivals and early leavers:
/// threads of rank `keep` and above `arrive_and_drop` at once and leave;
/// the others run 4 rounds in which each thread writes `data[t] + round`
/// to shared memory, arrives (and waits on its token after unrelated
/// work), and adds its right neighbour's value (among the `keep`). Thread
/// `t < keep` writes its total to `out[t]`; launch one block of at most
/// 1024 threads.
#[kernel]
pub fn barrier_rounds(data: &[u32], keep: u32, out: *mut u32) {
    let block = this_thread_block();
    let t = block.thread_rank();
    let vals = shared_array!(u32; 1024);
    let bar = block_barrier!(&block, block.num_threads());
    if t >= keep {
        bar.arrive_and_drop();
        return;
    }
    let mut total = 0u32;
    for round in 0..4 {
        vals.set(t as usize, data[t as usize] + round);
        let token = bar.arrive();
        total = total.wrapping_mul(3);
        bar.wait(token);
        total = total.wrapping_add(vals.get(((t + 1) % keep) as usize));
        bar.arrive_and_wait();
    }
    // SAFETY: `out` holds one value per thread (the test's launch): this
    // thread's own slot.
    unsafe { *out.add(t as usize) = total };
}
