//! my-app's kernels through its own host code, checked against the CPU: on
//! the GPU where there is one; without, on the CPU simulator (each test
//! says so loudly; CG_REQUIRE_GPU=1 makes a missing GPU fail instead, and
//! CG_DEVICE=sim runs them on the simulator anyway).

use cooperative_groups::testing::gpu_for_test;
use my_app::kernels::Kernels;
// The kernels' host build, which the simulator runs.
use my_kernels as _;

#[test]
fn saxpy_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("saxpy_matches_the_cpu") else {
        return;
    };
    for n in [1, 255, 256, 100_003] {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        // a = 0.5 makes `a * x` exact, so the result is the same whether the
        // multiply and add are fused (FpContract::Fast) or not (the default).
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
        let x: Vec<f32> = (0..n as u64).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
        let want = x.iter().filter(|&&v| v > 0.0).count() as u32;
        assert_eq!(my_app::count_positive(&gpu, &x).unwrap(), want, "n = {n}");
    }
}

/// Every instance of the generic kernel `warp_sums` against the CPU, on
/// inputs whose sums are exact in every type (small integers), so that the
/// GPU's order of additions cannot change a bit.
#[test]
fn every_instance_of_warp_sums_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("every_instance_of_warp_sums_matches_the_cpu") else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    fn check<T: cooperative_groups::Pod + PartialEq + std::fmt::Debug>(
        gpu: &cooperative_groups::Gpu,
        name: &str,
        per_thread: usize,
        from: fn(i64) -> T,
        add: fn(T, T) -> T,
        launch: my_app::WarpSumsLaunch<'_, T>,
    ) {
        for n in [1, 31, 32 * per_thread + 5, 100_000] {
            let input: Vec<T> = (0..n as i64).map(|i| from((i * 7919) % 201 - 100)).collect();
            let got = my_app::warp_sums(gpu, &input, per_thread, launch).unwrap();
            let want: Vec<T> = input
                .chunks(32 * per_thread)
                .map(|c| c.iter().copied().fold(from(0), add))
                .collect();
            assert_eq!(got, want, "{name}, n = {n}");
        }
    }
    check(&gpu, "u32, 1", 1, |v| v as u32, u32::wrapping_add, &|c, i, s| {
        k.warp_sums_u32_1.launch(c, i, s)
    });
    check(&gpu, "u32, 4", 4, |v| v as u32, u32::wrapping_add, &|c, i, s| {
        k.warp_sums_u32_4.launch(c, i, s)
    });
    check(&gpu, "i32, 2", 2, |v| v as i32, i32::wrapping_add, &|c, i, s| {
        k.warp_sums_i32_2.launch(c, i, s)
    });
    check(&gpu, "u64, 8", 8, |v| v as u64, u64::wrapping_add, &|c, i, s| {
        k.warp_sums_u64_8.launch(c, i, s)
    });
    check(&gpu, "f32, 4", 4, |v| v as f32, |a, b| a + b, &|c, i, s| {
        k.warp_sums_f32_4.launch(c, i, s)
    });
    check(&gpu, "f64, 1", 1, |v| v as f64, |a, b| a + b, &|c, i, s| {
        k.warp_sums_f64_1.launch(c, i, s)
    });
}
