//! The simulator against the GPU: the API probe kernels (group queries,
//! shuffles, votes and matches, reduce and scans) and the samples' block
//! reductions, the README example and Jacobi, run on the GPU through their
//! typed handles and on the simulator as plain functions, on the same random
//! inputs into poisoned buffers, every word compared bit for bit.
//!
//! Excluded, and counted: the words of a thread whose result the simulator
//! reported undefined (it read a lane that is not there: the GPU's value is
//! undefined too), and `coalesced_threads()` taken in a branch (which lanes
//! run together is the hardware's choice). Without a GPU, the simulator
//! side still runs every probe on every shape and selector (so CI sees any
//! fault or deadlock in it) and says it ran on the simulator alone; the
//! test of the samples' kernels, which has no simulator side, is ignored.

mod common;

use cg_core::output::{Output, Points, Synced};
use cg_core::sim::{self, Buffer, Report, Shape};
use cg_samples::experiments::jacobi::jacobi_cpu;
use cg_tests::kernels::Kernels;
use common::api::*;
use cooperative_groups::{DeviceBuffer, Gpu, LaunchConfig};
use rand::Rng;
use std::collections::BTreeMap;

/// What the comparison counted.
#[derive(Default)]
struct Agreement {
    compared: u64,
    excluded: BTreeMap<&'static str, u64>,
    launches: u64,
}

impl Agreement {
    fn print(&self, test: &str, gpu: bool) {
        if gpu {
            println!(
                "{test}: {} simulated launches; {} words equal to the GPU's, bit for bit; excluded: {:?}",
                self.launches, self.compared, self.excluded
            );
        } else {
            println!(
                "{test}: {} simulated launches ran without a fault; excluded: {:?}",
                self.launches, self.excluded
            );
        }
    }
}

fn shape(geo: &Geometry) -> Shape {
    let (g, b) = (geo.grid, geo.block);
    Shape::dims([g.0, g.1, g.2], [b.0, b.1, b.2])
}

/// Which threads (grid ranks) have undefined results: every thread of a
/// warp in which one read a lane that was not there or shared memory no
/// thread wrote (what it read can reach its warp's other lanes through
/// shuffles and collectives).
fn undefined_threads(geo: &Geometry, report: &Report) -> Vec<bool> {
    let mut out = vec![false; geo.total];
    let g = geo.grid;
    for u in &report.undefined {
        let [bx, by, bz] = u.at.block;
        let block = ((bz * g.1 + by) * g.0 + bx) as usize;
        let first = block * geo.b + u.at.warp as usize * 32;
        let end = (first + 32).min((block + 1) * geo.b);
        out[first..end].fill(true);
    }
    out
}

/// One probe launch on the simulator: `run(out, info)` is the kernel call.
/// Returns what it wrote and which threads' results are undefined.
fn simulate(
    geo: &Geometry,
    out_words: usize,
    info_words: usize,
    run: impl Fn(*mut u32, *mut u32) + Sync,
) -> (Vec<u32>, Vec<u32>, Vec<bool>) {
    let out = Buffer::filled(out_words, POISON);
    let info = Buffer::filled(info_words.max(1), POISON);
    let report = sim::launch(shape(geo), || run(out.as_ptr(), info.as_ptr()))
        .unwrap_or_else(|f| panic!("grid {:?} block {:?}: {f}", geo.grid, geo.block));
    (out.to_vec(), info.to_vec(), undefined_threads(geo, &report))
}

