//! GPU tests of the foundation: block and grid reductions, group queries on
//! 1-D to 3-D shapes, warp shuffles, the grid barrier, and the cooperative
//! launch checks. Each compares every thread's result with a CPU model on
//! random inputs, with outputs poisoned first.

mod common;

use cg_samples::kernels::Kernels as SampleKernels;
use cg_tests::kernels::Kernels;
use cooperative_groups::{Error, Gpu, LaunchConfig, LaunchKind};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

#[test]
fn grid_sum_matches_float64_reference() {
    let gpu = gpu_or_return!("grid_sum_matches_float64_reference");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("grid_sum");
    for threads in [256, 1024, 96] {
        let full = k
            .grid_sum
            .function()
            .cooperative_config(threads, 0)
            .unwrap();
        for n in [
            1usize,
            31,
            255,
            256,
            257,
            1000,
            65_537,
            1 << 20,
            (1 << 24) + 3,
        ] {
            for blocks in [full.grid.x, 1, 7] {
                let cfg = LaunchConfig::new(blocks, threads);
                println!("grid_sum: n={n} grid={blocks}x{threads}");
                let values = common::random_f32(&mut rng, n);
                let input = gpu.upload(&values).unwrap();
                let mut partials = gpu.filled(blocks as usize, f32::NAN).unwrap();
                let mut out = gpu.filled(1, f32::NAN).unwrap();
                k.grid_sum
                    .launch(cfg, &input, &mut partials, &mut out)
                    .unwrap();
                gpu.synchronize_timeout(DEADLINE).unwrap();
                let got = out.to_vec().unwrap()[0];
                common::assert_sum_close(
                    &format!("grid_sum n={n} blocks={blocks}x{threads}"),
                    got,
                    &values,
                );
            }
        }
    }
}

#[test]
fn block_reduce_gives_every_block_its_sum() {
    let gpu = gpu_or_return!("block_reduce_gives_every_block_its_sum");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("block_reduce");
    for threads in [32u32, 64, 96, 256, 1024] {
        for n in common::sizes(&[1, 33, 1000, 4097, 100_003]) {
            let values = common::random_f32(&mut rng, n);
            let cfg = LaunchConfig::for_elements(n, threads);
            let blocks = cfg.num_blocks() as usize;
            println!("block_reduce: n={n} grid={blocks}x{threads}");
            let input = gpu.upload(&values).unwrap();
            let mut sums = gpu.filled(blocks, f32::NAN).unwrap();
            k.block_reduce_warp.launch(cfg, &input, &mut sums).unwrap();
            let got = sums.to_vec().unwrap();
            for (b, chunk) in values.chunks(threads as usize).enumerate() {
                common::assert_sum_close(
                    &format!("block {b} of {blocks} ({threads} threads, n={n})"),
                    got[b],
                    chunk,
                );
            }
        }
    }
}

