//! GPU tests of `cg_core::atomic` (kernels/tests/src/api/atomics.rs): every
//! operation, type, ordering and scope, on global, shared and (sm_90, in
//! clusters) distributed shared memory,
//! contended (every thread on one of 3 cells) and uncontended (a cell per
//! thread), judged two ways:
//!
//! * by the serial history every atomic execution must have: for each
//!   cell, the values the operations returned, with the final value, are
//!   the initial value with the values the operations produced (each
//!   intermediate value is read once and written once), bit for bit; and
//!   the final value is the fold of every operand (exact for integers and
//!   float min/max, within rounding for float sums);
//! * by CUDA: the same kernel written with libcu++'s `cuda::atomic_ref`
//!   (tests/twins/atomics.cu, built by nvcc in scripts/gpu-run) runs on
//!   the same inputs and must leave the same final cells (bit for bit where
//!   the result does not depend on the order of the updates).
//!
//! And a message-passing litmus test: data then a release flag in one
//! block, the acquired flag then the data in another, 10^6 times per mode,
//! never stale; and `load_after_sync` after grid barriers, every thread of
//! a full grid reading cells one thread rewrote before each barrier, never
//! stale.

mod common;

use cg_tests::kernels::{
    ApiAtomicF32, ApiAtomicF64, ApiAtomicI32, ApiAtomicI64, ApiAtomicU32, ApiAtomicU64,
    ApiMessagePassing, Kernels,
};
use cooperative_groups::{DeviceBuffer, Gpu, LaunchConfig, LaunchKind};
use rand::rngs::StdRng;
use rand::Rng;
use std::fmt::Debug;

const ORDERS: [&str; 5] = ["Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"];
const SCOPES: [&str; 4] = ["Block", "Cluster", "Device", "System"];
const OPS: [&str; 18] = [
    "fetch_add",
    "fetch_sub",
    "fetch_min",
    "fetch_max",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "swap",
    "compare_exchange loop",
    "fetch_update",
    "add",
    "sub",
    "min",
    "max",
    "and",
    "or",
    "xor",
    "compare_exchange_weak loop",
];

/// A value type of the probes, as the CPU model sees it.
trait Value: Copy + Debug + PartialEq + bytemuck::Pod {
    const NAME: &'static str;
    const INTEGER: bool;
    fn bits(self) -> u64;
    /// The value operation `op` stores, given the old value and the operand
    /// (`None` for swap, whose history is checked as a permutation).
    fn step(op: usize, old: Self, v: Self) -> Option<Self>;
    /// Random operands: small for sums (no overflow of interest), anything
    /// for the bit operations.
    fn operand(rng: &mut StdRng, op: usize) -> Self;
    fn close(a: Self, b: Self, magnitude: f64) -> bool;
    fn magnitude(self) -> f64;
    fn subnormal_or_nan(self) -> bool;
}

macro_rules! int_value {
    ($t:ty, $name:literal) => {
        impl Value for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = true;
            fn bits(self) -> u64 {
                self as u64
            }
            fn step(op: usize, old: Self, v: Self) -> Option<Self> {
                Some(match op {
                    0 | 8 | 9 | 10 | 17 => old.wrapping_add(v),
                    1 | 11 => old.wrapping_sub(v),
                    2 | 12 => old.min(v),
                    3 | 13 => old.max(v),
                    4 | 14 => old & v,
                    5 | 15 => old | v,
                    6 | 16 => old ^ v,
                    _ => return None,
                })
            }
            fn operand(rng: &mut StdRng, op: usize) -> Self {
                match op {
                    4..=6 | 14..=16 => rng.random(),
                    2 | 3 | 12 | 13 | 7 => rng.random(),
                    _ => rng.random_range(0..1000i64) as $t,
                }
            }
            fn close(a: Self, b: Self, _: f64) -> bool {
                a == b
            }
            fn magnitude(self) -> f64 {
                0.0
            }
            fn subnormal_or_nan(self) -> bool {
                false
            }
        }
    };
}
int_value!(u32, "u32");
int_value!(i32, "i32");
int_value!(u64, "u64");
int_value!(i64, "i64");

