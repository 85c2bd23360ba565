//! Small kernel crates built through `KernelBuild`, for the tests of what
//! the builder does with a real compiler's output.
#![allow(dead_code)]

use cg_builder::{BuildError, KernelBuild};
use std::path::{Path, PathBuf};

/// What every test crate's `lib.rs` starts with.
pub const PRELUDE: &str = "#![no_std]\nuse cg_core::prelude::*;\n";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes the kernel crate `case` (under `target/cg-compile-fail`) whose
/// `lib.rs` is [`PRELUDE`] and `lib`, and returns its directory.
pub fn kernel_crate(case: &str, lib: &str) -> PathBuf {
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
    std::fs::write(dir.join("src/lib.rs"), format!("{PRELUDE}{lib}")).unwrap();
    dir
}

/// Builds the crate at `dir` for `archs` (under one target directory for
/// every case, each crate in a directory of its own).
pub fn build(dir: &Path, archs: &[u32]) -> Result<Vec<(u32, String)>, BuildError> {
    let mut b = builder(dir);
    for &sm in archs {
        b = b.arch(sm);
    }
    b.build()
}

/// The target directory every case's build shares.
pub fn target_dir() -> PathBuf {
    workspace().join("target/cg-compile-fail/target")
}

/// A build of the crate at `dir` in the target directory every case
/// shares.
pub fn builder(dir: &Path) -> KernelBuild {
    KernelBuild::new(dir).target_dir(target_dir())
}

/// Checks that `e` is the nested compiler's error and holds `message`.
pub fn assert_compile_error(e: BuildError, message: &str) {
    match e {
        BuildError::Compile { output, .. } => assert!(
            output.contains(message),
            "expected `{message}` in:\n{output}"
        ),
        other => panic!("expected a compile error, got: {other}"),
    }
}
