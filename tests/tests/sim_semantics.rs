//! The simulator (`cg_core::sim`) against CUDA's definitions, on the CPU:
//! results of group operations in CUDA's combine order (bit for bit on
//! floats), the undefined reads it reports instead of inventing values, and
//! one planted bug per kind of fault it must catch, each with the thread
//! named. The kernels here are plain functions: every simulated thread
//! calls them, as `#[kernel]` functions of a kernel crate are called.

use cg_core::atomic::{AtomicSlice, Ordering};
use cg_core::prelude::*;
use cg_core::sim::{self, Buffer, FaultKind, Shape, POISON};
use rand::{Rng, SeedableRng};

fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// CUDA's `reduce` over a tile: `v = op(v, shfl_xor(v, m))` for
/// m = N/2, ..., 1, the value of every lane.
fn butterfly_sum(values: &[f32]) -> Vec<f32> {
    let mut v = values.to_vec();
    let mut m = values.len() / 2;
    while m > 0 {
        v = (0..v.len()).map(|l| v[l] + v[l ^ m]).collect();
        m /= 2;
    }
    v
}

#[test]
fn a_block_sum_through_shared_memory_adds_in_the_kernels_order() {
    const BLOCK: usize = 256;
    let input = random_f32(4 * BLOCK, 1);
    let out = Buffer::<f32>::zeroed(4);
    let report = sim::launch(Shape::new(4, BLOCK as u32), || {
        let block = this_thread_block();
        let cache = shared_array!(f32; 256);
        let t = block.thread_rank() as usize;
        let i = block.group_index().x as usize * BLOCK + t;
        cache.set(t, input[i]);
        block.sync();
        let mut s = BLOCK / 2;
        while s > 0 {
            if t < s {
                cache.set(t, cache.get(t) + cache.get(t + s));
            }
            block.sync();
            s /= 2;
        }
        let mut out: Output<f32, Leaders<ThreadBlock>> = out.view();
        out.for_leader(&block, |o| *o = cache.get(0));
    })
    .unwrap();
    report.all_defined().unwrap();
    for (b, got) in out.to_vec().into_iter().enumerate() {
        let mut v = input[b * BLOCK..(b + 1) * BLOCK].to_vec();
        let mut s = BLOCK / 2;
        while s > 0 {
            for t in 0..s {
                v[t] += v[t + s];
            }
            s /= 2;
        }
        assert_eq!(got.to_bits(), v[0].to_bits(), "block {b}");
    }
}

fn tile_reduce_and_scan<const N: u32>()
where
    cg_core::tile::TileSize<N>: cg_core::tile::StaticTileSize,
    <cg_core::tile::TileSize<N> as cg_core::tile::StaticTileSize>::Tile: Collective,
{
    let threads = 96usize;
    let input = random_f32(threads, N as u64);
    let sums = Buffer::<f32>::zeroed(threads);
    let scans = Buffer::<u32>::zeroed(threads);
    sim::launch(Shape::new(1, threads as u32), || {
        let block = this_thread_block();
        let tile = tiled_partition::<N>(&block);
        let t = block.thread_rank() as usize;
        let s = reduce(&tile, input[t], Plus);
        let x = exclusive_scan(&tile, t as u32 + 1, Plus);
        let mut sums: Output<f32> = sums.view();
        let mut scans: Output<u32> = scans.view();
        sums.for_thread(&this_grid(), |o| *o = s);
        scans.for_thread(&this_grid(), |o| *o = x);
    })
    .unwrap()
    .all_defined()
    .unwrap();
    let n = N as usize;
    let (sums, scans) = (sums.to_vec(), scans.to_vec());
    for tile in 0..threads / n {
        let want = butterfly_sum(&input[tile * n..(tile + 1) * n]);
        for (r, want) in want.iter().enumerate() {
            let t = tile * n + r;
            assert_eq!(sums[t].to_bits(), want.to_bits(), "tile<{N}> thread {t}");
            let below: u32 = (tile * n..t).map(|u| u as u32 + 1).sum();
            assert_eq!(scans[t], below, "tile<{N}> exclusive scan, thread {t}");
        }
    }
}

