//! A multi-stage copy pipeline: `cuda::pipeline<cuda::thread_scope_thread>`
//! from `cuda::make_pipeline()`, with the number of stages a const generic.
//!
//! ```ignore
//! let mut pipe = make_pipeline::<4>();
//! let ring = pipe.ring(dynamic_shared::<f32>(), 256);   // 4 stages of 256
//! for k in 0..4 {                                      // fill every stage
//!     let slot = pipe.producer_acquire();
//!     pipe.memcpy_async(&block, ring.stage(slot), chunk(k));
//!     pipe.producer_commit();
//! }
//! for k in 0..chunks {
//!     let slot = pipe.consumer_wait();                 // oldest stage has landed
//!     block.sync();                                    // ... for every thread's share
//!     compute(ring.stage(slot));
//!     block.sync();
//!     pipe.consumer_release();
//!     let slot = pipe.producer_acquire();              // the stage just released
//!     pipe.memcpy_async(&block, ring.stage(slot), chunk(k + 4));
//!     pipe.producer_commit();
//! }
//! ```
//!
//! Each thread tracks its own batches (`cp.async.commit_group` per stage),
//! as in CUDA: a pipeline does not synchronize the group, so when the
//! threads copy for each other, follow the consumer wait with a group
//! sync. Unlike CUDA's, this pipeline names the ring-buffer slot of each
//! stage ([`Slot`], always below `STAGES`, so a [`StageRing`] checked once
//! hands out stage buffers with no further checks) and checks its
//! protocol: acquiring a stage while all `STAGES` hold unreleased data,
//! releasing a stage never committed, or a `consumer_wait_prior::<N>` that
//! would not cover the stage being consumed stops the kernel (a failed check
//! that the host reports with the caller's line) instead of letting a copy
//! overwrite data in use or a thread read data that has not landed.

use crate::fault::check;
use crate::intrinsics;
use crate::memcpy_async::{self, AsyncCopyGroup};
use crate::shared::SharedSlice;
use bytemuck::Pod;

/// A thread-scope pipeline of `STAGES` (1 to 8) stages. Make one with
/// [`make_pipeline`].
pub struct Pipeline<const STAGES: usize> {
    /// Stages committed and not yet released.
    in_flight: u32,
    /// The slot of the stage being produced. (It is `tail` plus
    /// `in_flight`, round-robin, but kept rather than derived: derived, the
    /// pipelined vector additions' loops came out longer in the SASS;
    /// `docs/NOTES.md`, 2026-11-26.)
    head: Slot<STAGES>,
    /// The slot of the oldest unreleased stage.
    tail: Slot<STAGES>,
}

/// The ring-buffer slot of one stage of a `Pipeline<STAGES>`: always below
/// `STAGES`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Slot<const STAGES: usize>(u32);

impl<const STAGES: usize> Slot<STAGES> {
    /// The slot after this one, round-robin. (Slots step on their own
    /// rather than as a stage count modulo `STAGES`: a count would wrap
    /// after 2^32 stages onto the wrong slot unless `STAGES` divides 2^32.)
    #[inline(always)]
    fn next(self) -> Self {
        let s = self.0 + 1;
        Slot(if s == STAGES as u32 { 0 } else { s })
    }

    /// The slot as an index, `0..STAGES`.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// `STAGES` equal buffers of shared memory, one per pipeline stage, from
/// [`Pipeline::ring`]: its extent is checked once, so [`StageRing::stage`]
/// needs no check.
#[derive(Clone, Copy)]
pub struct StageRing<T: Pod, const STAGES: usize> {
    region: SharedSlice<T>,
    stage_len: u32,
}

impl<T: Pod, const STAGES: usize> StageRing<T, STAGES> {
    /// The buffer of stage `slot`.
    #[inline(always)]
    pub fn stage(&self, slot: Slot<STAGES>) -> SharedSlice<T> {
        let start = slot.0 * self.stage_len;
        // SAFETY: `slot < STAGES` and the region holds `STAGES` buffers.
        unsafe {
            SharedSlice::from_raw(
                self.region.shared_addr() + start * core::mem::size_of::<T>() as u32,
                self.stage_len,
            )
        }
    }

    /// Elements per stage.
    #[inline(always)]
    pub fn stage_len(&self) -> usize {
        self.stage_len as usize
    }
}

/// `cuda::make_pipeline()`: an empty pipeline of `STAGES` stages.
#[inline(always)]
pub fn make_pipeline<const STAGES: usize>() -> Pipeline<STAGES> {
    const { assert!(STAGES >= 1 && STAGES <= 8, "a pipeline has 1 to 8 stages") };
    Pipeline {
        in_flight: 0,
        head: Slot(0),
        tail: Slot(0),
    }
}

impl<const STAGES: usize> Pipeline<STAGES> {
    /// `producer_acquire()`: the slot (round-robin) of the stage the next
    /// copies fill. Stops the kernel when every stage holds data not yet
    /// released.
    #[inline(always)]
    #[track_caller]
    pub fn producer_acquire(&mut self) -> Slot<STAGES> {
        check(
            self.in_flight < STAGES as u32,
            "pipeline: producer_acquire() while every stage holds data not yet released \
             (call consumer_release() first)",
        );
        self.head
    }

