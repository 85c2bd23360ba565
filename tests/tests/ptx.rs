//! CPU tests of the built PTX: every module assembles with `ptxas` for its
//! architecture with no spills and no use of local memory, the typed
//! operations lower to the instructions they promise with nothing left
//! uninlined (the only calls are on the paths to a trap), kernel panics
//! have what the host needs to report them, and the launch kinds the host
//! uses are the ones the kernels declared.

use cg_ptx::Module;
use cg_samples::kernels::{self as samples, GridSum};
use cg_tests::kernels::{
    self as kernels, ApiGridSplitBarrier, ApiShflU32, ProbeGridRotate, ProbeGroups, PTX,
};
use cooperative_groups::{DeviceBuffer, LaunchConfig, LaunchKind, Ptx};
use std::path::PathBuf;
use std::process::Command;

/// The mark of a coalesced group's rank-to-lane search in PTX: its first
/// step counts the members among the lower 16 lanes (`and.b32 .., 65535`).
const LANE_SEARCH: &str = ", 65535;";

/// Every PTX module built: the test kernels', the sample kernels' and the
/// host primitives' (cg-primitives).
fn all_modules() -> impl Iterator<Item = &'static Ptx> {
    PTX.modules()
        .iter()
        .chain(samples::PTX.modules())
        .chain(cg_primitives::kernels::PTX.modules())
}

/// Whether `m` is one of the host primitives' modules (cg-primitives).
fn is_primitives(m: &Ptx) -> bool {
    cg_primitives::kernels::PTX
        .modules()
        .iter()
        .any(|p| std::ptr::eq(p.source, m.source))
}

/// Per architecture, the text of every module built for it: where the
/// tests below look kernels up, whichever crate holds them.
fn by_arch() -> Vec<Ptx> {
    let mut out: Vec<Ptx> = Vec::new();
    for m in all_modules() {
        match out.iter_mut().find(|o| o.sm == m.sm) {
            Some(o) => o.source = Box::leak(format!("{}\n{}", o.source, m.source).into_boxed_str()),
            None => out.push(Ptx {
                sm: m.sm,
                source: m.source,
            }),
        }
    }
    out
}

/// `ptxas`: `CG_PTXAS`, then the PATH, then the one in PyPI's
/// `nvidia-cuda-nvcc` wheel (`cg_builder::sass::cuda_tool`).
fn ptxas() -> PathBuf {
    cg_builder::sass::cuda_tool("ptxas").unwrap_or_else(|| {
        panic!(
            "ptxas not found: `pip install nvidia-cuda-nvcc` (scripts/setup does), put ptxas on PATH, or set CG_PTXAS"
        )
    })
}

fn assemble(ptx: &str, sm: u32) -> String {
    // One directory per call: modules are assembled in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cg-ptxas-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("kernels_{sm}.ptx"));
    std::fs::write(&src, ptx).unwrap();
    let out = Command::new(ptxas())
        .arg(format!("-arch=sm_{sm}"))
        .args(["-v", "--warning-as-error", "-o"])
        .arg(dir.join("out.cubin"))
        .arg(&src)
        .output()
        .expect("running ptxas");
    let _ = std::fs::remove_dir_all(&dir);
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas -arch=sm_{sm} failed:\n{log}");
    log
}

#[test]
fn every_module_assembles_for_sm80_and_sm90_without_spills() {
    let archs: Vec<u32> = all_modules().map(|m| m.sm).collect();
    assert!(
        archs.contains(&80) && archs.contains(&90),
        "modules built: {archs:?}"
    );
    // A module runs on its own architecture and every newer one. ptxas
    // takes most of this test's time: the pairs run on every core.
    let modules: Vec<&Ptx> = all_modules().collect();
    let jobs: Vec<(usize, u32)> = modules
        .iter()
        .enumerate()
        .flat_map(|(k, m)| {
            [80, 90]
                .into_iter()
                .filter(move |&sm| sm >= m.sm)
                .map(move |sm| (k, sm))
        })
        .collect();
    let logs: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|&(k, sm)| {
                let source = modules[k].source;
                s.spawn(move || assemble(source, sm))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Each module's allowances once, for every architecture it was
    // assembled for.
    let allowances: Vec<FrameAllowance> = modules
        .iter()
        .map(|m| FrameAllowance::of(m.source))
        .collect();
    for (&(k, sm), log) in jobs.iter().zip(&logs) {
        check_frames(modules[k], sm, log, &allowances[k]);
    }
}

/// What a module's functions may reserve as a stack frame, from the
/// module's PTX (parsed once: the log names every function).
struct FrameAllowance {
    /// The module's entry points: one "Compiling entry function" each in
    /// the log.
    entries: usize,
    /// The largest reservation of the paths to a trap.
    trap_paths: u32,
    /// The largest depot of CUDA's math library in the module.
    math_library: u32,
    /// Per function: whether it calls CUDA's math library, its own depot
    /// (`printf`'s argument buffer), and the depots of the math functions
    /// inlined into it.
    functions: std::collections::HashMap<String, (bool, u32, u32)>,
}

impl FrameAllowance {
    fn of(source: &str) -> Self {
        let module = Module::parse(source);
        let functions = module
            .functions
            .iter()
            .map(|f| {
                let body = f.body.unwrap_or("");
                (
                    f.name.to_string(),
                    (
                        body.contains("cg_math_"),
                        depot(f),
                        inlined_math_depots(body),
                    ),
                )
            })
            .collect();
        FrameAllowance {
            entries: module.entries().count(),
            trap_paths: local_depots_on_trap_paths(source),
            math_library: math_library_depot(source),
            functions,
        }
    }

    /// The frame `function` may reserve.
    fn allowed(&self, function: &str) -> u32 {
        let (calls_math, buffer, inlined) =
            self.functions.get(function).copied().unwrap_or_default();
        // ptxas counts the local memory of the math functions a kernel
        // calls (sin's argument reduction) in its frame; a kernel that
        // prints adds its `printf` argument buffer (its own depot; the
        // others have none) to what the paths to a trap it calls reserve;
        // CUDA's math functions inlined into it keep their depots.
        let calls = if calls_math {
            self.trap_paths.max(self.math_library)
        } else {
            self.trap_paths
        };
        buffer + inlined + calls
    }
}

/// A frame may only be the argument array of one of core's formatted
/// panics: `panic_bounds_check` passes its address to the panic handler,
/// which never reads it (it records the message's template only). Nothing
/// reads or writes local memory, so a frame is a reservation, never an
/// instruction. CUDA's math library (nvcc's code, `cg_core::math`) is
/// exempt: its argument reductions keep a table in local memory; so is a
/// kernel's call of CUDA's `printf` (`cg_core::println!`), whose arguments
/// are a buffer in local memory.
fn check_frames(m: &Ptx, sm: u32, log: &str, allowance: &FrameAllowance) {
    let entries = log.matches("Compiling entry function").count();
    assert_eq!(
        entries, allowance.entries,
        "sm_{} module on sm_{sm}:\n{log}",
        m.sm
    );
    let mut function = "";
    for line in log.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            function = name.trim();
        }
        if !line.contains("bytes stack frame") || in_math_library(function) {
            continue;
        }
        let frame: u32 = line.split_whitespace().next().unwrap().parse().unwrap();
        let allowed = allowance.allowed(function);
        assert!(
            line.contains("bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
                && frame <= allowed,
            "sm_{sm}: {line} (the paths to a trap reserve at most {} bytes)",
            allowance.trap_paths
        );
    }
}

