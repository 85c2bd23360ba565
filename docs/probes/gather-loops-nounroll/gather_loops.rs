//! Gather loops left as LLVM unrolled them: `.pragma "nounroll"` on every
//! innermost loop in which a global load's address depends on a load of
//! the same loop (`x[cols[k]]`, a pointer chase).
//!
//! LLVM unrolls a loop whose trip count is known only at run time (the
//! builder's loop flags, [`crate::compile::LOOP_FLAGS`]), and `ptxas`
//! unrolls the result again, as it does nvcc's loops: a loop of two
//! elements a trip becomes a chain of copies of 8, 4 and 2 trips and a
//! predicated first trip, each behind its own test of the trip count. For
//! a streaming loop (`y[i] = a * x[i] + y[i]`) that is more loads in
//! flight, which is what makes it as fast as nvcc's. For a gather it is
//! not: each element's load waits for the load of its index whatever the
//! unrolling, the rows of a sparse matrix or the lanes of a warp over a
//! row are short, and every short row pays the whole chain of tests and
//! 64-bit trip-count arithmetic before its first element. In the
//! conjugate-gradient port (rows of three) that chain made the SpMV's row
//! 148 instructions against nvcc's 61, and the port 1.4-1.6% slower than
//! with the pragma on its gather loop (`docs/NOTES.md`, 2026-11-30).
//!
//! The analysis reads the PTX text of each function: a loop is a backward
//! branch to a label (LLVM lays a loop out as one run of blocks, header
//! first); within it, the registers a load from global or generic memory
//! defines, and those computed from them, are followed to the end of the
//! loop and around it; a load whose address uses one of them makes the
//! loop a gather. Only innermost loops are marked (an outer loop holds the
//! inner one and is no gather of its own), and a loop that already has the
//! pragma is left as it is.

use std::collections::BTreeSet;

/// The pragma `ptxas` reads at a loop's header: do not unroll this loop.
const NOUNROLL: &str = "\t.pragma \"nounroll\";\n";

/// `ptx` with `.pragma "nounroll"` at the header of each innermost loop
/// whose global loads include a gather (see the module's documentation).
pub fn marked_nounroll(ptx: &str) -> String {
    let lines: Vec<&str> = ptx.split_inclusive('\n').collect();
    let mut marked = BTreeSet::new();
    for (header, latch) in innermost_loops(&lines) {
        let body = &lines[header + 1..=latch];
        if !body.iter().any(|l| l.contains(".pragma \"nounroll\"")) && gathers(body) {
            marked.insert(header);
        }
    }
    let mut out = String::with_capacity(ptx.len() + marked.len() * NOUNROLL.len());
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if marked.contains(&i) {
            out.push_str(NOUNROLL);
        }
    }
    out
}

/// The label a line defines (`$L__BB3_12:` gives `$L__BB3_12`).
fn label(line: &str) -> Option<&str> {
    let l = line.trim();
    let name = l.split("//").next()?.trim().strip_suffix(':')?;
    (name.starts_with('$') || name.starts_with('L')).then_some(name)
}

/// The label a branch on this line jumps to.
fn branch_target(line: &str) -> Option<&str> {
    let statement = line.split("//").next()?.trim().trim_end_matches(';');
    let mut words = statement.split_whitespace();
    let mut op = words.next()?;
    if op.starts_with('@') {
        op = words.next()?;
    }
    (op == "bra" || op.starts_with("bra."))
        .then(|| words.next())
        .flatten()
}

/// Each loop as (header line, last line of its last backward branch),
/// innermost loops only, headers in order. Labels are local to a
/// function, so the search stops at each function's end.
fn innermost_loops(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut loops: Vec<(usize, usize)> = Vec::new();
    let mut labels = std::collections::HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with('}') {
            labels.clear();
            continue;
        }
        if let Some(name) = label(line) {
            labels.insert(name.to_string(), i);
        } else if let Some(&header) = branch_target(line).and_then(|t| labels.get(t)) {
            match loops.iter_mut().find(|(h, _)| *h == header) {
                Some(l) => l.1 = l.1.max(i),
                None => loops.push((header, i)),
            }
        }
    }
    let inner: Vec<(usize, usize)> = loops
        .iter()
        .copied()
        .filter(|&(h, e)| {
            !loops
                .iter()
                .any(|&(h2, e2)| (h2, e2) != (h, e) && h <= h2 && e2 <= e)
        })
        .collect();
    let mut inner = inner;
    inner.sort();
    inner
}

