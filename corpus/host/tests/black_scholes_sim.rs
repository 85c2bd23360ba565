//! `black_scholes` called directly on the CPU simulator, against a CPU
//! reference in `f64`, within SPEC.md's bound (`1e-5 * (S + X)`).

use cg_core::sim::{self, Buffer, Shape};

/// `erfc` in `f64`: the series of `erf` for small arguments, the
/// continued fraction beyond.
fn erfc(x: f64) -> f64 {
    let a = x.abs();
    let erfc_a = if a < 2.5 {
        let mut term = a;
        let mut sum = a;
        let mut k = 0.0;
        while term.abs() > 1e-18 * sum.abs() {
            k += 1.0;
            term *= -a * a / k;
            sum += term / (2.0 * k + 1.0);
        }
        1.0 - sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let mut f = a;
        for k in (1..200).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        (-a * a).exp() / std::f64::consts::PI.sqrt() / f
    };
    if x < 0.0 {
        2.0 - erfc_a
    } else {
        erfc_a
    }
}

fn black_scholes(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f64, f64) {
    let (s, x, t, r, v) = (s as f64, x as f64, t as f64, r as f64, v as f64);
    let cdf = |d: f64| 0.5 * erfc(-d / std::f64::consts::SQRT_2);
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
fn options(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut state = 12345u64;
    let mut next = |lo: f32, hi: f32| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((state >> 40) as f32 / (1u64 << 24) as f32)
    };
    let mut p = Vec::new();
    let mut k = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        p.push(next(5.0, 30.0));
        k.push(next(1.0, 100.0));
        y.push(next(0.25, 10.0));
    }
    (p, k, y)
}

#[test]
fn black_scholes_on_the_simulator() {
    let (riskfree, volatility) = (0.02f32, 0.30f32);
    for (n, blocks) in [(1, 1), (255, 1), (1000, 4), (10_000, 3)] {
        let (price, strike, years) = options(n);
        let call = Buffer::<f32>::filled(n, f32::NAN);
        let put = Buffer::<f32>::filled(n, f32::NAN);
        sim::launch(Shape::new(blocks, 256), || {
            corpus_kernels::black_scholes::black_scholes(
                &price,
                &strike,
                &years,
                call.view(),
                put.view(),
                riskfree,
                volatility,
            )
        })
        .unwrap()
        .all_defined()
        .unwrap();
        let (call, put) = (call.to_vec(), put.to_vec());
        for i in 0..n {
            let (c, p) = black_scholes(price[i], strike[i], years[i], riskfree, volatility);
            let bound = 1e-5 * (price[i] + strike[i]) as f64;
            assert!(
                (call[i] as f64 - c).abs() <= bound,
                "n = {n}, option {i}: call {} against {c}",
                call[i]
            );
            assert!(
                (put[i] as f64 - p).abs() <= bound,
                "n = {n}, option {i}: put {} against {p}",
                put[i]
            );
        }
    }
}
