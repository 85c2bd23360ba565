//! The nested cargo build that turns the kernel crate into PTX.
//!
//! The kernel crate is an ordinary `#![no_std]` library; this build supplies
//! the rest ([`KERNEL_PROFILE`], [`KERNEL_FEATURES`]): it is built as a
//! `cdylib` with `panic = "abort"` (a panic runs cg-core's handler, which
//! records where it happened before it traps), `lto = "fat"` and
//! `codegen-units = 1`, so the whole program (dependencies included) becomes
//! one PTX module through `--emit=asm`, which also makes the target's
//! bitcode linker unnecessary.
//! MIR jump threading is turned off (see `build_ptx`): it would copy
//! barriers into divergent paths.
//!
//! The nested cargo must not inherit the outer build's environment (it would
//! reuse its flags, its target directory and its lock), so it starts from an
//! empty environment plus the few variables a cargo needs.
//!
//! Its compiler messages come back as JSON. Warnings in the device code (the
//! kernel crate and its path dependencies) would otherwise be lost behind a
//! successful build, so they are forwarded: as `cargo:warning=` lines when
//! the builder runs in a build script (cargo shows them, and shows them
//! again while the build script's output is fresh), on stderr otherwise.

use crate::math::MathMode;
use crate::toolchain::Toolchain;
use crate::{io_err, BuildError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables passed through to the nested cargo; everything else is dropped.
const KEEP_ENV: [&str; 8] = [
    "PATH",
    "HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "TMPDIR",
    "CARGO_NET_OFFLINE",
    "CARGO_HTTP_TIMEOUT",
    "SSL_CERT_FILE",
];

fn nested_cargo(tc: &Toolchain, crate_dir: &Path) -> Command {
    let mut cmd = Command::new(&tc.cargo);
    cmd.env_clear();
    for k in KEEP_ENV {
        if let Some(v) = std::env::var_os(k) {
            cmd.env(k, v);
        }
    }
    cmd.env("RUSTC", &tc.rustc).current_dir(crate_dir);
    if tc.bootstrap {
        cmd.env("RUSTC_BOOTSTRAP", "1");
    }
    cmd
}

/// The flags every crate of an `sm_<sm>` build gets (see [`build_ptx`]).
/// They depend on the project (`source_root`) and the settings, never on
/// the kernel crate, so that every kernel crate of a project built with the
/// same settings shares one build of `core` (see [`build_dir`]); the kernel
/// crate's own path is named by [`own_source_path`], which reaches that
/// crate alone.
fn rustflags(
    sm: u32,
    source_root: &Path,
    library: Option<&Path>,
    contract: FpContract,
    math: MathMode,
) -> String {
    let mut flags = format!("-Ctarget-cpu=sm_{sm}\x1f-Zmir-enable-passes=-JumpThreading");
    for arg in LOOP_FLAGS
        .iter()
        .copied()
        .chain(extra_llvm_args().iter().map(String::as_str))
    {
        flags.push_str("\x1f-Cllvm-args=");
        flags.push_str(arg);
    }
    if sm >= 90 {
        flags.push_str("\x1f-Ctarget-feature=+ptx80");
    }
    if contract == FpContract::Fast {
        flags.push_str("\x1f-Cllvm-args=-fp-contract=fast");
    }
    if math == MathMode::Fast {
        flags.push_str("\x1f--cfg\x1fcg_fast_math");
    }
    for remap in remap_source_paths(source_root, library) {
        flags.push('\x1f');
        flags.push_str(&remap);
    }
    flags
}

/// The nested build's target directory for one setting of the flags:
/// `sm_90`, `sm_90-fma`, `sm_80-fast-math`, ... and a digest of `flags`,
/// under `target_dir`. Kernel crates built with the same flags share it,
/// and with it one build of `core` (`-Zbuild-std`, about half a minute a
/// build on two cores); a kernel crate's PTX is its own file in it
/// (`<crate>.s`). Flags that differ (another project's source root, a
/// `CG_LLVM_ARGS` experiment) get a directory of their own, so no build
/// makes another rebuild `core`.
fn build_dir(
    target_dir: &Path,
    sm: u32,
    contract: FpContract,
    math: MathMode,
    flags: &str,
) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut name = format!("sm_{sm}");
    if contract == FpContract::Fast {
        name.push_str("-fma");
    }
    if math == MathMode::Fast {
        name.push_str("-fast-math");
    }
    // SipHash with fixed keys: the same flags name the same directory in
    // every run of the same builder.
    let mut digest = std::collections::hash_map::DefaultHasher::new();
    flags.hash(&mut digest);
    target_dir.join(format!("{name}-{:08x}", digest.finish() as u32))
}

