//! my-app's kernels on the GPU, checked against the CPU. Without a GPU each
//! test says loudly that it did not run (and fails with CG_REQUIRE_GPU=1).

use cooperative_groups::testing::gpu_for_test;

#[test]
fn saxpy_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("saxpy_matches_the_cpu") else {
        return;
    };
    for n in [1, 255, 256, 100_003] {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        // a = 0.5 makes `a * x` exact, so a fused multiply-add on the GPU
        // and a multiply then add on the CPU round the same way.
        let z = my_app::saxpy(&gpu, 0.5, &x, &y).unwrap();
        for i in 0..n {
            assert_eq!(z[i], 0.5 * x[i] + y[i], "element {i} of {n}");
        }
    }
}

#[test]
fn count_positive_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("count_positive_matches_the_cpu") else {
        return;
    };
    for n in [1, 31, 1000, 1 << 20] {
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
        let want = x.iter().filter(|&&v| v > 0.0).count() as u32;
        assert_eq!(my_app::count_positive(&gpu, &x).unwrap(), want, "n = {n}");
    }
}