/// CPU model of `probe_groups`: for each thread, in grid-rank order, the
/// block rank, block size and grid rank.
fn model_groups(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Vec<[u32; 3]> {
    let bt = block.0 * block.1 * block.2;
    let nb = grid.0 * grid.1 * grid.2;
    (0..nb * bt).map(|r| [r % bt, bt, r]).collect()
}

#[test]
fn group_queries_match_cuda_for_1d_2d_3d_shapes() {
    let gpu = gpu_or_return!("group_queries_match_cuda_for_1d_2d_3d_shapes");
    let k = Kernels::load(&gpu).unwrap();
    for (grid, block) in [
        ((1, 1, 1), (1, 1, 1)),
        ((3, 1, 1), (96, 1, 1)),
        ((2, 1, 1), (1000, 1, 1)),
        ((2, 3, 1), (16, 8, 1)),
        ((2, 2, 2), (8, 4, 2)),
        ((5, 1, 1), (7, 3, 5)),
    ] {
        println!("probe_groups: grid={grid:?} block={block:?}");
        let want = model_groups(grid, block);
        let mut out = gpu.filled(4 * want.len(), 0xDEAD_BEEFu32).unwrap();
        k.probe_groups
            .launch(LaunchConfig::new(grid, block), &mut out)
            .unwrap();
        let got = out.to_vec().unwrap();
        for (r, w) in want.iter().enumerate() {
            let g = &got[4 * r..4 * r + 3];
            assert_eq!(g, w, "thread {r} of grid {grid:?} x block {block:?}: [block rank, block size, grid rank]");
        }
    }
}

#[test]
fn warp_shfl_down_matches_model() {
    let gpu = gpu_or_return!("warp_shfl_down_matches_model");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("shfl_down");
    let n = 4096usize;
    let input: Vec<u32> = (0..n).map(|_| rand::Rng::random(&mut rng)).collect();
    let buf = gpu.upload(&input).unwrap();
    for delta in [0u32, 1, 2, 5, 16, 31] {
        let mut out = gpu.filled(n, 0xDEAD_BEEFu32).unwrap();
        k.probe_warp_shfl_down
            .launch(LaunchConfig::for_elements(n, 256), &buf, &mut out, delta)
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..n {
            let lane = (i % 32) as u32;
            let want = if lane + delta < 32 {
                input[i + delta as usize]
            } else {
                input[i]
            };
            assert_eq!(got[i], want, "thread {i}, delta {delta}");
        }
    }
}

#[test]
fn grid_sync_orders_writes_across_blocks() {
    let gpu = gpu_or_return!("grid_sync_orders_writes_across_blocks");
    let k = Kernels::load(&gpu).unwrap();
    for threads in [64u32, 256, 1024] {
        let cfg = k
            .probe_grid_rotate
            .function()
            .cooperative_config(threads, 0)
            .unwrap();
        for n in [1u32, 100, cfg.grid.x * threads - 5, cfg.grid.x * threads] {
            for _ in 0..3 {
                println!("grid_rotate: n={n} grid={}x{threads}", cfg.grid.x);
                let mut scratch = gpu.filled(n as usize, 0u32).unwrap();
                let mut out = gpu.filled(n as usize, 0xDEAD_BEEFu32).unwrap();
                k.probe_grid_rotate
                    .launch(cfg, &mut scratch, &mut out, n)
                    .unwrap();
                gpu.synchronize_timeout(DEADLINE).unwrap();
                let got = out.to_vec().unwrap();
                for i in 0..n {
                    let src = (i + 1) % n;
                    assert_eq!(
                        got[i as usize],
                        src.wrapping_mul(2_654_435_761),
                        "thread {i} of {n} ({threads} threads/block)"
                    );
                }
            }
        }
    }
}

#[test]
fn oversized_cooperative_grid_is_refused_before_launch() {
    let gpu = gpu_or_return!("oversized_cooperative_grid_is_refused_before_launch");
    let k = SampleKernels::load(&gpu).unwrap();
    let limit = k
        .grid_sum
        .function()
        .max_cooperative_blocks(256, 0)
        .unwrap();
    let input = gpu.upload(&vec![1.0f32; 1 << 16]).unwrap();
    let mut partials = gpu.filled(limit as usize + 1, f32::NAN).unwrap();
    let mut out = gpu.filled(1, -7.0f32).unwrap();
    let err = k
        .grid_sum
        .launch(
            LaunchConfig::new(limit + 1, 256),
            &input,
            &mut partials,
            &mut out,
        )
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::GridTooLarge { .. }), "{msg}");
    assert!(
        msg.contains(&format!("at most {limit}")),
        "the message names the limit: {msg}"
    );
    // Nothing ran and nothing is lost: the output is untouched and the
    // context still works.
    assert_eq!(out.to_vec().unwrap(), [-7.0]);
    let ok = k.grid_sum.function().cooperative_config(256, 0).unwrap();
    k.grid_sum
        .launch(ok, &input, &mut partials, &mut out)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [(1 << 16) as f32]);
}

