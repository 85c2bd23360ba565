//! black_scholes against an f64 CPU reference, within SPEC.md's bound
//! (`1e-5 * (S + X)`): through the host function (on the GPU where there
//! is one, else on the simulator), and called directly on the simulator on
//! a grid smaller than the data.

mod common;

use cg_core::sim::{self, Buffer, Shape};
use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

const RISKFREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;

/// `(call, put)` in f64, the normal CDF through `erfc` as in SPEC.md.
fn reference(s: f32, x: f32, t: f32) -> (f64, f64) {
    let (s, x, t) = (s as f64, x as f64, t as f64);
    let (r, v) = (RISKFREE as f64, VOLATILITY as f64);
    let cdf = |d: f64| 0.5 * libm::erfc(-d / std::f64::consts::SQRT_2);
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    let e = (-r * t).exp();
    (
        s * cdf(d1) - x * e * cdf(d2),
        x * e * (1.0 - cdf(d2)) - s * (1.0 - cdf(d1)),
    )
}

/// CUDA's BlackScholes sample's ranges: price in [5, 30], strike in
/// [1, 100], years in [0.25, 10].
fn options(rng: &mut Rng, n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    (
        rng.f32s(n, 5.0, 30.0),
        rng.f32s(n, 1.0, 100.0),
        rng.f32s(n, 0.25, 10.0),
    )
}

fn check(call: &[f32], put: &[f32], price: &[f32], strike: &[f32], years: &[f32]) {
    let n = price.len();
    assert_eq!((call.len(), put.len()), (n, n));
    for i in 0..n {
        let (c, p) = reference(price[i], strike[i], years[i]);
        let bound = 1e-5 * (price[i] + strike[i]) as f64;
        assert!(
            (call[i] as f64 - c).abs() <= bound,
            "option {i} of {n}: call {}, the CPU's {c}",
            call[i]
        );
        assert!(
            (put[i] as f64 - p).abs() <= bound,
            "option {i} of {n}: put {}, the CPU's {p}",
            put[i]
        );
    }
}

#[test]
fn the_reference_gives_the_textbook_prices() {
    // S = 100, X = 100, T = 1, r = 0.05, v = 0.2: call 10.4506, put 5.5735.
    let cdf = |d: f64| 0.5 * libm::erfc(-d / std::f64::consts::SQRT_2);
    let d1 = (0.05 + 0.5 * 0.04) / 0.2;
    let d2 = d1 - 0.2;
    let e = (-0.05f64).exp();
    assert!((100.0 * cdf(d1) - 100.0 * e * cdf(d2) - 10.450_583_572_185_565).abs() < 1e-12);
    assert!(
        (100.0 * e * (1.0 - cdf(d2)) - 100.0 * (1.0 - cdf(d1)) - 5.573_526_022_256_971).abs()
            < 1e-12
    );
}

#[test]
fn black_scholes_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("black_scholes_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(12);
    for n in [0, 1, 31, 255, 257, 10_007] {
        let (price, strike, years) = options(&mut rng, n);
        let (call, put) =
            corpus_host::black_scholes(&gpu, &price, &strike, &years, RISKFREE, VOLATILITY)
                .unwrap();
        check(&call, &put, &price, &strike, &years);
    }
}

#[test]
fn a_grid_smaller_than_the_data() {
    let (price, strike, years) = options(&mut Rng::new(13), 10_000);
    let call = Buffer::<f32>::filled(price.len(), f32::NAN);
    let put = Buffer::<f32>::filled(price.len(), f32::NAN);
    sim::launch(Shape::new(3, 256), || {
        corpus_kernels::black_scholes::black_scholes(
            &price,
            &strike,
            &years,
            call.view(),
            put.view(),
            RISKFREE,
            VOLATILITY,
        )
    })
    .unwrap()
    .all_defined()
    .unwrap();
    check(&call.to_vec(), &put.to_vec(), &price, &strike, &years);
}
