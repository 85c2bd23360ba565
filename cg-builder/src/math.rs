//! CUDA's math library in the kernel's PTX module.
//!
//! `cg_core::math` declares, for each function of CUDA's math library a
//! kernel calls, an external device function `cg_math_NAME` (`cg_math_expf`,
//! `cg_math_pow`, ...); rustc writes each as an `.extern .func` declaration.
//! This step defines them: `math.cu` (one line a function: `cg_math_NAME`
//! returns CUDA's `NAME` of its arguments) is compiled by nvcc
//! (`-rdc=true -ptx`, the module's architecture, nvcc's default flags or
//! `--use_fast_math`, and the `-fmad` setting that matches the build's
//! [`FpContract`]: `-fmad=false` under `Off`, nvcc's default `-fmad=true`
//! under `Fast`), and the definitions the module calls, with the
//! functions and tables they use in turn, replace the declarations. Each
//! result is then the one nvcc's own compilation of the same call gives:
//! the same libdevice code through the same compiler (NVVM) and flags. The
//! `-fmad` setting matters: NVVM contracts some of libdevice's own
//! products and sums (one `fma` fewer in the `f64` `log`, `log2`, `log10`,
//! `log1p`, `asinh`, `acosh`, `atanh`, `lgamma`, `tgamma`, `erfcinv`,
//! `normcdfinv` and the `f32` `erfcx` under `-fmad=false`, CUDA 13.0,
//! sm_90), and ptxas may fuse the `mul`/`add` pairs it emits without
//! `.rn`, so a kernel equals nvcc's build of the same code under the
//! matching setting.
//! Each call is then replaced by a copy of the function's body
//! ([`inline`]), as nvcc inlines the same call.
//!
//! nvcc is looked for as `CG_NVCC`, then on the PATH, then in PyPI's
//! `nvidia-cuda-nvcc` wheel (which `scripts/setup` installs); its output
//! is kept under the target directory (`cg-math/`), keyed by the source,
//! the flags and nvcc's version, so it runs once per architecture. A module
//! that calls no math function does not need nvcc.

pub mod inline;

use crate::{io_err, BuildError, FpContract};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The wrappers nvcc compiles: `cg_math_NAME` for each function.
pub const SOURCE: &str = include_str!("math.cu");

/// The prefix of every function this step defines.
pub const PREFIX: &str = "cg_math_";

/// Environment variable naming the nvcc to use.
pub const NVCC_VAR: &str = "CG_NVCC";

/// Whether the math functions are CUDA's precise ones or what nvcc's
/// `--use_fast_math` makes of them; see
/// [`KernelBuild::fast_math`](crate::KernelBuild::fast_math).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MathMode {
    /// nvcc's defaults (`-ftz=false -prec-div=true -prec-sqrt=true`).
    #[default]
    Precise,
    /// nvcc's `--use_fast_math`.
    Fast,
}

/// Defines the `cg_math_*` functions `ptx` declares, from the library
/// compiled for its architecture (cached under `target_dir`); returns
/// `ptx` unchanged when it declares none.
pub fn link_library(
    ptx: &str,
    sm: u32,
    mode: MathMode,
    contract: FpContract,
    target_dir: &Path,
) -> Result<String, BuildError> {
    if declared(ptx).next().is_none() {
        return Ok(ptx.to_string());
    }
    let library = library_ptx(sm, mode, contract, target_dir)?;
    Ok(inline::calls(&link(ptx, &library)?))
}

/// The names of the `cg_math_*` functions a module declares `.extern`.
fn declared(ptx: &str) -> impl Iterator<Item = &str> {
    items(ptx)
        .into_iter()
        .filter(|i| i.kind == Kind::Extern && i.name.starts_with(PREFIX))
        .map(|i| i.name)
}