/// Whether `name` is a function of CUDA's math library, which cg-builder
/// copies from nvcc's PTX into a module whose kernels call it
/// (`cg_core::math`): the functions a kernel calls (`cg_math_*`) and
/// nvcc's internal ones (`__internal_*`). They are calls by design (ptxas
/// does not inline them) and are nvcc's code, not ours.
fn in_math_library(name: &str) -> bool {
    name.starts_with("cg_math_") || name.starts_with("__internal_")
}

/// CUDA's `printf` (`cg_core::println!`): a call by design, which the
/// driver links, whose arguments are a buffer in local memory.
const PRINTF: &str = "vprintf";

/// Whether `f` calls CUDA's `printf`.
fn prints(f: &cg_ptx::Function) -> bool {
    f.callees().contains(&PRINTF)
}

/// The local-memory depot of `f`, in bytes (0 without one).
fn depot(f: &cg_ptx::Function) -> u32 {
    f.statements()
        .filter(|s| cg_ptx::opcode(s) == ".local" && s.contains("__local_depot"))
        .filter_map(|s| s.split_once('[')?.1.split(']').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// `body` without the copies of CUDA's math functions cg-builder inlined
/// into it (`{ // cg_math_NAME, inlined` to its `$cgm<K>_end:` label):
/// nvcc's code, whose argument reductions use local memory.
fn outside_inlined_math(body: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("{ // cg_math_") && t.ends_with(", inlined") {
            inside = true;
        } else if inside && t.starts_with("$cgm") && t.ends_with("_end:") {
            inside = false;
        } else if !inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The bytes of local memory the math functions inlined into `body`
/// declare.
fn inlined_math_depots(body: &str) -> u32 {
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with(".local") && l.contains("___local_depot"))
        .filter_map(|l| l.split_once('[')?.1.split(']').next()?.parse::<u32>().ok())
        .sum()
}

/// The largest local-memory depot of CUDA's math library in `ptx`.
fn math_library_depot(ptx: &str) -> u32 {
    Module::parse(ptx)
        .functions
        .iter()
        .filter(|f| in_math_library(f.name))
        .map(depot)
        .max()
        .unwrap_or(0)
}

/// The calls in `f` to functions that return: wrappers left uninlined.
/// (The only calls allowed are to the `.noreturn` functions, core's panic
/// functions and cg-core's fault report: the paths to a trap; to CUDA's
/// math library; and to CUDA's `printf`.)
fn returning_calls<'a>(module: &Module<'a>, f: &cg_ptx::Function<'a>) -> Vec<&'a str> {
    let noreturn = module.noreturn_functions();
    if in_math_library(f.name) {
        return Vec::new();
    }
    f.callees()
        .into_iter()
        .filter(|c| !noreturn.contains(c) && !in_math_library(c) && *c != PRINTF)
        .collect()
}

/// The largest local-memory depot of the module, after checking that only
/// the paths to a trap have one and that no instruction touches local
/// memory. A function that prints is checked apart: its depot is the
/// argument buffer of `printf`, which it stores and never loads.
fn local_depots_on_trap_paths(ptx: &str) -> u32 {
    for f in Module::parse(ptx).functions.iter().filter(|f| prints(f)) {
        assert!(
            !f.body.unwrap_or("").contains("ld.local"),
            "`{}` loads from local memory",
            f.name
        );
    }
    let ours = || {
        Module::parse(ptx)
            .functions
            .into_iter()
            .filter(|f| !in_math_library(f.name) && !prints(f))
    };
    for f in ours() {
        let body = outside_inlined_math(f.body.unwrap_or(""));
        for access in ["ld.local", "st.local"] {
            assert!(
                !body.contains(access),
                "`{}` uses local memory: `{access}`",
                f.name
            );
        }
    }
    let mut max = 0;
    for f in ours() {
        for depot in f.statements().filter(|s| {
            cg_ptx::opcode(s) == ".local"
                && s.contains("__local_depot")
                && !s.contains("___local_depot")
        }) {
            let size = depot
                .split_once('[')
                .and_then(|(_, s)| s.split(']').next())
                .unwrap();
            assert!(
                f.is_noreturn() && !f.is_entry(),
                "a local-memory depot outside the paths to a trap, in `{}`",
                f.name
            );
            max = max.max(size.parse().unwrap());
        }
    }
    max
}

#[test]
fn the_sm80_module_has_no_sm90_instructions_and_the_sm90_module_has_the_cluster_kernels() {
    for m in by_arch() {
        let cluster_kernels = [
            "probe_cluster",
            "probe_cluster_grid",
            "cluster_neighbour_sum",
            "cluster_reduce",
            "cluster_histogram",
        ];
        let module = Module::parse(m.source);
        let has = |k: &str| module.entry(k).is_some();
        if m.sm < 90 {
            for needle in ["%cluster", "mapa", "shared::cluster", "barrier.cluster"] {
                assert!(
                    !m.source.contains(needle),
                    "sm_{} module contains `{needle}`",
                    m.sm
                );
            }
            assert!(
                cluster_kernels.iter().all(|k| !has(k)),
                "sm_{} module has a cluster kernel",
                m.sm
            );
        } else {
            assert!(
                cluster_kernels.iter().all(|k| has(k)),
                "sm_{} module lacks a cluster kernel",
                m.sm
            );
            has_all(
                m.sm,
                m.source,
                "cluster_neighbour_sum",
                &[
                    "barrier.cluster.arrive",
                    "barrier.cluster.wait",
                    "mapa.shared::cluster.u32",
                    "ld.shared::cluster.b32",
                ],
            );
        }
    }
}

/// The body of entry point `kernel` in the sm_`sm` module `ptx`, after
/// checking that it holds every one of `insns`.
fn has_all<'a>(sm: u32, ptx: &'a str, kernel: &str, insns: &[&str]) -> &'a str {
    let body = entry(ptx, kernel);
    for insn in insns {
        assert!(body.contains(insn), "sm_{sm}: {kernel} lacks `{insn}`");
    }
    body
}

