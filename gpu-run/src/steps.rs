//! The steps of a GPU run, in the order they run: the table below
//! ([`STEPS`]) and the names it uses, in one place. Each step says what it
//! needs and whether it is a gate; its `plan` lists its jobs for a bundle
//! and a device.
//!
//! The order: the CUDA C++ twins, a preflight test, every test (GPU,
//! simulator, CPU) and sample, then the gate (fix failures first), then
//! the sanitizers, the benchmark, the corpus and the ports.

use crate::bundle::Bundle;
use crate::job::{Check, Job};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Variables every job gets: a GPU required (a missing GPU, or missing
/// twins, fails a test), and NVLink multicast off for NCCL and NVSHMEM.
pub const ENV: [(&str, &str); 3] = [
    ("CG_REQUIRE_GPU", "1"),
    ("NCCL_NVLS_ENABLE", "0"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
];

/// The preflight: one quick GPU test (binary, test), run first with a short
/// deadline; if the basics hang or fail, the run stops there.
const PREFLIGHT: (&str, &str) = (
    "gpu_foundation-test",
    "invalid_shapes_are_refused_with_the_limit",
);

/// The samples, each run on small sizes with its twins, on the simulator,
/// and under each sanitizer.
const SAMPLES: [&str; 5] = ["grid_sum", "reduce", "jacobi", "clusters", "async_copy"];

/// The GPU tests also run on the simulator (`CG_DEVICE=sim`): each checks
/// every output against the CPU model it checked the GPU's against, so both
/// passing is simulator == GPU on each.
const SIM_TESTS: [&str; 6] = [
    "gpu_api-test",
    "gpu_async-test",
    "gpu_atomics-test",
    "gpu_cluster-test",
    "gpu_foundation-test",
    "gpu_outputs-test",
];

/// The tests required on two GPUs (`CG_REQUIRE_GPUS=2`) on a machine of two
/// or more.
/// The tests of the decoupled look-back (the grid-wide collectives and the
/// device-wide primitives), run again by the step `loaded` while another
/// process keeps the GPU busy: the driver then switches contexts in the
/// middle of their kernels, and a missing fence or a flag read too early
/// shows as a wrong prefix, which every test checks.
const LOADED_TESTS: [&str; 2] = ["gpu_grid_collectives-test", "gpu_primitives-test"];

/// The shell around one `loaded` job: `$1`, the load (gpu-run's
/// `load/gpu_load.cu`: a memory-bound kernel launched back to back in a
/// process of its own), its output to `$3`; once it runs, `$2`, the test,
/// three times; then the load stopped. The job fails if the load was not
/// running for the whole of the three runs (a test that ran unloaded
/// proves nothing) or failed itself.
const LOADED_SCRIPT: &str = r#""$1" > "$3" 2>&1 &
load=$!
for i in $(seq 300); do grep -q running "$3" && break; kill -0 "$load" 2>/dev/null || break; sleep 0.1; done
status=0
for run in 1 2 3; do "$2" --nocapture --test-threads=1 || status=1; done
if kill -0 "$load" 2>/dev/null; then
    kill -TERM "$load"; wait "$load" || status=1
    echo "the load ran beside all three runs of the test:"
else
    wait "$load"; status=1
    echo "LOAD NOT RUNNING: it had ended before the test did:"
fi
cat "$3"
exit "$status""#;

const MULTI_GPU_TESTS: [&str; 3] = [
    "gpu_multi_grid-test",
    "gpu_peer-test",
    "gpu_peer_waits-test",
];

/// The CUDA C++ multi-GPU Jacobi programs (bundle folder `multi/`, from
/// kernels/cuda/multi/): each the Python package whose headers and
/// libraries it builds against, and nvcc's flags for them (`PKG`: that
/// package's folder, found on the device by python3). NVSHMEM's device
/// functions link statically, hence `-rdc=true` and `-lnvshmem_device`; the
/// shared libraries are found through the rpath at run time.
const MULTI_CUDA: [(&str, &str, &str); 2] = [
    (
        "jacobi_nccl",
        "nccl",
        "-I$PKG/include -L$PKG/lib -l:libnccl.so.2 -Xlinker -rpath=$PKG/lib",
    ),
    (
        "jacobi_nvshmem",
        "nvshmem",
        "-rdc=true -I$PKG/include -L$PKG/lib -l:libnvshmem_host.so.3 -lnvshmem_device \
         -Xlinker -rpath=$PKG/lib",
    ),
];

/// The shell around the build of one [`MULTI_CUDA`] program: `$1` the
/// package (`nccl`), `$2` the source, `$3` the program, `$4` the
/// architecture, `$5` the flags (with `$PKG`). Fails, saying why, when the
/// package is missing; nvcc's messages go to the job's log.
const MULTI_CUDA_BUILD: &str = r#"set -eu
PKG=$(python3 -c "import nvidia.$1 as p; print(list(p.__path__)[0])") || {
    echo "no Python package nvidia.$1 (pip install nvidia-$1-cu13)"; exit 1; }
echo "nvidia.$1 at $PKG"
flags=${5//\$PKG/$PKG}
set -x
nvcc -O3 -arch="$4" $flags -o "$3" "$2""#;

/// One planted bug per tool (tests/tests/planted.rs, `--ignored`): the
/// tool, the test, and the texts one of which its report must hold.
const PLANTED: [(&str, &str, &[&str]); 4] = [
    (
        "memcheck",
        "planted_out_of_bounds_write",
        &["Invalid __global__ write"],
    ),
    ("racecheck", "planted_shared_race", &["hazard"]),
    (
        "synccheck",
        "planted_warp_barrier_mask",
        &[
            "Barrier",
            "barrier",
            "Invalid arguments",
            "invalid arguments",
        ],
    ),
    (
        "initcheck",
        "planted_uninitialised_read",
        &[
            "Uninitialised",
            "uninitialised",
            "Uninitialized",
            "uninitialized",
        ],
    ),
];

/// The kernel-fault tests' children (tests/tests/gpu_faults.rs), each run
/// straight under memcheck (their parents' runs do not instrument them),
/// with the report memcheck must make, if any: every panic and check must
/// still be reported as without the tool, a reset must behave as without
/// it, and memcheck must find no bad access except the wild write's. The
/// out-of-memory child fills the device and is left out.
const FAULT_CHILDREN: [(&str, Option<&str>); 10] = [
    ("child_bounds_check_panic", None),
    ("child_unwrap_none", None),
    ("child_assert", None),
    ("child_many_threads_panic", None),
    ("child_tile_size_check", None),
    ("child_pipeline_check", None),
    ("child_rounds_reading_check", None),
    ("child_invalid_ptx", None),
    ("child_reset_of_a_working_context", None),
    (
        "child_wild_write",
        Some("Invalid __global__ write of size 4 bytes"),
    ),
];

/// Test binaries never run under a sanitizer: the planted bugs (run on
/// their own), the fault tests' parents (which only start children, run
/// under memcheck on their own), and every binary that makes no CUDA call:
/// the offline checks of the PTX and SASS, the simulator's own tests, and
/// the host tests of cg-core, cg-sim and cg-builder. Under a tool, a
/// binary without a CUDA call fails ("Target application terminated
/// before first instrumented API call"): a new one shows up that way, and
/// belongs here.
const NOT_SANITIZED: [&str; 15] = [
    "planted-test",
    "gpu_faults-test",
    "ptx-test",
    "loads_in_flight-test",
    "toolchain-test",
    "bindings_private-test",
    "sim_samples-test",
    "sim_semantics-test",
    "sim_races-test",
    "schedule-test",
    "convert-test",
    "half-test",
    "half_math-test",
    "math_bounds-test",
    "math_library-test",
];

/// Test binaries of thousands of small launches, under a sanitizer only
/// with `--sanitize-all`.
const SANITIZED_WITH_ALL: [&str; 3] = ["gpu_api-test", "gpu_differential-test", "gpu_atomics-test"];

/// Tests skipped under every tool: they trap or refuse on purpose.
const SKIPPED_UNDER_TOOLS: [&str; 4] = [
    "grid_sync_without_cooperative_launch_traps",
    "grid_sync_without_counters_traps",
    "a_planted_deadlock_is_caught",
    "a_ptx_isa_newer_than_the_driver",
];

/// Tests skipped under one tool, and why: synccheck reports
/// `cp.async.mbarrier.arrive` (a copy completing on a barrier) as a missing
/// wait, for nvcc's `cuda::barrier` too; racecheck does not follow a barrier
/// made of shared-memory atomics and reports the multi-warp tiles' slots as
/// hazards, nvcc's own `thread_block_tile<64>` the same way
/// (docs/probes/multi_warp_racecheck.cu).
const SKIPPED_UNDER: [(&str, &[&str]); 2] = [
    ("synccheck", &["on_a_barrier", "guide_barrier_kernel"]),
    ("racecheck", &["multi_warp"]),
];

/// What each tool runs beside the tests: every sample and the benchmark,
/// except under synccheck, where the asynchronous copies stay out for the
/// reason above (the async_copy sample, and the benchmark's async_copies
/// experiment: the others by `--only`).
const SYNCCHECK_RUNS: [&str; 10] = [
    "grid_sum",
    "reduce",
    "jacobi",
    "clusters",
    "bench:block_reductions",
    "bench:array_sums",
    "bench:barriers",
    "bench:jacobi",
    "bench:patterns",
    "bench:clusters",
];

/// The ncu metrics of the corpus: instruction counts per opcode, global
/// loads, registers.
const CORPUS_NCU_METRICS: &str = "sass__inst_executed_per_opcode,smsp__inst_executed.sum,\
smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__registers_per_thread";

/// The ncu metrics of the ports: instruction counts per opcode.
const PORTS_NCU_METRICS: &str = "sass__inst_executed_per_opcode,smsp__inst_executed.sum";

/// How many GPUs a step needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gpus {
    /// One or more.
    Any,
    /// At least this many.
    AtLeast(u32),
    /// Exactly this many.
    Exactly(u32),
}

impl Gpus {
    /// Whether a machine of `n` GPUs has what the step needs.
    pub fn met_by(self, n: u32) -> bool {
        match self {
            Gpus::Any => n >= 1,
            Gpus::AtLeast(k) => n >= k,
            Gpus::Exactly(k) => n == k,
        }
    }
}

/// A gate: a step after which the run stops on failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Not a gate.
    No,
    /// The run stops if this step failed.
    IfThisFailed,
    /// The run stops if any step before failed (fix failures first).
    IfAnyFailed,
}

/// One step of the run.
pub struct Step {
    /// Its name, for `--steps` and `--skip`.
    pub name: &'static str,
    /// The group it belongs to (`tests`, `sanitizers`), also a name for
    /// `--steps` and `--skip`.
    pub group: Option<&'static str>,
    /// What it does, in one line.
    pub about: &'static str,
    /// Whether it needs the CUDA C++ twins (the `twins` step then runs
    /// too): every step whose binaries may read `CG_TWINS_DIR` (the
    /// differential tests, on the GPU or the simulator, and the samples and
    /// the benchmark, also under a tool, where `--twins` is not given).
    pub needs_twins: bool,
    /// The GPUs it needs.
    pub gpus: Gpus,
    /// Whether it is a gate.
    pub gate: Gate,
    /// Whether every selection has it (unless `--skip` names it).
    pub always: bool,
    /// Its jobs.
    pub plan: fn(&Ctx) -> Result<Vec<Job>>,
}

/// The steps, in the order they run.
pub const STEPS: &[Step] = &[
    Step {
        name: "twins",
        group: None,
        about: "nvcc the CUDA C++ twins: bench/*.cu (lib_*: shared libraries) and twins-src/*.cu, to PTX",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: twins,
    },
    Step {
        name: "preflight",
        group: None,
        about: "one quick GPU test, 60 s: if the basics hang or fail, the run stops",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::IfThisFailed,
        always: true,
        plan: preflight,
    },
    Step {
        name: "multi-gpu",
        group: Some("tests"),
        about: "the multi-grid and peer tests on 2 GPUs, jacobi --gpus N (JSON), the NCCL method one process per GPU",
        needs_twins: true,
        gpus: Gpus::AtLeast(2),
        gate: Gate::No,
        always: false,
        plan: multi_gpu,
    },
    Step {
        name: "multi-cuda",
        group: Some("tests"),
        about: "the CUDA C++ multi-GPU Jacobi (NCCL overlapped + graph, NVSHMEM persistent), one process per GPU",
        needs_twins: false,
        gpus: Gpus::AtLeast(2),
        gate: Gate::No,
        always: false,
        plan: multi_cuda,
    },
    Step {
        name: "one-gpu",
        group: Some("tests"),
        about: "jacobi --gpus 1 --quick (the multi-GPU path on one GPU)",
        needs_twins: true,
        gpus: Gpus::Exactly(1),
        gate: Gate::No,
        always: false,
        plan: one_gpu,
    },
    Step {
        name: "gpu-tests",
        group: Some("tests"),
        about: "every integration test binary (*-test), CG_REQUIRE_GPU=1",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: gpu_tests,
    },
    Step {
        name: "sim-tests",
        group: Some("tests"),
        about: "the GPU tests that also run on the simulator (CG_DEVICE=sim)",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: sim_tests,
    },
    Step {
        name: "loaded",
        group: Some("tests"),
        about: "the grid collectives' and primitives' tests beside another process's kernels",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: loaded,
    },
    Step {
        name: "samples",
        group: Some("tests"),
        about: "each sample on small sizes with its twins (--quick)",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: samples,
    },
    Step {
        name: "samples-sim",
        group: Some("tests"),
        about: "each sample on the simulator (--sim)",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: samples_sim,
    },
    Step {
        name: "cpu-tests",
        group: Some("tests"),
        about: "the libraries' unit test binaries (no GPU)",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: cpu_tests,
    },
    Step {
        name: "gate",
        group: None,
        about: "fix failures first: the steps below run only if nothing above failed",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::IfAnyFailed,
        always: true,
        plan: nothing,
    },
    Step {
        name: "planted",
        group: Some("sanitizers"),
        about: "one planted bug per compute-sanitizer tool, which must report it",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: planted,
    },
    Step {
        name: "faults",
        group: Some("sanitizers"),
        about: "the kernel-fault tests' children under memcheck",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: faults,
    },
    Step {
        name: "memcheck",
        group: Some("sanitizers"),
        about: "memcheck: the two-GPU tests, grid barrier places, test binaries, samples, benchmark (small sizes)",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: |ctx| sanitize(ctx, "memcheck"),
    },
    Step {
        name: "racecheck",
        group: Some("sanitizers"),
        about: "racecheck: the two-GPU tests, test binaries, samples, benchmark (small sizes)",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: |ctx| sanitize(ctx, "racecheck"),
    },
    Step {
        name: "synccheck",
        group: Some("sanitizers"),
        about: "synccheck: as memcheck, the asynchronous copies left out",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: |ctx| sanitize(ctx, "synccheck"),
    },
    Step {
        name: "initcheck",
        group: Some("sanitizers"),
        about: "initcheck: as memcheck",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: |ctx| sanitize(ctx, "initcheck"),
    },
    Step {
        name: "bench",
        group: None,
        about: "the full benchmark with the twins: results/bench.json, results/bench.png",
        needs_twins: true,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: bench,
    },
    Step {
        name: "corpus",
        group: None,
        about: "the corpus (Rust beside nvcc's builds): results/corpus.json; under ncu: results/corpus-ncu.txt",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: corpus,
    },
    Step {
        name: "ports",
        group: None,
        about: "the ported CUDA samples beside nvcc's (the multi-GPU one on every GPU: 2 or more): results/ports-PORT.json; under ncu: results/ports-PORT-ncu.csv",
        needs_twins: false,
        gpus: Gpus::Any,
        gate: Gate::No,
        always: false,
        plan: ports,
    },
];

/// What the steps plan from: the bundle, the device and the options.
pub struct Ctx {
    /// The bundle.
    pub bundle: Bundle,
    /// The folder of the builds (twins, PTX): `OUT/build`.
    pub build: PathBuf,
    /// The folder of the results (JSON, charts, ncu reports): `OUT/results`.
    pub results: PathBuf,
    /// The GPU architecture nvcc builds for (`sm_90`), from the device.
    pub arch: String,
    /// How many GPUs the machine has.
    pub gpus: u32,
    /// Only the test binaries whose name holds this (`--only`).
    pub only: Option<String>,
    /// The sanitizers over every test binary (`--sanitize-all`).
    pub sanitize_all: bool,
    /// Extra arguments for the benchmark (`--bench-arg`).
    pub bench_args: Vec<String>,
}

impl Ctx {
    /// Where nvcc puts the twins (`CG_TWINS_DIR`, the samples' `--twins`).
    pub fn twins(&self) -> PathBuf {
        self.build.join("twins")
    }

    /// The test binaries of the bundle that `--only` keeps.
    pub fn tests(&self) -> impl Iterator<Item = &str> {
        self.bundle
            .tests
            .iter()
            .map(String::as_str)
            .filter(|t| self.keeps(t))
    }

    /// Whether test binary `name` is in the bundle and kept by `--only`.
    pub fn has_test(&self, name: &str) -> bool {
        self.tests().any(|t| t == name)
    }

    /// Whether `--only` keeps test binary `name`.
    fn keeps(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|only| name.contains(only))
    }

    /// nvcc with the device's architecture, building `cu` to `out` as
    /// `kind`.
    fn nvcc(&self, cu: &Path, out: &Path, kind: NvccOutput) -> Job {
        self.nvcc_with(cu, out, kind, &[])
    }

    /// [`nvcc`](Self::nvcc) with `flags` after `-O3` (named in the job).
    fn nvcc_with(&self, cu: &Path, out: &Path, kind: NvccOutput, flags: &[&str]) -> Job {
        let mut name = "nvcc ".to_string();
        for f in flags {
            name.push_str(f);
            name.push(' ');
        }
        name.push_str(&relative(cu, &self.bundle.root));
        let arch = format!("-arch={}", self.arch);
        let kind: &[&str] = match kind {
            NvccOutput::Ptx => &["-ptx"],
            NvccOutput::SharedLibrary => &["-shared", "-Xcompiler", "-fPIC"],
            NvccOutput::Program => &[],
        };
        let mut argv = vec!["nvcc".to_string(), "-O3".to_string()];
        argv.extend(flags.iter().map(|s| s.to_string()));
        argv.push(arch);
        argv.extend(kind.iter().map(|s| s.to_string()));
        argv.extend(["-o".to_string(), text(out), text(cu)]);
        Job::new(name, argv).builds(out, cu)
    }

    /// compute-sanitizer's command line for `tool`, reporting any finding by
    /// exit status 99.
    fn sanitizer(&self, tool: &str) -> Vec<String> {
        [
            "compute-sanitizer",
            "--tool",
            tool,
            "--error-exitcode",
            "99",
        ]
        .map(String::from)
        .to_vec()
    }
}

