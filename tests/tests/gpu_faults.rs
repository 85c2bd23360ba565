//! GPU tests of kernel faults and of every error of loading and launching:
//!
//! * a panic (a bounds check, `unwrap` on `None`, `assert!`) comes back as
//!   `Error::KernelPanic` with the file, line, column, block and thread of
//!   the first thread that panicked, and its message;
//! * cg-core's own checks (a run-time tile size, the pipeline protocol) say
//!   which check stopped the kernel;
//! * a store through a wild pointer is `Error::KernelFault` naming the
//!   illegal address and the tool that finds it;
//! * after a fault, every call says the context was lost to that fault (no
//!   message blames the driver, the PTX or the arguments); `Gpu::reset`
//!   then either recovers or, on a driver that keeps the fault for the rest
//!   of the process (580 does), is refused saying so, with nothing changed;
//! * `Gpu::reset` of a working context opens a new one: old handles are
//!   errors, dropping them frees nothing of the new context, and correct
//!   kernels run (an ordinary and a cooperative one);
//! * a reset is refused while a kernel still runs (it would wait for it);
//! * running out of device memory names the size asked and the memory free;
//! * a module the driver's PTX compiler rejects is blamed on the PTX, with
//!   the compiler's log.
//!
//! A fault loses the context of its process, so every case runs in a child
//! process of its own: this binary again, on one ignored `child_*` test,
//! which checks everything itself and prints what it saw. The parent fails
//! with the child's whole output when the child fails.

mod common;

use cg_samples::kernels::Kernels as SampleKernels;
use cg_tests::kernels::{Kernels, PTX};
use cooperative_groups::{Error, Gpu, LaunchConfig, Ptx, PtxSet};
use std::process::Command;
use std::time::Duration;

/// The kernels' source, to find the lines the panics must name.
const FAULTS_RS: &str = include_str!("../../kernels/tests/src/faults.rs");
/// cg-core's run-time tile, where its size check lives.
const TILE_RS: &str = include_str!("../../cg-core/src/tile.rs");

// ---------------------------------------------------------------- parents

