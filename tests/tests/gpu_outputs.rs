//! GPU tests of `cg_core::output` (kernels/tests/src/outputs.rs): each
//! ownership pattern of `Output` writes, into a poisoned buffer, the grid
//! rank + 1 of the thread each element is handed to; every element must be
//! the one the pattern's map gives (from the launch's coordinates, on the
//! CPU) and every other element must keep the poison: no element handed
//! to two threads (the last writer would show), none written that no
//! thread owns. Shapes include partial warps, 2-D and 3-D launches,
//! buffers shorter and longer than the grid. The barrier phases of
//! `Output`/`Synced` are checked against their CPU result, and each
//! pattern's hot loop against the same loop through a raw pointer.

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::{Gpu, LaunchConfig};
use rand::Rng;

const POISON: u32 = 0xDEAD_BEEF;

/// The patterns of `output_probe`, by number.
const PATTERNS: [&str; 15] = [
    "thread_element",
    "thread_element_2d",
    "thread_element_3d",
    "grid_stride",
    "grid_stride_window (interior)",
    "grid_stride_window (columns 2.., all rows)",
    "leader_element (block)",
    "leader_element (tile of 4)",
    "leader_element (tile of 32)",
    "leader_element (tile of 64)",
    "block_chunk + thread_element",
    "block_chunk + block_stride",
    "block_chunks + thread_element",
    "block_chunk + block_rounds",
    "block_chunk + copy_from (a stage in shared memory)",
];

/// Every thread of a launch: (grid rank, block rank, rank in block, grid
/// coordinates).
fn threads(cfg: &LaunchConfig) -> Vec<(usize, usize, usize, [usize; 3])> {
    let (g, d) = (cfg.grid, cfg.block);
    let (g, d) = (
        [g.x as usize, g.y as usize, g.z as usize],
        [d.x as usize, d.y as usize, d.z as usize],
    );
    let nt = d[0] * d[1] * d[2];
    let mut out = Vec::new();
    for bz in 0..g[2] {
        for by in 0..g[1] {
            for bx in 0..g[0] {
                let block = (bz * g[1] + by) * g[0] + bx;
                for tz in 0..d[2] {
                    for ty in 0..d[1] {
                        for tx in 0..d[0] {
                            let t = (tz * d[1] + ty) * d[0] + tx;
                            let at = [bx * d[0] + tx, by * d[1] + ty, bz * d[2] + tz];
                            out.push((block * nt + t, block, t, at));
                        }
                    }
                }
            }
        }
    }
    out
}

