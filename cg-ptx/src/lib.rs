//! Reads the PTX modules LLVM's NVPTX backend writes: the one PTX reader of
//! the project, for the builder (which kernels a module holds, which reach a
//! grid barrier, the byte arrays a fault names), the host (the entry points
//! of a loaded module, its fault-string table) and the PTX tests.
//!
//! ```
//! let ptx = "\
//! .version 8.0
//! .target sm_90
//! .address_size 64
//! .global .align 1 .b8 msg[3] = {104, 105};
//! .func helper(.param .b32 helper_param_0)
//! {
//! \t// a comment
//! \tret;
//! }
//! .visible .entry k(
//! \t.param .u64 .ptr .align 1 k_param_0,
//! \t.param .u32 k_param_1
//! )
//! {
//! \tcall.uni helper, (param0);
//! \tret;
//! }
//! ";
//! let m = cg_ptx::Module::parse(ptx);
//! assert_eq!(m.target, Some("sm_90"));
//! let k = m.entry("k").unwrap();
//! assert_eq!(k.param_types(), [".u64", ".u32"]);
//! assert_eq!(k.callees(), ["helper"]);
//! assert_eq!(m.function("helper").unwrap().comments().collect::<Vec<_>>(), ["a comment"]);
//! assert_eq!(m.global("msg").unwrap().bytes().unwrap(), b"hi\0");
//! ```
//!
//! It reads what the backend writes, not all of PTX: one declaration per
//! statement, `//` and `/* */` comments, no preprocessor directives and no
//! debug sections. Everything borrows from the module's text.

use std::collections::{BTreeMap, BTreeSet};

/// How the `.u64` parameter that cg-builder appends to an entry point
/// that reaches a grid barrier ends, after the entry's name
/// (`cg_core::grid::layout::PARAM_SUFFIX`; cg-builder checks that the two
/// agree). The host passes the place's address there at every launch; a
/// kernel's declared parameters, its typed handle's and a CUDA C++ twin's
/// have no such parameter.
pub const GRID_BARRIER_PARAM_SUFFIX: &str = "_cg_grid_barrier";

/// A PTX module: its functions and module-scope variables, in the order
/// they appear.
#[derive(Debug, Clone, Default)]
pub struct Module<'a> {
    /// `.version`.
    pub version: Option<&'a str>,
    /// `.target` (e.g. `sm_90`).
    pub target: Option<&'a str>,
    /// Every `.entry` and `.func`, declarations (prototypes) included.
    pub functions: Vec<Function<'a>>,
    /// Every module-scope `.global`, `.shared` and `.const` variable.
    pub globals: Vec<Global<'a>>,
}

/// Whether a function is a kernel entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// One `.entry` or `.func`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function<'a> {
    /// Its name.
    pub name: &'a str,
    /// Entry point or device function.
    pub kind: FunctionKind,
    /// `.visible`, `.extern` or `.weak`, when given.
    pub linkage: Option<&'a str>,
    /// The return parameters of a `.func` (`(.param .b32 func_retval0)`).
    pub returns: Vec<Param<'a>>,
    /// The parameters, in order.
    pub params: Vec<Param<'a>>,
    /// What follows the parameters before the body: `.noreturn`,
    /// `.maxntid 256, 1, 1`, ...
    pub directives: Vec<&'a str>,
    /// The body, braces included; `None` for a declaration.
    pub body: Option<&'a str>,
}

/// One `.param` of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    /// Its name (without an array length).
    pub name: &'a str,
    /// Its type: `.u64`, `.b32`, `.b8` (an aggregate) ...
    pub ty: &'a str,
    /// `.align N`, when given.
    pub align: Option<u32>,
    /// Whether it is marked `.ptr` (a kernel's pointer parameter).
    pub ptr: bool,
    /// `[N]`: the element count of an aggregate passed by value.
    pub len: Option<usize>,
}

impl Param<'_> {
    /// Its type and, for an aggregate, its length: `.u64`, `.b8[12]`. Two
    /// parameters of one shape take the same bytes from a launch.
    pub fn shape(&self) -> String {
        match self.len {
            Some(n) => format!("{}[{n}]", self.ty),
            None => self.ty.to_string(),
        }
    }
}

