//! Differential GPU tests: CUDA judges our Cooperative Groups semantics.
//!
//! Every probe kernel of `kernels/tests/src/api` runs beside its CUDA C++ twin
//! (`tests/twins/api.cu`: the same operations through nvcc's
//! `cooperative_groups`, built to `$CG_TWINS_DIR/api.ptx` by
//! scripts/gpu-run) on the same random inputs (the seed is printed), for
//! every group selector, operator and block shape of `tests/gpu_api.rs`,
//! partial warps and 2-D and 3-D blocks included. Both launch through the
//! Rust kernel's typed handle (the twin's PTX parameter list is first
//! checked to be the kernel's) into poisoned buffers, and every word they
//! write is compared bit for bit.
//!
//! Values CUDA leaves undefined or cannot express are left out by a
//! [`Rule`] computed from the inputs and the group model
//! (`common::api::model`), never from whether the two results differ, and
//! counted. Each test prints, per kernel and in all, `compared N values, M
//! differences, excluded K (by rule: ...)` (past the harness's capture),
//! and fails on any difference, naming the kernel, group, operator, shape,
//! thread, both values and the inputs involved. Without a GPU or the twins
//! (no `CG_TWINS_DIR`, or no `api.ptx` in it) when cg-tests was built, the
//! tests are ignored (`needs a GPU and the CUDA twins`); built with them
//! (or with `CG_REQUIRE_GPU=1`) and run without, each fails.

mod common;

use cg_tests::kernels::*;
use common::api::*;
use cooperative_groups::{DeviceBuffer, Function, Gpu, LaunchConfig, LaunchKind, Module};
use rand::rngs::StdRng;
use rand::Rng;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// Every test of this binary: the last to finish prints the binary's total.
const TESTS: [&str; 10] = [
    "group_queries_agree_with_cuda",
    "shuffles_agree_with_cuda",
    "votes_and_matches_agree_with_cuda",
    "reduce_and_scans_agree_with_cuda_for_integers",
    "reduce_and_scans_agree_with_cuda_for_floats",
    "reduce_and_scans_agree_with_cuda_for_structs",
    "invoke_one_agrees_with_cuda",
    "full_warp_operations_agree_with_cuda",
    "multi_warp_tiles_agree_with_cuda",
    "grid_queries_and_split_barriers_agree_with_cuda",
];

// ------------------------------------------------------------------ rules

/// Why a value is left out of the comparison. Each is decided from the
/// inputs and the group model before the values are looked at; only
/// `BranchGroups` reads what the kernels wrote, and then only the group
/// each formed (its info), not the operation's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rule {
    /// The value reads a lane that does not exist: a static tile runs past
    /// the end of a block whose size is not a multiple of 32, and the
    /// operation reads one of its missing ranks (`Group::partial`,
    /// `shuffle_source`); the mask of such a tile, which the twin finds by
    /// shuffling from every rank, too.
    MissingLane,
    /// A labeled or binary partition of a static tile that runs past the
    /// block's end: CUDA's `match_any`/`ballot` over the tile's mask names
    /// lanes that do not exist.
    PartialParent,
    /// `cg::tiled_partition(parent, n)` returns a `thread_group`, which has
    /// only `thread_rank`, `num_threads` and `sync`: no mask, meta group,
    /// shuffles, votes, collectives or `invoke_one_broadcast`.
    ThreadGroup,
    /// `coalesced_threads()` inside a branch: which threads run the branch
    /// together is the hardware's choice, and the two kernels' groups
    /// differ (their identity words: mask and meta group).
    BranchGroups,
    /// A closure over floats whose sums are not all exact: ours combines
    /// in rank order by design, CUDA's lambda in its own tree order.
    ClosureRounding,
    /// A closure that does not commute (`Affine` composition): CUDA
    /// combines a member's own value with its partner's in tree order.
    NonCommutative,
    /// No CUDA equivalent: `tiled_partition<32>` of a warp tile, which
    /// nvcc refuses at compile time.
    NoEquivalent,
    /// `grid_group::is_valid()` says how the kernel was launched, not what
    /// the group is.
    LaunchProperty,
}

impl Rule {
    fn name(self) -> &'static str {
        match self {
            Rule::MissingLane => "missing lane",
            Rule::PartialParent => "partition of a partial tile",
            Rule::ThreadGroup => "CUDA thread_group",
            Rule::BranchGroups => "branch groups differ",
            Rule::ClosureRounding => "closure over inexact floats",
            Rule::NonCommutative => "non-commutative closure",
            Rule::NoEquivalent => "no CUDA equivalent",
            Rule::LaunchProperty => "launch property",
        }
    }
}

/// Whether every sum of some of `values`, in any order and grouping, is
/// exact in a float of `mantissa` bits: all are integers and their
/// magnitudes add up to less than 2^mantissa.
fn sums_exact(values: impl Iterator<Item = f64>, mantissa: i32) -> bool {
    let mut magnitude = 0.0;
    for v in values {
        if v.fract() != 0.0 {
            return false;
        }
        magnitude += v.abs();
    }
    magnitude < 2f64.powi(mantissa)
}

// ----------------------------------------------------------------- ledger

/// Counts of one kernel's comparisons.
#[derive(Default)]
struct Tally {
    compared: u64,
    differences: u64,
    excluded: BTreeMap<Rule, u64>,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.compared += other.compared;
        self.differences += other.differences;
        for (&rule, &n) in &other.excluded {
            *self.excluded.entry(rule).or_default() += n;
        }
    }

    fn line(&self) -> String {
        let rules: Vec<String> = self
            .excluded
            .iter()
            .map(|(rule, n)| format!("{} {n}", rule.name()))
            .collect();
        format!(
            "compared {} values, {} differences, excluded {} (by rule: {})",
            self.compared,
            self.differences,
            self.excluded.values().sum::<u64>(),
            if rules.is_empty() {
                "none".into()
            } else {
                rules.join(", ")
            }
        )
    }
}

/// Prints past the test harness's capture, so that the counts show in a
/// passing run too.
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The binary's counts so far and how many tests have added theirs.
static BINARY: Mutex<(Tally, usize)> = Mutex::new((
    Tally {
        compared: 0,
        differences: 0,
        excluded: BTreeMap::new(),
    },
    0,
));