/// What nvcc builds from a `.cu` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NvccOutput {
    /// PTX (`-ptx`): the twins the tests and the benchmark load.
    Ptx,
    /// A shared library (`-shared`): the benchmark's CUB baselines.
    SharedLibrary,
    /// A program with its own `main`: the load of the step `loaded`.
    Program,
}

/// A path as text, for a command line.
fn text(path: &Path) -> String {
    path.display().to_string()
}

/// `path` relative to `root` where it lies under it.
fn relative(path: &Path, root: &Path) -> String {
    text(path.strip_prefix(root).unwrap_or(path))
}

/// The file name of `path` without its extension.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A step with no jobs (the gate).
fn nothing(_: &Ctx) -> Result<Vec<Job>> {
    Ok(Vec::new())
}

/// The benchmark's twins (shared libraries for `lib_*`, PTX for the others)
/// and the differential tests' (PTX), all into one folder. Each test twin
/// twice: with nvcc's default contraction (`NAME.ptx`) and with
/// `-fmad=false` (`NAME.fmad-false.ptx`), the builds that match the Rust
/// kernels built with `FpContract::Fast` and `FpContract::Off`.
fn twins(ctx: &Ctx) -> Result<Vec<Job>> {
    let dir = ctx.twins();
    let mut jobs = Vec::new();
    for cu in ctx.bundle.cu_files("bench")? {
        let name = stem(&cu);
        let (kind, ext) = if name.starts_with("lib_") {
            (NvccOutput::SharedLibrary, "so")
        } else {
            (NvccOutput::Ptx, "ptx")
        };
        jobs.push(ctx.nvcc(&cu, &dir.join(format!("{name}.{ext}")), kind));
    }
    for cu in ctx.bundle.cu_files("twins-src")? {
        let name = stem(&cu);
        jobs.push(ctx.nvcc(&cu, &dir.join(format!("{name}.ptx")), NvccOutput::Ptx));
        let off = dir.join(format!("{name}.fmad-false.ptx"));
        jobs.push(ctx.nvcc_with(&cu, &off, NvccOutput::Ptx, &["-fmad=false"]));
    }
    Ok(jobs)
}