macro_rules! float_value {
    ($t:ty, $name:literal) => {
        impl Value for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = false;
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn step(op: usize, old: Self, v: Self) -> Option<Self> {
                Some(match op {
                    0 | 8 | 9 | 10 | 17 => old + v,
                    1 | 11 => old + -v,
                    2 | 12 => {
                        if v < old {
                            v
                        } else {
                            old
                        }
                    }
                    3 | 13 => {
                        if old < v {
                            v
                        } else {
                            old
                        }
                    }
                    _ => return None,
                })
            }
            fn operand(rng: &mut StdRng, _: usize) -> Self {
                rng.random_range(-1.0..1.0)
            }
            fn close(a: Self, b: Self, magnitude: f64) -> bool {
                ((a as f64) - (b as f64)).abs() <= magnitude * 64.0 * <$t>::EPSILON as f64
            }
            fn magnitude(self) -> f64 {
                (self as f64).abs()
            }
            fn subnormal_or_nan(self) -> bool {
                self.is_nan() || (self != 0.0 && !self.is_normal())
            }
        }
    };
}
float_value!(f32, "f32");
float_value!(f64, "f64");

/// Whether the type has operation `op`.
fn has_op<T: Value>(op: usize) -> bool {
    T::INTEGER || !matches!(op, 4..=6 | 14..=16)
}

/// Whether the final value of a cell is the same whatever order the
/// updates ran in, bit for bit.
fn order_free<T: Value>(op: usize) -> bool {
    op != 7 && (T::INTEGER || matches!(op, 2 | 3 | 12 | 13))
}

/// One launch of an atomics kernel: `(config, values, cells, olds, ncells,
/// op, order, scope, space)`.
type Launch<'a, T> = dyn Fn(
        LaunchConfig,
        &DeviceBuffer<T>,
        &mut DeviceBuffer<T>,
        &mut DeviceBuffer<T>,
        u32,
        u32,
        u32,
        u32,
        u32,
    ) + 'a;

/// What one case left behind: the final cells and the values returned.
struct Outcome<T> {
    cells: Vec<T>,
    olds: Vec<T>,
}

/// The geometry of every case: 4 blocks of 256 threads, in clusters of 2
/// on distributed shared memory.
const BLOCKS: u32 = 4;
const THREADS: u32 = 256;
const CLUSTER: u32 = 2;
/// The memories, by `space`.
const SPACES: [&str; 3] = ["global", "shared", "distributed shared"];

#[allow(clippy::too_many_arguments)]
fn run_case<T: Value>(
    gpu: &Gpu,
    launch: &Launch<T>,
    values: &[T],
    init: &[T],
    ncells: u32,
    op: usize,
    order: usize,
    scope: usize,
    space: usize,
) -> Outcome<T> {
    let values_buf = gpu.upload(values).unwrap();
    let mut cells = gpu.upload(init).unwrap();
    let mut olds = gpu.upload(values).unwrap();
    let cfg = LaunchConfig::new(BLOCKS, THREADS);
    launch(
        if space == 2 {
            cfg.with_cluster(CLUSTER)
        } else {
            cfg
        },
        &values_buf,
        &mut cells,
        &mut olds,
        ncells,
        op as u32,
        order as u32,
        scope as u32,
        space as u32,
    );
    Outcome {
        cells: cells.to_vec().unwrap(),
        olds: olds.to_vec().unwrap(),
    }
}

/// Checks one cell's history; `members` are the threads that updated it.
fn check_history<T: Value>(
    what: &str,
    op: usize,
    init: T,
    fin: T,
    members: &[usize],
    values: &[T],
    olds: &[T],
) {
    let result_less = (10..=16).contains(&op);
    if op == 7 {
        // swap: the values returned and the final value are the initial
        // value and the operands, in some order.
        let mut have: Vec<u64> = members.iter().map(|&t| olds[t].bits()).collect();
        have.push(fin.bits());
        let mut want: Vec<u64> = members.iter().map(|&t| values[t].bits()).collect();
        want.push(init.bits());
        have.sort_unstable();
        want.sort_unstable();
        assert_eq!(have, want, "{what}: swap history");
        return;
    }
    let fold = members
        .iter()
        .fold(init, |acc, &t| T::step(op, acc, values[t]).unwrap());
    let magnitude = init.magnitude() + members.iter().map(|&t| values[t].magnitude()).sum::<f64>();
    assert!(
        T::close(fin, fold, magnitude),
        "{what}: final value {fin:?}, the operands fold to {fold:?}"
    );
    if T::INTEGER || matches!(op, 2 | 3 | 12 | 13) {
        assert_eq!(fin.bits(), fold.bits(), "{what}: final value");
    }
    if result_less {
        return;
    }
    // Each intermediate value is read once and written once.
    let mut read: Vec<u64> = members.iter().map(|&t| olds[t].bits()).collect();
    read.push(fin.bits());
    let mut written: Vec<u64> = members
        .iter()
        .map(|&t| T::step(op, olds[t], values[t]).unwrap().bits())
        .collect();
    written.push(init.bits());
    if members
        .iter()
        .any(|&t| T::step(op, olds[t], values[t]).unwrap().subnormal_or_nan())
    {
        return; // the hardware flushes subnormal float sums: no exact history
    }
    read.sort_unstable();
    written.sort_unstable();
    assert_eq!(
        read, written,
        "{what}: the returned values are not one serial history"
    );
}

