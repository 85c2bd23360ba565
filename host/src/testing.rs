//! For `cargo test` in crates with GPU kernels: tests that need a GPU run
//! where there is one and say loudly where there is not.

use crate::{Error, Gpu, GpuSet};
use std::io::Write;

/// The variable that turns a missing GPU into a test failure (`=1`), for
/// machines where the GPU tests must run.
pub const REQUIRE_GPU_VAR: &str = "CG_REQUIRE_GPU";

/// The variable that turns fewer GPUs than a multi-GPU test needs into a
/// test failure (`CG_REQUIRE_GPUS=2`: a run on a machine that must have
/// two).
pub const REQUIRE_GPUS_VAR: &str = "CG_REQUIRE_GPUS";

/// The line a GPU test prints (to stderr, past the test harness's capture)
/// when it cannot run: `GPU TEST NOT RUN: {test}: {why}`. Scripts count it.
pub const NOT_RUN_NOTICE: &str = "GPU TEST NOT RUN";

/// Device 0 for the GPU test `test`. When this machine has no CUDA driver
/// or no device: with the `sim` feature, the simulator
/// ([`Gpu::simulator`]) after the loud notice [`ON_SIMULATOR_NOTICE`];
/// without it, `None` after the loud notice [`NOT_RUN_NOTICE`], and the
/// test returns without checking anything. With `CG_REQUIRE_GPU=1` a
/// missing GPU panics instead; with `CG_DEVICE=sim` (and the `sim`
/// feature) the test runs on the simulator even where there is a GPU. Any
/// other failure to open the GPU panics with its cause.
///
/// ```no_run
/// # use cooperative_groups::testing::gpu_for_test;
/// #[test]
/// fn my_kernel_matches_the_cpu() {
///     let Some(gpu) = gpu_for_test("my_kernel_matches_the_cpu") else {
///         return;
///     };
///     // launch, read back, compare
/// }
/// ```
pub fn gpu_for_test(test: &str) -> Option<Gpu> {
    #[cfg(feature = "sim")]
    if simulator_asked() {
        return Some(Gpu::simulator());
    }
    match open_gpu(test) {
        Ok(gpu) => Some(gpu),
        #[cfg(feature = "sim")]
        Err(why) => {
            let line = format!("{ON_SIMULATOR_NOTICE}: {test}: {why}\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            Some(Gpu::simulator())
        }
        #[cfg(not(feature = "sim"))]
        Err(why) => {
            not_run(test, &why);
            None
        }
    }
}

/// Device 0 for the GPU test `test` of something only a GPU has (`what`:
/// timing, a kernel fault's effect on the context, the CUDA driver's own
/// errors). Never the simulator: where there is no GPU, or `CG_DEVICE=sim`
/// asks for the simulator, `None` after the notice [`NOT_RUN_NOTICE`]
/// (with `CG_REQUIRE_GPU=1` a missing GPU panics, as in
/// [`gpu_for_test`]).
pub fn gpu_only_for_test(test: &str, what: &str) -> Option<Gpu> {
    #[cfg(feature = "sim")]
    if simulator_asked() {
        not_run(test, &format!("needs a GPU ({what}), and {DEVICE_VAR}=sim"));
        return None;
    }
    match open_gpu(test) {
        Ok(gpu) => Some(gpu),
        Err(why) => {
            not_run(test, &format!("needs a GPU ({what}): {why}"));
            None
        }
    }
}

/// Device 0, or why this machine has none (no driver, no device); panics
/// on any other failure, and on a missing GPU under `CG_REQUIRE_GPU=1`.
fn open_gpu(test: &str) -> Result<Gpu, String> {
    match Gpu::new(0) {
        Ok(g) => Ok(g),
        Err(e @ (Error::NoDriver | Error::NoDevice(_))) => {
            if std::env::var(REQUIRE_GPU_VAR).as_deref() == Ok("1") {
                panic!("{REQUIRE_GPU_VAR}=1 but the GPU test `{test}` cannot run: {e}");
            }
            Err(match e {
                Error::NoDriver => "no CUDA driver".to_string(),
                other => other.to_string(),
            })
        }
        Err(e) => panic!("opening the GPU for `{test}` failed: {e}"),
    }
}

/// The variable that runs GPU tests on the simulator even where there is a
/// GPU (`CG_DEVICE=sim`; the `sim` feature).
pub const DEVICE_VAR: &str = "CG_DEVICE";

/// The line a GPU test prints (to stderr) when it runs on the simulator
/// because this machine has no GPU (the `sim` feature):
/// `GPU TEST ON THE SIMULATOR: {test}: {why}`. Scripts count it.
pub const ON_SIMULATOR_NOTICE: &str = "GPU TEST ON THE SIMULATOR";

/// Whether `CG_DEVICE=sim` asks for the simulator.
#[cfg(feature = "sim")]
fn simulator_asked() -> bool {
    std::env::var(DEVICE_VAR).as_deref() == Ok("sim")
}

/// Whether this machine has `n` GPUs for the multi-GPU test `test`: when it
/// has fewer (or no driver, or `CG_DEVICE=sim` asks for the simulator),
/// prints the loud notice [`NOT_RUN_NOTICE`] once and returns false. A
/// missing driver or device panics under `CG_REQUIRE_GPU=1` as in
/// [`gpu_for_test`]; too few GPUs panics only when
/// `CG_REQUIRE_GPUS` asks for at least `n`, since a one-GPU machine cannot
/// run a two-GPU test.
pub fn has_gpus_for_test(test: &str, n: usize) -> bool {
    let what = format!("a set of {n} GPU(s), which the simulator is not");
    if gpu_only_for_test(test, &what).is_none() {
        return false;
    }
    let count = Gpu::count().unwrap_or(0);
    if count >= n {
        return true;
    }
    let required = std::env::var(REQUIRE_GPUS_VAR)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    let why = format!("it needs {n} GPUs and this machine has {count}");
    if required >= n {
        panic!("{REQUIRE_GPUS_VAR}={required} but the GPU test `{test}` cannot run: {why}");
    }
    not_run(test, &why);
    false
}

/// Prints the notice [`NOT_RUN_NOTICE`] for `test`, saying `why`: one
/// write of the whole line, so that parallel tests' output cannot split it
/// (scripts count these lines).
fn not_run(test: &str, why: &str) {
    let line = format!("{NOT_RUN_NOTICE}: {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// A set of the first `n` GPUs for the multi-GPU test `test`, or `None`
/// when [`has_gpus_for_test`] says the machine has too few. Any other
/// failure (GPUs without peer access, of different models) panics with its
/// cause.
pub fn gpus_for_test(test: &str, n: usize) -> Option<GpuSet> {
    if !has_gpus_for_test(test, n) {
        return None;
    }
    match GpuSet::new(&(0..n).collect::<Vec<_>>()) {
        Ok(set) => Some(set),
        Err(e) => panic!("opening {n} GPUs as a set for `{test}` failed: {e}"),
    }
}

/// Points `module`'s grid barrier word at place `slot` (below
/// `cg_core::grid::layout::SLOTS`) of its GPU's counters instead of the
/// place timed fastest, or sets it to 0 (`None`), as in a module loaded
/// without this crate: for tests of the barrier at every place, and of the
/// check that stops a kernel whose counters were never set. Panics on a
/// slot out of range; a CUDA error is returned ([`Error::NeedsGpu`] on the
/// simulator, whose counters are each launch's own).
pub fn set_grid_barrier_slot(module: &crate::Module, slot: Option<u32>) -> Result<(), Error> {
    let slots = cg_core::grid::layout::SLOTS;
    assert!(
        slot.is_none_or(|s| s < slots),
        "{slot:?} is not a place of the grid barrier's counters (0 to {})",
        slots - 1
    );
    module.set_grid_barrier_slot(slot)
}