fn preflight(ctx: &Ctx) -> Result<Vec<Job>> {
    let (binary, test) = PREFLIGHT;
    Ok(vec![Job::new(
        "preflight",
        [ctx.bundle.test(binary), "--exact".into(), test.into()],
    )
    .limit(60)])
}

fn multi_gpu(ctx: &Ctx) -> Result<Vec<Job>> {
    let n = ctx.gpus.to_string();
    let jacobi = ctx.bundle.bin("jacobi");
    let mut jobs: Vec<Job> = MULTI_GPU_TESTS
        .iter()
        .filter(|t| ctx.has_test(t))
        .map(|t| {
            Job::new(format!("test {t} (2 GPUs)"), [ctx.bundle.test(t)]).env("CG_REQUIRE_GPUS", "2")
        })
        .collect();
    let json = text(&ctx.results.join("jacobi-multi.json"));
    jobs.push(Job::new(
        format!("sample jacobi --gpus {n}"),
        [
            jacobi.clone(),
            "--gpus".into(),
            n.clone(),
            "--json".into(),
            json,
        ],
    ));
    jobs.push(
        Job::new(
            format!("sample jacobi --nccl-process x {n}"),
            [jacobi, "--nccl-process".into()],
        )
        .ranks(ctx.gpus, ctx.build.join("nccl-id")),
    );
    Ok(jobs)
}