#[test]
fn tile_reductions_follow_cudas_butterfly_and_scans_start_at_zero() {
    tile_reduce_and_scan::<2>();
    tile_reduce_and_scan::<4>();
    tile_reduce_and_scan::<8>();
    tile_reduce_and_scan::<16>();
    tile_reduce_and_scan::<32>();
}

#[test]
fn a_shuffle_from_a_lane_past_a_partial_warp_is_poison_and_reported() {
    // 40 threads: warp 1 has lanes 0..8 only; its static tile still names
    // all 32 lanes (CUDA's rule), so lanes 0..8 reading lane + 16 read
    // lanes that do not exist.
    let out = Buffer::<u32>::zeroed(40);
    let report = sim::launch(Shape::new(1, 40), || {
        let block = this_thread_block();
        let tile = tiled_partition::<32>(&block);
        assert_eq!(tile.num_threads(), 32);
        let v = tile.shfl_down(block.thread_rank() * 10, 16);
        let mut out: Output<u32> = out.view();
        out.for_thread(&this_grid(), |o| *o = v);
    })
    .unwrap();
    let out = out.to_vec();
    for (t, &v) in out.iter().enumerate() {
        let want = match t {
            0..16 => (t as u32 + 16) * 10,
            // Past the clamp a lane reads itself.
            16..32 => t as u32 * 10,
            _ => POISON,
        };
        assert_eq!(v, want, "thread {t}");
    }
    assert_eq!(report.undefined.len(), 8);
    let u = report.undefined[0];
    assert_eq!((u.at.warp, u.at.lane, u.read), (1, 0, sim::Read::Lane(16)));
    assert!(report
        .all_defined()
        .unwrap_err()
        .contains("shfl.sync.down read lane 16"));
}

#[test]
fn coalesced_groups_of_divergent_branches_hold_their_branch_only() {
    let out = Buffer::<u32>::zeroed(64 * 3);
    sim::launch(Shape::new(1, 64), || {
        let block = this_thread_block();
        let t = block.thread_rank() as usize;
        // Two call sites: the warp's two branches, as on the GPU.
        #[allow(clippy::if_same_then_else)]
        let g = if (t % 32).is_multiple_of(3) {
            coalesced_threads()
        } else {
            coalesced_threads()
        };
        let members = g.ballot(true);
        let out: AtomicSlice<u32> = out.view();
        // Each thread writes its own three words (no two threads share one).
        out.at(3 * t).store(g.num_threads(), Ordering::Relaxed);
        out.at(3 * t + 1).store(g.thread_rank(), Ordering::Relaxed);
        out.at(3 * t + 2).store(members, Ordering::Relaxed);
    })
    .unwrap()
    .all_defined()
    .unwrap();
    let out = out.to_vec();
    for t in 0..64usize {
        let lane = t % 32;
        let branch: Vec<usize> = (0..32)
            .filter(|l| (l % 3 == 0) == (lane % 3 == 0))
            .collect();
        let (size, rank, members) = (out[3 * t], out[3 * t + 1], out[3 * t + 2]);
        assert_eq!(size as usize, branch.len(), "thread {t}");
        assert_eq!(
            rank as usize,
            branch.iter().position(|&l| l == lane).unwrap(),
            "thread {t}"
        );
        assert_eq!(members, ((1u64 << branch.len()) - 1) as u32, "thread {t}");
    }
}