/// `ptx` with its `.extern` declarations of library functions replaced by
/// their definitions from `library` (nvcc's PTX of [`SOURCE`]), preceded by
/// what they use.
pub fn link(ptx: &str, library: &str) -> Result<String, BuildError> {
    let lib_items = items(library);
    let by_name: BTreeMap<&str, Vec<&Item>> = lib_items.iter().fold(BTreeMap::new(), |mut m, i| {
        if !i.name.is_empty() {
            m.entry(i.name).or_insert_with(Vec::new).push(i);
        }
        m
    });
    let module_items = items(ptx);
    let wanted: Vec<&str> = module_items
        .iter()
        .filter(|i| i.kind == Kind::Extern && i.name.starts_with(PREFIX))
        .map(|i| i.name)
        .collect();
    // Everything the wanted functions reach.
    let mut needed = BTreeSet::new();
    let mut work: Vec<&str> = wanted.clone();
    while let Some(name) = work.pop() {
        if !needed.insert(name) {
            continue;
        }
        let defs = by_name.get(name).ok_or_else(|| {
            BuildError::Ptx(format!(
                "the kernel calls `{name}`, which cg-builder's math library (math.cu) does not \
                 define: cg-core and cg-builder are from different versions"
            ))
        })?;
        for item in defs {
            for word in identifiers(item.text) {
                if word != name && by_name.contains_key(word) && !needed.contains(word) {
                    work.push(word);
                }
            }
        }
    }
    // Prototypes first, then tables, then definitions: every name is
    // declared before it is used.
    let mut block = String::from("// CUDA's math library (cg-builder, nvcc -rdc=true -ptx)\n");
    for kind in [Kind::Prototype, Kind::Data, Kind::Definition] {
        for item in lib_items
            .iter()
            .filter(|i| i.kind == kind && needed.contains(i.name))
        {
            // Definitions become module-private: nothing outside calls them.
            let text = item.text.strip_prefix(".visible ").unwrap_or(item.text);
            block.push_str(text);
            block.push('\n');
        }
    }
    let mut out = String::with_capacity(ptx.len() + block.len());
    let mut placed = false;
    let mut last = 0;
    for item in &module_items {
        if item.kind == Kind::Extern && item.name.starts_with(PREFIX) {
            out.push_str(&ptx[last..item.start]);
            if !placed {
                out.push_str(&block);
                placed = true;
            }
            last = item.start + item.text.len();
        }
    }
    out.push_str(&ptx[last..]);
    Ok(out)
}

/// What a top-level item of a PTX module is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `.version`, `.target`, `.address_size`.
    Header,
    /// `.extern .func ...;`.
    Extern,
    /// `.func ...;` (a prototype of a function defined later).
    Prototype,
    /// A function with its body (`.func`, `.entry`).
    Definition,
    /// A module-scope variable.
    Data,
}

/// One top-level item: its text (from its first character to its closing
/// `;` or `}`), where that starts, its name.
#[derive(Debug)]
struct Item<'a> {
    kind: Kind,
    name: &'a str,
    start: usize,
    text: &'a str,
}

/// The top-level items of a module as LLVM's and nvcc's backends write
/// them: each starts on a line of its own; comments between them are left
/// out.
fn items(ptx: &str) -> Vec<Item<'_>> {
    let b = ptx.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // Skip blank space and comments.
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if ptx[i..].starts_with("//") {
            i = ptx[i..].find('\n').map_or(b.len(), |e| i + e + 1);
            continue;
        }
        if ptx[i..].starts_with("/*") {
            i = ptx[i..].find("*/").map_or(b.len(), |e| i + e + 2);
            continue;
        }
        let start = i;
        let first = ptx[i..]
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        if matches!(first, ".version" | ".target" | ".address_size" | ".file") {
            let end = ptx[i..].find('\n').map_or(b.len(), |e| i + e);
            out.push(Item {
                kind: Kind::Header,
                name: "",
                start,
                text: &ptx[start..end],
            });
            i = end;
            continue;
        }
        // The item ends at the first `;` or `}` at depth zero (a `{` at
        // depth zero that is not an initializer's opens a body).
        let mut depth = 0usize;
        let mut parens = 0usize;
        let mut body = false;
        let mut end = b.len();
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b'/' if b.get(j + 1) == Some(&b'/') => {
                    j = ptx[j..].find('\n').map_or(b.len(), |e| j + e);
                    continue;
                }
                b'(' => parens += 1,
                b')' => parens = parens.saturating_sub(1),
                b'{' => {
                    if depth == 0 && parens == 0 && !ptx[start..j].contains('=') {
                        body = true;
                    }
                    depth += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && body {
                        end = j + 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let text = &ptx[start..end];
        let head = &text[..text.find('{').filter(|_| body).unwrap_or(text.len())];
        let words: Vec<&str> = head.split_whitespace().collect();
        let (kind, name) = if words.iter().any(|w| *w == ".func" || *w == ".entry") {
            let kind = if body {
                Kind::Definition
            } else if words.contains(&".extern") {
                Kind::Extern
            } else {
                Kind::Prototype
            };
            (kind, function_name(head))
        } else {
            (Kind::Data, data_name(head))
        };
        out.push(Item {
            kind,
            name,
            start,
            text,
        });
        i = end;
    }
    out
}