/// The length of a module-scope array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// Not an array.
    Scalar,
    /// `[N]`.
    Elements(usize),
    /// `[]` (an `.extern` array, such as dynamic shared memory).
    Unsized,
}

/// One module-scope variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Global<'a> {
    /// Its name.
    pub name: &'a str,
    /// `.global`, `.shared` or `.const`.
    pub space: &'a str,
    /// `.visible`, `.extern` or `.weak`, when given.
    pub linkage: Option<&'a str>,
    /// `.align N`, when given.
    pub align: Option<u32>,
    /// The element type: `.b8`, `.u64` ...
    pub ty: &'a str,
    /// Scalar or array.
    pub len: Length,
    /// The initializer after `=`, when given (`0`, `{97, 98}`).
    pub init: Option<&'a str>,
}

impl<'a> Global<'a> {
    /// The elements of a brace initializer (`{generic(a), 3}` gives
    /// `["generic(a)", "3"]`), or the initializer itself for a scalar.
    pub fn init_elements(&self) -> Vec<&'a str> {
        let Some(init) = self.init else {
            return Vec::new();
        };
        match init
            .strip_prefix('{')
            .and_then(|i| i.strip_suffix('}'))
            .map(str::trim)
        {
            Some("") => Vec::new(),
            Some(inner) => inner.split(',').map(str::trim).collect(),
            None => vec![init],
        }
    }

    /// The bytes of an initialized `.b8` array, padded with the zeros the
    /// backend leaves out of the initializer to the declared length; `None`
    /// for anything else, or an initializer that holds addresses.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        let Length::Elements(len) = self.len else {
            return None;
        };
        if self.ty != ".b8" || self.init.is_none() {
            return None;
        }
        let mut bytes: Vec<u8> = self
            .init_elements()
            .iter()
            .map(|e| e.parse().ok())
            .collect::<Option<_>>()?;
        if bytes.len() > len {
            return None;
        }
        bytes.resize(len, 0);
        Some(bytes)
    }
}

impl<'a> Module<'a> {
    /// Reads a module.
    pub fn parse(ptx: &'a str) -> Self {
        let mut m = Module::default();
        let b = ptx.as_bytes();
        let mut i = 0;
        loop {
            i = skip_trivia(b, i);
            if i >= b.len() {
                break;
            }
            let rest = &ptx[i..];
            let first = rest.split(|c: char| c.is_whitespace()).next().unwrap_or("");
            // Directives that end at the end of their line.
            if matches!(first, ".version" | ".target" | ".address_size" | ".file") {
                let end = rest.find('\n').map_or(ptx.len(), |e| i + e);
                let value = ptx[i + first.len()..end].trim();
                match first {
                    ".version" => m.version = Some(value),
                    ".target" => m.target = value.split(',').next().map(str::trim),
                    _ => {}
                }
                i = end;
                continue;
            }
            let stop = find_outside_comments(b, i, |c| c == b';' || c == b'{');
            let head = &ptx[i..stop];
            let head_tokens = tokens(head);
            if head_tokens.iter().any(|t| *t == ".entry" || *t == ".func") {
                let (body, next) = if b.get(stop) == Some(&b'{') {
                    let end = matching_brace(b, stop);
                    (Some(&ptx[stop..end]), end)
                } else {
                    (None, stop + 1)
                };
                if let Some(f) = function(&head_tokens, body) {
                    m.functions.push(f);
                }
                i = next;
            } else if first == ".section" && b.get(stop) == Some(&b'{') {
                i = matching_brace(b, stop);
            } else {
                let end = find_at_depth_zero(b, i, b';');
                if let Some(g) = global(&ptx[i..end]) {
                    m.globals.push(g);
                }
                i = end + 1;
            }
        }
        m
    }

