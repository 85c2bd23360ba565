//! Misuses that must not compile on the device: a tile size that is not a
//! power of two at most 512, and a shuffled value over 32 bytes. Each case is
//! a small kernel crate built through KernelBuild, which must fail with the
//! message cg-core gives.

use cg_builder::{BuildError, KernelBuild};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds a one-kernel crate whose body is `body` and returns the error.
fn build_kernel(case: &str, body: &str) -> BuildError {
    let root = workspace();
    let dir = root.join("target/cg-compile-fail").join(case);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        r#"[package]
name = "cf-{case}"
version = "0.0.0"
edition = "2021"
[workspace]
[dependencies]
cg-core = {{ path = "{}" }}
"#,
        root.join("cg-core").display()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let lib = format!(
        "#![no_std]\nuse cg_core::prelude::*;\n\n#[kernel]\npub fn k(out: *mut u32) {{\n{body}\n}}\n"
    );
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    KernelBuild::new(&dir)
        .arch(80)
        .target_dir(root.join("target/cg-compile-fail/target"))
        .build()
        .expect_err("the kernel must not compile")
}

fn assert_compile_error(e: BuildError, message: &str) {
    match e {
        BuildError::Compile { output, .. } => assert!(
            output.contains(message),
            "expected `{message}` in:\n{output}"
        ),
        other => panic!("expected a compile error, got: {other}"),
    }
}

#[test]
fn tile_sizes_must_be_powers_of_two_at_most_512() {
    for (case, n) in [("tile3", 3), ("tile96", 96), ("tile1024", 1024)] {
        let e = build_kernel(case, &format!("let t = tiled_partition::<{n}>(&this_thread_block());\nunsafe {{ *out = t.thread_rank() }};"));
        assert_compile_error(e, "a thread_block_tile size is a power of two at most 512");
    }
}

#[test]
fn shuffled_values_are_at_most_32_bytes() {
    let e = build_kernel(
        "shfl40",
        "let w = tiled_partition::<32>(&this_thread_block());\nlet v = w.shfl([1u32; 10], 0);\nunsafe { *out = v[3] };",
    );
    assert_compile_error(e, "a shuffled or reduced type is at most 32 bytes");
}
