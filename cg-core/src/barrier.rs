//! A block-scope split barrier over a shared-memory `mbarrier`: the
//! `cuda::barrier<cuda::thread_scope_block>` of CUDA C++, with copies that
//! complete on it.
//!
//! ```ignore
//! let block = this_thread_block();
//! let bar = block_barrier!(&block, block.num_threads());   // init + block.sync()
//! bar.memcpy_async(&block, smem, &src[start..end]);         // lands on the barrier
//! bar.arrive_and_wait();                                    // copy landed, all arrived
//! ```
//!
//! Each phase completes when the expected number of threads have arrived
//! and every copy started on it has landed. Arrival releases, waiting
//! acquires: what a thread wrote before arriving is visible to every thread
//! that has waited for that phase.
//!
//! [`memcpy_async`](Barrier::memcpy_async) copies are `cp.async` copies
//! shared out over the group, each thread's completion tied to the barrier
//! with `cp.async.mbarrier.arrive` (CUDA's choice for a plain byte count).
//! [`memcpy_async_bulk`](Barrier::memcpy_async_bulk) (sm_90) sends a copy
//! whose ends and length are 16-byte aligned to the bulk copy engine
//! instead (`cp.async.bulk`, one instruction issued by one thread, its
//! bytes counted by the barrier's transaction count): CUDA's
//! `cuda::aligned_size_t<16>`. Neither is faster everywhere: the bulk
//! engine suits long copies, one thread's `cp.async` per element short
//! ones (a block's chunk of a vector addition: 0.7-0.9% faster without
//! the bulk engine on an H100, `docs/NOTES.md`).

use crate::intrinsics;
use crate::memcpy_async::{self, AsyncCopyGroup};
use crate::shared::{SharedArray, SharedSlice};
use bytemuck::Pod;

/// A block-scope barrier in shared memory. Make one with
/// [`block_barrier!`](crate::block_barrier) (or [`Barrier::init`]).
#[derive(Clone, Copy)]
pub struct Barrier {
    addr: u32,
}

/// The phase a thread arrived at, from [`Barrier::arrive`]; pass it to
/// [`Barrier::wait`].
#[must_use = "wait on the token to complete the barrier phase"]
pub struct ArrivalToken(u64);

impl Barrier {
    /// `init(&bar, expected)` by the group's first thread, then a group
    /// sync, so that no thread uses the barrier before it exists. Every
    /// thread of `group` must call it. `expected` (1 to 2^20 - 1) is the
    /// number of arrivals that complete each phase.
    #[inline(always)]
    pub fn init<G: AsyncCopyGroup>(group: &G, storage: SharedArray<u64, 1>, expected: u32) -> Self {
        assert!(expected > 0 && expected < 1 << 20);
        let addr = storage.shared_addr();
        if group.thread_rank() == 0 {
            // SAFETY: an 8-byte-aligned shared word of this call site.
            unsafe { intrinsics::mbarrier_init(addr, expected) };
        }
        group.sync();
        Barrier { addr }
    }

    /// The barrier's address in the shared window.
    #[inline(always)]
    pub fn shared_addr(&self) -> u32 {
        self.addr
    }

    /// `bar.arrive()`: counts the calling thread's arrival (release) and
    /// returns its phase.
    #[inline(always)]
    pub fn arrive(&self) -> ArrivalToken {
        // SAFETY: an initialised barrier (see `init`).
        ArrivalToken(unsafe { intrinsics::mbarrier_arrive(self.addr) })
    }

    /// `bar.wait(token)`: waits until the token's phase completes (acquire).
    #[inline(always)]
    pub fn wait(&self, token: ArrivalToken) {
        // SAFETY: an initialised barrier.
        while !unsafe { intrinsics::mbarrier_test_wait(self.addr, token.0) } {}
    }