    /// The entry points (kernels), in order.
    pub fn entries(&self) -> impl Iterator<Item = &Function<'a>> {
        self.functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry)
    }

    /// The names of the entry points, in order.
    pub fn entry_names(&self) -> Vec<&'a str> {
        self.entries().map(|f| f.name).collect()
    }

    /// The entry point `name`.
    pub fn entry(&self, name: &str) -> Option<&Function<'a>> {
        self.entries().find(|f| f.name == name)
    }

    /// The function `name`: its definition, else its declaration.
    pub fn function(&self, name: &str) -> Option<&Function<'a>> {
        let mut found = self.functions.iter().filter(|f| f.name == name);
        let first = found.next()?;
        if first.body.is_some() {
            return Some(first);
        }
        Some(found.find(|f| f.body.is_some()).unwrap_or(first))
    }

    /// The module-scope variable `name`.
    pub fn global(&self, name: &str) -> Option<&Global<'a>> {
        self.globals.iter().find(|g| g.name == name)
    }

    /// The initialized `.global` byte arrays (string literals, file names,
    /// panic message templates), in order.
    pub fn byte_arrays(&self) -> impl Iterator<Item = &Global<'a>> {
        self.globals.iter().filter(|g| {
            g.space == ".global"
                && g.ty == ".b8"
                && g.init.is_some()
                && matches!(g.len, Length::Elements(_))
        })
    }

    /// The names of the functions declared `.noreturn` (a module's paths to
    /// a trap: core's panic functions, cg-core's fault report).
    pub fn noreturn_functions(&self) -> BTreeSet<&'a str> {
        self.functions
            .iter()
            .filter(|f| f.is_noreturn())
            .map(|f| f.name)
            .collect()
    }

    /// The entry points that reach a function for which `pred` holds: the
    /// function itself or one it calls, directly or not.
    pub fn entries_reaching(&self, pred: impl Fn(&Function<'a>) -> bool) -> BTreeSet<&'a str> {
        let defined: Vec<&Function<'a>> =
            self.functions.iter().filter(|f| f.body.is_some()).collect();
        let calls: BTreeMap<&str, Vec<&str>> =
            defined.iter().map(|f| (f.name, f.callees())).collect();
        let direct: BTreeSet<&str> = defined.iter().filter(|f| pred(f)).map(|f| f.name).collect();
        let reaches = |start: &'a str| {
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
        defined
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry && reaches(f.name))
            .map(|f| f.name)
            .collect()
    }
}

impl<'a> Function<'a> {
    /// Whether it is an entry point.
    pub fn is_entry(&self) -> bool {
        self.kind == FunctionKind::Entry
    }

    /// Whether it is declared `.noreturn`.
    pub fn is_noreturn(&self) -> bool {
        self.directives.contains(&".noreturn")
    }

    /// The types of the parameters ([`Param::shape`]): what a launch must
    /// pass, in order (the grid barrier's place among them, where
    /// cg-builder appended it: [`takes_grid_barrier_place`](Self::takes_grid_barrier_place)).
    pub fn param_types(&self) -> Vec<String> {
        self.params.iter().map(Param::shape).collect()
    }

    /// Whether it is an entry point whose last parameter is the grid
    /// barrier's place ([`GRID_BARRIER_PARAM_SUFFIX`]), which the host
    /// appends to every launch of it.
    pub fn takes_grid_barrier_place(&self) -> bool {
        self.is_entry()
            && self.params.last().is_some_and(|p| {
                p.ty == ".u64" && p.name.strip_prefix(self.name) == Some(GRID_BARRIER_PARAM_SUFFIX)
            })
    }

    /// The types of the parameters the kernel declares: [`param_types`](Self::param_types)
    /// without the grid barrier's place. What its typed handle takes, and
    /// what a CUDA C++ twin of it must take.
    pub fn declared_param_types(&self) -> Vec<String> {
        let hidden = usize::from(self.takes_grid_barrier_place());
        let declared = &self.params[..self.params.len() - hidden];
        declared.iter().map(Param::shape).collect()
    }