/// What one pair of launches ran, for the report.
struct Case<'a> {
    kernel: &'static str,
    group: String,
    op: String,
    geo: &'a Geometry,
}

/// At most this many differences are spelled out in a failure.
const SHOWN: usize = 20;

/// A test's comparisons: counts per kernel and the differences found.
struct Ledger {
    test: &'static str,
    kernels: BTreeMap<&'static str, Tally>,
    differences: Vec<String>,
}

impl Ledger {
    fn new(test: &'static str) -> Self {
        assert!(TESTS.contains(&test), "add `{test}` to TESTS");
        Ledger {
            test,
            kernels: BTreeMap::new(),
            differences: Vec::new(),
        }
    }

    /// Compares what the two kernels wrote, `names.len()` words per thread
    /// in grid-rank order: every word that no rule excludes must be the
    /// same bits. `rule(i, w)` decides for word `w` of thread `i`;
    /// `inputs(i)` describes thread `i`'s inputs for a failure.
    fn compare(
        &mut self,
        case: &Case,
        names: &[String],
        [rust, cuda]: [&[u32]; 2],
        rule: impl Fn(usize, usize) -> Option<Rule>,
        inputs: impl Fn(usize) -> String,
    ) {
        assert_eq!(rust.len(), cuda.len());
        let tally = self.kernels.entry(case.kernel).or_default();
        let words = names.len();
        for (i, (ours, theirs)) in rust.chunks(words).zip(cuda.chunks(words)).enumerate() {
            for (w, (&a, &b)) in ours.iter().zip(theirs).enumerate() {
                if let Some(r) = rule(i, w) {
                    *tally.excluded.entry(r).or_default() += 1;
                    continue;
                }
                tally.compared += 1;
                if a == b {
                    continue;
                }
                tally.differences += 1;
                if self.differences.len() < SHOWN {
                    let per_block = case.geo.b;
                    self.differences.push(format!(
                        "{}: {}, {}, grid {:?} block {:?}, thread {i} (block {}, block rank {}): {}: Rust {a:#010x}, CUDA {b:#010x}; inputs: {}",
                        case.kernel,
                        case.group,
                        case.op,
                        case.geo.grid,
                        case.geo.block,
                        i / per_block,
                        i % per_block,
                        names[w],
                        inputs(i)
                    ));
                }
            }
        }
    }

    /// Prints the counts (per kernel, the test's, the binary's so far) and
    /// fails on any difference.
    fn finish(self) {
        let mut all = Tally::default();
        for (kernel, tally) in &self.kernels {
            report(&format!("{}: {kernel}: {}", self.test, tally.line()));
            all.add(tally);
        }
        report(&format!("{}: in all: {}", self.test, all.line()));
        {
            let mut binary = BINARY.lock().unwrap_or_else(|e| e.into_inner());
            binary.0.add(&all);
            binary.1 += 1;
            let done = if binary.1 == TESTS.len() {
                format!("all {} tests", TESTS.len())
            } else {
                format!("{} of {} tests so far", binary.1, TESTS.len())
            };
            report(&format!("gpu_differential, {done}: {}", binary.0.line()));
        }
        assert!(
            self.differences.is_empty(),
            "{}: {} values differ between the Rust kernels and their CUDA twins; the first:\n{}",
            self.test,
            all.differences,
            self.differences.join("\n")
        );
    }
}

/// `parts` with `per` words each: `part` alone, or `part[k]`.
fn names(parts: &[&str], per: usize) -> Vec<String> {
    parts
        .iter()
        .flat_map(|p| {
            (0..per).map(move |k| {
                if per == 1 {
                    p.to_string()
                } else {
                    format!("{p}[{k}]")
                }
            })
        })
        .collect()
}

/// The words of group info.
fn info_names() -> Vec<String> {
    names(
        &[
            "info thread_rank",
            "info num_threads",
            "info mask",
            "info meta_group_rank",
            "info meta_group_size",
        ],
        1,
    )
}

/// Words as `[0x........ ...]`, on one line.
fn hex(words: &[u32]) -> String {
    let words: Vec<String> = words.iter().map(|w| format!("{w:#010x}")).collect();
    format!("[{}]", words.join(" "))
}

/// Thread `i`'s key bits and, for each member of its group (by the model),
/// `show(member)`.
fn group_inputs(
    keys: &[u32],
    i: usize,
    g: Option<&Group>,
    show: &dyn Fn(usize) -> String,
) -> String {
    let key = keys[i];
    let own = format!(
        "key {key:#x} (split {}, label {}, vote {}, matched {}); {}",
        split(key),
        label(key),
        vote(key),
        matched(key),
        show(i)
    );
    match g {
        None => format!("{own}; no group"),
        Some(g) => {
            let members: Vec<String> = g
                .members
                .iter()
                .map(|&m| format!("{m}: {}", show(m)))
                .collect();
            format!("{own}; members (model): {}", members.join(", "))
        }
    }
}

// ------------------------------------------------------------------ twins

/// The twins' module, loaded once per process (the driver compiles its
/// PTX on load), and the two PTX texts whose parameter lists must agree.
struct Twins {
    module: Module,
    ptx: String,
    ours: &'static str,
}

impl Twins {
    fn load(gpu: &Gpu, path: &Path) -> Twins {
        let ptx = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading the CUDA twins {}: {e}", path.display()));
        let module = Module::from_ptx_file(gpu, path)
            .unwrap_or_else(|e| panic!("loading the CUDA twins {}: {e}", path.display()));
        let ours = PTX
            .select(gpu.info().sm)
            .expect("a PTX module of our kernels for this GPU")
            .source;
        Twins { module, ptx, ours }
    }

    /// The twin of the Rust kernel `name` as the kernel's own typed handle
    /// (see [`twin!`]), once its PTX parameter list is found to be the
    /// kernel's.
    fn handle<H>(&self, name: &str, kind: LaunchKind, make: unsafe fn(Function) -> H) -> H {
        let ours = common::entry_params(self.ours, name)
            .unwrap_or_else(|| panic!("our PTX has no kernel `{name}`"));
        let theirs = common::entry_params(&self.ptx, name)
            .unwrap_or_else(|| panic!("tests/twins/api.cu has no twin `{name}`"));
        assert_eq!(
            theirs, ours,
            "the twin `{name}` must have the Rust kernel's PTX parameter list"
        );
        let function = self.module.function(name, kind).unwrap();
        // SAFETY: the parameter lists were just found equal, one for one.
        unsafe { make(function) }
    }
}

