//! The samples' kernels on the simulator, unchanged: the same `#[kernel]`
//! functions the GPU runs, compiled for the host and called by every
//! simulated thread, against the samples' CPU references, bit for bit, and
//! the time each takes on this machine.

use cg_core::output::{Output, Synced};
use cg_core::sim::{self, Buffer, Shape};
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

#[test]
fn the_readme_example_over_2_20_elements() {
    let n = 1 << 20;
    let input = random_f32(n, 7);
    let scaled = Buffer::<f32>::zeroed(n);
    let out = Buffer::<f32>::zeroed(n);
    let start = Instant::now();
    sim::launch(Shape::new(32, 256).cooperative(), || {
        cg_sample_kernels::readme::scale_neighbour_sum(&input, scaled.view(), out.view(), 0.5)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    println!(
        "README example, 2^20 elements, 32 x 256 threads: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let out = out.to_vec();
    for i in 0..n {
        let want = 0.5 * input[i] + 0.5 * input[(i + 1) % n];
        assert_eq!(out[i].to_bits(), want.to_bits(), "element {i}");
    }
}

#[test]
fn jacobi_256_by_256_for_100_sweeps_in_one_cooperative_launch() {
    let (nx, ny, sweeps) = (256usize, 256usize, 100u32);
    let mut init = random_f32(nx * ny, 3);
    for y in 1..ny - 1 {
        for x in 1..nx - 1 {
            init[y * nx + x] = 0.0;
        }
    }
    let a = Buffer::from_slice(&init);
    let b = Buffer::from_slice(&init);
    let start = Instant::now();
    sim::launch(Shape::new(32, 256).cooperative(), || {
        let (a, b): (Synced<f32>, Output<f32>) = (a.view(), b.view());
        cg_sample_kernels::jacobi::jacobi_persistent(a, b, nx as u32, ny as u32, sweeps)
    })
    .unwrap()
    .all_defined()
    .unwrap();
    println!(
        "Jacobi 256 x 256 x 100, 32 x 256 threads: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let want = cg_samples::experiments::jacobi::jacobi_cpu(&init, nx, ny, sweeps);
    let got = if sweeps % 2 == 1 {
        b.to_vec()
    } else {
        a.to_vec()
    };
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "point {i}");
    }
}