#[test]
fn labeled_partitions_rank_their_groups_by_lowest_lane() {
    let out = Buffer::<u32>::zeroed(32 * 4);
    sim::launch(Shape::new(1, 32), || {
        let block = this_thread_block();
        let tile = tiled_partition::<32>(&block);
        let lane = tile.thread_rank();
        let label = [7u32, 3, 7, 9][(lane % 4) as usize];
        let g = labeled_partition(&tile, label);
        let out: AtomicSlice<u32> = out.view();
        let t = lane as usize;
        out.at(4 * t).store(g.num_threads(), Ordering::Relaxed);
        out.at(4 * t + 1).store(g.thread_rank(), Ordering::Relaxed);
        out.at(4 * t + 2)
            .store(g.meta_group_rank(), Ordering::Relaxed);
        out.at(4 * t + 3)
            .store(g.meta_group_size(), Ordering::Relaxed);
    })
    .unwrap();
    let out = out.to_vec();
    for lane in 0..32usize {
        let (size, rank, meta_rank, meta_size) = (
            out[4 * lane],
            out[4 * lane + 1],
            out[4 * lane + 2],
            out[4 * lane + 3],
        );
        // Labels 7 (lanes 0, 2 mod 4), 3 (1 mod 4), 9 (3 mod 4): the groups
        // in order of their lowest lanes are 7, 3, 9.
        let (want_size, want_meta) = match lane % 4 {
            0 | 2 => (16, 0),
            1 => (8, 1),
            _ => (8, 2),
        };
        assert_eq!(
            (size, meta_rank, meta_size),
            (want_size, want_meta, 3),
            "lane {lane}"
        );
        let peers: Vec<usize> = (0..32)
            .filter(|l| [7, 3, 7, 9][l % 4] == [7, 3, 7, 9][lane % 4])
            .collect();
        assert_eq!(
            rank as usize,
            peers.iter().position(|&l| l == lane).unwrap()
        );
    }
}

#[test]
fn grid_sync_orders_every_blocks_writes_before_the_reads() {
    let blocks = 6usize;
    let first = Buffer::<u32>::zeroed(blocks * 64);
    let second = Buffer::<u32>::zeroed(blocks * 64);
    sim::launch(Shape::new(blocks as u32, 64).cooperative(), || {
        let grid = this_grid();
        let n = grid.num_threads() as usize;
        let i = grid.thread_rank() as usize;
        let mut a: Output<u32> = first.view();
        a.for_thread(&grid, |o| *o = i as u32 * 3);
        let a = a.sync(&grid);
        // Read a value another block wrote, after the grid barrier.
        let other = a.get((i + 64) % n).unwrap();
        let mut b: Output<u32> = second.view();
        b.for_thread(&grid, |o| *o = *other);
    })
    .unwrap();
    let n = blocks * 64;
    for (i, v) in second.to_vec().into_iter().enumerate() {
        assert_eq!(v, ((i + 64) % n) as u32 * 3);
    }
}

