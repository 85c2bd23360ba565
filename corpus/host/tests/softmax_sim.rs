//! `softmax` called directly on the CPU simulator (`cg_core::sim::launch`),
//! against a CPU reference in `f64`, within SPEC.md's bound (relative
//! `1e-5` per element).

use cg_core::sim::{self, Buffer, Shape};

/// Values on a grid of 1/1024 in [-8, 8): `a - max` is exact in `f32`,
/// so the only rounding is `exp`'s, the sum's and the division's.
fn matrix(rows: usize, cols: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| ((i as u64 * 7919 + 13) % 16384) as f32 / 1024.0 - 8.0)
        .collect()
}

fn reference(a: &[f32], cols: usize) -> Vec<f64> {
    let mut b = Vec::with_capacity(a.len());
    for row in a.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        b.extend(row.iter().map(|&v| (v as f64 - m).exp() / s));
    }
    b
}

#[test]
fn softmax_on_the_simulator() {
    // Rows shorter than a block, of a block and a partial one, longer.
    for (rows, cols, blocks) in [
        (1, 1, 1),
        (3, 100, 3),
        (2, 256, 2),
        (4, 1000, 4),
        (2, 2048, 2),
        (2, 300, 5),
    ] {
        let a = matrix(rows, cols);
        let b = Buffer::<f32>::filled(rows * cols, f32::NAN);
        // `blocks` > `rows`: the blocks past the last row do nothing.
        sim::launch(Shape::new(blocks, 256), || {
            corpus_kernels::softmax::softmax(&a, b.view(), cols as u32)
        })
        .unwrap()
        .all_defined()
        .unwrap();
        let want = reference(&a, cols);
        for (i, (&got, &want)) in b.to_vec().iter().zip(&want).enumerate() {
            let err = (got as f64 - want).abs();
            assert!(
                err <= 1e-5 * want,
                "{rows} x {cols}, element {i}: {got} against {want}"
            );
        }
    }
}