/// The twin of the kernel whose generated handle is `$handle`, as that
/// handle.
macro_rules! twin {
    ($twins:expr, $handle:ty) => {
        $twins.handle(<$handle>::NAME, <$handle>::KIND, <$handle>::from_function)
    };
}

/// The GPU, our kernels and the twins; `None` after a `GPU TEST NOT RUN`
/// notice when there is no GPU or no twins (with `CG_REQUIRE_GPU=1`, a
/// failure).
fn open(test: &str) -> Option<(Gpu, Kernels, &'static Twins)> {
    let gpu = common::real_gpu(test, "a comparison with the CUDA C++ twins")?;
    let path = common::twins_path(test, "api.ptx", "GPU TEST NOT RUN")?;
    static TWINS: OnceLock<Twins> = OnceLock::new();
    let twins = TWINS.get_or_init(|| Twins::load(&gpu, &path));
    let kernels = Kernels::load(&gpu).unwrap();
    Some((gpu, kernels, twins))
}

/// Opens the GPU, the kernels and the twins, or returns from the test.
macro_rules! open_or_return {
    ($name:expr) => {
        match open($name) {
            Some(opened) => opened,
            None => return,
        }
    };
}

/// A trait `$trait` whose `run` launches (and unwraps) any of the
/// `$handle`s, generated handles of kernels that share one signature.
macro_rules! same_signature {
    ($trait:ident: fn $params:tt for $($handle:ty),+) => {
        same_signature!(@trait $trait $params);
        $(same_signature!(@impl $trait $params $handle);)+
    };
    (@trait $trait:ident ($($arg:ident: $ty:ty),*)) => {
        trait $trait {
            #[allow(clippy::too_many_arguments)]
            fn run(&self, cfg: LaunchConfig, $($arg: $ty),*);
        }
    };
    (@impl $trait:ident ($($arg:ident: $ty:ty),*) $handle:ty) => {
        impl $trait for $handle {
            #[allow(clippy::too_many_arguments)]
            fn run(&self, cfg: LaunchConfig, $($arg: $ty),*) {
                self.launch(cfg, $($arg),*).unwrap()
            }
        }
    };
}

same_signature!(ShuffleKernel: fn(
    input: &DeviceBuffer<u32>,
    src: &DeviceBuffer<u32>,
    keys: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
    info: &mut DeviceBuffer<u32>,
    sel: u32,
    op: u32,
    arg: u32
) for ApiShflU32, ApiShflI32, ApiShflF32, ApiShflU64, ApiShflF64, ApiShflMixed12, ApiShflWide32);

same_signature!(CollectiveKernel: fn(
    input: &DeviceBuffer<u32>,
    keys: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
    info: &mut DeviceBuffer<u32>,
    sel: u32,
    op: u32
) for ApiCollectiveU32, ApiCollectiveI32, ApiCollectiveU64, ApiCollectiveF32, ApiCollectiveF64, ApiCollectiveStruct);

/// A kernel beside its twin: `(name, Rust kernel, twin)`, both as `dyn
/// $trait`.
macro_rules! pair {
    ($trait:ident, $k:expr, $twins:expr, $field:ident, $handle:ty) => {
        (
            <$handle>::NAME,
            &$k.$field as &dyn $trait,
            Box::new(twin!($twins, $handle)) as Box<dyn $trait>,
        )
    };
}

// ---------------------------------------------------------------- launching

/// Which kernel of a pair (as an index: 0, 1).
#[derive(Clone, Copy)]
enum Side {
    Rust,
    Cuda,
}

impl Side {
    /// `rust` or `cuda`.
    fn pick<'a, H: ?Sized>(self, rust: &'a H, cuda: &'a H) -> &'a H {
        match self {
            Side::Rust => rust,
            Side::Cuda => cuda,
        }
    }
}

/// What one kernel of a pair wrote: its output and its group info.
struct Written {
    out: Vec<u32>,
    info: Vec<u32>,
}

/// Output and group-info buffers for both kernels of a pair.
struct Buffers {
    sides: [(DeviceBuffer<u32>, DeviceBuffer<u32>); 2],
}

impl Buffers {
    /// `out_words` and `info_words` words for each kernel (a kernel without
    /// info leaves its one-word info buffer alone).
    fn new(gpu: &Gpu, out_words: usize, info_words: usize) -> Self {
        let side = || (poisoned(gpu, out_words), poisoned(gpu, info_words.max(1)));
        Buffers {
            sides: [side(), side()],
        }
    }

    /// Poisons both kernels' buffers, launches each on its own, and
    /// downloads what they wrote: `[Rust, CUDA]`.
    fn run(
        &mut self,
        mut launch: impl FnMut(Side, &mut DeviceBuffer<u32>, &mut DeviceBuffer<u32>),
    ) -> [Written; 2] {
        let [(ro, ri), (co, ci)] = &mut self.sides;
        for (side, out, info) in [
            (Side::Rust, &mut *ro, &mut *ri),
            (Side::Cuda, &mut *co, &mut *ci),
        ] {
            reset(out);
            reset(info);
            launch(side, out, info);
        }
        self.sides.each_ref().map(|(out, info)| Written {
            out: out.to_vec().unwrap(),
            info: info.to_vec().unwrap(),
        })
    }
}

/// `[Rust, CUDA]` outputs of a pair.
fn outs(w: &[Written; 2]) -> [&[u32]; 2] {
    [&w[0].out, &w[1].out]
}

/// `[Rust, CUDA]` group infos of a pair.
fn infos(w: &[Written; 2]) -> [&[u32]; 2] {
    [&w[0].info, &w[1].info]
}

// ----------------------------------------------------------------- groups

/// Selectors whose CUDA group is the `thread_group` of
/// `cg::tiled_partition(parent, n)`.
fn is_thread_group(sel: u32) -> bool {
    matches!(sel, 6..=11 | 27..=38)
}

