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
use std::collections::BTreeSet;

/// The marker `GridGroup::sync()` leaves in the PTX.
pub const GRID_SYNC_MARKER: &str = "// cg-core: grid.sync";

/// Names of the entry points that reach `marker` (a comment an inline-asm
/// statement leaves, such as [`GRID_SYNC_MARKER`]), directly or through
/// calls.
pub fn entries_reaching(ptx: &str, marker: &str) -> BTreeSet<String> {
    let text = marker.trim_start_matches("//").trim();
    cg_ptx::Module::parse(ptx)
        .entries_reaching(|f| f.comments().any(|c| c == text))
        .into_iter()
        .map(String::from)
        .collect()
}

/// Checks a module built for `sm_<sm>` against the crate's `#[kernel]`
/// declarations: every declared kernel is an entry point (unless it may be
/// absent at this architecture), and every entry point that reaches
/// `grid.sync()` is declared cooperative.
pub fn check_cooperative(ptx: &str, sm: u32, kernels: &[ScannedKernel]) -> Result<(), BuildError> {
    let module = cg_ptx::Module::parse(ptx);
    let entries: BTreeSet<&str> = module.entry_names().into_iter().collect();
    for k in kernels {
        let name = k.signature.name.to_string();
        if !entries.contains(name.as_str()) && !k.may_be_absent(sm) {
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
            file: "kernels/src/x.rs".into(),
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
    fn follows_calls_to_the_grid_barrier() {
        let reach = entries_reaching(PTX, GRID_SYNC_MARKER);
        assert_eq!(reach.into_iter().collect::<Vec<_>>(), ["coop"]);
    }
}