/// The name in a function's head: what follows `.func`/`.entry` and the
/// optional return parameters.
fn function_name(head: &str) -> &str {
    let at = head
        .find(".func")
        .map(|p| p + 5)
        .or_else(|| head.find(".entry").map(|p| p + 6))
        .unwrap_or(0);
    let mut rest = head[at..].trim_start();
    if rest.starts_with('(') {
        let close = rest.find(')').map_or(rest.len(), |c| c + 1);
        rest = rest[close..].trim_start();
    }
    let end = rest
        .find(|c: char| c == '(' || c.is_whitespace() || c == ';')
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The name of a module-scope variable: the last word before its length,
/// its initializer or its `;`.
fn data_name(head: &str) -> &str {
    let decl = head.split('=').next().unwrap_or(head);
    let decl = decl.trim_end().trim_end_matches(';');
    let last = decl.split_whitespace().last().unwrap_or("");
    last.split('[').next().unwrap_or(last)
}

/// The identifiers in a piece of PTX.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
}

/// nvcc: [`NVCC_VAR`], the PATH, PyPI's `nvidia-cuda-nvcc` wheel
/// ([`cuda_tool`](crate::sass::cuda_tool)).
pub fn nvcc() -> Result<PathBuf, BuildError> {
    crate::sass::cuda_tool("nvcc").ok_or_else(|| {
        BuildError::Ptx(
            "the kernel calls CUDA's math library (cg_core::math), which cg-builder compiles with \
             nvcc, and no nvcc was found: `pip install nvidia-cuda-nvcc` (scripts/setup does), put \
             nvcc on the PATH, or set CG_NVCC"
                .into(),
        )
    })
}

fn nvcc_flags(sm: u32, mode: MathMode, contract: FpContract) -> Vec<String> {
    let mut flags = vec![
        "-rdc=true".to_string(),
        "-ptx".into(),
        format!("-arch=sm_{sm}"),
    ];
    if mode == MathMode::Fast {
        flags.push("--use_fast_math".into());
    }
    if contract == FpContract::Off {
        flags.push("-fmad=false".into());
    }
    flags
}