/// One selector's groups in one launch, as the rules see them.
struct Groups {
    sel: u32,
    /// The model of each thread's group (`None`: it has none).
    model: Vec<Option<Group>>,
    /// The rule, if any, that leaves every word of a thread out.
    whole: Vec<Option<Rule>>,
}

impl Groups {
    /// The groups of selector `sel` (of `with_group` or
    /// `api_group_queries`); `identity` holds, for each kernel, `stride`
    /// words per thread whose words 2..5 are the group's mask and meta
    /// group (the info, or the queries' output): for `coalesced_threads()`
    /// in a branch, the group each kernel formed.
    fn new(sel: u32, geo: &Geometry, keys: &[u32], identity: [&[u32]; 2], stride: usize) -> Self {
        let b = geo.b;
        let model = (0..geo.total)
            .map(|i| match sel {
                BLOCK_SEL => {
                    let r = i % b;
                    Some(Group {
                        members: (i - r..i - r + b).collect(),
                        rank: r as u32,
                        size: b as u32,
                        mask: 0,
                        meta: (0, 0),
                        tile: None,
                    })
                }
                _ => model(sel, i, b, keys),
            })
            .collect();
        let whole = (0..geo.total)
            .map(|i| {
                let partial_parent = |n| static_tile(i, b, n, (0, 0)).partial();
                let id = |words: &[u32]| words[stride * i + 2..stride * i + 5].to_vec();
                match sel {
                    16 => partial_parent(8).then_some(Rule::PartialParent),
                    17 => partial_parent(16).then_some(Rule::PartialParent),
                    BRANCH | BRANCH_LABELED => (split(keys[i])
                        && id(identity[0]) != id(identity[1]))
                    .then_some(Rule::BranchGroups),
                    26 => Some(Rule::NoEquivalent),
                    _ => None,
                }
            })
            .collect();
        Groups { sel, model, whole }
    }

    fn group(&self, i: usize) -> Option<&Group> {
        self.model[i].as_ref()
    }

    /// Whether thread `i`'s group is a static tile running past the block.
    fn partial(&self, i: usize) -> bool {
        self.group(i).is_some_and(Group::partial)
    }

    /// The rule for word `w` of `[thread_rank, num_threads, mask,
    /// meta_group_rank, meta_group_size, ...]` (the info, or the queries).
    fn info_rule(&self, i: usize, w: usize) -> Option<Rule> {
        self.whole[i].or(match w {
            2..=4 if is_thread_group(self.sel) => Some(Rule::ThreadGroup),
            2 if self.partial(i) => Some(Rule::MissingLane),
            _ => None,
        })
    }

    /// The rule for a word of a probe's output: the thread's, then
    /// `ThreadGroup` where CUDA has only a thread_group, then `probe`'s for
    /// the thread's group.
    fn output_rule(&self, i: usize, probe: impl Fn(&Group) -> Option<Rule>) -> Option<Rule> {
        self.whole[i]
            .or(is_thread_group(self.sel).then_some(Rule::ThreadGroup))
            .or_else(|| self.group(i).and_then(probe))
    }

    /// Compares the group info both kernels wrote.
    fn compare_info(&self, ledger: &mut Ledger, case: &Case, written: &[Written; 2], keys: &[u32]) {
        ledger.compare(
            case,
            &info_names(),
            infos(written),
            |i, w| self.info_rule(i, w),
            |i| group_inputs(keys, i, self.group(i), &|m| format!("key {:#x}", keys[m])),
        );
    }
}

/// A probe kernel of `with_group` beside its twin: both write the group
/// info and `words` output words per thread.
struct Probes<'a> {
    gpu: &'a Gpu,
    ledger: &'a mut Ledger,
    kernel: &'static str,
    /// The names of a thread's output words.
    words: Vec<String>,
}

impl Probes<'_> {
    /// For every selector of `with_group` on `geo` with `keys`: launches
    /// both kernels for each `(op, arg, label)` of `runs(sel)` and compares
    /// info and output, excluding output words by `rule(groups, op, arg, i,
    /// w)`; `inputs(groups, i)` describes thread `i`'s inputs.
    fn every_selector(
        &mut self,
        geo: &Geometry,
        keys: &[u32],
        runs: impl Fn(u32) -> Vec<(u32, u32, String)>,
        launch: impl Fn(Side, &mut DeviceBuffer<u32>, &mut DeviceBuffer<u32>, u32, u32, u32),
        rule: impl Fn(&Groups, u32, u32, usize, usize) -> Option<Rule>,
        inputs: impl Fn(&Groups, usize) -> String,
    ) {
        let mut buffers = Buffers::new(
            self.gpu,
            self.words.len() * geo.total,
            INFO_WORDS * geo.total,
        );
        for sel in 0..GROUP_KINDS {
            for (op, arg, op_name) in runs(sel) {
                let written = buffers.run(|side, out, info| launch(side, out, info, sel, op, arg));
                let groups = Groups::new(sel, geo, keys, infos(&written), INFO_WORDS);
                let case = Case {
                    kernel: self.kernel,
                    group: describe_sel(sel),
                    op: op_name,
                    geo,
                };
                groups.compare_info(self.ledger, &case, &written, keys);
                self.ledger.compare(
                    &case,
                    &self.words,
                    outs(&written),
                    |i, w| rule(&groups, op, arg, i, w),
                    |i| inputs(&groups, i),
                );
            }
        }
    }
}

// ---------------------------------------------------------------- queries

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn group_queries_agree_with_cuda() {
    let test = "group_queries_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let cuda = twin!(twins, ApiGroupQueries);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    const WORDS: usize = 6;
    let words = names(
        &[
            "thread_rank",
            "num_threads",
            "mask",
            "meta_group_rank",
            "meta_group_size",
            "partner",
        ],
        1,
    );
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let mut buffers = Buffers::new(&gpu, WORDS * geo.total, 0);
        for sel in 0..QUERY_KINDS {
            let written = buffers.run(|side, out, _| {
                side.pick(&k.api_group_queries, &cuda)
                    .launch(geo.cfg(), &keys_buf, out, sel)
                    .unwrap()
            });
            let groups = Groups::new(sel, &geo, &keys, outs(&written), WORDS);
            let case = Case {
                kernel: ApiGroupQueries::NAME,
                group: describe_sel(sel),
                op: "queries and sync".into(),
                geo: &geo,
            };
            ledger.compare(
                &case,
                &words,
                outs(&written),
                |i, w| match w {
                    5 => groups.whole[i].or_else(|| {
                        let g = groups.group(i)?;
                        g.member((g.rank + 1) % g.size)
                            .is_none()
                            .then_some(Rule::MissingLane)
                    }),
                    _ => groups.info_rule(i, w),
                },
                |i| {
                    group_inputs(&keys, i, groups.group(i), &|m| {
                        format!("key {:#x}", keys[m])
                    })
                },
            );
        }
    }
    ledger.finish();
}