/// One probe: the same launch on both. `gpu_run` launches the typed handle
/// into the two poisoned buffers; `sim_run` calls the kernel function.
#[allow(clippy::too_many_arguments)]
fn probe(
    agreement: &mut Agreement,
    gpu: Option<&Gpu>,
    geo: &Geometry,
    what: &str,
    words: usize,
    info_words: usize,
    convergent: bool,
    gpu_run: impl FnOnce(&mut DeviceBuffer<u32>, &mut DeviceBuffer<u32>),
    sim_run: impl Fn(*mut u32, *mut u32) + Sync,
) {
    let (s_out, s_info, undefined) =
        simulate(geo, words * geo.total, info_words * geo.total, sim_run);
    agreement.launches += 1;
    let Some(gpu) = gpu else { return };
    let mut out = poisoned(gpu, words * geo.total);
    let mut info = poisoned(gpu, (info_words * geo.total).max(1));
    gpu_run(&mut out, &mut info);
    let (g_out, g_info) = (out.to_vec().unwrap(), info.to_vec().unwrap());
    if !convergent {
        *agreement
            .excluded
            .entry("coalesced_threads() in a branch")
            .or_default() += (words * geo.total) as u64;
        return;
    }
    for (i, &undefined) in undefined.iter().enumerate() {
        if undefined {
            *agreement
                .excluded
                .entry("undefined: its warp read a lane or shared memory that was not there")
                .or_default() += words as u64;
            continue;
        }
        for (w, per, name) in [
            (&(&g_out, &s_out), words, "out"),
            (&(&g_info, &s_info), info_words, "info"),
        ] {
            let (g, s) = (&w.0[per * i..per * (i + 1)], &w.1[per * i..per * (i + 1)]);
            assert_eq!(
                g, s,
                "{what}, grid {:?} block {:?}, thread {i} (block rank {}): {name} words, GPU {g:x?} vs simulator {s:x?}",
                geo.grid,
                geo.block,
                i % geo.b
            );
            agreement.compared += per as u64;
        }
    }
}

/// What these tests need a GPU for.
const COMPARED: &str = "a comparison of the simulator with the GPU";

fn open(test: &str) -> (Option<(Gpu, Kernels)>, rand::rngs::StdRng) {
    let gpu = common::gpu_part(test, COMPARED).map(|g| {
        let k = Kernels::load(&g).unwrap();
        (g, k)
    });
    (gpu, common::rng(test))
}

#[test]
fn group_queries_agree_with_the_gpu() {
    let test = "group_queries_agree_with_the_gpu";
    let (gk, mut rng) = open(test);
    let mut agreement = Agreement::default();
    const WORDS: usize = 6;
    for s in SHAPES {
        let geo = Geometry::new(s);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gk.as_ref().map(|(g, _)| g.upload(&keys).unwrap());
        for sel in 0..QUERY_KINDS {
            probe(
                &mut agreement,
                gk.as_ref().map(|(g, _)| g),
                &geo,
                &format!("queries {}", describe_sel(sel)),
                WORDS,
                0,
                sel != BRANCH && sel != BRANCH_LABELED,
                |out, _| {
                    let (_, k) = gk.as_ref().unwrap();
                    k.api_group_queries
                        .launch(geo.cfg(), keys_buf.as_ref().unwrap(), out, sel)
                        .unwrap();
                },
                |out, _| cg_test_kernels::api::groups::api_group_queries(&keys, out, sel),
            );
        }
    }
    agreement.print(test, gk.is_some());
}

#[test]
fn shuffles_agree_with_the_gpu() {
    let test = "shuffles_agree_with_the_gpu";
    let (gk, mut rng) = open(test);
    let mut agreement = Agreement::default();
    type SimShfl = fn(&[u32], &[u32], &[u32], *mut u32, *mut u32, u32, u32, u32);
    let kernels: [(&str, usize, SimShfl); 3] = [
        ("u32", 1, cg_test_kernels::api::shuffles::api_shfl::<u32>),
        ("f64", 2, cg_test_kernels::api::shuffles::api_shfl::<f64>),
        (
            "wide32",
            8,
            cg_test_kernels::api::shuffles::api_shfl::<cg_test_kernels::api::shuffles::Wide32>,
        ),
    ];
    for s in SHAPES {
        let geo = Geometry::new(s);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let src: Vec<u32> = (0..geo.total).map(|_| rng.random_range(0..64)).collect();
        let upload = |v: &[u32]| gk.as_ref().map(|(g, _)| g.upload(v).unwrap());
        let (keys_buf, src_buf) = (upload(&keys), upload(&src));
        for &(ty, w, sim_kernel) in &kernels {
            let input = random_words(&mut rng, w * geo.total);
            let input_buf = upload(&input);
            for sel in 0..GROUP_KINDS {
                let width = match sel {
                    0..=5 => 1 << sel,
                    6..=11 => 1 << (sel - 6),
                    _ => 32,
                };
                let runs = [
                    (0, 0),
                    (1, 1),
                    (2, rng.random_range(0..=32)),
                    (2, width),
                    (3, width - 1),
                ];
                for (op, arg) in runs {
                    probe(
                        &mut agreement,
                        gk.as_ref().map(|(g, _)| g),
                        &geo,
                        &format!("shfl {ty} op {op} arg {arg} {}", describe_sel(sel)),
                        w,
                        INFO_WORDS,
                        sel != BRANCH && sel != BRANCH_LABELED,
                        |out, info| {
                            let (_, k) = gk.as_ref().unwrap();
                            let (i, s, kb) = (
                                input_buf.as_ref().unwrap(),
                                src_buf.as_ref().unwrap(),
                                keys_buf.as_ref().unwrap(),
                            );
                            let cfg = geo.cfg();
                            match ty {
                                "u32" => k
                                    .api_shfl_u32
                                    .launch(cfg, i, s, kb, out, info, sel, op, arg),
                                "f64" => k
                                    .api_shfl_f64
                                    .launch(cfg, i, s, kb, out, info, sel, op, arg),
                                _ => k
                                    .api_shfl_wide32
                                    .launch(cfg, i, s, kb, out, info, sel, op, arg),
                            }
                            .unwrap();
                        },
                        |out, info| sim_kernel(&input, &src, &keys, out, info, sel, op, arg),
                    );
                }
            }
        }
    }
    agreement.print(test, gk.is_some());
}