/// The body of entry point `name` in `ptx`.
fn entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    Module::parse(ptx)
        .entry(name)
        .and_then(|f| f.body)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

#[test]
fn typed_operations_lower_to_their_instructions_with_nothing_left_to_call() {
    for m in by_arch() {
        let ptx = m.source;
        // Calls are only on the paths to a trap (a panic or a failed check
        // reporting where it happened): nothing that returns is left, but
        // in the kernel that keeps its barriers in functions of their own
        // on purpose.
        let module = Module::parse(ptx);
        let left: Vec<&str> = module
            .functions
            .iter()
            .filter(|f| f.name != BARRIERS_NOT_INLINED)
            .flat_map(|f| returning_calls(&module, f))
            .collect();
        assert!(left.is_empty(), "sm_{}: not inlined: {left:?}", m.sm);
        let sum = has_all(
            m.sm,
            ptx,
            "grid_sum",
            &[
                "shfl.sync.down.b32",
                "bar.sync",
                "atom.add.release.gpu.u32",
                "ld.acquire.gpu.u32",
                "st.shared.b32",
                "ld.shared.b32",
                "// cg-core: grid.sync",
            ],
        );
        assert_eq!(
            sum.matches("shfl.sync.down.b32").count(),
            20,
            "two block sums of two unrolled 5-step warp trees"
        );
        // The 32-thread tile's member mask is the constant 0xffffffff.
        let down = entry(ptx, "probe_warp_shfl_down");
        let shfl = down
            .lines()
            .find(|l| l.contains("shfl.sync.down.b32"))
            .expect("a shuffle");
        let mask = shfl
            .trim()
            .trim_end_matches(';')
            .rsplit(", ")
            .next()
            .unwrap();
        assert!(
            down.contains(&format!("mov.b32 \t{mask}, -1;")),
            "sm_{}: the full-warp mask {mask} is not the constant -1:\n{down}",
            m.sm
        );
        // A barrier between two `if i < n` blocks stays one barrier: copied
        // into both paths it would deadlock diverged warps (bar.sync is
        // aligned).
        let rotate = entry(ptx, "probe_grid_rotate");
        assert_eq!(
            rotate.matches("bar.sync").count(),
            2,
            "sm_{}: grid.sync() was duplicated:\n{rotate}",
            m.sm
        );
        // Shared memory is reached through the shared window, not generic
        // addresses.
        assert!(
            !sum.contains("cvta.shared"),
            "sm_{}: generic shared pointer in grid_sum",
            m.sm
        );
    }
}

/// The test kernel whose grid barriers are in device functions the
/// compiler does not inline.
const BARRIERS_NOT_INLINED: &str = "api_grid_barrier_not_inlined";

/// The grid barrier reads its counters' place from a parameter cg-builder
/// appends to every entry point that reaches a barrier's marker (and to no
/// other), never from the module word, but in a device function, which
/// cannot read an entry's parameters; an entry that reaches none has no
/// place. An entry that reaches the marker only through a grid collective
/// (`grid_reduce`: the marker, no barrier) takes the place and may leave
/// it unread; every module with a marker has entries that read it.
#[test]
fn entries_that_reach_a_grid_barrier_take_its_place_as_a_parameter() {
    use cg_core::grid::{layout, SYNC_MARKER};
    let reads = |f: &cg_ptx::Function, opcode: &str, what: &str| {
        f.statements()
            .any(|s| s.starts_with(opcode) && s.ends_with(&format!(", [{what}]")))
    };
    for m in all_modules() {
        let module = Module::parse(m.source);
        let reaching = module.entries_reaching(|f| f.comments().any(|c| c == SYNC_MARKER));
        let mut reading = 0;
        for f in module.entries() {
            let what = format!("sm_{}: `{}`", m.sm, f.name);
            let param = format!("{}{}", f.name, layout::PARAM_SUFFIX);
            assert!(
                !reads(f, "ld.global.nc.u64 ", layout::SYMBOL),
                "{what} reads the module word"
            );
            assert_eq!(
                f.takes_grid_barrier_place(),
                reaching.contains(f.name),
                "{what}"
            );
            let reads_place = reads(f, "ld.param.u64 ", &param);
            assert!(
                !reads_place || reaching.contains(f.name),
                "{what} reads a place it does not take"
            );
            reading += usize::from(reads_place);
        }
        // The primitives' module reaches the marker only through grid
        // collectives (no `grid.sync()`): its entries take the place and
        // none reads it.
        assert!(
            reaching.is_empty() || reading > 0 || is_primitives(m),
            "sm_{}: no entry reads the grid barrier's place",
            m.sm
        );
        let Some(entry) = module.entry(BARRIERS_NOT_INLINED) else {
            continue;
        };
        let callees = returning_calls(&module, entry);
        assert_eq!(callees.len(), 2, "sm_{}: {callees:?}", m.sm);
        for c in callees {
            let f = module.function(c).unwrap();
            assert!(
                reads(f, "ld.global.nc.u64 ", layout::SYMBOL),
                "sm_{}: `{c}` does not read the module word",
                m.sm
            );
        }
        assert!(reaching.contains(BARRIERS_NOT_INLINED), "sm_{}", m.sm);
    }
}

#[test]
fn launch_kinds_follow_the_kernel_declarations() {
    assert_eq!(GridSum::KIND, LaunchKind::Cooperative);
    assert_eq!(ProbeGridRotate::KIND, LaunchKind::Cooperative);
    assert_eq!(ProbeGroups::KIND, LaunchKind::Plain);
    assert_eq!(ApiGridSplitBarrier::KIND, LaunchKind::Cooperative);
    assert_eq!(ApiShflU32::KIND, LaunchKind::Plain);
    assert_eq!(samples::BlockReduceWarp::NAME, "block_reduce_warp");
    // Written by a macro_rules! macro.
    assert_eq!(samples::BarrierCostGrid::KIND, LaunchKind::Cooperative);
    assert_eq!(samples::BarrierCostTile::KIND, LaunchKind::Plain);
}