// --------------------------------------------------------------- shuffles

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn shuffles_agree_with_cuda() {
    let test = "shuffles_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let kernels = [
        (1, pair!(ShuffleKernel, k, twins, api_shfl_u32, ApiShflU32)),
        (1, pair!(ShuffleKernel, k, twins, api_shfl_i32, ApiShflI32)),
        (1, pair!(ShuffleKernel, k, twins, api_shfl_f32, ApiShflF32)),
        (2, pair!(ShuffleKernel, k, twins, api_shfl_u64, ApiShflU64)),
        (2, pair!(ShuffleKernel, k, twins, api_shfl_f64, ApiShflF64)),
        (
            3,
            pair!(ShuffleKernel, k, twins, api_shfl_mixed12, ApiShflMixed12),
        ),
        (
            8,
            pair!(ShuffleKernel, k, twins, api_shfl_wide32, ApiShflWide32),
        ),
    ];
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let src: Vec<u32> = (0..geo.total).map(|_| rng.random_range(0..64)).collect();
        let src_buf = gpu.upload(&src).unwrap();
        for &(w, (name, rust, ref cuda)) in &kernels {
            let input = random_words(&mut rng, w * geo.total);
            let input_buf = gpu.upload(&input).unwrap();
            // The same offsets as tests/gpu_api.rs: 1, a random one and the
            // width for shfl_up and shfl_down, two masks for shfl_xor.
            let runs: Vec<Vec<(u32, u32, String)>> = (0..GROUP_KINDS)
                .map(|sel| {
                    let width = match sel {
                        0..=5 => 1 << sel,
                        6..=11 => 1 << (sel - 6),
                        _ => 32,
                    };
                    let mut runs = vec![(0, 0)];
                    for op in [1, 2] {
                        runs.extend([(op, 1), (op, rng.random_range(0..=32)), (op, width)]);
                    }
                    runs.extend([(3, rng.random_range(0..width)), (3, width - 1)]);
                    runs.into_iter()
                        .map(|(op, arg)| {
                            let what =
                                ["shfl(v, src)", "shfl_up", "shfl_down", "shfl_xor"][op as usize];
                            (op, arg, format!("{what} arg {arg}"))
                        })
                        .collect()
                })
                .collect();
            let mut probes = Probes {
                gpu: &gpu,
                ledger: &mut ledger,
                kernel: name,
                words: names(&["value"], w),
            };
            probes.every_selector(
                &geo,
                &keys,
                |sel| runs[sel as usize].clone(),
                |side, out, info, sel, op, arg| {
                    side.pick(rust, &**cuda).run(
                        geo.cfg(),
                        &input_buf,
                        &src_buf,
                        &keys_buf,
                        out,
                        info,
                        sel,
                        op,
                        arg,
                    )
                },
                |groups, op, arg, i, _| {
                    groups.output_rule(i, |g| {
                        (g.partial() && shuffle_source(g, i, op, arg, src[i]) == Some(None))
                            .then_some(Rule::MissingLane)
                    })
                },
                |groups, i| {
                    group_inputs(&keys, i, groups.group(i), &|m| {
                        format!("src {} value {}", src[m], hex(&input[w * m..w * (m + 1)]))
                    })
                },
            );
        }
    }
    ledger.finish();
}

// ---------------------------------------------------------- votes, matches

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn votes_and_matches_agree_with_cuda() {
    let test = "votes_and_matches_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let cuda = twin!(twins, ApiVotes);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let words = names(
        &[
            "any",
            "all",
            "ballot",
            "match_any u32",
            "match_all u32 pred",
            "match_all u32 ranks",
            "match_any u64",
            "match_all u64 pred",
            "match_all u64 ranks",
            "match_any f32",
            "thread_rank",
            "mask",
        ],
        1,
    );
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        for _ in 0..3 {
            let keys = random_keys(&mut rng, geo.b, geo.total);
            let wide = random_wide_matches(&mut rng, geo.total);
            let keys_buf = gpu.upload(&keys).unwrap();
            let wide_buf = gpu.upload(&wide).unwrap();
            let mut probes = Probes {
                gpu: &gpu,
                ledger: &mut ledger,
                kernel: ApiVotes::NAME,
                words: words.clone(),
            };
            probes.every_selector(
                &geo,
                &keys,
                |_| vec![(0, 0, "votes and matches".into())],
                |side, out, info, sel, _, _| {
                    side.pick(&k.api_votes, &cuda)
                        .launch(geo.cfg(), &keys_buf, &wide_buf, out, info, sel)
                        .unwrap()
                },
                // In a partial static tile the missing lanes never vote, so
                // any, all and ballot are CUDA's; the matches and the mask
                // read them.
                |groups, _, _, i, w| {
                    groups.output_rule(i, |g| {
                        (g.partial() && matches!(w, 3..=9 | 11)).then_some(Rule::MissingLane)
                    })
                },
                |groups, i| {
                    group_inputs(&keys, i, groups.group(i), &|m| {
                        format!(
                            "vote {} matched {} wide {:#x}",
                            vote(keys[m]),
                            matched(keys[m]),
                            wide[m]
                        )
                    })
                },
            );
        }
    }
    ledger.finish();
}

// ------------------------------------------------------------ collectives

/// How a collective test draws its inputs: a name and, for a thread, its
/// value's words.
type Draw<'a> = (&'a str, &'a dyn Fn(&mut StdRng) -> Vec<u32>);

