//! What the builder reads from the PTX the compiler produced (through
//! `cg-ptx`): the `#[kernel]` records of the entry points, and which entry
//! points reach a grid barrier; and what it writes into it: launch bounds,
//! and the grid barrier's place as a kernel parameter.
//!
//! Every entry point `#[kernel]` made starts with its signature, recorded
//! as a PTX comment (`cg_signature::record`); the host handles are
//! generated from those, so they describe what was compiled, for each
//! architecture, whether a function, an instance of a generic one or a
//! macro wrote the kernel.
//!
//! A `#[kernel(launch_bounds(..))]` record becomes PTX directives on its
//! entry point ([`with_launch_bounds`]), as nvcc writes them for
//! `__launch_bounds__`.
//!
//! `GridGroup::sync()` leaves the comment `// cg-core: grid.sync` in the PTX
//! (an empty inline-asm statement: no instruction). An entry point that
//! reaches it, directly or through calls, must be declared
//! `#[kernel(cooperative)]`, because only then does its host handle launch it
//! cooperatively. Checking the PTX rather than the source catches barriers
//! hidden in helper functions and other crates.
//!
//! The grid barrier reads where its counters lie from the module word
//! `cg_grid_barrier`; in an entry point that read becomes one of a kernel
//! parameter the builder appends and the host fills in
//! ([`with_grid_barrier_place`]).

use crate::BuildError;
use cg_signature::record::{self, KernelRecord};
use std::collections::BTreeSet;
use std::ops::Range;

/// The marker `GridGroup::sync()` leaves in the PTX.
pub const GRID_SYNC_MARKER: &str = "// cg-core: grid.sync";

/// The marker `MultiGridGroup::sync()` leaves in the PTX.
pub const MULTI_GRID_SYNC_MARKER: &str = "// cg-core: multi_grid.sync";

/// The `#[kernel]` records of the entry points of a module built for
/// `sm_<sm>`, in the module's order: one per entry point that has one.
/// A malformed record, a record in an entry point of another name and two
/// entry points of one name are errors.
pub fn records(ptx: &str, sm: u32) -> Result<Vec<KernelRecord>, BuildError> {
    let module = cg_ptx::Module::parse(ptx);
    let mut names = BTreeSet::new();
    let mut out = Vec::new();
    for entry in module.entries() {
        if !names.insert(entry.name) {
            return Err(BuildError::Ptx(format!(
                "the sm_{sm} module has two entry points named `{}`: PTX entry points share one namespace",
                entry.name
            )));
        }
        let mut found = Vec::new();
        for r in entry.comments().filter_map(record::decode) {
            found.push(r.map_err(|e| {
                BuildError::Ptx(format!("sm_{sm} entry point `{}`: {e}", entry.name))
            })?);
        }
        match found.iter().position(|r| r.signature.name == entry.name) {
            Some(i) => out.push(found.swap_remove(i)),
            None => {
                if let Some(other) = found.first() {
                    return Err(BuildError::Ptx(format!(
                        "the sm_{sm} entry point `{}` holds the #[kernel] record of `{}` ({}:{}) \
                         and none of its own",
                        entry.name, other.signature.name, other.file, other.line
                    )));
                }
            }
        }
    }
    Ok(out)
}

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

/// Checks that every entry point of a module built for `sm_<sm>` that
/// reaches `grid.sync()` is a kernel (of `kernels`, the module's records)
/// declared cooperative.
pub fn check_cooperative(ptx: &str, sm: u32, kernels: &[KernelRecord]) -> Result<(), BuildError> {
    for entry in entries_reaching(ptx, GRID_SYNC_MARKER) {
        match kernels.iter().find(|k| k.signature.name == entry) {
            Some(k) if k.signature.options.cooperative => {}
            Some(k) => {
                return Err(BuildError::Ptx(format!(
                    "{}:{}: kernel `{entry}` reaches grid.sync() but is not declared cooperative; \
                     write #[kernel(cooperative)] so that its host handle launches it with a \
                     co-resident grid (an ordinary launch would trap or hang)",
                    k.file, k.line
                )))
            }
            None => {
                return Err(BuildError::Ptx(format!(
                    "entry point `{entry}` of the sm_{sm} module reaches grid.sync() but is not a \
                     #[kernel(cooperative)]; declare it with #[kernel(cooperative)]"
                )))
            }
        }
    }
    for entry in entries_reaching(ptx, MULTI_GRID_SYNC_MARKER) {
        match kernels.iter().find(|k| k.signature.name == entry) {
            Some(k) if k.signature.options.multi_grid => {}
            Some(k) => {
                return Err(BuildError::Ptx(format!(
                    "{}:{}: kernel `{entry}` reaches multi_grid.sync() but is not declared \
                     multi_grid; write #[kernel(multi_grid)] so that its host handle launches it \
                     on every GPU of a GpuSet at once (any other launch would trap or hang)",
                    k.file, k.line
                )))
            }
            None => {
                return Err(BuildError::Ptx(format!(
                    "entry point `{entry}` of the sm_{sm} module reaches multi_grid.sync() but is \
                     not a #[kernel(multi_grid)]; declare it with #[kernel(multi_grid)]"
                )))
            }
        }
    }
    Ok(())
}

