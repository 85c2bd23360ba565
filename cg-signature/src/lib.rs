//! The model of a `#[kernel]` function's signature.
//!
//! One parser serves both sides of the host/device boundary: the `#[kernel]`
//! attribute macro uses it to lower a Rust function to a PTX entry point, and
//! `cg-builder` uses it to generate the typed host handle that launches that
//! entry point. Because both read the same source with the same code, the
//! arguments a host passes always match the parameters a kernel declares.
//!
//! A kernel parameter is one of:
//!
//! | Rust parameter | PTX parameters | host argument |
//! |---|---|---|
//! | `x: T` (`T: bytemuck::Pod`) | one `.param` of `size_of::<T>()` bytes | `x: T` |
//! | `x: &[T]` | `.u64` pointer, `.u64` length | `&DeviceBuffer<T>` |
//! | `x: *const T` | `.u64` pointer | `&DeviceBuffer<T>` |
//! | `x: *mut T` | `.u64` pointer | `&mut DeviceBuffer<T>` |
//!
//! Anything else (references other than `&[T]`, `&mut [T]`, trait objects,
//! `impl Trait`, patterns) is rejected with an error that points at the
//! parameter.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, Type};

/// How a kernel must be launched, from the arguments of `#[kernel(...)]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelOptions {
    /// `#[kernel(cooperative)]`: the kernel calls `grid.sync()`, so it must be
    /// launched with `cuLaunchCooperativeKernel` and a co-resident grid.
    pub cooperative: bool,
    /// `#[kernel(cluster(x, y, z))]`: thread-block cluster dimensions
    /// (sm_90 and newer); `#[kernel(cluster)]`: clusters whose shape each
    /// launch gives.
    pub cluster: Option<ClusterShape>,
}

/// The cluster shape a kernel declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterShape {
    /// Given by each launch (`LaunchConfig::with_cluster`).
    Runtime,
    /// Fixed at compile time, in blocks.
    Fixed([u32; 3]),
}

/// What crosses the host/device boundary for one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
    /// Plain-old-data passed by value.
    Value,
    /// A read-only device slice `&[T]`, passed as pointer and length.
    Slice,
    /// A read-only device pointer `*const T`.
    ConstPtr,
    /// A writable device pointer `*mut T`.
    MutPtr,
}

/// One kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its kind.
    pub kind: ParamKind,
    /// For [`ParamKind::Value`] the parameter's type; otherwise the element
    /// type behind the pointer or slice.
    pub ty: Type,
}

/// A parsed `#[kernel]` function.
#[derive(Debug, Clone)]
pub struct KernelSignature {
    /// The entry point's name, as the PTX module exports it.
    pub name: Ident,
    /// Launch requirements.
    pub options: KernelOptions,
    /// Parameters in order.
    pub params: Vec<Param>,
}

impl KernelSignature {
    /// Reads the signature of `func`, whose `#[kernel(...)]` arguments are
    /// `attr` (empty for a bare `#[kernel]`).
    pub fn parse(attr: proc_macro2::TokenStream, func: &ItemFn) -> syn::Result<Self> {
        let options = parse_options(attr)?;
        let sig = &func.sig;
        if let Some(g) = sig.generics.params.first() {
            return Err(syn::Error::new(
                g.span(),
                "a #[kernel] cannot be generic: a PTX entry point has one concrete signature",
            ));
        }
        if sig.asyncness.is_some() {
            return Err(syn::Error::new(sig.span(), "a #[kernel] cannot be async"));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            return Err(syn::Error::new(
                ty.span(),
                "a #[kernel] returns nothing: write results through a `*mut T` parameter",
            ));
        }
        let params = sig
            .inputs
            .iter()
            .map(parse_param)
            .collect::<syn::Result<Vec<_>>>()?;
        Ok(Self {
            name: sig.ident.clone(),
            options,
            params,
        })
    }
}

fn parse_options(attr: proc_macro2::TokenStream) -> syn::Result<KernelOptions> {
    let mut options = KernelOptions::default();
    if attr.is_empty() {
        return Ok(options);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("cooperative") {
            options.cooperative = true;
            Ok(())
        } else if meta.path.is_ident("cluster") {
            if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                options.cluster = Some(ClusterShape::Runtime);
                return Ok(());
            }
            let content;
            syn::parenthesized!(content in meta.input);
            let dims =
                syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated(
                    &content,
                )?;
            let mut out = [1u32; 3];
            if dims.is_empty() || dims.len() > 3 {
                return Err(meta.error("cluster takes one to three dimensions: cluster(x, y, z)"));
            }
            for (slot, lit) in out.iter_mut().zip(dims.iter()) {
                *slot = lit.base10_parse()?;
                if *slot == 0 {
                    return Err(syn::Error::new(
                        lit.span(),
                        "a cluster dimension is at least 1",
                    ));
                }
            }
            options.cluster = Some(ClusterShape::Fixed(out));
            Ok(())
        } else {
            Err(meta
                .error("unknown #[kernel] option: expected `cooperative` or `cluster(x, y, z)`"))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(options)
}

fn parse_param(arg: &FnArg) -> syn::Result<Param> {
    let typed = match arg {
        FnArg::Typed(t) => t,
        FnArg::Receiver(r) => {
            return Err(syn::Error::new(r.span(), "a #[kernel] cannot take `self`"));
        }
    };
    let name = match &*typed.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "a #[kernel] parameter must be a plain name",
            ));
        }
    };
    let (kind, ty) = classify(&typed.ty)?;
    Ok(Param { name, kind, ty })
}

