//! The math library's functions inlined where the kernel calls them.
//!
//! nvcc inlines CUDA's math functions into the caller (NVVM inlines
//! libdevice); a PTX `.func` call instead follows the ABI: every value live
//! across it sits in a callee-saved register or is saved around it, the
//! argument and result pass through parameter space, and the call and
//! return themselves are instructions. ptxas does not inline `.func` calls.
//! So after [`link`](super::link), each call to a `cg_math_*` function is
//! replaced by a copy of its body in a block of its own: the callee's
//! registers, labels and local arrays renamed apart (`%cgm<K>_f3`,
//! `$cgm<K>_L__BB5_2`), its `ld.param` of an argument a `mov` from the
//! caller's operand, its `st.param` of the result a `mov` into the
//! caller's register, each `ret` a branch to the block's end. The
//! instructions are nvcc's, unchanged, so each result keeps its bits; the
//! definitions no call is left to are dropped. A call whose form is not the
//! one LLVM writes (or a callee whose parameters are not plain scalars)
//! stays a call.

use super::{items, Kind, PREFIX};
use std::collections::{BTreeMap, BTreeSet};

/// `ptx` (a linked module) with every call to a `cg_math_*` function it
/// defines replaced by the function's body, and the definitions no longer
/// called removed.
pub fn calls(ptx: &str) -> String {
    let module_items = items(ptx);
    let callees: BTreeMap<&str, Callee> = module_items
        .iter()
        .filter(|i| i.kind == Kind::Definition && i.name.starts_with(PREFIX))
        .filter_map(|i| Some((i.name, Callee::parse(i.name, i.text)?)))
        .collect();
    if callees.is_empty() {
        return ptx.to_string();
    }
    let mut out = String::with_capacity(ptx.len() * 2);
    let mut copies = 0usize;
    let mut rest = ptx;
    while let Some(open) = rest.find(CALL_OPEN) {
        // The call sequence runs from its line's start to the end of the
        // line that closes it.
        let line_start = rest[..open].rfind('\n').map_or(0, |p| p + 1);
        let Some(close) = rest[open..].find(CALL_CLOSE).map(|c| open + c) else {
            break;
        };
        let end = rest[close..]
            .find('\n')
            .map_or(rest.len(), |e| close + e + 1);
        let sequence = &rest[open..close];
        out.push_str(&rest[..line_start]);
        match Call::parse(sequence).and_then(|call| {
            let callee = callees.get(call.callee)?;
            callee.expand(&call, copies)
        }) {
            Some(body) => {
                copies += 1;
                out.push_str(&body);
            }
            None => out.push_str(&rest[line_start..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    if copies == 0 {
        return out;
    }
    drop_uncalled(&out)
}

/// How LLVM's and nvcc's PTX open and close a call sequence.
const CALL_OPEN: &str = "{ // callseq ";
const CALL_CLOSE: &str = "} // callseq ";

/// `ptx` without the definitions of `cg_math_*` functions that nothing
/// calls.
fn drop_uncalled(ptx: &str) -> String {
    let module_items = items(ptx);
    let called: BTreeSet<&str> = module_items
        .iter()
        .filter(|i| i.kind == Kind::Definition)
        .flat_map(|i| {
            // Code only: each inlined copy's comment names its function.
            let body = &i.text[i.text.find('{').unwrap_or(0)..];
            body.lines()
                .flat_map(|l| words(l.split("//").next().unwrap_or("")))
                .filter(|w| w.starts_with(PREFIX))
        })
        .collect();
    let mut out = String::with_capacity(ptx.len());
    let mut last = 0;
    for item in &module_items {
        let unused = item.name.starts_with(PREFIX) && !called.contains(item.name);
        if unused && matches!(item.kind, Kind::Definition | Kind::Prototype) {
            out.push_str(&ptx[last..item.start]);
            last = item.start + item.text.len();
        }
    }
    out.push_str(&ptx[last..]);
    out
}

/// The identifiers (and registers, labels) of a piece of PTX.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word(c)).filter(|w| !w.is_empty())
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%'
}

/// One call sequence of the caller:
/// `st.param.b32 [param0], %r1; call.uni (retval0), f, (param0);
/// ld.param.b32 %r2, [retval0];`.
#[derive(Debug)]
struct Call<'a> {
    callee: &'a str,
    /// The operand stored into each parameter, in the callee's order.
    args: Vec<&'a str>,
    /// The register the result is loaded into, if it is.
    result: Option<&'a str>,
}

impl<'a> Call<'a> {
    fn parse(sequence: &'a str) -> Option<Self> {
        let mut stored: BTreeMap<&str, &str> = BTreeMap::new();
        let mut call = None;
        let mut result = None;
        // Statements, not lines: nvcc spreads a call over several lines.
        for statement in sequence.split(';').map(str::trim) {
            let statement = statement
                .strip_prefix(CALL_OPEN.trim())
                .map_or(statement, |s| {
                    // The opening comment runs to the end of its line.
                    s.split_once('\n').map_or("", |(_, rest)| rest.trim())
                });
            if statement.is_empty() || statement.starts_with(".param") {
                continue;
            }
            let fields: Vec<&str> = statement.split_whitespace().collect();
            match fields.first().copied() {
                Some(op) if op.starts_with("st.param.") => {
                    let [_, place, value] = fields[..] else {
                        return None;
                    };
                    let place = place.strip_suffix(',')?;
                    stored.insert(plain_place(place)?, value);
                }
                Some(op) if op.starts_with("ld.param.") => {
                    let [_, dst, place] = fields[..] else {
                        return None;
                    };
                    if plain_place(place)? != "retval0" || result.is_some() {
                        return None;
                    }
                    result = Some(dst.strip_suffix(',')?);
                }
                Some("call.uni" | "call") => call = Some(statement),
                _ => return None,
            }
        }
        // `call.uni (retval0), name, (param0, param1)` without spaces.
        let call: String = call?
            .split_once(char::is_whitespace)?
            .1
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let call = call.strip_prefix("(retval0),").unwrap_or(&call);
        let (callee, params) = call.split_once(',')?;
        let params = params.strip_prefix('(')?.strip_suffix(')')?;
        let args = params
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| stored.get(p).copied())
            .collect::<Option<Vec<_>>>()?;
        // The callee's name as it stands in the sequence (a slice of it).
        let at = sequence.find(callee)?;
        Some(Call {
            callee: &sequence[at..at + callee.len()],
            args,
            result,
        })
    }
}

/// The name inside `[name]` or `[name+0]`; `None` for another offset.
fn plain_place(place: &str) -> Option<&str> {
    let inner = place.strip_prefix('[')?.strip_suffix(']')?;
    match inner.split_once('+') {
        Some((name, "0")) => Some(name),
        Some(_) => None,
        None => Some(inner),
    }
}

/// A function of the library that can be inlined: its parameters' names
/// and its body (between the braces).
#[derive(Debug)]
struct Callee<'a> {
    params: Vec<&'a str>,
    body: &'a str,
}

