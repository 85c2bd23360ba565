//! row_normalize through the host function, against the CPU (exact: one
//! division per element by the row's largest absolute value).

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn row_normalize_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("row_normalize_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(9);
    for (rows, cols) in common::ROW_SHAPES {
        let mut a = rng.f32s(rows * cols, -10.0, 10.0);
        // A row of zeros gives NaNs (0 / 0).
        if rows > 2 {
            a[cols..2 * cols].fill(0.0);
        }
        let b = corpus_host::row_normalize(&gpu, &a, rows, cols).unwrap();
        assert_eq!(b.len(), rows * cols);
        for r in 0..rows {
            let row = &a[r * cols..(r + 1) * cols];
            let m = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            for c in 0..cols {
                let (got, want) = (b[r * cols + c], row[c] / m);
                if want.is_nan() {
                    assert!(
                        got.is_nan(),
                        "b[{r}][{c}] of {rows} x {cols}: {got}, not NaN"
                    );
                } else {
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "b[{r}][{c}] of {rows} x {cols}"
                    );
                }
            }
        }
    }
}
