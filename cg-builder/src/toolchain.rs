//! Finding a Rust toolchain that can compile `core` for
//! `nvptx64-nvidia-cuda`.
//!
//! Building `core` for the NVPTX target needs `-Zbuild-std`, so the
//! toolchain needs the standard library's sources and must accept unstable
//! flags. In order of preference:
//!
//! 1. `CG_NVPTX_RUSTC` (and optionally `CG_NVPTX_CARGO`): an explicit
//!    compiler. Unstable flags are unlocked with `RUSTC_BOOTSTRAP=1`.
//! 2. A rustup toolchain whose name starts with `nightly` and that has the
//!    `rust-src` component.
//! 3. Debian's `rustc-web`, `cargo-web` and `rust-web-src` packages
//!    (`/usr/bin/rustc`, `/usr/bin/cargo`, sources under `/usr/lib/rustlib/src`),
//!    used with `RUSTC_BOOTSTRAP=1`.

use crate::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment variables that change what the build does.
pub const ENV_VARS: [&str; 5] = [
    "CG_NVPTX_RUSTC",
    "CG_NVPTX_CARGO",
    "CG_PTX_TARGET_DIR",
    crate::math::NVCC_VAR,
    crate::compile::LLVM_ARGS_VAR,
];

/// A compiler and cargo pair able to build `core` for nvptx64.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// `rustc`.
    pub rustc: PathBuf,
    /// `cargo`.
    pub cargo: PathBuf,
    /// Whether unstable flags must be unlocked with `RUSTC_BOOTSTRAP=1`.
    pub bootstrap: bool,
    /// Where it was found, for messages.
    pub origin: String,
}

const HOW_TO: &str = "\
cg-builder needs a Rust toolchain that can build `core` for nvptx64-nvidia-cuda \
(one with the standard library's sources, used with -Zbuild-std). Any one of:
  * Debian/Ubuntu: `apt-get install rustc-web cargo-web rust-web-src` \
(provides /usr/bin/rustc, /usr/bin/cargo and /usr/lib/rustlib/src; `scripts/setup` does this);
  * rustup: `rustup toolchain install nightly --component rust-src`;
  * set CG_NVPTX_RUSTC=/path/to/rustc (and CG_NVPTX_CARGO=/path/to/cargo) \
for a toolchain whose sysroot has lib/rustlib/src/rust/library.";

impl Toolchain {
    /// Finds a toolchain, or says how to get one.
    pub fn find() -> Result<Self, BuildError> {
        let mut tried = Vec::new();
        if let Some(rustc) = std::env::var_os("CG_NVPTX_RUSTC") {
            let rustc = PathBuf::from(rustc);
            let cargo = std::env::var_os("CG_NVPTX_CARGO")
                .map(PathBuf::from)
                .unwrap_or_else(|| rustc.with_file_name("cargo"));
            let tc = Toolchain {
                rustc,
                cargo,
                bootstrap: true,
                origin: "CG_NVPTX_RUSTC".into(),
            };
            return match tc.check() {
                Ok(()) => Ok(tc),
                Err(why) => Err(BuildError::NoToolchain(format!(
                    "CG_NVPTX_RUSTC is set but unusable: {why}\n\n{HOW_TO}"
                ))),
            };
        }
        match rustup_nightly() {
            Some(Ok(tc)) => return Ok(tc),
            Some(Err(why)) => tried.push(why),
            None => tried.push("rustup: no nightly toolchain installed".into()),
        }
        let debian = Toolchain {
            rustc: "/usr/bin/rustc".into(),
            cargo: "/usr/bin/cargo".into(),
            bootstrap: true,
            origin: "Debian rustc-web".into(),
        };
        match debian.check() {
            Ok(()) => return Ok(debian),
            Err(why) => tried.push(format!("/usr/bin/rustc: {why}")),
        }
        Err(BuildError::NoToolchain(format!(
            "no toolchain for nvptx64-nvidia-cuda was found.\ntried:\n  {}\n\n{HOW_TO}",
            tried.join("\n  ")
        )))
    }

    /// The standard library's sources `-Zbuild-std` compiles
    /// (`<sysroot>/lib/rustlib/src/rust/library`), when they are there.
    pub fn library_sources(&self) -> Option<PathBuf> {
        let sysroot = run(Command::new(&self.rustc).args(["--print", "sysroot"])).ok()?;
        let library = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library");
        library.is_dir().then_some(library)
    }

    /// Whether this toolchain exists, knows the nvptx64 target and has the
    /// library sources.
    pub fn check(&self) -> Result<(), String> {
        if !self.rustc.exists() {
            return Err(format!("{} does not exist", self.rustc.display()));
        }
        if !self.cargo.exists() {
            return Err(format!("{} does not exist", self.cargo.display()));
        }
        let sysroot = run(Command::new(&self.rustc).args(["--print", "sysroot"]))?;
        let src = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library/core/Cargo.toml");
        if !src.exists() {
            return Err(format!(
                "no library sources at {} (rust-src / rust-web-src)",
                src.display()
            ));
        }
        let targets = run(Command::new(&self.rustc).args(["--print", "target-list"]))?;
        if !targets.lines().any(|t| t.trim() == "nvptx64-nvidia-cuda") {
            return Err("this rustc does not know the nvptx64-nvidia-cuda target".into());
        }
        Ok(())
    }
}

fn rustup_nightly() -> Option<Result<Toolchain, String>> {
    let list = run(Command::new("rustup").args(["toolchain", "list"])).ok()?;
    let name = list
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .find(|n| n.starts_with("nightly"))?
        .to_string();
    let which = |tool: &str| {
        run(Command::new("rustup").args(["which", "--toolchain", &name, tool]))
            .map(|s| PathBuf::from(s.trim()))
    };
    let tc = match (which("rustc"), which("cargo")) {
        (Ok(rustc), Ok(cargo)) => Toolchain {
            rustc,
            cargo,
            bootstrap: false,
            origin: format!("rustup {name}"),
        },
        (Err(e), _) | (_, Err(e)) => return Some(Err(format!("rustup {name}: {e}"))),
    };
    Some(
        tc.check()
            .map(|()| tc)
            .map_err(|why| format!("rustup {name}: {why}")),
    )
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        return Err(format!(
            "{:?} failed: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
