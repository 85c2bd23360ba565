//! What the simulator catches that the output types cannot: two patterns
//! reaching one element in one phase (a race on global memory), threads
//! reaching a grid barrier at different call sites (barrier divergence;
//! and, within a block, its block barrier), and arguments every thread must pass alike that differ between threads.
//! Each way, planted in a kernel without `unsafe`
//! (`kernels/tests/src/races.rs`), is a fault that names both threads,
//! the element or values, the kernel and the lines marked `// RACE:`;
//! the same kernels made correct run without one.

use cg_core::output::{Output, Synced};
use cg_core::prelude::*;
use cg_core::sim::{self, Buffer, Fault, FaultKind, Shape};
use cg_test_kernels::races;

const RACES_RS: &str = include_str!("../../kernels/tests/src/races.rs");

/// `races.rs:LINE:` for the line marked `// RACE: tag`.
fn line(tag: &str) -> String {
    let marker = format!("// RACE: {tag}");
    let n = RACES_RS
        .lines()
        .position(|l| l.trim_end().ends_with(&marker))
        .unwrap_or_else(|| panic!("no line marked `{marker}` in races.rs"));
    format!("races.rs:{}:", n + 1)
}

/// Checks that `f` is a fault of `kind` whose message holds every one of
/// `parts`.
fn expect(f: &Fault, kind: FaultKind, parts: &[&str]) {
    assert_eq!(f.kind, kind, "{f}");
    for p in parts {
        assert!(f.message.contains(p), "`{p}` missing from: {f}");
    }
}

#[test]
fn two_patterns_in_one_phase_race_on_an_element() {
    let out = Buffer::<u32>::zeroed(1024);
    let f = sim::launch(Shape::new(2, 256), || {
        races::race_mixed_patterns(out.view())
    })
    .unwrap_err();
    // Block 1's leader reaches out[1], which thread 1 of block 0 took.
    expect(
        &f,
        FaultKind::GlobalRace,
        &[
            "a race on element 1 of the global buffer",
            "(1024 elements of 4 bytes) in kernel `race_mixed_patterns`",
            "block (0, 0, 0), thread (1, 0, 0) took element 1 for writing",
            &line("mixed leader"),
            &line("mixed thread"),
            "in the same grid phase (0 grid barriers passed)",
        ],
    );
    let at = f.at.unwrap();
    assert_eq!((at.block, at.thread), ([1, 0, 0], [0, 0, 0]), "{f}");
}

#[test]
fn two_patterns_with_a_grid_barrier_between_do_not_race() {
    let out = Buffer::<u32>::zeroed(1024);
    sim::launch(Shape::new(2, 256).cooperative(), || {
        races::race_mixed_patterns_synced(out.view())
    })
    .unwrap();
    let out = out.to_vec();
    // Each block's leader wrote its block's element after the barrier.
    assert_eq!(&out[..4], &[2, 2, 1, 1]);
}

#[test]
fn a_write_by_one_pattern_and_a_read_through_another_race() {
    let out = Buffer::<u32>::zeroed(64);
    let seen = Buffer::<u32>::zeroed(4 * 64);
    let f = sim::launch(Shape::new(4, 64), || {
        races::race_leader_then_tile_leader(out.view(), seen.view())
    })
    .unwrap_err();
    // Tile 1 of block 0 (thread 32) took element 1; block 1's leader then
    // writes it.
    expect(
        &f,
        FaultKind::GlobalRace,
        &[
            "a race on element 1",
            "kernel `race_leader_then_tile_leader`",
            "block (0, 0, 0), thread (32, 0, 0) took element 1",
            &line("block leader"),
            &line("tile leader"),
        ],
    );
    let at = f.at.unwrap();
    assert_eq!((at.block, at.thread), ([1, 0, 0], [0, 0, 0]), "{f}");
}

#[test]
fn patterns_of_one_block_across_a_block_barrier_do_not_race() {
    let out = Buffer::<u32>::zeroed(64);
    sim::launch(Shape::new(1, 64), || {
        races::race_patterns_across_a_block_barrier(out.view())
    })
    .unwrap();
    assert_eq!(&out.to_vec()[..3], &[2, 2, 1]);
}

#[test]
fn a_chunk_length_per_block_is_a_non_uniform_argument() {
    let out = Buffer::<u32>::zeroed(1024);
    let f = sim::launch(Shape::new(4, 64), || {
        races::race_chunk_len_per_block(out.view(), 64)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "kernel `race_chunk_len_per_block`",
            "this thread passes block_chunk's len = (65)",
            &line("chunk"),
            "where block (0, 0, 0), thread (0, 0, 0) passed (64)",
        ],
    );
    assert_eq!(f.at.unwrap().block, [1, 0, 0], "{f}");
}