/// The statement of a line: without its comment, its `;` and a predicate
/// guard; `None` for labels, directives, declarations and braces.
fn statement(line: &str) -> Option<&str> {
    let s = line.split("//").next()?.trim().trim_end_matches(';').trim();
    if s.is_empty() || s.starts_with('.') || s.starts_with('{') || s.starts_with('}') {
        return None;
    }
    if label(line).is_some() {
        return None;
    }
    match s.strip_prefix('@') {
        Some(guarded) => guarded
            .split_once(char::is_whitespace)
            .map(|(_, rest)| rest.trim()),
        None => Some(s),
    }
}

/// The registers named in `text` (`%r12`, `%rd3`, `%fd1`, `%p2`...).
fn registers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '_'))
        .filter(|w| w.starts_with('%') && w.len() > 1)
}

/// Whether the opcode is a load from global or generic memory (not a
/// parameter, shared, local or constant one).
fn is_memory_load(op: &str) -> bool {
    let mut parts = op.split('.');
    parts.next() == Some("ld")
        && !op
            .split('.')
            .any(|p| matches!(p, "param" | "shared" | "local" | "const"))
}

/// Opcodes whose first operand is not a destination.
fn writes_no_register(op: &str) -> bool {
    let base = op.split('.').next().unwrap_or(op);
    matches!(
        base,
        "st" | "red"
            | "bra"
            | "bar"
            | "barrier"
            | "membar"
            | "fence"
            | "ret"
            | "exit"
            | "trap"
            | "call"
            | "prefetch"
            | "cp"
            | "mbarrier"
            | "setmaxnreg"
    )
}

