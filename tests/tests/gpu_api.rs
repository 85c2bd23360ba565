//! GPU tests of the Cooperative Groups API (`kernels/tests/src/api`): group
//! queries and `sync`, shuffles, votes and matches, reduce and scans,
//! `block_reduce`, `invoke_one` and the split grid barrier, on every tile
//! size, dynamic tiles and coalesced groups, in full and partial warps and
//! 1-D to 3-D blocks. Inputs are random (the seed is printed), outputs are
//! poisoned first, and every thread's result is compared with a CPU model
//! of CUDA's semantics. Only what CUDA defines is checked: in a static tile
//! that runs past the block's end, operations that read a missing lane are
//! skipped.

mod common;

use cg_tests::kernels::Kernels;
use common::api::*;
use cooperative_groups::{DeviceBuffer, Gpu, LaunchConfig};
use rand::rngs::StdRng;
use rand::Rng;
use std::fmt::Debug;
use std::time::Duration;

/// Every thread's group for selector `sel`, checked against the `info`
/// the kernel wrote (`[rank, size, mask, meta rank, meta size]` per thread).
/// For `coalesced_threads()` in a branch, which threads run together is up
/// to the hardware: the group is taken from `info` after checking that it
/// holds the caller, only threads that took the branch, and that every
/// member reports the same mask.
fn groups(sel: u32, b: usize, keys: &[u32], info: &[u32], what: &str) -> Vec<Option<Group>> {
    let total = keys.len();
    let mut out = Vec::with_capacity(total);
    let mut narrower = 0;
    for i in 0..total {
        let got = &info[INFO_WORDS * i..INFO_WORDS * (i + 1)];
        let ctx = || {
            format!(
                "{what}: {} thread {i} (block rank {}, block of {b})",
                describe_sel(sel),
                i % b
            )
        };
        let Some(mut g) = model(sel, i, b, keys) else {
            assert!(
                got.iter().all(|&w| w == POISON),
                "{}: no group, but info was written: {got:x?}",
                ctx()
            );
            out.push(None);
            continue;
        };
        if sel == BRANCH || sel == BRANCH_LABELED {
            let mask = got[2];
            let warp0 = i - (i % b) % 32;
            let own = 1u32 << ((i % b) % 32);
            assert!(
                mask & own != 0 && mask & !g.mask == 0,
                "{}: coalesced_threads() mask {mask:#010x} must hold the caller ({own:#010x}) and only threads of the branch ({:#010x})",
                ctx(),
                g.mask
            );
            if mask != g.mask {
                // Which threads ran together is up to the hardware: the
                // group is taken from the info (for a labeled partition
                // of it, its meta group too).
                narrower += 1;
                let members: Vec<usize> = (0..32)
                    .filter(|l| mask >> l & 1 != 0)
                    .map(|l| warp0 + l)
                    .collect();
                let meta = if sel == BRANCH {
                    (0, 1)
                } else {
                    (got[3], got[4])
                };
                g = coalesced(i, members, meta, b);
            }
        }
        let want = [g.rank, g.size, g.mask, g.meta.0, g.meta.1];
        assert_eq!(
            got,
            want,
            "{}: [thread_rank, num_threads, mask, meta_group_rank, meta_group_size]",
            ctx()
        );
        out.push(Some(g));
    }
    for (i, g) in out.iter().enumerate() {
        if let Some(g) = g {
            for &m in &g.members {
                let theirs = info[INFO_WORDS * m + 2];
                assert_eq!(
                    theirs,
                    g.mask,
                    "{what}: {}: thread {i} and its member {m} disagree on the group",
                    describe_sel(sel)
                );
            }
        }
    }
    if narrower > 0 {
        println!("{what}: coalesced_threads() in a branch was narrower than the branch for {narrower} threads (allowed)");
    }
    out
}

// ------------------------------------------------------------- queries