/// Runs the ignored test `child` in a process of its own; fails with the
/// child's output unless it passed and said so. One child at a time: one
/// of them fills the device's memory.
fn run_child(parent: &str, child: &str) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let what = "a kernel fault on the GPU (its fault record, the lost context, resets)";
    let Some(_gpu) = common::real_gpu(parent, what) else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            child,
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("CHILD PASSED: {child}")),
        "the child process `{child}` failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    // What the child saw, errors included, for the log of the run.
    for line in stdout.lines().filter(|l| l.starts_with("SAW ")) {
        println!("{line}");
    }
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_bounds_check_panic_names_file_line_block_and_thread() {
    run_child(
        "a_bounds_check_panic_names_file_line_block_and_thread",
        "child_bounds_check_panic",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_reset_of_a_working_context_invalidates_the_old_handles_and_runs_kernels() {
    run_child(
        "a_reset_of_a_working_context_invalidates_the_old_handles_and_runs_kernels",
        "child_reset_of_a_working_context",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn an_unwrap_of_none_names_its_line_and_thread() {
    run_child(
        "an_unwrap_of_none_names_its_line_and_thread",
        "child_unwrap_none",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_failed_assert_names_its_line_and_thread() {
    run_child("a_failed_assert_names_its_line_and_thread", "child_assert");
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn when_many_threads_panic_one_whole_record_comes_back_every_time() {
    for _ in 0..3 {
        run_child(
            "when_many_threads_panic_one_whole_record_comes_back_every_time",
            "child_many_threads_panic",
        );
    }
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_wild_write_is_an_illegal_address() {
    run_child("a_wild_write_is_an_illegal_address", "child_wild_write");
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_bad_run_time_tile_size_names_the_check() {
    run_child(
        "a_bad_run_time_tile_size_names_the_check",
        "child_tile_size_check",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_pipeline_protocol_error_names_the_check_and_the_callers_line() {
    run_child(
        "a_pipeline_protocol_error_names_the_check_and_the_callers_line",
        "child_pipeline_check",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_short_input_for_block_rounds_reading_names_the_check() {
    run_child(
        "a_short_input_for_block_rounds_reading_names_the_check",
        "child_rounds_reading_check",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn a_reset_is_refused_while_a_kernel_still_runs() {
    run_child(
        "a_reset_is_refused_while_a_kernel_still_runs",
        "child_reset_refused_while_a_kernel_runs",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn running_out_of_device_memory_names_the_size_asked_and_the_memory_free() {
    run_child(
        "running_out_of_device_memory_names_the_size_asked_and_the_memory_free",
        "child_out_of_memory",
    );
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a kernel fault's record, the lost context, resets"
)]
fn ptx_the_driver_rejects_is_blamed_on_the_ptx_with_the_compilers_log() {
    run_child(
        "ptx_the_driver_rejects_is_blamed_on_the_ptx_with_the_compilers_log",
        "child_invalid_ptx",
    );
}

// ---------------------------------------------------------------- children

/// The GPU in a child (its parent checked there is one), with a deadline on
/// every wait.
fn child_gpu() -> Gpu {
    common::gpu("child").expect("the parent checked for a GPU")
}

/// Marks a child as passed, for the parent (and flushes its output).
fn passed(child: &str) {
    use std::io::Write;
    println!("CHILD PASSED: {child}");
    let _ = std::io::stdout().flush();
}

/// Prints what a child saw (the parent repeats these lines).
fn saw(what: &str, e: &Error) {
    println!("SAW {what}: {e}");
    println!("SAW {what} (as a value): {e:?}");
}

/// Whether a child runs under compute-sanitizer (scripts/gpu-run sets
/// `CG_SANITIZER`): the tool stops a faulting kernel itself, so the
/// driver's error code can differ from a bare run's.
fn under_sanitizer() -> bool {
    std::env::var_os("CG_SANITIZER").is_some()
}

/// The line and the 1-based column (what Rust's panic locations give) of
/// `token` on the line of `source` that contains `marker`, or on the
/// nearest line before it that has `token` (a call whose arguments rustfmt
/// put on lines of their own).
fn site(source: &str, marker: &str, token: &str) -> (u32, u32) {
    let lines: Vec<&str> = source.lines().collect();
    let m = lines
        .iter()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no line with `{marker}`"));
    let (n, column) = (0..=m)
        .rev()
        .find_map(|n| lines[n].find(token).map(|c| (n, c)))
        .unwrap_or_else(|| panic!("no `{token}` on or before the line of `{marker}`"));
    (n as u32 + 1, column as u32 + 1)
}

/// The line of `// FAULT: tag` in kernels/tests/src/faults.rs and the column of
/// `token` on it.
fn fault_site(tag: &str, token: &str) -> (u32, u32) {
    site(FAULTS_RS, &format!("// FAULT: {tag}"), token)
}

/// What a panic report must say.
struct Expected<'a> {
    kernel: &'a str,
    file: &'a str,
    at: (u32, u32),
    /// The block and thread, when one thread is meant to stop.
    stopped_in: Option<([u32; 3], [u32; 3])>,
    check: bool,
    message: &'a str,
}

/// Checks that `err` is the panic report `want` describes.
fn expect_panic(err: &Error, want: &Expected<'_>) {
    let Error::KernelPanic {
        kernel,
        earlier_launches,
        file,
        line,
        column,
        block,
        thread,
        message,
        check,
        ordinal,
    } = err
    else {
        panic!(
            "expected a panic report of `{}`, got:\n{err}\n{err:?}",
            want.kernel
        );
    };
    let text = err.to_string();
    assert_eq!(kernel, want.kernel, "{text}");
    assert_eq!(*earlier_launches, 0, "{text}");
    assert_eq!(file, want.file, "{text}");
    assert_eq!((*line, *column), want.at, "line and column: {text}");
    if let Some((b, t)) = want.stopped_in {
        assert_eq!((*block, *thread), (b, t), "block and thread: {text}");
    }
    assert_eq!(*check, want.check, "{text}");
    assert!(
        message.contains(want.message),
        "the message should contain `{}`:\n{text}",
        want.message
    );
    assert_eq!(*ordinal, 0);
    let (l, c) = want.at;
    let stopped = if want.check {
        "failed a cg-core check"
    } else {
        "panicked"
    };
    assert!(
        text.starts_with(&format!(
            "kernel `{}` {stopped} at {}:{l}:{c}, block (",
            want.kernel, want.file
        )),
        "{text}"
    );
    assert!(text.contains("Gpu::reset()"), "the way out: {text}");
}

/// The block and thread of grid rank `rank` in a launch of `grid` x
/// `block` (x fastest).
fn coordinates(rank: u32, grid: [u32; 3], block: [u32; 3]) -> ([u32; 3], [u32; 3]) {
    let per_block = block[0] * block[1] * block[2];
    let (b, t) = (rank / per_block, rank % per_block);
    let unflatten = |i: u32, d: [u32; 3]| [i % d[0], i / d[0] % d[1], i / (d[0] * d[1])];
    (unflatten(b, grid), unflatten(t, block))
}

/// The launch every single-thread fault uses: 2 x 3 blocks of 16 x 4
/// threads, so that every coordinate of the report is checked.
const GRID: [u32; 3] = [2, 3, 1];
const BLOCK: [u32; 3] = [16, 4, 1];
const THREADS: usize = 2 * 3 * 16 * 4;

fn launch_shape() -> LaunchConfig {
    LaunchConfig::new((GRID[0], GRID[1], GRID[2]), (BLOCK[0], BLOCK[1], BLOCK[2]))
}

/// The thread that stops: block (1, 2, 0), thread (5, 3, 0).
fn bad_thread() -> (u32, [u32; 3], [u32; 3]) {
    let block_rank = 2 * GRID[0] + 1;
    let rank = block_rank * (BLOCK[0] * BLOCK[1]) + 3 * BLOCK[0] + 5;
    let (b, t) = coordinates(rank, GRID, BLOCK);
    assert_eq!((b, t), ([1, 2, 0], [5, 3, 0]));
    (rank, b, t)
}

/// After `fault`, every call on the GPU says its context was lost to that
/// fault, and none blames anything else.
fn expect_lost(
    gpu: &Gpu,
    k: &Kernels,
    out: &mut cooperative_groups::DeviceBuffer<u32>,
    fault: &Error,
) {
    let summary = fault.fault_summary().expect("a fault");
    let first_line = summary.split(": ").next().unwrap().to_string();
    let check = |what: &str, r: Result<(), Error>| {
        let e = r.expect_err(what);
        saw(what, &e);
        let text = e.to_string();
        assert!(
            matches!(&e, Error::ContextLost { ordinal: 0, cause } if cause.contains(&first_line)),
            "{what}: should name the lost context and `{first_line}`:\n{text}"
        );
        for blame in [
            "newer driver",
            "PTX ISA",
            "does not compile",
            "invalid launch",
        ] {
            assert!(!text.contains(blame), "{what} blames `{blame}`:\n{text}");
        }
        assert!(text.contains("Gpu::reset()"), "{what}: {text}");
    };
    check(
        "loading the kernels after the fault",
        Kernels::load(gpu).map(|_| ()),
    );
    check(
        "loading them on a fresh Gpu::new(0)",
        Gpu::new(0).and_then(|g| Kernels::load(&g)).map(|_| ()),
    );
    check("an upload", gpu.upload(&[1u32, 2, 3]).map(|_| ()));
    check("an allocation", gpu.alloc_uninit::<u32>(1).map(|_| ()));
    check("a wait", gpu.synchronize());
    check(
        "a launch",
        k.fault_assert.launch(launch_shape(), out, u32::MAX),
    );
    check(
        "an occupancy query",
        k.probe_grid_rotate
            .function()
            .cooperative_config(256, 0)
            .map(|_| ()),
    );
}

/// After a fault: `Gpu::reset` either recovers (and then everything
/// [`check_new_context`] checks holds) or, on a driver that keeps the
/// fault for the rest of the process, is refused saying so, and nothing
/// changes: every call still names the lost context.
fn reset_after_fault(
    gpu: Gpu,
    k: Kernels,
    mut old_buffers: Vec<cooperative_groups::DeviceBuffer<u32>>,
    fault: &Error,
) {
    match gpu.reset() {
        Ok(fresh) => {
            println!("SAW the reset after the fault: this driver lets the process recover");
            check_new_context(fresh, gpu, k, old_buffers);
        }
        Err(e @ Error::ResetRefused { .. }) => {
            saw("the reset after the fault", &e);
            let text = e.to_string();
            assert!(
                text.starts_with(
                    "Gpu::reset() of GPU 0 refused: the CUDA driver keeps the kernel fault for the \
                     rest of this process: it refuses it a new context (CUDA_ERROR_"
                ),
                "{text}"
            );
            assert!(text.contains("from a new process"), "{text}");
            // Nothing changed: the same lost context, named as before.
            let out = old_buffers.last_mut().unwrap();
            expect_lost(&gpu, &k, out, fault);
        }
        Err(e) => panic!("the reset after the fault: {e}\n{e:?}"),
    }
}

/// Checks the context `fresh` that `Gpu::reset` of `gpu` opened: the old
/// handles are errors, dropping them frees nothing of the new context, and
/// correct kernels run (an ordinary and a cooperative one).
fn check_new_context(
    fresh: Gpu,
    gpu: Gpu,
    k: Kernels,
    old_buffers: Vec<cooperative_groups::DeviceBuffer<u32>>,
) {
    // New buffers first, of the old ones' sizes: the new context may well
    // hand out the addresses the old ones had.
    let patterns: Vec<Vec<u32>> = old_buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            (0..b.len() as u32)
                .map(|x| x ^ (0x5a5a_0000 + i as u32))
                .collect()
        })
        .collect();
    let kept: Vec<_> = patterns
        .iter()
        .map(|p| fresh.upload(p).expect("upload after the reset"))
        .collect();
    for (old, new) in old_buffers.iter().zip(&kept) {
        println!(
            "old buffer at {:#x}, new one at {:#x}",
            old.device_address(),
            new.device_address()
        );
    }
    let stale = |what: &str, r: Result<(), Error>| {
        let e = r.expect_err(what);
        saw(what, &e);
        assert!(
            matches!(e, Error::StaleHandle { ordinal: 0 }),
            "{what}: {e}"
        );
    };
    stale("reading an old buffer", old_buffers[0].to_vec().map(|_| ()));
    stale("uploading on the old Gpu", gpu.upload(&[1u32]).map(|_| ()));
    stale("loading on the old Gpu", Kernels::load(&gpu).map(|_| ()));
    stale("resetting the old Gpu", gpu.reset().map(|_| ()));
    let mut out = fresh.filled(THREADS, 0u32).unwrap();
    stale(
        "launching an old kernel",
        k.fault_assert.launch(launch_shape(), &mut out, u32::MAX),
    );
    let kf = Kernels::load(&fresh).expect("loading the kernels after the reset");
    stale(
        "launching a new kernel on an old buffer",
        kf.fault_index_past_end
            .launch(launch_shape(), &old_buffers[0], &mut out, u32::MAX),
    );
    assert!(
        Gpu::new(0).is_ok_and(|g| Kernels::load(&g).is_ok()),
        "Gpu::new(0) returns the new context"
    );
    // Dropping the old handles must not free what the new context holds.
    drop(old_buffers);
    drop(k);
    drop(gpu);
    for (p, b) in patterns.iter().zip(&kept) {
        assert_eq!(
            &b.to_vec().unwrap(),
            p,
            "a new buffer after the old ones were dropped"
        );
    }
    // An ordinary kernel: every thread writes its rank.
    kf.fault_assert
        .launch(launch_shape(), &mut out, u32::MAX)
        .unwrap();
    let want: Vec<u32> = (0..THREADS as u32).collect();
    assert_eq!(
        out.to_vec().unwrap(),
        want,
        "a correct kernel after the reset"
    );
    // A cooperative one, over the whole GPU, from a second module.
    let samples = SampleKernels::load(&fresh).expect("loading the sample kernels after the reset");
    let values: Vec<f32> = (0..1 << 20).map(|i| (i % 7) as f32).collect();
    let input = fresh.upload(&values).unwrap();
    let cfg = samples
        .grid_sum
        .function()
        .cooperative_config(256, 0)
        .unwrap();
    let mut partials = fresh.filled(cfg.grid.x as usize, f32::NAN).unwrap();
    let mut sum = fresh.filled(1, f32::NAN).unwrap();
    samples
        .grid_sum
        .launch(cfg, &input, &mut partials, &mut sum)
        .unwrap();
    common::assert_sum_close(
        "grid_sum after the reset",
        sum.to_vec().unwrap()[0],
        &values,
    );
    println!("the new context ran an ordinary and a cooperative kernel");
}

#[test]
#[ignore = "child process of a_bounds_check_panic_names_file_line_block_and_thread"]
fn child_bounds_check_panic() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let (bad, block, thread) = bad_thread();
    let input = gpu.upload(&[7u32; 4]).unwrap();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_index_past_end
        .launch(launch_shape(), &input, &mut out, bad)
        .unwrap();
    let err = out
        .to_vec()
        .expect_err("thread (5, 3, 0) of block (1, 2, 0) indexes past the end");
    saw("the bounds-check panic", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_index_past_end",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("index", "input[j]"),
            stopped_in: Some((block, thread)),
            check: false,
            message: "index out of bounds: the len is {} but the index is {}",
        },
    );
    expect_lost(&gpu, &k, &mut out, &err);
    reset_after_fault(gpu, k, vec![input, out], &err);
    passed("child_bounds_check_panic");
}

#[test]
#[ignore = "child process of a_reset_of_a_working_context_invalidates_the_old_handles_and_runs_kernels"]
fn child_reset_of_a_working_context() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let input = gpu.upload(&[7u32; 4]).unwrap();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_assert
        .launch(launch_shape(), &mut out, u32::MAX)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        (0..THREADS as u32).collect::<Vec<_>>()
    );
    let fresh = gpu.reset().expect("a reset of a working context");
    check_new_context(fresh, gpu, k, vec![input, out]);
    passed("child_reset_of_a_working_context");
}

#[test]
#[ignore = "child process of an_unwrap_of_none_names_its_line_and_thread"]
fn child_unwrap_none() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let (bad, block, thread) = bad_thread();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_unwrap_none
        .launch(launch_shape(), &mut out, bad)
        .unwrap();
    let err = gpu.synchronize().expect_err("one thread unwraps None");
    saw("the unwrap panic", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_unwrap_none",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("unwrap", "unwrap()"),
            stopped_in: Some((block, thread)),
            check: false,
            message: "called `Option::unwrap()` on a `None` value",
        },
    );
    expect_lost(&gpu, &k, &mut out, &err);
    passed("child_unwrap_none");
}

#[test]
#[ignore = "child process of a_failed_assert_names_its_line_and_thread"]
fn child_assert() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let (bad, block, thread) = bad_thread();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_assert
        .launch(launch_shape(), &mut out, bad)
        .unwrap();
    let err = out.to_vec().expect_err("one thread fails the assert");
    saw("the assert panic", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_assert",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("assert", "assert!"),
            stopped_in: Some((block, thread)),
            check: false,
            message: "assertion failed: i != bad",
        },
    );
    expect_lost(&gpu, &k, &mut out, &err);
    passed("child_assert");
}

#[test]
#[ignore = "child process of when_many_threads_panic_one_whole_record_comes_back_every_time"]
fn child_many_threads_panic() {
    let n = 100usize;
    let grid = [4, 1, 1];
    let block = [64, 1, 1];
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let input = gpu.upload(&vec![1u32; n]).unwrap();
    let mut out = gpu.filled(256, 0u32).unwrap();
    k.fault_many_threads
        .launch(LaunchConfig::new(grid[0], block[0]), &input, &mut out)
        .unwrap();
    let err = out.to_vec().expect_err("156 threads index past the end");
    saw("the panic of many threads", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_many_threads",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("many", "input[i]"),
            stopped_in: None,
            check: false,
            message: "index out of bounds",
        },
    );
    let Error::KernelPanic {
        block: b,
        thread: t,
        ..
    } = err
    else {
        unreachable!()
    };
    // Whichever thread won, its block and thread belong together: one of
    // the threads that panicked.
    let rank = b[0] * block[0] + t[0];
    assert!(
        b[1] == 0 && b[2] == 0 && t[1] == 0 && t[2] == 0 && b[0] < grid[0] && t[0] < block[0],
        "block {b:?}, thread {t:?}"
    );
    assert!(
        rank as usize >= n,
        "thread {rank} did not panic (only ranks {n} and up do)"
    );
    passed("child_many_threads_panic");
}

#[test]
#[ignore = "child process of a_wild_write_is_an_illegal_address"]
fn child_wild_write() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let (bad, _, _) = bad_thread();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    // A terabyte past the buffer: outside every allocation.
    let offset = 1u64 << 38;
    println!(
        "the wild store goes to {:#x}",
        out.device_address() + 4 * offset
    );
    k.fault_wild_write
        .launch(launch_shape(), &mut out, bad, offset)
        .unwrap();
    let err = out
        .to_vec()
        .expect_err("one thread stores through a wild pointer");
    saw("the wild write", &err);
    let Error::KernelFault {
        kernel, code, hint, ..
    } = &err
    else {
        panic!("expected a kernel fault, got:\n{err}\n{err:?}");
    };
    assert_eq!(kernel, "fault_wild_write", "{err}");
    if under_sanitizer() {
        println!("under compute-sanitizer the driver reported {code}");
    } else {
        assert_eq!(code, "CUDA_ERROR_ILLEGAL_ADDRESS", "{err}");
        assert!(
            err.to_string().starts_with(
                "kernel `fault_wild_write` stopped on an illegal memory access (CUDA_ERROR_ILLEGAL_ADDRESS)"
            ),
            "{err}"
        );
        assert!(hint.contains("compute-sanitizer --tool memcheck"), "{err}");
    }
    expect_lost(&gpu, &k, &mut out, &err);
    reset_after_fault(gpu, k, vec![out], &err);
    passed("child_wild_write");
}

#[test]
#[ignore = "child process of a_bad_run_time_tile_size_names_the_check"]
fn child_tile_size_check() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let mut out = gpu.filled(64, 0u32).unwrap();
    k.fault_tile_size
        .launch(LaunchConfig::new(1, 64), &mut out, 3)
        .unwrap();
    let err = out.to_vec().expect_err("a tile of 3 threads");
    saw("the tile-size check", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_tile_size",
            file: "cg-core/src/tile.rs",
            at: site(
                TILE_RS,
                "\"tiled_partition_dynamic(parent, n): n is not a power of two",
                "crate::fault::check_failed",
            ),
            stopped_in: None,
            check: true,
            message: "tiled_partition_dynamic(parent, n): n is not a power of two from 1 to 32",
        },
    );
    passed("child_tile_size_check");
}

#[test]
#[ignore = "child process of a_pipeline_protocol_error_names_the_check_and_the_callers_line"]
fn child_pipeline_check() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let mut out = gpu.filled(32, 0u32).unwrap();
    k.fault_pipeline_release
        .launch(LaunchConfig::new(1, 32), &mut out)
        .unwrap();
    let err = out.to_vec().expect_err("a release with no stage");
    saw("the pipeline check", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_pipeline_release",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("pipeline", "consumer_release"),
            stopped_in: None,
            check: true,
            message: "pipeline: consumer_release() with no stage committed and not yet released",
        },
    );
    passed("child_pipeline_check");
}