#[test]
fn invalid_shapes_are_refused_with_the_limit() {
    let gpu = gpu_or_return!("invalid_shapes_are_refused_with_the_limit");
    let k = Kernels::load(&gpu).unwrap();
    let mut out = gpu.filled(4, 0u32).unwrap();
    let max_threads = gpu.info().limits.max_threads_per_block;
    for (cfg, needle) in [
        (LaunchConfig::new(0, 32), "grid.x is 0".to_string()),
        (LaunchConfig::new(1, 0), "block.x is 0".to_string()),
        (
            LaunchConfig::new(1, max_threads + 32),
            format!("{}", gpu.info().limits.max_block[0]),
        ),
        (
            LaunchConfig::new(1, 32).with_shared_mem(u32::MAX),
            format!("{}", gpu.info().limits.max_shared_mem_optin),
        ),
    ] {
        let e = k
            .probe_groups
            .launch(cfg, &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&needle), "{cfg:?}: {e}");
    }
    assert!(matches!(
        k.module.function("no_such_kernel", LaunchKind::Plain),
        Err(Error::KernelNotFound { .. })
    ));
}

/// Runs in a child process of its own (see the test below): a kernel that
/// traps poisons its CUDA context, and the grid workspace pointer reads 0
/// only in a process that has never launched cooperatively. Loading a
/// module with grid barriers times where their counters go with
/// cooperative launches, so the parent fixes the place
/// (`CG_GRID_BARRIER_SLOT`): then the load launches nothing.
#[test]
#[ignore = "child process of grid_sync_without_cooperative_launch_traps"]
fn child_grid_sync_without_cooperative_launch() {
    let gpu = common::gpu("child").expect("the parent checked for a GPU");
    let k = Kernels::load(&gpu).unwrap();
    let mut probe = gpu.filled(4, 7u32).unwrap();
    k.probe_groups
        .launch(LaunchConfig::new(1, 1), &mut probe)
        .unwrap();
    println!("IS_VALID_UNDER_PLAIN_LAUNCH={}", probe.to_vec().unwrap()[3]);
    print_how_it_stopped(launch_grid_rotate(&gpu, &k, LaunchKind::Plain));
}

/// Launches `probe_grid_rotate` on 4 x 256 threads as `kind` (raw API).
fn launch_grid_rotate(gpu: &Gpu, k: &Kernels, kind: LaunchKind) -> Result<(), Error> {
    let n = 1024u32;
    let scratch = gpu.filled(n as usize, 0u32).unwrap();
    let out = gpu.filled(n as usize, 0u32).unwrap();
    let (a, b) = (scratch.device_address(), out.device_address());
    let mut params = [
        &a as *const u64 as *mut std::ffi::c_void,
        &b as *const u64 as *mut std::ffi::c_void,
        &n as *const u32 as *mut std::ffi::c_void,
    ];
    // SAFETY: the parameters match probe_grid_rotate(*mut u32, *mut u32, u32),
    // and the buffers outlive the wait below.
    let launched = unsafe {
        k.probe_grid_rotate
            .function()
            .launch_as(kind, LaunchConfig::new(4, 256), &mut params)
    };
    launched.and_then(|()| gpu.synchronize_timeout(Duration::from_secs(10)))
}

/// Prints, for the parent, how a launch that should fail a check ended.
fn print_how_it_stopped(result: Result<(), Error>) {
    match result {
        Err(e @ Error::KernelPanic { check: true, .. }) => {
            println!("CHECK FAILED: {}", e.to_string().replace('\n', " | "))
        }
        Err(e @ Error::SimulatorFault { .. }) => println!("SIMULATOR FAULT: {e}"),
        other => println!("DID NOT STOP: {other:?}"),
    }
}

