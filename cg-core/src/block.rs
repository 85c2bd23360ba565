//! `thread_block`: all threads of one block (CTA).
//!
//! `sync()` lowers to `bar.sync 0` (`__syncthreads()`); the queries read the
//! `%tid`, `%ntid` and `%ctaid` special registers.

use crate::group::{sealed_groups, Dim3, GroupSync, ThreadGroup};
use crate::stride::Stride;
use crate::{intrinsics, lanes};

/// The calling thread's block. Obtain it with [`this_thread_block`].
///
/// ```ignore
/// let block = this_thread_block();
/// let t = block.thread_index();           // threadIdx
/// let r = block.thread_rank();            // x fastest, then y, then z
/// block.sync();                           // __syncthreads()
/// ```
#[derive(Clone, Copy)]
pub struct ThreadBlock {
    _private: (),
}

/// `cg::this_thread_block()`.
#[inline(always)]
pub fn this_thread_block() -> ThreadBlock {
    ThreadBlock { _private: () }
}

impl ThreadBlock {
    /// This thread's indices of a block-stride loop over `0..n`:
    /// `thread_rank()`, then every `num_threads()` after it, below `n`
    /// (see [`GridGroup::stride`](crate::grid::GridGroup::stride)).
    #[inline(always)]
    pub fn stride(&self, n: usize) -> Stride {
        Stride::new(self.thread_rank() as usize, self.num_threads() as usize, n)
    }

    /// `blockIdx`: this block's index in the grid.
    #[inline(always)]
    pub fn group_index(&self) -> Dim3 {
        intrinsics::block_idx().into()
    }

    /// `threadIdx`: this thread's index in the block.
    #[inline(always)]
    pub fn thread_index(&self) -> Dim3 {
        intrinsics::thread_idx().into()
    }

    /// `blockDim`: the block's extent in threads.
    #[inline(always)]
    pub fn dim_threads(&self) -> Dim3 {
        intrinsics::block_dim().into()
    }

    /// `blockDim` under CUDA's other name (`thread_block::group_dim()`).
    #[inline(always)]
    pub fn group_dim(&self) -> Dim3 {
        self.dim_threads()
    }

    /// The first half of a split block barrier (`thread_block::barrier_arrive()`):
    /// nothing happens until [`barrier_wait`](Self::barrier_wait), which is
    /// the whole barrier, as in CUDA. The token makes the pairing explicit.
    #[inline(always)]
    pub fn barrier_arrive(&self) -> BlockArrivalToken {
        BlockArrivalToken { _private: () }
    }

    /// The second half of a split block barrier
    /// (`thread_block::barrier_wait(token)`): `bar.sync 0`, with the same
    /// ordering as [`sync`](GroupSync::sync).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn barrier_wait(&self, token: BlockArrivalToken) {
        let BlockArrivalToken { _private: () } = token;
        self.sync()
    }
}

/// The token of [`ThreadBlock::barrier_arrive`], consumed by
/// [`ThreadBlock::barrier_wait`] (CUDA's `thread_block::arrival_token`).
#[must_use = "a block barrier arrival is completed by barrier_wait"]
pub struct BlockArrivalToken {
    _private: (),
}

impl ThreadBlock {
    /// The lanes of the caller's warp that exist in this block: all 32,
    /// except in a last warp that the block's size cuts short.
    #[inline(always)]
    pub fn warp_lanes(&self) -> u32 {
        lanes::warp_lanes(self.num_threads(), self.thread_rank())
    }
}

sealed_groups!([] ThreadBlock);

impl GroupSync for ThreadBlock {
    /// `bar.sync 0` (`__syncthreads()`), through LLVM's convergent barrier
    /// intrinsic.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn sync(&self) {
        // SAFETY: every thread of the block calls it (`GroupSync`'s
        // contract), so all of them reach this barrier.
        unsafe { intrinsics::bar_sync() }
    }
}

/// The most threads a block can have, on every architecture CUDA supports.
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// Ranks and sizes inside a block tell the compiler what the hardware
/// guarantees (at most [`MAX_BLOCK_THREADS`] threads), so an index derived
/// from them into an array of that many elements (a warp's slot of 32, a
/// thread's slot of 1024) needs no bounds check.
impl ThreadGroup for ThreadBlock {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        let n = self.dim_threads().volume();
        // SAFETY: a launch cannot have a block of more threads (the driver
        // refuses it), nor of none.
        unsafe { core::hint::assert_unchecked((1..=MAX_BLOCK_THREADS).contains(&n)) };
        n
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        let r = self.dim_threads().linear(self.thread_index());
        // SAFETY: a rank is below the block's size, which is at most
        // MAX_BLOCK_THREADS.
        unsafe { core::hint::assert_unchecked(r < MAX_BLOCK_THREADS) };
        r
    }
}
