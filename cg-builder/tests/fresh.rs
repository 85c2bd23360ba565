//! A kernel crate built again unchanged is not compiled again: cargo finds
//! the nested build's output (`deps/<name>.ptx`) and takes it as fresh, so
//! that every run of a build script that builds kernels (check, test, doc,
//! package) does not recompile them.

mod common;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

const LIB: &str = r#"
#[kernel]
pub fn copy_all(input: &[u32], mut out: Output<u32>) {
    for (i, o) in out.grid_stride(&this_grid()) {
        *o = input[i];
    }
}
"#;

/// Every `deps/<name>.s` the crate's builds wrote under `target`.
fn outputs(target: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(target).unwrap().flatten() {
        let s = entry
            .path()
            .join("nvptx64-nvidia-cuda/release/deps")
            .join(format!("{name}.s"));
        if s.exists() {
            found.push(s);
        }
    }
    found
}

fn modified(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn an_unchanged_kernel_crate_is_not_compiled_again() {
    let dir = common::kernel_crate("fresh", LIB);
    let first = common::build(&dir, &[90]).unwrap();
    let target = common::target_dir();
    let built = outputs(&target, "cf_fresh");
    assert!(
        !built.is_empty(),
        "no cf_fresh.s under {}",
        target.display()
    );
    for s in &built {
        assert!(
            s.with_extension("ptx").exists(),
            "{} has no linked module beside it",
            s.display()
        );
    }
    let before: Vec<SystemTime> = built.iter().map(|s| modified(s)).collect();
    let second = common::build(&dir, &[90]).unwrap();
    assert_eq!(first, second, "the same PTX both times");
    let after: Vec<SystemTime> = built.iter().map(|s| modified(s)).collect();
    assert_eq!(before, after, "the second build compiled the crate again");
}