/// The CUDA C++ multi-GPU Jacobi programs: each built with nvcc against
/// its Python package, then run `--quick` on 2 GPUs, then at full size on
/// 2 GPUs and, on a machine of 4 or more, on 4; one process per GPU.
fn multi_cuda(ctx: &Ctx) -> Result<Vec<Job>> {
    let mut builds = Vec::new();
    let mut runs = Vec::new();
    let mut sizes = vec![(2, true), (2, false)];
    if ctx.gpus >= 4 {
        sizes.push((4, false));
    }
    for (name, package, flags) in MULTI_CUDA {
        let cu = ctx.bundle.root.join(format!("multi/{name}.cu"));
        let bin = ctx.build.join("multi").join(name);
        builds.push(
            Job::new(
                format!("nvcc multi/{name}.cu"),
                [
                    "bash".to_string(),
                    "-c".into(),
                    MULTI_CUDA_BUILD.into(),
                    "multi-cuda".into(),
                    package.into(),
                    text(&cu),
                    text(&bin),
                    ctx.arch.clone(),
                    flags.into(),
                ],
            )
            .builds(&bin, &cu)
            .limit(300),
        );
        for &(n, quick) in &sizes {
            let mut argv = vec![text(&bin)];
            let mut label = format!("{name} x {n}");
            if quick {
                argv.push("--quick".into());
                label = format!("{name} --quick x {n}");
            }
            runs.push(
                Job::new(format!("multi-cuda {label}"), argv)
                    .ranks(n, ctx.build.join(format!("{name}-id")))
                    .needs_file(&bin)
                    .limit(300),
            );
        }
    }
    builds.extend(runs);
    Ok(builds)
}

