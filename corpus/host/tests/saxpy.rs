//! saxpy through the host function, against the CPU: on the GPU where
//! there is one, else on the simulator.

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
// The kernels' host build, which the simulator runs.
use corpus_kernels as _;

#[test]
fn saxpy_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("saxpy_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(1);
    // Partial blocks and warps, and more elements than 1056 blocks of 256
    // threads cover in one pass (the loop covers the rest).
    for n in [0, 1, 31, 255, 256, 257, 1000, 1056 * 256 + 77] {
        let a = rng.f32(-2.0, 2.0);
        let x = rng.f32s(n, -100.0, 100.0);
        let y = rng.f32s(n, -100.0, 100.0);
        let z = corpus_host::saxpy(&gpu, a, &x, &y).unwrap();
        assert_eq!(z.len(), n);
        for i in 0..n {
            // Each operation rounds on its own, on the GPU as here (the
            // build's default keeps Rust's semantics: no contraction).
            assert_eq!(
                z[i].to_bits(),
                (a * x[i] + y[i]).to_bits(),
                "element {i} of {n}"
            );
        }
    }
}