impl<'a> Callee<'a> {
    fn parse(name: &str, text: &'a str) -> Option<Self> {
        let open = text.find('{')?;
        let head = &text[..open];
        let body = &text[open + 1..text.rfind('}')?];
        let list = &head[head.find(name)? + name.len()..];
        let params: Vec<&str> = words(list)
            .filter(|w| w.starts_with(name) && w[name.len()..].starts_with("_param_"))
            .collect();
        Some(Callee { params, body })
    }

    /// The body as copy number `copy` at `call`, or `None` if a parameter
    /// or the result is used other than as a whole scalar.
    fn expand(&self, call: &Call, copy: usize) -> Option<String> {
        if call.args.len() != self.params.len() {
            return None;
        }
        let prefix = format!("cgm{copy}_");
        let names = Declared::of(self.body);
        let mut out = format!("\t{{ // {}, inlined\n", call.callee);
        for line in self.body.lines() {
            let statement = line.trim();
            if statement == "ret;" {
                out.push_str(&format!("\tbra.uni \t$cgm{copy}_end;\n"));
            } else if let Some(moved) = self.parameter_move(statement, call, &names, &prefix)? {
                out.push_str(&moved);
            } else {
                out.push_str(&names.rename(line, &prefix));
                out.push('\n');
            }
        }
        out.push_str(&format!("$cgm{copy}_end:\n\t}}\n"));
        Some(out)
    }

