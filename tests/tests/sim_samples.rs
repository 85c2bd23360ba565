//! The samples' kernels on the simulator, unchanged: the same `#[kernel]`
//! functions the GPU runs, compiled for the host and called by every
//! simulated thread, against the samples' CPU references, bit for bit, and
//! the time each takes on this machine.

mod common;

use cg_core::block::ThreadBlock;
use cg_core::output::{Chunks, Leaders, Output, Points, Synced};
use cg_core::sim::{self, Buffer, Shape};
use cg_samples::experiments::jacobi::jacobi_cpu;
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

#[test]
fn the_readme_example_over_2_20_elements() {
    let n = 1 << 20;
    let input = random_f32(n, 7);
    let scaled = Buffer::<f32>::zeroed(n);
    let out = Buffer::<f32>::zeroed(n);
    let start = Instant::now();
    sim::launch(Shape::new(32, 256).cooperative(), || {
        cg_sample_kernels::readme::scale_neighbour_sum(&input, scaled.view(), out.view(), 0.5)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    println!(
        "README example, 2^20 elements, 32 x 256 threads: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let out = out.to_vec();
    for i in 0..n {
        let want = 0.5 * input[i] + 0.5 * input[(i + 1) % n];
        assert_eq!(out[i].to_bits(), want.to_bits(), "element {i}");
    }
}

#[test]
fn jacobi_256_by_256_for_100_sweeps_in_one_cooperative_launch() {
    let (nx, ny, sweeps) = (256usize, 256usize, 100u32);
    let mut init = random_f32(nx * ny, 3);
    for y in 1..ny - 1 {
        for x in 1..nx - 1 {
            init[y * nx + x] = 0.0;
        }
    }
    let a = Buffer::from_slice(&init);
    let b = Buffer::from_slice(&init);
    let start = Instant::now();
    sim::launch(Shape::new(32, 256).cooperative(), || {
        let (a, b): (Synced<f32>, Output<f32, Points>) = (a.view(), b.view());
        let (nx, ny) = (sim::uniform(nx as u32), sim::uniform(ny as u32));
        cg_sample_kernels::jacobi::jacobi_persistent(a, b, nx, ny, sweeps)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    println!(
        "Jacobi 256 x 256 x 100, 32 x 256 threads: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let want = jacobi_cpu(&init, nx, ny, sweeps);
    let got = if sweeps % 2 == 1 {
        b.to_vec()
    } else {
        a.to_vec()
    };
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "point {i}");
    }
}

/// The overlapped NCCL method's two kernels, the exchange done on the
/// host: per sweep and band, `jacobi_edges` (the band's first and last
/// rows, from the halo rows beside it, into the band and the two send
/// rows) and `jacobi_sweep` over the band alone (its other rows); then the
/// send rows copied into the neighbours' halo rows. After every sweep the
/// bands are the CPU field's rows, bit for bit, and the send rows the
/// band's edge rows; on bands of one row too, and blocks ending in a
/// partial warp.
#[test]
fn jacobi_in_bands_with_edges_first_is_the_cpu_field() {
    use cg_samples::experiments::jacobi_multi::bands;
    for (nx, ny, parts, sweeps) in [
        (37usize, 29usize, 3usize, 5u32),
        (21, 6, 4, 4),
        (40, 12, 1, 3),
    ] {
        let init = random_f32(nx * ny, 50 + parts as u64);
        let split = bands(ny, parts);
        // Each band's buffers: [body; 2], [above; 2], [below; 2], up, down.
        let row = |r: usize| init[r * nx..(r + 1) * nx].to_vec();
        let mut body: Vec<[Vec<f32>; 2]> = split
            .iter()
            .map(|&(f, n)| [0, 1].map(|_| init[f * nx..(f + n) * nx].to_vec()))
            .collect();
        let mut above: Vec<[Vec<f32>; 2]> = split
            .iter()
            .map(|&(f, _)| [row(f - 1), row(f - 1)])
            .collect();
        let mut below: Vec<[Vec<f32>; 2]> = split
            .iter()
            .map(|&(f, n)| [row(f + n), row(f + n)])
            .collect();
        for s in 0..sweeps {
            let (p, q) = ((s % 2) as usize, (1 - s % 2) as usize);
            let mut sent = Vec::new();
            for (i, &(f, n)) in split.iter().enumerate() {
                let dst = Buffer::from_slice(&body[i][q]);
                let (up, down) = (
                    Buffer::from_slice(&row(f)),
                    Buffer::from_slice(&row(f + n - 1)),
                );
                let (nx_u, rows) = (sim::uniform(nx as u32), sim::uniform(n as u32));
                sim::launch(Shape::new(3, 45), || {
                    cg_sample_kernels::jacobi::jacobi_edges(
                        &above[i][p],
                        &body[i][p],
                        &below[i][p],
                        dst.view(),
                        up.view(),
                        down.view(),
                        nx_u,
                        rows,
                    )
                })
                .unwrap()
                .all_defined()
                .unwrap();
                let src = body[i][p].clone();
                sim::launch(Shape::new(3, 45), || {
                    cg_sample_kernels::jacobi::jacobi_sweep(&src, dst.view(), nx_u, rows)
                })
                .unwrap()
                .all_defined()
                .unwrap();
                body[i][q] = dst.to_vec();
                let (up, down) = (up.to_vec(), down.to_vec());
                assert_eq!(up[..], body[i][q][..nx], "sweep {s}, band {i}: the up row");
                assert_eq!(
                    down[..],
                    body[i][q][(n - 1) * nx..],
                    "sweep {s}, band {i}: the down row"
                );
                sent.push((up, down));
            }
            for i in 0..split.len() {
                if i > 0 {
                    above[i][q] = sent[i - 1].1.clone();
                }
                if i + 1 < split.len() {
                    below[i][q] = sent[i + 1].0.clone();
                }
            }
            let want = jacobi_cpu(&init, nx, ny, s + 1);
            for (i, &(f, n)) in split.iter().enumerate() {
                let got = &body[i][q];
                for (j, (g, w)) in got.iter().zip(&want[f * nx..(f + n) * nx]).enumerate() {
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{nx} x {ny}, {parts} bands, sweep {s}, band {i}, point {j}"
                    );
                }
            }
        }
    }
}

/// Elements past the field in each buffer of the Jacobi tests, poisoned:
/// the kernel must leave them alone.
const PAST_THE_FIELD: usize = 37;

#[test]
fn jacobi_in_shared_memory_is_the_cpu_field_for_every_depth_and_shape() {
    for (n, c) in common::in_shared_cases().into_iter().enumerate() {
        let init = random_f32((c.nx * c.ny) as usize, 40 + n as u64);
        let padded: Vec<f32> = init
            .iter()
            .copied()
            .chain(std::iter::repeat_n(f32::NAN, PAST_THE_FIELD))
            .collect();
        let (a, b) = (Buffer::from_slice(&padded), Buffer::from_slice(&padded));
        let shape = Shape::new(c.blocks, c.threads)
            .cooperative()
            .with_dynamic_shared(c.shared_bytes());
        sim::launch(shape, || {
            let (a, b): (Synced<f32>, Output<f32, Chunks>) = (a.view(), b.view());
            let (nx, ny) = (sim::uniform(c.nx), sim::uniform(c.ny));
            cg_sample_kernels::jacobi::jacobi_in_shared(a, b, nx, ny, c.sweeps, c.depth)
        })
        .unwrap_or_else(|f| panic!("{c:?}: {f}"))
        .all_defined()
        .unwrap();
        let want = jacobi_cpu(&init, c.nx as usize, c.ny as usize, c.sweeps);
        let got = if c.sweeps % 2 == 1 {
            b.to_vec()
        } else {
            a.to_vec()
        };
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "{c:?}: point {i}");
        }
        for buffer in [&a, &b] {
            let tail = &buffer.to_vec()[init.len()..];
            assert!(
                tail.iter().all(|v| v.is_nan()),
                "{c:?}: written past the field"
            );
        }
    }
}

/// One float less than `in_shared_bytes` traps: for a depth the kernel
/// takes as asked, and for one deeper than the field is high (which both
/// the kernel and the byte count clip to the height), so the count is
/// exact in both.
#[test]
fn planted_jacobi_in_shared_memory_one_float_short_traps() {
    let cases = common::in_shared_cases();
    let deep = cases.iter().find(|c| c.depth > c.ny).expect("a deep case");
    for c in [cases[0], *deep] {
        let init = random_f32((c.nx * c.ny) as usize, 5);
        let (a, b) = (Buffer::from_slice(&init), Buffer::from_slice(&init));
        let shape = Shape::new(c.blocks, c.threads)
            .cooperative()
            .with_dynamic_shared(c.shared_bytes() - 4);
        let f = sim::launch(shape, || {
            let (a, b): (Synced<f32>, Output<f32, Chunks>) = (a.view(), b.view());
            let (nx, ny) = (sim::uniform(c.nx), sim::uniform(c.ny));
            cg_sample_kernels::jacobi::jacobi_in_shared(a, b, nx, ny, c.sweeps, c.depth)
        })
        .unwrap_err();
        assert_eq!(f.kind, cg_core::sim::FaultKind::Panic, "{c:?}: {f}");
        assert!(f.message.contains("jacobi.rs"), "{c:?}: {f}");
    }
}

/// Small integers as `f32`: every sum of them is exact in any order, so
/// kernels that add in different orders must all give the CPU's sum.
fn integer_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-8i32..=8) as f32).collect()
}