/// One collective kernel (values of `w` words) beside its twin, for every
/// shape, input draw, selector and operator `(op, name)`. `launch_rule(op,
/// input)` leaves a whole launch out (closures CUDA cannot judge on those
/// inputs); reductions that read a missing lane are left out by rule,
/// scans (which read only lower ranks) are compared.
#[allow(clippy::too_many_arguments)]
fn run_collectives(
    gpu: &Gpu,
    rng: &mut StdRng,
    ledger: &mut Ledger,
    (name, rust, cuda): (&'static str, &dyn CollectiveKernel, &dyn CollectiveKernel),
    w: usize,
    ops: &[(u32, &str)],
    draws: &[Draw],
    launch_rule: &dyn Fn(u32, &[u32]) -> Option<Rule>,
) {
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        for &(draw_name, draw) in draws {
            let input: Vec<u32> = (0..geo.total).flat_map(|_| draw(rng)).collect();
            assert_eq!(input.len(), w * geo.total);
            let input_buf = gpu.upload(&input).unwrap();
            let launch_rules: BTreeMap<u32, Option<Rule>> = ops
                .iter()
                .map(|&(op, _)| (op, launch_rule(op, &input)))
                .collect();
            let mut probes = Probes {
                gpu,
                ledger: &mut *ledger,
                kernel: name,
                words: names(&["reduce", "inclusive_scan", "exclusive_scan"], w),
            };
            probes.every_selector(
                &geo,
                &keys,
                |_| {
                    ops.iter()
                        .map(|&(op, op_name)| (op, 0, format!("{op_name} on {draw_name} inputs")))
                        .collect()
                },
                |side, out, info, sel, op, _| {
                    side.pick(rust, cuda)
                        .run(geo.cfg(), &input_buf, &keys_buf, out, info, sel, op)
                },
                |groups, op, _, i, word| {
                    groups.output_rule(i, |g| {
                        launch_rules[&op].or((g.partial() && word < w).then_some(Rule::MissingLane))
                    })
                },
                |groups, i| {
                    group_inputs(&keys, i, groups.group(i), &|m| {
                        hex(&input[w * m..w * (m + 1)])
                    })
                },
            );
        }
    }
}

/// The integer operators of the collective probes.
const INTEGER_OPS: [(u32, &str); 7] = [
    (0, "plus"),
    (1, "less"),
    (2, "greater"),
    (3, "bit_and"),
    (4, "bit_or"),
    (5, "bit_xor"),
    (6, "closure a + b"),
];

/// The floating-point operators of the collective probes.
const FLOAT_OPS: [(u32, &str); 4] = [
    (0, "plus"),
    (1, "less"),
    (2, "greater"),
    (6, "closure a + b"),
];