    /// A load of a parameter or a store of the result as a `mov`
    /// (`Some(Some(..))`; `Some(String::new())` for a result nobody
    /// reads), `Some(None)` for any other statement, `None` for one of
    /// them in a form that cannot be copied.
    fn parameter_move(
        &self,
        statement: &str,
        call: &Call,
        names: &Declared,
        prefix: &str,
    ) -> Option<Option<String>> {
        let fields: Vec<&str> = statement
            .strip_suffix(';')
            .unwrap_or(statement)
            .split_whitespace()
            .collect();
        let op = fields.first().copied().unwrap_or("");
        if let ("ld.param.v2.u16" | "ld.param.v2.b16", [_, lo, hi, place]) = (op, &fields[..]) {
            // A pair of halves in a word argument, unpacked.
            let index = plain_place(place).and_then(|p| self.index(p))?;
            let lo = names.rename(lo.strip_prefix('{')?.strip_suffix(',')?, prefix);
            let hi = names.rename(hi.strip_suffix("},")?, prefix);
            let src = call.args[index];
            return Some(Some(if src.starts_with('%') {
                format!("\tmov.b32 \t{{{lo}, {hi}}}, {src};\n")
            } else {
                let v = immediate(src)?;
                format!(
                    "\tmov.b16 \t{lo}, {};\n\tmov.b16 \t{hi}, {};\n",
                    v & 0xffff,
                    (v >> 16) & 0xffff
                )
            }));
        }
        let (dst, src) = if let Some(ty) = op.strip_prefix("ld.param.") {
            let [_, dst, place] = fields[..] else {
                return self.refuse_if_ours(statement);
            };
            let Some(index) = plain_place(place).and_then(|p| self.index(p)) else {
                return self.refuse_if_ours(statement);
            };
            let dst = names.rename(dst.strip_suffix(',')?, prefix);
            (Some((ty, dst)), call.args[index].to_string())
        } else if let Some(ty) = op.strip_prefix("st.param.") {
            let [_, place, value] = fields[..] else {
                return self.refuse_if_ours(statement);
            };
            if plain_place(place.strip_suffix(',')?) != Some("func_retval0") {
                return self.refuse_if_ours(statement);
            }
            let Some(result) = call.result else {
                return Some(Some(String::new()));
            };
            (Some((ty, result.to_string())), names.rename(value, prefix))
        } else {
            return Some(None);
        };
        let (ty, dst) = dst?;
        let bits = match ty {
            "b32" | "f32" | "u32" | "s32" => 32,
            "b64" | "f64" | "u64" | "s64" => 64,
            // The low half of a 32-bit argument (nvcc loads only what the
            // function reads: a half in a word); a result is never narrow.
            "b16" | "u16" | "s16" if op.starts_with("ld.") => {
                return Some(Some(if src.starts_with('%') {
                    format!("\tcvt.u16.u32 \t{dst}, {src};\n")
                } else {
                    format!("\tmov.b16 \t{dst}, {};\n", immediate(&src)? & 0xffff)
                }));
            }
            _ => return None,
        };
        Some(Some(format!("\tmov.b{bits} \t{dst}, {src};\n")))
    }

    /// `Some(None)` (copy the statement) unless it names this function's
    /// parameters or result, which it then uses in a way not handled:
    /// `None`.
    fn refuse_if_ours(&self, statement: &str) -> Option<Option<String>> {
        let ours = words(statement).any(|w| w == "func_retval0" || self.index(w).is_some());
        if ours {
            None
        } else {
            Some(None)
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| *p == name)
    }
}

/// The value of an integer immediate operand (decimal or `0x` hex).
fn immediate(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex.trim_end_matches('U'), 16).ok(),
        None => text
            .trim_end_matches('U')
            .parse::<i64>()
            .ok()
            .map(|v| v as u64),
    }
}

/// The names a function body declares: registers (`%f<38>` gives the
/// stem `%f`, `%SP` itself), labels and local arrays; each copy renames
/// them apart.
struct Declared<'a> {
    stems: BTreeSet<&'a str>,
    exact: BTreeSet<&'a str>,
}