#[test]
fn votes_and_matches_agree_with_the_gpu() {
    let test = "votes_and_matches_agree_with_the_gpu";
    let (gk, mut rng) = open(test);
    let mut agreement = Agreement::default();
    const WORDS: usize = cg_test_kernels::api::votes::VOTE_WORDS;
    for s in SHAPES {
        let geo = Geometry::new(s);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let wide = random_wide_matches(&mut rng, geo.total);
        let keys_buf = gk.as_ref().map(|(g, _)| g.upload(&keys).unwrap());
        let wide_buf = gk.as_ref().map(|(g, _)| g.upload(&wide).unwrap());
        for sel in 0..GROUP_KINDS {
            probe(
                &mut agreement,
                gk.as_ref().map(|(g, _)| g),
                &geo,
                &format!("votes {}", describe_sel(sel)),
                WORDS,
                INFO_WORDS,
                sel != BRANCH && sel != BRANCH_LABELED,
                |out, info| {
                    let (_, k) = gk.as_ref().unwrap();
                    k.api_votes
                        .launch(
                            geo.cfg(),
                            keys_buf.as_ref().unwrap(),
                            wide_buf.as_ref().unwrap(),
                            out,
                            info,
                            sel,
                        )
                        .unwrap();
                },
                |out, info| cg_test_kernels::api::votes::api_votes(&keys, &wide, out, info, sel),
            );
        }
    }
    agreement.print(test, gk.is_some());
}

