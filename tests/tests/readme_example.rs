//! The README's kernel-plus-launch example, compiled and run: the kernel is
//! kernels/samples/src/readme.rs, the host code tests/tests/readme/host.rs, and the README
//! shows both files verbatim (checked here too).

mod common;

include!("readme/host.rs");

#[test]
fn readme_shows_the_tested_example() {
    let readme = include_str!("../../README.md");
    for (path, code) in [
        (
            "kernels/samples/src/readme.rs",
            include_str!("../../kernels/samples/src/readme.rs"),
        ),
        ("tests/tests/readme/host.rs", include_str!("readme/host.rs")),
    ] {
        assert!(
            readme.contains(code.trim()),
            "README.md must show {path} verbatim"
        );
    }
}

/// The simulator section's tests are the template's first GPU test (which
/// runs on the simulator without a GPU) and its first simulator test,
/// verbatim.
#[test]
fn readme_shows_the_templates_simulator_tests() {
    let readme = include_str!("../../README.md");
    for (file, tests, first) in [
        (
            "tests/gpu.rs",
            include_str!("../../template/my-app/tests/gpu.rs"),
            "saxpy_matches_the_cpu",
        ),
        (
            "tests/sim.rs",
            include_str!("../../template/my-app/tests/sim.rs"),
            "saxpy_on_the_simulator",
        ),
    ] {
        let start = tests
            .find(&format!("#[test]\nfn {first}"))
            .unwrap_or_else(|| panic!("the template's {file} has no test {first}"));
        let end = start + tests[start..].find("\n}\n").expect("its end") + 2;
        assert!(
            readme.contains(&tests[start..end]),
            "README.md must show template/my-app/{file}'s {first} verbatim"
        );
    }
}

#[test]
fn readme_example_runs() {
    let gpu = gpu_or_return!("readme_example_runs");
    let mut rng = common::rng("readme_example");
    for n in common::sizes(&[1, 1000, 1 << 22]) {
        let input = common::random_f32(&mut rng, n);
        let got = scale_neighbour_sum(&gpu, &input, 0.5).unwrap();
        for i in 0..n {
            let want = 0.5 * input[i] + 0.5 * input[(i + 1) % n];
            assert_eq!(got[i], want, "element {i} of {n}");
        }
    }
}