/// Each block reduction in its largest blocks: 1024 threads, or the 256
/// of a `block_size(256)` kernel.
#[test]
fn block_reductions_in_their_largest_blocks() {
    let blocks = 3usize;
    for (name, kernel, threads) in common::block_reductions() {
        let threads = threads as usize;
        let input = integer_f32(blocks * threads, 11);
        let want: Vec<f32> = input.chunks(threads).map(|c| c.iter().sum()).collect();
        let sums = Buffer::<f32>::filled(blocks, f32::NAN);
        let start = Instant::now();
        sim::launch(Shape::new(blocks as u32, threads as u32), || {
            kernel(&input, sums.view())
        })
        .unwrap_or_else(|f| panic!("{name}: {f}"))
        .all_defined()
        .unwrap();
        println!(
            "{name}: {blocks} blocks of {threads}: {:.2} s",
            start.elapsed().as_secs_f64()
        );
        assert_eq!(sums.to_vec(), want, "{name}");
    }
}

/// The chunked kernels and the kernels for blocks of exactly 256 threads
/// (`block_size(256)`) give the bits of the seed's one-chunk kernels.
#[test]
fn block_reductions_of_several_chunks_per_block_have_the_one_chunk_bits() {
    use cg_sample_kernels::block_reduce as br;
    // 9 chunks of 256 threads' elements, the last of them 100 elements
    // long: a partial last block.
    let (threads, n) = (256usize, 8 * 256 + 100);
    let mut input = random_f32(n, 13);
    // A chunk of -0.0: its sum is -0.0 or +0.0 by the order of the adds
    // (a warp's shuffles over zero lanes make it +0.0).
    input[2 * threads..3 * threads].fill(-0.0);
    let chunks = n.div_ceil(threads);
    let blocks = chunks.div_ceil(br::CHUNKS) as u32;
    // One type for the one-element and the chunk forms (their outputs'
    // patterns differ): each called with the sums' buffer.
    type Kernel = fn(&[f32], &Buffer<f32>);
    let forms: [(&str, Kernel, Kernel, Kernel); 3] = [
        (
            "classic",
            |x, s| br::block_reduce_classic(x, s.view()),
            |x, s| br::block_reduce_classic_256(x, s.view()),
            |x, s| br::block_reduce_classic_chunks(x, s.view()),
        ),
        (
            "warp",
            |x, s| br::block_reduce_warp(x, s.view()),
            |x, s| br::block_reduce_warp_256(x, s.view()),
            |x, s| br::block_reduce_warp_chunks(x, s.view()),
        ),
        (
            "hierarchical",
            |x, s| br::block_reduce_hierarchical(x, s.view()),
            |x, s| br::block_reduce_hierarchical_256(x, s.view()),
            |x, s| br::block_reduce_hierarchical_chunks(x, s.view()),
        ),
    ];
    let run = |kernel: Kernel, blocks: u32, threads: u32| {
        let sums = Buffer::<f32>::filled(chunks, f32::NAN);
        sim::launch(Shape::new(blocks, threads), || kernel(&input, &sums))
            .map(|report| report.all_defined().unwrap())
            .map(|_| sums.to_vec())
    };
    for (name, one, fixed, several) in forms {
        let want = run(one, chunks as u32, threads as u32).unwrap();
        let got = run(several, blocks, threads as u32).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "{name}");
        let fixed_sums = run(fixed, chunks as u32, threads as u32).unwrap();
        assert_eq!(bits(&fixed_sums), bits(&want), "{name}, block_size(256)");
        common::assert_sum_close(name, got[chunks - 1], &input[(chunks - 1) * threads..]);
        // Blocks of another size are refused, not misread.
        for kernel in [several, fixed] {
            for threads in [512, 128] {
                let fault = run(kernel, 1, threads).unwrap_err().to_string();
                assert!(fault.contains("blocks of 256 threads"), "{name}: {fault}");
            }
        }
    }
}