#[test]
#[ignore = "child process of a_short_input_for_block_rounds_reading_names_the_check"]
fn child_rounds_reading_check() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let x = gpu.filled(40, 1u32).unwrap();
    let mut out = gpu.filled(200, 0u32).unwrap();
    k.fault_rounds_reading
        .launch(LaunchConfig::new(1, 32), &x, &mut out)
        .unwrap();
    let err = out.to_vec().expect_err("an input that ends inside a chunk");
    saw("the check of Rounds::reading", &err);
    expect_panic(
        &err,
        &Expected {
            kernel: "fault_rounds_reading",
            file: "kernels/tests/src/faults.rs",
            at: fault_site("reading", "reading"),
            stopped_in: None,
            check: true,
            message: "Rounds::reading: the input ends inside the chunk; truncate the output to the input's length first",
        },
    );
    passed("child_rounds_reading_check");
}

#[test]
#[ignore = "child process of running_out_of_device_memory_names_the_size_asked_and_the_memory_free"]
fn child_out_of_memory() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let (_, total) = device_memory(&gpu);
    let gib = 1usize << 30;
    let oom = |what: &str, r: Result<(), Error>, asked: u64| {
        let e = r.expect_err(what);
        saw(what, &e);
        let Error::OutOfMemory {
            ordinal,
            bytes,
            free,
            total: t,
        } = e
        else {
            panic!("{what}: expected out of memory, got:\n{e}\n{e:?}");
        };
        assert_eq!((ordinal, bytes, t), (0, asked, total as u64), "{what}: {e}");
        assert!(free < asked && free <= t, "{what}: {e}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("out of memory on GPU 0: {asked} bytes (")),
            "{text}"
        );
        assert!(
            text.contains(&format!(" free of {total} bytes (")),
            "{text}"
        );
    };
    // More than the device has.
    let too_much = total + gib;
    oom(
        "allocating more than the device has",
        gpu.alloc_uninit::<u8>(too_much).map(|_| ()),
        too_much as u64,
    );
    // Fill the device up to less than 3 GiB free, then ask for 4.
    let mut hog = Vec::new();
    while device_memory(&gpu).0 > 3 * gib && hog.len() < 4096 {
        match gpu.alloc_uninit::<u8>(gib) {
            Ok(b) => hog.push(b),
            Err(e @ Error::OutOfMemory { .. }) => {
                saw("filling the device", &e);
                break;
            }
            Err(e) => panic!("filling the device: {e}"),
        }
    }
    println!(
        "held {} GiB; {} bytes free",
        hog.len(),
        device_memory(&gpu).0
    );
    let four = 4 * gib;
    oom(
        "uploading 4 GiB",
        gpu.upload(&vec![0u8; four]).map(|_| ()),
        four as u64,
    );
    oom(
        "a filled buffer of 4 GiB",
        gpu.filled(four, 1u8).map(|_| ()),
        four as u64,
    );
    // Running out is not a fault: the context works on.
    drop(hog);
    gpu.synchronize().unwrap();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_assert
        .launch(launch_shape(), &mut out, u32::MAX)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        (0..THREADS as u32).collect::<Vec<_>>()
    );
    passed("child_out_of_memory");
}