/// Directives that bound an entry point's block size or occupancy: the
/// builder writes them from `#[kernel(launch_bounds(..))]` and
/// `#[kernel(block_size(..))]`, so the compiler must not have written any.
const LAUNCH_BOUND_DIRECTIVES: [&str; 4] = [".maxntid", ".reqntid", ".minnctapersm", ".maxnreg"];

/// `ptx` (the module built for `sm_<sm>`, whose records are `kernels`) with
/// each `#[kernel(launch_bounds(..))]` entry point's bounds written as PTX
/// directives between its parameters and its body: `.maxntid N, 1, 1`
/// and, when given, `.minnctapersm M`, what nvcc writes for
/// `__launch_bounds__(N, M)`. A `#[kernel(block_size(x, y, z))]` gets
/// `.reqntid x, y, z` instead of `.maxntid` (PTX allows one of the two).
/// `ptxas` reads them when it allots registers; the driver refuses larger
/// blocks (and, under `.reqntid`, any other shape). An entry point that
/// already has such a directive is an error (two sources of one bound).
pub fn with_launch_bounds(
    ptx: &str,
    sm: u32,
    kernels: &[KernelRecord],
) -> Result<String, BuildError> {
    let module = cg_ptx::Module::parse(ptx);
    // Where each directive goes: before the body's `{`.
    let mut inserts = Vec::new();
    for k in kernels {
        let bounds = k.signature.options.launch_bounds;
        let mut text = match (k.signature.options.block_size, bounds) {
            (Some([x, y, z]), _) => format!(".reqntid {x}, {y}, {z}\n"),
            (None, Some(b)) => format!(".maxntid {}, 1, 1\n", b.max_threads),
            (None, None) => continue,
        };
        if let Some(n) = bounds.and_then(|b| b.min_blocks_per_sm) {
            text += &format!(".minnctapersm {n}\n");
        }
        let name = k.signature.name.to_string();
        let entry = module.entry(&name).ok_or_else(|| {
            BuildError::Ptx(format!(
                "the sm_{sm} module has no entry point `{name}` for its #[kernel] record"
            ))
        })?;
        if let Some(d) = entry.directives.iter().find(|d| {
            LAUNCH_BOUND_DIRECTIVES
                .iter()
                .any(|b| d.split_whitespace().next() == Some(*b))
        }) {
            return Err(BuildError::Ptx(format!(
                "{}:{}: the sm_{sm} entry point `{name}` already has a `{d}`, and its \
                 #[kernel(launch_bounds(..))] or #[kernel(block_size(..))] would add another: \
                 leave one of them",
                k.file, k.line
            )));
        }
        let body = entry.body.ok_or_else(|| {
            BuildError::Ptx(format!("the sm_{sm} entry point `{name}` has no body"))
        })?;
        // `body` lies inside `ptx` (the parser hands out slices of it).
        let at = body.as_ptr() as usize - ptx.as_ptr() as usize;
        inserts.push((at..at, text));
    }
    Ok(edited(ptx, inserts))
}

/// `ptx` with each byte range of `edits` (ranges of `ptx` that do not
/// overlap, in any order) replaced by its text.
fn edited(ptx: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(range, _)| range.start);
    let added: usize = edits.iter().map(|(_, text)| text.len()).sum();
    let mut out = String::with_capacity(ptx.len() + added);
    let mut from = 0;
    for (range, text) in edits {
        out.push_str(&ptx[from..range.start]);
        out.push_str(&text);
        from = range.end;
    }
    out.push_str(&ptx[from..]);
    out
}