    /// The statements of the body, in order, without comments, scoping
    /// braces and labels: `.reg .b32 %r<4>`, `@%p1 bra $L__BB0_2`,
    /// `call.uni f, (param0)`. Inline assembly can put several on one line;
    /// each is one statement.
    pub fn statements(&self) -> Statements<'a> {
        Statements {
            text: self.body.unwrap_or(""),
            at: 0,
        }
    }

    /// The names of the functions the body calls, in order, one per call
    /// (an indirect call gives the register it calls through).
    pub fn callees(&self) -> Vec<&'a str> {
        self.statements().filter_map(callee).collect()
    }

    /// The text of every comment in the body, trimmed (`// begin inline
    /// asm` gives `begin inline asm`); an inline-asm statement that is only a
    /// comment leaves one of these and no instruction.
    pub fn comments(&self) -> impl Iterator<Item = &'a str> {
        let body = self.body.unwrap_or("");
        let b = body.as_bytes();
        let mut i = 0;
        std::iter::from_fn(move || {
            while i < b.len() {
                if b[i..].starts_with(b"//") {
                    let end = body[i..].find('\n').map_or(b.len(), |e| i + e);
                    let text = body[i + 2..end].trim();
                    i = end;
                    return Some(text);
                }
                if b[i..].starts_with(b"/*") {
                    let end = body[i..].find("*/").map_or(b.len(), |e| i + e);
                    let text = body[i + 2..end].trim();
                    i = (end + 2).min(b.len());
                    return Some(text);
                }
                i += 1;
            }
            None
        })
    }
}

/// The statements of a function body; see [`Function::statements`].
#[derive(Debug, Clone)]
pub struct Statements<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Statements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.text.as_bytes();
        loop {
            let i = skip_trivia(b, self.at);
            if i >= b.len() {
                self.at = i;
                return None;
            }
            if b[i] == b'{' || b[i] == b'}' {
                self.at = i + 1;
                continue;
            }
            let end = find_outside_comments(b, i, |c| c == b';' || c == b'{' || c == b'}');
            let stmt = self.text[i..end].trim_end();
            self.at = if b.get(end) == Some(&b';') {
                end + 1
            } else {
                end
            };
            // A label: `$L__BB0_2:` before the statement it marks.
            let stmt = match stmt.split_once(':') {
                Some((label, rest))
                    if !label.is_empty()
                        && label.bytes().all(|c| is_ident_byte(c) || c == b'$') =>
                {
                    rest.trim_start()
                }
                _ => stmt,
            };
            if !stmt.is_empty() {
                return Some(stmt);
            }
        }
    }
}

/// The opcode of a statement: its first word after any predicate guard
/// (`@%p1 bra $L` gives `bra`).
pub fn opcode(statement: &str) -> &str {
    let mut words = statement.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') {
        words.next().unwrap_or("")
    } else {
        first
    }
}

/// The function a `call` statement calls.
fn callee(statement: &str) -> Option<&str> {
    let op = opcode(statement);
    if op != "call" && !op.starts_with("call.") {
        return None;
    }
    let at = statement.find(op)? + op.len();
    let mut rest = statement[at..].trim_start();
    // The return values: `call.uni (retval0), f, (param0)`.
    if rest.starts_with('(') {
        rest = rest[rest.find(')')? + 1..].trim_start();
        rest = rest.strip_prefix(',')?.trim_start();
    }
    let end = rest
        .find(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'%'
}

/// The first index at or after `i` that is not whitespace or in a comment.
fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b[i.min(b.len())..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i.min(b.len())..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i = (i + 2).min(b.len());
        } else {
            return i;
        }
    }
}