fn classify(ty: &Type) -> syn::Result<(ParamKind, Type)> {
    match ty {
        Type::Reference(r) => match (&*r.elem, r.mutability) {
            (Type::Slice(s), None) => Ok((ParamKind::Slice, (*s.elem).clone())),
            (Type::Slice(_), Some(_)) => Err(err(
                ty.span(),
                "`&mut [T]` cannot be a kernel parameter: every thread would hold the same \
                 unique reference. Take `*mut T` and write each element from one thread",
            )),
            _ => Err(err(
                ty.span(),
                "a reference cannot cross to the device: take `&[T]` for a read-only slice, \
                 `*const T`/`*mut T` for a buffer, or `T: Pod` by value",
            )),
        },
        Type::Ptr(p) => {
            let kind = if p.mutability.is_some() {
                ParamKind::MutPtr
            } else {
                ParamKind::ConstPtr
            };
            Ok((kind, (*p.elem).clone()))
        }
        Type::Paren(p) => classify(&p.elem),
        Type::Path(_) | Type::Array(_) | Type::Tuple(_) => Ok((ParamKind::Value, ty.clone())),
        _ => Err(err(
            ty.span(),
            "this type cannot cross to the device: kernel parameters are `T: Pod` by value, \
             `&[T]`, `*const T` or `*mut T`",
        )),
    }
}

fn err(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(
        attr: proc_macro2::TokenStream,
        f: proc_macro2::TokenStream,
    ) -> syn::Result<KernelSignature> {
        KernelSignature::parse(attr, &syn::parse2(f).unwrap())
    }

    #[test]
    fn classifies_every_parameter_kind() {
        let k = parse(
            quote!(cooperative),
            quote!(
                pub unsafe fn k(a: &[f32], b: *const u8, c: *mut [u32; 2], d: u64, e: Pair) {}
            ),
        )
        .unwrap();
        assert_eq!(k.name, "k");
        assert!(k.options.cooperative);
        let kinds: Vec<_> = k.params.iter().map(|p| p.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Slice,
                ParamKind::ConstPtr,
                ParamKind::MutPtr,
                ParamKind::Value,
                ParamKind::Value
            ]
        );
        let ty = &k.params[2].ty;
        assert_eq!(quote!(#ty).to_string(), "[u32 ; 2]");
    }

    #[test]
    fn reads_cluster_dimensions() {
        let k = parse(
            quote!(cluster(2)),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert_eq!(k.options.cluster, Some(ClusterShape::Fixed([2, 1, 1])));
        let k = parse(
            quote!(cooperative, cluster(2, 2, 1)),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert_eq!(k.options.cluster, Some(ClusterShape::Fixed([2, 2, 1])));
        assert!(k.options.cooperative);
        let k = parse(
            quote!(cluster, cooperative),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert_eq!(k.options.cluster, Some(ClusterShape::Runtime));
        assert!(k.options.cooperative);
    }

    #[test]
    fn rejects_what_cannot_cross() {
        for (f, msg) in [
            (
                quote!(
                    fn k(x: &mut [f32]) {}
                ),
                "every thread would hold",
            ),
            (
                quote!(
                    fn k(x: &u32) {}
                ),
                "a reference cannot cross",
            ),
            (
                quote!(
                    fn k(x: impl Copy) {}
                ),
                "cannot cross to the device",
            ),
            (
                quote!(
                    fn k<T>(x: T) {}
                ),
                "cannot be generic",
            ),
            (
                quote!(
                    fn k() -> u32 {
                        0
                    }
                ),
                "returns nothing",
            ),
            (
                quote!(
                    fn k((a, b): (u32, u32)) {}
                ),
                "plain name",
            ),
        ] {
            let e = parse(quote!(), f).unwrap_err().to_string();
            assert!(e.contains(msg), "{e}");
        }
        let e = parse(
            quote!(grid),
            quote!(
                fn k() {}
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown #[kernel] option"), "{e}");
        let e = parse(
            quote!(cluster(0)),
            quote!(
                fn k() {}
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("at least 1"), "{e}");
    }
}