impl<'a> Declared<'a> {
    fn of(body: &'a str) -> Self {
        let mut stems = BTreeSet::new();
        let mut exact = BTreeSet::new();
        for line in body.lines().map(str::trim) {
            if line.starts_with(".reg") {
                for w in words(line).filter(|w| w.starts_with('%')) {
                    if line.contains(&format!("{w}<")) {
                        stems.insert(w);
                    } else {
                        exact.insert(w);
                    }
                }
            } else if line.starts_with(".local") {
                if let Some(name) = words(line.split('[').next().unwrap_or("")).last() {
                    exact.insert(name);
                }
            } else if let Some(label) = line.strip_suffix(':').filter(|l| l.starts_with('$')) {
                exact.insert(label);
            }
        }
        Declared { stems, exact }
    }

    /// `text` with each declared name `x` as `<prefix>x` (after its `%` or
    /// `$`).
    fn rename(&self, text: &str, prefix: &str) -> String {
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        while let Some(start) = rest.find(is_word) {
            out.push_str(&rest[..start]);
            let len = rest[start..]
                .find(|c| !is_word(c))
                .unwrap_or(rest.len() - start);
            let word = &rest[start..start + len];
            let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
            // A stem alone is its declaration (`%f<12>`).
            let ours = self.exact.contains(word) || self.stems.contains(stem);
            match (ours, word.chars().next()) {
                (true, Some(sigil @ ('%' | '$'))) => {
                    out.push(sigil);
                    out.push_str(prefix);
                    out.push_str(&word[1..]);
                }
                (true, _) => {
                    out.push_str(prefix);
                    out.push_str(word);
                }
                (false, _) => out.push_str(word),
            }
            rest = &rest[start + len..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "\
.version 8.0
.target sm_90
.address_size 64

.func  (.param .b32 func_retval0) cg_math_logf(
\t.param .b32 cg_math_logf_param_0
)
{
\t.local .align 4 .b8 \t__local_depot3[8];
\t.reg .b64 \t%SPL;
\t.reg .pred \t%p<3>;
\t.reg .f32 \t%f<12>;

\tmov.u64 \t%SPL, __local_depot3;
\tld.param.f32 \t%f1, [cg_math_logf_param_0];
\tsetp.lt.f32 \t%p1, %f1, 0f00800000;
\t@%p1 bra \t$L__BB3_2;
\tmul.f32 \t%f11, %f1, %f1;
\tst.param.f32 \t[func_retval0+0], %f11;
\tret;
$L__BB3_2:
\tst.local.f32 \t[%SPL], %f1;
\tst.param.f32 \t[func_retval0+0], %f1;
\tret;

}
.visible .entry k(
\t.param .u64 .ptr .align 1 k_param_0
)
{
\t.reg .b32 \t%r<4>;
\t.reg .b64 \t%rd<3>;

\tld.param.b64 \t%rd1, [k_param_0];
\tld.global.b32 \t%r1, [%rd1];
\t{ // callseq 0, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], %r1;
\tcall.uni (retval0), cg_math_logf, (param0);
\tld.param.b32 \t%r2, [retval0];
\t} // callseq 0
\t{ // callseq 1, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], %r2;
\tcall.uni (retval0), cg_math_logf, (param0);
\tld.param.b32 \t%r3, [retval0];
\t} // callseq 1
\tst.global.b32 \t[%rd1], %r3;
\tret;
}
";

    /// nvcc's half functions read the low half of their word argument
    /// (`ld.param.u16`) and scope inline PTX's registers in braces.
    #[test]
    fn a_narrow_load_of_an_argument_takes_its_low_half() {
        let module = "\
.func  (.param .b32 func_retval0) cg_math_hsqrt_f16(
\t.param .b32 cg_math_hsqrt_f16_param_0
)
{
\t.reg .b16 \t%rs<3>;
\t.reg .b32 \t%r<2>;

\tld.param.u16 \t%rs2, [cg_math_hsqrt_f16_param_0];
\t{.reg.b32         f;
\t mov.b16         r,%rs2;
\t cvt.f32.f16     f,r;
\t}
\tcvt.u32.u16 \t%r1, %rs1;
\tst.param.b32 \t[func_retval0], %r1;
\tret;

}
.func  (.param .b32 func_retval0) cg_math_h2rcp_bf16(
\t.param .b32 cg_math_h2rcp_bf16_param_0
)
{
\t.reg .b16 \t%rs<5>;
\t.reg .b32 \t%r<2>;

\tld.param.v2.u16 \t{%rs3, %rs4}, [cg_math_h2rcp_bf16_param_0];
\tmov.b32 \t%r1, {%rs3, %rs4};
\tst.param.b32 \t[func_retval0+0], %r1;
\tret;

}
.visible .entry k(
\t.param .u64 .ptr .align 1 k_param_0
)
{
\t.reg .b32 \t%r<4>;
\t{ // callseq 0, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], %r1;
\tcall.uni (retval0), cg_math_hsqrt_f16, (param0);
\tld.param.b32 \t%r2, [retval0];
\t} // callseq 0
\t{ // callseq 1, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], 15360;
\tcall.uni (retval0), cg_math_hsqrt_f16, (param0);
\tld.param.b32 \t%r3, [retval0];
\t} // callseq 1
\t{ // callseq 2, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], %r3;
\tcall.uni (retval0), cg_math_h2rcp_bf16, (param0);
\tld.param.b32 \t%r1, [retval0];
\t} // callseq 2
\tret;
}
";
        let out = calls(module);
        assert!(
            out.contains("mov.b32 \t{%cgm2_rs3, %cgm2_rs4}, %r3;"),
            "{out}"
        );
        assert!(!out.contains("call.uni"), "{out}");
        assert!(out.contains("cvt.u16.u32 \t%cgm0_rs2, %r1;"), "{out}");
        assert!(out.contains("mov.b16 \t%cgm1_rs2, 15360;"), "{out}");
        assert!(out.contains("mov.b32 \t%r2, %cgm0_r1;"), "{out}");
        assert!(out.contains("cvt.f32.f16     f,r;"), "{out}");
    }

    #[test]
    fn each_call_becomes_a_renamed_copy_of_the_body() {
        let out = calls(MODULE);
        assert!(!out.contains("call.uni"), "{out}");
        assert!(!out.contains(".func"), "the definition is dropped: {out}");
        for copy in ["cgm0_", "cgm1_"] {
            assert!(out.contains(&format!(".reg .f32 \t%{copy}f<12>;")), "{out}");
            assert!(out.contains(&format!(".reg .b64 \t%{copy}SPL;")), "{out}");
            assert!(out.contains(&format!("{copy}__local_depot3[8]")), "{out}");
            assert!(out.contains(&format!("bra \t${copy}L__BB3_2;")), "{out}");
            assert!(out.contains(&format!("${copy}L__BB3_2:")), "{out}");
        }
        assert!(out.contains("mov.b32 \t%cgm0_f1, %r1;"), "{out}");
        assert!(out.contains("mov.b32 \t%r2, %cgm0_f11;"), "{out}");
        assert!(out.contains("mov.b32 \t%cgm1_f1, %r2;"), "{out}");
        assert!(out.contains("mov.b32 \t%r3, %cgm1_f1;"), "{out}");
        assert!(out.contains("bra.uni \t$cgm1_end;\n"), "{out}");
        // The kernel's own `ret` and registers are untouched.
        assert!(
            out.contains("st.global.b32 \t[%rd1], %r3;\n\tret;\n}"),
            "{out}"
        );
        let module = cg_ptx::Module::parse(&out);
        assert!(module.function("cg_math_logf").is_none());
    }

    #[test]
    fn a_result_nobody_reads_is_not_stored() {
        let module = MODULE.replace("\tld.param.b32 \t%r3, [retval0];\n", "");
        let out = calls(&module);
        assert!(!out.contains("call.uni"), "{out}");
        assert!(!out.contains("%r3, %cgm1"), "{out}");
    }

    #[test]
    fn a_parameter_read_at_an_offset_keeps_the_call() {
        let module = MODULE.replace("[cg_math_logf_param_0]", "[cg_math_logf_param_0+4]");
        let out = calls(&module);
        assert_eq!(out.matches("call.uni").count(), 2, "{out}");
        assert!(out.contains(".func"), "{out}");
    }

    #[test]
    fn calls_to_other_functions_stay() {
        let module = MODULE.replace("cg_math_logf", "helper");
        assert_eq!(calls(&module), module);
    }
}