fn one_gpu(ctx: &Ctx) -> Result<Vec<Job>> {
    Ok(vec![Job::new(
        "sample jacobi --gpus 1 --quick",
        [
            ctx.bundle.bin("jacobi"),
            "--gpus".into(),
            "1".into(),
            "--quick".into(),
        ],
    )])
}

/// Each with `--nocapture`: the tests that compare with CUDA print how
/// many values they compared, which a passing test's captured output
/// would hide.
fn gpu_tests(ctx: &Ctx) -> Result<Vec<Job>> {
    Ok(ctx
        .tests()
        .filter(|t| t.ends_with("-test"))
        .map(|t| {
            Job::new(
                format!("test {t}"),
                [ctx.bundle.test(t), "--nocapture".into()],
            )
        })
        .collect())
}

fn sim_tests(ctx: &Ctx) -> Result<Vec<Job>> {
    Ok(SIM_TESTS
        .iter()
        .filter(|t| ctx.has_test(t))
        .map(|t| {
            Job::new(format!("test {t} on the simulator"), [ctx.bundle.test(t)])
                .env("CG_DEVICE", "sim")
        })
        .collect())
}

fn loaded(ctx: &Ctx) -> Result<Vec<Job>> {
    let tests: Vec<&str> = LOADED_TESTS
        .iter()
        .copied()
        .filter(|t| ctx.has_test(t))
        .collect();
    if tests.is_empty() {
        return Ok(Vec::new());
    }
    let load = ctx.build.join("gpu_load");
    let cu = PathBuf::from(ctx.bundle.path("load/gpu_load.cu"));
    let mut jobs = vec![ctx.nvcc(&cu, &load, NvccOutput::Program)];
    for t in tests {
        let output = ctx.build.join(format!("{t}.load.txt"));
        jobs.push(
            Job::new(
                format!("test {t} beside a load"),
                [
                    "bash".to_string(),
                    "-c".into(),
                    LOADED_SCRIPT.into(),
                    "loaded".into(),
                    text(&load),
                    ctx.bundle.test(t),
                    text(&output),
                ],
            )
            .needs_file(&load)
            .limit(600),
        );
    }
    Ok(jobs)
}

fn samples(ctx: &Ctx) -> Result<Vec<Job>> {
    let twins = text(&ctx.twins());
    Ok(SAMPLES
        .iter()
        .map(|s| {
            Job::new(
                format!("sample {s} --quick"),
                [
                    ctx.bundle.bin(s),
                    "--twins".into(),
                    twins.clone(),
                    "--quick".into(),
                ],
            )
        })
        .collect())
}

fn samples_sim(ctx: &Ctx) -> Result<Vec<Job>> {
    Ok(SAMPLES
        .iter()
        .map(|s| {
            Job::new(
                format!("sample {s} --sim"),
                [ctx.bundle.bin(s), "--sim".into()],
            )
        })
        .collect())
}

fn cpu_tests(ctx: &Ctx) -> Result<Vec<Job>> {
    Ok(ctx
        .tests()
        .filter(|t| !t.ends_with("-test"))
        .map(|t| Job::new(format!("test {t}"), [ctx.bundle.test(t)]))
        .collect())
}

/// Under a tool: small inputs, and the grid barrier's place fixed (opening
/// a GPU under a tool does not time the places of its counters, 128
/// launches of 100 barriers each; the step "TOOL grid barrier places" runs
/// that calibration, and the barrier at every place, under each tool).
fn under_tool(job: Job) -> Job {
    job.env("CG_QUICK", "1").env("CG_GRID_BARRIER_SLOT", "0")
}

fn planted(ctx: &Ctx) -> Result<Vec<Job>> {
    if !ctx.has_test("planted-test") {
        return Ok(Vec::new());
    }
    Ok(PLANTED
        .iter()
        .map(|(tool, test, finding)| {
            let mut argv = ctx.sanitizer(tool);
            argv.extend([
                ctx.bundle.test("planted-test"),
                "--ignored".into(),
                "--exact".into(),
                test.to_string(),
            ]);
            argv.push("--test-threads=1".into());
            under_tool(Job::new(format!("planted {test} under {tool}"), argv))
                .limit(120)
                .check(Check::Finding(finding))
        })
        .collect())
}

fn faults(ctx: &Ctx) -> Result<Vec<Job>> {
    if !ctx.has_test("gpu_faults-test") {
        return Ok(Vec::new());
    }
    Ok(FAULT_CHILDREN
        .iter()
        .map(|&(test, want)| {
            // No --error-exitcode: the child reports, the check reads it.
            let mut argv = [
                "compute-sanitizer",
                "--tool",
                "memcheck",
                "--report-api-errors",
                "no",
            ]
            .map(String::from)
            .to_vec();
            argv.push(ctx.bundle.test("gpu_faults-test"));
            argv.extend(
                [
                    "--ignored",
                    "--exact",
                    test,
                    "--nocapture",
                    "--test-threads=1",
                ]
                .map(String::from),
            );
            under_tool(Job::new(format!("memcheck {test}"), argv))
                .env("CG_SANITIZER", "memcheck")
                .limit(300)
                .check(Check::FaultChild { test, want })
        })
        .collect())
}

