//! The offline checks of what ptxas makes of this project's modules. Each
//! module is assembled with `ptxas` and read back with `nvdisasm`
//! (`cg_builder::sass`), and every loop that strides over a buffer — as a
//! newcomer writes it (`kernels/tests/src/loops.rs`) or as the samples
//! do — must issue several global loads per iteration, as nvcc's unrolled
//! loops do, not one load that each iteration waits for. A loop whose
//! loads depend on each other is the case the check must report. And no
//! kernel may hold the ptxas 13.0 miscompile of a predicate set after its
//! use ([`KernelSass::late_predicates`]); the module it was found in is
//! the case that check must report.
//!
//! [`KernelSass::late_predicates`]: cg_builder::sass::KernelSass::late_predicates

use cg_builder::sass::Sass;
use cooperative_groups::PtxSet;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The fewest loads an iteration of a strided loop may issue.
const LOADS_IN_FLIGHT: u32 = 4;

/// The strided loops of the test kernels written as a newcomer would, with
/// the gathers through host-checked `Indices` and the CSR rows summed by
/// `Row::fold`. (`loop_checked_gather`, whose check of `x[idx[k]]` depends on a load
/// in the loop, is not among them: LLVM keeps it at one load per
/// iteration; `a_checked_gather_stays_rolled` records it.)
const NEWCOMER_LOOPS: [&str; 8] = [
    "loop_validated_gather",
    "loop_csr_rows_fold",
    "loop_csr_rows_u64",
    "loop_block_stride_chunk",
    "loop_while_chunk",
    "loop_grid_stride",
    "loop_step_by",
    "loop_tile_stride",
];

/// The samples' kernels whose work is a strided loop over an input.
const SAMPLE_LOOPS: [&str; 4] = [
    "grid_sum",
    "sum_block_partials",
    "sum_partials",
    "guide_chunk_sums",
];

/// Each module's SASS by (its text's address, architecture).
type SassCache = HashMap<(usize, u32), Arc<Sass>>;

/// The SASS of `set`'s `sm_<sm>` module, assembled once for all tests
/// (ptxas takes about a minute over the test kernels' module).
fn sass(set: &PtxSet, sm: u32) -> Arc<Sass> {
    static CACHE: OnceLock<Mutex<SassCache>> = OnceLock::new();
    let module = set
        .modules()
        .iter()
        .find(|m| m.sm == sm)
        .unwrap_or_else(|| panic!("no sm_{sm} module"));
    let key = (module.source.as_ptr() as usize, sm);
    // Held while assembling: a second test waits for the first's SASS.
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache
        .entry(key)
        .or_insert_with(|| Arc::new(Sass::of(module.source, sm).unwrap_or_else(|e| panic!("{e}"))))
        .clone()
}

fn check(set: &PtxSet, kernels: &[&str]) {
    for sm in [80, 90] {
        let sass = sass(set, sm);
        for name in kernels {
            let k = sass
                .kernel(name)
                .unwrap_or_else(|| panic!("no kernel {name} in the sm_{sm} module"));
            let loads = k.most_loads_per_iteration();
            println!("sm_{sm} {name}: {loads} loads per iteration");
            assert!(
                loads >= LOADS_IN_FLIGHT,
                "sm_{sm}: a strided loop of {name} issues {loads} load(s) per iteration, fewer than \
                 {LOADS_IN_FLIGHT}: the build no longer unrolls it (cg_builder::compile::LOOP_FLAGS)\n{}",
                k.loop_report()
            );
        }
    }
}

#[test]
fn newcomer_strided_loops_issue_several_loads_per_iteration() {
    check(&cg_tests::kernels::PTX, &NEWCOMER_LOOPS);
}

#[test]
fn the_samples_strided_loops_issue_several_loads_per_iteration() {
    check(&cg_samples::kernels::PTX, &SAMPLE_LOOPS);
}