/// `#[kernel(launch_bounds(96, 4))]` is written into the PTX as nvcc
/// writes `__launch_bounds__(96, 4)`: `.maxntid 96, 1, 1` and
/// `.minnctapersm 4` between the entry point's parameters and its body, in
/// every module, and `#[kernel(block_size(16, 4, 2))]` as `.reqntid 16, 4,
/// 2`; no other entry point of any module has a bound but the Jacobi
/// sample that sweeps in shared memory (`launch_bounds(1024, 1)`), the
/// primitives' scans and selections and the one-pass prefix-sum sample
/// (`launch_bounds(256, 4)`: four blocks an SM) and the samples' block
/// reductions for blocks of 256
/// (`block_size(256)`: all but the seed's three).
/// The samples' block reductions for blocks of any size: the seed's
/// kernels as it writes them.
const SEED_BLOCK_REDUCTIONS: [&str; 3] = [
    "block_reduce_classic",
    "block_reduce_warp",
    "block_reduce_hierarchical",
];

#[test]
fn launch_bounds_are_ptx_directives_of_their_entry_point_only() {
    for m in all_modules() {
        let module = Module::parse(m.source);
        for e in module.entries() {
            // The probe, the Jacobi sample in shared memory, the one-pass
            // prefix sum and the primitives' scans and selections declare
            // both bounds.
            let both = matches!(
                e.name,
                "probe_launch_bounds" | "jacobi_in_shared" | "grid_prefix_sum_one_pass"
            ) || (is_primitives(m)
                && (e.name.starts_with("exclusive_sum_") || e.name.starts_with("select_")));
            let want: &[&str] = match e.name {
                _ if both => &[".maxntid", ".minnctapersm"],
                "probe_block_size" => &[".reqntid"],
                n if n.starts_with("block_reduce_") && !SEED_BLOCK_REDUCTIONS.contains(&n) => {
                    &[".reqntid"]
                }
                _ => &[],
            };
            assert_eq!(e.directives, want, "sm_{} {}", m.sm, e.name);
        }
        assert!(
            m.source.contains(
                "\t.param .u64 probe_launch_bounds_param_1\n)\n.maxntid 96, 1, 1\n.minnctapersm 4\n{"
            ) || !m.source.contains(".entry probe_launch_bounds("),
            "sm_{}",
            m.sm
        );
    }
    assert!(PTX
        .modules()
        .iter()
        .all(|m| m.source.contains(".entry probe_launch_bounds(")));
    for m in PTX.modules() {
        assert!(
            m.source
                .contains("\t.param .u64 probe_block_size_param_1\n)\n.reqntid 16, 4, 2\n{"),
            "sm_{}",
            m.sm
        );
    }
}

/// In a `#[kernel(block_size(..))]` the block's extents are constants:
/// the block's size and each thread's rank in it fold, so no entry point
/// with a `.reqntid` reads `%ntid` (the probe's body under `launch_bounds`
/// reads it; the samples have seven such entry points).
#[test]
fn a_block_size_kernel_reads_no_block_extent() {
    for m in PTX.modules() {
        let fixed = entry(m.source, "probe_block_size");
        assert!(
            fixed.contains("%tid.y") && fixed.contains("%tid.z"),
            "sm_{}",
            m.sm
        );
        assert!(!fixed.contains("%ntid"), "sm_{}: {fixed}", m.sm);
        assert!(
            entry(m.source, "probe_launch_bounds").contains("%ntid.x"),
            "sm_{}",
            m.sm
        );
    }
    for m in samples::PTX.modules() {
        let module = Module::parse(m.source);
        let sized: Vec<_> = module
            .entries()
            .filter(|e| e.directives.contains(&".reqntid"))
            .collect();
        assert_eq!(sized.len(), 7, "sm_{}", m.sm);
        for e in sized {
            let body = e.body.unwrap_or_default();
            assert!(!body.contains("%ntid"), "sm_{} {}", m.sm, e.name);
        }
    }
}

/// The registers ptxas gives each entry point, from a `ptxas -v` log.
fn registers_by_entry(log: &str) -> std::collections::HashMap<String, u32> {
    let mut out = std::collections::HashMap::new();
    let mut entry = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            entry = rest.split('\'').next().map(str::to_string);
        }
        if let (Some(name), Some(rest)) = (&entry, line.split("Used ").nth(1)) {
            let n = rest.split(" registers").next().unwrap_or(rest);
            out.insert(name.clone(), n.trim().parse().expect("a register count"));
            entry = None;
        }
    }
    out
}

/// The Jacobi sample's persistent kernels run eight blocks of 256 threads
/// on each multiprocessor (1056 x 256 on an H200, the grid their README
/// figures come from): 32 registers at most. A sweep loop that keeps more
/// state would drop them to six blocks an SM or fewer (792 on an H200),
/// with every other test still passing.
#[test]
fn the_persistent_jacobi_kernels_fit_eight_blocks_of_256_an_sm() {
    let m = samples::PTX
        .modules()
        .iter()
        .find(|m| m.sm == 90)
        .expect("an sm_90 samples module");
    let registers = registers_by_entry(&assemble(m.source, 90));
    for name in ["jacobi_persistent", "jacobi_multi_gpu"] {
        let n = registers
            .get(name)
            .unwrap_or_else(|| panic!("no register count for {name} in ptxas's log"));
        assert!(
            *n <= 32,
            "sm_90 {name}: {n} registers (at most 32 for 8 blocks of 256 an SM)"
        );
    }
}

/// A `#[kernel(grid_1d)]` reads `blockIdx.x` alone: its block and thread
/// ranks in the grid (the leader's slot of a block reduction, a grid-stride
/// loop's first index) fold to it, and `blockIdx.y`, `.z` and `gridDim.y`,
/// `.z` appear nowhere in its entry point; the same kernel without the
/// declaration (the README example's) reads all three.
#[test]
fn a_grid_1d_kernel_reads_only_block_idx_x() {
    const { assert!(samples::BlockReduceWarp::GRID_1D && samples::GridSum::GRID_1D) };
    const { assert!(!samples::ScaleNeighbourSum::GRID_1D) };
    for m in samples::PTX.modules() {
        for name in [
            "block_reduce_warp",
            "grid_sum",
            "jacobi_sweep",
            "grid_prefix_sum",
        ] {
            let body = entry(m.source, name);
            assert!(body.contains("%ctaid.x"), "sm_{} {name}", m.sm);
            for other in ["%ctaid.y", "%ctaid.z", "%nctaid.y", "%nctaid.z"] {
                assert!(!body.contains(other), "sm_{} {name} reads {other}", m.sm);
            }
        }
        let body = entry(m.source, "scale_neighbour_sum");
        assert!(
            body.contains("%ctaid.y") && body.contains("%ctaid.z"),
            "sm_{}",
            m.sm
        );
    }
}

/// The launch of an instance of a generic kernel: the instance's types.
type AtomicU64Launch = fn(
    &kernels::ApiAtomicU64,
    LaunchConfig,
    &DeviceBuffer<u64>,
    &mut DeviceBuffer<u64>,
    &mut DeviceBuffer<u64>,
    u32,
    u32,
    u32,
    u32,
    u32,
) -> Result<(), cooperative_groups::Error>;

