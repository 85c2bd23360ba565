//! `gelu` called directly on the CPU simulator, against a CPU reference in
//! `f64`, within SPEC.md's bound (`2e-6 * max(1, |x|)`).

use cg_core::sim::{self, Buffer, Shape};

/// `erf` in `f64` (Abramowitz and Stegun 7.1.26 is not enough here):
/// the series for small arguments, the continued fraction of `erfc`
/// beyond.
fn erf(x: f64) -> f64 {
    let a = x.abs();
    let r = if a < 2.5 {
        // erf(a) = 2/sqrt(pi) * sum (-1)^k a^(2k+1) / (k! (2k+1))
        let mut term = a;
        let mut sum = a;
        let mut k = 0.0;
        while term.abs() > 1e-18 * sum.abs() {
            k += 1.0;
            term *= -a * a / k;
            sum += term / (2.0 * k + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(a) = exp(-a^2)/sqrt(pi) * 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...))))
        let mut f = a;
        for k in (1..200).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / f
    };
    r.copysign(x)
}

fn gelu(x: f32) -> f64 {
    let x = x as f64;
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

#[test]
fn the_reference_erf_is_right() {
    // Values from tables (15 digits).
    for (x, want) in [
        (0.5, 0.520499877813047),
        (1.0, 0.842700792949715),
        (2.0, 0.995322265018953),
        (3.0, 0.999977909503001),
    ] {
        assert!((erf(x) - want).abs() < 1e-14, "erf({x}) = {}", erf(x));
    }
}

#[test]
fn gelu_on_the_simulator() {
    // One element, partial blocks, and a grid smaller than the data (the
    // grid-stride loop covers the rest).
    for (n, blocks) in [(1, 1), (255, 1), (256, 1), (1000, 4), (10_000, 3)] {
        let x: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 2401) as f32 / 100.0 - 12.0)
            .collect();
        let y = Buffer::<f32>::filled(n, f32::NAN);
        sim::launch(Shape::new(blocks, 256), || {
            corpus_kernels::gelu::gelu(&x, y.view())
        })
        .unwrap()
        .all_defined()
        .unwrap();
        for (i, &got) in y.to_vec().iter().enumerate() {
            let want = gelu(x[i]);
            let err = (got as f64 - want).abs();
            assert!(
                err <= 2e-6 * x[i].abs().max(1.0) as f64,
                "n = {n}, x = {}: {got} against {want}",
                x[i]
            );
        }
    }
}