#[test]
fn reduce_and_scans_agree_with_the_gpu() {
    let test = "reduce_and_scans_agree_with_the_gpu";
    let (gk, mut rng) = open(test);
    let mut agreement = Agreement::default();
    // reduce, inclusive scan, exclusive scan: three values per thread.
    const WORDS: usize = 3;
    for s in SHAPES {
        let geo = Geometry::new(s);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let keys_buf = gk.as_ref().map(|(g, _)| g.upload(&keys).unwrap());
        let ints = random_words(&mut rng, geo.total);
        let floats: Vec<u32> = (0..geo.total)
            .map(|_| rng.random_range(-1.0f32..1.0).to_bits())
            .collect();
        let ints_buf = gk.as_ref().map(|(g, _)| g.upload(&ints).unwrap());
        let floats_buf = gk.as_ref().map(|(g, _)| g.upload(&floats).unwrap());
        for sel in 0..GROUP_KINDS {
            for (float, op) in (0..7)
                .map(|op| (false, op))
                .chain([0, 1, 2, 6].map(|op| (true, op)))
            {
                probe(
                    &mut agreement,
                    gk.as_ref().map(|(g, _)| g),
                    &geo,
                    &format!(
                        "collective {} op {op} {}",
                        if float { "f32" } else { "u32" },
                        describe_sel(sel)
                    ),
                    WORDS,
                    INFO_WORDS,
                    sel != BRANCH && sel != BRANCH_LABELED,
                    |out, info| {
                        let (_, k) = gk.as_ref().unwrap();
                        let kb = keys_buf.as_ref().unwrap();
                        if float {
                            k.api_collective_f32.launch(
                                geo.cfg(),
                                floats_buf.as_ref().unwrap(),
                                kb,
                                out,
                                info,
                                sel,
                                op,
                            )
                        } else {
                            k.api_collective_u32.launch(
                                geo.cfg(),
                                ints_buf.as_ref().unwrap(),
                                kb,
                                out,
                                info,
                                sel,
                                op,
                            )
                        }
                        .unwrap();
                    },
                    |out, info| {
                        use cg_test_kernels::api::collectives as c;
                        if float {
                            c::api_collective_float::<f32>(&floats, &keys, out, info, sel, op)
                        } else {
                            c::api_collective_integer::<u32>(&ints, &keys, out, info, sel, op)
                        }
                    },
                );
            }
        }
    }
    agreement.print(test, gk.is_some());
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a comparison of the simulator with the GPU"
)]
fn sample_kernels_agree_with_the_gpu() {
    let test = "sample_kernels_agree_with_the_gpu";
    let Some(gpu) = common::real_gpu(test, COMPARED) else {
        return;
    };
    let k = cg_samples::kernels::Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    // Block reductions over random floats, each in its largest blocks: each
    // kernel's order of additions decides every bit of its sums.
    let blocks = 6usize;
    for (name, kernel, threads) in common::block_reductions() {
        let input = common::random_f32(&mut rng, blocks * threads as usize);
        let input_buf = gpu.upload(&input).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, threads);
        let mut sums = gpu.filled(blocks, f32::NAN).unwrap();
        let (i, s) = (&input_buf, &mut sums);
        match name {
            "block_reduce_warp" => k.block_reduce_warp.launch(cfg, i, s),
            "block_reduce_classic" => k.block_reduce_classic.launch(cfg, i, s),
            "block_reduce_hierarchical" => k.block_reduce_hierarchical.launch(cfg, i, s),
            "block_reduce_library" => k.block_reduce_library.launch(cfg, i, s),
            "block_reduce_warp_256" => k.block_reduce_warp_256.launch(cfg, i, s),
            "block_reduce_classic_256" => k.block_reduce_classic_256.launch(cfg, i, s),
            "block_reduce_hierarchical_256" => k.block_reduce_hierarchical_256.launch(cfg, i, s),
            other => panic!("no launch for {other}"),
        }
        .unwrap();
        let s = Buffer::<f32>::filled(blocks, f32::NAN);
        sim::launch(Shape::new(blocks as u32, threads), || {
            kernel(&input, s.view())
        })
        .unwrap();
        let (g, s) = (sums.to_vec().unwrap(), s.to_vec());
        assert_eq!(
            g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            s.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{name}"
        );
        println!(
            "{name}: {blocks} block sums of {threads} random floats, GPU == simulator bit for bit"
        );
    }
    // Jacobi 256 x 256, 100 sweeps in one cooperative launch.
    let (nx, ny, sweeps) = (256u32, 256u32, 100u32);
    let init = common::random_f32(&mut rng, (nx * ny) as usize);
    let (mut a, mut b) = (gpu.upload(&init).unwrap(), gpu.upload(&init).unwrap());
    k.jacobi_persistent
        .launch(LaunchConfig::new(32, 256), &mut a, &mut b, nx, ny, sweeps)
        .unwrap();
    let (sa, sb) = (Buffer::from_slice(&init), Buffer::from_slice(&init));
    sim::launch(Shape::new(32, 256).cooperative(), || {
        let (a, b): (Synced<f32>, Output<f32, Points>) = (sa.view(), sb.view());
        let (nx, ny) = (sim::uniform(nx), sim::uniform(ny));
        cg_sample_kernels::jacobi::jacobi_persistent(a, b, nx, ny, sweeps)
    })
    .unwrap();
    let g = b.to_vec().unwrap();
    assert!(
        g.iter()
            .zip(sb.to_vec())
            .all(|(x, y)| x.to_bits() == y.to_bits()),
        "Jacobi field"
    );
    println!("jacobi_persistent 256 x 256 x 100: GPU == simulator bit for bit");
    // Sweeps in shared memory, on every tested shape: the CPU's field,
    // which the simulator gives too (sim_samples.rs).
    for c in common::in_shared_cases() {
        let init = common::random_f32(&mut rng, (c.nx * c.ny) as usize);
        // Buffers longer than the field, the rest poisoned: left alone.
        let mut padded = init.clone();
        padded.extend([f32::NAN; 37]);
        let (mut a, mut b) = (gpu.upload(&padded).unwrap(), gpu.upload(&padded).unwrap());
        let cfg = LaunchConfig::new(c.blocks, c.threads).with_shared_mem(c.shared_bytes());
        k.jacobi_in_shared
            .launch(cfg, &mut a, &mut b, c.nx, c.ny, c.sweeps, c.depth)
            .unwrap();
        let (a, b) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        let got = if c.sweeps % 2 == 1 { &b } else { &a };
        let want = jacobi_cpu(&init, c.nx as usize, c.ny as usize, c.sweeps);
        let differ = got
            .iter()
            .zip(&want)
            .filter(|(g, w)| g.to_bits() != w.to_bits())
            .count();
        assert_eq!(differ, 0, "jacobi_in_shared {c:?}: points differing");
        for buffer in [&a, &b] {
            assert!(
                buffer[init.len()..].iter().all(|v| v.is_nan()),
                "jacobi_in_shared {c:?}: written past the field"
            );
        }
    }
    println!(
        "jacobi_in_shared on {} shapes: GPU == CPU == simulator bit for bit",
        common::in_shared_cases().len()
    );
}

