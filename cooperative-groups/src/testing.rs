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

/// Device 0 for the GPU test `test`, or `None` after the loud notice
/// [`NOT_RUN_NOTICE`] when this machine has no CUDA driver or no device;
/// the test then returns without checking anything. With
/// `CG_REQUIRE_GPU=1` a missing GPU panics instead. Any other failure to
/// open the GPU panics with its cause.
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
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e @ (Error::NoDriver | Error::NoDevice(_))) => {
            if std::env::var(REQUIRE_GPU_VAR).as_deref() == Ok("1") {
                panic!("{REQUIRE_GPU_VAR}=1 but the GPU test `{test}` cannot run: {e}");
            }
            not_run(test, &e.to_string());
            None
        }
        Err(e) => panic!("opening the GPU for `{test}` failed: {e}"),
    }
}

/// Whether this machine has `n` GPUs for the multi-GPU test `test`: when it
/// has fewer (or no driver), prints the loud notice [`NOT_RUN_NOTICE`] and
/// returns false. A missing driver or device panics under
/// `CG_REQUIRE_GPU=1` as in [`gpu_for_test`]; too few GPUs panics only when
/// `CG_REQUIRE_GPUS` asks for at least `n`, since a one-GPU machine cannot
/// run a two-GPU test.
pub fn has_gpus_for_test(test: &str, n: usize) -> bool {
    if gpu_for_test(test).is_none() {
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
