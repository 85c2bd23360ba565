//! softmax against an f64 CPU reference, within SPEC.md's bound (relative
//! `1e-5` per element): through the host function (on the GPU where there
//! is one, else on the simulator), and called directly on the simulator
//! with more blocks than rows.

mod common;

use cg_core::sim::{self, Buffer, Shape};
use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

/// Each row's softmax, in f64 from the f32 inputs.
fn reference(a: &[f32], cols: usize) -> Vec<f64> {
    let mut b = Vec::with_capacity(a.len());
    for row in a.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        b.extend(row.iter().map(|&v| (v as f64 - m).exp() / s));
    }
    b
}

/// Every element within `1e-5` of the reference, relatively (the inputs
/// keep `exp(a - m)` far from underflow).
fn check(b: &[f32], a: &[f32], rows: usize, cols: usize) {
    assert_eq!(b.len(), rows * cols);
    for (i, (&got, want)) in b.iter().zip(reference(a, cols)).enumerate() {
        assert!(
            (got as f64 - want).abs() <= 1e-5 * want,
            "b[{}][{}] of {rows} x {cols}: {got}, the CPU's {want}",
            i / cols,
            i % cols
        );
    }
}

#[test]
fn softmax_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("softmax_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(10);
    for (rows, cols) in common::ROW_SHAPES {
        let mut a = rng.f32s(rows * cols, -10.0, 10.0);
        // A row of one value: every element 1 / cols.
        if rows > 2 {
            a[cols..2 * cols].fill(3.5);
        }
        let b = corpus_host::softmax(&gpu, &a, rows, cols).unwrap();
        check(&b, &a, rows, cols);
    }
}

#[test]
fn blocks_past_the_last_row_do_nothing() {
    // Values on a grid of 1/1024 in [-8, 8): `a - m` exact in f32.
    let (rows, cols) = (2, 300);
    let a: Vec<f32> = (0..rows * cols)
        .map(|i| ((i as u64 * 7919 + 13) % 16384) as f32 / 1024.0 - 8.0)
        .collect();
    let b = Buffer::<f32>::filled(rows * cols, f32::NAN);
    sim::launch(Shape::new(5, 256), || {
        corpus_kernels::softmax::softmax(&a, b.view(), sim::uniform(cols as u32))
    })
    .unwrap()
    .all_defined()
    .unwrap();
    check(&b.to_vec(), &a, rows, cols);
}