/// LLVM's loop settings for every kernel build: what lets a strided loop
/// `while i < n { ..; i += step }` (a grid- or block-stride loop, however
/// it is written) be unrolled at run time, as nvcc unrolls the same C++
/// loop, so that one thread has several loads in flight instead of one.
///
/// * `-scev-cheap-expansion-budget=64`: the runtime unroller needs the trip
///   count, `(n - i + step - 1) / step` for a step known only at run time;
///   LLVM's default budget (4) prices that division as too dear and keeps
///   the loop rolled. The division is computed once per loop (32-bit when
///   its operands fit, which NVPTX tests first), against one load per
///   iteration saved from waiting on the last.
/// * `-unroll-runtime-multi-exit`: also unroll loops with a second exit,
///   which every bounds-checked `x[j]` of an index not proven in bounds
///   adds (a gather `x[col[k]]`, a `(a..b).step_by(s)` loop); without it
///   such loops stay at one load per iteration.
/// * `-unroll-partial-threshold=40`: how far a loop unrolls at run time.
///   LLVM takes the largest count of 8, 4 or 2 whose unrolled body fits the
///   threshold; NVPTX's own is 75 (a quarter of the full-unroll threshold),
///   which unrolls a body of up to about 10 instructions 8 times. At 40, the
///   smallest bodies (a load and an add, a barrier) still unroll 8 times and
///   a reduction's (a load, a bounds check, a combine) 4 times: with 8, a
///   thread that runs such a loop only a few times (a row of 2048 over 256
///   threads) pays for eight accumulators in registers and for remainder
///   code it barely uses (the corpus's `softmax` 40 registers against 25,
///   `row_normalize` 0.95 of nvcc against 0.80), where four loads in flight
///   already cover the latency of a long loop (the cooperative sums ran
///   5-8% faster). The price: bodies of about 11 to 20 instructions unroll
///   twice where they unrolled 4 times, and of 21 to 38 not at all where
///   they unrolled twice (the corpus's `spmv_csr`, 4% slower:
///   docs/NOTES.md, 2026-11-30).
///
/// The trip count exists only if `i += step` cannot wrap: the step's range
/// comes from the special registers (`%ntid`, `%nctaid`: below 2^32) and
/// the bound's from the buffers (`cg_core::__private::assume_allocation_len`,
/// which `#[kernel]` applies to every slice and buffer parameter).
pub const LOOP_FLAGS: [&str; 3] = [
    "-scev-cheap-expansion-budget=64",
    "-unroll-runtime-multi-exit",
    "-unroll-partial-threshold=40",
];

/// The variable whose words are passed to LLVM after [`LOOP_FLAGS`] in
/// every kernel build (`CG_LLVM_ARGS="-disable-lsr"`): for measuring a
/// setting of the code generator on a whole project (its PTX, registers
/// and times against the same build without it) before it becomes one of
/// the builder's own. Unset in a normal build.
pub const LLVM_ARGS_VAR: &str = "CG_LLVM_ARGS";