/// The launch of the instance `copy_probe::<u8>`.
type CopyProbeU8Launch = fn(
    &kernels::CopyProbeU8,
    LaunchConfig,
    &DeviceBuffer<u32>,
    &DeviceBuffer<u8>,
    &mut DeviceBuffer<u8>,
    u8,
) -> Result<(), cooperative_groups::Error>;

#[test]
fn each_instance_of_a_generic_kernel_is_an_entry_point_with_its_own_types() {
    let _: AtomicU64Launch = kernels::ApiAtomicU64::launch;
    let _: CopyProbeU8Launch = kernels::CopyProbeU8::launch;
    for m in by_arch() {
        let module = Module::parse(m.source);
        for name in (1..=8).map(|s| format!("vadd_pipelined_{s}")) {
            // Three buffers, each a pointer and a length: a's, b's, c's.
            let params = module.entry(&name).unwrap().param_types();
            assert_eq!(params, [".u64"; 6], "sm_{}: {name}", m.sm);
        }
        // The generic functions themselves are no entry points.
        for generic in ["vadd_pipelined", "api_atomic", "api_shfl", "copy_probe"] {
            assert!(module.entry(generic).is_none(), "sm_{}: {generic}", m.sm);
        }
    }
}

/// The instructions that take a member mask as their last operand.
const WARP_INSTRUCTIONS: [&str; 6] = [
    "shfl.sync.",
    "vote.sync.",
    "match.any.sync.",
    "match.all.sync.",
    "redux.sync.",
    "bar.warp.sync",
];

/// The member-mask operand of the warp instruction in `line` (the last
/// operand before its `;`; inline asm can put several instructions on one
/// line).
fn mask_operand(line: &str) -> &str {
    let start = WARP_INSTRUCTIONS
        .iter()
        .filter_map(|w| line.find(w))
        .min()
        .unwrap();
    let insn = &line[start..];
    let insn = &insn[..insn.find(';').unwrap_or(insn.len())];
    insn.rsplit([',', ' ', '\t']).next().unwrap().trim()
}

#[test]
fn full_warp_operations_are_single_instructions_with_a_constant_mask() {
    for m in by_arch() {
        let body = has_all(
            m.sm,
            m.source,
            "api_full_warp_ops",
            &[
                "shfl.sync.idx.b32",
                "shfl.sync.up.b32",
                "shfl.sync.down.b32",
                "shfl.sync.bfly.b32",
                "vote.sync.any.pred",
                "vote.sync.ballot.b32",
                "match.any.sync.b32",
                "match.any.sync.b64",
                "match.all.sync.b32",
                "redux.sync.add.u32",
                "redux.sync.min.u32",
                "redux.sync.xor.b32",
            ],
        );
        // A 32-thread tile needs no lane arithmetic: no rank-to-lane search
        // and no active-mask query.
        for absent in [LANE_SEARCH, "activemask"] {
            assert!(
                !body.contains(absent),
                "sm_{}: api_full_warp_ops contains `{absent}`",
                m.sm
            );
        }
        let module = Module::parse(m.source);
        let left = returning_calls(&module, module.entry("api_full_warp_ops").unwrap());
        assert!(
            left.is_empty(),
            "sm_{}: api_full_warp_ops calls {left:?}",
            m.sm
        );
        let mut checked = 0;
        for line in body
            .lines()
            .filter(|l| WARP_INSTRUCTIONS.iter().any(|w| l.contains(w)))
        {
            let mask = mask_operand(line);
            assert!(
                mask == "-1"
                    || body.contains(&format!("mov.b32 \t{mask}, -1;"))
                    || body.contains(&format!("mov.u32 \t{mask}, -1;")),
                "sm_{}: the mask {mask} of `{}` is not the constant -1",
                m.sm,
                line.trim()
            );
            checked += 1;
        }
        assert!(
            checked >= 13,
            "sm_{}: only {checked} warp instructions",
            m.sm
        );
    }
}

#[test]
fn built_in_integer_reductions_use_redux_sync_and_others_shuffles() {
    for m in by_arch() {
        let ptx = m.source;
        has_all(
            m.sm,
            ptx,
            "api_collective_u32",
            &[
                "redux.sync.add.u32",
                "redux.sync.min.u32",
                "redux.sync.max.u32",
                "redux.sync.and.b32",
                "redux.sync.or.b32",
                "redux.sync.xor.b32",
                "shfl.sync.bfly.b32",
                "shfl.sync.up.b32",
            ],
        );
        has_all(
            m.sm,
            ptx,
            "api_collective_i32",
            &["redux.sync.min.s32", "redux.sync.max.s32"],
        );
        for name in [
            "api_collective_u64",
            "api_collective_f32",
            "api_collective_f64",
            "api_collective_struct",
        ] {
            let body = entry(ptx, name);
            assert!(
                !body.contains("redux.sync"),
                "sm_{}: {name} has no 32-bit integer type but uses redux.sync",
                m.sm
            );
            assert!(
                body.contains("shfl.sync.bfly.b32"),
                "sm_{}: {name} lacks its butterfly",
                m.sm
            );
        }
    }
}

#[test]
fn block_collectives_keep_redux_and_cost_their_barriers() {
    for m in PTX.modules() {
        let ptx = m.source;
        // The warp step of a block collective is the warp collective on the
        // warp's existing lanes: `redux.sync` for built-in operators on
        // u32, shuffles of a clipped tile (no rank-to-lane search) for the
        // rest.
        let ints = has_all(
            m.sm,
            ptx,
            "api_block_collectives_u32",
            &[
                "redux.sync.add.u32",
                "redux.sync.min.u32",
                "redux.sync.max.u32",
                "redux.sync.and.b32",
                "redux.sync.or.b32",
                "redux.sync.xor.b32",
                "shfl.sync.up.b32",
            ],
        );
        let floats = has_all(
            m.sm,
            ptx,
            "api_block_collectives_f32",
            &["shfl.sync.bfly.b32", "shfl.sync.up.b32"],
        );
        assert!(
            !floats.contains("redux.sync"),
            "sm_{}: api_block_collectives_f32 uses redux.sync",
            m.sm
        );
        for (name, body) in [
            ("api_block_collectives_u32", ints),
            ("api_block_collectives_f32", floats),
        ] {
            assert!(
                !body.contains(LANE_SEARCH) && !body.contains("activemask"),
                "sm_{}: {name} searches for lanes",
                m.sm
            );
        }
        // Per operator: five collectives of two barriers each, two
        // `block_reduce_to_first` of one, and the barrier of
        // `UsedScratch::sync` between them (7 operators for u32, 4 for f32).
        for (name, body, ops) in [
            ("api_block_collectives_u32", ints, 7),
            ("api_block_collectives_f32", floats, 4),
        ] {
            assert_eq!(
                body.matches("bar.sync").count(),
                13 * ops,
                "sm_{}: {name}: a barrier too many or too few",
                m.sm
            );
        }
    }
}

