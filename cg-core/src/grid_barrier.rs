//! The arrival tree behind `grid.sync()`.
//!
//! CUDA's grid barrier has every block's thread 0 add its arrival to one
//! counter in the driver's grid workspace: at 1,056 blocks that is 1,056
//! atomics queued on one L2 line, about 2 µs per barrier. Here the blocks
//! arrive on up to 32 counters, each on a 128-byte line of its own (block
//! `r` on counter `r % 32`), so the arrivals proceed in parallel; the last
//! arrival on each counter resets it and arrives on a top counter; the last
//! arrival there resets it and advances a generation word, on which every
//! block waits.
//!
//! ```text
//! line 0..31   arrival counters         atom.acq_rel.gpu.add (one per block)
//! line 32      top counter              atom.acq_rel.gpu.add (one per counter)
//! line 33      generation               ld.relaxed before arriving, st.release by the last block,
//!                                        ld.acquire while waiting
//! ```
//!
//! Ordering: a block's writes are ordered before its arrival by `bar.sync`
//! and the release half of its `atom`; the arrivals on a counter form one
//! release sequence that the counter's last arrival acquires, and so on up
//! the tree to the generation store, which every waiting block acquires
//! before its closing `bar.sync`. Each counter is reset before the arrival
//! that releases the next level, so it reads 0 again before any block can
//! pass the barrier and arrive at the next one. The state is one `.global`
//! array of the module, zero when the module loads, and back to all-zero
//! counters after every completed barrier; kernels of one module that wait
//! at grid barriers at the same time would share it, which the host rules
//! out (one stream per device, and a cooperative grid fills the GPU).

use crate::intrinsics::{self, atom};

/// Arrival counters: blocks arrive on `block_rank % COUNTERS`.
const COUNTERS: u32 = 32;
/// Bytes between two counters: one L2 line each.
const LINE: u64 = 128;

/// Where the barrier's state lives.
#[derive(Clone, Copy)]
struct State {
    base: u64,
}

impl State {
    #[inline(always)]
    fn get() -> Self {
        State {
            base: intrinsics::grid_barrier_state(),
        }
    }

    #[inline(always)]
    fn line(self, i: u32) -> atom::Place {
        atom::Place::Global(self.base + i as u64 * LINE)
    }

    #[inline(always)]
    fn top(self) -> atom::Place {
        self.line(COUNTERS)
    }

    #[inline(always)]
    fn generation(self) -> atom::Place {
        self.line(COUNTERS + 1)
    }
}

/// Thread 0 of a block arrives for the block (after the block's
/// `bar.sync`); returns the generation to wait past.
#[inline(always)]
pub(crate) fn arrive(block_rank: u32, num_blocks: u32) -> u32 {
    let s = State::get();
    let counters = num_blocks.min(COUNTERS);
    let counter = block_rank % counters;
    let members = num_blocks / counters + (counter < num_blocks % counters) as u32;
    use atom::{Scope::Gpu, Sem};
    // SAFETY: every place is inside the module's barrier array, touched
    // only by these atomics, loads and stores.
    unsafe {
        let generation = atom::ld_b32(s.generation(), Sem::Relaxed, Gpu);
        let seen = atom::atom_add_u32(s.line(counter), 1, Sem::AcqRel, Gpu);
        if seen == members - 1 {
            atom::st_b32(s.line(counter), 0, Sem::Relaxed, Gpu);
            let tops = atom::atom_add_u32(s.top(), 1, Sem::AcqRel, Gpu);
            if tops == counters - 1 {
                atom::st_b32(s.top(), 0, Sem::Relaxed, Gpu);
                atom::st_b32(s.generation(), generation.wrapping_add(1), Sem::Release, Gpu);
            }
        }
        generation
    }
}

/// Thread 0 of a block waits until the generation moves past `generation`.
#[inline(always)]
pub(crate) fn wait(generation: u32) {
    let s = State::get();
    // SAFETY: as in `arrive`.
    unsafe {
        while atom::ld_b32(s.generation(), atom::Sem::Acquire, atom::Scope::Gpu) == generation {}
    }
}