#[test]
fn whole_array_sums_cooperative_last_block_two_launches_and_atomic() {
    use cg_core::atomic::AtomicSlice;
    use cg_sample_kernels::grid_sum as k;
    let n = 100_003;
    let input = integer_f32(n, 5);
    let want: f32 = input.iter().sum();
    let shape = Shape::new(8, 256);
    for (name, cooperative_kernel) in [
        (
            "grid_sum",
            k::grid_sum
                as fn(&[f32], Output<f32, Leaders<ThreadBlock>>, Output<f32, Leaders<ThreadBlock>>),
        ),
        ("grid_sum_vec4", k::grid_sum_vec4),
    ] {
        let partials = Buffer::<f32>::zeroed(8);
        let out = Buffer::<f32>::filled(1, f32::NAN);
        sim::launch(shape.cooperative(), || {
            cooperative_kernel(&input, partials.view(), out.view())
        })
        .unwrap_or_else(|f| panic!("{name}: {f}"));
        assert_eq!(out.to_vec()[0], want, "{name}");
    }
    let partials = Buffer::<f32>::zeroed(8);
    let counter = Buffer::<u32>::zeroed(1);
    let out = Buffer::<f32>::zeroed(1);
    sim::launch(shape, || {
        k::sum_last_block(&input, partials.view(), counter.view(), out.view())
    })
    .unwrap();
    assert_eq!(out.to_vec()[0], want, "sum_last_block");
    // Two launches: one partial sum per block, then the partials.
    let partials = Buffer::<f32>::zeroed(8);
    sim::launch(shape, || k::sum_block_partials(&input, partials.view())).unwrap();
    let partials = partials.to_vec();
    let out = Buffer::<f32>::zeroed(1);
    sim::launch(Shape::new(1, 256), || {
        k::sum_partials(&partials, out.view())
    })
    .unwrap();
    assert_eq!(out.to_vec()[0], want, "sum_block_partials + sum_partials");
    let out = Buffer::<f32>::zeroed(1);
    let blocks = n.div_ceil(256) as u32;
    sim::launch(Shape::new(blocks, 256), || {
        let out: AtomicSlice<f32> = out.view();
        k::sum_atomic(&input, out)
    })
    .unwrap();
    assert_eq!(out.to_vec()[0], want, "sum_atomic");
}