/// The first index at or after `i` whose byte satisfies `stop`, outside
/// comments; the length when there is none.
fn find_outside_comments(b: &[u8], mut i: usize, stop: impl Fn(u8) -> bool) -> usize {
    while i < b.len() {
        if b[i..].starts_with(b"//") || b[i..].starts_with(b"/*") {
            i = skip_trivia(b, i);
            continue;
        }
        if stop(b[i]) {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The first `want` at or after `i` outside braces and comments.
fn find_at_depth_zero(b: &[u8], mut i: usize, want: u8) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        i = find_outside_comments(b, i, |c| c == want || c == b'{' || c == b'}');
        match b.get(i) {
            Some(b'{') => depth += 1,
            Some(b'}') => depth = depth.saturating_sub(1),
            Some(_) if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The index just past the brace that closes the one at `open`.
fn matching_brace(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        i = find_outside_comments(b, i, |c| c == b'{' || c == b'}');
        match b.get(i) {
            Some(b'{') => depth += 1,
            Some(b'}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The words of a declaration, with `(`, `)`, `,`, `=`, `{`, `}` and `;`
/// as words of their own and comments left out.
fn tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        i = skip_trivia(b, i);
        if i >= b.len() {
            return out;
        }
        if b"(),={};".contains(&b[i]) {
            out.push(&s[i..i + 1]);
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && !b[i].is_ascii_whitespace()
            && !b"(),={};".contains(&b[i])
            && !b[i..].starts_with(b"//")
            && !b[i..].starts_with(b"/*")
        {
            i += 1;
        }
        out.push(&s[start..i]);
    }
}

const LINKAGES: [&str; 4] = [".visible", ".extern", ".weak", ".common"];

/// A function from the words of its header.
fn function<'a>(words: &[&'a str], body: Option<&'a str>) -> Option<Function<'a>> {
    let mut linkage = None;
    let mut w = words.iter().copied().peekable();
    let kind = loop {
        match w.next()? {
            ".entry" => break FunctionKind::Entry,
            ".func" => break FunctionKind::Func,
            l if LINKAGES.contains(&l) => linkage = Some(l),
            _ => {}
        }
    };
    let mut returns = Vec::new();
    if kind == FunctionKind::Func && w.peek() == Some(&"(") {
        returns = param_list(&mut w);
    }
    let name = w.next()?;
    let params = if w.peek() == Some(&"(") {
        param_list(&mut w)
    } else {
        Vec::new()
    };
    let directives = w.filter(|t| t.starts_with('.')).collect();
    Some(Function {
        name,
        kind,
        linkage,
        returns,
        params,
        directives,
        body,
    })
}

/// The parameters between the `(` next in `w` and its `)`.
fn param_list<'a>(w: &mut impl Iterator<Item = &'a str>) -> Vec<Param<'a>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    w.next(); // (
    for t in w.by_ref() {
        match t {
            ")" | "," => {
                if let Some(p) = param(&current) {
                    out.push(p);
                }
                current.clear();
                if t == ")" {
                    break;
                }
            }
            _ => current.push(t),
        }
    }
    out
}

/// One parameter from its words (`.param .u64 .ptr .align 1 name`).
fn param<'a>(words: &[&'a str]) -> Option<Param<'a>> {
    let mut p = Param {
        name: "",
        ty: "",
        align: None,
        ptr: false,
        len: None,
    };
    let mut w = words.iter().copied();
    while let Some(t) = w.next() {
        match t {
            ".param" | ".reg" => {}
            ".align" => p.align = w.next().and_then(|n| n.parse().ok()),
            ".ptr" => p.ptr = true,
            ".global" | ".shared" | ".const" | ".local" if p.ptr => {}
            t if t.starts_with('.') => p.ty = t,
            t => {
                let (name, len) = array_name(t);
                p.name = name;
                p.len = match len {
                    Length::Elements(n) => Some(n),
                    _ => None,
                };
            }
        }
    }
    (!p.name.is_empty()).then_some(p)
}

/// `name[N]` as the name and its length.
fn array_name(t: &str) -> (&str, Length) {
    match t.split_once('[') {
        Some((name, rest)) => {
            let n = rest.trim_end_matches(']').trim();
            let len = if n.is_empty() {
                Length::Unsized
            } else {
                n.parse().map_or(Length::Unsized, Length::Elements)
            };
            (name, len)
        }
        None => (t, Length::Scalar),
    }
}