#[test]
fn multi_warp_tiles_and_full_warp_operations_agree_with_the_gpu() {
    let test = "multi_warp_tiles_and_full_warp_operations_agree_with_the_gpu";
    let (gk, mut rng) = open(test);
    let mut agreement = Agreement::default();
    let upload = |v: &[u32]| gk.as_ref().map(|(g, _)| g.upload(v).unwrap());
    for s in MULTI_WARP_SHAPES {
        let geo = Geometry::new(s);
        let keys = random_keys(&mut rng, geo.b, geo.total);
        let input = int_words(&mut rng, geo.total);
        let floats: Vec<f32> = (0..geo.total)
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect();
        let (keys_buf, input_buf) = (upload(&keys), upload(&input));
        let floats_buf = gk.as_ref().map(|(g, _)| g.upload(&floats).unwrap());
        for sel in 0..6u32 {
            let arg = rng.random_range(0..2048u32);
            probe(
                &mut agreement,
                gk.as_ref().map(|(g, _)| g),
                &geo,
                &format!("multi-warp tile selector {sel} arg {arg}"),
                cg_test_kernels::api::multi_warp::MW_WORDS,
                0,
                true,
                |out, _| {
                    let (_, k) = gk.as_ref().unwrap();
                    k.api_multi_warp
                        .launch(
                            geo.cfg(),
                            input_buf.as_ref().unwrap(),
                            floats_buf.as_ref().unwrap(),
                            keys_buf.as_ref().unwrap(),
                            out,
                            sel,
                            arg,
                        )
                        .unwrap();
                },
                |out, _| {
                    cg_test_kernels::api::multi_warp::api_multi_warp(
                        &input, &floats, &keys, out, sel, arg,
                    )
                },
            );
        }
    }
    for s in SHAPES {
        let geo = Geometry::new(s);
        let input = int_words(&mut rng, geo.total);
        let wide: Vec<u64> = (0..geo.total)
            .map(|_| rng.random_range(0..4u64) << 33)
            .collect();
        let input_buf = upload(&input);
        let wide_buf = gk.as_ref().map(|(g, _)| g.upload(&wide).unwrap());
        probe(
            &mut agreement,
            gk.as_ref().map(|(g, _)| g),
            &geo,
            "full-warp operations",
            cg_test_kernels::api::full_warp::FULL_WARP_WORDS,
            0,
            true,
            |out, _| {
                let (_, k) = gk.as_ref().unwrap();
                k.api_full_warp_ops
                    .launch(
                        geo.cfg(),
                        input_buf.as_ref().unwrap(),
                        wide_buf.as_ref().unwrap(),
                        out,
                    )
                    .unwrap();
            },
            |out, _| cg_test_kernels::api::full_warp::api_full_warp_ops(&input, &wide, out),
        );
    }
    agreement.print(test, gk.is_some());
}
