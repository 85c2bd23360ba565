//! GPU tests of thread-block clusters (sm_90): every group query for
//! cluster shapes 1, 2, 4, 8 and 2-D/3-D shapes, distributed shared memory
//! (neighbour sum, cluster reduction, histogram with atomics in another
//! block's shared memory), and the launch checks. Every thread's result is
//! compared with a CPU model; outputs are poisoned first.

mod common;

use cg_samples::kernels::Kernels as SampleKernels;
use cg_tests::kernels::Kernels;
use cooperative_groups::{Error, Gpu, LaunchConfig};
use rand::Rng;

/// The GPU, when it has clusters, with the test kernels and the sample kernels loaded.
fn cluster_gpu(test: &str) -> Option<(Gpu, Kernels, SampleKernels)> {
    let gpu = common::gpu(test)?;
    if gpu.info().sm < 90 {
        println!(
            "{test}: {} is sm_{}, without clusters; checking that cluster kernels say so",
            gpu.info().name,
            gpu.info().sm
        );
        let k = Kernels::load(&gpu).unwrap();
        let mut out = gpu.filled(8, 0u32).unwrap();
        let e = k
            .probe_cluster
            .launch(LaunchConfig::new(2, 32).with_cluster(2), &mut out)
            .unwrap_err();
        assert!(matches!(e, Error::KernelUnavailable { .. }), "{e}");
        return None;
    }
    let k = Kernels::load(&gpu).unwrap();
    let s = SampleKernels::load(&gpu).unwrap();
    Some((gpu, k, s))
}

fn lin(i: [u32; 3], d: [u32; 3]) -> u32 {
    (i[2] * d[1] + i[1]) * d[0] + i[0]
}