#[test]
fn two_tile_heights_in_one_phase_race_on_an_element() {
    let out = Buffer::<u32>::zeroed(64);
    let f = sim::launch(Shape::dims([1, 2, 1], [4, 2, 1]), || {
        races::race_two_tile_heights(out.view(), sim::uniform(4), sim::uniform(16))
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::GlobalRace,
        &[
            "a race on element 16 of the global buffer",
            "in kernel `race_two_tile_heights`",
            &line("tile of 8"),
            &line("tile of 4"),
            "in the same grid phase (0 grid barriers passed)",
        ],
    );
}

#[test]
fn a_tile_width_per_block_is_a_non_uniform_argument() {
    let out = Buffer::<u32>::zeroed(64);
    let f = sim::launch(Shape::dims([1, 2, 1], [4, 2, 1]), || {
        races::race_tile_width_per_block(out.view(), 4, 16)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "kernel `race_tile_width_per_block`",
            "this thread passes block_tile's width, height = (5, 16)",
            &line("tile width"),
            "passed (4, 16)",
        ],
    );
    assert_eq!(f.at.unwrap().block, [0, 1, 0], "{f}");
}

#[test]
fn a_width_per_thread_is_a_non_uniform_argument() {
    let out = Buffer::<u32>::zeroed(1024);
    let f = sim::launch(Shape::dims([2, 2, 1], [16, 4, 1]), || {
        races::race_width_per_thread(out.view(), 32)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "this thread passes thread_element_2d's width = (33)",
            &line("width"),
            "where block (0, 0, 0), thread (0, 0, 0) passed (32)",
        ],
    );
    assert_eq!(f.at.unwrap().thread, [1, 0, 0], "{f}");
}

#[test]
fn a_window_walk_or_stencil_size_per_thread_is_a_non_uniform_argument() {
    let out = Buffer::<u32>::zeroed(64 * 64);
    let f = sim::launch(Shape::new(2, 64), || {
        races::race_window_per_block(out.view(), 64, 64)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "the window's width, x.start, x.end, y.start, y.end = (64, 0, 63, 0, 64)",
            &line("window"),
            "passed (64, 0, 64, 0, 64)",
        ],
    );

    let f = sim::launch(Shape::new(2, 64), || {
        races::race_walk_per_thread(out.view(), 64, 64)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "(64, 0, 64, 1, 64)",
            &line("walk"),
            "where block (0, 0, 0), thread (0, 0, 0) passed (64, 0, 64, 0, 64)",
        ],
    );
    assert_eq!(f.at.unwrap().thread, [1, 0, 0], "{f}");

    let src = vec![1.0f32; 64 * 64];
    let dst = Buffer::<f32>::zeroed(64 * 64);
    let f = sim::launch(Shape::new(2, 64), || {
        races::race_stencil_per_block(&src, dst.view(), 64, 64)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "the stencil's width, height = (63, 64)",
            &line("stencil"),
            "passed (64, 64)",
        ],
    );

    let f = sim::launch(Shape::new(2, 64), || {
        races::race_stencil_walk_per_block(&src, dst.view(), 64, 64)
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::NonUniformArgument,
        &[
            "the stencil walk's width, height = (64, 63)",
            &line("stencil walk"),
            "passed (64, 64)",
        ],
    );
}

#[test]
fn a_grid_barrier_in_one_branch_and_out_sync_in_the_other_diverge() {
    let out = Buffer::<u32>::zeroed(4 * 64);
    let seen = Buffer::<u32>::zeroed(4 * 64);
    let f = sim::launch(Shape::new(4, 64).cooperative(), || {
        races::race_sync_in_one_branch(out.view(), seen.view())
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::BarrierDivergence,
        &[
            "barrier divergence in kernel `race_sync_in_one_branch`",
            "reaches grid barrier 1 (after 0 grid barriers)",
            &line("branch raw"),
            "where block (0, 0, 0), thread (0, 0, 0) reached it at",
            &line("branch sync"),
        ],
    );
    assert_eq!(f.at.unwrap().block, [1, 0, 0], "{f}");
}

#[test]
fn a_read_view_of_a_buffer_another_thread_writes_races() {
    // Two views of one buffer in one phase: thread 0 of block 1 writes
    // through the `Output`, the others read through the `Synced`.
    let buffer = Buffer::<u32>::zeroed(128);
    let f = sim::launch(Shape::new(2, 64), || {
        let grid = this_grid();
        let mut out: Output<u32> = buffer.view();
        let read: Synced<u32> = buffer.view();
        if grid.thread_rank() == 64 {
            out.for_thread(&grid, |y| *y = 1);
        } else {
            std::hint::black_box(read[0]);
        }
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::GlobalRace,
        &[
            "this thread took element 64 for writing (`&mut`) at",
            "read it through a `Synced` view at",
            "sim_races.rs:",
        ],
    );
    // After a grid barrier the same reads are ordered.
    sim::launch(Shape::new(2, 64).cooperative(), || {
        let grid = this_grid();
        let mut out: Output<u32> = buffer.view();
        out.for_thread(&grid, |y| *y = 2);
        let read = out.sync(&grid);
        std::hint::black_box(read[(grid.thread_rank() as usize + 1) % 128]);
    })
    .unwrap();
    // And the check can be turned off.
    sim::launch(Shape::new(2, 256).without_global_checks(), || {
        races::race_mixed_patterns(buffer.view())
    })
    .unwrap();
}

#[test]
fn block_barriers_at_two_call_sites_of_one_block_diverge() {
    let f = sim::launch(Shape::new(1, 64), || {
        let block = this_thread_block();
        // Two call sites on purpose: the planted divergence.
        #[allow(clippy::if_same_then_else)]
        if block.thread_rank() < 32 {
            block.sync();
        } else {
            block.sync();
        }
    })
    .unwrap_err();
    expect(
        &f,
        FaultKind::BarrierDivergence,
        &[
            "reaches the block barrier (bar.sync: block.sync(), __syncthreads) at",
            "where thread (0, 0, 0) of its block waits at",
            "sim_races.rs:",
        ],
    );
    assert_eq!(f.at.unwrap().thread, [32, 0, 0], "{f}");
    // One call site after the branch: no fault.
    sim::launch(Shape::new(1, 64), || {
        let block = this_thread_block();
        if block.thread_rank() < 32 {
            std::hint::black_box(1);
        }
        block.sync();
    })
    .unwrap();
}
