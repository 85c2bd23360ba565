//! Builds a `#![no_std]` kernel crate to PTX and generates its typed host
//! handles; the role `cuda_builder` plays in rust-cuda, for `build.rs`.
//!
//! In the `build.rs` of a host crate whose kernels live in `../kernels`:
//!
//! ```no_run
//! cg_builder::KernelBuild::new("../kernels")
//!     .arch(80)
//!     .arch(90)
//!     .emit()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! and in its `src/lib.rs`:
//! `pub mod kernels { include!(concat!(env!("OUT_DIR"), "/cg_kernels.rs")); }`
//! (a private `mod kernels` works as well: a crate that uses only some of
//! the handles gets no warning about the others).
//!
//! What [`KernelBuild::emit`] does:
//!
//! 1. finds a Rust toolchain that can build `core` for
//!    `nvptx64-nvidia-cuda` ([`toolchain`]);
//! 2. builds the crate once per architecture, with fat LTO and
//!    `--emit=asm`, into one complete PTX module each, in a target directory
//!    of its own and with the outer build's environment scrubbed ([`compile`]);
//! 3. defines the functions of CUDA's math library the kernels call, from
//!    nvcc's compilation of them ([`math`]);
//! 4. reads the `#[kernel]` record each entry point starts with (its
//!    signature, written by the macro as a PTX comment) and checks that
//!    every entry point that reaches `grid.sync()` is declared
//!    `#[kernel(cooperative)]`; writes launch bounds as PTX directives and
//!    passes the grid barrier's place to the entry points that reach a
//!    barrier as a kernel parameter ([`ptx`]);
//! 5. appends the table through which the host names a kernel fault's file
//!    and message ([`strings`]);
//! 6. writes `cg_kernels.rs` to `OUT_DIR`: the PTX modules embedded as
//!    strings and one typed launch handle per recorded entry point — a
//!    kernel function, each instance of a generic one, a kernel a
//!    `macro_rules!` macro wrote — whose launch takes exactly the recorded
//!    parameters; a kernel only some architectures' modules have gets a
//!    handle that reports it unavailable on the others ([`bindings`]);
//! 7. tells cargo to rerun only when the kernel crate or one of its path
//!    dependencies changes.
//!
//! The builder reads no kernel source: what it knows of the kernels it
//! reads from the PTX the compiler produced (through `cg-ptx`).

pub mod bindings;
pub mod compile;
pub mod math;
pub mod ptx;
pub mod sass;
pub mod strings;
pub mod toolchain;

pub use compile::FpContract;
pub use math::MathMode;
use std::path::{Path, PathBuf};

/// Everything that can stop a kernel build, each with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// No toolchain that can build `core` for nvptx64 was found.
    #[error("{0}")]
    NoToolchain(String),
    /// The nested cargo build failed; its output is included.
    #[error("building the kernel crate {crate_dir} for {arch} failed:\n{output}")]
    Compile {
        /// The kernel crate.
        crate_dir: PathBuf,
        /// `sm_XX`.
        arch: String,
        /// The nested cargo's stderr.
        output: String,
    },
    /// The PTX breaks a rule the host API relies on.
    #[error("{0}")]
    Ptx(String),
    /// Reading or writing a file, or running a program, failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

pub(crate) fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
    let context = context.into();
    move |source| BuildError::Io { context, source }
}

/// A kernel crate to build, and the architectures to build it for.
///
/// A host crate's `build.rs` (with `cooperative-groups` as a
/// build-dependency, feature `build`, this is
/// `cooperative_groups::build::KernelBuild`):
///
/// ```no_run
/// // build.rs, in fn main():
/// if let Err(e) = cg_builder::KernelBuild::new("../my-kernels").arch(80).arch(90).emit() {
///     eprintln!("error: the kernels could not be built to PTX\n\n{e}");
///     std::process::exit(1);
/// }
/// ```
///
/// The host crate then includes the typed handles
/// (`include!(concat!(env!("OUT_DIR"), "/cg_kernels.rs"))`).
#[derive(Debug, Clone)]
pub struct KernelBuild {
    crate_dir: PathBuf,
    source_root: PathBuf,
    archs: Vec<u32>,
    target_dir: Option<PathBuf>,
    contract: FpContract,
    math: MathMode,
}

impl KernelBuild {
    /// A build of the kernel crate at `crate_dir` (relative paths are taken
    /// from `CARGO_MANIFEST_DIR` when set).
    pub fn new(crate_dir: impl AsRef<Path>) -> Self {
        let p = crate_dir.as_ref();
        let host_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let crate_dir = match &host_dir {
            Some(root) if p.is_relative() => root.join(p),
            _ => p.to_path_buf(),
        };
        // Without `..` in them: source paths are named relative to the
        // directory holding both crates (`../my-kernels` from `my-app`
        // would otherwise name them from `my-app/..`, which is no prefix of
        // any source file's path).
        let canonical = |d: PathBuf| std::fs::canonicalize(&d).unwrap_or(d);
        let crate_dir = canonical(crate_dir);
        let source_root = compile::project_root(&crate_dir, host_dir.map(canonical).as_deref());
        Self {
            crate_dir,
            source_root,
            archs: Vec::new(),
            target_dir: None,
            contract: FpContract::Off,
            math: MathMode::Precise,
        }
    }