#[test]
fn asynchronous_copies_barriers_and_pipelines() {
    use cg_sample_kernels::async_copy as k;
    let n = 5 * 256 + 17;
    let a = random_f32(n, 21);
    let b = random_f32(n, 22);
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    type Vadd = fn(&[f32], &[f32], Output<f32, Chunks>);
    let kernels: [(&str, Vadd, u32); 5] = [
        ("vadd_sync", k::vadd_sync, 2 * 256 * 4),
        ("vadd_memcpy_async", k::vadd_memcpy_async, 2 * 256 * 4),
        ("vadd_barrier", k::vadd_barrier, 2 * 256 * 4),
        (
            "vadd_pipelined::<2>",
            k::vadd_pipelined::<2>,
            2 * 2 * 256 * 4,
        ),
        (
            "vadd_pipelined::<4>",
            k::vadd_pipelined::<4>,
            4 * 2 * 256 * 4,
        ),
    ];
    for (name, kernel, shared) in kernels {
        let c = Buffer::<f32>::filled(n, f32::NAN);
        sim::launch(Shape::new(3, 256).with_dynamic_shared(shared), || {
            kernel(&a, &b, c.view())
        })
        .unwrap_or_else(|f| panic!("{name}: {f}"))
        .all_defined()
        .unwrap();
        assert_eq!(c.to_vec(), want, "{name}");
    }
    let src: Vec<i32> = {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        (0..n).map(|_| rng.random_range(-100..100)).collect()
    };
    let dest = Buffer::<i32>::filled(n, -1);
    sim::launch(Shape::new(3, 256).with_dynamic_shared(4 * 256 * 4), || {
        k::in_between_pipelined(&src, dest.view())
    })
    .unwrap();
    let dest = dest.to_vec();
    for (c, chunk) in src.chunks(256).enumerate() {
        let (first, last) = (chunk[0], chunk[chunk.len() - 1]);
        for (t, &v) in chunk.iter().enumerate() {
            assert_eq!(
                dest[c * 256 + t],
                (first < v && v < last) as i32,
                "element {}",
                c * 256 + t
            );
        }
    }
}