/// `ptx` with the grid barrier's place passed as a kernel parameter.
/// cg-core's grid barrier reads where its counters lie from the module
/// word `cg_grid_barrier` (the statement `ld.global.nc.u64 %rdN,
/// [cg_grid_barrier];`, which `this_grid()` and every barrier leave). In
/// an entry point that reaches a grid barrier (directly or through calls)
/// those reads become `ld.param.u64 %rdN, [<entry>_cg_grid_barrier];` of a
/// last parameter `.param .u64 <entry>_cg_grid_barrier` appended here:
/// ptxas takes a kernel parameter as an operand from the parameter bank
/// wherever it is used, so no register holds the address through the
/// kernel's loops and no load from memory waits at a barrier. The host
/// passes the address the module word holds at every launch of such an
/// entry (`cg_ptx::Function::takes_grid_barrier_place`). Every entry point
/// that reaches the marker takes the parameter, whether or not it reads
/// the word: a grid collective that waits for other blocks leaves the
/// marker to be launched cooperatively and has no barrier of its own, so
/// its kernel may reach the marker with no read left; the host and the
/// checks of the built PTX know the entries that take a place by the
/// marker alone. In an entry point that reaches none, the reads become
/// `mov.u64 %rdN, 0;`: it has no place, and takes no parameter for it. A
/// device function keeps its reads of the word (its code cannot read an
/// entry's parameters; the host sets the word as well).
pub fn with_grid_barrier_place(ptx: &str) -> String {
    let symbol = cg_core::grid::layout::SYMBOL;
    let read = format!(", [{symbol}];");
    let module = cg_ptx::Module::parse(ptx);
    let reaching = entries_reaching(ptx, GRID_SYNC_MARKER);
    let mut edits = Vec::new();
    for entry in module.entries() {
        let has_place = reaching.contains(entry.name);
        let Some(body) = entry.body else { continue };
        // `body` and `entry.name` lie inside `ptx` (the parser hands out
        // slices of it).
        let body_at = body.as_ptr() as usize - ptx.as_ptr() as usize;
        let param = format!("{}{}", entry.name, cg_core::grid::layout::PARAM_SUFFIX);
        let mut reads = Vec::new();
        let mut line_at = body_at;
        for line in body.split_inclusive('\n') {
            let statement = line.trim();
            if let Some(register) = statement
                .strip_prefix("ld.global.nc.u64 ")
                .and_then(|rest| rest.strip_suffix(read.as_str()))
            {
                let indent = line.len() - line.trim_start().len();
                let start = line_at + indent;
                let text = if has_place {
                    format!("ld.param.u64 {register}, [{param}];")
                } else {
                    format!("mov.u64 {register}, 0;")
                };
                reads.push((start..start + statement.len(), text));
            }
            line_at += line.len();
        }
        if !has_place {
            edits.extend(reads);
            continue;
        }
        let name_at = entry.name.as_ptr() as usize - ptx.as_ptr() as usize;
        // The parameter list closes at the first `)` after the name (no
        // parameter declaration holds one).
        let close = name_at
            + ptx[name_at..body_at]
                .find(')')
                .expect("an entry's parameter list");
        let decl = format!(".param .u64 {param}");
        edits.push(if entry.params.is_empty() {
            (close..close, format!("\n\t{decl}\n"))
        } else {
            // After the last parameter, before the line break that ends it.
            let last = ptx[..close].trim_end().len();
            (last..last, format!(",\n\t{decl}"))
        });
        edits.extend(reads);
    }
    edited(ptx, edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module whose entry `coop` reaches the grid barrier through a call,
    /// with the records `coop_record` and `plain_record`.
    fn module(coop_record: &str, plain_record: &str) -> String {
        format!(
            r#"
.version 7.8
.target sm_90
.address_size 64
.func (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{{
	// begin inline asm
	// cg-core: grid.sync
	// end inline asm
	ret;
}}
.func quiet()
{{
	ret;
}}
.extern .func declared_only(.param .b32 a);
	// .globl	coop
.visible .entry coop(
	.param .u64 coop_param_0
)
{{
	// begin inline asm
	// {coop_record}
	// end inline asm
	{{ // callseq 0, 0
	call.uni (retval0), helper, (param0);
	}}
	ret;
}}
.visible .entry plain()
{{
	// begin inline asm
	// {plain_record}
	// end inline asm
	call.uni quiet, ();
	ret;
}}
"#
        )
    }

    const COOP: &str =
        "cg-kernel v1 name=coop cooperative=1 cluster=none param=out:mut:u32 at=3:kernels/src/x.rs";
    const PLAIN: &str = "cg-kernel v1 name=plain cooperative=0 cluster=none at=9:kernels/src/x.rs";

    #[test]
    fn reads_the_records_of_the_entry_points() {
        let ptx = module(COOP, PLAIN);
        let r = records(&ptx, 90).unwrap();
        let names: Vec<String> = r.iter().map(|r| r.signature.name.to_string()).collect();
        assert_eq!(names, ["coop", "plain"]);
        assert_eq!((r[0].file.as_str(), r[0].line), ("kernels/src/x.rs", 3));
        assert_eq!(r[0].signature.params[0].name, "out");
        // An entry point without a record is no kernel of the crate.
        let r = records(&module(COOP, "not a record"), 90).unwrap();
        assert_eq!(r.len(), 1);
        let e = records(&module(COOP, "cg-kernel v1 name=plain"), 90)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sm_90 entry point `plain`: a malformed #[kernel] record"),
            "{e}"
        );
        let e = records(&module(COOP, &COOP.replace("name=coop", "name=other")), 90)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`plain` holds the #[kernel] record of `other`"),
            "{e}"
        );
        let twice = module(COOP, PLAIN).replace(".entry plain()", ".entry coop()");
        let e = records(&twice, 80).unwrap_err().to_string();
        assert!(
            e.contains("the sm_80 module has two entry points named `coop`"),
            "{e}"
        );
    }

    #[test]
    fn a_kernel_that_reaches_grid_sync_must_be_cooperative() {
        let ptx = module(COOP, PLAIN);
        check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap()).unwrap();
        let ptx = module(&COOP.replace("cooperative=1", "cooperative=0"), PLAIN);
        let e = check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("kernels/src/x.rs:3: kernel `coop` reaches grid.sync()")
                && e.contains("#[kernel(cooperative)]"),
            "{e}"
        );
        let ptx = module("no record", PLAIN);
        let e = check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("entry point `coop` of the sm_90 module reaches grid.sync()"),
            "{e}"
        );
    }

    #[test]
    fn a_kernel_that_reaches_multi_grid_sync_must_be_multi_grid() {
        let multi = |record: &str| {
            module(record, PLAIN).replace(
                "// cg-core: grid.sync",
                "// cg-core: grid.sync\n\t// cg-core: multi_grid.sync",
            )
        };
        let declared = COOP.replace(" param=", " multi_grid=1 param=");
        let ptx = multi(&declared);
        check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap()).unwrap();
        let ptx = multi(COOP);
        let e = check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("kernels/src/x.rs:3: kernel `coop` reaches multi_grid.sync()")
                && e.contains("#[kernel(multi_grid)]"),
            "{e}"
        );
        let ptx = multi("no record");
        let e = check_cooperative(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("reaches grid.sync()"), "{e}");
    }

    #[test]
    fn launch_bounds_become_directives_before_the_body() {
        let bounded = COOP.replace(" param=", " launch_bounds=512,3 param=");
        let plain = PLAIN.replace(" at=", " launch_bounds=64 at=");
        let ptx = module(&bounded, &plain);
        let out = with_launch_bounds(&ptx, 90, &records(&ptx, 90).unwrap()).unwrap();
        let m = cg_ptx::Module::parse(&out);
        assert_eq!(
            m.entry("coop").unwrap().directives,
            [".maxntid", ".minnctapersm"]
        );
        assert_eq!(m.entry("plain").unwrap().directives, [".maxntid"]);
        // Nothing else moved: the bodies and the functions are as they were.
        let before = cg_ptx::Module::parse(&ptx);
        for name in ["coop", "plain"] {
            assert_eq!(
                m.entry(name).unwrap().body,
                before.entry(name).unwrap().body
            );
        }
        assert_eq!(
            out.replace(".maxntid 512, 1, 1\n.minnctapersm 3\n", "")
                .replace(".maxntid 64, 1, 1\n", ""),
            ptx
        );
        // Without bounds the module is unchanged.
        let ptx = module(COOP, PLAIN);
        assert_eq!(
            with_launch_bounds(&ptx, 90, &records(&ptx, 90).unwrap()).unwrap(),
            ptx
        );
        // A bound the compiler wrote already is not doubled.
        let ptx = module(&bounded, PLAIN).replace(
            " coop_param_0\n)\n",
            " coop_param_0\n)\n.maxntid 128, 1, 1\n",
        );
        let e = with_launch_bounds(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("kernels/src/x.rs:3: the sm_90 entry point `coop` already has a `.maxntid`"),
            "{e}"
        );
    }

    #[test]
    fn a_block_size_becomes_reqntid_beside_the_blocks_per_sm() {
        let sized = COOP.replace(" param=", " launch_bounds=256,4 block_size=32,8,1 param=");
        let plain = PLAIN.replace(" at=", " block_size=128,1,1 at=");
        let ptx = module(&sized, &plain);
        let out = with_launch_bounds(&ptx, 90, &records(&ptx, 90).unwrap()).unwrap();
        let m = cg_ptx::Module::parse(&out);
        assert_eq!(
            m.entry("coop").unwrap().directives,
            [".reqntid", ".minnctapersm"]
        );
        assert_eq!(m.entry("plain").unwrap().directives, [".reqntid"]);
        assert_eq!(
            out.replace(".reqntid 32, 8, 1\n.minnctapersm 4\n", "")
                .replace(".reqntid 128, 1, 1\n", ""),
            ptx
        );
        let ptx =
            module(COOP, &plain).replace(".entry plain()\n", ".entry plain()\n.reqntid 64, 1, 1\n");
        let e = with_launch_bounds(&ptx, 90, &records(&ptx, 90).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the sm_90 entry point `plain` already has a `.reqntid`"),
            "{e}"
        );
    }

    /// Entry points that read the grid barrier word: `coop` (with
    /// parameters and launch bounds) reaches the barrier's marker, `bare`
    /// (without parameters) reaches it through a call, `queries` reaches
    /// none; a device function reads the word too, and `plain` does not.
    const READS_THE_WORD: &str = "\
.visible .global .align 8 .u64 cg_grid_barrier = 0;
.func helper()
{
	// begin inline asm
	ld.global.nc.u64 %rd1, [cg_grid_barrier];
	// end inline asm
	// begin inline asm
	// cg-core: grid.sync
	// end inline asm
	ret;
}
.visible .entry coop(
	.param .u64 .ptr .align 1 coop_param_0,
	.param .u32 coop_param_1
)
.maxntid 256, 1, 1
{
	// begin inline asm
	ld.global.nc.u64 %rd7, [cg_grid_barrier];
	// end inline asm
	ld.global.nc.u64 %rd8, [%rd7];
	// begin inline asm
	// cg-core: grid.sync
	// end inline asm
	// begin inline asm
	ld.global.nc.u64 %rd12, [cg_grid_barrier];
	// end inline asm
	ret;
}
.visible .entry bare()
{
	ld.global.nc.u64 %rd3, [cg_grid_barrier];
	call.uni helper, ();
	ret;
}
.visible .entry queries(
	.param .u64 queries_param_0
)
{
	ld.global.nc.u64 %rd5, [cg_grid_barrier];
	ret;
}
.visible .entry plain(
	.param .u64 plain_param_0
)
{
	ret;
}
";

    #[test]
    fn entries_read_the_grid_barrier_place_from_a_parameter() {
        let out = with_grid_barrier_place(READS_THE_WORD);
        let m = cg_ptx::Module::parse(&out);
        let coop = m.entry("coop").unwrap();
        assert!(coop.takes_grid_barrier_place(), "{out}");
        assert_eq!(coop.param_types(), [".u64", ".u32", ".u64"]);
        assert_eq!(coop.declared_param_types(), [".u64", ".u32"]);
        assert!(
            out.contains("coop_cg_grid_barrier\n)\n.maxntid 256, 1, 1\n{"),
            "{out}"
        );
        let coop_body = coop.body.unwrap();
        assert!(coop_body.contains("\tld.param.u64 %rd7, [coop_cg_grid_barrier];\n"));
        assert!(coop_body.contains("\tld.param.u64 %rd12, [coop_cg_grid_barrier];\n"));
        assert!(coop_body.contains("\tld.global.nc.u64 %rd8, [%rd7];\n"));
        assert!(!coop_body.contains("[cg_grid_barrier]"), "{coop_body}");
        let bare = m.entry("bare").unwrap();
        assert!(bare.takes_grid_barrier_place(), "{out}");
        assert_eq!(bare.param_types(), [".u64"]);
        assert!(bare
            .body
            .unwrap()
            .contains("ld.param.u64 %rd3, [bare_cg_grid_barrier];"));
        // An entry point that reaches no grid barrier has no place.
        let queries = m.entry("queries").unwrap();
        assert!(!queries.takes_grid_barrier_place(), "{out}");
        assert_eq!(queries.param_types(), [".u64"]);
        assert!(queries.body.unwrap().contains("\tmov.u64 %rd5, 0;\n"));
        // A device function cannot read an entry's parameters: it keeps
        // the word's read, which the host sets as well.
        let helper = m.function("helper").unwrap().body.unwrap();
        assert!(helper.contains("ld.global.nc.u64 %rd1, [cg_grid_barrier];"));
        let plain = m.entry("plain").unwrap();
        assert!(!plain.takes_grid_barrier_place());
        assert_eq!(plain.param_types(), [".u64"]);
        // Nothing else moved.
        let back = out
            .replace(",\n\t.param .u64 coop_cg_grid_barrier", "")
            .replace("\n\t.param .u64 bare_cg_grid_barrier\n", "")
            .replace(
                "mov.u64 %rd5, 0;",
                "ld.global.nc.u64 %rd5, [cg_grid_barrier];",
            );
        let back = ["coop", "bare"].iter().fold(back, |back, entry| {
            back.replace(
                &format!("ld.param.u64 %rd7, [{entry}_cg_grid_barrier]"),
                "ld.global.nc.u64 %rd7, [cg_grid_barrier]",
            )
            .replace(
                &format!("ld.param.u64 %rd12, [{entry}_cg_grid_barrier]"),
                "ld.global.nc.u64 %rd12, [cg_grid_barrier]",
            )
            .replace(
                &format!("ld.param.u64 %rd3, [{entry}_cg_grid_barrier]"),
                "ld.global.nc.u64 %rd3, [cg_grid_barrier]",
            )
        });
        assert_eq!(back, READS_THE_WORD);
    }

    /// An entry point that reaches the marker without reading the word
    /// (a grid collective's kernel: the marker, no barrier) still takes
    /// the place; one that reaches none, and a module without the marker,
    /// are left as they are.
    #[test]
    fn entries_that_reach_the_marker_without_reading_the_word_take_the_place() {
        let ptx = module(COOP, PLAIN);
        let out = with_grid_barrier_place(&ptx);
        let m = cg_ptx::Module::parse(&out);
        let coop = m.entry("coop").unwrap();
        assert!(coop.takes_grid_barrier_place(), "{out}");
        assert_eq!(coop.declared_param_types(), [".u64"]);
        assert!(!m.entry("plain").unwrap().takes_grid_barrier_place());
        assert_eq!(
            out.replace(",\n\t.param .u64 coop_cg_grid_barrier", ""),
            ptx
        );
        let unmarked = ptx.replace("// cg-core: grid.sync", "// nothing");
        assert_eq!(with_grid_barrier_place(&unmarked), unmarked);
    }

    #[test]
    fn the_parameter_is_named_as_the_host_expects() {
        assert_eq!(
            cg_core::grid::layout::PARAM_SUFFIX,
            cg_ptx::GRID_BARRIER_PARAM_SUFFIX
        );
        assert_eq!(
            cg_core::grid::layout::PARAM_SUFFIX,
            format!("_{}", cg_core::grid::layout::SYMBOL)
        );
    }

    #[test]
    fn follows_calls_to_the_grid_barrier() {
        let reach = entries_reaching(&module(COOP, PLAIN), GRID_SYNC_MARKER);
        assert_eq!(reach.into_iter().collect::<Vec<_>>(), ["coop"]);
    }
}