    /// `bar.arrive_and_wait()`.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        self.wait(self.arrive())
    }

    /// `bar.arrive_and_drop()`: arrives for this phase and leaves the
    /// barrier: every later phase expects one arrival fewer.
    #[inline(always)]
    pub fn arrive_and_drop(&self) {
        // SAFETY: an initialised barrier.
        unsafe { intrinsics::mbarrier_arrive_drop(self.addr) }
    }

    /// `cuda::memcpy_async(group, dst, src, bytes, bar)`: the group copies
    /// what fits of `src` (`min(dst.len(), src.len())` elements, returned)
    /// to the start of `dst`; the copy is complete when the barrier's
    /// current phase is. Every thread of the group must call it with the
    /// same arguments, and then arrive as usual. The copy is shared out
    /// over the group's threads as `cp.async` copies (see
    /// [`memcpy_async`] for the units), never the bulk copy engine:
    /// [`memcpy_async_bulk`](Self::memcpy_async_bulk) asks for that.
    #[inline(always)]
    pub fn memcpy_async<G: AsyncCopyGroup, T: Pod>(
        &self,
        group: &G,
        dst: SharedSlice<T>,
        src: &[T],
    ) -> usize {
        let n = memcpy_async::issue(group, dst, src);
        // SAFETY: an initialised barrier.
        unsafe { intrinsics::cp_async_mbarrier_arrive(self.addr) };
        n
    }

    /// [`memcpy_async`](Self::memcpy_async) on the bulk copy engine where
    /// it can serve (CUDA's `cuda::memcpy_async(group, dst, src,
    /// cuda::aligned_size_t<16>(bytes), bar)`): when both ends and the
    /// length are 16-byte aligned (checked at run time) the group's first
    /// thread issues one `cp.async.bulk` whose bytes the barrier's current
    /// phase counts; any other copy (a chunk's tail) goes as
    /// `memcpy_async` does. Same contract and return value.
    ///
    /// A bulk copy is ordered after the group's earlier reads of `dst` by
    /// the barrier phase that separates them, as in CUDA. Ordinary stores
    /// into `dst` since that phase need [`fence_proxy_async_shared`] before
    /// the copy (CUDA's `fence.proxy.async`), or the copy may land before
    /// them.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    pub fn memcpy_async_bulk<G: AsyncCopyGroup, T: Pod>(
        &self,
        group: &G,
        dst: SharedSlice<T>,
        src: &[T],
    ) -> usize {
        let n = src.len().min(dst.len());
        let bytes = (n * core::mem::size_of::<T>()) as u32;
        let (d, s) = (dst.shared_addr(), src.as_ptr() as *const u8);
        if !memcpy_async::aligned16(d, s, bytes) {
            return self.memcpy_async(group, dst, src);
        }
        if bytes != 0 && group.thread_rank() == 0 {
            // SAFETY: 16-byte aligned ends and length, inside `dst` and
            // `src`; a barrier of this block.
            unsafe {
                intrinsics::mbarrier_expect_tx(self.addr, bytes);
                intrinsics::cp_async_bulk_global_to_shared(d, s, bytes, self.addr);
            }
        }
        n
    }
}

/// `fence.proxy.async.shared::cta` (sm_90, CUDA's
/// `cuda::ptx::fence_proxy_async(space_shared)`): orders the calling
/// thread's earlier ordinary accesses to shared memory (and those it has
/// seen through a barrier) before later bulk copies into the same memory.
/// See [`Barrier::memcpy_async_bulk`].
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub fn fence_proxy_async_shared() {
    intrinsics::fence_proxy_async_shared()
}

/// Declares a block-scope [`Barrier`] in shared memory and initialises it
/// for `expected` arrivals: `block_barrier!(&group, expected)`. Every
/// thread of the group must reach it.
#[macro_export]
macro_rules! block_barrier {
    ($group:expr, $expected:expr) => {
        $crate::barrier::Barrier::init($group, $crate::shared_array!(u64; 1), $expected)
    };
}