/// nvcc's PTX of [`SOURCE`] for `sm_<sm>`, in `mode`, with the `-fmad`
/// setting of `contract`: from the cache under `target_dir` when its key
/// matches, else compiled now.
pub fn library_ptx(
    sm: u32,
    mode: MathMode,
    contract: FpContract,
    target_dir: &Path,
) -> Result<String, BuildError> {
    let nvcc = nvcc()?;
    let version = Command::new(&nvcc)
        .arg("--version")
        .output()
        .map_err(io_err(format!("running {}", nvcc.display())))?;
    let flags = nvcc_flags(sm, mode, contract);
    let key = format!(
        "// cg-math key {:016x}\n",
        fnv1a(
            &[
                SOURCE.as_bytes(),
                &version.stdout,
                flags.join(" ").as_bytes()
            ]
            .concat()
        )
    );
    let dir = target_dir.join("cg-math");
    let suffix = match (mode, contract) {
        (MathMode::Precise, FpContract::Off) => "-fmad-false",
        (MathMode::Precise, FpContract::Fast) => "",
        (MathMode::Fast, FpContract::Off) => "-fast-fmad-false",
        (MathMode::Fast, FpContract::Fast) => "-fast",
    };
    let cached = dir.join(format!("math-sm_{sm}{suffix}.ptx"));
    if let Ok(text) = std::fs::read_to_string(&cached) {
        if let Some(rest) = text.strip_prefix(&key) {
            return Ok(rest.to_string());
        }
    }
    std::fs::create_dir_all(&dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let src = dir.join("math.cu");
    std::fs::write(&src, SOURCE).map_err(io_err(format!("writing {}", src.display())))?;
    let out_path = dir.join(format!("math-sm_{sm}{suffix}.nvcc.ptx"));
    let out = Command::new(&nvcc)
        .args(&flags)
        .arg("-o")
        .arg(&out_path)
        .arg(&src)
        .output()
        .map_err(io_err(format!("running {}", nvcc.display())))?;
    if !out.status.success() {
        return Err(BuildError::Ptx(format!(
            "nvcc ({}) could not compile the math library for sm_{sm}:\n{}{}",
            nvcc.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let ptx = std::fs::read_to_string(&out_path)
        .map_err(io_err(format!("reading {}", out_path.display())))?;
    std::fs::write(&cached, format!("{key}{ptx}"))
        .map_err(io_err(format!("writing {}", cached.display())))?;
    Ok(ptx)
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIBRARY: &str = "\
//
// Generated by NVIDIA NVVM Compiler
.version 9.5
.target sm_90
.address_size 64

\t// .globl\tcg_math_sinf
.func  (.param .align 8 .b8 func_retval0[16]) __internal_slow(
\t.param .b64 __internal_slow_param_0
)
;
.global .align 4 .b8 __cudart_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.global .align 4 .b8 __cudart_unused[4] = {1, 2, 3, 4};

.visible .func  (.param .b32 func_retval0) cg_math_sinf(
\t.param .b32 cg_math_sinf_param_0
)
{
\tmov.u64 %rd1, __cudart_table;
\tcall.uni (retval0), __internal_slow, (param0);
\tret;

}
.visible .func  (.param .b32 func_retval0) cg_math_expf(
\t.param .b32 cg_math_expf_param_0
)
{
\tret;

}
.func  (.param .align 8 .b8 func_retval0[16]) __internal_slow(
\t.param .b64 __internal_slow_param_0
)
{
\tret;

}
";

    const MODULE: &str = "\
.version 8.0
.target sm_90
.address_size 64

.extern .func  (.param .b32 func_retval0) cg_math_sinf
(
\t.param .b32 cg_math_sinf_param_0
)
;
.global .align 1 .b8 msg[3] = {104, 105};
.visible .entry k(
\t.param .u64 .ptr .align 1 k_param_0
)
{
\tcall.uni (retval0), cg_math_sinf, (param0);
\tret;
}
";

    #[test]
    fn items_are_split_and_named() {
        let items = items(LIBRARY);
        let named: Vec<(Kind, &str)> = items.iter().map(|i| (i.kind, i.name)).collect();
        assert_eq!(
            named,
            [
                (Kind::Header, ""),
                (Kind::Header, ""),
                (Kind::Header, ""),
                (Kind::Prototype, "__internal_slow"),
                (Kind::Data, "__cudart_table"),
                (Kind::Data, "__cudart_unused"),
                (Kind::Definition, "cg_math_sinf"),
                (Kind::Definition, "cg_math_expf"),
                (Kind::Definition, "__internal_slow"),
            ]
        );
        assert_eq!(declared(MODULE).collect::<Vec<_>>(), ["cg_math_sinf"]);
    }

    #[test]
    fn the_declarations_become_definitions_with_what_they_use() {
        let linked = link(MODULE, LIBRARY).unwrap();
        assert!(!linked.contains(".extern"));
        assert!(linked.contains("__cudart_table[8]"));
        assert!(!linked.contains("__cudart_unused"));
        assert!(!linked.contains("cg_math_expf"));
        assert!(!linked.contains(".visible .func"));
        // Declared before use: the prototype, the table, then the
        // definitions, all before the entry point.
        let at = |s: &str| linked.find(s).unwrap();
        assert!(at("__internal_slow(") < at("__cudart_table"));
        assert!(at("__cudart_table") < at(".func  (.param .b32 func_retval0) cg_math_sinf"));
        assert!(at("cg_math_sinf(") < at(".entry k"));
        let module = cg_ptx::Module::parse(&linked);
        assert!(module.function("cg_math_sinf").unwrap().body.is_some());
        assert!(module.function("__internal_slow").unwrap().body.is_some());
        assert!(module.global("msg").is_some());
        assert_eq!(
            link("not a math module", LIBRARY).unwrap(),
            "not a math module"
        );
    }

    #[test]
    fn a_function_the_library_lacks_is_an_error() {
        let module = MODULE.replace("cg_math_sinf", "cg_math_nope");
        let err = link(&module, LIBRARY).unwrap_err().to_string();
        assert!(err.contains("cg_math_nope"), "{err}");
    }
}