/// One tool's step: on two GPUs or more, the two-GPU tests and the
/// multi-GPU Jacobi (without NCCL, whose own kernels read staging memory
/// it never initialised and which probes the runtime with calls that fail;
/// not under racecheck, where the whole sample does not finish in 180 s);
/// the calibration of the grid barrier's places (not under racecheck, which
/// checks shared memory, which the calibration kernel does not use, and
/// takes more than 150 s over the 32 places); every test binary but those
/// left out above; every sample and the benchmark (small sizes, one run).
fn sanitize(ctx: &Ctx, tool: &str) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    if ctx.gpus >= 2 {
        for t in MULTI_GPU_TESTS.iter().filter(|t| ctx.has_test(t)) {
            let mut argv = ctx.sanitizer(tool);
            argv.extend([ctx.bundle.test(t), "--test-threads=1".into()]);
            jobs.push(
                under_tool(Job::new(format!("{tool} {t} (2 GPUs)"), argv))
                    .env("CG_REQUIRE_GPUS", "2")
                    .limit(180),
            );
        }
        if tool != "racecheck" {
            let n = ctx.gpus.to_string();
            let mut argv = ctx.sanitizer(tool);
            argv.extend([ctx.bundle.bin("jacobi"), "--gpus".into(), n.clone()]);
            argv.extend(["--quick", "--runs", "1", "--no-nccl"].map(String::from));
            jobs.push(
                Job::new(format!("{tool} sample jacobi --gpus {n} --quick"), argv)
                    .env("CG_GRID_BARRIER_SLOT", "0")
                    .limit(180),
            );
        }
    }
    if tool != "racecheck" && ctx.has_test("gpu_api-test") {
        let mut argv = ctx.sanitizer(tool);
        argv.extend([
            ctx.bundle.test("gpu_api-test"),
            "--exact".into(),
            "grid_barrier_holds_at_every_place".into(),
        ]);
        jobs.push(
            under_tool(Job::new(format!("{tool} grid barrier places"), argv))
                .env_remove("CG_GRID_BARRIER_SLOT")
                .limit(300),
        );
    }
    let skipped_here = SKIPPED_UNDER
        .iter()
        .filter(|(t, _)| *t == tool)
        .flat_map(|(_, tests)| tests.iter());
    let skips: Vec<&str> = skipped_here
        .chain(SKIPPED_UNDER_TOOLS.iter())
        .copied()
        .collect();
    for t in ctx.tests().filter(|t| t.ends_with("-test")) {
        if NOT_SANITIZED.contains(&t) || (SANITIZED_WITH_ALL.contains(&t) && !ctx.sanitize_all) {
            continue;
        }
        let mut argv = ctx.sanitizer(tool);
        // host_errors-test has the driver refuse launches on purpose (a
        // block of another shape than a kernel's .reqntid): memcheck would
        // report each refusal as an API error. Its kernels' memory is
        // still checked.
        if t == "host_errors-test" {
            argv.extend(["--report-api-errors", "no"].map(String::from));
        }
        argv.extend([
            "--target-processes".into(),
            "application-only".into(),
            ctx.bundle.test(t),
            "--test-threads=1".into(),
        ]);
        for skip in &skips {
            argv.extend(["--skip".to_string(), skip.to_string()]);
        }
        jobs.push(under_tool(Job::new(format!("{tool} {t}"), argv)));
    }
    if ctx.only.is_some() {
        return Ok(jobs);
    }
    let all: Vec<&str> = SAMPLES.iter().copied().chain(["bench"]).collect();
    let runs: &[&str] = if tool == "synccheck" {
        &SYNCCHECK_RUNS
    } else {
        &all
    };
    for run in runs {
        let (bin, experiment) = run
            .split_once(':')
            .map_or((*run, None), |(b, e)| (b, Some(e)));
        let mut argv = ctx.sanitizer(tool);
        argv.extend([
            ctx.bundle.bin(bin),
            "--quick".into(),
            "--runs".into(),
            "1".into(),
        ]);
        if let Some(experiment) = experiment {
            argv.extend(["--only".into(), experiment.into()]);
        }
        jobs.push(under_tool(Job::new(format!("{tool} sample {run}"), argv)));
    }
    Ok(jobs)
}

fn bench(ctx: &Ctx) -> Result<Vec<Job>> {
    let mut argv = vec![
        ctx.bundle.bin("bench"),
        "--twins".into(),
        text(&ctx.twins()),
    ];
    argv.extend(["--json".into(), text(&ctx.results.join("bench.json"))]);
    argv.extend(["--plot".into(), text(&ctx.results.join("bench.png"))]);
    argv.extend(ctx.bench_args.iter().cloned());
    Ok(vec![Job::new("bench", argv)])
}

/// Each corpus kernel's nvcc build (nvcc's defaults: `-fmad=true`), then
/// the corpus benchmark (results checked against the CPU, both timed), then
/// under ncu one launch of each kernel's Rust build and nvcc's, at the
/// `--quick` sizes, the grid barrier's place fixed (no timing launches).
fn corpus(ctx: &Ctx) -> Result<Vec<Job>> {
    if !ctx.bundle.has("corpus") {
        return Ok(Vec::new());
    }
    let ptx_dir = ctx.build.join("corpus-ptx");
    let cus = ctx.bundle.cu_files("corpus")?;
    let ptx: Vec<PathBuf> = cus
        .iter()
        .map(|cu| ptx_dir.join(format!("{}.ptx", stem(cu))))
        .collect();
    let mut jobs: Vec<Job> = cus
        .iter()
        .zip(&ptx)
        .map(|(cu, ptx)| ctx.nvcc(cu, ptx, NvccOutput::Ptx))
        .collect();
    let bin = ctx.bundle.path("corpus/corpus-bench");
    let mut run = vec![bin.clone(), "--cuda".into(), text(&ptx_dir)];
    run.extend(["--json".into(), text(&ctx.results.join("corpus.json"))]);
    let kernels: Vec<String> = cus.iter().map(|cu| stem(cu)).collect();
    let mut profile = [
        "ncu",
        "--metrics",
        CORPUS_NCU_METRICS,
        "--print-metric-instances",
        "details",
    ]
    .map(String::from)
    .to_vec();
    profile.extend([
        "--kernel-name".into(),
        format!("regex:^({})$", kernels.join("|")),
    ]);
    profile.extend([
        "--log-file".into(),
        text(&ctx.results.join("corpus-ncu.txt")),
    ]);
    profile.extend([bin, "--cuda".into(), text(&ptx_dir), "--profile".into()]);
    let mut run = Job::new("corpus", run).limit(150);
    let mut profile = Job::new("corpus under ncu", profile)
        .env("CG_GRID_BARRIER_SLOT", "0")
        .limit(180)
        .needs_program("ncu");
    for p in &ptx {
        run = run.needs_file(p);
        profile = profile.needs_file(p);
    }
    jobs.extend([run, profile]);
    Ok(jobs)
}

