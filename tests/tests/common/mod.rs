//! What the GPU tests share: opening the GPU (or saying loudly that the test
//! did not run), random inputs with a printed seed, and the float64 checks;
//! in [`api`], what the tests of the `kernels/tests/src/api` probes share.
#![allow(dead_code)]

pub mod api;

// The kernel crates' host builds, linked into every test program: where
// the GPU tests run on the simulator, its kernels are these.
use cg_sample_kernels as _;
use cg_test_kernels as _;
use cooperative_groups::testing::REQUIRE_GPU_VAR;
use cooperative_groups::Gpu;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;

/// The GPU, or `None` after a loud notice when this machine has no CUDA
/// driver or device (`cooperative_groups::testing::gpu_for_test`). With
/// `CG_REQUIRE_GPU=1` a missing GPU fails the test.
pub fn gpu(test: &str) -> Option<Gpu> {
    with_deadline(cooperative_groups::testing::gpu_for_test(test)?)
}

/// `g`, with a deadline on every wait unless it has one.
fn with_deadline(g: Gpu) -> Option<Gpu> {
    // Every wait of a GPU test has a deadline: a kernel that hangs fails its
    // test with `Error::Timeout` naming it, instead of hanging the run.
    // `CG_DEADLINE_SECONDS` overrides the default.
    if g.deadline().is_none() {
        g.set_deadline(Some(DEADLINE));
    }
    Some(g)
}

/// Whether the build found a GPU (or `CG_REQUIRE_GPU=1` asked for one):
/// then the tests that need a GPU are not ignored (`tests/skips.rs`), and
/// none may pass without one.
pub const BUILT_FOR_A_GPU: bool = !cfg!(cg_no_gpu);

/// Whether the build found the CUDA twins too (or was asked for them), so
/// that the tests that compare with them are not ignored.
pub const BUILT_FOR_TWINS: bool = BUILT_FOR_A_GPU && !cfg!(cg_no_twins);

/// The GPU for a test of what only a GPU has (`what`: the fault record and
/// the lost context, the driver's answers, a comparison with the
/// simulator), never the simulator. Such a test is ignored where the
/// build found no GPU (`#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: ..")]`);
/// run without one all the same, it fails, unless `CG_DEVICE=sim` asks
/// for the simulator: then `None` after the notice `GPU TEST NOT RUN`.
pub fn real_gpu(test: &str, what: &str) -> Option<Gpu> {
    match cooperative_groups::testing::gpu_only_for_test(test, what) {
        Some(g) => with_deadline(g),
        None => {
            assert!(
                !BUILT_FOR_A_GPU || simulator_asked(),
                "`{test}` was built where there was a GPU (or with {REQUIRE_GPU_VAR}=1), so it \
                 is not ignored, but there is none now: build it again here (cargo test \
                 probes again when {REQUIRE_GPU_VAR}, CG_DEVICE or CUDA_VISIBLE_DEVICES \
                 changes), or set CG_DEVICE=sim"
            );
            None
        }
    }
}

