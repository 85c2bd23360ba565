//! The record of an entry point's signature in the compiled PTX.
//!
//! `#[kernel]` starts every entry point with an inline-asm statement whose
//! whole text is a PTX comment ([`statement`]): no instruction, and the
//! comment stays in the entry's body in the PTX, where `cg-builder` finds
//! it ([`decode`]). It reads, for
//! `#[kernel(cooperative)] fn grid_sum(input: &[f32], out: *mut f32)`:
//!
//! ```text
//! // cg-kernel v1 name=grid_sum cooperative=1 cluster=none param=input:slice:f32 param=out:mut:f32 at=42:kernels/src/grid_sum.rs
//! ```
//!
//! Fields are separated by single spaces; a value holds no space, `{`, `}`,
//! `$` or `%` of its own: any such character (of a type, say) is written
//! `%XX`, its UTF-8 bytes in hex. `param=NAME:KIND:TYPE` repeats in order
//! (KIND is `value`, `slice`, `const` or `mut`; TYPE the element type for
//! the last three). An instance of a generic kernel adds
//! `instance=k::<f32,%2032>`. `at=LINE:FILE` comes last and runs to the end
//! of the line: `file!()` and `line!()` where the kernel is declared (for a
//! kernel a `macro_rules!` macro writes, where the macro is invoked). The
//! file name enters the inline-asm template as it is, so a kernel cannot
//! live in a file whose path holds `{` or `}`.

use crate::{ClusterShape, KernelOptions, KernelSignature, LaunchBounds, Param, ParamKind};
use proc_macro2::{Span, TokenStream};
use quote::{quote_spanned, ToTokens};
use syn::Ident;

/// The first word of a record's comment.
pub const PREFIX: &str = "cg-kernel";

/// The record format this crate writes and reads.
pub const VERSION: &str = "v1";

/// An entry point's signature as read from the PTX, and where its kernel
/// is declared.
#[derive(Debug, Clone)]
pub struct KernelRecord {
    /// The entry point.
    pub signature: KernelSignature,
    /// For an instance of a generic kernel, the instance as Rust names it
    /// (`k::<f32, 32>`).
    pub instance_of: Option<String>,
    /// The source file, as `file!()` gives it.
    pub file: String,
    /// The line, as `line!()` gives it.
    pub line: u32,
}

