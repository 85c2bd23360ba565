//! The bundle scripts/gpu-bundle makes (`.gpu-bundle/`): where each of its
//! parts lies, and what it holds.

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compressed binaries scripts/gpu-bundle leaves in the bundle (the
/// tests, the samples, the ports and the corpus), unpacked in place once
/// (by a run; a dry run only lists them).
const PACKED: &str = "binaries.tar.xz";

/// The bundle's folders and the names of what they hold.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The bundle's root.
    pub root: PathBuf,
    /// The test binaries' names (`gpu_api-test`, `cg_core-lib`), sorted:
    /// those ending in `-test` are the integration tests, the others the
    /// libraries' unit tests (no GPU).
    pub tests: Vec<String>,
}

impl Bundle {
    /// The bundle at `root`, unpacked first if it is still packed and
    /// `unpack` is set; otherwise its test binaries are read from the
    /// archive's list, and the bundle stays as small as scripts/gpu-bundle
    /// made it (unpacked, it is far over what the device tool carries).
    pub fn open(root: &Path, unpack: bool) -> Result<Bundle> {
        let root = root.canonicalize().with_context(|| {
            format!(
                "no bundle at {} (scripts/gpu-bundle makes it)",
                root.display()
            )
        })?;
        let packed = root.join(PACKED);
        let tests = if packed.exists() && !unpack {
            packed_tests(&packed)?
        } else {
            if packed.exists() {
                unpack_in_place(&root, &packed)?;
            }
            names_in(&root.join("tests"), |_| true)?
        };
        if tests.is_empty() {
            bail!(
                "{} holds no test binaries: not a bundle of scripts/gpu-bundle",
                root.display()
            );
        }
        Ok(Bundle { root, tests })
    }

    /// The path of a file of the bundle, as text (for a command line).
    pub fn path(&self, relative: &str) -> String {
        self.root.join(relative).display().to_string()
    }

    /// The path of test binary `name`.
    pub fn test(&self, name: &str) -> String {
        self.path(&format!("tests/{name}"))
    }

    /// The path of sample or benchmark binary `name`.
    pub fn bin(&self, name: &str) -> String {
        self.path(&format!("bin/{name}"))
    }

    /// The `.cu` files of folder `dir` of the bundle, sorted (none if the
    /// folder is absent).
    pub fn cu_files(&self, dir: &str) -> Result<Vec<PathBuf>> {
        let dir = self.root.join(dir);
        Ok(names_in(&dir, |n| n.ends_with(".cu"))?
            .into_iter()
            .map(|n| dir.join(n))
            .collect())
    }

    /// The ports' binaries (`ports/<port>`, beside `ports/<port_with_underscores>.cu`).
    pub fn ports(&self) -> Result<Vec<String>> {
        names_in(&self.root.join("ports"), |n| !n.contains('.'))
    }

    /// Whether folder `dir` of the bundle exists.
    pub fn has(&self, dir: &str) -> bool {
        self.root.join(dir).is_dir()
    }
}

/// Unpacks the archive `packed` into `root` and removes it.
fn unpack_in_place(root: &Path, packed: &Path) -> Result<()> {
    println!("gpu-run: unpacking {}", packed.display());
    let status = Command::new("tar")
        .arg("-C")
        .arg(root)
        .arg("-xJf")
        .arg(packed)
        .status()?;
    if !status.success() {
        bail!("could not unpack {}", packed.display());
    }
    fs::remove_file(packed)?;
    Ok(())
}

/// The test binaries' names in the archive `packed` (its members
/// `tests/NAME`), sorted.
fn packed_tests(packed: &Path) -> Result<Vec<String>> {
    let listing = Command::new("tar").arg("-tJf").arg(packed).output()?;
    if !listing.status.success() {
        bail!("could not list {}", packed.display());
    }
    let mut names: Vec<String> = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .filter_map(|member| member.strip_prefix("tests/"))
        .filter(|name| !name.is_empty() && !name.contains('/'))
        .map(str::to_string)
        .collect();
    names.sort();
    Ok(names)
}

/// The names of the files of `dir` that `keep` keeps, sorted; none if `dir`
/// is absent.
fn names_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<String>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        if let Some(name) = entry.file_name().to_str().filter(|n| keep(n)) {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}