/// The words of [`LLVM_ARGS_VAR`] (none when unset).
fn extra_llvm_args() -> Vec<String> {
    std::env::var(LLVM_ARGS_VAR)
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// `--remap-path-prefix` flags that name source files relative to
/// `source_root` (`kernels/samples/src/x.rs`, `cg-core/src/y.rs` from the
/// project's root), wherever the project is checked out: what a kernel
/// panic reports. `source_root` is the directory that holds both the kernel
/// crate and the host crate that builds it (see [`source_root`]).
/// Cargo names path dependencies by absolute paths; the kernel crate's own
/// files it names relative to the crate (`src/x.rs`), which
/// [`own_source_path`] maps. The standard library's sources (`library`,
/// which `-Zbuild-std` compiles: a panic inside `core`, such as
/// `step_by`'s) are named `rust/library/...`, not by where the toolchain
/// is installed.
fn remap_source_paths(source_root: &Path, library: Option<&Path>) -> Vec<String> {
    let mut flags = Vec::new();
    if let Some(library) = library.filter(|l| l.is_absolute()) {
        flags.push(format!(
            "--remap-path-prefix={}/=rust/library/",
            library.display()
        ));
    }
    if source_root.is_absolute() {
        flags.push(format!("--remap-path-prefix={}/=", source_root.display()));
    }
    flags
}

/// The `--remap-path-prefix` flag that names the kernel crate's own files
/// (`src/x.rs` to cargo) from `source_root`: passed to the kernel crate
/// alone, after the other crates' flags.
fn own_source_path(crate_dir: &Path, source_root: &Path) -> String {
    let own = crate_dir.strip_prefix(source_root).unwrap_or(crate_dir);
    format!("--remap-path-prefix=src={}/src", own.display())
}

/// The directory source files are named from: the host crate's workspace
/// root when it holds the kernel crate (so that the crates of a workspace
/// of several projects, such as `ports/`, are named from its root, and all
/// its kernel crates share one build of `core`), else [`source_root`].
pub(crate) fn project_root(crate_dir: &Path, host_dir: Option<&Path>) -> PathBuf {
    host_dir
        .and_then(workspace_root)
        .filter(|root| crate_dir.starts_with(root))
        .unwrap_or_else(|| source_root(crate_dir, host_dir))
}

/// The nearest directory at or above `host_dir` whose manifest declares
/// `[workspace]`: the root of the host crate's workspace.
fn workspace_root(host_dir: &Path) -> Option<PathBuf> {
    host_dir
        .ancestors()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml"))
                .is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
}

/// The directory source files are named from: the deepest one holding both
/// the kernel crate (`crate_dir`) and the host crate that builds it
/// (`host_dir`, its build script's `CARGO_MANIFEST_DIR`), so that a
/// project's kernel crates and libraries are all named from the project's
/// root; the kernel crate's parent when there is no host crate.
pub(crate) fn source_root(crate_dir: &Path, host_dir: Option<&Path>) -> PathBuf {
    let parent = crate_dir.parent().unwrap_or(crate_dir);
    match host_dir {
        Some(host) => {
            let mut root = parent.to_path_buf();
            while !host.starts_with(&root) && root.pop() {}
            if root.as_os_str().is_empty() || root.parent().is_none() {
                parent.to_path_buf()
            } else {
                root
            }
        }
        None => parent.to_path_buf(),
    }
}

/// The release profile of every kernel build, passed as `--config`
/// overrides: a kernel crate's manifest needs no `[profile]` of its own.
pub const KERNEL_PROFILE: [&str; 5] = [
    "profile.release.panic=\"abort\"",
    "profile.release.lto=\"fat\"",
    "profile.release.codegen-units=1",
    "profile.release.opt-level=3",
    "profile.release.debug=false",
];

/// The nightly features a kernel crate needs: `extern "ptx-kernel"` (what
/// `#[kernel]` expands to) and inline assembly on nvptx64. The build enables
/// each one the crate root does not already declare (declaring a feature
/// twice is an error).
pub const KERNEL_FEATURES: [&str; 2] = ["abi_ptx", "asm_experimental_arch"];

/// The `-Zcrate-attr` flags for the features of [`KERNEL_FEATURES`] that
/// the crate root (`src/lib.rs`) does not declare itself.
fn feature_flags(crate_dir: &Path) -> Result<Vec<String>, BuildError> {
    let root = crate_dir.join("src/lib.rs");
    let text =
        std::fs::read_to_string(&root).map_err(io_err(format!("reading {}", root.display())))?;
    // A crate root that does not parse declares nothing here; rustc then
    // reports what is wrong with it.
    let mut declared = Vec::new();
    let attrs = syn::parse_file(&text).map(|f| f.attrs).unwrap_or_default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("feature")) {
        let _ = attr.parse_nested_meta(|m| {
            if let Some(id) = m.path.get_ident() {
                declared.push(id.to_string());
            }
            Ok(())
        });
    }
    Ok(KERNEL_FEATURES
        .iter()
        .filter(|f| !declared.iter().any(|d| d == *f))
        .map(|f| format!("-Zcrate-attr=feature({f})"))
        .collect())
}