#[test]
fn coalesced_groups_and_matches_use_their_instructions() {
    for m in by_arch() {
        let ptx = m.source;
        has_all(
            m.sm,
            ptx,
            "api_votes",
            &[
                "vote.sync.any.pred",
                "vote.sync.ballot.b32",
                "match.any.sync.b32",
                "match.any.sync.b64",
                "match.all.sync.b32",
                "match.all.sync.b64",
                "activemask.b32",
            ],
        );
        has_all(
            m.sm,
            ptx,
            "api_shfl_u32",
            &[
                "shfl.sync.idx.b32",
                "shfl.sync.up.b32",
                "shfl.sync.down.b32",
                "shfl.sync.bfly.b32",
                LANE_SEARCH,
                "activemask.b32",
                "%lanemask_lt",
            ],
        );
        // A 32-byte value moves as eight 32-bit shuffles.
        let wide = entry(ptx, "api_shfl_wide32");
        assert!(
            wide.matches("shfl.sync.bfly.b32").count() >= 8,
            "sm_{}: api_shfl_wide32 moves fewer than 8 words per xor shuffle",
            m.sm
        );
        has_all(
            m.sm,
            ptx,
            "api_grid_split_barrier",
            &[
                "atom.add.release.gpu.u32",
                "ld.acquire.gpu.u32",
                "bar.sync",
                "// cg-core: grid.sync",
            ],
        );
    }
}

#[test]
fn async_copies_use_cp_async_and_the_bulk_engine_where_the_architecture_has_it() {
    for m in by_arch() {
        let sm = m.sm;
        let has_all = |kernel: &str, insns: &[&str]| {
            has_all(sm, m.source, kernel, insns);
        };
        // Floats: one 4-byte cp.async per element (as CUDA for `float*`),
        // shared memory read with ld.shared, one batch per call.
        has_all(
            "vadd_memcpy_async",
            &[
                "cp.async.ca.shared.global",
                "cp.async.commit_group",
                "cp.async.wait_group 0",
                "ld.shared.b32",
            ],
        );
        assert!(!entry(m.source, "vadd_memcpy_async").contains("cp.async.cg"));
        // Bytes: 16-byte pieces where the ends share 16-byte alignment, 8-
        // and 4-byte ones where they share less, bytes by hand around them.
        has_all(
            "copy_probe_u8",
            &[
                "cp.async.cg.shared.global",
                "], 8;",
                "], 4;",
                "st.shared.b8",
            ],
        );
        has_all(
            "vadd_pipelined_4",
            &["cp.async.wait_group 3", "cp.async.commit_group"],
        );
        // One thread's element: a single 4-byte cp.async, no by-hand bytes.
        let between = entry(m.source, "in_between_pipelined");
        assert!(between.contains("cp.async.ca.shared.global") && between.contains(", 4;"));
        assert!(!between.contains("cp.async.cg") && !between.contains("st.shared.b8"));
        // A barrier's plain copy is cp.async completed on the barrier, as
        // CUDA's for a byte count; the bulk copy engine only when asked
        // (`memcpy_async_bulk`, sm_90: the copy probe's bulk mode).
        let barrier = entry(m.source, "vadd_barrier");
        assert!(
            barrier.contains("cp.async.mbarrier.arrive.shared.b64")
                && !barrier.contains("cp.async.bulk")
                && !barrier.contains("expect_tx")
        );
        let probe = entry(m.source, "copy_probe_u32");
        if sm >= 90 {
            has_all(
                "copy_probe_u32",
                &[
                    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                    "mbarrier.expect_tx",
                    "fence.proxy.async.shared::cta",
                    "cp.async.mbarrier.arrive.shared.b64",
                ],
            );
        } else {
            assert!(!probe.contains("cp.async.bulk") && !probe.contains("expect_tx"));
        }
    }
}

#[test]
fn atomics_are_the_scoped_instructions_their_orderings_name() {
    for m in by_arch() {
        has_all(
            m.sm,
            m.source,
            "api_atomic_forms",
            &[
                "atom.acq_rel.gpu.global.add.u32",
                "red.relaxed.gpu.global.add.u32",
                "red.relaxed.gpu.global.add.f32",
                "atom.relaxed.sys.global.or.b32",
                "atom.acquire.cta.global.cas.b64",
                "red.relaxed.cta.shared.add.u32",
                "fence.sc.gpu",
                "fence.sc.cta",
                "ld.acquire.gpu.global.b32",
                "st.release.sys.global.b32",
                // `load_after_sync`: weak, whatever the scope.
                "ld.global.b32",
                "ld.global.b64",
            ],
        );
    }
}

#[test]
fn distributed_shared_atomics_are_cluster_window_instructions() {
    for m in by_arch().into_iter().filter(|m| m.sm >= 90) {
        has_all(
            m.sm,
            m.source,
            "api_atomic_cluster_forms",
            &[
                "mapa.shared::cluster",
                "atom.relaxed.cluster.shared::cluster.add.u32",
                "red.release.cluster.shared::cluster.max.u32",
                "ld.acquire.cluster.shared::cluster.b32",
                // 64-bit min, max, and, or and xor lose updates on
                // distributed shared memory (sm_90): a cas loop instead.
                "atom.relaxed.cluster.shared::cluster.cas.b64",
            ],
        );
        for broken in [
            "min.u64", "min.s64", "max.u64", "max.s64", "and.b64", "or.b64", "xor.b64",
        ] {
            assert!(
                !m.source.contains(&format!("shared::cluster.{broken}")),
                "sm_{}: `{broken}` on distributed shared memory (it loses updates)",
                m.sm
            );
        }
    }
}