/// The GPU for the part of a test that compares with the GPU (`what`),
/// where the rest runs on the simulator: as [`real_gpu`] where the build
/// found a GPU; where it found none, `None` after the notice `GPU TEST ON
/// THE SIMULATOR` (the test ran on the simulator alone).
pub fn gpu_part(test: &str, what: &str) -> Option<Gpu> {
    if BUILT_FOR_A_GPU {
        return real_gpu(test, what);
    }
    let line = format!(
        "{}: {test}: on the simulator alone, without its GPU part ({what})\n",
        cooperative_groups::testing::ON_SIMULATOR_NOTICE
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
    None
}

/// Whether `CG_DEVICE=sim` asks for the simulator.
fn simulator_asked() -> bool {
    std::env::var(cooperative_groups::testing::DEVICE_VAR).as_deref() == Ok("sim")
}

/// The default deadline of every wait in a GPU test (sanitizers make
/// kernels tens of times slower, so it is generous).
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

/// Whether to keep inputs small (`CG_QUICK=1`): under compute-sanitizer,
/// which runs kernels tens of times slower.
pub fn quick() -> bool {
    std::env::var("CG_QUICK").as_deref() == Ok("1")
}

/// `sizes` without those above 2^16 when [`quick`].
pub fn sizes(sizes: &[usize]) -> Vec<usize> {
    sizes
        .iter()
        .copied()
        .filter(|&n| !quick() || n <= 1 << 16)
        .collect()
}

/// Opens the GPU or returns from the test (after the notice).
#[macro_export]
macro_rules! gpu_or_return {
    ($name:expr) => {
        match common::gpu($name) {
            Some(g) => g,
            None => return,
        }
    };
}

/// `$CG_TWINS_DIR/{file}`, the nvcc-built CUDA C++ twins (gpu-run's twins
/// step builds tests/twins/*.cu there), or `None` after the line
/// `{notice}: {test}: no CUDA twins (...)` on stderr; with
/// `CG_REQUIRE_GPU=1`, or where the build found the twins (the tests that
/// need them are then not ignored), missing twins fail the test, since
/// CUDA is the judge. `notice` says what the test does without them (`GPU
/// TEST NOT RUN` when it returns).
pub fn twins_path(test: &str, file: &str, notice: &str) -> Option<std::path::PathBuf> {
    let found = std::env::var_os("CG_TWINS_DIR")
        .map(|dir| std::path::Path::new(&dir).join(file))
        .filter(|path| path.exists());
    if found.is_none() {
        let why = format!(
            "{test}: no CUDA twins ({file} under CG_TWINS_DIR; gpu-run's twins step builds \
             tests/twins/*.cu with nvcc -O3 -ptx for the GPU's architecture, NAME.ptx, and \
             with -fmad=false, NAME.fmad-false.ptx)"
        );
        if std::env::var(REQUIRE_GPU_VAR).as_deref() == Ok("1") {
            panic!("{REQUIRE_GPU_VAR}=1 but {why}");
        }
        if BUILT_FOR_TWINS {
            panic!(
                "built where there were twins (or with {REQUIRE_GPU_VAR}=1), but {why}: build \
                 again with CG_TWINS_DIR as it is now"
            );
        }
        // One write of the whole line, which scripts count.
        let _ = std::io::stderr().write_all(format!("{notice}: {why}\n").as_bytes());
    }
    found
}

/// The twins' module, loaded (see [`twins_path`]); the test goes on
/// without them after the notice `CUDA TWINS NOT LOADED` (always on the
/// simulator, which does not run PTX).
pub fn twin_module(gpu: &Gpu, test: &str, file: &str) -> Option<cooperative_groups::Module> {
    if gpu.is_simulator() {
        let line = format!("CUDA TWINS NOT LOADED: {test}: the simulator does not run PTX\n");
        let _ = std::io::stderr().write_all(line.as_bytes());
        return None;
    }
    let p = twins_path(test, file, "CUDA TWINS NOT LOADED")?;
    Some(
        cooperative_groups::Module::from_ptx_file(gpu, &p)
            .unwrap_or_else(|e| panic!("loading the CUDA twins {}: {e}", p.display())),
    )
}

/// The types of the parameters of the PTX entry `name` (`.u64`, `.u32`,
/// `.b8[12]`); `None` when the module has no such entry. A CUDA twin must
/// have its Rust kernel's list.
pub fn entry_params(ptx: &str, name: &str) -> Option<Vec<String>> {
    Some(
        cg_ptx::Module::parse(ptx)
            .entry(name)?
            .declared_param_types(),
    )
}

/// A random generator whose seed is printed, and can be fixed with
/// `CG_TEST_SEED`, so that a failure can be replayed.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("CG_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    println!("{test}: CG_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Uniform floats in [-1, 1).
pub fn random_f32(rng: &mut StdRng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// Checks a float32 sum against the float64 sum of the same values. The
/// tolerance is float32 rounding over the magnitude summed: the absolute sum
/// times a few units of float32 precision per level of a reduction tree.
pub fn assert_sum_close(what: &str, got: f32, values: &[f32]) {
    let exact: f64 = values.iter().map(|&v| v as f64).sum();
    let magnitude: f64 = values.iter().map(|&v| (v as f64).abs()).sum();
    let tol = magnitude * 64.0 * f32::EPSILON as f64 + 1e-30;
    assert!(
        got.is_finite() && ((got as f64) - exact).abs() <= tol,
        "{what}: got {got}, float64 reference {exact} (tolerance {tol:e}, n = {})",
        values.len()
    );
}

/// A block reduction of the samples: `input`'s blocks summed into one
/// element each.
pub type BlockReduction =
    fn(&[f32], cg_core::output::Output<f32, cg_core::output::Leaders<cg_core::block::ThreadBlock>>);

/// The samples' one-chunk block reductions, by name, with the most threads
/// a block of each may have: the seed's three take any block size (up to
/// 1024), the library's and the `*_256` kernels blocks of exactly 256
/// (`block_size(256)`). The simulator's tests run each on the simulator
/// and on the GPU.
pub fn block_reductions() -> [(&'static str, BlockReduction, u32); 7] {
    use cg_sample_kernels::block_reduce as br;
    [
        ("block_reduce_warp", br::block_reduce_warp, 1024),
        ("block_reduce_classic", br::block_reduce_classic, 1024),
        (
            "block_reduce_hierarchical",
            br::block_reduce_hierarchical,
            1024,
        ),
        ("block_reduce_library", br::block_reduce_library, 256),
        ("block_reduce_warp_256", br::block_reduce_warp_256, 256),
        (
            "block_reduce_classic_256",
            br::block_reduce_classic_256,
            256,
        ),
        (
            "block_reduce_hierarchical_256",
            br::block_reduce_hierarchical_256,
            256,
        ),
    ]
}

/// A launch of the Jacobi sample that sweeps in shared memory
/// (`jacobi_in_shared`): the field, the sweeps, the sweeps per barrier and
/// the grid.
#[derive(Clone, Copy, Debug)]
pub struct InSharedCase {
    pub nx: u32,
    pub ny: u32,
    pub sweeps: u32,
    pub depth: u32,
    pub blocks: u32,
    pub threads: u32,
}

impl InSharedCase {
    /// The dynamic shared memory the case's launch needs.
    pub fn shared_bytes(&self) -> u32 {
        let bytes =
            cg_sample_kernels::jacobi::in_shared_bytes(self.nx, self.ny, self.blocks, self.depth);
        u32::try_from(bytes).unwrap()
    }
}

/// The shapes `jacobi_in_shared` is tested on, each for what it covers.
pub fn in_shared_cases() -> Vec<InSharedCase> {
    let case = |nx, ny, sweeps, depth, blocks, threads| InSharedCase {
        nx,
        ny,
        sweeps,
        depth,
        blocks,
        threads,
    };
    vec![
        // Rounds and sweeps of the same parity (3 and 9).
        case(64, 64, 9, 3, 4, 256),
        // Of different parity (3 and 8): the first round split in two.
        case(64, 48, 8, 3, 4, 128),
        // A width of no 4-byte multiple (copies of one element each), a
        // block of 100 threads (a partial warp), a split first round.
        case(37, 41, 13, 4, 5, 100),
        // Rows wider than the block: several columns a thread.
        case(130, 20, 5, 2, 3, 64),
        // One sweep a barrier, more blocks than rows (idle blocks).
        case(16, 16, 6, 1, 20, 64),
        // Deeper than the sweeps and the field's height.
        case(16, 16, 3, 50, 2, 64),
        // One interior point; no sweeps; no interior.
        case(3, 3, 4, 2, 1, 32),
        case(20, 20, 0, 3, 2, 64),
        case(2, 10, 3, 2, 2, 32),
        // The benchmark's blocks of 1024 threads and 16-byte copies, an odd
        // number of sweeps.
        case(512, 24, 7, 6, 3, 1024),
    ]
}