/// The statement that records `sig` in the entry point it starts (see the
/// module docs); `span` is where `line!()` is taken.
pub fn statement(sig: &KernelSignature, instance_of: Option<&str>, span: Span) -> TokenStream {
    let head = format!("// {}", head(sig, instance_of));
    quote_spanned! {span=>
        // The signature, for cg-builder: a PTX comment, no instruction.
        #[allow(unused_unsafe)]
        let () = unsafe {
            ::core::arch::asm!(
                ::core::concat!(#head, ::core::line!(), ":", ::core::file!()),
                options(nomem, nostack, preserves_flags)
            )
        };
    }
}

/// The comment text (without `//`) that [`statement`] leaves for `sig`
/// declared at `file:line`.
pub fn comment(sig: &KernelSignature, instance_of: Option<&str>, line: u32, file: &str) -> String {
    format!("{}{line}:{file}", head(sig, instance_of))
}

/// Everything up to and including `at=`.
fn head(sig: &KernelSignature, instance_of: Option<&str>) -> String {
    let mut out = format!(
        "{PREFIX} {VERSION} name={} cooperative={} cluster={}",
        sig.name,
        u8::from(sig.options.cooperative),
        match sig.options.cluster {
            None => "none".to_string(),
            Some(ClusterShape::Runtime) => "runtime".to_string(),
            Some(ClusterShape::Fixed(d)) => dims_text(d),
        }
    );
    if sig.options.multi_grid {
        out += " multi_grid=1";
    }
    if sig.options.grid_1d {
        out += " grid_1d=1";
    }
    if let Some(b) = sig.options.launch_bounds {
        out += &format!(" launch_bounds={}", b.max_threads);
        if let Some(n) = b.min_blocks_per_sm {
            out += &format!(",{n}");
        }
    }
    if let Some(d) = sig.options.block_size {
        out += &format!(" block_size={}", dims_text(d));
    }
    if let Some(i) = instance_of {
        out += &format!(" instance={}", escape(i));
    }
    for p in &sig.params {
        let kind = match p.kind {
            ParamKind::Value => "value",
            ParamKind::Uniform => "uniform",
            ParamKind::Slice => "slice",
            ParamKind::ConstPtr => "const",
            ParamKind::MutPtr => "mut",
            ParamKind::Buffer => "buffer",
            ParamKind::Indices => "indices",
        };
        let ty = type_text(&p.ty.to_token_stream());
        out += &format!(" param={}:{kind}:{}", p.name, escape(&ty));
    }
    out + " at="
}

/// Three dimensions as a record writes them (`cluster=`, `block_size=`).
fn dims_text([x, y, z]: [u32; 3]) -> String {
    format!("{x},{y},{z}")
}

/// The three dimensions of field `key`'s `value`, as [`dims_text`] wrote
/// them.
fn dims(key: &str, value: &str) -> Result<[u32; 3], String> {
    let bad = || format!("{key} `{value}`");
    let d: Vec<u32> = value
        .split(',')
        .map(|d| d.parse().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    d.try_into().map_err(|_| bad())
}

/// Reads a comment of an entry point's body (without `//`): `None` when it
/// is no record, else the record or what is wrong with it.
pub fn decode(comment: &str) -> Option<Result<KernelRecord, String>> {
    let rest = comment.strip_prefix(PREFIX)?.strip_prefix(' ')?;
    Some(decode_fields(rest).map_err(|e| format!("a malformed #[kernel] record ({e}): {comment}")))
}

fn decode_fields(rest: &str) -> Result<KernelRecord, String> {
    let (version, rest) = rest.split_once(' ').ok_or("no fields")?;
    if version != VERSION {
        return Err(format!(
            "format {version}, but this cg-builder reads {VERSION}: build the kernels with the \
             cg-macros of the same release"
        ));
    }
    let (fields, at) = rest.split_once(" at=").ok_or("no `at=`")?;
    let (line, file) = at.split_once(':').ok_or("`at=` is not LINE:FILE")?;
    let line = line.parse().map_err(|_| format!("line `{line}`"))?;
    let mut name = None;
    let mut options = KernelOptions::default();
    let mut instance_of = None;
    let mut params = Vec::new();
    for field in fields.split(' ') {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("field `{field}`"))?;
        match key {
            "name" => name = Some(ident(value)?),
            "cooperative" => options.cooperative = value == "1",
            "multi_grid" => options.multi_grid = value == "1",
            "grid_1d" => options.grid_1d = value == "1",
            "launch_bounds" => {
                let bad = || format!("launch_bounds `{value}`");
                let mut parts = value
                    .split(',')
                    .map(|v| v.parse::<u32>().map_err(|_| bad()));
                let max_threads = parts.next().ok_or_else(bad)??;
                let min_blocks_per_sm = parts.next().transpose()?;
                if parts.next().is_some() {
                    return Err(bad());
                }
                options.launch_bounds = Some(LaunchBounds {
                    max_threads,
                    min_blocks_per_sm,
                });
            }
            "block_size" => options.block_size = Some(dims(key, value)?),
            "cluster" => {
                options.cluster = match value {
                    "none" => None,
                    "runtime" => Some(ClusterShape::Runtime),
                    d => Some(ClusterShape::Fixed(dims(key, d)?)),
                }
            }
            "instance" => instance_of = Some(unescape(value)?),
            "param" => {
                let mut parts = value.splitn(3, ':');
                let (Some(n), Some(k), Some(t)) = (parts.next(), parts.next(), parts.next()) else {
                    return Err(format!("parameter `{value}`"));
                };
                let kind = match k {
                    "value" => ParamKind::Value,
                    "uniform" => ParamKind::Uniform,
                    "slice" => ParamKind::Slice,
                    "const" => ParamKind::ConstPtr,
                    "mut" => ParamKind::MutPtr,
                    "buffer" => ParamKind::Buffer,
                    "indices" => ParamKind::Indices,
                    _ => return Err(format!("parameter kind `{k}`")),
                };
                let text = unescape(t)?;
                let ty =
                    syn::parse_str(&text).map_err(|e| format!("parameter type `{text}`: {e}"))?;
                params.push(Param {
                    name: ident(n)?,
                    kind,
                    ty,
                });
            }
            _ => return Err(format!("field `{key}`")),
        }
    }
    Ok(KernelRecord {
        signature: KernelSignature {
            name: name.ok_or("no name")?,
            options,
            params,
        },
        instance_of,
        file: file.to_string(),
        line,
    })
}

fn ident(s: &str) -> Result<Ident, String> {
    let mut chars = s.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(Ident::new(s, Span::call_site()))
    } else {
        Err(format!("name `{s}`"))
    }
}

/// The text of a type (or generic argument), with the spaces between
/// tokens left out where Rust needs none: `[u32;2]`, `&'a u32`.
pub fn type_text(tokens: &TokenStream) -> String {
    let spaced = tokens.to_string();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::new();
    let chars: Vec<char> = spaced.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
        } else if word(out.chars().last()) && word(chars.get(i + 1).copied()) {
            out.push(' ');
        }
    }
    out
}