/// A module-scope variable from its statement (without the `;`), if it is
/// one.
fn global(stmt: &str) -> Option<Global<'_>> {
    let (decl, init) = match stmt.split_once('=') {
        Some((d, i)) => (d, Some(i.trim())),
        None => (stmt, None),
    };
    let mut g = Global {
        name: "",
        space: "",
        linkage: None,
        align: None,
        ty: "",
        len: Length::Scalar,
        init,
    };
    let words = tokens(decl);
    let mut w = words.iter().copied();
    while let Some(t) = w.next() {
        match t {
            ".global" | ".shared" | ".const" => g.space = t,
            ".align" => g.align = w.next().and_then(|n| n.parse().ok()),
            t if LINKAGES.contains(&t) => g.linkage = Some(t),
            t if t.starts_with('.') => g.ty = t,
            t => (g.name, g.len) = array_name(t),
        }
    }
    (!g.space.is_empty() && !g.name.is_empty()).then_some(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
//
// Generated by LLVM NVPTX Back-End
//

.version 8.0
.target sm_90
.address_size 64

.shared .align 16 .b8 tile[512];
.visible .global .align 8 .u64 record = 0;
.extern .shared .align 16 .b8 dynamic[];

	// .globl	coop
.func fail
(
	.param .b64 fail_param_0
)
.noreturn;
.global .align 1 .b8 msg[4] = {104, 105};
.global .align 8 .u64 table[2] = {generic(msg), 3};
.func (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	.reg .b32 	%r<3>;

	// begin inline asm
	// cg-core: grid.sync
	// end inline asm
	{ .reg .pred p; setp.eq.u32 p, %r1, 0; }
	st.param.b32 	[func_retval0], %r2;
	ret;
}
.func quiet()
{
	ret;
}
.visible .entry coop(
	.param .u64 .ptr .align 1 coop_param_0,
	.param .u64 coop_param_1,
	.param .align 4 .b8 coop_param_2[12]
)
.maxntid 256, 1, 1
{
	{ // callseq 0, 0
	.param .b32 param0;
	.param .b32 retval0;
	call.uni (retval0), 
	helper, 
	(
	param0
	);
	} // callseq 0
$L__BB0_2:
	@%p1 bra 	$L__BB0_2;
	ret;
}
.visible .entry plain()
{
	call.uni quiet, ();
	call.uni fail, (param0); /* never returns */
	ret;
}
"#;

    #[test]
    fn the_grid_barrier_place_is_no_declared_parameter() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .align 1 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .u64 k_cg_grid_barrier\n)\n{\n\tret;\n}\n\
                   .visible .entry j(\n\t.param .u64 j_param_0,\n\t.param .u64 k_cg_grid_barrier\n)\n{\n\tret;\n}\n\
                   .visible .entry e()\n{\n\tret;\n}\n";
        let m = Module::parse(ptx);
        let k = m.entry("k").unwrap();
        assert!(k.takes_grid_barrier_place());
        assert_eq!(k.param_types(), [".u64", ".u32", ".u64"]);
        assert_eq!(k.declared_param_types(), [".u64", ".u32"]);
        // Another entry's name before the suffix is a parameter of its own.
        let j = m.entry("j").unwrap();
        assert!(!j.takes_grid_barrier_place());
        assert_eq!(j.declared_param_types(), [".u64", ".u64"]);
        let e = m.entry("e").unwrap();
        assert!(!e.takes_grid_barrier_place());
        assert!(e.declared_param_types().is_empty());
    }

    #[test]
    fn reads_functions_and_their_parameters() {
        let m = Module::parse(PTX);
        assert_eq!((m.version, m.target), (Some("8.0"), Some("sm_90")));
        let names: Vec<_> = m.functions.iter().map(|f| (f.name, f.kind)).collect();
        use FunctionKind::*;
        assert_eq!(
            names,
            [
                ("fail", Func),
                ("helper", Func),
                ("quiet", Func),
                ("coop", Entry),
                ("plain", Entry)
            ]
        );
        assert_eq!(m.entry_names(), ["coop", "plain"]);
        let coop = m.entry("coop").unwrap();
        assert_eq!(coop.linkage, Some(".visible"));
        assert_eq!(coop.param_types(), [".u64", ".u64", ".b8[12]"]);
        assert!(coop.params[0].ptr && !coop.params[1].ptr);
        assert_eq!(coop.params[2].align, Some(4));
        assert_eq!(coop.params[2].name, "coop_param_2");
        assert_eq!(coop.directives, [".maxntid"]);
        let helper = m.function("helper").unwrap();
        assert_eq!(helper.returns[0].name, "func_retval0");
        assert_eq!(helper.param_types(), [".b32"]);
        assert!(helper.body.unwrap().starts_with('{') && helper.body.unwrap().ends_with('}'));
        assert!(m.function("fail").unwrap().is_noreturn());
        assert!(m.function("fail").unwrap().body.is_none());
        assert_eq!(
            m.noreturn_functions().into_iter().collect::<Vec<_>>(),
            ["fail"]
        );
        assert!(m.entry("helper").is_none() && m.entry("nothing").is_none());
    }

    #[test]
    fn reads_statements_calls_and_comments() {
        let m = Module::parse(PTX);
        let coop = m.entry("coop").unwrap();
        let ops: Vec<_> = coop.statements().map(opcode).collect();
        assert_eq!(
            ops,
            [".param", ".param", "call.uni", "bra", "ret"],
            "{:?}",
            coop.statements().collect::<Vec<_>>()
        );
        assert_eq!(coop.callees(), ["helper"]);
        assert_eq!(m.entry("plain").unwrap().callees(), ["quiet", "fail"]);
        let helper = m.function("helper").unwrap();
        assert_eq!(
            helper.comments().collect::<Vec<_>>(),
            ["begin inline asm", "cg-core: grid.sync", "end inline asm"]
        );
        let stmts: Vec<_> = helper.statements().collect();
        assert_eq!(
            stmts,
            [
                ".reg .b32 \t%r<3>",
                ".reg .pred p",
                "setp.eq.u32 p, %r1, 0",
                "st.param.b32 \t[func_retval0], %r2",
                "ret"
            ]
        );
        assert_eq!(
            m.entry("plain").unwrap().comments().collect::<Vec<_>>(),
            ["never returns"]
        );
    }

    #[test]
    fn follows_calls_to_a_marker() {
        let m = Module::parse(PTX);
        let reach = m.entries_reaching(|f| f.comments().any(|c| c == "cg-core: grid.sync"));
        assert_eq!(reach.into_iter().collect::<Vec<_>>(), ["coop"]);
        let none = m.entries_reaching(|f| f.name == "nothing");
        assert!(none.is_empty());
    }

    #[test]
    fn reads_module_scope_variables() {
        let m = Module::parse(PTX);
        let names: Vec<_> = m.globals.iter().map(|g| (g.space, g.name)).collect();
        assert_eq!(
            names,
            [
                (".shared", "tile"),
                (".global", "record"),
                (".shared", "dynamic"),
                (".global", "msg"),
                (".global", "table")
            ]
        );
        let record = m.global("record").unwrap();
        assert_eq!(
            (
                record.linkage,
                record.align,
                record.ty,
                record.len,
                record.init
            ),
            (Some(".visible"), Some(8), ".u64", Length::Scalar, Some("0"))
        );
        assert_eq!(record.init_elements(), ["0"]);
        assert_eq!(m.global("dynamic").unwrap().len, Length::Unsized);
        assert_eq!(m.global("dynamic").unwrap().linkage, Some(".extern"));
        assert_eq!(m.global("tile").unwrap().len, Length::Elements(512));
        let msg = m.global("msg").unwrap();
        assert_eq!(msg.bytes().unwrap(), b"hi\0\0");
        let table = m.global("table").unwrap();
        assert_eq!(table.init_elements(), ["generic(msg)", "3"]);
        assert_eq!(table.bytes(), None);
        let arrays: Vec<_> = m.byte_arrays().map(|g| g.name).collect();
        assert_eq!(arrays, ["msg"]);
    }

    #[test]
    fn an_initializer_longer_than_its_array_is_no_byte_string() {
        let m = Module::parse(".global .align 1 .b8 s[1] = {1, 2};\n");
        assert_eq!(m.global("s").unwrap().bytes(), None);
        let m = Module::parse(".global .align 1 .b8 s[2] = {};\n");
        assert_eq!(m.global("s").unwrap().bytes().unwrap(), [0, 0]);
    }

    #[test]
    fn an_indirect_call_names_its_register() {
        let m = Module::parse(
            ".visible .entry k()\n{\n\tcall (retval0), %rd4, (param0), prototype_0;\n\tret;\n}\n",
        );
        assert_eq!(m.entry("k").unwrap().callees(), ["%rd4"]);
    }

    #[test]
    fn braces_in_comments_do_not_end_a_body() {
        let m = Module::parse(
            ".visible .entry k()\n{\n\t// } not the end {\n\tret;\n}\n.visible .entry j()\n{\n}\n",
        );
        assert_eq!(m.entry_names(), ["k", "j"]);
        assert_eq!(
            m.entry("k").unwrap().statements().collect::<Vec<_>>(),
            ["ret"]
        );
    }
}
