//! Reading the PTX the compiler produced: which functions it holds, which
//! call which, and which entry points reach a grid barrier.
//!
//! `GridGroup::sync()` leaves the comment `// cg-core: grid.sync` in the PTX
//! (an empty inline-asm statement: no instruction). An entry point that
//! reaches it, directly or through calls, must be declared
//! `#[kernel(cooperative)]`, because only then does its host handle launch it
//! cooperatively. Checking the PTX rather than the source catches barriers
//! hidden in helper functions and other crates.

use crate::bindings::ScannedKernel;
use crate::BuildError;
use std::collections::{BTreeMap, BTreeSet};

/// The marker `GridGroup::sync()` leaves in the PTX.
pub const GRID_SYNC_MARKER: &str = "// cg-core: grid.sync";

/// One `.entry` or `.func` with a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxFunction {
    /// Its name.
    pub name: String,
    /// Whether it is a kernel entry point (`.entry`).
    pub is_entry: bool,
    /// Its body, braces included.
    pub body: String,
}

/// Splits a PTX module into its functions (declarations without a body are
/// skipped).
pub fn functions(ptx: &str) -> Vec<PtxFunction> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(pos) = find_header(rest) {
        let after = &rest[pos..];
        let is_entry = after.starts_with(".entry");
        let after_kw = after
            .trim_start_matches(".entry")
            .trim_start_matches(".func")
            .trim_start();
        let after_ret = if after_kw.starts_with('(') {
            skip_parens(after_kw).trim_start()
        } else {
            after_kw
        };
        let name: String = after_ret
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
            .collect();
        let consumed = rest.len() - after_ret.len();
        let tail = &rest[consumed..];
        match tail.find(['{', ';']) {
            Some(b) if tail[b..].starts_with('{') => {
                let body_start = consumed + b;
                let end =
                    matching_brace(&rest[body_start..]).map_or(rest.len(), |e| body_start + e);
                out.push(PtxFunction {
                    name,
                    is_entry,
                    body: rest[body_start..end].to_string(),
                });
                rest = &rest[end..];
            }
            _ => rest = &rest[consumed..],
        }
    }
    out
}

fn find_header(s: &str) -> Option<usize> {
    let mut best: Option<usize> = None;
    for kw in [".entry", ".func"] {
        let mut from = 0;
        while let Some(i) = s[from..].find(kw) {
            let at = from + i;
            let before_ok = at == 0 || s[..at].ends_with(|c: char| c.is_whitespace());
            let after_ok = s[at + kw.len()..].starts_with(|c: char| c.is_whitespace() || c == '(');
            if before_ok && after_ok {
                best = Some(best.map_or(at, |b| b.min(at)));
                break;
            }
            from = at + kw.len();
        }
    }
    best
}

