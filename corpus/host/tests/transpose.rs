//! transpose through the host function, against the CPU (exact).

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn transpose_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("transpose_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(8);
    for (rows, cols) in [
        (1, 1),
        (1, 37),
        (33, 1),
        (31, 65),
        (32, 32),
        (64, 96),
        (100, 47),
    ] {
        let a = rng.f32s(rows * cols, -10.0, 10.0);
        let t = corpus_host::transpose(&gpu, &a, rows, cols).unwrap();
        assert_eq!(t.len(), rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(
                    t[c * rows + r].to_bits(),
                    a[r * cols + c].to_bits(),
                    "a[{r}][{c}] of {rows} x {cols}"
                );
            }
        }
    }
}