/// Whether CUDA's own form of `op` on `T` in `space` loses updates: the
/// 64-bit `min`, `max`, `and`, `or` and `xor` on distributed shared memory
/// (sm_90: `atom`/`red` `.shared::cluster` with threads of the owning block
/// and of another block at once; cg-core makes them a compare-and-swap
/// loop there, see `cluster_rmw!` in cg-core/src/intrinsics/atom.rs).
fn cuda_loses_updates<T: Value>(op: usize, space: usize) -> bool {
    space == 2 && T::INTEGER && size_of::<T>() == 8 && matches!(op, 2..=6 | 12..=16)
}

/// Every case for one type; returns (cases, cells compared with CUDA).
fn run_type<T: Value>(
    gpu: &Gpu,
    rng: &mut StdRng,
    sm: u32,
    rust: &Launch<T>,
    cuda: Option<&Launch<T>>,
) -> (usize, usize) {
    let total = (BLOCKS * THREADS) as usize;
    let (mut cases, mut compared) = (0, 0);
    // Cells where CUDA's own instruction lost updates, of those compared.
    let mut lost = (0usize, 0usize);
    for op in (0..OPS.len()).filter(|&op| has_op::<T>(op)) {
        for (scope, scope_name) in SCOPES.iter().enumerate() {
            if scope == 1 && sm < 90 {
                continue; // cluster scope: sm_90
            }
            // Every ordering at device scope; relaxed and seq_cst elsewhere.
            let orders: &[usize] = if scope == 2 {
                &[0, 1, 2, 3, 4]
            } else {
                &[0, 4]
            };
            for &order in orders {
                for space in 0..SPACES.len() {
                    // Distributed shared memory: sm_90, and a scope that
                    // holds the cluster's blocks.
                    if space == 2 && (sm < 90 || scope == 0) {
                        continue;
                    }
                    for ncells in [3u32, 64, total as u32] {
                        if space != 0 && ncells > 64 || space == 0 && ncells == 64 {
                            continue; // shared cells: 64 per block at most
                        }
                        let what = format!(
                            "{}::{} {} at {} scope in {} memory, {} cells",
                            T::NAME,
                            OPS[op],
                            ORDERS[order],
                            scope_name,
                            SPACES[space],
                            ncells
                        );
                        let values: Vec<T> = (0..total).map(|_| T::operand(rng, op)).collect();
                        let copies = [1, BLOCKS, BLOCKS / CLUSTER][space];
                        let init: Vec<T> = (0..(ncells * copies) as usize)
                            .map(|_| T::operand(rng, op))
                            .collect();
                        let got =
                            run_case(gpu, rust, &values, &init, ncells, op, order, scope, space);
                        for (c, (&i0, &fin)) in init.iter().zip(&got.cells).enumerate() {
                            let (block, k) = (c / ncells as usize, c % ncells as usize);
                            // Global cells: every thread `t` with `t % ncells
                            // == k`; shared cells: those of the cell's block
                            // (`block` counts copies), by their rank in it;
                            // distributed: those of the cell's cluster, by
                            // their rank in the cluster.
                            let group =
                                [total, THREADS as usize, (THREADS * CLUSTER) as usize][space];
                            let members: Vec<usize> = (0..total)
                                .filter(|&t| t % group % ncells as usize == k && t / group == block)
                                .collect();
                            check_history(
                                &format!("{what}: cell {c}"),
                                op,
                                i0,
                                fin,
                                &members,
                                &values,
                                &got.olds,
                            );
                        }
                        cases += 1;
                        if let (Some(cuda), true) = (cuda, scope != 1) {
                            let twin = run_case(
                                gpu, cuda, &values, &init, ncells, op, order, scope, space,
                            );
                            if cuda_loses_updates::<T>(op, space) {
                                // Ours is a cas loop there, checked above;
                                // count where CUDA's instruction lost updates.
                                let differ = got
                                    .cells
                                    .iter()
                                    .zip(&twin.cells)
                                    .filter(|(a, b)| a.bits() != b.bits())
                                    .count();
                                lost.0 += differ;
                                lost.1 += got.cells.len();
                                continue;
                            }
                            for (c, (a, b)) in got.cells.iter().zip(&twin.cells).enumerate() {
                                if order_free::<T>(op) {
                                    assert_eq!(
                                        a.bits(),
                                        b.bits(),
                                        "{what}: cell {c}: Rust {a:?}, CUDA {b:?}"
                                    );
                                } else if op != 7 {
                                    let m = got.cells.iter().map(|x| x.magnitude()).sum::<f64>()
                                        + values.iter().map(|x| x.magnitude()).sum::<f64>();
                                    assert!(
                                        T::close(*a, *b, m),
                                        "{what}: cell {c}: Rust {a:?}, CUDA {b:?}"
                                    );
                                }
                                compared += 1;
                            }
                            if ncells as usize == total {
                                // Uncontended: every returned value is the
                                // cell's initial value, in both.
                                assert_eq!(
                                    got.olds.iter().map(|x| x.bits()).collect::<Vec<_>>(),
                                    twin.olds.iter().map(|x| x.bits()).collect::<Vec<_>>(),
                                    "{what}: values returned, Rust against CUDA"
                                );
                                compared += total;
                            }
                        }
                    }
                }
            }
        }
    }
    if lost.1 > 0 {
        println!(
            "{}: CUDA's own 64-bit min/max/and/or/xor on distributed shared memory left {} of {} \
             cells different from the serial result (ours: a cas loop there, every cell right)",
            T::NAME,
            lost.0,
            lost.1
        );
    }
    (cases, compared)
}