fn skip_parens(s: &str) -> &str {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &s[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Names of the entry points that reach `marker`, directly or through calls.
pub fn entries_reaching(ptx: &str, marker: &str) -> BTreeSet<String> {
    let funcs = functions(ptx);
    let names: BTreeSet<&str> = funcs.iter().map(|f| f.name.as_str()).collect();
    let calls: BTreeMap<&str, Vec<&str>> = funcs
        .iter()
        .map(|f| {
            let callees = f
                .body
                .lines()
                .filter(|l| l.trim_start().starts_with("call"))
                .flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')))
                .filter(|t| names.contains(t))
                .collect();
            (f.name.as_str(), callees)
        })
        .collect();
    let direct: BTreeSet<&str> = funcs
        .iter()
        .filter(|f| f.body.contains(marker))
        .map(|f| f.name.as_str())
        .collect();
    let reaches = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(f) = stack.pop() {
            if direct.contains(f) {
                return true;
            }
            if seen.insert(f) {
                stack.extend(calls.get(f).into_iter().flatten().copied());
            }
        }
        false
    };
    funcs
        .iter()
        .filter(|f| f.is_entry && reaches(&f.name))
        .map(|f| f.name.clone())
        .collect()
}

/// Checks a module built for `sm_<sm>` against the crate's `#[kernel]`
/// declarations: every declared kernel is an entry point (unless it may be
/// absent at this architecture), and every entry point that reaches
/// `grid.sync()` is declared cooperative.
pub fn check_cooperative(ptx: &str, sm: u32, kernels: &[ScannedKernel]) -> Result<(), BuildError> {
    let entries: BTreeSet<String> = functions(ptx)
        .into_iter()
        .filter(|f| f.is_entry)
        .map(|f| f.name)
        .collect();
    for k in kernels {
        let name = k.signature.name.to_string();
        if !entries.contains(&name) && !k.may_be_absent(sm) {
            return Err(BuildError::Ptx(format!(
                "{}: #[kernel] `{name}` is not an entry point of the built PTX (is it compiled out by a cfg, \
                 or in a module the crate does not declare?)",
                k.file.display()
            )));
        }
    }
    for entry in entries_reaching(ptx, GRID_SYNC_MARKER) {
        match kernels.iter().find(|k| k.signature.name == entry) {
            Some(k) if k.signature.options.cooperative => {}
            Some(k) => {
                return Err(BuildError::Ptx(format!(
                    "{}: kernel `{entry}` reaches grid.sync() but is not declared cooperative; \
                     write #[kernel(cooperative)] so that its host handle launches it with a \
                     co-resident grid (an ordinary launch would trap or hang)",
                    k.file.display()
                )))
            }
            None => {
                return Err(BuildError::Ptx(format!(
                "entry point `{entry}` reaches grid.sync() but is not a #[kernel(cooperative)]; \
                     declare it with #[kernel(cooperative)]"
            )))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
.version 7.8
.target sm_90
.address_size 64
.func (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	// begin inline asm
	// cg-core: grid.sync
	// end inline asm
	ret;
}
.func quiet()
{
	ret;
}
.extern .func declared_only(.param .b32 a);
	// .globl	coop
.visible .entry coop(
	.param .u64 coop_param_0
)
{
	{ // callseq 0, 0
	call.uni (retval0), helper, (param0);
	}
	ret;
}
.visible .entry plain()
{
	call.uni quiet, ();
	ret;
}
"#;

    fn kernel(src: &str) -> ScannedKernel {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let attr = match &f.attrs[0].meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => Default::default(),
        };
        ScannedKernel {
            signature: cg_signature::KernelSignature::parse(attr, &f).unwrap(),
            file: "cg-test-kernels/src/x.rs".into(),
            gated: false,
        }
    }

    #[test]
    fn a_kernel_that_reaches_grid_sync_must_be_cooperative() {
        let plain = [
            kernel("#[kernel] fn coop() {}"),
            kernel("#[kernel] fn plain() {}"),
        ];
        let e = check_cooperative(PTX, 90, &plain).unwrap_err().to_string();
        assert!(
            e.contains("`coop` reaches grid.sync()") && e.contains("#[kernel(cooperative)]"),
            "{e}"
        );
        let declared = [
            kernel("#[kernel(cooperative)] fn coop() {}"),
            kernel("#[kernel] fn plain() {}"),
        ];
        check_cooperative(PTX, 90, &declared).unwrap();
        let undeclared = [kernel("#[kernel] fn plain() {}")];
        let e = check_cooperative(PTX, 90, &undeclared)
            .unwrap_err()
            .to_string();
        assert!(e.contains("entry point `coop` reaches grid.sync()"), "{e}");
        let missing = [
            kernel("#[kernel(cooperative)] fn coop() {}"),
            kernel("#[kernel] fn gone() {}"),
        ];
        let e = check_cooperative(PTX, 90, &missing)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`gone` is not an entry point"), "{e}");
        // A cluster kernel may be missing below sm_90, not from sm_90 on.
        let cluster = [
            kernel("#[kernel(cooperative)] fn coop() {}"),
            kernel("#[kernel(cluster(2))] fn dsm() {}"),
        ];
        check_cooperative(PTX, 80, &cluster).unwrap();
        let e = check_cooperative(PTX, 90, &cluster)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`dsm` is not an entry point"), "{e}");
    }

    #[test]
    fn splits_functions_and_follows_calls() {
        let f = functions(PTX);
        let names: Vec<_> = f.iter().map(|f| (f.name.as_str(), f.is_entry)).collect();
        assert_eq!(
            names,
            [
                ("helper", false),
                ("quiet", false),
                ("coop", true),
                ("plain", true)
            ]
        );
        let reach = entries_reaching(PTX, GRID_SYNC_MARKER);
        assert_eq!(reach.into_iter().collect::<Vec<_>>(), ["coop"]);
    }
}
