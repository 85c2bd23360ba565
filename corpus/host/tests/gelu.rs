//! gelu against an f64 CPU reference, within SPEC.md's bound
//! (`2e-6 * max(1, |x|)`): through the host function (on the GPU where
//! there is one, else on the simulator), and called directly on the
//! simulator on a grid smaller than the data.

mod common;

use cg_core::sim::{self, Buffer, Shape};
use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

/// `0.5 * x * (1 + erf(x / sqrt(2)))` in f64.
fn gelu(x: f32) -> f64 {
    let x = x as f64;
    0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

fn check(y: &[f32], x: &[f32]) {
    assert_eq!(y.len(), x.len());
    for (i, (&got, &x)) in y.iter().zip(x).enumerate() {
        let want = gelu(x);
        assert!(
            (got as f64 - want).abs() <= 2e-6 * (x.abs() as f64).max(1.0),
            "y[{i}] of {}: gelu({x}) = {got}, the CPU's {want}",
            y.len()
        );
    }
}

#[test]
fn gelu_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("gelu_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(11);
    // Partial blocks and warps, and more elements than 1056 blocks of 256
    // threads cover in one pass (the loop covers the rest).
    for n in [0, 1, 31, 255, 256, 257, 1000, 1056 * 256 + 77] {
        let mut x = rng.f32s(n, -8.0, 8.0);
        // Zeros, and values where erf is +-1 in f32.
        for (i, v) in [0.0, -0.0, 20.0, -20.0].into_iter().enumerate() {
            if let Some(e) = x.get_mut(i * 7) {
                *e = v;
            }
        }
        let y = corpus_host::gelu(&gpu, &x).unwrap();
        check(&y, &x);
    }
}

#[test]
fn a_grid_smaller_than_the_data() {
    let x: Vec<f32> = (0..10_000)
        .map(|i| ((i * 7919) % 2401) as f32 / 100.0 - 12.0)
        .collect();
    let y = Buffer::<f32>::filled(x.len(), f32::NAN);
    // 3 blocks of 256: each thread takes 13 or 14 elements.
    sim::launch(Shape::new(3, 256), || {
        corpus_kernels::gelu::gelu(&x, y.view())
    })
    .unwrap()
    .all_defined()
    .unwrap();
    check(&y.to_vec(), &x);
}
