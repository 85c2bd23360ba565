//! spmv_csr through the host function, against an f64 CPU product.

mod common;

use common::{close, Rng};
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn spmv_csr_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("spmv_csr_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(6);
    for (rows, ncols) in [
        (0, 1),
        (1, 1),
        (1, 100),
        (7, 3),
        (33, 50),
        (300, 200),
        (9000, 1000),
    ] {
        // Rows of 0 to 63 nonzeros, empty rows included.
        let mut row_ptr = vec![0u32];
        let mut cols = Vec::new();
        let mut vals = Vec::new();
        for _ in 0..rows {
            let nnz = rng.below(64);
            for _ in 0..nnz {
                cols.push(rng.below(ncols));
                vals.push(rng.f32(-1.0, 1.0));
            }
            row_ptr.push(cols.len() as u32);
        }
        let x = rng.f32s(ncols as usize, -1.0, 1.0);
        let y = corpus_host::spmv_csr(&gpu, &row_ptr, &cols, &vals, &x).unwrap();
        assert_eq!(y.len(), rows);
        for r in 0..rows {
            let ks = row_ptr[r] as usize..row_ptr[r + 1] as usize;
            let want: f64 = ks
                .clone()
                .map(|k| vals[k] as f64 * x[cols[k] as usize] as f64)
                .sum();
            let scale: f64 = ks
                .map(|k| (vals[k] as f64 * x[cols[k] as usize] as f64).abs())
                .sum();
            assert!(
                close(y[r], want, 1e-5 * scale.max(1.0)),
                "row {r} of {rows}: {} vs {want}",
                y[r]
            );
        }
    }
}
