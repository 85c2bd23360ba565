//! The README's kernel-plus-launch example, compiled and run: the kernel is
//! kernels/samples/src/readme.rs, the host code tests/tests/readme/host.rs, and the README
//! shows both files verbatim (checked here too; the guide includes them).

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

/// The guide's simulator chapter shows the template's two test files
/// whole, through mdBook includes (checked by `tests/tests/guide.rs`).
#[test]
fn the_guide_includes_the_templates_simulator_tests() {
    let chapter = include_str!("../../docs/guide/src/simulator.md");
    for file in ["gpu.rs", "sim.rs"] {
        let include = format!("{{{{#include ../../../template/my-app/tests/{file}}}}}");
        assert!(
            chapter.contains(&include),
            "docs/guide/src/simulator.md must include template/my-app/tests/{file}"
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