/// The ports that run on several GPUs at once (one multi-grid launch over
/// a `GpuSet`): run on every GPU of the machine, which takes two or more,
/// and profiled on the first GPU alone (`--gpus 1`, a set of one: ncu
/// replays one kernel at a time, and a grid waiting at a multi-grid
/// barrier for another GPU's grid that it holds back would never return).
const MULTI_GPU_PORTS: &[&str] = &["conjugate-gradient-multi"];

/// Each port's nvcc build (nvcc's defaults), the port beside it, and its
/// kernels once under ncu (instruction counts per opcode).
fn ports(ctx: &Ctx) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for port in ctx.bundle.ports()? {
        let file = port.replace('-', "_");
        let cu = ctx.bundle.root.join(format!("ports/{file}.cu"));
        let ptx = ctx.build.join(format!("ports/{file}.ptx"));
        let bin = ctx.bundle.path(&format!("ports/{port}"));
        let multi_gpu = MULTI_GPU_PORTS.contains(&port.as_str());
        jobs.push(ctx.nvcc(&cu, &ptx, NvccOutput::Ptx));
        let json = text(&ctx.results.join(format!("ports-{port}.json")));
        let mut argv = vec![
            bin.clone(),
            "--cuda".into(),
            text(&ptx),
            "--json".into(),
            json,
        ];
        if multi_gpu {
            argv.extend(["--gpus".into(), ctx.gpus.to_string()]);
        }
        let mut run = Job::new(format!("port {port}"), argv).needs_file(&ptx);
        if multi_gpu && ctx.gpus < 2 {
            run = run.cannot_run(format!(
                "a port on several GPUs at once: it needs 2 GPUs or more, this machine has {}",
                ctx.gpus
            ));
        }
        jobs.push(run);
        let mut profile = [
            "ncu",
            "--csv",
            "--print-metric-instances",
            "details",
            "--metrics",
            PORTS_NCU_METRICS,
        ]
        .map(String::from)
        .to_vec();
        profile.extend([
            "--log-file".into(),
            text(&ctx.results.join(format!("ports-{port}-ncu.csv"))),
        ]);
        profile.extend([bin, "--cuda".into(), text(&ptx), "--profile".into()]);
        if multi_gpu {
            profile.extend(["--gpus".into(), "1".into()]);
        }
        jobs.push(
            Job::new(format!("port {port} under ncu"), profile)
                .needs_file(&ptx)
                .needs_program("ncu"),
        );
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(tests: &[&str], only: Option<&str>, sanitize_all: bool) -> Ctx {
        let bundle = Bundle {
            root: "/b".into(),
            tests: tests.iter().map(|t| t.to_string()).collect(),
        };
        Ctx {
            bundle,
            build: "/o/build".into(),
            results: "/o/results".into(),
            arch: "sm_90".into(),
            gpus: 1,
            only: only.map(String::from),
            sanitize_all,
            bench_args: vec![],
        }
    }

    fn names(jobs: &[Job]) -> Vec<&str> {
        jobs.iter().map(|j| j.name.as_str()).collect()
    }

    const BUNDLE: [&str; 5] = [
        "gpu_api-test",
        "gpu_faults-test",
        "gpu_math-test",
        "planted-test",
        "cg_core-lib",
    ];

    #[test]
    fn a_multi_gpu_port_runs_on_every_gpu_and_is_profiled_on_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("ports")).unwrap();
        for f in [
            "conjugate-gradient-multi",
            "conjugate_gradient_multi.cu",
            "reduction",
            "reduction.cu",
        ] {
            std::fs::write(root.join("ports").join(f), "").unwrap();
        }
        let mut two = ctx(&BUNDLE, None, false);
        two.bundle.root = root.clone();
        two.gpus = 2;
        let jobs = ports(&two).unwrap();
        assert_eq!(
            names(&jobs),
            [
                "nvcc ports/conjugate_gradient_multi.cu",
                "port conjugate-gradient-multi",
                "port conjugate-gradient-multi under ncu",
                "nvcc ports/reduction.cu",
                "port reduction",
                "port reduction under ncu",
            ]
        );
        let (multi, profiled, single) = (&jobs[1], &jobs[2], &jobs[4]);
        assert_eq!(multi.argv[multi.argv.len() - 2..], ["--gpus", "2"]);
        assert_eq!(multi.cannot_run, None);
        assert_eq!(profiled.argv[profiled.argv.len() - 2..], ["--gpus", "1"]);
        assert!(!single.argv.contains(&"--gpus".to_string()));
        let mut one = two;
        one.gpus = 1;
        let jobs = ports(&one).unwrap();
        let why = jobs[1].cannot_run.as_deref().unwrap();
        assert!(
            why.contains("needs 2 GPUs or more, this machine has 1"),
            "{why}"
        );
        assert_eq!(jobs[2].cannot_run, None, "the profile runs on one GPU");
    }

    #[test]
    fn the_cuda_multi_gpu_programs_build_first_then_run_one_process_per_gpu() {
        let mut two = ctx(&BUNDLE, None, false);
        two.gpus = 2;
        let jobs = multi_cuda(&two).unwrap();
        assert_eq!(
            names(&jobs),
            [
                "nvcc multi/jacobi_nccl.cu",
                "nvcc multi/jacobi_nvshmem.cu",
                "multi-cuda jacobi_nccl --quick x 2",
                "multi-cuda jacobi_nccl x 2",
                "multi-cuda jacobi_nvshmem --quick x 2",
                "multi-cuda jacobi_nvshmem x 2",
            ]
        );
        let nvshmem = &jobs[1];
        assert_eq!(
            nvshmem.builds.as_deref(),
            Some(Path::new("/o/build/multi/jacobi_nvshmem"))
        );
        assert_eq!(nvshmem.argv[..2], ["bash", "-c"]);
        assert_eq!(nvshmem.argv[4], "nvshmem");
        assert!(nvshmem.argv[8].contains("-rdc=true"));
        let quick = &jobs[2];
        assert_eq!(quick.argv, ["/o/build/multi/jacobi_nccl", "--quick"]);
        assert_eq!(quick.ranks.as_ref().map(|r| r.n), Some(2));
        assert_eq!(
            quick.needs_files,
            [PathBuf::from("/o/build/multi/jacobi_nccl")]
        );
        let mut four = two;
        four.gpus = 4;
        let names4: Vec<String> = multi_cuda(&four)
            .unwrap()
            .into_iter()
            .map(|j| j.name)
            .collect();
        assert!(names4.contains(&"multi-cuda jacobi_nvshmem x 4".to_string()));
        assert_eq!(names4.len(), 8);
    }

    #[test]
    fn the_twins_leave_the_multi_gpu_programs_out() {
        let dir = std::env::temp_dir().join(format!("gpu-run-multi-{}", std::process::id()));
        for sub in ["bench", "multi", "tests"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::fs::write(dir.join("bench/kernels.cu"), "").unwrap();
        std::fs::write(dir.join("multi/jacobi_nccl.cu"), "").unwrap();
        let mut c = ctx(&BUNDLE, None, false);
        c.bundle.root = dir.clone();
        let jobs = twins(&c).unwrap();
        assert_eq!(names(&jobs), ["nvcc bench/kernels.cu"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_look_back_tests_run_beside_a_load_that_nvcc_builds_first() {
        let bundle = ["gpu_grid_collectives-test", "gpu_api-test"];
        let jobs = loaded(&ctx(&bundle, None, false)).unwrap();
        assert_eq!(
            names(&jobs),
            [
                "nvcc load/gpu_load.cu",
                "test gpu_grid_collectives-test beside a load"
            ]
        );
        assert_eq!(
            jobs[0].builds.as_deref(),
            Some(Path::new("/o/build/gpu_load"))
        );
        let argv = &jobs[1].argv;
        assert_eq!(argv[..2], ["bash", "-c"]);
        assert_eq!(argv[4], "/o/build/gpu_load");
        assert!(argv[5].ends_with("gpu_grid_collectives-test"));
        assert_eq!(jobs[1].needs_files, [PathBuf::from("/o/build/gpu_load")]);
        assert!(loaded(&ctx(&["gpu_api-test"], None, false))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_tool_runs_the_test_binaries_but_those_left_out_then_the_samples() {
        let jobs = sanitize(&ctx(&BUNDLE, None, false), "initcheck").unwrap();
        let names = names(&jobs);
        assert_eq!(
            &names[..2],
            ["initcheck grid barrier places", "initcheck gpu_math-test"]
        );
        assert_eq!(names.len(), 2 + SAMPLES.len() + 1, "{names:?}");
        let all = sanitize(&ctx(&BUNDLE, None, true), "initcheck").unwrap();
        assert!(
            all.iter().any(|j| j.name == "initcheck gpu_api-test"),
            "--sanitize-all takes gpu_api-test in"
        );
    }

    #[test]
    fn racecheck_skips_the_calibration_and_synccheck_the_asynchronous_copies() {
        let race = sanitize(&ctx(&BUNDLE, None, false), "racecheck").unwrap();
        assert!(!race.iter().any(|j| j.name.contains("grid barrier places")));
        assert!(race[0]
            .argv
            .windows(2)
            .any(|w| w == ["--skip", "multi_warp"]));
        let sync = sanitize(&ctx(&BUNDLE, None, false), "synccheck").unwrap();
        assert!(!sync.iter().any(|j| j.name.contains("async_copy")));
        assert!(sync
            .iter()
            .any(|j| j.argv.ends_with(&["--only".into(), "patterns".into()])));
    }

    #[test]
    fn only_narrows_the_test_binaries_and_leaves_the_tools_samples_out() {
        let jobs = sanitize(&ctx(&BUNDLE, Some("math"), false), "memcheck").unwrap();
        assert_eq!(names(&jobs), ["memcheck gpu_math-test"]);
        let tests = gpu_tests(&ctx(&BUNDLE, Some("gpu_"), false)).unwrap();
        assert_eq!(
            names(&tests),
            [
                "test gpu_api-test",
                "test gpu_faults-test",
                "test gpu_math-test"
            ]
        );
    }

    #[test]
    fn the_fault_children_are_judged_by_their_report_not_by_an_error_exit_code() {
        let jobs = faults(&ctx(&BUNDLE, None, false)).unwrap();
        assert_eq!(jobs.len(), FAULT_CHILDREN.len());
        assert!(jobs
            .iter()
            .all(|j| !j.argv.contains(&"--error-exitcode".to_string())));
        assert!(matches!(
            jobs[9].check,
            Check::FaultChild {
                test: "child_wild_write",
                want: Some(_)
            }
        ));
    }
}