/// `name`'s loop is reported at `loads` loads per iteration: one
/// element's.
fn rolled(name: &str, loads: u32) {
    for sm in [80, 90] {
        let sass = sass(&cg_tests::kernels::PTX, sm);
        let k = sass.kernel(name).unwrap();
        assert_eq!(
            k.most_loads_per_iteration(),
            loads,
            "sm_{sm}: {}",
            k.loop_report()
        );
    }
}

#[test]
fn a_loop_of_dependent_loads_is_reported_at_one_load_per_iteration() {
    rolled("loop_pointer_chase", 1);
}

/// What the build does not unroll yet: a gather whose bounds check
/// depends on the index it loads. When this fails because the loop
/// unrolls, move the kernel to `NEWCOMER_LOOPS`.
#[test]
fn a_checked_gather_stays_rolled() {
    // Its index, then its value.
    rolled("loop_checked_gather", 2);
}

/// A `for` loop over a CSR row (`Row::next`): the count's test, then the
/// `Option`'s, with the reads between them, stays rolled (no jump threading
/// on NVPTX); `Row::fold` is the form that unrolls. When this fails
/// because the loop unrolls, move the kernel to `NEWCOMER_LOOPS`.
#[test]
fn a_for_loop_over_a_csr_row_stays_rolled() {
    // The column index, the value, the gathered value.
    rolled("loop_csr_rows_for", 3);
}

/// What the build does not unroll yet either: `Output::grid_stride` with a
/// checked read `x[i]` of a slice the loop's bound does not cover (a second
/// exit before the store). The same loop with the read unchecked, or with no
/// read, unrolls. When this fails because the loop unrolls, move the
/// kernel to `NEWCOMER_LOOPS`.
#[test]
fn a_checked_read_in_an_output_loop_stays_rolled() {
    // `x[i]`, then `out[i]`.
    rolled("loop_output_grid_stride", 2);
}

/// Every kernel of `set`'s modules (sm_80 and sm_90) without an
/// instruction predicated on a register set only after it.
fn no_late_predicates(set: &PtxSet, what: &str) {
    for sm in [80, 90] {
        let sass = sass(set, sm);
        let found = sass.late_predicates();
        println!(
            "sm_{sm} {what}: {} kernels, {} late predicates",
            sass.kernels().len(),
            found.len()
        );
        assert!(
            found.is_empty(),
            "sm_{sm} {what}: instructions predicated on a register set only after them (the ptxas \
             13.0 miscompile of docs/probes/unroll-remainder; cg_core's block collectives issue one \
             `redux.sync` a reduction to avoid it):\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn no_test_kernel_runs_on_a_predicate_set_after_it() {
    no_late_predicates(&cg_tests::kernels::PTX, "test kernels");
}

#[test]
fn no_sample_kernel_runs_on_a_predicate_set_after_it() {
    no_late_predicates(&cg_samples::kernels::PTX, "samples");
}

#[test]
fn no_primitive_kernel_runs_on_a_predicate_set_after_it() {
    no_late_predicates(&cg_primitives::kernels::PTX, "primitives");
}

/// The planted case: the corpus's `exclusive_scan` as built before its
/// block reductions shared one `redux.sync` (two a reduction: a whole
/// warp's and a partial warp's), which summed stale registers on an H200.
/// When ptxas no longer miscompiles it, this fails: then the check stays,
/// and this test's module documents the ptxas that did.
#[test]
fn the_two_redux_build_of_the_corpus_scan_is_reported() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/probes/unroll-remainder/module-default.ptx"
    );
    let ptx = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let sass = Sass::of(&ptx, 90).unwrap_or_else(|e| panic!("{e}"));
    let found = sass.kernel("exclusive_scan").unwrap().late_predicates();
    println!("{found:?}");
    assert!(
        found.iter().any(|p| p.instruction.contains("REDUX")),
        "this ptxas no longer predicates the scan's `REDUX` on a register it sets after it: {found:?}"
    );
}