#[test]
fn group_queries_and_sync_match_cuda_for_every_group_kind() {
    let gpu = gpu_or_return!("group_queries_and_sync_match_cuda_for_every_group_kind");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("group_queries");
    const WORDS: usize = 6;
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let mut out = poisoned(&gpu, WORDS * geo.total);
        for sel in 0..QUERY_KINDS {
            let what = format!("queries grid={:?} block={:?}", geo.grid, geo.block);
            reset(&mut out);
            k.api_group_queries
                .launch(geo.cfg(), &keys_buf, &mut out, sel)
                .unwrap();
            let got = out.to_vec().unwrap();
            for i in 0..geo.total {
                let g = &got[WORDS * i..WORDS * (i + 1)];
                let r = (i % geo.b) as u32;
                let ctx = format!("{what}: {} thread {i} (block rank {r})", describe_sel(sel));
                if sel == BLOCK_SEL {
                    let b = geo.b as u32;
                    assert_eq!(
                        g,
                        [r, b, 0, 0, 0, (r + 1) % b + 1],
                        "{ctx}: [rank, size, -, -, -, partner]"
                    );
                    continue;
                }
                let Some(m) = model(sel, i, geo.b, &keys) else {
                    assert!(
                        g.iter().all(|&w| w == POISON),
                        "{ctx}: no group, but output was written"
                    );
                    continue;
                };
                if sel == BRANCH || sel == BRANCH_LABELED {
                    // The model cannot know which threads ran together;
                    // the op tests check that group through its info.
                    continue;
                }
                assert_eq!(
                    &g[..5],
                    [m.rank, m.size, m.mask, m.meta.0, m.meta.1],
                    "{ctx}: [thread_rank, num_threads, mask, meta_group_rank, meta_group_size]"
                );
                let next = (m.rank + 1) % m.size;
                if let Some(p) = m.member(next) {
                    assert_eq!(
                        g[5],
                        (p % geo.b) as u32 + 1,
                        "{ctx}: after sync(&group), the write of rank {next} (block rank {})",
                        p % geo.b
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------ shuffles

/// The shuffle kernels, by element size in words.
const SHUFFLE_TYPES: [(&str, usize); 7] = [
    ("u32", 1),
    ("i32", 1),
    ("f32", 1),
    ("u64", 2),
    ("f64", 2),
    ("Mixed12", 3),
    ("Wide32", 8),
];

#[allow(clippy::too_many_arguments)]
fn launch_shuffle(
    k: &Kernels,
    ty: &str,
    cfg: LaunchConfig,
    input: &DeviceBuffer<u32>,
    src: &DeviceBuffer<u32>,
    keys: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
    info: &mut DeviceBuffer<u32>,
    sel: u32,
    op: u32,
    arg: u32,
) {
    let r = match ty {
        "u32" => k
            .api_shfl_u32
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "i32" => k
            .api_shfl_i32
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "f32" => k
            .api_shfl_f32
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "u64" => k
            .api_shfl_u64
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "f64" => k
            .api_shfl_f64
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "Mixed12" => k
            .api_shfl_mixed12
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        "Wide32" => k
            .api_shfl_wide32
            .launch(cfg, input, src, keys, out, info, sel, op, arg),
        _ => unreachable!(),
    };
    r.unwrap();
}

#[test]
fn shuffles_match_cuda_for_every_type_group_and_offset() {
    let gpu = gpu_or_return!("shuffles_match_cuda_for_every_type_group_and_offset");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("shuffles");
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let src: Vec<u32> = (0..geo.total).map(|_| rng.random_range(0..64)).collect();
        let src_buf = gpu.upload(&src).unwrap();
        let mut info = poisoned(&gpu, INFO_WORDS * geo.total);
        for (ty, w) in SHUFFLE_TYPES {
            let input = random_words(&mut rng, w * geo.total);
            let input_buf = gpu.upload(&input).unwrap();
            let mut out = poisoned(&gpu, w * geo.total);
            for sel in 0..GROUP_KINDS {
                let width = match sel {
                    0..=5 => 1 << sel,
                    6..=11 => 1 << (sel - 6),
                    _ => 32,
                };
                let mut runs = vec![(0u32, 0u32)];
                for op in [1, 2] {
                    runs.push((op, 1));
                    runs.push((op, rng.random_range(0..=32)));
                    runs.push((op, width));
                }
                runs.push((3, rng.random_range(0..width)));
                runs.push((3, width - 1));
                for (op, arg) in runs {
                    let what = format!(
                        "shuffle<{ty}> op={} arg={arg} grid={:?} block={:?}",
                        ["shfl(src)", "shfl_up", "shfl_down", "shfl_xor"][op as usize],
                        geo.grid,
                        geo.block
                    );
                    reset(&mut out);
                    reset(&mut info);
                    launch_shuffle(
                        &k,
                        ty,
                        geo.cfg(),
                        &input_buf,
                        &src_buf,
                        &keys_buf,
                        &mut out,
                        &mut info,
                        sel,
                        op,
                        arg,
                    );
                    let got = out.to_vec().unwrap();
                    let info_v = info.to_vec().unwrap();
                    let groups = groups(sel, geo.b, &keys, &info_v, &what);
                    for (i, g) in groups.iter().enumerate() {
                        let got_i = &got[w * i..w * (i + 1)];
                        let ctx = || {
                            format!(
                                "{what}: {} thread {i} (block rank {}), src {}",
                                describe_sel(sel),
                                i % geo.b,
                                src[i]
                            )
                        };
                        let source = g
                            .as_ref()
                            .and_then(|g| shuffle_source(g, i, op, arg, src[i]));
                        match source {
                            None => assert!(
                                got_i.iter().all(|&x| x == POISON),
                                "{}: nothing to shuffle, but output was written",
                                ctx()
                            ),
                            Some(None) => {}
                            Some(Some(m)) => assert_eq!(
                                got_i,
                                &input[w * m..w * (m + 1)],
                                "{}: expected the value of grid thread {m}",
                                ctx()
                            ),
                        }
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------ votes, matches

#[test]
fn votes_and_matches_match_cuda_for_every_group_kind() {
    let gpu = gpu_or_return!("votes_and_matches_match_cuda_for_every_group_kind");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("votes");
    const WORDS: usize = 12;
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        for _ in 0..3 {
            let keys = random_keys(&mut rng, geo.b, geo.total);
            let wide = random_wide_matches(&mut rng, geo.total);
            let keys_buf = gpu.upload(&keys).unwrap();
            let wide_buf = gpu.upload(&wide).unwrap();
            let mut out = poisoned(&gpu, WORDS * geo.total);
            let mut info = poisoned(&gpu, INFO_WORDS * geo.total);
            for sel in 0..GROUP_KINDS {
                let what = format!("votes grid={:?} block={:?}", geo.grid, geo.block);
                reset(&mut out);
                reset(&mut info);
                k.api_votes
                    .launch(geo.cfg(), &keys_buf, &wide_buf, &mut out, &mut info, sel)
                    .unwrap();
                let got = out.to_vec().unwrap();
                let groups = groups(sel, geo.b, &keys, &info.to_vec().unwrap(), &what);
                for (i, g) in groups.iter().enumerate() {
                    let got_i = &got[WORDS * i..WORDS * (i + 1)];
                    let ctx = format!(
                        "{what}: {} thread {i} (block rank {})",
                        describe_sel(sel),
                        i % geo.b
                    );
                    let Some(g) = g else {
                        assert!(
                            got_i.iter().all(|&x| x == POISON),
                            "{ctx}: no group, but output was written"
                        );
                        continue;
                    };
                    let ranks = |f: &dyn Fn(usize) -> bool| {
                        g.members
                            .iter()
                            .enumerate()
                            .fold(0u32, |acc, (k, &m)| acc | ((f(m) as u32) << k))
                    };
                    let ballot = ranks(&|m| vote(keys[m]));
                    if g.partial() {
                        // The README's partial-warp rule, CUDA's result:
                        // the missing lanes never vote, so `all` is false;
                        // `any` and `ballot` see the lanes that exist.
                        assert_eq!(
                            &got_i[..3],
                            [(ballot != 0) as u32, 0, ballot],
                            "{ctx}: partial static tile: [any, all, ballot]"
                        );
                        continue;
                    }
                    let m32 = ranks(&|m| matched(keys[m]) == matched(keys[i]));
                    let m64 = ranks(&|m| wide[m] == wide[i]);
                    let all = |same: u32| {
                        if same == g.all_ranks() {
                            [1, g.all_ranks()]
                        } else {
                            [0, 0]
                        }
                    };
                    let all32 = all(m32);
                    let all64 = all(m64);
                    let want = [
                        (ballot != 0) as u32,
                        (ballot == g.all_ranks()) as u32,
                        ballot,
                        m32,
                        all32[0],
                        all32[1],
                        m64,
                        all64[0],
                        all64[1],
                        m32,
                        g.rank,
                        g.mask,
                    ];
                    assert_eq!(
                        got_i, want,
                        "{ctx}: [any, all, ballot, match_any u32, match_all u32 (found, ranks), match_any u64, match_all u64 (found, ranks), match_any f32, rank, mask]"
                    );
                }
            }
        }
    }
}

// --------------------------------------------------------- collectives

/// A value type of the collective probes, read from its words.
trait Val: Copy + Debug {
    const WORDS: usize;
    fn from_words(w: &[u32]) -> Self;
    fn zero_bits(w: &[u32]) -> bool {
        w.iter().all(|&x| x == 0)
    }
    /// Whether `got` is `want` (exactly, or for float sums within the
    /// rounding of summing `magnitude`).
    fn close(got: Self, want: Self, magnitude: f64, exact: bool) -> bool;
    fn abs(self) -> f64 {
        0.0
    }
}

macro_rules! int_val {
    ($t:ty, $words:expr) => {
        impl Val for $t {
            const WORDS: usize = $words;
            fn from_words(w: &[u32]) -> Self {
                let mut b = [0u8; 8];
                for (k, x) in w.iter().enumerate() {
                    b[4 * k..4 * k + 4].copy_from_slice(&x.to_le_bytes());
                }
                <$t>::from_le_bytes(b[..std::mem::size_of::<$t>()].try_into().unwrap())
            }
            fn close(got: Self, want: Self, _: f64, _: bool) -> bool {
                got == want
            }
        }
    };
}
int_val!(u32, 1);
int_val!(i32, 1);
int_val!(u64, 2);

impl Val for f32 {
    const WORDS: usize = 1;
    fn from_words(w: &[u32]) -> Self {
        f32::from_bits(w[0])
    }
    fn close(got: Self, want: Self, magnitude: f64, exact: bool) -> bool {
        if exact {
            got.to_bits() == want.to_bits()
        } else {
            ((got as f64) - (want as f64)).abs() <= magnitude * 64.0 * f32::EPSILON as f64 + 1e-30
        }
    }
    fn abs(self) -> f64 {
        self.abs() as f64
    }
}

impl Val for f64 {
    const WORDS: usize = 2;
    fn from_words(w: &[u32]) -> Self {
        f64::from_bits(w[0] as u64 | (w[1] as u64) << 32)
    }
    fn close(got: Self, want: Self, magnitude: f64, exact: bool) -> bool {
        if exact {
            got.to_bits() == want.to_bits()
        } else {
            (got - want).abs() <= magnitude * 64.0 * f64::EPSILON + 1e-300
        }
    }
    fn abs(self) -> f64 {
        self.abs()
    }
}

/// `Affine` of kernels/tests/src/api/collectives.rs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Affine(u32, u32);

fn then(f: Affine, g: Affine) -> Affine {
    Affine(
        g.0.wrapping_mul(f.0),
        g.0.wrapping_mul(f.1).wrapping_add(g.1),
    )
}

impl Val for Affine {
    const WORDS: usize = 2;
    fn from_words(w: &[u32]) -> Self {
        Affine(w[0], w[1])
    }
    fn close(got: Self, want: Self, _: f64, _: bool) -> bool {
        got == want
    }
}

/// `Stats` of kernels/tests/src/api/collectives.rs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stats(u32, u32, u32);

fn merge(x: Stats, y: Stats) -> Stats {
    Stats(x.0.wrapping_add(y.0), x.1.min(y.1), x.2.max(y.2))
}

impl Val for Stats {
    const WORDS: usize = 3;
    fn from_words(w: &[u32]) -> Self {
        Stats(w[0], w[1], w[2])
    }
    fn close(got: Self, want: Self, _: f64, _: bool) -> bool {
        got == want
    }
}

/// CUDA's `cg::less`: `b < a ? b : a`.
fn less<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

/// CUDA's `cg::greater`: `a < b ? b : a`.
fn greater<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// Checks `[reduce, inclusive_scan, exclusive_scan]` of every thread with
/// a complete group against folds of `op` over its members' inputs in rank
/// order, and that every member got the same bits from `reduce`.
fn check_collectives<T: Val>(
    what: &str,
    sel: u32,
    groups: &[Option<Group>],
    input: &[u32],
    got: &[u32],
    op: &BinOp<T>,
    exact: bool,
) {
    let w = T::WORDS;
    let value = |m: usize| T::from_words(&input[w * m..w * (m + 1)]);
    for (i, g) in groups.iter().enumerate() {
        let got_i = &got[3 * w * i..3 * w * (i + 1)];
        let ctx = format!("{what}: {} thread {i}", describe_sel(sel));
        let Some(g) = g else {
            assert!(
                got_i.iter().all(|&x| x == POISON),
                "{ctx}: no group, but output was written"
            );
            continue;
        };
        if g.partial() {
            continue;
        }
        let xs: Vec<T> = g.members.iter().map(|&m| value(m)).collect();
        let fold = |xs: &[T]| xs[1..].iter().fold(xs[0], |acc, &x| op(acc, x));
        let mag = |xs: &[T]| xs.iter().map(|x| x.abs()).sum::<f64>();
        let r = g.rank as usize;
        let reduce = T::from_words(&got_i[..w]);
        let inclusive = T::from_words(&got_i[w..2 * w]);
        assert!(
            T::close(reduce, fold(&xs), mag(&xs), exact),
            "{ctx}: reduce = {reduce:?}, model {:?} over {} members",
            fold(&xs),
            xs.len()
        );
        assert!(
            T::close(inclusive, fold(&xs[..=r]), mag(&xs[..=r]), exact),
            "{ctx}: inclusive_scan = {inclusive:?}, model {:?} (rank {r})",
            fold(&xs[..=r])
        );
        let ex_words = &got_i[2 * w..3 * w];
        if r == 0 {
            assert!(
                T::zero_bits(ex_words),
                "{ctx}: exclusive_scan at rank 0 is T::zeroed(), got {ex_words:x?}"
            );
        } else {
            let exclusive = T::from_words(ex_words);
            assert!(
                T::close(exclusive, fold(&xs[..r]), mag(&xs[..r]), exact),
                "{ctx}: exclusive_scan = {exclusive:?}, model {:?} (rank {r})",
                fold(&xs[..r])
            );
        }
        let leader = g.members[0];
        assert_eq!(
            &got_i[..w],
            &got[3 * w * leader..3 * w * leader + w],
            "{ctx}: reduce gave rank 0 (grid thread {leader}) other bits"
        );
    }
}

/// A binary operator of the CPU model.
type BinOp<T> = dyn Fn(T, T) -> T;

/// `(op selector, name, exact?, model)` of one collective operator.
type OpCase<'a, T> = (u32, &'a str, bool, &'a BinOp<T>);

/// Launches a collective kernel: `(config, input, keys, out, info, sel, op)`.
type CollectiveLaunch<'a> = dyn Fn(
        LaunchConfig,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        u32,
        u32,
    ) + 'a;

/// One collective kernel launch per selector and operator.
fn run_collectives<T: Val>(
    gpu: &Gpu,
    rng: &mut StdRng,
    name: &str,
    ops: &[OpCase<T>],
    gen: &dyn Fn(&mut StdRng) -> Vec<u32>,
    launch: &CollectiveLaunch,
) {
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let input: Vec<u32> = (0..geo.total).flat_map(|_| gen(rng)).collect();
        assert_eq!(input.len(), T::WORDS * geo.total);
        let input_buf = gpu.upload(&input).unwrap();
        let mut out = poisoned(gpu, 3 * T::WORDS * geo.total);
        let mut info = poisoned(gpu, INFO_WORDS * geo.total);
        for &(op, op_name, exact, f) in ops {
            for sel in 0..GROUP_KINDS {
                let what = format!("{name} {op_name} grid={:?} block={:?}", geo.grid, geo.block);
                reset(&mut out);
                reset(&mut info);
                launch(
                    geo.cfg(),
                    &input_buf,
                    &keys_buf,
                    &mut out,
                    &mut info,
                    sel,
                    op,
                );
                let got = out.to_vec().unwrap();
                let groups = groups(sel, geo.b, &keys, &info.to_vec().unwrap(), &what);
                check_collectives::<T>(&what, sel, &groups, &input, &got, f, exact);
            }
        }
    }
}

#[test]
fn reduce_and_scans_match_cuda_for_integers() {
    let gpu = gpu_or_return!("reduce_and_scans_match_cuda_for_integers");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("collectives_int");
    macro_rules! int_ops {
        ($t:ty) => {{
            let ops: [OpCase<$t>; 7] = [
                (0, "plus", true, &|a: $t, b: $t| a.wrapping_add(b)),
                (1, "less", true, &|a, b| less(a, b)),
                (2, "greater", true, &|a, b| greater(a, b)),
                (3, "bit_and", true, &|a: $t, b: $t| a & b),
                (4, "bit_or", true, &|a: $t, b: $t| a | b),
                (5, "bit_xor", true, &|a: $t, b: $t| a ^ b),
                (6, "closure a + b", true, &|a: $t, b: $t| a.wrapping_add(b)),
            ];
            ops
        }};
    }
    run_collectives::<u32>(
        &gpu,
        &mut rng,
        "collective<u32>",
        &int_ops!(u32),
        &|r| int_words(r, 1),
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_u32
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
    run_collectives::<i32>(
        &gpu,
        &mut rng,
        "collective<i32>",
        &int_ops!(i32),
        &|r| int_words(r, 1),
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_i32
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
    run_collectives::<u64>(
        &gpu,
        &mut rng,
        "collective<u64>",
        &int_ops!(u64),
        &|r| int_words(r, 2),
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_u64
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
}

#[test]
fn reduce_and_scans_match_cuda_for_floats() {
    let gpu = gpu_or_return!("reduce_and_scans_match_cuda_for_floats");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("collectives_float");
    let ops32: [OpCase<f32>; 4] = [
        (0, "plus", false, &|a, b| a + b),
        (1, "less", true, &less),
        (2, "greater", true, &greater),
        (6, "closure a + b", false, &|a, b| a + b),
    ];
    run_collectives::<f32>(
        &gpu,
        &mut rng,
        "collective<f32>",
        &ops32,
        &|r| vec![r.random_range(-1.0f32..1.0).to_bits()],
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_f32
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
    let ops64: [OpCase<f64>; 4] = [
        (0, "plus", false, &|a, b| a + b),
        (1, "less", true, &less),
        (2, "greater", true, &greater),
        (6, "closure a + b", false, &|a, b| a + b),
    ];
    run_collectives::<f64>(
        &gpu,
        &mut rng,
        "collective<f64>",
        &ops64,
        &|r| {
            let b = r.random_range(-1.0f64..1.0).to_bits();
            vec![b as u32, (b >> 32) as u32]
        },
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_f64
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
}

#[test]
fn reduce_and_scans_combine_struct_values_in_rank_order() {
    let gpu = gpu_or_return!("reduce_and_scans_combine_struct_values_in_rank_order");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("collectives_struct");
    let affine: [OpCase<Affine>; 1] = [(0, "affine composition", true, &then)];
    run_collectives::<Affine>(
        &gpu,
        &mut rng,
        "collective<Affine>",
        &affine,
        &|r| vec![r.random::<u32>() | 1, r.random()],
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_struct
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
    let stats: [OpCase<Stats>; 1] = [(1, "stats merge", true, &merge)];
    run_collectives::<Stats>(
        &gpu,
        &mut rng,
        "collective<Stats>",
        &stats,
        &|r| {
            let v = r.random_range(0..1000u32);
            vec![v, v, v]
        },
        &|cfg, i, keys, o, info, sel, op| {
            k.api_collective_struct
                .launch(cfg, i, keys, o, info, sel, op)
                .unwrap()
        },
    );
}

// --------------------------------------------------------- block_reduce

#[test]
fn block_reduce_matches_model_for_every_block_shape() {
    let gpu = gpu_or_return!("block_reduce_matches_model_for_every_block_shape");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("block_reduce_api");
    let shapes: Vec<(Dims, Dims)> = SHAPES
        .iter()
        .copied()
        .chain([
            ((3, 1, 1), (1, 1, 1)),
            ((2, 1, 1), (33, 1, 1)),
            ((2, 1, 1), (64, 1, 1)),
        ])
        .collect();
    let u32_ops: [(&str, &BinOp<u32>); 7] = [
        ("plus", &|a, b| a.wrapping_add(b)),
        ("less", &less),
        ("greater", &greater),
        ("bit_and", &|a, b| a & b),
        ("bit_or", &|a, b| a | b),
        ("bit_xor", &|a, b| a ^ b),
        ("closure", &|a, b| a.wrapping_add(b)),
    ];
    for shape in shapes {
        let geo = Geometry::new(shape);
        for (op, (op_name, f)) in u32_ops.iter().enumerate() {
            let input = int_words(&mut rng, geo.total);
            let wide: Vec<f64> = (0..geo.total)
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            let input_buf = gpu.upload(&input).unwrap();
            let wide_buf = gpu.upload(&wide).unwrap();
            let mut out = poisoned(&gpu, 4 * geo.total);
            let mut out_wide = gpu.filled(geo.total, f64::NAN).unwrap();
            k.api_block_reduce
                .launch(
                    geo.cfg(),
                    &input_buf,
                    &wide_buf,
                    &mut out,
                    &mut out_wide,
                    op as u32,
                )
                .unwrap();
            let got = out.to_vec().unwrap();
            let got_wide = out_wide.to_vec().unwrap();
            for (blk, (xs, ws)) in input.chunks(geo.b).zip(wide.chunks(geo.b)).enumerate() {
                let first = xs[1..].iter().fold(xs[0], |a, &x| f(a, x));
                let second = xs
                    .iter()
                    .fold(0u32, |a, &x| a.wrapping_add(x ^ 0x5555_5555));
                let map = xs[1..].iter().fold(Affine(xs[0] | 1, xs[0] >> 7), |a, &x| {
                    then(a, Affine(x | 1, x >> 7))
                });
                let want = [first, second, map.0, map.1];
                let (wide_want, exact) = match op % 3 {
                    0 => (ws.iter().sum::<f64>(), false),
                    1 => (ws[1..].iter().fold(ws[0], |a, &x| less(a, x)), true),
                    _ => (ws[1..].iter().fold(ws[0], |a, &x| greater(a, x)), true),
                };
                let mag: f64 = ws.iter().map(|x| x.abs()).sum();
                for r in 0..geo.b {
                    let i = blk * geo.b + r;
                    let ctx = format!(
                        "block_reduce {op_name} grid={:?} block={:?}: block {blk} thread {r}",
                        geo.grid, geo.block
                    );
                    assert_eq!(
                        &got[4 * i..4 * i + 4],
                        want,
                        "{ctx}: [block_reduce(op), second block_reduce(plus), affine composition in rank order]"
                    );
                    assert!(
                        f64::close(got_wide[i], wide_want, mag, exact),
                        "{ctx}: f64 block_reduce (op {}) = {}, model {wide_want}",
                        op % 3,
                        got_wide[i]
                    );
                    assert_eq!(
                        got_wide[i].to_bits(),
                        got_wide[blk * geo.b].to_bits(),
                        "{ctx}: every thread gets the same bits"
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------ invoke_one

#[test]
fn invoke_one_calls_once_per_group_and_broadcasts() {
    let gpu = gpu_or_return!("invoke_one_calls_once_per_group_and_broadcasts");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("invoke_one");
    for shape in SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gpu.upload(&keys).unwrap();
        let mut out = poisoned(&gpu, geo.total);
        let mut info = poisoned(&gpu, INFO_WORDS * geo.total);
        let mut counters = gpu.filled(2, 0u32).unwrap();
        for sel in 0..GROUP_KINDS {
            let what = format!("invoke_one grid={:?} block={:?}", geo.grid, geo.block);
            reset(&mut out);
            reset(&mut info);
            counters.copy_from(&[0, 0]).unwrap();
            k.api_invoke_one
                .launch(
                    geo.cfg(),
                    &keys_buf,
                    &mut counters,
                    &mut out,
                    &mut info,
                    sel,
                )
                .unwrap();
            let got = out.to_vec().unwrap();
            let calls = counters.to_vec().unwrap();
            let groups = groups(sel, geo.b, &keys, &info.to_vec().unwrap(), &what);
            // A group is named by its first member.
            let mut tickets = std::collections::BTreeMap::new();
            for (i, g) in groups.iter().enumerate() {
                let ctx = format!("{what}: {} thread {i}", describe_sel(sel));
                let Some(g) = g else {
                    assert_eq!(got[i], POISON, "{ctx}: no group, but output was written");
                    continue;
                };
                let leader = g.members[0];
                let t = *tickets.entry(leader).or_insert(got[i]);
                assert_eq!(
                    got[i], t,
                    "{ctx}: the ticket of rank 0 (grid thread {leader})"
                );
            }
            let n = tickets.len() as u32;
            let mut all: Vec<u32> = tickets.values().copied().collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..n).collect::<Vec<_>>(),
                "{what}: {}: each of the {n} groups calls once and gets its own ticket",
                describe_sel(sel)
            );
            assert_eq!(
                calls,
                [n, n],
                "{what}: {}: [invoke_one_broadcast calls, invoke_one calls]",
                describe_sel(sel)
            );
        }
    }
}

// ------------------------------------------------------- full-warp ops

#[test]
fn full_warp_operations_match_model() {
    let gpu = gpu_or_return!("full_warp_operations_match_model");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("full_warp");
    const WORDS: usize = 16;
    let geo = Geometry::new(((3, 1, 1), (256, 1, 1)));
    for _ in 0..4 {
        let input = int_words(&mut rng, geo.total);
        let wide: Vec<u64> = (0..geo.total)
            .map(|_| rng.random_range(0..2u64) << 33)
            .collect();
        let input_buf = gpu.upload(&input).unwrap();
        let wide_buf = gpu.upload(&wide).unwrap();
        let mut out = poisoned(&gpu, WORDS * geo.total);
        k.api_full_warp_ops
            .launch(geo.cfg(), &input_buf, &wide_buf, &mut out)
            .unwrap();
        let got = out.to_vec().unwrap();
        for (w, xs) in input.chunks(32).enumerate() {
            let ws = &wide[32 * w..32 * w + 32];
            let ranks =
                |f: &dyn Fn(usize) -> bool| (0..32).fold(0u32, |a, k| a | (f(k) as u32) << k);
            let odd = ranks(&|k| xs[k] & 1 != 0);
            for l in 0..32 {
                let i = 32 * w + l;
                let same = ranks(&|k| xs[k] & 3 == xs[l] & 3);
                let want = [
                    xs[5],
                    if l >= 1 { xs[l - 1] } else { xs[l] },
                    if l + 2 < 32 { xs[l + 2] } else { xs[l] },
                    xs[l ^ 3],
                    (odd != 0) as u32,
                    (odd == u32::MAX) as u32,
                    odd,
                    same,
                    ranks(&|k| ws[k] == ws[l]),
                    (same == u32::MAX) as u32,
                    if same == u32::MAX { u32::MAX } else { 0 },
                    xs.iter().fold(0u32, |a, &x| a.wrapping_add(x)),
                    *xs.iter().min().unwrap(),
                    xs.iter().fold(0, |a, &x| a ^ x),
                    xs[..=l].iter().fold(0u32, |a, &x| a.wrapping_add(x)),
                    xs[..l].iter().fold(0u32, |a, &x| a.wrapping_add(x)),
                ];
                assert_eq!(
                    &got[WORDS * i..WORDS * (i + 1)],
                    want,
                    "warp {w} lane {l}: [shfl 5, up 1, down 2, xor 3, any, all, ballot, match_any, match_any u64, match_all (found, ranks), reduce plus, less, xor, inclusive, exclusive]"
                );
            }
        }
    }
}

// ------------------------------------------------------- grid barrier

/// Where the tested kernel's grid barriers are.
#[derive(Clone, Copy, Debug)]
enum Barriers {
    /// Inlined into the kernel (`api_grid_split_barrier`): they read the
    /// counters' place from the kernel parameter cg-builder adds.
    Inlined,
    /// In device functions of their own (`api_grid_barrier_not_inlined`):
    /// they read it from the module word.
    NotInlined,
}

/// Launches `api_grid_split_barrier` on `cfg` for `n` threads and `rounds`
/// rounds, and checks that each thread read what its neighbour published
/// before every barrier (`what` names the launch in a failure).
fn check_grid_barrier(gpu: &Gpu, k: &Kernels, cfg: LaunchConfig, n: u32, rounds: u32, what: &str) {
    check_grid_barriers(gpu, k, Barriers::Inlined, cfg, n, rounds, what)
}

/// [`check_grid_barrier`] of the kernel whose barriers are `barriers`.
fn check_grid_barriers(
    gpu: &Gpu,
    k: &Kernels,
    barriers: Barriers,
    cfg: LaunchConfig,
    n: u32,
    rounds: u32,
    what: &str,
) {
    let published = |i: u32, r: u32| (i ^ r.wrapping_mul(0x9E37_79B9)).wrapping_mul(2_654_435_761);
    let what = format!("{what}, barriers {barriers:?}");
    println!("grid barrier: {what}, {rounds} rounds");
    let mut scratch = gpu.filled(2 * n as usize, 0u32).unwrap();
    let mut out = poisoned(gpu, (rounds * n) as usize);
    match barriers {
        Barriers::Inlined => {
            k.api_grid_split_barrier
                .launch(cfg, &mut scratch, &mut out, n, rounds)
        }
        Barriers::NotInlined => {
            k.api_grid_barrier_not_inlined
                .launch(cfg, &mut scratch, &mut out, n, rounds)
        }
    }
    .unwrap();
    gpu.synchronize_timeout(Duration::from_secs(20)).unwrap();
    let got = out.to_vec().unwrap();
    for r in 0..rounds {
        for i in 0..n {
            let src = (i + 1 + r) % n;
            assert_eq!(
                got[(r * n + i) as usize],
                published(src, r),
                "{what}, round {r} ({}), thread {i} of {n}: what thread {src} published",
                if r % 2 == 0 {
                    "barrier_arrive/barrier_wait"
                } else {
                    "sync(&grid)"
                }
            );
        }
    }
}

#[test]
fn split_grid_barrier_orders_writes_across_blocks() {
    let gpu = gpu_or_return!("split_grid_barrier_orders_writes_across_blocks");
    let k = Kernels::load(&gpu).unwrap();
    for threads in [64u32, 256, 1024] {
        let cfg = k
            .api_grid_split_barrier
            .function()
            .cooperative_config(threads, 0)
            .unwrap();
        let max = cfg.grid.x * threads;
        for n in [1u32, 1000, max - 3, max] {
            let what = format!("n={n} grid={}x{threads}", cfg.grid.x);
            for barriers in [Barriers::Inlined, Barriers::NotInlined] {
                check_grid_barriers(&gpu, &k, barriers, cfg, n, 6, &what);
            }
        }
    }
}

/// The grid barrier for every shape, one launch after another in one
/// module: grids of 1 to thousands of blocks, blocks of 1 to 1024 threads,
/// 2-D and 3-D grids and blocks, up to 300 barriers a launch. The counters
/// keep their values from launch to launch (on a GPU), so every shape must
/// leave them ready for any other: grids of 16 blocks or more of 16
/// threads or more spread their arrivals over 16 counters, the others
/// count on one, and shapes of both kinds alternate, on both sides of
/// both limits, with more than 256 barriers (the phase byte wraps). The
/// simulator holds at most 128 blocks at once: there the larger grids are
/// left out, and said so.
#[test]
fn grid_barrier_holds_for_every_shape_one_after_another() {
    let gpu = gpu_or_return!("grid_barrier_holds_for_every_shape_one_after_another");
    let k = Kernels::load(&gpu).unwrap();
    let f = k.api_grid_split_barrier.function();
    let most = |threads: u32| f.cooperative_config(threads, 0).unwrap().grid.x;
    // A count of blocks that is no multiple of 8 on any GPU.
    let odd = most(96) - 1;
    type Shape = (u32, u32, u32);
    let shapes: [(Shape, Shape, u32); 23] = [
        ((16, 1, 1), (16, 1, 1), 300),
        ((1, 1, 1), (1, 1, 1), 300),
        ((6, 4, 2), (8, 4, 1), 260),
        ((15, 1, 1), (64, 1, 1), 300),
        ((17, 1, 1), (15, 1, 1), 300),
        ((2, 9, 1), (2, 2, 4), 270),
        ((3, 1, 1), (7, 1, 1), 300),
        ((400, 1, 1), (1, 1, 1), 300),
        ((7, 1, 1), (32, 1, 1), 300),
        ((384, 1, 1), (7, 1, 1), 300),
        ((8, 1, 1), (3, 1, 1), 300),
        ((385, 1, 1), (8, 1, 1), 300),
        ((2, 3, 2), (4, 2, 3), 260),
        ((20, 10, 2), (4, 2, 1), 260),
        ((5, 2, 1), (8, 4, 2), 260),
        ((most(256), 1, 1), (256, 1, 1), 6),
        ((2, 1, 1), (1, 1, 1), 300),
        ((383, 1, 1), (5, 1, 1), 300),
        ((64, 2, 1), (1, 1, 1), 300),
        ((1, 1, 1), (1024, 1, 1), 20),
        ((odd, 1, 1), (96, 1, 1), 40),
        ((1000, 1, 1), (33, 1, 1), 20),
        ((most(1024), 1, 1), (1024, 1, 1), 6),
    ];
    for (grid, block, rounds) in shapes {
        let cfg = LaunchConfig::new(grid, block);
        let threads = cfg.block_threads() as u32;
        if cfg.num_blocks() > u64::from(most(threads)) {
            assert!(
                gpu.is_simulator(),
                "{grid:?} x {block:?} is co-resident on a GPU"
            );
            eprintln!(
                "{}: grid barrier of {grid:?} x {block:?}: more blocks than the simulator holds at \
                 once; run on a GPU",
                cooperative_groups::testing::NOT_RUN_NOTICE
            );
            continue;
        }
        let n = (cfg.num_blocks() * cfg.block_threads()) as u32;
        check_grid_barrier(&gpu, &k, cfg, n, rounds, &format!("{grid:?} x {block:?}"));
    }
}

/// The grid barrier at every place of its GPU's counters (which place is
/// fast depends on where the memory lies; none may be wrong), each place's
/// launches after another place's, on grids that spread their arrivals and
/// grids that count on one counter, and with barriers in device functions
/// (which read the place from the module word, not from the kernel's
/// parameter); then back at the place chosen. On a GPU the place was timed
/// when the module loaded, unless `CG_GRID_BARRIER_SLOT` fixed it.
#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the grid barrier's places in L2")]
fn grid_barrier_holds_at_every_place() {
    use cg_core::grid::layout::SLOTS;
    use cooperative_groups::testing::set_grid_barrier_slot;
    use cooperative_groups::PlaceChoice;
    // The simulator's counters are each launch's own, with no L2 slices to
    // choose between (host_errors' the_simulator_says_what_it_cannot_do).
    let what = "the grid barrier's places in L2";
    let Some(gpu) = common::real_gpu("grid_barrier_holds_at_every_place", what) else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let place = gpu
        .grid_barrier_place()
        .expect("a module with grid barriers loaded: a place chosen");
    match &place.chosen {
        PlaceChoice::Timed {
            blocks, launch_us, ..
        } => {
            assert_eq!(launch_us.len(), SLOTS as usize);
            let fastest = launch_us.iter().copied().fold(f64::INFINITY, f64::min);
            assert_eq!(launch_us[place.slot as usize], fastest, "{launch_us:?}");
            println!(
                "grid barrier place {} of {SLOTS}, timed on {blocks} blocks of 256: {}",
                place.slot,
                launch_us
                    .iter()
                    .map(|us| format!("{us:.1}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        PlaceChoice::Fixed => assert!(std::env::var("CG_GRID_BARRIER_SLOT").is_ok()),
        PlaceChoice::Untimed => assert!(gpu.info().multiprocessors < 2),
    }
    let f = k.api_grid_split_barrier.function();
    let most = |threads: u32| f.cooperative_config(threads, 0).unwrap().grid.x;
    for slot in (0..SLOTS).chain([place.slot]) {
        set_grid_barrier_slot(&k.module, Some(slot)).unwrap();
        for (grid, block, rounds) in [
            (most(256), 256, 6),
            (16, 16, 40),
            (5, 64, 40),
            (most(1024), 1024, 6),
        ] {
            let cfg = LaunchConfig::new(grid, block);
            let what = format!("{grid} x {block}, counters at place {slot}");
            check_grid_barrier(&gpu, &k, cfg, grid * block, rounds, &what);
        }
        // Barriers in device functions read the place from the module word,
        // not from the kernel's parameter: the two move together.
        let cfg = LaunchConfig::new(most(256), 256);
        let what = format!("{} x 256, counters at place {slot}", most(256));
        check_grid_barriers(
            &gpu,
            &k,
            Barriers::NotInlined,
            cfg,
            most(256) * 256,
            6,
            &what,
        );
    }
}

// ------------------------------------------------------ multi-warp tiles

#[test]
fn multi_warp_tiles_match_model() {
    let gpu = gpu_or_return!("multi_warp_tiles_match_model");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("multi_warp");
    const WORDS: usize = 14;
    for shape in MULTI_WARP_SHAPES {
        let geo = Geometry::new(shape);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let input = int_words(&mut rng, geo.total);
        let floats: Vec<f32> = (0..geo.total)
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect();
        let (keys_buf, input_buf) = (gpu.upload(&keys).unwrap(), gpu.upload(&input).unwrap());
        let floats_buf = gpu.upload(&floats).unwrap();
        let mut out = poisoned(&gpu, WORDS * geo.total);
        for sel in 0..6u32 {
            let arg = rng.random_range(0..2048u32);
            reset(&mut out);
            k.api_multi_warp
                .launch(
                    geo.cfg(),
                    &input_buf,
                    &floats_buf,
                    &keys_buf,
                    &mut out,
                    sel,
                    arg,
                )
                .unwrap();
            let got = out.to_vec().unwrap();
            for i in 0..geo.total {
                let r = i % geo.b;
                let (n, meta) = match sel {
                    0..=3 => (64usize << sel, (r / (64 << sel), geo.b / (64 << sel))),
                    4 => (64, ((r % 256) / 64, 4)),
                    _ => (32, ((r % 128) / 32, 4)),
                };
                let rank = r % n;
                let base = i - rank;
                let members = base..base + n;
                let ctx = format!(
                    "multi-warp sel {sel} (tile of {n}) block={:?}: thread {i} (block rank {r})",
                    geo.block
                );
                let g = &got[WORDS * i..WORDS * (i + 1)];
                let votes: Vec<bool> = members.clone().map(|m| vote(keys[m])).collect();
                let xs = &input[members.clone()];
                let fs = &floats[members.clone()];
                let want = [
                    rank as u32,
                    n as u32,
                    meta.0 as u32,
                    meta.1 as u32,
                    (r - rank + (rank + 1) % n) as u32 + 1,
                    input[base + (arg as usize % n)],
                    votes.iter().any(|&v| v) as u32,
                    votes.iter().all(|&v| v) as u32,
                    xs.iter().fold(0u32, |a, &x| a.wrapping_add(x)),
                ];
                assert_eq!(
                    &g[..9],
                    want,
                    "{ctx}: [rank, size, meta rank, meta size, partner, shfl, any, all, reduce u32]"
                );
                assert_eq!(
                    g[12],
                    xs[..=rank].iter().fold(0u32, |a, &x| a.wrapping_add(x)),
                    "{ctx}: inclusive_scan(u32, Plus)"
                );
                let exclusive_max = if rank == 0 {
                    0
                } else {
                    *xs[..rank].iter().max().unwrap()
                };
                assert_eq!(g[13], exclusive_max, "{ctx}: exclusive_scan(u32, Greater)");
                let sum = |s: &[f32]| s.iter().map(|&x| x as f64).sum::<f64>();
                let mag = |s: &[f32]| s.iter().map(|x| x.abs() as f64).sum::<f64>();
                for (word, what, span) in [
                    (9, "reduce(f32, Plus)", fs),
                    (10, "inclusive_scan(f32, Plus)", &fs[..=rank]),
                    (11, "exclusive_scan(f32, Plus)", &fs[..rank]),
                ] {
                    let v = f32::from_bits(g[word]);
                    assert!(
                        f32::close(v, sum(span) as f32, mag(span), false),
                        "{ctx}: {what} = {v}, model {}",
                        sum(span)
                    );
                }
                assert_eq!(
                    g[9],
                    got[WORDS * base + 9],
                    "{ctx}: reduce gave rank 0 other bits"
                );
            }
        }
    }
}

// ------------------------------------------------- grid and block queries

#[test]
fn grid_queries_and_split_block_barrier_match_model() {
    let gpu = gpu_or_return!("grid_queries_and_split_block_barrier_match_model");
    let k = Kernels::load(&gpu).unwrap();
    const WORDS: usize = 16;
    for (grid, block) in SHAPES {
        let geo = Geometry::new((grid, block));
        let mut out = poisoned(&gpu, WORDS * geo.total);
        k.api_grid_queries.launch(geo.cfg(), &mut out).unwrap();
        let got = out.to_vec().unwrap();
        let mut split = poisoned(&gpu, geo.total);
        k.api_block_split_barrier
            .launch(geo.cfg(), &mut split)
            .unwrap();
        let split = split.to_vec().unwrap();
        let nb = volume(grid) as u32;
        for blk in 0..nb {
            let bi = (blk % grid.0, blk / grid.0 % grid.1, blk / (grid.0 * grid.1));
            for r in 0..geo.b as u32 {
                let ti = (r % block.0, r / block.0 % block.1, r / (block.0 * block.1));
                let i = blk as usize * geo.b + r as usize;
                let n = geo.total as u64;
                let want = [
                    i as u32,
                    0,
                    n as u32,
                    (n >> 32) as u32,
                    blk,
                    nb,
                    bi.0 * block.0 + ti.0,
                    bi.1 * block.1 + ti.1,
                    bi.2 * block.2 + ti.2,
                    grid.0 * block.0,
                    grid.1 * block.1,
                    grid.2 * block.2,
                    grid.0,
                    grid.1,
                    grid.2,
                ];
                assert_eq!(
                    &got[WORDS * i..WORDS * i + 15],
                    want,
                    "grid={grid:?} block={block:?} thread {i}: [rank lo, hi, num lo, hi, block_rank, num_blocks, thread_index, dim_threads, dim_blocks]"
                );
                assert_eq!(
                    split[i],
                    (r + 1) % geo.b as u32 + 1,
                    "grid={grid:?} block={block:?} thread {i}: after barrier_arrive/barrier_wait, the write of block rank {}",
                    (r + 1) % geo.b as u32
                );
            }
        }
    }
}

// ------------------------------------------------------- warp segments

#[test]
fn warp_segments_give_the_bits_of_tiles() {
    let gpu = gpu_or_return!("warp_segments_give_the_bits_of_tiles");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("warp_segments");
    const WORDS: usize = 12;
    const OPS: [&str; WORDS] = [
        "shfl(v, v % 64)",
        "shfl_up(v, 1)",
        "shfl_down(v, 1)",
        "shfl_xor(v, N / 2)",
        "any",
        "all",
        "ballot",
        "match_any",
        "reduce(f32, Plus)",
        "reduce(u32, Plus)",
        "inclusive_scan(f32, Plus)",
        "exclusive_scan(u32, Greater)",
    ];
    for shape in [
        ((3, 1, 1), (256, 1, 1)),
        ((2, 1, 1), (32, 8, 1)),
        ((1, 1, 1), (1024, 1, 1)),
    ] {
        let geo = Geometry::new(shape);
        let input = int_words(&mut rng, geo.total);
        let floats: Vec<f32> = (0..geo.total)
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect();
        let mut out = poisoned(&gpu, 2 * 6 * WORDS * geo.total);
        k.api_warp_segments
            .launch(
                geo.cfg(),
                &gpu.upload(&input).unwrap(),
                &gpu.upload(&floats).unwrap(),
                &mut out,
            )
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..geo.total {
            let t = &got[2 * 6 * WORDS * i..2 * 6 * WORDS * (i + 1)];
            for (s, n) in [1, 2, 4, 8, 16, 32].into_iter().enumerate() {
                let seg = &t[2 * s * WORDS..(2 * s + 1) * WORDS];
                let tile = &t[(2 * s + 1) * WORDS..(2 * s + 2) * WORDS];
                for w in 0..WORDS {
                    assert_eq!(
                        seg[w], tile[w],
                        "block={:?} thread {i}: {} of WarpSegments<{n}> is {:#x}, of ThreadBlockTile<{n}> {:#x}",
                        geo.block, OPS[w], seg[w], tile[w]
                    );
                }
            }
        }
    }
}
