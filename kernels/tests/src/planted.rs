//! Kernels with bugs planted on purpose, so that the tests can show each
//! checker catches its kind of bug and the host deadline catches a hang.
//! None of them is launched by an ordinary test run; see tests/planted.rs.

use cg_core::prelude::*;

/// Writes `out[0..=n]`: one element past the end (memcheck).
#[kernel]
pub fn planted_out_of_bounds_write(out: *mut u32, n: u32) {
    let i = this_grid().thread_rank() as u32;
    if i <= n {
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
    // The planted bug: `from_mask`'s contract (the caller's lane is in the
    // mask) is broken on purpose, so `sync` is `bar.warp.sync` with a mask
    // that leaves the caller out.
    unsafe { CoalescedGroup::from_mask(1 << ((t + 1) % 32)) }.sync();
    unsafe { *out.add(t as usize) = t };
}

/// Copies `input` to `out`; given memory nobody wrote, it reads
/// uninitialised global memory (initcheck).
#[kernel]
pub fn planted_copy(input: &[u32], out: *mut u32) {
    let i = this_grid().thread_rank() as usize;
    if i < input.len() {
        unsafe { *out.add(i) = input[i] };
    }
}

/// Spins until `flag[0]` is non-zero, which nothing ever makes it: a
/// deadlock the host's deadline must catch.
#[kernel]
pub fn planted_spin_forever(flag: *const u32) {
    while unsafe { core::ptr::read_volatile(flag) } == 0 {}
}