/// Whether a global or generic load in `body` (a loop's lines) takes its
/// address from a value a load of the same loop produced.
fn gathers(body: &[&str]) -> bool {
    let mut loaded: BTreeSet<&str> = BTreeSet::new();
    // Twice round the loop: a value loaded late in one trip reaches the
    // addresses of the next.
    for _ in 0..2 {
        for line in body {
            let Some(s) = statement(line) else { continue };
            let Some((op, operands)) = s.split_once(char::is_whitespace) else {
                continue;
            };
            if writes_no_register(op) {
                continue;
            }
            // The destination: the first operand, or a `{..}` vector of them.
            let (dest, sources) = match operands.trim_start().strip_prefix('{') {
                Some(rest) => rest.split_once('}').unwrap_or((rest, "")),
                None => operands.split_once(',').unwrap_or((operands, "")),
            };
            if is_memory_load(op) {
                let address = sources.split('[').nth(1).unwrap_or("");
                if registers(address).any(|r| loaded.contains(r)) {
                    return true;
                }
                loaded.extend(registers(dest));
            } else if registers(sources).any(|r| loaded.contains(r)) {
                loaded.extend(registers(dest));
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of PTX around `body` (one loop or more).
    fn function(body: &str) -> String {
        format!(".visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n{body}}}\n")
    }

    const GATHER: &str = "\
$L__BB0_2:
\tld.global.nc.b32 \t%r5, [%rd7+-4];
\tmul.wide.u32 \t%rd8, %r5, 8;
\tadd.s64 \t%rd9, %rd2, %rd8;
\tld.global.nc.b64 \t%rd10, [%rd9];
\tadd.s64 \t%rd7, %rd7, 4;
\tsetp.ne.s64 \t%p1, %rd7, %rd3;
\t@%p1 bra \t$L__BB0_2;
";

    const STREAM: &str = "\
$L__BB0_4:
\tld.global.nc.f32 \t%f1, [%rd11];
\tld.global.nc.f32 \t%f2, [%rd11+4];
\tadd.f32 \t%f3, %f1, %f2;
\tst.global.f32 \t[%rd12], %f3;
\tadd.s64 \t%rd11, %rd11, 8;
\tsetp.ne.s64 \t%p2, %rd11, %rd13;
\t@%p2 bra \t$L__BB0_4;
";

    #[test]
    fn a_gather_loop_gets_the_pragma_at_its_header_and_a_streaming_one_does_not() {
        let out = marked_nounroll(&function(&format!("{GATHER}{STREAM}")));
        assert_eq!(out.matches(".pragma \"nounroll\";").count(), 1, "{out}");
        assert!(
            out.contains("$L__BB0_2:\n\t.pragma \"nounroll\";\n\tld.global.nc.b32"),
            "{out}"
        );
    }

    #[test]
    fn an_index_loaded_at_the_end_of_a_trip_makes_the_next_trip_a_gather() {
        // A pointer chase: the next node's address is loaded last.
        let chase = "\
$L__BB0_3:
\tld.global.f32 \t%f1, [%rd4+8];
\tadd.f32 \t%f2, %f2, %f1;
\tld.global.u64 \t%rd5, [%rd4];
\tmov.u64 \t%rd4, %rd5;
\tsetp.ne.s64 \t%p1, %rd4, 0;
\t@%p1 bra \t$L__BB0_3;
";
        let out = marked_nounroll(&function(chase));
        assert_eq!(out.matches("nounroll").count(), 1, "{out}");
    }

    #[test]
    fn only_the_innermost_loop_is_marked_and_a_marked_loop_is_left_alone() {
        let nested = format!(
            "$L__BB0_1:\n\tld.global.u32 \t%r1, [%rd1];\n{GATHER}\tadd.s64 \t%rd1, %rd1, 4;\n\tbra.uni \t$L__BB0_1;\n"
        );
        let once = marked_nounroll(&function(&nested));
        assert_eq!(once.matches("nounroll").count(), 1, "{once}");
        assert!(once.contains("$L__BB0_2:\n\t.pragma"), "{once}");
        assert_eq!(marked_nounroll(&once), once);
    }

    #[test]
    fn loads_from_parameters_shared_memory_and_predicated_vector_loads() {
        // An address from a parameter or from shared memory is no gather;
        // a predicated vector load's registers are followed.
        let not = "\
$L__BB0_5:
\tld.param.u64 \t%rd20, [k_param_0];
\tld.shared.u32 \t%r8, [%r9];
\tmul.wide.u32 \t%rd21, %r8, 4;
\tadd.s64 \t%rd22, %rd20, %rd21;
\tld.shared.f32 \t%f9, [%rd22];
\tbra.uni \t$L__BB0_5;
";
        assert!(!marked_nounroll(&function(not)).contains("nounroll"));
        let vector = "\
$L__BB0_6:
\t@%p3 ld.global.v2.u32 \t{%r10, %r11}, [%rd30];
\tcvt.u64.u32 \t%rd31, %r11;
\tadd.s64 \t%rd32, %rd2, %rd31;
\tld.global.f32 \t%f10, [%rd32];
\tbra.uni \t$L__BB0_6;
";
        assert!(marked_nounroll(&function(vector)).contains("nounroll"));
    }

    #[test]
    fn labels_of_another_function_are_not_loops() {
        // `$L__BB0_2` is defined in the first function; the branch in the
        // second (a forward one to its own label) is no loop of either.
        let two = format!(
            "{}{}",
            function("$L__BB0_2:\n\tld.global.u32 \t%r1, [%rd1];\n\tld.global.u32 \t%r2, [%rd1];\n"),
            function("\tld.global.u32 \t%r1, [%rd1];\n\tmul.wide.u32 \t%rd2, %r1, 4;\n\tld.global.u32 \t%r3, [%rd2];\n\tbra.uni \t$L__BB0_2;\n$L__BB0_2:\n")
        );
        assert!(!marked_nounroll(&two).contains("nounroll"));
    }
}