#[test]
fn kernel_panics_leave_what_the_host_needs_to_name_them() {
    for m in all_modules() {
        let ptx = m.source;
        for global in [
            ".visible .global .align 8 .u64 cg_fault_record = 0;",
            ".visible .global .align 4 .u32 cg_fault_claim = 0;",
            ".visible .global .align 8 .u64 cg_fault_strings[",
        ] {
            assert!(ptx.contains(global), "sm_{}: no `{global}`", m.sm);
        }
        // The table cg-builder appends lists every byte array, in order.
        let module = Module::parse(ptx);
        let arrays: Vec<(&str, Vec<u8>)> = module
            .byte_arrays()
            .map(|g| {
                let bytes = g.bytes().unwrap_or_else(|| {
                    panic!("sm_{}: the byte array {} is not a string", m.sm, g.name)
                });
                (g.name, bytes)
            })
            .collect();
        let listed: Vec<String> = module
            .global("cg_fault_strings")
            .unwrap()
            .init_elements()
            .iter()
            .map(|e| {
                e.trim_start_matches("generic(")
                    .trim_end_matches(')')
                    .to_string()
            })
            .collect();
        let names: Vec<&str> = arrays.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, names, "sm_{}: the string table", m.sm);
        // Rust's bounds-check message, encoded as the host decodes it
        // (host/src/strings.rs tests the decoding of the same bytes).
        let mut bounds = vec![32];
        bounds.extend_from_slice(b"index out of bounds: the len is ");
        bounds.extend_from_slice(&[0xC0, 18]);
        bounds.extend_from_slice(b" but the index is ");
        bounds.extend_from_slice(&[0xC0, 0]);
        assert!(
            arrays.iter().any(|(_, b)| *b == bounds),
            "sm_{}: rustc no longer encodes the bounds-check message as host/src/strings.rs reads it",
            m.sm
        );
        // Source files are named as the project names them, wherever it is
        // checked out.
        // (A shared slice's checks name their caller's line: the
        // Jacobi sample's region, the compaction's output length, each in
        // its own file; a fault probe panics in its own file.)
        let wants = if m.source.contains(".entry grid_sum(") {
            [
                "kernels/samples/src/patterns.rs",
                "kernels/samples/src/jacobi.rs",
            ]
        } else if is_primitives(m) {
            [
                "kernels/primitives/src/lib.rs",
                "cg-core/src/grid_collectives.rs",
            ]
        } else {
            ["kernels/tests/src/faults.rs", "cg-core/src/tile.rs"]
        };
        for want in wants {
            assert!(
                arrays.iter().any(|(_, b)| b.starts_with(want.as_bytes())),
                "sm_{}: no file name `{want}`",
                m.sm
            );
        }
        for (name, b) in &arrays {
            let text = String::from_utf8_lossy(b);
            assert!(
                !(text.starts_with('/') && text.contains(".rs")),
                "sm_{}: {name} is an absolute path: {text}",
                m.sm
            );
        }
    }
}

/// `setp.lt.u64` and `setp.ge.u64` are one instruction: the comparison
/// does not count, the type does (`setp.u64`).
fn comparison_agnostic(op: &str) -> String {
    match op.strip_prefix("setp.").and_then(|r| r.split_once('.')) {
        Some((_, ty)) => format!("setp.{ty}"),
        None => op.to_string(),
    }
}

/// Every loop of a function body's lines: (the label's line, the line of
/// the branch back to it).
fn loops(lines: &[&str]) -> Vec<(usize, usize)> {
    let label_at = |name: &str| lines.iter().position(|l| *l == format!("{name}:"));
    let mut loops = Vec::new();
    for (end, line) in lines.iter().enumerate() {
        let target = line
            .trim_end_matches(';')
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .filter(|t| t.starts_with("$L") && cg_ptx::opcode(line).starts_with("bra"));
        if let Some(start) = target.and_then(label_at).filter(|&s| s < end) {
            loops.push((start, end));
        }
    }
    loops
}

/// The innermost loops of a function body (from a label to a branch back
/// to it, holding no other such loop), in order, each as its opcodes
/// (comparisons as one), sorted, with register copies (`mov`, which ptxas
/// folds away) left out.
fn innermost_loops(body: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let loops = loops(&lines);
    let innermost = |&(s, e): &(usize, usize)| {
        !loops
            .iter()
            .any(|&(s2, e2)| (s2, e2) != (s, e) && s <= s2 && e2 <= e)
    };
    loops
        .iter()
        .filter(|l| innermost(l))
        .map(|&(s, e)| {
            let mut ops: Vec<String> = lines[s..=e]
                .iter()
                .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.ends_with(':'))
                .map(|l| comparison_agnostic(cg_ptx::opcode(l)))
                .filter(|op| !op.starts_with("mov") && !op.is_empty())
                .collect();
            ops.sort();
            ops
        })
        .collect()
}

/// The class an opcode is counted in when a safe loop is held against a
/// raw one: itself, except that branches and the predicate logic that
/// joins two tests into one (`or.pred`, `and.pred`) count as one class, so
/// that a loop which tests one joined predicate where the raw one branches
/// twice passes, and one with an extra test of either kind does not. (A
/// chunk's element test joins its two compares so, and measured faster
/// than two branches: `docs/NOTES.md`, 2026-11-27.)
fn cost_class(op: &str) -> &str {
    match op {
        "bra" | "bra.uni" | "or.pred" | "and.pred" => "branch or joined test",
        op => op,
    }
}

/// (`cost_dot_stride` is no longer compared with `cost_dot_raw`: its
/// `grid.stride` loop is unrolled, the raw loop's unbounded step is not;
/// `loads_in_flight.rs` checks the unrolled form.)
///
/// The safe output patterns against the same loops through raw pointers
/// (the grid stride, the stencil sweep inside a loop of grid barriers, a
/// block's chunks, its rounds reading an input, a stencil sweep in
/// shared memory): loop by loop, the safe form has no instruction the raw
/// one lacks, and no more of any ([`cost_class`]: a joined test in place
/// of a branch counts as one).
#[test]
fn safe_output_patterns_cost_nothing_in_their_loops() {
    for m in by_arch() {
        for (safe, raw) in [
            ("cost_stride_safe", "cost_stride_raw"),
            ("cost_stencil_safe", "cost_stencil_raw"),
            ("cost_stencil_walk", "cost_stencil_raw"),
            ("cost_chunks_safe", "cost_chunks_raw"),
            ("cost_rounds_reading", "cost_rounds_raw"),
            ("cost_shared_stencil_safe", "cost_shared_stencil_raw"),
        ] {
            let (s, r) = (
                innermost_loops(entry(m.source, safe)),
                innermost_loops(entry(m.source, raw)),
            );
            assert!(!r.is_empty(), "sm_{}: {raw} has no loop", m.sm);
            assert_eq!(s.len(), r.len(), "sm_{}: {safe} and {raw}: loops", m.sm);
            for (s, r) in s.iter().zip(&r) {
                let count = |ops: &[String], op: &str| {
                    ops.iter()
                        .filter(|o| cost_class(o) == cost_class(op))
                        .count()
                };
                for op in s {
                    assert!(
                        count(s, op) <= count(r, op),
                        "sm_{}: {safe} has more `{op}` (class: {}) in a loop than {raw}:\n{s:?}\n{r:?}",
                        m.sm,
                        cost_class(op)
                    );
                }
            }
        }
    }
}

