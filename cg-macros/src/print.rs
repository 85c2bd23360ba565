//! `cg_core::println!` and `cg_core::print!`: Rust's format syntax turned
//! into one call of CUDA's `printf`.
//!
//! The macro reads the format string and writes, for each placeholder, a
//! C conversion whose parts that depend on the argument's type (`d` or
//! `lld`, `""` or `ll`) are the associated constants of the trait the
//! placeholder asks of it (`cg_core::print::Display`, `Radix`, `Float`,
//! `Pointer`; `Signed` for `+`, `Number` for `0`). Everything is put in a
//! generic function whose type parameters are the arguments' types, so
//! the C format string is a constant built from those pieces at compile
//! time, and the argument buffer a `#[repr(C)]` struct of the packed
//! values (each aligned to its size, as CUDA's `printf` reads them). An
//! argument of a type the placeholder does not accept fails its trait
//! bound, with that trait's message; a format the C side cannot give fails
//! here, with what to write instead.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitBool, LitStr, Token};

/// CUDA's `printf` takes at most this many arguments.
const MAX_ARGS: usize = 32;

/// `print_call!($crate, newline, "format", args...)`.
struct Input {
    krate: TokenTree,
    newline: bool,
    format: LitStr,
    args: Vec<Arg>,
}

struct Arg {
    name: Option<Ident>,
    expr: Expr,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let krate: TokenTree = input.parse()?;
        input.parse::<Token![,]>()?;
        let newline: LitBool = input.parse()?;
        input.parse::<Token![,]>()?;
        let format: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "cg_core::println! takes a string literal first: the format, as in \
                 `println!(\"x = {}\", x)`",
            )
        })?;
        let mut args = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let name = if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
                let name: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                Some(name)
            } else {
                None
            };
            args.push(Arg {
                name,
                expr: input.parse()?,
            });
        }
        Ok(Input {
            krate,
            newline: newline.value,
            format,
            args,
        })
    }
}

/// What a placeholder refers to.
#[derive(Debug, PartialEq)]
enum Which {
    /// `{}`: the next positional argument.
    Next,
    /// `{2}`.
    Index(usize),
    /// `{name}`: a named argument, else a variable in scope.
    Name(String),
}

/// The C conversion a placeholder becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    /// `{}`: `Display`'s conversion.
    Display,
    /// `{:x}`, `{:X}`, `{:o}` (the letter).
    Radix(char),
    /// `{:.N}` (`f`), `{:e}`, `{:E}`.
    Float(char),
    /// `{:p}`.
    Pointer,
}

/// A placeholder's specification, as the C side will print it.
#[derive(Debug, PartialEq)]
struct Spec {
    class: Class,
    /// `<` (C's `-`), `>` or none.
    align: Option<char>,
    plus: bool,
    alternate: bool,
    zero: bool,
    width: Option<u32>,
    precision: Option<u32>,
}

#[derive(Debug, PartialEq)]
enum Piece {
    /// Text, with `%` already written `%%`.
    Text(String),
    Placeholder(Which, Spec),
}

