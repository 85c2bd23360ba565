//! Kernels with bugs planted on purpose, so that the tests can show each
//! checker catches its kind of bug and the host deadline catches a hang.
//! None of them is launched by an ordinary test run; see tests/planted.rs.

use cg_core::prelude::*;

/// Writes `out[0..=n]`: one element past the end (memcheck).
#[kernel]
pub fn planted_out_of_bounds_write(out: *mut u32, n: u32) {
    let i = this_grid().thread_rank() as u32;
    if i <= n {
        // SAFETY: none for `i == n`, on purpose: `out` holds `n` values, and
        // the write of `out[n]` is the bug memcheck must report
        // (tests/planted.rs; never launched in an ordinary run). For `i < n`
        // this thread's own slot.
        unsafe { *out.add(i as usize) = i };
    }
}

/// Threads of different warps write the same shared word, and read a word
/// another thread wrote, with no barrier between (racecheck).
#[kernel]
pub fn planted_shared_race(out: *mut u32) {
    let block = this_thread_block();
    let t = block.thread_rank();
    let s = shared_array!(u32; 32);
    s.set((t % 32) as usize, t);
    let v = s.get(((t + 1) % 32) as usize);
    // SAFETY: `out` holds one value per thread of the block (the test
    // launches one block): this thread's own slot. (The planted race is on
    // the shared array above.)
    unsafe { *out.add(t as usize) = v };
}

/// A warp barrier whose member mask leaves out the calling thread: each
/// lane names only the next lane (synccheck reports invalid arguments).
/// (A block barrier reached by 48 of 64 threads and a warp barrier reached
/// by half a warp went unreported by synccheck on an H200.)
#[kernel]
pub fn planted_warp_barrier_mask(out: *mut u32) {
    let block = this_thread_block();
    let t = block.thread_rank();
    // SAFETY: none, on purpose (the planted bug): `from_mask` asks that the
    // caller's lane be in the mask, which this mask breaks, so `sync` is a
    // `bar.warp.sync` that leaves the caller out, what synccheck must
    // report (tests/planted.rs; never launched in an ordinary run).
    unsafe { CoalescedGroup::from_mask(1 << ((t + 1) % 32)) }.sync();
    // SAFETY: `out` holds one value per thread of the block (the test
    // launches one block): this thread's own slot.
    unsafe { *out.add(t as usize) = t };
}

/// Copies `input` to `out`; given memory nobody wrote, it reads
/// uninitialised global memory (initcheck).
#[kernel]
pub fn planted_copy(input: &[u32], out: *mut u32) {
    let i = this_grid().thread_rank() as usize;
    if i < input.len() {
        // SAFETY: `i < input.len()`, and `out` is as long as `input` (the
        // test's launch): this thread's own slot.
        unsafe { *out.add(i) = input[i] };
    }
}

/// Spins until `flag[0]` is non-zero, which nothing ever makes it: a
/// deadlock the host's deadline must catch.
#[kernel]
pub fn planted_spin_forever(flag: *const u32) {
    // SAFETY: `flag` holds at least one `u32` (the test's launch); a volatile
    // read, so each iteration reads it anew. The planted bug is the hang, not
    // the read.
    while unsafe { core::ptr::read_volatile(flag) } == 0 {}
}