/// Characters a value keeps as they are; the others become `%XX`.
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_:<>[]()&*,;'.-+!#@~^|/?".contains(c)
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if plain(c) {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out += &format!("%{b:02X}");
            }
        }
    }
    out
}

fn unescape(s: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let mut it = s.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex: Vec<u8> = it.by_ref().take(2).collect();
            let h = std::str::from_utf8(&hex)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("escape in `{s}`"))?;
            bytes.push(h);
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8(bytes).map_err(|_| format!("escape in `{s}`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KernelDecl;
    use quote::quote;

    fn entries(attr: TokenStream, f: TokenStream) -> Vec<KernelSignature> {
        KernelDecl::parse(attr, &syn::parse2(f).unwrap())
            .unwrap()
            .entries()
    }

    #[test]
    fn a_record_reads_back_as_the_signature_it_was_written_from() {
        let [sig] = &entries(
            quote!(cooperative, cluster(2, 1, 1)),
            quote!(
                fn k(
                    a: &[f32],
                    b: *const (u8, u16),
                    c: *mut [u32; 2],
                    d: Pair<{ 1 + 2 }>,
                    e: cg_core::output::Output<u64>,
                    f: Indices<i32>,
                ) {
                }
            ),
        )[..] else {
            panic!()
        };
        let text = comment(sig, None, 42, "kernels/src/a b.rs");
        assert_eq!(
            text,
            "cg-kernel v1 name=k cooperative=1 cluster=2,1,1 param=a:slice:f32 \
             param=b:const:(u8,u16) param=c:mut:[u32;2] param=d:value:Pair<%7B1+2%7D> \
             param=e:buffer:u64 param=f:indices:i32 at=42:kernels/src/a b.rs"
        );
        let r = decode(&text).unwrap().unwrap();
        assert_eq!(r.signature.name, "k");
        assert_eq!(r.signature.options, sig.options);
        assert_eq!(
            (r.file.as_str(), r.line, r.instance_of),
            ("kernels/src/a b.rs", 42, None)
        );
        assert_eq!(
            comment(&r.signature, None, 42, "kernels/src/a b.rs"),
            text,
            "a record decodes to what encodes it again"
        );
        let kinds: Vec<_> = r.signature.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Slice,
                ParamKind::ConstPtr,
                ParamKind::MutPtr,
                ParamKind::Value,
                ParamKind::Buffer,
                ParamKind::Indices
            ]
        );
    }

    #[test]
    fn an_instance_records_its_concrete_types() {
        let sigs = entries(
            quote!(instances(k_f32 = <f32, 4>, k_runtime = <u64, 1>)),
            quote!(
                fn k<T: Pod, const N: usize>(a: &[T], b: *mut [T; N], n: u32) {}
            ),
        );
        let text = comment(&sigs[0], Some("k::<f32, 4>"), 7, "x.rs");
        assert_eq!(
            text,
            "cg-kernel v1 name=k_f32 cooperative=0 cluster=none instance=k::<f32,%204> \
             param=a:slice:f32 param=b:mut:[f32;4] param=n:value:u32 at=7:x.rs"
        );
        let r = decode(&text).unwrap().unwrap();
        assert_eq!(r.instance_of.as_deref(), Some("k::<f32, 4>"));
        assert_eq!(r.signature.name, "k_f32");
    }

    #[test]
    fn a_record_has_no_character_the_asm_template_or_ptx_would_read() {
        let [sig] = &entries(
            quote!(cluster),
            quote!(
                fn k(d: Pair<{ 1 + 2 }>) {}
            ),
        )[..] else {
            panic!()
        };
        let h = head(sig, Some("k::<{ N }>"));
        assert!(!h.contains(['{', '}', '$', '\n']), "{h}");
        assert!(h.contains("cluster=runtime"), "{h}");
    }

    #[test]
    fn other_comments_and_broken_records_are_told_apart() {
        assert!(decode("cg-core: grid.sync").is_none());
        assert!(decode("begin inline asm").is_none());
        let e = decode("cg-kernel v9 name=k at=1:x.rs")
            .unwrap()
            .unwrap_err();
        assert!(e.contains("format v9, but this cg-builder reads v1"), "{e}");
        for broken in [
            "cg-kernel v1 name=k",
            "cg-kernel v1 name=k at=x:y.rs",
            "cg-kernel v1 name=k param=a:ref:u32 at=1:x.rs",
            "cg-kernel v1 name=k param=a:value:%7 at=1:x.rs",
            "cg-kernel v1 name=1k at=1:x.rs",
            "cg-kernel v1 cooperative=1 at=1:x.rs",
            "cg-kernel v1 name=k cluster=2,1 at=1:x.rs",
        ] {
            let e = decode(broken).unwrap().unwrap_err();
            assert!(e.contains("a malformed #[kernel] record"), "{e}");
        }
    }
}