/// Whether floating-point `a * b + c` may become one fused multiply-add
/// (`fma.rn`, one rounding) where the source has two operations; see
/// [`KernelBuild::fp_contract`](crate::KernelBuild::fp_contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FpContract {
    /// Never (the default): every operation rounds, as Rust specifies and
    /// as the same code computes on the host. An explicit fused
    /// multiply-add is `cg_core::math::mul_add`.
    #[default]
    Off,
    /// Wherever LLVM finds a multiply feeding an add: nvcc's default
    /// (`-fmad=true`), for results bit for bit equal to nvcc-built CUDA
    /// C++ of the same expressions.
    Fast,
}

/// Builds `crate_dir` for `sm_<sm>` and returns the PTX text.
pub fn build_ptx(
    tc: &Toolchain,
    crate_dir: &Path,
    source_root: &Path,
    target_dir: &Path,
    sm: u32,
    contract: FpContract,
    math: MathMode,
) -> Result<String, BuildError> {
    let arch = format!("sm_{sm}");
    let name = crate_lib_name(crate_dir)?;
    // Flags for every crate of the build, not only the kernel crate (what
    // follows `--` reaches only the last one):
    // * the architecture, so that `cfg(target_feature = "sm_80")` holds in
    //   the device library too (it picks `redux.sync` on sm_80+);
    // * MIR jump threading off: it does not know that barriers are
    //   convergent; it copies `if c {..} block.sync(); if c {..}` into two
    //   paths, each with its own `bar.sync` (an aligned barrier), and a
    //   block whose threads take different paths deadlocks. MIR is
    //   optimized in the crate that defines a function, so this must reach
    //   the device library, whose inline functions hold barriers. LLVM's
    //   own passes respect the barrier intrinsic's `convergent` attribute.
    // * on sm_90, PTX ISA 8.0, the first with the bulk copy engine
    //   (`cp.async.bulk`, `mbarrier.expect_tx`, `fence.proxy.async`);
    // * source paths as the project names them, for panic locations.
    // * with `FpContract::Fast`, LLVM's `-fp-contract=fast` (nvcc's
    //   `-fmad=true`).
    // * with `MathMode::Fast`, `--cfg cg_fast_math`: cg-core's math
    //   functions become what nvcc's `--use_fast_math` makes of them.
    let flags = rustflags(
        sm,
        source_root,
        tc.library_sources().as_deref(),
        contract,
        math,
    );
    let target_dir = build_dir(target_dir, sm, contract, math, &flags);
    let mut cmd = nested_cargo(tc, crate_dir);
    cmd.arg("rustc");
    for setting in KERNEL_PROFILE {
        cmd.args(["--config", setting]);
    }
    let out = cmd
        .args([
            "--release",
            "--lib",
            "--crate-type",
            "cdylib",
            "--message-format=json",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--target-dir",
        ])
        .arg(&target_dir)
        .args(["--", "--emit=asm", "-C", "linker=/bin/true"])
        .arg(own_source_path(crate_dir, source_root))
        .args(feature_flags(crate_dir)?)
        .env("CARGO_ENCODED_RUSTFLAGS", flags)
        .output()
        .map_err(io_err(format!(
            "running {} (from {})",
            tc.cargo.display(),
            tc.origin
        )))?;
    let messages = compiler_messages(&String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        let mut output: String = messages.iter().map(|m| m.rendered.as_str()).collect();
        output.push_str(&String::from_utf8_lossy(&out.stderr));
        return Err(BuildError::Compile {
            crate_dir: crate_dir.to_path_buf(),
            arch,
            output,
        });
    }
    forward_warnings(&arch, &messages);
    let ptx_path = target_dir
        .join("nvptx64-nvidia-cuda/release/deps")
        .join(format!("{name}.s"));
    let ptx = std::fs::read_to_string(&ptx_path)
        .map_err(io_err(format!("reading {}", ptx_path.display())))?;
    if !ptx.contains(&format!(".target {arch}")) {
        return Err(BuildError::Ptx(format!(
            "{} is not PTX for {arch}",
            ptx_path.display()
        )));
    }
    keep_fresh(&ptx_path)?;
    Ok(ptx)
}