/// Runs the ignored test `name` of this binary in a child process with
/// `env` set, and returns its standard output (it must succeed).
fn run_child(name: &str, env: &[(&str, &str)]) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .envs(env.iter().copied())
        .args([
            "--ignored",
            "--exact",
            name,
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The child's line for a failed cg-core check at `probe_grid_rotate`'s
/// `grid.sync()`: it names the kernel, the call's line and column, and
/// says `why`.
fn grid_rotate_check_failure(stdout: &str, why: &str) -> String {
    let probes = include_str!("../../kernels/tests/src/probes.rs");
    let kernel = probes.find("pub fn probe_grid_rotate").unwrap();
    let call = kernel + probes[kernel..].find("grid.sync();").unwrap();
    let line = probes[..call].lines().count();
    let column = call - probes[..call].rfind('\n').unwrap() + "grid.".len();
    let want = format!(
        "CHECK FAILED: kernel `probe_grid_rotate` failed a cg-core check at \
         kernels/tests/src/probes.rs:{line}:{column}, block ("
    );
    // From the marker on: the test harness may have printed the test's name
    // on the same line.
    let got = stdout
        .lines()
        .find_map(|l| l.find("CHECK FAILED").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("grid.sync() must stop the kernel, not hang:\n{stdout}"));
    assert!(got.starts_with(&want), "want `{want}...`, got:\n{got}");
    assert!(got.contains(why), "want `{why}`, got:\n{got}");
    got.to_string()
}

#[test]
fn grid_sync_without_cooperative_launch_traps() {
    let Some(gpu) = common::gpu("grid_sync_without_cooperative_launch_traps") else {
        return;
    };
    let stdout = run_child(
        "child_grid_sync_without_cooperative_launch",
        &[("CG_GRID_BARRIER_SLOT", "0")],
    );
    assert!(
        stdout.contains("IS_VALID_UNDER_PLAIN_LAUNCH=0"),
        "grid.is_valid() under a plain launch:\n{stdout}"
    );
    if gpu.is_simulator() {
        // The simulator stops the launch at the first thread that reaches
        // the grid barrier, naming it.
        let want =
            "SIMULATOR FAULT: kernel `probe_grid_rotate` on the simulator: simulated kernel \
                    fault at block (0, 0, 0), thread (0, 0, 0) (warp 0, lane 0): grid.sync() in a \
                    launch that is not cooperative";
        assert!(
            stdout.lines().any(|l| l.starts_with(want)),
            "want `{want}...`, got:\n{stdout}"
        );
        return;
    }
    // The kernel stops at cg-core's check, which names itself and the line
    // of the `grid.sync()` call.
    let got = grid_rotate_check_failure(
        &stdout,
        "grid.sync(): the kernel was not launched cooperatively",
    );
    println!("{got}");
}

/// Runs in a child process of its own (see the test below): a cooperative
/// launch of a module whose grid barrier word is 0, as in a module loaded
/// without this crate.
#[test]
#[ignore = "child process of grid_sync_without_counters_traps"]
fn child_grid_sync_without_counters() {
    let gpu = common::gpu("child").expect("the parent checked for a GPU");
    let k = Kernels::load(&gpu).unwrap();
    cooperative_groups::testing::set_grid_barrier_slot(&k.module, None).unwrap();
    print_how_it_stopped(launch_grid_rotate(&gpu, &k, LaunchKind::Cooperative));
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a module whose grid barrier counters were never set"
)]
fn grid_sync_without_counters_traps() {
    // The simulator's counters are each launch's own: none to leave unset.
    let what = "a module whose grid barrier counters were never set";
    let Some(_gpu) = common::real_gpu("grid_sync_without_counters_traps", what) else {
        return;
    };
    let stdout = run_child("child_grid_sync_without_counters", &[]);
    let got = grid_rotate_check_failure(
        &stdout,
        "grid.sync(): the module's grid barrier counters were never set",
    );
    println!("{got}");
}