/// What `output_probe(pattern, a, b)` leaves in a poisoned buffer of
/// `len`: the CPU model of each pattern's map from threads to elements.
fn expected(cfg: &LaunchConfig, pattern: usize, a: usize, b: usize, len: usize) -> Vec<u32> {
    let mut out = vec![POISON; len];
    let all = threads(cfg);
    let s = all.len();
    let nt = cfg.block_threads() as usize;
    let blocks = cfg.num_blocks() as usize;
    let mut put = |i: usize, rank: usize| {
        if i < len {
            assert_eq!(out[i], POISON, "the model hands element {i} out twice");
            out[i] = rank as u32 + 1;
        }
    };
    for &(rank, block, t, [x, y, z]) in &all {
        match pattern {
            0 => put(rank, rank),
            1 if x < a && z == 0 => put(y * a + x, rank),
            2 if x < a && y < b => put((z * b + y) * a + x, rank),
            3 => (rank..len).step_by(s).for_each(|i| put(i, rank)),
            4 if a >= 3 && b >= 3 => {
                let (w, h) = (a - 2, b - 2);
                for k in (rank..w * h).step_by(s) {
                    put((1 + k / w) * a + 1 + k % w, rank);
                }
            }
            5 => {
                let w = a - 3;
                for k in (rank..w * b).step_by(s) {
                    put((k / w) * a + 2 + k % w, rank);
                }
            }
            6 if t == 0 => put(block, rank),
            7..=9 => {
                let n = [4, 32, 64][pattern - 7];
                if t % n == 0 {
                    put(block * nt.div_ceil(n) + t / n, rank);
                }
            }
            10..=14 => {
                // A chunk of no elements is none at all.
                let starts: Vec<usize> = if a == 0 {
                    Vec::new()
                } else if pattern == 12 {
                    (block * a..len).step_by(blocks * a).collect()
                } else {
                    vec![block * a]
                };
                for start in starts.into_iter().filter(|&st| st < len) {
                    let chunk = a.min(len - start);
                    let step = if matches!(pattern, 11 | 13 | 14) {
                        nt
                    } else {
                        usize::MAX
                    };
                    for j in (t..chunk).step_by(step) {
                        put(start + j, rank);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Runs `output_probe` and compares with the model, naming the first
/// difference.
fn check(
    gpu: &Gpu,
    k: &Kernels,
    cfg: LaunchConfig,
    pattern: usize,
    a: usize,
    b: usize,
    len: usize,
) {
    let mut out = gpu.upload(&vec![POISON; len]).unwrap();
    k.output_probe
        .launch(cfg, pattern as u32, a as u32, b as u32, &mut out)
        .unwrap();
    gpu.synchronize().unwrap();
    let got = out.to_vec().unwrap();
    let want = expected(&cfg, pattern, a, b, len);
    if let Some(i) = (0..len).find(|&i| got[i] != want[i]) {
        panic!(
            "{} (a = {a}, b = {b}), {len} elements, grid {:?} x block {:?}: element {i} is {:#x}, the pattern gives {:#x}",
            PATTERNS[pattern], cfg.grid, cfg.block, got[i], want[i]
        );
    }
}

/// The launch shapes the GPU test runs: 1-D (partial warps among them),
/// then 2-D and 3-D.
fn shapes() -> Vec<LaunchConfig> {
    let mut out: Vec<LaunchConfig> = [(1, 32), (3, 48), (5, 80), (7, 128), (4, 256)]
        .iter()
        .map(|&(blocks, threads)| LaunchConfig::new(blocks, threads))
        .collect();
    out.extend(
        [
            ((3, 2, 1), (16, 4, 1)),
            ((2, 3, 2), (8, 2, 3)),
            ((5, 1, 1), (33, 3, 1)),
        ]
        .map(|(g, b)| LaunchConfig::new(g, b)),
    );
    out
}

/// The patterns' contract, on the CPU: in every shape the GPU test runs,
/// the map of every pattern hands each element to at most one thread (the
/// model panics otherwise). This is what found that the 2-D pattern must
/// leave out the threads of a 3-D launch's other planes.
#[test]
fn no_pattern_hands_an_element_to_two_threads() {
    for cfg in shapes() {
        let (x, y) = (
            (cfg.grid.x * cfg.block.x) as usize,
            (cfg.grid.y * cfg.block.y) as usize,
        );
        let threads = cfg.block_threads() as usize;
        for len in [1, 100, 5000] {
            for pattern in 0..PATTERNS.len() {
                for (a, b) in [(x, y), (x + 5, y + 2), (4, 3), (threads / 2 + 3, 7)] {
                    expected(&cfg, pattern, a.max(4), b.max(3), len);
                }
            }
        }
    }
}

#[test]
fn every_output_pattern_hands_each_element_to_its_one_owner() {
    let gpu = gpu_or_return!("every_output_pattern_hands_each_element_to_its_one_owner");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("gpu_outputs");
    // 1-D launches: partial warps (48, 80 threads), whole blocks, buffers
    // shorter and longer than the grid.
    for cfg in shapes().into_iter().filter(|c| c.grid.y * c.block.y == 1) {
        let threads = cfg.block.x;
        let total = cfg.num_blocks() as usize * threads as usize;
        for len in [
            1,
            total / 3 + 1,
            total,
            total + 17,
            3 * total + rng.random_range(0..64),
        ] {
            for pattern in [0, 3, 6, 7, 8] {
                check(&gpu, &k, cfg, pattern, 0, 0, len);
            }
            if threads % 64 == 0 {
                check(&gpu, &k, cfg, 9, 0, 0, len);
            }
            for chunk in [
                0,
                1,
                threads as usize / 2 + 3,
                threads as usize,
                2 * threads as usize + 5,
            ] {
                for pattern in 10..=13 {
                    check(&gpu, &k, cfg, pattern, chunk, 0, len);
                }
                // The stage holds a chunk.
                let staged = cfg.with_shared_mem(4 * chunk as u32);
                check(&gpu, &k, staged, 14, chunk, 0, len);
            }
        }
        // Windows of arrays of every shape the grid covers more or less,
        // and interiors with no point (a side below 3) or one column.
        for (w, h) in [
            (3, 3),
            (4, 7),
            (17, 5),
            (64, 9),
            (5, 200),
            (1, 1),
            (2, 9),
            (9, 2),
            (3, 70),
        ] {
            check(&gpu, &k, cfg, 4, w, h, w * h + rng.random_range(0..8));
            check(&gpu, &k, cfg, 5, w.max(4), h, w.max(4) * h);
        }
    }
    // 2-D and 3-D launches, with widths (and heights) below, at and above
    // the launch's extent.
    for cfg in shapes().into_iter().filter(|c| c.grid.y * c.block.y > 1) {
        let (xs, ys) = (
            (cfg.grid.x * cfg.block.x) as usize,
            (cfg.grid.y * cfg.block.y) as usize,
        );
        for (a, b) in [(xs, ys), (xs - 3, ys - 1), (xs + 5, ys + 2), (1, 1)] {
            for len in [a * b, a * b / 2, 3 * a * b + 7] {
                check(&gpu, &k, cfg, 1, a, b, len);
                check(&gpu, &k, cfg, 2, a, b, len);
            }
        }
    }
}

#[test]
fn output_phases_read_what_other_blocks_wrote_before_each_barrier() {
    let gpu = gpu_or_return!("output_phases_read_what_other_blocks_wrote_before_each_barrier");
    let k = Kernels::load(&gpu).unwrap();
    for n in common::sizes(&[1, 100, 4097, 1 << 20]) {
        let mut a = gpu.upload(&vec![POISON; n]).unwrap();
        let mut b = gpu.upload(&vec![POISON; n]).unwrap();
        let cfg = k
            .output_phases
            .function()
            .cooperative_config(256, 0)
            .unwrap();
        k.output_phases.launch(cfg, &mut a, &mut b).unwrap();
        gpu.synchronize().unwrap();
        let a0: Vec<u32> = (0..n).map(|i| 3 * i as u32 + 1).collect();
        let b1: Vec<u32> = (0..n)
            .map(|i| a0[i].wrapping_add(a0[(i + 1) % n]))
            .collect();
        let a2: Vec<u32> = (0..n).map(|i| b1[n - 1 - i]).collect();
        let b3: Vec<u32> = (0..n).map(|i| a2[i] ^ 0xffff).collect();
        assert_eq!(a.to_vec().unwrap(), a2, "n = {n}: a after the third phase");
        assert_eq!(b.to_vec().unwrap(), b3, "n = {n}: b after the fourth phase");
    }
}

#[test]
fn safe_patterns_and_raw_pointers_give_the_same_results() {
    let gpu = gpu_or_return!("safe_patterns_and_raw_pointers_give_the_same_results");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("gpu_outputs raw");
    for n in common::sizes(&[1, 1000, 1 << 20]) {
        let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let x = gpu.upload(&x).unwrap();
        let cfg = LaunchConfig::new(7, 96);
        let run = |f: &dyn Fn(&mut cooperative_groups::DeviceBuffer<f32>)| {
            let mut out = gpu.upload(&vec![f32::NAN; n]).unwrap();
            f(&mut out);
            gpu.synchronize().unwrap();
            out.to_vec().unwrap()
        };
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        let safe = run(&|o| k.cost_stride_safe.launch(cfg, &x, o, 1.5).unwrap());
        let raw = run(&|o| k.cost_stride_raw.launch(cfg, &x, o, 1.5).unwrap());
        assert_eq!(bits(safe), bits(raw), "grid stride, n = {n}");
        let safe = run(&|o| k.cost_chunks_safe.launch(cfg, &x, o).unwrap());
        let raw = run(&|o| k.cost_chunks_raw.launch(cfg, &x, o).unwrap());
        assert_eq!(bits(safe), bits(raw), "block chunks, n = {n}");
    }
    // Fields without an interior (a side below 3) stay as they were; one
    // column of interior; larger ones.
    for (nx, ny, sweeps) in [
        (3u32, 3u32, 1u32),
        (2, 5, 2),
        (5, 2, 1),
        (3, 40, 3),
        (64, 33, 5),
        (257, 129, 6),
    ] {
        let len = (nx * ny) as usize;
        let field: Vec<f32> = (0..len).map(|_| rng.random_range(0.0..1.0)).collect();
        let run = |safe: bool| {
            let mut a = gpu.upload(&field).unwrap();
            let mut b = gpu.upload(&field).unwrap();
            if safe {
                let cfg = k
                    .cost_stencil_safe
                    .function()
                    .cooperative_config(128, 0)
                    .unwrap();
                k.cost_stencil_safe
                    .launch(cfg, &mut a, &mut b, nx, ny, sweeps)
                    .unwrap();
            } else {
                let cfg = k
                    .cost_stencil_raw
                    .function()
                    .cooperative_config(128, 0)
                    .unwrap();
                k.cost_stencil_raw
                    .launch(cfg, &mut a, &mut b, nx, ny, sweeps)
                    .unwrap();
            }
            gpu.synchronize().unwrap();
            let (a, b) = (a.to_vec().unwrap(), b.to_vec().unwrap());
            [a, b].map(|v| v.into_iter().map(f32::to_bits).collect::<Vec<_>>())
        };
        assert_eq!(
            run(true),
            run(false),
            "stencil {nx} x {ny}, {sweeps} sweeps"
        );
    }
}

/// `block_rounds().reading(input)` (`rounds_reading_probe`): in every
/// 1-D shape, for chunks shorter than, as long as and longer than a
/// block, outputs shorter and longer than the input (cut to it first),
/// each element of a block's chunk holds its input + 1 and every other
/// element keeps the poison; the rounds' results agree with the same
/// loop through a raw pointer. On the simulator, an input that ends
/// inside a chunk is the check's fault, naming it.
#[test]
fn block_rounds_reading_hands_each_element_its_input() {
    let gpu = gpu_or_return!("block_rounds_reading_hands_each_element_its_input");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("gpu_outputs reading");
    for cfg in shapes().into_iter().filter(|c| c.grid.y * c.block.y == 1) {
        let (blocks, threads) = (cfg.num_blocks() as usize, cfg.block.x as usize);
        for chunk in [1, threads / 2 + 3, threads, 2 * threads + 5] {
            let covered = blocks * chunk;
            for (len, inputs) in [
                (covered, covered),
                (covered + 9, covered / 2 + 1),
                (covered / 3 + 1, covered + 40),
            ] {
                let input: Vec<u32> = (0..inputs).map(|_| rng.random::<u32>() >> 1).collect();
                let x = gpu.upload(&input).unwrap();
                let mut out = gpu.upload(&vec![POISON; len]).unwrap();
                k.rounds_reading_probe
                    .launch(cfg, &x, chunk as u32, 1, &mut out)
                    .unwrap();
                let got = out.to_vec().unwrap();
                let mut want = vec![POISON; len];
                for (i, w) in want
                    .iter_mut()
                    .enumerate()
                    .take(len.min(inputs).min(covered))
                {
                    *w = input[i] + 1;
                }
                if let Some(i) = (0..len).find(|&i| got[i] != want[i]) {
                    panic!(
                        "chunks of {chunk}, {len} outputs, {inputs} inputs, grid {:?} x block {:?}: element {i} is {:#x}, expected {:#x}",
                        cfg.grid, cfg.block, got[i], want[i]
                    );
                }
                // The same loop through a raw pointer.
                let mut safe = gpu.upload(&vec![POISON; inputs]).unwrap();
                let mut raw = gpu.upload(&vec![POISON; inputs]).unwrap();
                k.cost_rounds_reading
                    .launch(cfg, &x, chunk as u32, &mut safe)
                    .unwrap();
                k.cost_rounds_raw
                    .launch(cfg, &x, chunk as u32, &mut raw)
                    .unwrap();
                assert_eq!(
                    safe.to_vec().unwrap(),
                    raw.to_vec().unwrap(),
                    "chunks of {chunk}, {inputs} inputs, grid {:?} x block {:?}: reading against raw pointers",
                    cfg.grid,
                    cfg.block
                );
            }
        }
    }
    if gpu.is_simulator() {
        // An output longer than the input, not cut: the first block's
        // chunk runs past the input's end. (On a GPU the check's fault
        // report is gpu_faults' `a_short_input_for_block_rounds_reading_names_the_check`.)
        let x = gpu.upload(&[1u32; 40]).unwrap();
        let mut out = gpu.upload(&[POISON; 200]).unwrap();
        let err = k
            .rounds_reading_probe
            .launch(LaunchConfig::new(2, 32), &x, 64, 0, &mut out)
            .and_then(|()| gpu.synchronize())
            .expect_err("an input that ends inside a chunk");
        assert!(
            err.to_string()
                .contains("Rounds::reading: the input ends inside the chunk"),
            "{err}"
        );
    }
}