#[test]
fn planted_a_thread_that_returns_before_a_block_barrier_is_named() {
    let f = sim::launch(Shape::new(2, 64), || {
        let block = this_thread_block();
        if block.thread_rank() < 10 {
            return;
        }
        block.sync();
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::BarrierNotReached);
    let at = f.at.unwrap();
    assert_eq!((at.block, at.thread), ([0, 0, 0], [0, 0, 0]));
    assert!(
        f.to_string()
            .contains("exited without reaching the block barrier"),
        "{f}"
    );
}

#[test]
fn planted_a_mask_without_the_caller_is_named() {
    let f = sim::launch(Shape::new(1, 32), || {
        // SAFETY: none; the mask is wrong on purpose (lane 0 only), and
        // the simulator must say so for lanes 1..32.
        let g = unsafe { CoalescedGroup::from_mask(1) };
        g.any(true);
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::CallerNotInMask);
    assert_eq!(f.at.unwrap().lane, 1);
    assert!(
        f.message.contains("does not hold the calling lane 1"),
        "{f}"
    );
}

#[test]
fn planted_grid_sync_in_an_ordinary_launch_is_named() {
    let f = sim::launch(Shape::new(2, 32), || this_grid().sync()).unwrap_err();
    assert_eq!(f.kind, FaultKind::GridSyncNotCooperative);
    assert!(
        f.to_string().contains("block (0, 0, 0), thread (0, 0, 0)"),
        "{f}"
    );
}

#[test]
fn planted_a_deadlock_says_who_waits_where() {
    let f = sim::launch(Shape::new(1, 64), || {
        let block = this_thread_block();
        let tile = tiled_partition::<32>(&block);
        if block.thread_rank() < 16 {
            tile.sync();
        } else {
            block.sync();
        }
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Deadlock);
    assert!(
        f.message
            .contains("threads 0..=15: wait at bar.warp.sync with member mask 0xffffffff"),
        "{f}"
    );
    assert!(
        f.message
            .contains("threads 16..=63: wait at the block barrier (bar.sync), which 48 of"),
        "{f}"
    );
}

#[test]
fn planted_two_lanes_at_different_warp_instructions_are_named() {
    let f = sim::launch(Shape::new(1, 32), || {
        let block = this_thread_block();
        let tile = tiled_partition::<32>(&block);
        if tile.thread_rank() == 5 {
            tile.ballot(true);
        } else {
            tile.shfl(1u32, 0);
        }
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::WarpMismatch);
    assert!(
        f.message.contains("vote.sync.ballot") && f.message.contains("shfl.sync.idx"),
        "{f}"
    );
}

#[test]
fn planted_a_block_of_another_height_than_block_tile_s_is_refused() {
    let a = vec![1.0f32; 32 * 32];
    let out = Buffer::<f32>::filled(32 * 32, f32::NAN);
    // `matrix_transpose` passes `Const::<2>` as the block's height.
    let f = sim::launch(Shape::dims([2, 2, 1], [16, 1, 1]), || {
        cg_test_kernels::matrix::matrix_transpose(
            &a,
            out.view(),
            sim::uniform(32),
            sim::uniform(32),
        )
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Panic, "{f}");
    assert!(
        f.message
            .contains("block_tile: the block's height in threads is not the BLOCK_ROWS passed"),
        "{f}"
    );
}

#[test]
fn planted_an_out_of_bounds_index_names_the_thread_and_the_line() {
    let input = vec![1.0f32; 100];
    let f = sim::launch(Shape::new(2, 64), || {
        let i = this_grid().thread_rank() as usize;
        std::hint::black_box(input[i]);
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Panic);
    let at = f.at.unwrap();
    assert_eq!((at.block, at.thread), ([1, 0, 0], [36, 0, 0]));
    assert!(
        f.message
            .contains("index out of bounds: the len is 100 but the index is 100"),
        "{f}"
    );
    assert!(f.message.contains("sim_semantics.rs"), "{f}");
}

#[test]
fn planted_a_spin_on_a_flag_nobody_sets_is_a_livelock() {
    let flag = Buffer::<u32>::zeroed(1);
    let f = sim::launch(Shape::new(1, 32), || {
        let flag: AtomicSlice<u32> = flag.view();
        while flag.at(0).load(Ordering::Acquire) == 0 {}
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Livelock);
    assert!(f.message.contains("polls memory"), "{f}");
}

/// Thread `t` writes `shared[t]`, then reads its neighbour's element, with
/// `between` in between.
fn neighbour_read(threads: u32, between: impl Fn() + Sync) -> Result<sim::Report, sim::Fault> {
    sim::launch(Shape::new(1, threads), || {
        let block = this_thread_block();
        let shared = shared_array!(u32; 64);
        let t = block.thread_rank() as usize;
        shared.set(t, t as u32);
        between();
        std::hint::black_box(shared.get((t + 1) % threads as usize));
    })
}

#[test]
fn planted_a_shared_memory_race_between_two_barriers_is_named() {
    // Across warps: no barrier at all.
    let f = neighbour_read(64, || {}).unwrap_err();
    assert_eq!(f.kind, FaultKind::SharedRace);
    // Thread 0 ran first: it read its neighbour's element before thread 1
    // wrote it.
    assert!(
        f.message
            .contains("writes shared memory at 0x4, which thread (0, 0, 0) of this block read"),
        "{f}"
    );
    // Within a warp, a warp sync orders the lanes; across warps it does not.
    neighbour_read(32, || tiled_partition::<32>(&this_thread_block()).sync()).unwrap();
    let f = neighbour_read(64, || tiled_partition::<32>(&this_thread_block()).sync()).unwrap_err();
    assert_eq!(f.kind, FaultKind::SharedRace);
    // Warp 0 ran first: lane 31 read element 32 before warp 1 wrote it.
    let at = f.at.unwrap();
    assert_eq!((at.thread, at.warp, at.lane), ([32, 0, 0], 1, 0), "{f}");
    assert!(
        f.message.contains("thread (31, 0, 0) of this block read"),
        "{f}"
    );
    // A block barrier orders every thread of the block.
    neighbour_read(64, || this_thread_block().sync()).unwrap();
    // And the check can be turned off.
    sim::launch(Shape::new(1, 64).without_shared_checks(), || {
        let shared = shared_array!(u32; 64);
        let t = this_thread_block().thread_rank() as usize;
        shared.set(t, 1);
        std::hint::black_box(shared.get((t + 1) % 64));
    })
    .unwrap();
}

#[test]
fn planted_a_tree_sum_without_its_last_barrier_races() {
    let f = sim::launch(Shape::new(1, 128), || {
        let block = this_thread_block();
        let cache = shared_array!(u32; 128);
        let t = block.thread_rank() as usize;
        cache.set(t, t as u32);
        block.sync();
        let mut s = 64;
        while s > 0 {
            if t < s {
                cache.set(t, cache.get(t) + cache.get(t + s));
            }
            // The planted bug: the barrier after the first round is missing.
            if s != 64 {
                block.sync();
            }
            s /= 2;
        }
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::SharedRace, "{f}");
}

#[test]
fn a_load_of_shared_memory_no_thread_wrote_is_reported_undefined() {
    let report = sim::launch(Shape::new(1, 32), || {
        let block = this_thread_block();
        let shared = shared_array!(u32; 64);
        let t = block.thread_rank() as usize;
        shared.set(t, 1);
        block.sync();
        // Elements 32..64 were never written.
        std::hint::black_box(shared.get(t + 16));
    })
    .unwrap();
    // Threads 16..32 read elements 32..48: 16 undefined loads, each naming
    // the address (element 32 is at byte 128).
    assert_eq!(report.undefined.len(), 16);
    let u = report
        .undefined
        .iter()
        .find(|u| u.at.thread == [16, 0, 0])
        .unwrap();
    assert_eq!((u.op, u.read), ("ld.shared.b32", sim::Read::Shared(128)));
    assert!(report
        .all_defined()
        .unwrap_err()
        .contains("which no thread wrote"));
}

/// `SharedStencil::sweep` into a poisoned buffer: every interior point of
/// the rows asked for gets `f` of its own neighbours, nothing else is
/// written (boundary columns, rows outside the range), and the buffer
/// written becomes the newest.
#[test]
fn a_shared_stencil_sweep_writes_each_point_of_its_rows_once_from_its_neighbours() {
    // One column a thread with several rows at a time; several columns a
    // thread; a block with a partial warp; a subset of the rows.
    let cases = [
        (10u32, 7u32, 64u32, 1u32..6u32),
        (70, 5, 32, 1..4),
        (9, 9, 100, 1..8),
        (12, 9, 64, 3..5),
    ];
    let f = |c: f32, w: f32, e: f32, n: f32, s: f32| c * 3.0 + w - 0.5 * e + 0.25 * n - s;
    for (width, height, threads, rows) in cases {
        let n = (width * height) as usize;
        let input = random_f32(n, width as u64);
        let out = Buffer::<f32>::filled(n, f32::NAN);
        let out_ptr = out.as_ptr() as usize;
        let rows_k = rows.clone();
        sim::launch(
            Shape::new(1, threads).with_dynamic_shared(2 * n as u32 * 4),
            || {
                let block = this_thread_block();
                let region = dynamic_shared::<f32>();
                let (src, dst) = (region.subslice(0, n), region.subslice(n, n));
                let (t, nt) = (block.thread_rank() as usize, block.num_threads() as usize);
                for i in (t..n).step_by(nt) {
                    src.set(i, input[i]);
                    dst.set(i, f32::NAN);
                }
                block.sync();
                let mut field = SharedStencil::new(&block, width, src, dst);
                field.sweep(rows_k.clone(), |p| {
                    f(p.centre(), p.west(), p.east(), p.north(), p.south())
                });
                block.sync();
                // The newest buffer is the one the sweep wrote.
                assert_eq!(field.newest().shared_addr(), dst.shared_addr());
                for i in (t..n).step_by(nt) {
                    // SAFETY: element `i` of `out`, written by this thread alone.
                    unsafe { *(out_ptr as *mut f32).add(i) = dst.get(i) };
                }
            },
        )
        .unwrap()
        .all_defined()
        .unwrap();
        let (w, out) = (width as usize, out.to_vec());
        for y in 0..height as usize {
            for x in 0..w {
                let i = y * w + x;
                let inside = rows.contains(&(y as u32)) && x > 0 && x < w - 1;
                if inside {
                    let want = f(
                        input[i],
                        input[i - 1],
                        input[i + 1],
                        input[i - w],
                        input[i + w],
                    );
                    assert_eq!(
                        out[i].to_bits(),
                        want.to_bits(),
                        "{width}x{height}: ({x}, {y})"
                    );
                } else {
                    assert!(out[i].is_nan(), "{width}x{height}: ({x}, {y}) written");
                }
            }
        }
    }
}

#[test]
fn planted_a_shared_stencil_over_row_0_names_the_line() {
    let f = sim::launch(Shape::new(1, 32).with_dynamic_shared(2 * 64 * 4), || {
        let block = this_thread_block();
        let region = dynamic_shared::<f32>();
        let (src, dst) = (region.subslice(0, 64), region.subslice(64, 64));
        // Row 0 has no row above it.
        SharedStencil::new(&block, 8, src, dst).sweep(0..3, |p| p.north());
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Panic);
    assert!(f.message.contains("SharedStencil::sweep"), "{f}");
    assert!(f.message.contains("sim_semantics.rs"), "{f}");
}

#[test]
fn planted_a_shared_stencil_past_the_rows_held_names_the_line() {
    let f = sim::launch(Shape::new(1, 32).with_dynamic_shared(2 * 64 * 4), || {
        let block = this_thread_block();
        let region = dynamic_shared::<f32>();
        // Buffers of 8 rows of 8, the second one element short: 7 rows
        // held whole, so row 6 has no row below it.
        let (src, dst) = (region.subslice(0, 64), region.subslice(64, 63));
        SharedStencil::new(&block, 8, src, dst).sweep(1..7, |p| p.south());
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Panic);
    assert!(f.message.contains("SharedStencil::sweep"), "{f}");
    assert!(f.message.contains("sim_semantics.rs"), "{f}");
}

#[test]
fn shared_stencil_sweeps_alternate_buffers_and_restart_from_the_first() {
    let report = sim::launch(Shape::new(1, 64).with_dynamic_shared(2 * 36 * 4), || {
        let block = this_thread_block();
        let region = dynamic_shared::<f32>();
        let (a, b) = (region.subslice(0, 36), region.subslice(36, 36));
        let t = block.thread_rank() as usize;
        if t < 36 {
            a.set(t, t as f32);
            b.set(t, -(t as f32));
        }
        block.sync();
        let mut field = SharedStencil::new(&block, 6, a, b);
        let newest = |f: &SharedStencil<f32>| f.newest().shared_addr();
        assert_eq!(
            (newest(&field), field.oldest().shared_addr()),
            (a.shared_addr(), b.shared_addr())
        );
        // An empty sweep swaps too: the buffers' roles follow the count.
        field.sweep(3..3, |p| p.centre());
        assert_eq!(newest(&field), b.shared_addr());
        field.sweep(1..5, |p| p.centre());
        block.sync();
        assert_eq!(newest(&field), a.shared_addr());
        field.sweep(1..5, |p| p.centre());
        block.sync();
        assert_eq!(newest(&field), b.shared_addr());
        field.restart();
        assert_eq!(newest(&field), a.shared_addr());
    });
    report
        .unwrap()
        .all_defined()
        .unwrap_or_else(|u| panic!("{u:?}"));
}

#[test]
fn planted_a_chunk_copied_from_a_shorter_stage_names_the_line() {
    let out = Buffer::<u32>::zeroed(256);
    let f = sim::launch(Shape::new(2, 32).with_dynamic_shared(4 * 63), || {
        let block = this_thread_block();
        let mut out: Output<u32, Chunks> = out.view();
        // Chunks of 64 elements, a stage of 63.
        if let Some(chunk) = out.block_chunk(&block, Const::<64>) {
            chunk.copy_from(dynamic_shared::<u32>());
        }
    })
    .unwrap_err();
    assert_eq!(f.kind, FaultKind::Panic);
    assert!(f.message.contains("sim_semantics.rs"), "{f}");
}
