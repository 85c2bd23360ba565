//! `thread_block`: all threads of one block (CTA).
//!
//! `sync()` lowers to `bar.sync 0` (`__syncthreads()`); the queries read the
//! `%tid`, `%ntid` and `%ctaid` special registers.

use crate::group::{Dim3, ThreadGroup};
use crate::intrinsics;

/// The calling thread's block. Obtain it with [`this_thread_block`].
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
}

impl ThreadGroup for ThreadBlock {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        self.dim_threads().volume()
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        self.dim_threads().linear(self.thread_index())
    }

    #[inline(always)]
    fn sync(&self) {
        intrinsics::bar_sync()
    }
}