/// The closure of the float probes.
const CLOSURE: u32 = 6;

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn reduce_and_scans_agree_with_cuda_for_integers() {
    let test = "reduce_and_scans_agree_with_cuda_for_integers";
    let (gpu, k, twins) = open_or_return!(test);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let one: Draw = ("integer", &|r| int_words(r, 1));
    let two: Draw = ("integer", &|r| int_words(r, 2));
    for (kernel, w, draw) in [
        (
            pair!(
                CollectiveKernel,
                k,
                twins,
                api_collective_u32,
                ApiCollectiveU32
            ),
            1,
            one,
        ),
        (
            pair!(
                CollectiveKernel,
                k,
                twins,
                api_collective_i32,
                ApiCollectiveI32
            ),
            1,
            one,
        ),
        (
            pair!(
                CollectiveKernel,
                k,
                twins,
                api_collective_u64,
                ApiCollectiveU64
            ),
            2,
            two,
        ),
    ] {
        let (name, rust, cuda) = kernel;
        run_collectives(
            &gpu,
            &mut rng,
            &mut ledger,
            (name, rust, &*cuda),
            w,
            &INTEGER_OPS,
            &[draw],
            &|_, _| None,
        );
    }
    ledger.finish();
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn reduce_and_scans_agree_with_cuda_for_floats() {
    let test = "reduce_and_scans_agree_with_cuda_for_floats";
    let (gpu, k, twins) = open_or_return!(test);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    // General values, and small integers, whose sums are exact in any
    // order: built-in operators are judged on both, the closure on the
    // second.
    let f32_draws: [Draw; 2] = [
        ("general f32", &|r| {
            vec![r.random_range(-1.0f32..1.0).to_bits()]
        }),
        ("integral f32", &|r| {
            vec![(r.random_range(-8..=8) as f32).to_bits()]
        }),
    ];
    let f64_words = |v: f64| vec![v.to_bits() as u32, (v.to_bits() >> 32) as u32];
    let f64_draws: [Draw; 2] = [
        ("general f64", &|r| f64_words(r.random_range(-1.0..1.0))),
        (
            "integral f64",
            &|r| f64_words(r.random_range(-8..=8) as f64),
        ),
    ];
    let (name, rust, cuda) = pair!(
        CollectiveKernel,
        k,
        twins,
        api_collective_f32,
        ApiCollectiveF32
    );
    run_collectives(
        &gpu,
        &mut rng,
        &mut ledger,
        (name, rust, &*cuda),
        1,
        &FLOAT_OPS,
        &f32_draws,
        &|op, input| {
            let exact = sums_exact(input.iter().map(|&x| f32::from_bits(x) as f64), 24);
            (op == CLOSURE && !exact).then_some(Rule::ClosureRounding)
        },
    );
    let (name, rust, cuda) = pair!(
        CollectiveKernel,
        k,
        twins,
        api_collective_f64,
        ApiCollectiveF64
    );
    run_collectives(
        &gpu,
        &mut rng,
        &mut ledger,
        (name, rust, &*cuda),
        2,
        &FLOAT_OPS,
        &f64_draws,
        &|op, input| {
            let values = input
                .chunks(2)
                .map(|w| f64::from_bits(w[0] as u64 | (w[1] as u64) << 32));
            (op == CLOSURE && !sums_exact(values, 53)).then_some(Rule::ClosureRounding)
        },
    );
    ledger.finish();
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn reduce_and_scans_agree_with_cuda_for_structs() {
    let test = "reduce_and_scans_agree_with_cuda_for_structs";
    let (gpu, k, twins) = open_or_return!(test);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let (name, rust, cuda) = pair!(
        CollectiveKernel,
        k,
        twins,
        api_collective_struct,
        ApiCollectiveStruct
    );
    // `Affine` composition (op 0, 2 words) does not commute: CUDA cannot
    // judge it (tests/gpu_api.rs checks it against rank order). `Stats`
    // (op 1, 3 words: wrapping sum, min, max) commutes.
    let affine: Draw = ("affine", &|r| vec![r.random::<u32>() | 1, r.random()]);
    let stats: Draw = ("stats", &|r| random_words(r, 3));
    for (w, op, draw) in [
        (2, (0, "affine composition"), affine),
        (3, (1, "stats merge"), stats),
    ] {
        run_collectives(
            &gpu,
            &mut rng,
            &mut ledger,
            (name, rust, &*cuda),
            w,
            &[op],
            &[draw],
            &|op, _| (op == 0).then_some(Rule::NonCommutative),
        );
    }
    ledger.finish();
}

// ------------------------------------------------------------- invoke_one

/// Each ticket replaced by the lowest grid index that drew the same one:
/// which group draws which number is the order in which the groups reached
/// the counter, so tickets are compared as the groups they name. Poison
/// stays.
fn tickets_as_groups(out: &[u32]) -> Vec<u32> {
    let mut first = BTreeMap::new();
    for (i, &t) in out.iter().enumerate() {
        first.entry(t).or_insert(i as u32);
    }
    out.iter()
        .map(|t| if *t == POISON { POISON } else { first[t] })
        .collect()
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn invoke_one_agrees_with_cuda() {
    let test = "invoke_one_agrees_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let cuda = twin!(twins, ApiInvokeOne);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let mut buffers = Buffers::new(&gpu, geo.total, INFO_WORDS * geo.total);
        for sel in 0..GROUP_KINDS {
            let mut counters = [gpu.filled(2, 0u32).unwrap(), gpu.filled(2, 0u32).unwrap()];
            let written = buffers.run(|side, out, info| {
                side.pick(&k.api_invoke_one, &cuda)
                    .launch(
                        geo.cfg(),
                        &keys_buf,
                        &mut counters[side as usize],
                        out,
                        info,
                        sel,
                    )
                    .unwrap()
            });
            let groups = Groups::new(sel, &geo, &keys, infos(&written), INFO_WORDS);
            let case = Case {
                kernel: ApiInvokeOne::NAME,
                group: describe_sel(sel),
                op: "invoke_one_broadcast(fetch_add), invoke_one(fetch_add)".into(),
                geo: &geo,
            };
            groups.compare_info(&mut ledger, &case, &written, &keys);
            let inputs = |i: usize| {
                group_inputs(&keys, i, groups.group(i), &|m| {
                    format!("key {:#x}", keys[m])
                })
            };
            ledger.compare(
                &case,
                &names(&["ticket (as the lowest grid index holding it)"], 1),
                [
                    &tickets_as_groups(&written[0].out),
                    &tickets_as_groups(&written[1].out),
                ],
                |i, _| groups.output_rule(i, |_| None),
                inputs,
            );
            // The launch's two counters, reported as thread 0's.
            let calls = counters.each_ref().map(|c| c.to_vec().unwrap());
            ledger.compare(
                &case,
                &names(
                    &[
                        "counter: invoke_one_broadcast calls",
                        "counter: invoke_one calls",
                    ],
                    1,
                ),
                [&calls[0], &calls[1]],
                |_, w| (w == 0 && is_thread_group(sel)).then_some(Rule::ThreadGroup),
                |_| "the keys of the whole launch".into(),
            );
        }
    }
    ledger.finish();
}

// ---------------------------------------------------------- full-warp ops

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn full_warp_operations_agree_with_cuda() {
    let test = "full_warp_operations_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let cuda = twin!(twins, ApiFullWarpOps);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let words = names(
        &[
            "shfl(v, 5)",
            "shfl_up(v, 1)",
            "shfl_down(v, 2)",
            "shfl_xor(v, 3)",
            "any(v odd)",
            "all(v odd)",
            "ballot(v odd)",
            "match_any(v & 3)",
            "match_any(wide)",
            "match_all(v & 3) pred",
            "match_all(v & 3) ranks",
            "reduce plus",
            "reduce less",
            "reduce bit_xor",
            "inclusive_scan plus",
            "exclusive_scan plus",
        ],
        1,
    );
    // Blocks of whole warps: the kernel's tile is always a full warp.
    let shapes = SHAPES
        .into_iter()
        .filter(|&(_, block)| volume(block).is_multiple_of(32))
        .chain([((3, 1, 1), (256, 1, 1))]);
    for shape in shapes {
        let geo = Geometry::new(shape);
        let mut buffers = Buffers::new(&gpu, words.len() * geo.total, 0);
        for _ in 0..4 {
            let input = int_words(&mut rng, geo.total);
            let wide: Vec<u64> = (0..geo.total)
                .map(|_| rng.random_range(0..2u64) << 33)
                .collect();
            let (input_buf, wide_buf) = (gpu.upload(&input).unwrap(), gpu.upload(&wide).unwrap());
            let written = buffers.run(|side, out, _| {
                side.pick(&k.api_full_warp_ops, &cuda)
                    .launch(geo.cfg(), &input_buf, &wide_buf, out)
                    .unwrap()
            });
            let case = Case {
                kernel: ApiFullWarpOps::NAME,
                group: "tiled_partition::<32>(block)".into(),
                op: "every warp operation".into(),
                geo: &geo,
            };
            ledger.compare(
                &case,
                &words,
                outs(&written),
                |_, _| None,
                |i| {
                    let warp = i - (i % geo.b) % 32;
                    format!(
                        "v {:#x}, wide {:#x}; the warp's v from grid index {warp}: {}",
                        input[i],
                        wide[i],
                        hex(&input[warp..warp + 32])
                    )
                },
            );
        }
    }
    ledger.finish();
}

// ------------------------------------------------------- multi-warp tiles

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn multi_warp_tiles_agree_with_cuda() {
    let test = "multi_warp_tiles_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let cuda = twin!(twins, ApiMultiWarp);
    let mut rng = common::rng(test);
    let mut ledger = Ledger::new(test);
    let words = names(
        &[
            "thread_rank",
            "num_threads",
            "meta_group_rank",
            "meta_group_size",
            "partner",
            "shfl(v, arg % size)",
            "any(vote)",
            "all(vote)",
            "reduce(v, plus)",
            "reduce(f, plus)",
            "inclusive_scan(f, plus)",
            "exclusive_scan(f, plus)",
            "inclusive_scan(v, plus)",
            "exclusive_scan(v, greater)",
        ],
        1,
    );
    let tiles = [
        "tiled_partition::<64>(block)",
        "tiled_partition::<128>(block)",
        "tiled_partition::<256>(block)",
        "tiled_partition::<512>(block)",
        "tiled_partition::<64>(tiled_partition::<256>(block))",
        "tiled_partition::<32>(tiled_partition::<128>(block))",
    ];
    for shape in MULTI_WARP_SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let input = int_words(&mut rng, geo.total);
        let (keys_buf, input_buf) = (gpu.upload(&keys).unwrap(), gpu.upload(&input).unwrap());
        let mut buffers = Buffers::new(&gpu, words.len() * geo.total, 0);
        // General floats, and small integers whose sums are exact.
        for integral in [false, true] {
            let floats: Vec<f32> = (0..geo.total)
                .map(|_| {
                    if integral {
                        rng.random_range(-8..=8) as f32
                    } else {
                        rng.random_range(-1.0f32..1.0)
                    }
                })
                .collect();
            let floats_buf = gpu.upload(&floats).unwrap();
            for (sel, tile) in (0u32..).zip(tiles) {
                let arg = rng.random_range(0..2048u32);
                let written = buffers.run(|side, out, _| {
                    side.pick(&k.api_multi_warp, &cuda)
                        .launch(geo.cfg(), &input_buf, &floats_buf, &keys_buf, out, sel, arg)
                        .unwrap()
                });
                let case = Case {
                    kernel: ApiMultiWarp::NAME,
                    group: tile.into(),
                    op: format!(
                        "arg {arg}, {} floats",
                        if integral { "integral" } else { "general" }
                    ),
                    geo: &geo,
                };
                ledger.compare(
                    &case,
                    &words,
                    outs(&written),
                    |_, _| None,
                    |i| {
                        format!(
                            "v {:#x}, f {}, key {:#x} (vote {})",
                            input[i],
                            floats[i],
                            keys[i],
                            vote(keys[i])
                        )
                    },
                );
            }
        }
    }
    ledger.finish();
}

