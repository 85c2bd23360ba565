//! GPU tests of `MultiGridGroup` and `GpuSet` (kernels/tests/src/
//! multi_grid.rs): every thread's ranks and sizes; markers passed around
//! the ring of GPUs through peer memory, 10,000 barriers in one launch,
//! with `sync()` and with the split barrier; the launches a set refuses
//! before any grid starts (one buffer the output of two grids among them);
//! and buffers the closure drops after giving them, which outlive the grids. On a machine with one GPU the same
//! tests run on a multi-grid of one; the two-GPU tests say loudly that
//! they did not run (and fail under `CG_REQUIRE_GPUS=2`).

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::testing::gpus_for_test;
use cooperative_groups::{Error, GpuSet, LaunchConfig, LaunchKind};

const POISON: u32 = 0xDEAD_BEEF;

/// The set of the first `n` GPUs with the test deadline on each, and the
/// kernels loaded on each.
fn open(test: &str, n: usize) -> Option<(GpuSet, Vec<Kernels>)> {
    let set = gpus_for_test(test, n)?;
    for g in set.gpus() {
        if g.deadline().is_none() {
            g.set_deadline(Some(common::DEADLINE));
        }
    }
    // ANCHOR: load
    let k = set.each(Kernels::load).unwrap();
    // ANCHOR_END: load
    Some((set, k))
}

/// The launch shapes: the largest co-resident grid of 256-thread blocks,
/// and a small grid of blocks that end in a partial warp.
fn shapes(k: &Kernels) -> Vec<LaunchConfig> {
    let full = k
        .multi_grid_markers
        .function()
        .cooperative_config(256, 0)
        .unwrap();
    vec![full, LaunchConfig::new(3, 113)]
}

fn check_ranks(set: &GpuSet, k: &[Kernels], cfg: LaunchConfig) {
    let n = set.len();
    let threads = (cfg.num_blocks() * cfg.block_threads()) as usize;
    // ANCHOR: launch
    let mut outs = set.each(|g| g.filled(threads, [POISON; 7])).unwrap();
    set.launch(cfg, |r, m| k[r].multi_grid_ranks.launch(m, &mut outs[r]))
        .unwrap();
    // ANCHOR_END: launch
    for (g, out) in outs.iter().enumerate() {
        for (t, got) in out.to_vec().unwrap().into_iter().enumerate() {
            let rank = (g * threads + t) as u64;
            let total = (n * threads) as u64;
            let want = [
                g as u32,
                n as u32,
                rank as u32,
                total as u32,
                1,
                (rank >> 32) as u32,
                (total >> 32) as u32,
            ];
            assert_eq!(got, want, "grid {g} of {n}, thread {t}, {cfg:?}");
        }
    }
}

/// The kernel's marker (kernels/tests/src/multi_grid.rs).
fn marker(round: u32, grid: u32, thread: u32) -> u32 {
    round
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(grid.wrapping_mul(0x85eb_ca6b))
        .wrapping_add(thread)
        | 1
}

fn check_markers(set: &GpuSet, k: &[Kernels], cfg: LaunchConfig, rounds: u32, split: bool) {
    let n = set.len();
    let threads = (cfg.num_blocks() * cfg.block_threads()) as usize;
    let mut inboxes = set.each(|g| g.filled(threads, [0u32; 2])).unwrap();
    let mut outs = set.each(|g| g.filled(threads, [POISON; 3])).unwrap();
    set.launch(cfg, |r, m| {
        let next = &inboxes[(r + 1) % n];
        let (address, len) = (next.device_address(), next.len() as u64);
        k[r].multi_grid_markers.launch(
            m,
            &mut inboxes[r],
            address,
            len,
            rounds,
            split as u32,
            &mut outs[r],
        )
    })
    .unwrap();
    let sum = (0..rounds).fold(0u32, |s, r| s.wrapping_add(r));
    for (g, out) in outs.iter().enumerate() {
        let from = ((g + n - 1) % n) as u32;
        let got = out.to_vec().unwrap();
        let failures: u64 = got.iter().map(|o| o[0] as u64).sum();
        assert_eq!(
            failures, 0,
            "grid {g} of {n} read {failures} wrong markers over {rounds} barriers (split: {split}, {cfg:?})"
        );
        for (t, o) in got.iter().enumerate() {
            let want = [
                0,
                marker(rounds - 1, from, t as u32),
                if split { sum } else { 0 },
            ];
            assert_eq!(*o, want, "grid {g}, thread {t} (split: {split}, {cfg:?})");
        }
    }
}

