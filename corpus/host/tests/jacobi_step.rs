//! jacobi_step through the host function, against the CPU (exact: the
//! order of the additions is fixed).

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

fn cpu(src: &[f32], nx: usize, ny: usize) -> Vec<f32> {
    let mut dst = src.to_vec();
    for y in 1..ny.saturating_sub(1) {
        for x in 1..nx.saturating_sub(1) {
            let i = y * nx + x;
            let (w, e, n, s) = (src[i - 1], src[i + 1], src[i - nx], src[i + nx]);
            dst[i] = 0.25 * (((w + e) + n) + s);
        }
    }
    dst
}

#[test]
fn jacobi_step_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("jacobi_step_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(5);
    for (nx, ny) in [
        (1, 1),
        (2, 2),
        (3, 3),
        (1, 40),
        (40, 1),
        (33, 9),
        (65, 17),
        (100, 37),
        (32, 8),
    ] {
        let src = rng.f32s(nx * ny, -10.0, 10.0);
        let got = corpus_host::jacobi_step(&gpu, &src, nx, ny).unwrap();
        let want = cpu(&src, nx, ny);
        assert_eq!(got.len(), want.len());
        for i in 0..want.len() {
            assert_eq!(
                got[i].to_bits(),
                want[i].to_bits(),
                "point {i} of {nx} x {ny}"
            );
        }
    }
}
