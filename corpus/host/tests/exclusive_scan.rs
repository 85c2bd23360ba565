//! exclusive_scan through the host function, against the CPU (exact:
//! wrapping integer sums).

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn exclusive_scan_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("exclusive_scan_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(3);
    for n in [0, 1, 31, 255, 256, 257, 1000, 10_007, 100_003] {
        // Large values, so that the sums wrap.
        let x: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
        let (y, block_totals) = corpus_host::exclusive_scan(&gpu, &x).unwrap();
        let mut want = Vec::with_capacity(n);
        let mut run = 0u32;
        for &v in &x {
            want.push(run);
            run = run.wrapping_add(v);
        }
        assert_eq!(y, want, "n = {n}");
        let blocks = block_totals.len();
        let c = n.div_ceil(blocks);
        for (b, &t) in block_totals.iter().enumerate() {
            let chunk = &x[(b * c).min(n)..((b + 1) * c).min(n)];
            let want = chunk.iter().fold(0u32, |s, &v| s.wrapping_add(v));
            assert_eq!(t, want, "block total {b} of n = {n}");
        }
    }
}