/// A stencil walk made once (`StencilWalk`) keeps the walk's divisions out
/// of the loop of sweeps: no division or remainder inside any loop, where
/// the stencil made in every sweep has them in the outer loop.
#[test]
fn a_stencil_walk_divides_once_per_launch() {
    let divisions_in_loops = |body: &str| {
        let lines: Vec<&str> = body.lines().map(str::trim).collect();
        let in_loop = loops(&lines);
        lines
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                let op = cg_ptx::opcode(l);
                (op.starts_with("div.") || op.starts_with("rem."))
                    && in_loop.iter().any(|&(s, e)| s < *i && *i < e)
            })
            .count()
    };
    for m in by_arch() {
        let walk = entry(m.source, "cost_stencil_walk");
        assert_eq!(
            divisions_in_loops(walk),
            0,
            "sm_{}: cost_stencil_walk:\n{walk}",
            m.sm
        );
        assert!(
            divisions_in_loops(entry(m.source, "cost_stencil_safe")) > 0,
            "sm_{}: the stencil made per sweep no longer divides in its loop: this test shows nothing",
            m.sm
        );
    }
}

/// The PTX instruction CUDA's conversion `name` (`float2int_rn`,
/// `ull2double_rd`, `double2half`) is, from its name alone:
/// `cvt.<rounding>.<to>.<from>`, the rounding integral (`.rni`) into an
/// integer.
fn conversion_instruction(name: &str) -> String {
    let (types, rounding) = name.rsplit_once('_').unwrap_or((name, "rn"));
    let (from, to) = types.split_once('2').unwrap();
    let ptx_type = |t: &str| match t {
        "float" => "f32",
        "double" => "f64",
        "int" => "s32",
        "uint" => "u32",
        "ll" => "s64",
        "ull" => "u64",
        "short" => "s16",
        "ushort" => "u16",
        "char" => "s8",
        "uchar" => "u8",
        "half" => "f16",
        "bfloat16" => "bf16",
        _ => panic!("{name}: no PTX type for `{t}`"),
    };
    let (from, to) = (ptx_type(from), ptx_type(to));
    let integral = to.starts_with('s') || to.starts_with('u');
    let rounding = match rounding {
        "rn" => "rn",
        "rz" => "rz",
        "ru" => "rp",
        "rd" => "rm",
        _ => panic!("{name}: no rounding `{rounding}`"),
    };
    let i = if integral { "i" } else { "" };
    format!("cvt.{rounding}{i}.{to}.{from}")
}

/// Each of CUDA's conversions (`math::convert`) is one `cvt` with its
/// rounding (or `.sat`, between integers) and nothing else: in the
/// conversion kernels of the math test
/// (one `match` arm per function, `brx.idx` to one block per arm, in the
/// order of `CONVERT32`/`CONVERT64`/`SATURATING`/`FROM_HALF`/`TO_HALF`;
/// under both contraction settings), each arm's block holds exactly the
/// function's instruction, between the moves that take its operand out of
/// the input register and widen its result, and no call. On sm_80 the
/// `bf16` ones without an instruction there (`_ru`, `_rd`, from `f64`,
/// from integers) are nvcc's sequences instead and are left out, and one
/// from a `bf16` to an integer is the `cvt` from its `f32` (the bits
/// shifted up). On sm_90 one from a `bf16` to an 8-bit integer goes
/// through a `.b8` register (ptxas takes no other), and its block holds
/// the `mov.b16` out of it.
#[test]
fn each_conversion_is_one_cvt_with_its_rounding() {
    use cg_test_kernels::math::{CONVERT32, CONVERT64, FROM_HALF, SATURATING, TO_HALF};
    let moves = [
        "cvt.u32.u64",
        "cvt.u64.u32",
        "cvt.u64.u16",
        "cvt.u16.u64",
        "cvt.s64.s8",
        "cvt.s64.s16",
        "cvt.s64.s32",
        // The widening of an 8- or 16-bit result (its register's other
        // bits unknown to LLVM).
        "and.b64",
        "and.b16",
        "mov.",
        "bra.uni",
    ];
    // The default build's modules and the one with contraction (the math
    // test runs both).
    let fast = cg_tests::PTX_CONTRACT_FAST.modules().iter().copied();
    for m in by_arch().into_iter().chain(fast) {
        for (kernel, names) in [
            ("convert_32", &CONVERT32[..]),
            ("convert_64", &CONVERT64[..]),
            ("convert_saturating", &SATURATING[..]),
            ("convert_from_half", &FROM_HALF[..]),
            ("convert_to_half", &TO_HALF[..]),
        ] {
            let body = entry(m.source, kernel);
            assert!(!body.contains("call"), "sm_{}: {kernel} calls", m.sm);
            let targets: Vec<&str> = body
                .split(".branchtargets")
                .nth(1)
                .and_then(|t| t.split(';').next())
                .unwrap_or_else(|| panic!("sm_{}: {kernel} has no jump table", m.sm))
                .split(',')
                .map(str::trim)
                .collect();
            assert_eq!(targets.len(), names.len(), "sm_{}: {kernel}", m.sm);
            for (label, name) in targets.iter().zip(names) {
                let block: Vec<&str> = body
                    .split(&format!("\n{label}:\n"))
                    .nth(1)
                    .unwrap()
                    .lines()
                    .map(str::trim)
                    .take_while(|l| !l.starts_with("$L__"))
                    .filter(|l| !l.is_empty() && !l.starts_with("//"))
                    // `cvt_b8`'s scope and register, on the `cvt`'s line.
                    .map(|l| l.trim_start_matches("{ .reg .b8 t; "))
                    .collect();
                let bf16_sequence = m.sm < 90
                    && (name.starts_with("float2bfloat16_r")
                        && !name.ends_with("rn")
                        && !name.ends_with("rz")
                        || *name == "double2bfloat16"
                        || kernel == "convert_to_half" && name.contains("bfloat16"));
                if bf16_sequence {
                    continue;
                }
                let want = if kernel == "convert_saturating" {
                    format!("cvt.sat.{name}")
                } else if m.sm < 90 && name.starts_with("bfloat162") {
                    conversion_instruction(name).replace(".bf16", ".f32")
                } else {
                    conversion_instruction(name)
                };
                let cvts: Vec<&&str> = block
                    .iter()
                    .filter(|l| !moves.iter().any(|mv| l.starts_with(mv)))
                    .collect();
                assert!(
                    cvts.len() == 1 && cvts[0].starts_with(&format!("{want} ")),
                    "sm_{}: {name} is not one `{want}`:\n{}",
                    m.sm,
                    block.join("\n")
                );
            }
        }
    }
}