fn rounds() -> u32 {
    if common::quick() {
        100
    } else {
        10_000
    }
}

fn ranks_and_markers(test: &str, n: usize) {
    let Some((set, k)) = open(test, n) else {
        return;
    };
    for cfg in shapes(&k[0]) {
        check_ranks(&set, &k, cfg);
        for split in [false, true] {
            check_markers(&set, &k, cfg, rounds(), split);
        }
    }
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: a multi-grid launch")]
fn a_multi_grid_of_one_gpu_has_its_ranks_and_orders_its_markers() {
    ranks_and_markers(
        "a_multi_grid_of_one_gpu_has_its_ranks_and_orders_its_markers",
        1,
    );
}

#[test]
#[cfg_attr(
    cg_no_second_gpu,
    ignore = "needs two GPUs: a multi-grid launch across GPUs"
)]
fn two_gpus_see_each_others_markers_after_every_barrier() {
    ranks_and_markers("two_gpus_see_each_others_markers_after_every_barrier", 2);
}

/// What a set refuses, before any grid starts; the set launches normally
/// afterwards (nothing was left half-started).
fn refusals(test: &str, n: usize) {
    let Some((set, k)) = open(test, n) else {
        return;
    };
    let cfg = LaunchConfig::new(2, 64);
    let threads = 128;
    let mut outs = set.each(|g| g.filled(threads, [POISON; 7])).unwrap();
    let refused = |e: Error, want: &str| {
        let text = e.to_string();
        assert!(
            matches!(e, Error::MultiGridLaunch { .. }) && text.contains(want),
            "{text}"
        );
    };
    // A GPU without a kernel.
    let e = set
        .launch(cfg, |r, m| {
            if r + 1 < n {
                k[r].multi_grid_ranks.launch(m, &mut outs[r])
            } else {
                Ok(())
            }
        })
        .unwrap_err();
    refused(e, &format!("gave GPU {} (rank {}) no kernel", n - 1, n - 1));
    // Two kernels for one GPU.
    let e = set
        .launch(cfg, |r, m| {
            k[r].multi_grid_ranks.launch(m, &mut outs[r])?;
            k[r].multi_grid_ranks.launch(m, &mut outs[r])
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("was given two kernels"), "{e}");
    // A grid that cannot be co-resident.
    let most = k[0]
        .multi_grid_ranks
        .function()
        .max_cooperative_blocks(64, 0)
        .unwrap();
    let big = LaunchConfig::new(most + 1, 64);
    let mut bigs = set
        .each(|g| g.filled((most as usize + 1) * 64, [POISON; 7]))
        .unwrap();
    let e = set
        .launch(big, |r, m| k[r].multi_grid_ranks.launch(m, &mut bigs[r]))
        .unwrap_err();
    refused(e, "GPU 0 (");
    // A multi-grid kernel launched on its own.
    let f = k[0].multi_grid_ranks.function();
    let mut params = [std::ptr::null_mut(); 2];
    // SAFETY: refused before the parameters are read.
    let e = unsafe { f.launch_as(LaunchKind::MultiGrid, cfg, &mut params) }
        .unwrap_err()
        .to_string();
    assert!(e.contains("launch it through GpuSet::launch"), "{e}");
    if n >= 2 {
        // Rank 1 given GPU 0's kernel.
        let e = set
            .launch(cfg, |r, m| k[0].multi_grid_ranks.launch(m, &mut outs[r]))
            .unwrap_err();
        refused(e, "was loaded on GPU 0, not on GPU 1");
        // Different kernels on different GPUs.
        let mut inboxes = set.each(|g| g.filled(threads, [0u32; 2])).unwrap();
        let mut marks = set.each(|g| g.filled(threads, [0u32; 3])).unwrap();
        let e = set
            .launch(cfg, |r, m| {
                if r == 0 {
                    k[r].multi_grid_ranks.launch(m, &mut outs[r])
                } else {
                    let address = inboxes[r].device_address();
                    k[r].multi_grid_markers.launch(
                        m,
                        &mut inboxes[r],
                        address,
                        0,
                        0,
                        0,
                        &mut marks[r],
                    )
                }
            })
            .unwrap_err();
        refused(e, "every GPU runs the same kernel");
        // One buffer as the output of two grids (GPU 0's, given to all).
        let e = set
            .launch(cfg, |r, m| k[r].multi_grid_ranks.launch(m, &mut outs[0]))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::MultiGridSharedBuffer {
                    buffer_gpu: 0,
                    rank: 0,
                    gpu: 0,
                    other_rank: 1,
                    other_gpu: 1,
                    other_writes: true,
                    ..
                }
            ),
            "{e}"
        );
        let text = e.to_string();
        assert!(
            text.contains(
                "the writable `out` of rank 0's grid (GPU 0) and the writable `out` of rank 1's"
            ) && text.contains("GpuSet::launch_sharing_buffers"),
            "{text}"
        );
    }
    // Nothing started: the set launches as usual.
    check_ranks(&set, &k, cfg);
}