/// Free and total device memory, as the driver reports them.
fn device_memory(gpu: &Gpu) -> (usize, usize) {
    let (free, total) = gpu.memory().unwrap();
    (free as usize, total as usize)
}

#[test]
#[ignore = "child process of ptx_the_driver_rejects_is_blamed_on_the_ptx_with_the_compilers_log"]
fn child_invalid_ptx() {
    let gpu = child_gpu();
    let m = PTX.select(gpu.info().sm).unwrap();
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let module = |source: &'static str| {
        let set: &'static [Ptx] = Box::leak(Box::new([Ptx { sm: m.sm, source }]));
        gpu.load_module(&PtxSet::new(set))
    };
    // An instruction that does not exist, in the middle of the module.
    let broken = leak(m.source.replacen("\tret;", "\tret_to_nowhere;", 1));
    let e = module(broken).err().expect("the driver cannot compile it");
    saw("PTX with an unknown instruction", &e);
    let Error::InvalidPtx { sm, log, .. } = &e else {
        panic!("expected InvalidPtx, got:\n{e}\n{e:?}");
    };
    assert_eq!(*sm, m.sm);
    assert!(
        log.contains("ret_to_nowhere") || log.contains("error"),
        "the compiler's log: {log}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "the sm_{} PTX module does not compile for {}; the driver's PTX compiler says:\n",
            m.sm,
            gpu.info().name
        )),
        "{text}"
    );
    assert!(!text.contains("newer driver"), "{text}");
    // A PTX ISA newer than the driver's is blamed on the driver, and only
    // then.
    let version = m
        .source
        .lines()
        .find(|l| l.starts_with(".version"))
        .unwrap();
    let future = leak(m.source.replacen(version, ".version 99.9", 1));
    let e = module(future)
        .err()
        .expect("the driver cannot know PTX ISA 99.9");
    saw("PTX ISA 99.9", &e);
    assert!(
        matches!(e, Error::Driver { .. }) && e.to_string().contains("needs a newer driver"),
        "{e}\n{e:?}"
    );
    // Neither lost the context.
    let k = Kernels::load(&gpu).unwrap();
    let mut out = gpu.filled(THREADS, 0u32).unwrap();
    k.fault_assert
        .launch(launch_shape(), &mut out, u32::MAX)
        .unwrap();
    gpu.synchronize_timeout(Duration::from_secs(60)).unwrap();
    passed("child_invalid_ptx");
}

#[test]
#[ignore = "child process of a_reset_is_refused_while_a_kernel_still_runs"]
fn child_reset_refused_while_a_kernel_runs() {
    let gpu = child_gpu();
    let k = Kernels::load(&gpu).unwrap();
    let flag = gpu.filled(1, 0u32).unwrap();
    k.planted_spin_forever
        .launch(LaunchConfig::new(1, 32), &flag)
        .unwrap();
    let e = gpu
        .synchronize_timeout(Duration::from_secs(2))
        .expect_err("the kernel spins for ever");
    saw("the wait", &e);
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    let e = gpu.reset().err().expect("a reset with a kernel running");
    saw("the reset", &e);
    assert!(
        matches!(e, Error::ResetRefused { ordinal: 0, .. })
            && e.to_string().contains("`planted_spin_forever`"),
        "{e}"
    );
    passed("child_reset_refused_while_a_kernel_runs");
    // At once: tearing the context down would wait for the kernel.
    std::process::exit(0);
}