#[test]
fn histograms_in_shared_memory_and_across_a_cluster() {
    use cg_core::atomic::AtomicSlice;
    use cg_sample_kernels::{cluster, histogram};
    let bins = histogram::SHARED_HISTOGRAM_BINS;
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    let values: Vec<u32> = (0..50_000)
        .map(|_| rng.random_range(0..bins as u32))
        .collect();
    let mut want = vec![0u32; bins];
    for &v in &values {
        want[v as usize] += 1;
    }
    // The shared-memory histogram skips values past its bins.
    let mut skipping = values.clone();
    skipping.extend([bins as u32, u32::MAX, bins as u32 + 7]);
    let got = Buffer::<u32>::zeroed(bins);
    sim::launch(Shape::new(4, 256), || {
        let b: AtomicSlice<u32> = got.view();
        histogram::shared_histogram(&skipping, b)
    })
    .unwrap();
    assert_eq!(got.to_vec(), want, "shared_histogram");
    let got = Buffer::<u32>::zeroed(bins);
    sim::launch(Shape::new(8, 256).with_cluster([4, 1, 1]), || {
        let b: AtomicSlice<u32> = got.view();
        cluster::cluster_histogram(&values, b)
    })
    .unwrap();
    assert_eq!(got.to_vec(), want, "cluster_histogram");
}

#[test]
fn clusters_read_their_neighbours_shared_memory() {
    use cg_sample_kernels::cluster;
    let (blocks, threads) = (8usize, 128usize);
    let data = integer_f32(blocks * threads, 41);
    let out = Buffer::<f32>::filled(blocks * threads, f32::NAN);
    sim::launch(
        Shape::new(blocks as u32, threads as u32).with_cluster([2, 1, 1]),
        || cluster::cluster_neighbour_sum(&data, out.view()),
    )
    .unwrap()
    .all_defined()
    .unwrap();
    let out = out.to_vec();
    for b in 0..blocks {
        let peer = b ^ 1;
        for t in 0..threads {
            assert_eq!(
                out[b * threads + t],
                data[b * threads + t] + data[peer * threads + t],
                "block {b} thread {t}"
            );
        }
    }
    let sums = Buffer::<f32>::filled(blocks / 4, f32::NAN);
    sim::launch(
        Shape::new(blocks as u32, threads as u32).with_cluster([4, 1, 1]),
        || cluster::cluster_reduce(&data, sums.view()),
    )
    .unwrap();
    let want: Vec<f32> = data.chunks(4 * threads).map(|c| c.iter().sum()).collect();
    assert_eq!(sums.to_vec(), want);
}

/// The two prefix sums of the samples (`grid_prefix_sum`, three phases
/// written by hand; `grid_prefix_sum_one_pass`, the grid collective) on
/// random `u32` of a length that ends in a partial tile and a partial
/// block chunk, each against the CPU's wrapping sums; the elements of
/// `out` past the input are poisoned and must be left alone.
#[test]
fn cooperative_prefix_sums_by_hand_and_by_the_grid_scan() {
    use cg_core::atomic::AtomicSlice;
    use cg_core::grid_collectives::grid_scratch_words;
    use cg_core::output::Runs;
    let (blocks, threads, n) = (6u32, 256u32, 40_000usize + 37);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want: Vec<u32> = input
        .iter()
        .scan(0u32, |acc, &v| {
            *acc = acc.wrapping_add(v);
            Some(*acc)
        })
        .collect();
    const POISON: u32 = 0xDEAD_BEEF;
    let check = |got: Vec<u32>, which: &str| {
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{which}: element {i}");
        }
        assert!(
            got[n..].iter().all(|&p| p == POISON),
            "{which}: past the input"
        );
    };
    let shape = Shape::new(blocks, threads).cooperative();
    let totals = Buffer::<u32>::zeroed(blocks as usize);
    let out = Buffer::from_slice(&vec![POISON; n + 5]);
    sim::launch(shape, || {
        let (totals, out): (Output<u32, Leaders<ThreadBlock>>, Output<u32, Chunks>) =
            (totals.view(), out.view());
        cg_sample_kernels::patterns::grid_prefix_sum(&input, totals, out)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    check(out.to_vec(), "grid_prefix_sum");
    let words = Buffer::<u64>::zeroed(grid_scratch_words::<u32>(blocks, threads, n));
    let out = Buffer::from_slice(&vec![POISON; n + 5]);
    sim::launch(shape, || {
        let (out, words): (Output<u32, Chunks<Runs>>, AtomicSlice<u64>) =
            (out.view(), words.view());
        cg_sample_kernels::patterns::grid_prefix_sum_one_pass(&input, out, words)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    check(out.to_vec(), "grid_prefix_sum_one_pass");
}