#[test]
fn atomics_match_their_serial_histories_and_cuda() {
    let gpu = gpu_or_return!("atomics_match_their_serial_histories_and_cuda");
    let k = Kernels::load(&gpu).unwrap();
    let twins = common::twin_module(
        &gpu,
        "atomics_match_their_serial_histories_and_cuda",
        "atomics.ptx",
    );
    let sm = gpu.info().sm;
    let mut rng = common::rng("atomics");
    let (mut cases, mut compared) = (0, 0);
    macro_rules! each_type {
        ($($t:ty, $handle:ident, $field:ident;)*) => {$(
            // SAFETY: tests/twins/atomics.cu declares each type's twin with the
            // Rust kernel's parameters, in order and of the same types.
            let twin = twins.as_ref().map(|m| unsafe {
                $handle::from_function(m.function($handle::NAME, LaunchKind::Plain).unwrap())
            });
            let rust = |c, v: &DeviceBuffer<$t>, cells: &mut DeviceBuffer<$t>, olds: &mut DeviceBuffer<$t>, n, op, o, s, sp| {
                k.$field.launch(c, v, cells, olds, n, op, o, s, sp).unwrap()
            };
            let cuda = twin.as_ref().map(|h| {
                move |c, v: &DeviceBuffer<$t>, cells: &mut DeviceBuffer<$t>, olds: &mut DeviceBuffer<$t>, n, op, o, s, sp| {
                    h.launch(c, v, cells, olds, n, op, o, s, sp).unwrap()
                }
            });
            let (a, b) = run_type::<$t>(&gpu, &mut rng, sm, &rust, cuda.as_ref().map(|c| c as &Launch<$t>));
            cases += a;
            compared += b;
        )*};
    }
    each_type! {
        u32, ApiAtomicU32, api_atomic_u32;
        i32, ApiAtomicI32, api_atomic_i32;
        u64, ApiAtomicU64, api_atomic_u64;
        i64, ApiAtomicI64, api_atomic_i64;
        f32, ApiAtomicF32, api_atomic_f32;
        f64, ApiAtomicF64, api_atomic_f64;
    }
    println!(
        "atomics: {cases} cases checked against their serial histories; {compared} final cells and returned values compared with CUDA ({})",
        if twins.is_some() { "twins loaded" } else { "NO TWINS" }
    );
}