#[test]
fn cluster_queries_match_cuda() {
    let Some((gpu, k, _)) = cluster_gpu("cluster_queries_match_cuda") else {
        return;
    };
    for (grid, cluster, block) in [
        ([8, 1, 1], [1, 1, 1], [64, 1, 1]),
        ([8, 1, 1], [2, 1, 1], [64, 1, 1]),
        ([16, 1, 1], [4, 1, 1], [96, 1, 1]),
        ([16, 1, 1], [8, 1, 1], [32, 1, 1]),
        ([4, 6, 1], [2, 2, 1], [8, 4, 1]),
        ([6, 4, 2], [2, 2, 2], [4, 4, 2]),
        ([3, 8, 1], [1, 4, 1], [128, 1, 1]),
    ] {
        let bt = block[0] * block[1] * block[2];
        let nb = grid[0] * grid[1] * grid[2];
        let cfg = LaunchConfig::new((grid[0], grid[1], grid[2]), (block[0], block[1], block[2]))
            .with_cluster((cluster[0], cluster[1], cluster[2]));
        let mut out = gpu.filled((nb * bt * 8) as usize, 0xDEAD_BEEFu32).unwrap();
        k.probe_cluster.launch(cfg, &mut out).unwrap();
        let got = out.to_vec().unwrap();
        let csize = cluster[0] * cluster[1] * cluster[2];
        let nclusters = [
            grid[0] / cluster[0],
            grid[1] / cluster[1],
            grid[2] / cluster[2],
        ];
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    let b = [bx, by, bz];
                    let in_cluster = [bx % cluster[0], by % cluster[1], bz % cluster[2]];
                    let cid = [bx / cluster[0], by / cluster[1], bz / cluster[2]];
                    let rank = lin(in_cluster, cluster);
                    for t in 0..bt {
                        let r = (lin(b, grid) * bt + t) as usize;
                        let want = [
                            csize,
                            rank,
                            in_cluster[0],
                            in_cluster[1],
                            in_cluster[2],
                            rank * bt + t,
                            csize * bt,
                            lin(cid, nclusters),
                        ];
                        assert_eq!(
                            &got[8 * r..8 * r + 8],
                            &want,
                            "block {b:?} thread {t}, grid {grid:?}, cluster {cluster:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn neighbour_sum_reads_the_next_block_of_the_cluster() {
    let Some((gpu, _, s)) = cluster_gpu("neighbour_sum_reads_the_next_block_of_the_cluster") else {
        return;
    };
    let mut rng = common::rng("cluster_neighbour_sum");
    for (n, threads) in [
        (1usize, 32u32),
        (1000, 128),
        (
            common::sizes(&[(1 << 20) + 5])
                .first()
                .copied()
                .unwrap_or(65_541),
            256,
        ),
    ] {
        let data = common::random_f32(&mut rng, n);
        let blocks = (n as u32).div_ceil(threads).next_multiple_of(2);
        let input = gpu.upload(&data).unwrap();
        let mut out = gpu.filled(n, f32::NAN).unwrap();
        s.cluster_neighbour_sum
            .launch(LaunchConfig::new(blocks, threads), &input, &mut out)
            .unwrap();
        let got = out.to_vec().unwrap();
        let at = |j: usize| if j < n { data[j] } else { 0.0 };
        for i in 0..n {
            let (b, t) = (i / threads as usize, i % threads as usize);
            let peer = (b ^ 1) * threads as usize + t;
            assert_eq!(got[i], data[i] + at(peer), "element {i} of {n}");
        }
    }
}

#[test]
fn cluster_reduce_sums_four_blocks_through_distributed_shared_memory() {
    let Some((gpu, _, s)) = cluster_gpu("cluster_reduce_sums_four_blocks") else {
        return;
    };
    let mut rng = common::rng("cluster_reduce");
    for (n, threads) in [(1usize, 32u32), (5000, 256), (100_003, 1024)] {
        let data = common::random_f32(&mut rng, n);
        let blocks = (n as u32).div_ceil(threads).next_multiple_of(4);
        let input = gpu.upload(&data).unwrap();
        let mut sums = gpu.filled((blocks / 4) as usize, f32::NAN).unwrap();
        s.cluster_reduce
            .launch(LaunchConfig::new(blocks, threads), &input, &mut sums)
            .unwrap();
        let got = sums.to_vec().unwrap();
        let per = 4 * threads as usize;
        for (c, &s) in got.iter().enumerate() {
            let chunk = &data[(c * per).min(n)..((c + 1) * per).min(n)];
            common::assert_sum_close(
                &format!("cluster {c} ({threads} threads, n = {n})"),
                s,
                chunk,
            );
        }
    }
}

#[test]
fn cluster_histogram_counts_every_value() {
    let Some((gpu, _, s)) = cluster_gpu("cluster_histogram_counts_every_value") else {
        return;
    };
    let mut rng = common::rng("cluster_histogram");
    let nbins = 4 * cg_samples::experiments::clusters::HISTOGRAM_BINS_PER_BLOCK;
    for n in common::sizes(&[1, 1000, (1 << 20) + 3]) {
        let values: Vec<u32> = (0..n).map(|_| rng.random_range(0..nbins as u32)).collect();
        let input = gpu.upload(&values).unwrap();
        let mut bins = gpu.filled(nbins, 0u32).unwrap();
        for blocks in [4u32, 132 * 4] {
            bins.copy_from(&vec![0; nbins]).unwrap();
            s.cluster_histogram
                .launch(LaunchConfig::new(blocks, 256), &input, &mut bins)
                .unwrap();
            let got = bins.to_vec().unwrap();
            let mut want = vec![0u32; nbins];
            for &v in &values {
                want[v as usize] += 1;
            }
            assert_eq!(got, want, "n = {n}, {blocks} blocks");
        }
    }
}

#[test]
fn cluster_launch_checks_say_what_is_wrong() {
    let Some((gpu, k, s)) = cluster_gpu("cluster_launch_checks_say_what_is_wrong") else {
        return;
    };
    let mut out = gpu.filled(64 * 8 * 16, 0u32).unwrap();
    let cases = [
        (
            LaunchConfig::new(7, 64).with_cluster(2),
            "grid.x = 7 is not a multiple of cluster.x = 2",
        ),
        (
            LaunchConfig::new(16, 64).with_cluster(16),
            "exceeds the portable maximum of 8",
        ),
        (LaunchConfig::new(16, 64), "LaunchConfig::with_cluster"),
    ];
    for (cfg, needle) in cases {
        let e = k
            .probe_cluster
            .launch(cfg, &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{cfg:?}: {e}");
    }
    let input = gpu.upload(&[1.0f32; 64]).unwrap();
    let mut o = gpu.filled(64, 0.0f32).unwrap();
    let e = s
        .cluster_neighbour_sum
        .launch(LaunchConfig::new(2, 32).with_cluster(4), &input, &mut o)
        .unwrap_err();
    assert!(e.to_string().contains("the kernel declares"), "{e}");
    let clusters = s
        .cluster_reduce
        .function()
        .unwrap()
        .max_active_clusters(LaunchConfig::new(1024, 256).with_cluster(4))
        .unwrap();
    assert!(clusters > 0, "no cluster of 4 blocks of 256 threads fits");
    println!("clusters of 4 x 256 threads resident at once: {clusters}");
}

#[test]
fn cooperative_cluster_launch_has_both_barriers() {
    let Some((gpu, k, _)) = cluster_gpu("cooperative_cluster_launch_has_both_barriers") else {
        return;
    };
    let f = k.probe_cluster_grid.function().unwrap();
    let limit = f.max_cooperative_blocks(128, 0).unwrap();
    for blocks in [2u32, 64, (gpu.info().multiprocessors).min(limit) / 2 * 2] {
        let n = blocks * 128;
        let mut scratch = gpu.filled(n as usize, 0u32).unwrap();
        let mut out = gpu.filled(n as usize, 0xDEAD_BEEFu32).unwrap();
        k.probe_cluster_grid
            .launch(LaunchConfig::new(blocks, 128), &mut scratch, &mut out, n)
            .unwrap();
        gpu.synchronize_timeout(std::time::Duration::from_secs(20))
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..n {
            let want = ((i + 1) % n)
                .wrapping_mul(2_654_435_761)
                .wrapping_add((i / 128) % 2);
            assert_eq!(got[i as usize], want, "thread {i} of {blocks} blocks");
        }
    }
}