/// The format string's pieces, or what is wrong with it.
fn parse_format(s: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '}' => return Err("unmatched `}` in the format string: write `}}` for a brace".into()),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => {
                            return Err(
                                "unclosed `{` in the format string: close it with `}`, or write \
                                 `{{` for a brace"
                                    .into(),
                            )
                        }
                    }
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                let (which, spec) = inner.split_once(':').unwrap_or((&inner, ""));
                pieces.push(Piece::Placeholder(parse_which(which)?, parse_spec(spec)?));
            }
            '%' => text.push_str("%%"),
            '\0' => {
                return Err(
                    "a NUL character ends a C format string: the format cannot hold one".into(),
                )
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn parse_which(s: &str) -> Result<Which, String> {
    let s = s.trim();
    if s.is_empty() {
        Ok(Which::Next)
    } else if let Ok(i) = s.parse() {
        Ok(Which::Index(i))
    } else if syn::parse_str::<Ident>(s).is_ok() {
        Ok(Which::Name(s.to_string()))
    } else {
        Err(format!(
            "`{{{s}}}` names no argument: write `{{}}`, `{{0}}` or `{{name}}`"
        ))
    }
}

/// `[[fill]align][sign]['#']['0'][width]['.' precision][type]`.
fn parse_spec(s: &str) -> Result<Spec, String> {
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    let is_align = |c: Option<&char>| matches!(c, Some('<' | '^' | '>'));
    let mut align = None;
    if is_align(c.get(1)) {
        if c[0] != ' ' {
            return Err(format!(
                "`{{:{s}}}`: CUDA's printf pads with spaces or, for numbers, zeros \
                 (`{{:08}}`), not with `{}`",
                c[0]
            ));
        }
        align = Some(c[1]);
        i = 2;
    } else if is_align(c.first()) {
        align = Some(c[0]);
        i = 1;
    }
    if align == Some('^') {
        return Err(format!(
            "`{{:{s}}}`: CUDA's printf cannot centre a value: align it left (`<`) or right (`>`)"
        ));
    }
    let mut plus = false;
    match c.get(i) {
        Some('+') => {
            plus = true;
            i += 1;
        }
        Some('-') => {
            return Err(format!(
                "`{{:{s}}}`: the `-` flag does nothing in Rust's formats: leave it out"
            ))
        }
        _ => {}
    }
    let alternate = c.get(i) == Some(&'#');
    i += alternate as usize;
    let zero = c.get(i) == Some(&'0');
    i += zero as usize;
    let digits = |i: &mut usize| -> Option<u32> {
        let start = *i;
        while c.get(*i).is_some_and(|d| d.is_ascii_digit()) {
            *i += 1;
        }
        c[start..*i].iter().collect::<String>().parse().ok()
    };
    let width = digits(&mut i);
    if c.get(i) == Some(&'$')
        || (width.is_none() && c.get(i).is_some_and(|c| c.is_alphabetic()) && c[i..].contains(&'$'))
    {
        return Err(format!(
            "`{{:{s}}}`: a width from an argument is not available in a kernel: write the width \
             as a number"
        ));
    }
    let mut precision = None;
    if c.get(i) == Some(&'.') {
        i += 1;
        precision = digits(&mut i);
        if precision.is_none() || c.get(i) == Some(&'$') {
            return Err(format!(
                "`{{:{s}}}`: the precision must be a number (`{{:.3}}`); one from an argument \
                 (`.*`, `.name$`) is not available in a kernel"
            ));
        }
    }
    let ty: String = c[i..].iter().collect();
    let class = match (ty.as_str(), precision) {
        ("", None) => Class::Display,
        ("", Some(_)) => Class::Float('f'),
        ("e", _) => Class::Float('e'),
        ("E", _) => Class::Float('E'),
        ("x" | "X" | "o", None) => Class::Radix(ty.chars().next().unwrap()),
        ("p", None) => Class::Pointer,
        ("x" | "X" | "o" | "p", Some(_)) => {
            return Err(format!(
                "`{{:{s}}}`: a precision applies to floats (`{{:.3}}`, `{{:.3e}}`) only"
            ))
        }
        ("?" | "x?" | "X?" | "#?", _) => {
            return Err(format!(
                "`{{:{s}}}`: Debug formatting is not available in a kernel: print each value \
                 with `{{}}`"
            ))
        }
        ("b", _) => {
            return Err(format!(
                "`{{:{s}}}`: CUDA's printf has no binary conversion: print the bits in \
                 hexadecimal (`{{:x}}`)"
            ))
        }
        _ => {
            return Err(format!(
                "`{{:{s}}}` is not a format a kernel can print: use `{{}}`, `{{:x}}`, `{{:X}}`, \
                 `{{:o}}`, `{{:.N}}`, `{{:e}}`, `{{:E}}` or `{{:p}}`, with a width, `<`, `>`, \
                 `+`, `#` or `0`"
            ))
        }
    };
    let spec = Spec {
        class,
        align,
        plus,
        alternate,
        zero,
        width,
        precision,
    };
    check_flags(s, &spec)?;
    Ok(spec)
}

/// The combinations C's flags cannot print as Rust does.
fn check_flags(s: &str, spec: &Spec) -> Result<(), String> {
    let plain = spec.align.is_none()
        && !spec.plus
        && !spec.alternate
        && !spec.zero
        && spec.width.is_none()
        && spec.precision.is_none();
    match spec.class {
        Class::Pointer if !plain => Err(format!(
            "`{{:{s}}}`: `{{:p}}` takes no width or flags in a kernel: write `{{:p}}`"
        )),
        Class::Radix(_) if spec.plus => Err(format!(
            "`{{:{s}}}`: CUDA's printf prints no `+` in hexadecimal or octal: leave it out"
        )),
        Class::Radix(_) if spec.alternate && (spec.width.is_some() || spec.zero) => Err(format!(
            "`{{:{s}}}`: `#` with a width is not available in a kernel (C puts its prefix on \
             nonzero values only): write the prefix in the text, as in `0x{{:08x}}`"
        )),
        Class::Display | Class::Float(_) if spec.alternate => Err(format!(
            "`{{:{s}}}`: `#` applies to `{{:#x}}`, `{{:#X}}` and `{{:#o}}` only"
        )),
        _ if spec.zero && spec.align.is_some() => Err(format!(
            "`{{:{s}}}`: `0` pads a number on the left: leave out the alignment"
        )),
        _ => Ok(()),
    }
}

/// One part of the C format string: literal text, or a type's constant.
enum Part {
    Text(String),
    /// An expression of type `&'static str` and its longest value.
    Const(TokenStream, usize),
}

/// The expansion of `print_call!`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: Input = syn::parse2(input)?;
    let krate = &input.krate;
    let lit = &input.format;
    let mut text = lit.value();
    if input.newline {
        text.push('\n');
    }
    let pieces = parse_format(&text).map_err(|e| syn::Error::new(lit.span(), e))?;

    // The arguments: the positional ones, the named ones, then the
    // variables the format names that no argument does.
    let positional = input.args.iter().take_while(|a| a.name.is_none()).count();
    if let Some(a) = input.args[positional..].iter().find(|a| a.name.is_none()) {
        return Err(syn::Error::new(
            a.expr.span(),
            "positional arguments come before named ones",
        ));
    }
    let mut exprs: Vec<TokenStream> = input
        .args
        .iter()
        .map(|a| {
            let e = &a.expr;
            quote_spanned!(e.span()=> &(#e))
        })
        .collect();
    let mut used = vec![false; exprs.len()];
    let mut next = 0;
    let mut refs = Vec::new();
    for piece in &pieces {
        let Piece::Placeholder(which, _) = piece else {
            continue;
        };
        let index = match which {
            Which::Next => {
                next += 1;
                next - 1
            }
            Which::Index(i) => *i,
            Which::Name(name) => {
                match input
                    .args
                    .iter()
                    .position(|a| a.name.as_ref().is_some_and(|n| n == name))
                {
                    Some(i) => i,
                    None => {
                        let id = Ident::new(name, lit.span());
                        exprs.push(quote_spanned!(lit.span()=> &(#id)));
                        used.push(false);
                        exprs.len() - 1
                    }
                }
            }
        };
        if matches!(which, Which::Next | Which::Index(_)) && index >= positional {
            let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
            let placeholders = pieces
                .iter()
                .filter(|p| matches!(p, Piece::Placeholder(Which::Next, _)))
                .count();
            return Err(syn::Error::new(
                lit.span(),
                match which {
                    Which::Index(i) => format!(
                        "`{{{i}}}` refers to argument {i}, and there {} ({}): arguments count \
                         from 0",
                        if positional == 1 { "is" } else { "are" },
                        n(positional, "positional argument")
                    ),
                    _ => format!(
                        "this format string has {} but {} given: give one argument for each \
                         `{{}}`",
                        n(placeholders, "placeholder"),
                        if positional == 1 {
                            "1 argument was".to_string()
                        } else {
                            format!("{positional} arguments were")
                        }
                    ),
                },
            ));
        }
        used[index] = true;
        refs.push(index);
    }
    if let Some(unused) = used.iter().position(|u| !u) {
        return Err(syn::Error::new(
            input.args[unused].expr.span(),
            "this argument is never printed: add a `{}` for it to the format string, or remove it",
        ));
    }
    if refs.len() > MAX_ARGS {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "CUDA's printf takes at most {MAX_ARGS} arguments, and this format has {}: \
                 print the line in two calls",
                refs.len()
            ),
        ));
    }

    // The C format string's parts, the bounds on each argument's type, and
    // the packed value of each placeholder.
    let ty = |i: usize| format_ident!("A{}", i);
    let trait_path = |name: &str| {
        let name = format_ident!("{}", name);
        quote!(#krate::print::#name)
    };
    let mut parts = Vec::new();
    let mut bounds: Vec<Vec<TokenStream>> = vec![Vec::new(); exprs.len()];
    let mut packs = Vec::new();
    let mut placeholders = refs.iter();
    for piece in &pieces {
        let spec = match piece {
            Piece::Text(t) => {
                parts.push(Part::Text(t.clone()));
                continue;
            }
            Piece::Placeholder(_, spec) => spec,
        };
        let i = *placeholders.next().expect("one index per placeholder");
        let (a, arg) = (ty(i), format_ident!("a{}", i));
        let mut need = |name: &str| {
            let path = trait_path(name);
            if !bounds[i].iter().any(|b| b.to_string() == path.to_string()) {
                bounds[i].push(path.clone());
            }
            path
        };
        if spec.plus {
            need("Signed");
        }
        if spec.zero {
            need("Number");
        }
        let mut flags = String::from("%");
        if spec.align == Some('<') {
            flags.push('-');
        }
        if spec.plus {
            flags.push('+');
        }
        if spec.zero {
            flags.push('0');
        }
        let width = spec.width.map(|w| w.to_string()).unwrap_or_default();
        let precision = spec.precision.map(|p| format!(".{p}")).unwrap_or_default();
        match spec.class {
            Class::Display => {
                let t = need("Display");
                parts.push(Part::Text(flags));
                if spec.width.is_some() && spec.align.is_none() {
                    parts.push(Part::Const(quote!(<#a as #t>::DEFAULT_ALIGN), 1));
                }
                parts.push(Part::Text(width));
                parts.push(Part::Const(quote!(<#a as #t>::CONVERSION), 3));
                packs.push(quote!(<#a as #t>::pack(#arg)));
            }
            Class::Radix(letter) => {
                let t = need("Radix");
                if spec.alternate {
                    parts.push(Part::Text(if letter == 'o' { "0o" } else { "0x" }.into()));
                }
                parts.push(Part::Text(format!("{flags}{width}")));
                parts.push(Part::Const(quote!(<#a as #t>::LENGTH), 2));
                parts.push(Part::Text(letter.to_string()));
                packs.push(quote!(<#a as #t>::pack(#arg)));
            }
            Class::Float(letter) => {
                let t = need("Float");
                parts.push(Part::Text(format!("{flags}{width}{precision}{letter}")));
                packs.push(quote!(<#a as #t>::pack(#arg)));
            }
            Class::Pointer => {
                let t = need("Pointer");
                parts.push(Part::Text("0x%llx".into()));
                packs.push(quote!(<#a as #t>::pack(#arg)));
            }
        }
    }

    // The bound on the C string's length: the text, each constant's
    // longest value, the NUL.
    let capacity = 1 + parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.len(),
            Part::Const(_, n) => *n,
        })
        .sum::<usize>();
    let parts: Vec<TokenStream> = parts
        .iter()
        .filter(|p| !matches!(p, Part::Text(t) if t.is_empty()))
        .map(|p| match p {
            Part::Text(t) => quote!(#t),
            Part::Const(c, _) => c.clone(),
        })
        .collect();
    let generics: Vec<TokenStream> = bounds
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let a = ty(i);
            quote!(#a: #(#b)+*)
        })
        .collect();
    let params: Vec<TokenStream> = (0..exprs.len())
        .map(|i| {
            let (a, arg) = (ty(i), format_ident!("a{}", i));
            quote!(#arg: &#a)
        })
        .collect();
    let fields: Vec<Ident> = (0..packs.len()).map(|i| format_ident!("P{}", i)).collect();
    let args = if packs.is_empty() {
        quote!(::core::ptr::null())
    } else {
        quote!(::core::ptr::addr_of!(args).cast::<u8>())
    };
    let buffer = (!packs.is_empty()).then(|| {
        quote! {
            // CUDA's argument buffer: each value at an offset aligned to
            // its size.
            #[repr(C)]
            struct Args<#(#fields),*>(#(#fields),*);
            let args = Args(#(#packs),*);
        }
    });
    let call = Span::call_site();
    Ok(quote_spanned! {call=>
        {
            #[inline(always)]
            fn print_call<#(#generics),*>(#(#params),*) {
                let format: &'static [u8; #capacity] = const {
                    &#krate::print::format_string::<#capacity>(&[#(#parts),*])
                };
                #buffer
                // SAFETY: the format's conversions are those of the
                // arguments' types, in the buffer's order and layout.
                unsafe { #krate::print::vprintf(format.as_ptr(), #args) }
            }
            print_call(#(#exprs),*)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Spec {
        parse_spec(s).unwrap()
    }

    #[test]
    fn text_and_placeholders() {
        let p = parse_format("a {{%}} {} {1:x} {name:>8.3}").unwrap();
        assert_eq!(p[0], Piece::Text("a {%%} ".into()));
        assert!(matches!(&p[1], Piece::Placeholder(Which::Next, s) if s.class == Class::Display));
        assert!(
            matches!(&p[3], Piece::Placeholder(Which::Index(1), s) if s.class == Class::Radix('x'))
        );
        assert!(matches!(&p[5], Piece::Placeholder(Which::Name(n), s)
            if n == "name" && s.class == Class::Float('f') && s.width == Some(8)
                && s.precision == Some(3) && s.align == Some('>')));
    }

    #[test]
    fn specifications() {
        assert_eq!(spec("+08.2e").class, Class::Float('e'));
        assert!(spec("+08.2e").plus && spec("+08.2e").zero);
        assert!(spec("#X").alternate);
        assert_eq!(spec(" <5").align, Some('<'));
        assert_eq!(spec("p").class, Class::Pointer);
    }

    #[test]
    fn what_c_cannot_print_is_refused_with_the_fix() {
        for (s, says) in [
            ("?", "Debug"),
            ("b", "binary"),
            ("^5", "centre"),
            ("*<5", "spaces"),
            ("1$", "from an argument"),
            (".*", "precision must be a number"),
            (".3x", "floats"),
            ("#8x", "0x{:08x}"),
            ("8p", "{:p}"),
            ("+x", "no `+`"),
            ("<05", "alignment"),
            ("#", "only"),
            ("q", "not a format"),
        ] {
            let e = parse_spec(s).unwrap_err();
            assert!(e.contains(says), "{s}: {e}");
        }
        assert!(parse_format("{").unwrap_err().contains("unclosed"));
        assert!(parse_format("}").unwrap_err().contains("unmatched"));
        assert!(parse_format("{x y}")
            .unwrap_err()
            .contains("names no argument"));
    }
}