/// A buffer given to a grid and then dropped by the closure, before the
/// grids are queued: its memory stays with the launch until the grids are
/// queued, and is freed after them. Fresh buffers allocated meanwhile (which
/// the pool would give the freed memory) keep their contents.
fn buffers_dropped_in_the_closure(test: &str, n: usize) {
    let Some((set, k)) = open(test, n) else {
        return;
    };
    let cfg = LaunchConfig::new(2, 64);
    let threads = 128;
    let mut outs = set.each(|g| g.filled(threads, [POISON; 7])).unwrap();
    let mut fresh = Vec::new();
    set.launch(cfg, |r, m| {
        k[r].multi_grid_ranks.launch(m, &mut outs[r])?;
        if r + 1 == n {
            outs.clear();
            fresh = set.each(|g| g.filled(threads, [POISON; 7]))?;
        }
        Ok(())
    })
    .unwrap();
    set.synchronize().unwrap();
    for (g, f) in fresh.iter().enumerate() {
        assert!(
            f.to_vec().unwrap().iter().all(|x| *x == [POISON; 7]),
            "GPU {g}'s grid wrote into memory freed before it was queued"
        );
    }
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: a multi-grid launch")]
fn a_buffer_dropped_after_it_is_given_to_a_grid_outlives_the_grid() {
    buffers_dropped_in_the_closure(
        "a_buffer_dropped_after_it_is_given_to_a_grid_outlives_the_grid",
        1,
    );
}

#[test]
#[cfg_attr(
    cg_no_second_gpu,
    ignore = "needs two GPUs: a multi-grid launch across GPUs"
)]
fn buffers_dropped_after_they_are_given_to_two_grids_outlive_the_grids() {
    buffers_dropped_in_the_closure(
        "buffers_dropped_after_they_are_given_to_two_grids_outlive_the_grids",
        2,
    );
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: a multi-grid launch")]
fn a_set_refuses_a_bad_multi_grid_launch_before_any_grid_starts() {
    refusals(
        "a_set_refuses_a_bad_multi_grid_launch_before_any_grid_starts",
        1,
    );
}

#[test]
#[cfg_attr(
    cg_no_second_gpu,
    ignore = "needs two GPUs: a multi-grid launch across GPUs"
)]
fn a_set_of_two_refuses_mismatched_grids() {
    refusals("a_set_of_two_refuses_mismatched_grids", 2);
}