/// Puts the PTX at `s` (`deps/<name>.s`) where cargo looks for the
/// cdylib's linked module, `deps/<name>.ptx`. The linker is skipped
/// (`-C linker=/bin/true`), so that file was never written, and cargo took
/// the crate as out of date at every later build, however unchanged: each
/// run of a build script that builds kernels (clippy, doc, test, package,
/// the compile-fail tests' two builds) compiled every kernel crate again.
fn keep_fresh(s: &Path) -> Result<(), BuildError> {
    let linked = s.with_extension("ptx");
    let _ = std::fs::remove_file(&linked);
    std::fs::hard_link(s, &linked)
        .or_else(|_| std::fs::copy(s, &linked).map(drop))
        .map_err(io_err(format!("writing {}", linked.display())))
}

/// One diagnostic of the nested build.
#[derive(Debug, PartialEq)]
struct CompilerMessage {
    /// `error`, `warning`, `note`, ...
    level: String,
    /// As rustc prints it, lines ending in `\n`.
    rendered: String,
}

/// Warnings about the flags [`rustflags`] passes on purpose: `ptx80` is an
/// unstable target feature, and rustc says so for every crate.
const EXPECTED_WARNINGS: [&str; 1] = ["unstable feature specified for `-Ctarget-feature`: `ptx80`"];

/// The compiler's diagnostics in the nested cargo's JSON output
/// (`--message-format=json`), without the `N warnings emitted` summaries
/// and the [`EXPECTED_WARNINGS`].
fn compiler_messages(stdout: &str) -> Vec<CompilerMessage> {
    let mut messages = Vec::new();
    for line in stdout.lines() {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if json["reason"] != "compiler-message" {
            continue;
        }
        let message = &json["message"];
        let text = message["message"].as_str().unwrap_or_default();
        let summary = message["spans"].as_array().is_some_and(|s| s.is_empty())
            && (text.ends_with(" warning emitted")
                || text.ends_with(" warnings emitted")
                || EXPECTED_WARNINGS.contains(&text));
        if let (Some(level), Some(rendered), false) = (
            message["level"].as_str(),
            message["rendered"].as_str(),
            summary,
        ) {
            messages.push(CompilerMessage {
                level: level.to_string(),
                rendered: rendered.to_string(),
            });
        }
    }
    messages
}

/// The lines that report the warnings among `messages` of the `arch`
/// build: each warning's rendered text, its first line tagged with the
/// architecture.
fn warning_lines(arch: &str, messages: &[CompilerMessage]) -> Vec<String> {
    let mut lines = Vec::new();
    for m in messages.iter().filter(|m| m.level == "warning") {
        for (i, line) in m.rendered.lines().enumerate() {
            if i == 0 {
                lines.push(format!("device code ({arch}): {line}"));
            } else {
                lines.push(line.to_string());
            }
        }
    }
    lines
}