    /// Whether `a * b + c` in floating point may compile to one fused
    /// multiply-add. [`FpContract::Off`] (the default) keeps Rust's
    /// semantics: each operation rounds, so a kernel computes what the
    /// same code computes on the host, and a fused multiply-add is written
    /// as one (`cg_core::math::mul_add`). [`FpContract::Fast`] contracts as
    /// nvcc does by default (`-fmad=true`): the choice for results equal,
    /// bit for bit, to a CUDA C++ version of the same expressions. CUDA's
    /// math functions (`cg_core::math`) follow the setting: nvcc compiles
    /// them with `-fmad=false` under `Off` and `-fmad=true` under `Fast`,
    /// so that a kernel gives the bits of nvcc's build of the same code
    /// with the matching `-fmad`.
    pub fn fp_contract(mut self, contract: FpContract) -> Self {
        self.contract = contract;
        self
    }

    /// Whether CUDA's math functions (`x.exp()`, `x.sin()`, ... through
    /// `cg_core::math`) are the precise ones (`false`, the default) or what
    /// nvcc's `--use_fast_math` makes of them (`true`): `sinf` becomes
    /// `__sinf`, `expf` becomes `__expf`, `sqrtf` becomes
    /// `sqrt.approx.ftz`, and every `f32` math function flushes subnormal
    /// inputs and results to zero. The error bounds are in `cg_core::math::fast`'s
    /// documentation. It changes the math functions only: the kernel's own
    /// `+`, `-`, `*` and `/` stay IEEE (no flush to zero, `div.rn`), where
    /// nvcc's `--use_fast_math` would make `/` approximate too
    /// (`cg_core::math::fast::fdividef` is that division).
    pub fn fast_math(mut self, fast: bool) -> Self {
        self.math = if fast {
            MathMode::Fast
        } else {
            MathMode::Precise
        };
        self
    }

    /// Adds an architecture, as the number in `sm_XX` (80 for sm_80).
    pub fn arch(mut self, sm: u32) -> Self {
        if !self.archs.contains(&sm) {
            self.archs.push(sm);
        }
        self
    }

    /// Where the nested builds keep their artifacts (default:
    /// `CG_PTX_TARGET_DIR`, else `cg-ptx` beside the outer build's profile
    /// directories), under `sm_XX[-fma]-<digest of the flags>`: one
    /// directory that the kernel crates of a project built with the same
    /// settings share.
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Builds the PTX for every architecture and checks it; returns
    /// `(sm, ptx)` pairs in the order the architectures were added.
    pub fn build(&self) -> Result<Vec<(u32, String)>, BuildError> {
        let archs = if self.archs.is_empty() {
            vec![80, 90]
        } else {
            self.archs.clone()
        };
        let tc = toolchain::Toolchain::find()?;
        let target_dir = self.target_dir.clone().unwrap_or_else(default_target_dir);
        let mut out = Vec::new();
        for sm in archs {
            let ptx = compile::build_ptx(
                &tc,
                &self.crate_dir,
                &self.source_root,
                &target_dir,
                sm,
                self.contract,
                self.math,
            )?;
            let ptx = math::link_library(&ptx, sm, self.math, self.contract, &target_dir)?;
            let kernels = ptx::records(&ptx, sm)?;
            ptx::check_cooperative(&ptx, sm, &kernels)?;
            let ptx = ptx::with_launch_bounds(&ptx, sm, &kernels)?;
            let ptx = ptx::with_grid_barrier_place(&ptx);
            out.push((sm, strings::append_table(&ptx)));
        }
        Ok(out)
    }

    /// For `build.rs`: builds, writes `OUT_DIR/cg_kernels.rs` (and the PTX
    /// files it embeds) and prints cargo's rerun directives.
    pub fn emit(&self) -> Result<(), BuildError> {
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
            BuildError::Ptx("OUT_DIR is not set: call emit() from build.rs".into())
        })?);
        let modules = self.build()?;
        let kernels = bindings::collect(&modules)?;
        let mut files = Vec::new();
        for (sm, ptx) in &modules {
            let path = out_dir.join(format!("cg_kernels_sm_{sm}.ptx"));
            std::fs::write(&path, ptx).map_err(io_err(format!("writing {}", path.display())))?;
            files.push((*sm, path));
        }
        let krate = compile::crate_lib_name(&self.crate_dir)?;
        let code = bindings::generate(&krate, &kernels, &files);
        let path = out_dir.join("cg_kernels.rs");
        std::fs::write(&path, code).map_err(io_err(format!("writing {}", path.display())))?;
        for dir in compile::watched_dirs(&self.crate_dir)? {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        for var in toolchain::ENV_VARS {
            println!("cargo:rerun-if-env-changed={var}");
        }
        Ok(())
    }
}

fn default_target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CG_PTX_TARGET_DIR") {
        return dir.into();
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| "target".into()));
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    match out.ancestors().nth(4) {
        Some(t) if !t.as_os_str().is_empty() => t.join("cg-ptx"),
        _ => out.join("cg-ptx"),
    }
}