    /// A [`StageRing`] of `STAGES` buffers of `stage_len` elements at the
    /// start of `region` (the kernel stops when they do not fit): checked
    /// here, once.
    #[inline(always)]
    #[track_caller]
    pub fn ring<T: Pod>(&self, region: SharedSlice<T>, stage_len: usize) -> StageRing<T, STAGES> {
        check(
            stage_len <= region.len() / STAGES,
            "pipeline: ring(region, stage_len): STAGES buffers of stage_len elements do not fit in the region",
        );
        StageRing {
            region,
            stage_len: stage_len as u32,
        }
    }

    /// `cuda::memcpy_async(group, dst, src, bytes, pipe)`: the group copies
    /// what fits of `src` (`min(dst.len(), src.len())` elements, returned)
    /// to the start of `dst` as part of the stage being produced. Every
    /// thread of the group must call it with the same arguments.
    #[inline(always)]
    pub fn memcpy_async<G: AsyncCopyGroup, T: Pod>(
        &self,
        group: &G,
        dst: SharedSlice<T>,
        src: &[T],
    ) -> usize {
        memcpy_async::issue(group, dst, src)
    }

    /// `producer_commit()`: closes the stage being produced.
    #[inline(always)]
    pub fn producer_commit(&mut self) {
        intrinsics::cp_async_commit();
        self.head = self.head.next();
        self.in_flight = self.in_flight.wrapping_add(1);
    }

    /// `consumer_wait()`: waits until the oldest unreleased stage has
    /// landed (the calling thread's copies) and returns its slot. Stops
    /// the kernel when no stage is committed and unreleased.
    #[inline(always)]
    #[track_caller]
    pub fn consumer_wait(&mut self) -> Slot<STAGES> {
        let ahead = self.in_flight;
        check(
            ahead > 0,
            "pipeline: consumer_wait() with no stage committed and not yet released",
        );
        if ahead == STAGES as u32 {
            // The steady state of a full pipeline: one constant wait.
            intrinsics::cp_async_wait_oldest_of::<STAGES>();
        } else {
            match ahead - 1 {
                0 => intrinsics::cp_async_wait_group::<0>(),
                1 => intrinsics::cp_async_wait_group::<1>(),
                2 => intrinsics::cp_async_wait_group::<2>(),
                3 => intrinsics::cp_async_wait_group::<3>(),
                4 => intrinsics::cp_async_wait_group::<4>(),
                5 => intrinsics::cp_async_wait_group::<5>(),
                _ => intrinsics::cp_async_wait_group::<6>(),
            }
        }
        self.tail
    }

    /// `cuda::pipeline_consumer_wait_prior<N>(pipe)`: waits until at most
    /// the newest `N` committed stages are in flight and returns the slot
    /// of the oldest unreleased stage. Stops the kernel unless that stage
    /// is among the ones waited for (more than `N` stages unreleased).
    #[inline(always)]
    #[track_caller]
    pub fn consumer_wait_prior<const N: u32>(&mut self) -> Slot<STAGES> {
        check(
            self.in_flight > N,
            "pipeline: consumer_wait_prior::<N>() with N or fewer stages unreleased: \
             the stage it returns would still be in flight",
        );
        intrinsics::cp_async_wait_group::<N>();
        self.tail
    }

    /// `consumer_release()`: the oldest unreleased stage may be refilled.
    #[inline(always)]
    #[track_caller]
    pub fn consumer_release(&mut self) {
        check(
            self.in_flight > 0,
            "pipeline: consumer_release() with no stage committed and not yet released",
        );
        self.tail = self.tail.next();
        self.in_flight -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{Pipeline, Slot};

    #[test]
    fn slots_go_round_for_every_stage_count() {
        fn ring<const S: usize>() {
            let mut slot = Slot::<S>(0);
            for k in 0..5 * S {
                assert_eq!(slot.index(), k % S);
                slot = slot.next();
            }
        }
        ring::<1>();
        ring::<3>();
        ring::<4>();
        ring::<7>();
    }

    #[test]
    fn a_full_pipeline_refuses_a_stage_until_one_is_released() {
        // Three stages in flight, the oldest in slot 2, the next to fill in
        // slot 2 as well (once released).
        let mut pipe = Pipeline::<3> {
            in_flight: 3,
            head: Slot(2),
            tail: Slot(2),
        };
        let full = std::panic::catch_unwind(|| {
            let mut p = Pipeline::<3> { ..pipe };
            p.producer_acquire();
        });
        let message = *full.unwrap_err().downcast::<String>().unwrap();
        assert!(
            message.contains("every stage holds data not yet released"),
            "{message}"
        );
        pipe.consumer_release();
        assert_eq!((pipe.in_flight, pipe.tail.index()), (2, 0));
        assert_eq!(pipe.producer_acquire().index(), 2);
    }

    #[test]
    #[should_panic(expected = "consumer_release() with no stage committed")]
    fn releasing_more_stages_than_were_committed_stops() {
        let mut pipe = Pipeline::<4> {
            in_flight: 0,
            head: Slot(1),
            tail: Slot(1),
        };
        pipe.consumer_release();
    }
}