#[test]
fn message_passing_never_sees_stale_data() {
    let gpu = gpu_or_return!("message_passing_never_sees_stale_data");
    let k = Kernels::load(&gpu).unwrap();
    let twin = common::twin_module(&gpu, "message_passing_never_sees_stale_data", "atomics.ptx")
        // SAFETY: tests/twins/atomics.cu declares the twin with
        // `api_message_passing`'s parameters, in order and of the same types.
        .map(|m| unsafe {
            ApiMessagePassing::from_function(
                m.function(ApiMessagePassing::NAME, LaunchKind::Cooperative)
                    .unwrap(),
            )
        });
    let mut cfg = k
        .api_message_passing
        .function()
        .cooperative_config(32, 0)
        .unwrap();
    cfg.grid.x -= cfg.grid.x % 2;
    let pairs = cfg.grid.x / 2;
    let trials = if common::quick() {
        64
    } else {
        1_000_000u32.div_ceil(pairs)
    };
    let slots = (pairs * trials) as usize;
    let mut data = gpu.filled(slots, 0u32).unwrap();
    let mut flags = gpu.filled(slots, 0u32).unwrap();
    let mut stale = gpu.filled(pairs as usize, u32::MAX).unwrap();
    for (side, handle) in [
        ("Rust", Some(&k.api_message_passing)),
        ("CUDA", twin.as_ref()),
    ] {
        let Some(h) = handle else { continue };
        for (mode, name) in ["release/acquire", "seq_cst", "fences"].iter().enumerate() {
            data.copy_from(&vec![0; slots]).unwrap();
            flags.copy_from(&vec![0; slots]).unwrap();
            stale.copy_from(&vec![u32::MAX; pairs as usize]).unwrap();
            h.launch(cfg, &mut data, &mut flags, &mut stale, trials, mode as u32)
                .unwrap();
            let misses = stale.to_vec().unwrap();
            assert!(
                misses.iter().all(|&m| m != u32::MAX),
                "{side} {name}: a consumer did not report"
            );
            let total: u64 = misses.iter().map(|&m| m as u64).sum();
            println!(
                "message passing ({side}, {name}): {} trials over {pairs} block pairs, {total} stale reads",
                pairs as u64 * trials as u64
            );
            assert_eq!(
                total, 0,
                "{side} {name}: stale data after acquiring the flag"
            );
        }
    }
}

#[test]
fn loads_after_a_barrier_see_what_was_stored_before_it() {
    let gpu = gpu_or_return!("loads_after_a_barrier_see_what_was_stored_before_it");
    let k = Kernels::load(&gpu).unwrap();
    // Each round is two grid barriers: the simulator takes tens of
    // milliseconds a round, the GPU microseconds.
    let rounds = if gpu.is_simulator() {
        20
    } else if common::quick() {
        50
    } else {
        2_000
    };
    for threads in [256, 96] {
        let mut cfg = k
            .api_load_after_sync
            .function()
            .cooperative_config(threads, 0)
            .unwrap();
        if common::quick() {
            // Under the sanitizers (gpu-run sets CG_QUICK): a few blocks, so
            // that racecheck finishes; the full grid otherwise.
            cfg.grid.x = cfg.grid.x.min(8);
        }
        let n = (cfg.num_blocks() * cfg.block_threads()) as usize;
        let mut cells = gpu.filled(64, 0u32).unwrap();
        let mut misses = gpu.filled(n, u32::MAX).unwrap();
        k.api_load_after_sync
            .launch(cfg, &mut cells, &mut misses, rounds)
            .unwrap();
        let got = misses.to_vec().unwrap();
        assert!(
            got.iter().all(|&m| m != u32::MAX),
            "a thread did not report ({cfg:?})"
        );
        let total: u64 = got.iter().map(|&m| m as u64).sum();
        println!(
            "load_after_sync: {rounds} barriers, {n} threads ({cfg:?}), each reading 68 cells: {total} stale reads"
        );
        assert_eq!(total, 0, "stale reads after a barrier ({cfg:?})");
    }
}
