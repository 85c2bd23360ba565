//! block_sum through the host function, against an f64 CPU sum.

mod common;

use common::{close, Rng};
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn block_sum_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("block_sum_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(2);
    for n in [0, 1, 31, 255, 256, 257, 1000, 10_007, 100_003] {
        let x = rng.f32s(n, -1.0, 1.0);
        let (partials, total) = corpus_host::block_sum(&gpu, &x).unwrap();
        let blocks = partials.len();
        assert!(blocks >= 1);
        // Each partial is its chunk's sum.
        let c = n.div_ceil(blocks);
        for (b, &p) in partials.iter().enumerate() {
            let chunk = &x[(b * c).min(n)..((b + 1) * c).min(n)];
            let want: f64 = chunk.iter().map(|&v| v as f64).sum();
            let scale: f64 = chunk.iter().map(|&v| (v as f64).abs()).sum();
            assert!(
                close(p, want, 1e-5 * scale.max(1.0)),
                "partial {b} of n = {n}: {p} vs {want}"
            );
        }
        let want: f64 = x.iter().map(|&v| v as f64).sum();
        let scale: f64 = x.iter().map(|&v| (v as f64).abs()).sum();
        assert!(
            close(total, want, 1e-5 * scale.max(1.0)),
            "n = {n}: {total} vs {want}"
        );
    }
}