/// Shows the device code's warnings: `cargo:warning=` lines in a build
/// script (where cargo sets `OUT_DIR`), stderr elsewhere.
fn forward_warnings(arch: &str, messages: &[CompilerMessage]) {
    let in_build_script = std::env::var_os("OUT_DIR").is_some();
    for line in warning_lines(arch, messages) {
        if in_build_script {
            println!("cargo:warning={line}");
        } else {
            eprintln!("{line}");
        }
    }
}

/// The kernel crate's library name (package name with `-` as `_`).
pub(crate) fn crate_lib_name(crate_dir: &Path) -> Result<String, BuildError> {
    let manifest = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(io_err(format!("reading {}", manifest.display())))?;
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(rest) = line.strip_prefix("name") {
                if let Some(v) = rest.trim_start().strip_prefix('=') {
                    return Ok(v.trim().trim_matches('"').replace('-', "_"));
                }
            }
        }
    }
    Err(BuildError::Ptx(format!(
        "{}: no [package] name",
        manifest.display()
    )))
}

/// The kernel crate's directory and those of its path dependencies: what
/// cargo must watch to rebuild the PTX when device code changes.
pub fn watched_dirs(crate_dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let tc = crate::toolchain::Toolchain::find()?;
    let out = nested_cargo(&tc, crate_dir)
        .args(["metadata", "--format-version", "1", "--offline"])
        .output()
        .map_err(io_err("running cargo metadata"))?;
    let mut dirs = vec![crate_dir.to_path_buf()];
    if out.status.success() {
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        for pkg in meta["packages"].as_array().into_iter().flatten() {
            if pkg["source"].is_null() {
                if let Some(m) = pkg["manifest_path"].as_str() {
                    let dir = Path::new(m).parent().unwrap_or(Path::new(m)).to_path_buf();
                    if !dirs.contains(&dir) {
                        dirs.push(dir);
                    }
                }
            }
        }
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_warnings_are_forwarded_line_by_line_without_summaries() {
        let stdout = [
            r#"{"reason":"compiler-artifact","package_id":"core"}"#,
            r#"{"reason":"compiler-message","message":{"level":"warning","message":"unused variable: `x`","spans":[{}],"rendered":"warning: unused variable: `x`\n --> src/lib.rs:3:9\n"}}"#,
            r#"{"reason":"compiler-message","message":{"level":"warning","message":"1 warning emitted","spans":[],"rendered":"warning: 1 warning emitted\n"}}"#,
            r#"{"reason":"compiler-message","message":{"level":"warning","message":"unstable feature specified for `-Ctarget-feature`: `ptx80`","spans":[],"rendered":"warning: unstable feature\n"}}"#,
            "Compiling cg-core",
            r#"{"reason":"build-finished","success":true}"#,
        ]
        .join("\n");
        let messages = compiler_messages(&stdout);
        assert_eq!(messages.len(), 1);
        assert_eq!(
            warning_lines("sm_90", &messages),
            [
                "device code (sm_90): warning: unused variable: `x`",
                " --> src/lib.rs:3:9"
            ]
        );
        let error = compiler_messages(
            r#"{"reason":"compiler-message","message":{"level":"error","message":"oops","spans":[{}],"rendered":"error: oops\n"}}"#,
        );
        assert_eq!(error[0].level, "error");
        assert!(warning_lines("sm_80", &error).is_empty());
    }

    #[test]
    fn source_paths_are_named_from_the_projects_root() {
        let root = Path::new("/home/me/project");
        assert_eq!(
            remap_source_paths(root, None),
            ["--remap-path-prefix=/home/me/project/="]
        );
        assert_eq!(
            own_source_path(&root.join("kernels/samples"), root),
            "--remap-path-prefix=src=kernels/samples/src"
        );
        assert_eq!(
            remap_source_paths(
                Path::new("/p"),
                Some(Path::new("/usr/lib/rustlib/src/rust/library"))
            ),
            [
                "--remap-path-prefix=/usr/lib/rustlib/src/rust/library/=rust/library/",
                "--remap-path-prefix=/p/="
            ]
        );
        // The root holds the host crate and the kernel crate: the project's
        // root for a kernel crate below the host crate's parent, the kernel
        // crate's parent for crates side by side, and that parent too when
        // the two share no directory but `/`.
        let kernels = Path::new("/home/me/project/kernels/tests");
        assert_eq!(
            source_root(kernels, Some(Path::new("/home/me/project/tests"))),
            Path::new("/home/me/project")
        );
        assert_eq!(
            source_root(kernels, Some(Path::new("/home/me/project"))),
            Path::new("/home/me/project")
        );
        assert_eq!(
            source_root(Path::new("/t/my-kernels"), Some(Path::new("/t/my-app"))),
            Path::new("/t")
        );
        assert_eq!(
            source_root(kernels, Some(Path::new("/elsewhere/app"))),
            Path::new("/home/me/project/kernels")
        );
        assert_eq!(
            source_root(kernels, None),
            Path::new("/home/me/project/kernels")
        );
        let flags = rustflags(
            90,
            Path::new("/p"),
            None,
            FpContract::Off,
            MathMode::Precise,
        );
        assert_eq!(
            flags.split('\x1f').collect::<Vec<_>>(),
            [
                "-Ctarget-cpu=sm_90",
                "-Zmir-enable-passes=-JumpThreading",
                "-Cllvm-args=-scev-cheap-expansion-budget=64",
                "-Cllvm-args=-unroll-runtime-multi-exit",
                "-Cllvm-args=-unroll-partial-threshold=40",
                "-Ctarget-feature=+ptx80",
                "--remap-path-prefix=/p/="
            ]
        );
        let fused = rustflags(80, Path::new("/p"), None, FpContract::Fast, MathMode::Fast);
        assert!(fused
            .split('\x1f')
            .any(|f| f == "-Cllvm-args=-fp-contract=fast"));
        assert!(fused.contains("\x1f--cfg\x1fcg_fast_math"));
    }

    #[test]
    fn a_workspace_of_projects_is_named_from_its_root() {
        let root = std::env::temp_dir().join(format!("cg-project-root-{}", std::process::id()));
        let ports = root.join("ports");
        for d in ["reduction/host", "reduction/kernels", "app"] {
            std::fs::create_dir_all(ports.join(d)).unwrap();
        }
        std::fs::write(ports.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        std::fs::write(ports.join("reduction/host/Cargo.toml"), "[package]\n").unwrap();
        let kernels = ports.join("reduction/kernels");
        assert_eq!(
            project_root(&kernels, Some(&ports.join("reduction/host"))),
            ports
        );
        // A kernel crate outside the host's workspace: the deepest directory
        // holding both, as before.
        let outside = root.join("my-kernels");
        std::fs::create_dir_all(&outside).unwrap();
        assert_eq!(project_root(&outside, Some(&ports.join("app"))), root);
        assert_eq!(project_root(&kernels, None), ports.join("reduction"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn kernel_crates_built_alike_share_one_build_directory() {
        let t = Path::new("/t/cg-ptx");
        let project = |root: &str, contract| {
            let flags = rustflags(90, Path::new(root), None, contract, MathMode::Precise);
            build_dir(t, 90, contract, MathMode::Precise, &flags)
        };
        let samples = project("/p", FpContract::Off);
        // The flags name no kernel crate: every kernel crate of a project
        // gets the same directory (one `core`), each setting and each
        // project its own.
        assert_eq!(samples, project("/p", FpContract::Off));
        assert_ne!(samples, project("/q", FpContract::Off));
        let fused = project("/p", FpContract::Fast);
        assert_ne!(samples, fused);
        assert_eq!(samples.parent(), Some(t));
        let name = |d: &Path| d.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name(&samples).starts_with("sm_90-"), "{samples:?}");
        assert!(name(&fused).starts_with("sm_90-fma-"), "{fused:?}");
        assert!(!rustflags(
            90,
            Path::new("/p"),
            None,
            FpContract::Off,
            MathMode::Precise
        )
        .contains("src="));
    }
}