// ------------------------------------------- grid queries, split barriers

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with CUDA"
)]
fn grid_queries_and_split_barriers_agree_with_cuda() {
    let test = "grid_queries_and_split_barriers_agree_with_cuda";
    let (gpu, k, twins) = open_or_return!(test);
    let queries = twin!(twins, ApiGridQueries);
    let block_barrier = twin!(twins, ApiBlockSplitBarrier);
    let grid_barrier = twin!(twins, ApiGridSplitBarrier);
    let mut ledger = Ledger::new(test);
    let words = names(
        &[
            "thread_rank lo",
            "thread_rank hi",
            "num_threads lo",
            "num_threads hi",
            "block_rank",
            "num_blocks",
            "thread_index.x",
            "thread_index.y",
            "thread_index.z",
            "dim_threads.x",
            "dim_threads.y",
            "dim_threads.z",
            "dim_blocks.x",
            "dim_blocks.y",
            "dim_blocks.z",
            "is_valid",
        ],
        1,
    );
    let no_inputs = |_| "none".to_string();
    let shapes = SHAPES
        .into_iter()
        .chain([((3, 2, 2), (4, 4, 4)), ((1, 3, 2), (2, 3, 5))]);
    for shape in shapes {
        let geo = Geometry::new(shape);
        let mut buffers = Buffers::new(&gpu, words.len() * geo.total, 0);
        let written = buffers.run(|side, out, _| {
            side.pick(&k.api_grid_queries, &queries)
                .launch(geo.cfg(), out)
                .unwrap()
        });
        let case = Case {
            kernel: ApiGridQueries::NAME,
            group: "this_grid()".into(),
            op: "queries".into(),
            geo: &geo,
        };
        ledger.compare(
            &case,
            &words,
            outs(&written),
            |_, w| (w == 15).then_some(Rule::LaunchProperty),
            no_inputs,
        );
        let mut buffers = Buffers::new(&gpu, geo.total, 0);
        let written = buffers.run(|side, out, _| {
            side.pick(&k.api_block_split_barrier, &block_barrier)
                .launch(geo.cfg(), out)
                .unwrap()
        });
        let case = Case {
            kernel: ApiBlockSplitBarrier::NAME,
            group: "this_thread_block()".into(),
            op: "barrier_arrive, barrier_wait".into(),
            geo: &geo,
        };
        ledger.compare(
            &case,
            &names(&["partner"], 1),
            outs(&written),
            |_, _| None,
            no_inputs,
        );
    }
    // The split grid barrier, cooperatively, on the largest grid both
    // kernels can have resident.
    let rounds = 6u32;
    for threads in [64u32, 256, 1024] {
        let cfg = [k.api_grid_split_barrier.function(), grid_barrier.function()]
            .map(|f| f.cooperative_config(threads, 0).unwrap())
            .into_iter()
            .min_by_key(|c| c.grid.x)
            .unwrap();
        let max = cfg.grid.x * threads;
        let geo = Geometry::new(((cfg.grid.x, 1, 1), (threads, 1, 1)));
        for n in [1u32, 1000, max - 3, max] {
            let mut buffers = Buffers::new(&gpu, (rounds * n) as usize, 0);
            let written = buffers.run(|side, out, _| {
                let mut scratch = poisoned(&gpu, 2 * n as usize);
                side.pick(&k.api_grid_split_barrier, &grid_barrier)
                    .launch(cfg, &mut scratch, out, n, rounds)
                    .unwrap()
            });
            let case = Case {
                kernel: ApiGridSplitBarrier::NAME,
                group: "this_grid()".into(),
                op: format!("n {n}, {rounds} rounds"),
                geo: &geo,
            };
            for r in 0..rounds as usize {
                let round = r * n as usize..(r + 1) * n as usize;
                ledger.compare(
                    &case,
                    &names(&[&format!("round {r}")], 1),
                    outs(&written).map(|out| &out[round.clone()]),
                    |_, _| None,
                    |i| {
                        format!(
                            "what thread {} published in round {r}",
                            (i + 1 + r) % n as usize
                        )
                    },
                );
            }
        }
    }
    ledger.finish();
}
