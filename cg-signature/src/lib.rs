//! The model of a `#[kernel]` function's signature, and the record of it
//! that travels in the compiled PTX.
//!
//! The `#[kernel]` attribute macro parses a kernel function with
//! [`KernelDecl::parse`], lowers each of its entry points
//! ([`KernelDecl::entries`]) to a PTX entry point, and writes each entry
//! point's [`KernelSignature`] into the entry itself as a comment
//! ([`record`]). `cg-builder` reads those records back from the PTX it built
//! and generates the typed host handles from them. Both sides use this
//! crate, so the arguments a host passes always match the parameters a
//! kernel declares, and whatever made the kernel (a macro, a generic
//! function and its instances) the builder sees what was compiled.
//!
//! A kernel parameter is one of:
//!
//! | Rust parameter | PTX parameters | host argument |
//! |---|---|---|
//! | `x: T` (`T: bytemuck::Pod`) | one `.param` of `size_of::<T>()` bytes | `x: T` |
//! | `x: &[T]` | `.u64` pointer, `.u64` length | `&DeviceBuffer<T>` |
//! | `x: *const T` | `.u64` pointer | `&DeviceBuffer<T>` |
//! | `x: *mut T` | `.u64` pointer | `&mut DeviceBuffer<T>` |
//! | `x: Output<T>`, `x: Synced<T>`, `x: AtomicSlice<T>` (cg-core's buffer views) | `.u64` pointer, `.u64` length | `&mut DeviceBuffer<T>` |
//! | `x: Indices<I>` (cg-core's checked index values) | `.u64` pointer, `.u64` length, `.u64` bound | `&IndexBuffer<I>` |
//!
//! A buffer view is recognised by the last segment of its path (`Output`,
//! `Synced`, `AtomicSlice`, also written `cg_core::output::Output<T>`); its
//! first type argument is the element type.
//!
//! Anything else (references other than `&[T]`, `&mut [T]`, trait objects,
//! `impl Trait`, patterns) is rejected with an error that points at the
//! parameter.
//!
//! A generic kernel lists its instances, CUDA's explicit template
//! instantiation: `#[kernel(instances(k_f32 = <f32, 32>, k_u32 = <u32,
//! 64>))] fn k<T: Pod, const N: usize>(..)` has two entry points, `k_f32`
//! and `k_u32`, each with its generic parameters replaced by the instance's
//! arguments.

pub mod record;

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, ItemFn, Pat, Type};

/// How a kernel must be launched, from the arguments of `#[kernel(...)]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelOptions {
    /// `#[kernel(cooperative)]`: the kernel calls `grid.sync()`, so it must be
    /// launched with `cuLaunchCooperativeKernel` and a co-resident grid.
    pub cooperative: bool,
    /// `#[kernel(multi_grid)]`: the kernel calls `multi_grid.sync()`, so it
    /// runs on every GPU of a set at once (the host's `GpuSet::launch`),
    /// each grid launched cooperatively. Implies `cooperative`.
    pub multi_grid: bool,
    /// `#[kernel(cluster(x, y, z))]`: thread-block cluster dimensions
    /// (sm_90 and newer); `#[kernel(cluster)]`: clusters whose shape each
    /// launch gives.
    pub cluster: Option<ClusterShape>,
    /// `#[kernel(grid_1d)]`: every launch is one row of blocks (`gridDim.y
    /// == gridDim.z == 1`, checked by the host before each launch), so the
    /// kernel computes block ranks from `blockIdx.x` alone.
    pub grid_1d: bool,
    /// `#[kernel(launch_bounds(max_threads, min_blocks_per_sm))]`: CUDA's
    /// `__launch_bounds__`.
    pub launch_bounds: Option<LaunchBounds>,
    /// `#[kernel(block_size(x, y, z))]`: every launch's block has exactly
    /// this shape (PTX's `.reqntid`, checked by the host before each
    /// launch), so `blockDim` is a constant in the kernel and its block
    /// sizes, ranks and loops over them fold at compile time.
    pub block_size: Option<[u32; 3]>,
}

/// What `#[kernel(launch_bounds(..))]` promises the PTX compiler, as CUDA's
/// `__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor)`:
/// PTX's `.maxntid` and `.minnctapersm` on the entry point. `ptxas` then
/// allots registers so that `min_blocks_per_sm` blocks of `max_threads`
/// fit on one multiprocessor (spilling if it must), and the host refuses
/// a launch of larger blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchBounds {
    /// The most threads any launch's block has (`.maxntid`), 1 to 1024.
    pub max_threads: u32,
    /// Blocks of `max_threads` the compiler keeps room for on one
    /// multiprocessor (`.minnctapersm`), when given.
    pub min_blocks_per_sm: Option<u32>,
}

/// Threads one multiprocessor holds on sm_80 and sm_90, the architectures
/// the builder compiles for: `launch_bounds` may not ask for more.
const THREADS_PER_SM: u32 = 2048;

/// The cluster shape a kernel declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterShape {
    /// Given by each launch (`LaunchConfig::with_cluster`).
    Runtime,
    /// Fixed at compile time, in blocks.
    Fixed([u32; 3]),
}

/// What crosses the host/device boundary for one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Plain-old-data passed by value.
    Value,
    /// A value every thread of the grid holds alike (cg-core's
    /// `Uniform<T>`): passed by value as `T`, and made a `Uniform<T>` in
    /// the kernel.
    Uniform,
    /// A read-only device slice `&[T]`, passed as pointer and length.
    Slice,
    /// A read-only device pointer `*const T`.
    ConstPtr,
    /// A writable device pointer `*mut T`.
    MutPtr,
    /// A buffer view of cg-core (`Output<T>`, `Synced<T>`,
    /// `AtomicSlice<T>`), passed as pointer and length.
    Buffer,
    /// Read-only index values that the host checked against a bound
    /// (cg-core's `Indices<I>`), passed as pointer, length and bound.
    Indices,
}

/// The names of cg-core's buffer views a `#[kernel]` parameter may have.
pub const BUFFER_VIEWS: [&str; 3] = ["Output", "Synced", "AtomicSlice"];

/// The name of cg-core's uniform value a `#[kernel]` parameter may have
/// (`n: Uniform<u32>`: the host passes a `u32`).
pub const UNIFORM_VALUE: &str = "Uniform";

/// The name of cg-core's checked index view a `#[kernel]` parameter may
/// have.
pub const INDEX_VIEW: &str = "Indices";

/// One kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its kind.
    pub kind: ParamKind,
    /// For [`ParamKind::Value`] the parameter's type; for
    /// [`ParamKind::Uniform`] the type of the value; otherwise the element
    /// type behind the pointer, slice or buffer view.
    pub ty: Type,
}

impl Param {
    /// The parameters of the PTX entry point for this one: `name: T`,
    /// `name: *const T`, `name: *mut T`, or a slice's `ptr` and `len` (whose
    /// names the caller gives), with an index view's bound after them, named
    /// by [`Param::bound_name`].
    pub fn ptx_params(&self, slice_ptr: &Ident, slice_len: &Ident) -> TokenStream {
        let (name, ty) = (&self.name, &self.ty);
        match self.kind {
            ParamKind::Value | ParamKind::Uniform => quote!(#name: #ty),
            ParamKind::ConstPtr => quote!(#name: *const #ty),
            ParamKind::MutPtr => quote!(#name: *mut #ty),
            ParamKind::Slice => quote!(#slice_ptr: *const #ty, #slice_len: usize),
            // Never null (the host allocates at least one byte): saying so
            // lets the compiler drop the null test of every `Option<&mut T>`
            // a buffer view hands out.
            ParamKind::Buffer => {
                quote!(#slice_ptr: ::core::ptr::NonNull<#ty>, #slice_len: usize)
            }
            ParamKind::Indices => {
                let bound = self.bound_name();
                quote!(#slice_ptr: ::core::ptr::NonNull<#ty>, #slice_len: usize, #bound: usize)
            }
        }
    }

    /// The name of an index view's bound parameter in the PTX entry point.
    pub fn bound_name(&self) -> Ident {
        quote::format_ident!("__{}_bound", self.name)
    }
}

/// One PTX entry point: its name, launch options and parameters, every type
/// concrete.
#[derive(Debug, Clone)]
pub struct KernelSignature {
    /// The entry point's name, as the PTX module exports it.
    pub name: Ident,
    /// Launch requirements.
    pub options: KernelOptions,
    /// Parameters in order.
    pub params: Vec<Param>,
}

/// A generic parameter of a kernel function.
#[derive(Debug, Clone)]
pub enum GenericParam {
    /// `T`.
    Type(Ident),
    /// `const N: usize`.
    Const(Ident),
}

impl GenericParam {
    fn ident(&self) -> &Ident {
        match self {
            GenericParam::Type(i) | GenericParam::Const(i) => i,
        }
    }

    /// What stands for this parameter once `arg` is given: a type as one
    /// token (an invisible group keeps `&T` with `T = dyn X + Y` one type),
    /// a const value as written (a literal, a path or a block).
    fn replacement(&self, arg: &TokenStream) -> TokenStream {
        match self {
            GenericParam::Type(_) => {
                TokenTree::Group(Group::new(Delimiter::None, arg.clone())).into()
            }
            GenericParam::Const(_) => arg.clone(),
        }
    }
}

/// One instance of a generic kernel: `name = <f32, 32>`.
#[derive(Debug, Clone)]
pub struct Instance {
    /// The entry point's name.
    pub name: Ident,
    /// The generic arguments, one per generic parameter, in order (types
    /// and const values).
    pub args: Vec<TokenStream>,
    /// Where the instance is written, for errors about it.
    pub span: Span,
    /// The entry point: the kernel's signature with the arguments in place
    /// of the parameters.
    pub signature: KernelSignature,
}

impl Instance {
    /// The arguments as Rust writes them after the function's name:
    /// `<f32, 32>`.
    pub fn generic_args(&self) -> TokenStream {
        let args = &self.args;
        quote!(<#(#args),*>)
    }

    /// The instance as Rust would name it: `k::<f32, 32>`.
    pub fn describe(&self, function: &Ident) -> String {
        let args: Vec<String> = self.args.iter().map(record::type_text).collect();
        format!("{function}::<{}>", args.join(", "))
    }
}

/// What one `#[kernel]` declares: a function and its entry points (one for
/// a plain kernel, one per instance for a generic one).
#[derive(Debug, Clone)]
pub struct KernelDecl {
    /// The Rust function's name (a plain kernel's entry point has it).
    pub ident: Ident,
    /// Launch requirements, shared by every entry point.
    pub options: KernelOptions,
    /// The parameters as declared (their types may name generic
    /// parameters).
    pub params: Vec<Param>,
    /// The function's generic parameters, in order.
    pub generics: Vec<GenericParam>,
    /// The instances of a generic kernel (empty for a plain one).
    pub instances: Vec<Instance>,
}

impl KernelDecl {
    /// Reads `func`, whose `#[kernel(...)]` arguments are `attr` (empty for
    /// a bare `#[kernel]`).
    pub fn parse(attr: TokenStream, func: &ItemFn) -> syn::Result<Self> {
        let (options, instances) = parse_options(attr)?;
        let sig = &func.sig;
        if sig.asyncness.is_some() {
            return Err(syn::Error::new(sig.span(), "a #[kernel] cannot be async"));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            return Err(syn::Error::new(
                ty.span(),
                "a #[kernel] returns nothing: write results through an `Output<T>` parameter",
            ));
        }
        let generics = sig
            .generics
            .params
            .iter()
            .map(|g| match g {
                syn::GenericParam::Type(t) => Ok(GenericParam::Type(t.ident.clone())),
                syn::GenericParam::Const(c) => Ok(GenericParam::Const(c.ident.clone())),
                syn::GenericParam::Lifetime(l) => Err(syn::Error::new(
                    l.span(),
                    "a #[kernel] takes no lifetime parameters: its parameters live for the whole launch",
                )),
            })
            .collect::<syn::Result<Vec<_>>>()?;
        let params = sig
            .inputs
            .iter()
            .map(parse_param)
            .collect::<syn::Result<Vec<_>>>()?;
        let mut decl = Self {
            ident: sig.ident.clone(),
            options,
            params,
            generics,
            instances: Vec::new(),
        };
        decl.instances = decl.instantiate(instances, &sig.generics)?;
        Ok(decl)
    }

    /// Whether the function is generic (its entry points are its instances).
    pub fn is_generic(&self) -> bool {
        !self.generics.is_empty()
    }

    /// The entry points: the function itself for a plain kernel, every
    /// instance for a generic one.
    pub fn entries(&self) -> Vec<KernelSignature> {
        if self.is_generic() {
            self.instances.iter().map(|i| i.signature.clone()).collect()
        } else {
            vec![KernelSignature {
                name: self.ident.clone(),
                options: self.options.clone(),
                params: self.params.clone(),
            }]
        }
    }

    /// Checks the instances written in `instances(..)` against the generic
    /// parameters and substitutes their arguments.
    fn instantiate(
        &self,
        written: Option<(Span, Vec<WrittenInstance>)>,
        generics: &syn::Generics,
    ) -> syn::Result<Vec<Instance>> {
        let f = &self.ident;
        let Some((span, written)) = written else {
            if self.is_generic() {
                return Err(syn::Error::new_spanned(
                    generics,
                    format!(
                        "a generic #[kernel] lists its instances, each a PTX entry point with its own \
                         host handle: #[kernel(instances({f}_a = <..>, {f}_b = <..>))]"
                    ),
                ));
            }
            return Ok(Vec::new());
        };
        if !self.is_generic() {
            return Err(syn::Error::new(
                span,
                format!("instances(..) lists the instances of a generic #[kernel]; `{f}` has no generic parameters"),
            ));
        }
        if written.is_empty() {
            return Err(syn::Error::new(
                span,
                "instances(..) lists at least one instance",
            ));
        }
        let names: Vec<String> = self
            .generics
            .iter()
            .map(|g| g.ident().to_string())
            .collect();
        let mut out: Vec<Instance> = Vec::new();
        for w in written {
            if w.name == *f {
                return Err(syn::Error::new(
                    w.name.span(),
                    format!(
                        "an instance cannot be named `{f}`: the generic function has that name"
                    ),
                ));
            }
            if out.iter().any(|i| i.name == w.name) {
                return Err(syn::Error::new(
                    w.name.span(),
                    format!(
                        "two instances are named `{}`: PTX entry points share one namespace",
                        w.name
                    ),
                ));
            }
            let given = w.args.args.len();
            if given != self.generics.len() {
                return Err(syn::Error::new_spanned(
                    &w.args,
                    format!(
                        "`{f}` has {} generic parameter{} (<{}>), but the instance `{}` gives {given}",
                        self.generics.len(),
                        if self.generics.len() == 1 { "" } else { "s" },
                        names.join(", "),
                        w.name
                    ),
                ));
            }
            let args = self
                .generics
                .iter()
                .zip(&w.args.args)
                .map(|(g, a)| generic_arg(g, a))
                .collect::<syn::Result<Vec<_>>>()?;
            let map: Vec<(&Ident, TokenStream)> = self
                .generics
                .iter()
                .zip(&args)
                .map(|(g, a)| (g.ident(), g.replacement(a)))
                .collect();
            let params = self
                .params
                .iter()
                .map(|p| {
                    Ok(Param {
                        ty: substitute_type(&p.ty, &map)?,
                        ..p.clone()
                    })
                })
                .collect::<syn::Result<Vec<_>>>()?;
            out.push(Instance {
                signature: KernelSignature {
                    name: w.name.clone(),
                    options: self.options.clone(),
                    params,
                },
                name: w.name,
                span: w.args.span(),
                args,
            });
        }
        Ok(out)
    }
}

/// `name = <args>` as written in `instances(..)`.
struct WrittenInstance {
    name: Ident,
    args: syn::AngleBracketedGenericArguments,
}

impl syn::parse::Parse for WrittenInstance {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        if !input.peek(syn::Token![<]) {
            return Err(input.error(
                "an instance gives its generic arguments in angle brackets: `name = <f32, 32>`",
            ));
        }
        Ok(Self {
            name,
            args: input.parse()?,
        })
    }
}

/// The tokens of argument `a` for generic parameter `g`, or why it does not
/// fit.
fn generic_arg(g: &GenericParam, a: &GenericArgument) -> syn::Result<TokenStream> {
    match (g, a) {
        (GenericParam::Type(_), GenericArgument::Type(t)) => Ok(t.to_token_stream()),
        (GenericParam::Type(p), other) => Err(syn::Error::new_spanned(
            other,
            format!("`{p}` is a type parameter: give a type"),
        )),
        (GenericParam::Const(_), GenericArgument::Const(e)) => Ok(match e {
            syn::Expr::Lit(_) | syn::Expr::Path(_) | syn::Expr::Block(_) => e.to_token_stream(),
            other => quote!({ #other }),
        }),
        // `N = SOME_CONST` parses as a type: a path names the constant
        // (unless it names a primitive type).
        (GenericParam::Const(_), GenericArgument::Type(Type::Path(p)))
            if p.qself.is_none() && !is_primitive(&p.path) =>
        {
            Ok(p.to_token_stream())
        }
        (GenericParam::Const(p), other) => Err(syn::Error::new_spanned(
            other,
            format!("`{p}` is a const parameter: give a value, such as `32` or `{{ 2 * 16 }}`"),
        )),
    }
}

/// Whether `path` names one of Rust's primitive types.
fn is_primitive(path: &syn::Path) -> bool {
    const PRIMITIVES: [&str; 17] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "bool", "char", "str",
    ];
    path.get_ident()
        .is_some_and(|i| PRIMITIVES.iter().any(|p| i == p))
}

/// `ty` with every generic parameter of `map` replaced by its argument.
fn substitute_type(ty: &Type, map: &[(&Ident, TokenStream)]) -> syn::Result<Type> {
    let tokens = substitute(ty.to_token_stream(), map)?;
    syn::parse2(tokens)
}

fn substitute(ts: TokenStream, map: &[(&Ident, TokenStream)]) -> syn::Result<TokenStream> {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let punct =
        |i: usize, c: char| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut out = TokenStream::new();
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), substitute(g.stream(), map)?);
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            TokenTree::Ident(id) => {
                // Not a segment after `::` (`other::T`), nor a lifetime.
                let inside_path = i >= 1 && (punct(i - 1, ':') || punct(i - 1, '\''));
                match map.iter().find(|(p, _)| *p == id) {
                    Some((p, value)) if !inside_path => {
                        if punct(i + 1, ':') && punct(i + 2, ':') {
                            return Err(syn::Error::new(
                                id.span(),
                                format!(
                                    "a #[kernel] parameter's type names `{p}` only whole (`{p}`, `&[{p}]`, \
                                     `[{p}; 4]`): the host handle needs a concrete type, and `{p}::..` \
                                     is known only to the compiler"
                                ),
                            ));
                        }
                        out.extend(value.clone());
                    }
                    _ => out.extend([tt.clone()]),
                }
            }
            _ => out.extend([tt.clone()]),
        }
    }
    Ok(out)
}

type WrittenInstances = Option<(Span, Vec<WrittenInstance>)>;

fn parse_options(attr: TokenStream) -> syn::Result<(KernelOptions, WrittenInstances)> {
    let mut options = KernelOptions::default();
    let mut instances = None;
    if attr.is_empty() {
        return Ok((options, instances));
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("cooperative") {
            options.cooperative = true;
            Ok(())
        } else if meta.path.is_ident("multi_grid") {
            options.multi_grid = true;
            options.cooperative = true;
            Ok(())
        } else if meta.path.is_ident("cluster") {
            if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                options.cluster = Some(ClusterShape::Runtime);
                return Ok(());
            }
            let dims = parse_literals(
                &meta,
                3,
                "cluster takes one to three dimensions: cluster(x, y, z)",
            )?;
            let mut out = [1u32; 3];
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
        } else if meta.path.is_ident("grid_1d") {
            options.grid_1d = true;
            Ok(())
        } else if meta.path.is_ident("launch_bounds") {
            options.launch_bounds = Some(parse_launch_bounds(&meta)?);
            Ok(())
        } else if meta.path.is_ident("block_size") {
            options.block_size = Some(parse_block_size(&meta)?);
            Ok(())
        } else if meta.path.is_ident("instances") {
            let span = meta.path.span();
            if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                return Err(
                    meta.error("instances(..) lists the instances: instances(k_f32 = <f32>, ..)")
                );
            }
            let content;
            syn::parenthesized!(content in meta.input);
            let list =
                syn::punctuated::Punctuated::<WrittenInstance, syn::Token![,]>::parse_terminated(
                    &content,
                )?;
            instances = Some((span, list.into_iter().collect()));
            Ok(())
        } else {
            Err(meta.error(
                "unknown #[kernel] option: expected `cooperative`, `multi_grid`, `cluster(x, y, z)`, `grid_1d`, `launch_bounds(max_threads, min_blocks_per_sm)`, `block_size(x, y, z)` or `instances(..)`",
            ))
        }
    });
    syn::parse::Parser::parse2(parser, attr.clone())?;
    if options.multi_grid && options.cluster.is_some() {
        return Err(syn::Error::new(
            attr.span(),
            "a #[kernel(multi_grid)] kernel runs without thread-block clusters: drop `cluster`",
        ));
    }
    if let (true, Some(ClusterShape::Fixed([_, y, z]))) = (options.grid_1d, options.cluster) {
        if y != 1 || z != 1 {
            return Err(syn::Error::new(
                attr.span(),
                "a #[kernel(grid_1d)] grid is one row of blocks, so its clusters are one row too: \
                 cluster(x)",
            ));
        }
    }
    if let (Some(shape), Some(bounds)) = (options.block_size, options.launch_bounds) {
        let threads = shape.iter().product::<u32>();
        if bounds.max_threads != threads {
            return Err(syn::Error::new(
                attr.span(),
                format!(
                    "block_size({}, {}, {}) fixes every block at {threads} threads, but \
                     launch_bounds({}, ..) says at most {}: give launch_bounds({threads}, ..) \
                     (to ask for blocks per multiprocessor) or leave it out",
                    shape[0], shape[1], shape[2], bounds.max_threads, bounds.max_threads
                ),
            ));
        }
    }
    Ok((options, instances))
}

/// `block_size(x)`, `block_size(x, y)` or `block_size(x, y, z)` (missing
/// dimensions are 1), checked against CUDA's limits on a block: at most
/// 1024 threads, 1024 along x and y and 64 along z.
fn parse_block_size(meta: &syn::meta::ParseNestedMeta) -> syn::Result<[u32; 3]> {
    let dims = parse_literals(
        meta,
        3,
        "block_size takes the shape every launch's block has, one to three dimensions: \
         block_size(256) or block_size(32, 8)",
    )?;
    let mut shape = [1u32; 3];
    for ((slot, lit), most) in shape.iter_mut().zip(dims.iter()).zip([1024, 1024, 64]) {
        *slot = lit.base10_parse()?;
        if !(1..=most).contains(slot) {
            return Err(syn::Error::new(
                lit.span(),
                format!("a block dimension here takes a value in 1..={most} (CUDA's limit)"),
            ));
        }
    }
    let threads = shape.iter().map(|&d| u64::from(d)).product::<u64>();
    if threads > 1024 {
        return Err(syn::Error::new(
            dims.span(),
            format!(
                "a block has at most 1024 threads, but block_size({}, {}, {}) is {threads}",
                shape[0], shape[1], shape[2]
            ),
        ));
    }
    Ok(shape)
}

/// The one to `most` integer literals of an option's parentheses
/// (`cluster(x, y, z)`, `block_size(x, y, z)`, `launch_bounds(t, b)`), for
/// the caller to read and check; `usage` is the error for no parentheses
/// or a count outside 1..=`most`.
fn parse_literals(
    meta: &syn::meta::ParseNestedMeta,
    most: usize,
    usage: &str,
) -> syn::Result<syn::punctuated::Punctuated<syn::LitInt, syn::Token![,]>> {
    if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
        return Err(meta.error(usage));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let literals =
        syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated(&content)?;
    if literals.is_empty() || literals.len() > most {
        return Err(meta.error(usage));
    }
    Ok(literals)
}

/// `launch_bounds(max_threads)` or `launch_bounds(max_threads,
/// min_blocks_per_sm)`, checked against what one block and one
/// multiprocessor hold.
fn parse_launch_bounds(meta: &syn::meta::ParseNestedMeta) -> syn::Result<LaunchBounds> {
    const USAGE: &str = "launch_bounds takes the most threads a block has and, optionally, the \
                         blocks per multiprocessor to make room for: launch_bounds(512) or \
                         launch_bounds(512, 3)";
    let args = parse_literals(meta, 2, USAGE)?;
    let values: Vec<(u32, Span)> = args
        .iter()
        .map(|lit| Ok((lit.base10_parse::<u32>()?, lit.span())))
        .collect::<syn::Result<_>>()?;
    let (max_threads, min_blocks) = match values[..] {
        [t] => (t, None),
        [t, b] => (t, Some(b)),
        _ => return Err(meta.error(USAGE)),
    };
    if !(1..=1024).contains(&max_threads.0) {
        return Err(syn::Error::new(
            max_threads.1,
            "a block has 1 to 1024 threads: launch_bounds(max_threads) takes a value in 1..=1024",
        ));
    }
    if let Some((blocks, at)) = min_blocks {
        if blocks == 0 {
            return Err(syn::Error::new(
                at,
                "min_blocks_per_sm is at least 1 (leave it out to ask for no occupancy)",
            ));
        }
        let threads = u64::from(blocks) * u64::from(max_threads.0);
        if threads > u64::from(THREADS_PER_SM) {
            return Err(syn::Error::new(
                at,
                format!(
                    "{blocks} blocks of {} threads are {threads} threads, but a multiprocessor \
                     holds {THREADS_PER_SM}: ask for at most {} blocks",
                    max_threads.0,
                    THREADS_PER_SM / max_threads.0
                ),
            ));
        }
    }
    Ok(LaunchBounds {
        max_threads: max_threads.0,
        min_blocks_per_sm: min_blocks.map(|b| b.0),
    })
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
                 unique reference. Take `Output<T>` (each element written by its owner) or \
                 `AtomicSlice<T>` (updated atomically)",
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
        // A type a `macro_rules!` macro passes as `$t:ty`.
        Type::Group(g) => classify(&g.elem),
        Type::Path(p) => match buffer_element(p)? {
            Some((kind, elem)) => Ok((kind, elem)),
            None => match uniform_value(p)? {
                Some(value) => Ok((ParamKind::Uniform, value)),
                None => Ok((ParamKind::Value, ty.clone())),
            },
        },
        Type::Array(_) | Type::Tuple(_) => Ok((ParamKind::Value, ty.clone())),
        _ => Err(err(
            ty.span(),
            "this type cannot cross to the device: kernel parameters are `T: Pod` by value, \
             `&[T]`, `*const T`, `*mut T`, a buffer view (`Output<T>`, `Synced<T>`, `AtomicSlice<T>`) \
             or checked index values (`Indices<I>`)",
        )),
    }
}

/// The kind and element type of a buffer view (`Output<T>`, `Synced<T>`,
/// `AtomicSlice<T, S>`) or of an index view (`Indices<I>`), `None` for any
/// other path.
fn buffer_element(p: &syn::TypePath) -> syn::Result<Option<(ParamKind, Type)>> {
    let Some(last) = p.path.segments.last() else {
        return Ok(None);
    };
    let kind = if last.ident == INDEX_VIEW {
        ParamKind::Indices
    } else if BUFFER_VIEWS.iter().any(|v| last.ident == v) {
        ParamKind::Buffer
    } else {
        return Ok(None);
    };
    if p.qself.is_some() {
        return Ok(None);
    }
    let elem = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        }),
        _ => None,
    };
    match elem {
        Some(t) => Ok(Some((kind, t))),
        None if kind == ParamKind::Indices => Err(err(
            p.span(),
            "`Indices` holds index values: give their type, as in `Indices<u32>`",
        )),
        None => Err(err(
            p.span(),
            &format!(
                "`{}` is a buffer view: give its element type, as in `{}<f32>`",
                last.ident, last.ident
            ),
        )),
    }
}

/// The value type of a uniform value (`Uniform<T>`), `None` for any other
/// path.
fn uniform_value(p: &syn::TypePath) -> syn::Result<Option<Type>> {
    let Some(last) = p.path.segments.last() else {
        return Ok(None);
    };
    if last.ident != UNIFORM_VALUE || p.qself.is_some() {
        return Ok(None);
    }
    let value = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        }),
        _ => None,
    };
    value.map(Some).ok_or_else(|| {
        err(
            p.span(),
            "`Uniform` holds a value every thread shares: give its type, as in `Uniform<u32>`",
        )
    })
}

fn err(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(attr: TokenStream, f: TokenStream) -> syn::Result<KernelDecl> {
        KernelDecl::parse(attr, &syn::parse2(f).unwrap())
    }

    fn text(ty: &Type) -> String {
        record::type_text(&ty.to_token_stream())
    }

    #[test]
    fn classifies_every_parameter_kind() {
        let k = parse(
            quote!(cooperative),
            quote!(
                pub unsafe fn k(
                    a: &[f32],
                    b: *const u8,
                    c: *mut [u32; 2],
                    d: u64,
                    e: Pair,
                    f: Output<f32>,
                    g: cg_core::Synced<[u8; 4]>,
                    h: AtomicSlice<u32, System>,
                    i: Outputs<f32>,
                    j: Indices<u32>,
                ) {
                }
            ),
        )
        .unwrap();
        let [sig] = &k.entries()[..] else {
            panic!("one entry")
        };
        assert_eq!(sig.name, "k");
        assert!(sig.options.cooperative);
        let kinds: Vec<_> = sig.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Slice,
                ParamKind::ConstPtr,
                ParamKind::MutPtr,
                ParamKind::Value,
                ParamKind::Value,
                ParamKind::Buffer,
                ParamKind::Buffer,
                ParamKind::Buffer,
                ParamKind::Value,
                ParamKind::Indices
            ]
        );
        assert_eq!(text(&sig.params[9].ty), "u32");
        assert_eq!(text(&sig.params[2].ty), "[u32;2]");
        let elems: Vec<String> = sig.params[5..8].iter().map(|p| text(&p.ty)).collect();
        assert_eq!(elems, ["f32", "[u8;4]", "u32"]);
    }

    #[test]
    fn a_type_a_macro_passes_is_classified_as_written() {
        let ty = |t: TokenStream| -> TokenStream {
            TokenTree::Group(Group::new(Delimiter::None, t)).into()
        };
        let (u, pair) = (ty(quote!(u32)), ty(quote!([u16; 2])));
        let k = parse(
            quote!(),
            quote!(
                fn k(a: #u, b: *mut #pair, c: &[#u]) {}
            ),
        )
        .unwrap();
        let kinds: Vec<_> = k.params.iter().map(|p| (p.kind, text(&p.ty))).collect();
        assert_eq!(
            kinds,
            [
                (ParamKind::Value, "u32".to_string()),
                (ParamKind::MutPtr, "[u16;2]".to_string()),
                (ParamKind::Slice, "u32".to_string())
            ]
        );
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
    fn grid_1d_is_recorded_and_refuses_clusters_of_several_rows() {
        let k = parse(
            quote!(cooperative, grid_1d),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert!(k.options.grid_1d && k.options.cooperative);
        let entry = &k.entries()[0];
        let text = record::comment(entry, None, 3, "x.rs");
        assert!(text.contains(" grid_1d=1 "), "{text}");
        let back = record::decode(&text).unwrap().unwrap();
        assert!(back.signature.options.grid_1d);
        let plain = parse(
            quote!(),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert!(!record::comment(&plain.entries()[0], None, 3, "x.rs").contains("grid_1d"));
        assert!(parse(
            quote!(grid_1d, cluster(4)),
            quote!(
                fn k() {}
            )
        )
        .is_ok());
        let e = parse(
            quote!(grid_1d, cluster(2, 2, 1)),
            quote!(
                fn k() {}
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("its clusters are one row too"), "{e}");
    }

    #[test]
    fn launch_bounds_are_recorded_and_checked() {
        let kernel = |attr: TokenStream| {
            parse(
                attr,
                quote!(
                    fn k() {}
                ),
            )
        };
        for (attr, bounds, field) in [
            (
                quote!(launch_bounds(512)),
                (512, None),
                " launch_bounds=512 ",
            ),
            (
                quote!(cooperative, launch_bounds(512, 3)),
                (512, Some(3)),
                " launch_bounds=512,3 ",
            ),
            (
                quote!(launch_bounds(1024, 2)),
                (1024, Some(2)),
                " launch_bounds=1024,2 ",
            ),
        ] {
            let k = kernel(attr).unwrap();
            let b = k.options.launch_bounds.unwrap();
            assert_eq!((b.max_threads, b.min_blocks_per_sm), bounds);
            let text = record::comment(&k.entries()[0], None, 3, "x.rs");
            assert!(text.contains(field), "{text}");
            let back = record::decode(&text).unwrap().unwrap();
            assert_eq!(back.signature.options, k.options);
        }
        let plain = kernel(quote!()).unwrap();
        assert_eq!(plain.options.launch_bounds, None);
        assert!(!record::comment(&plain.entries()[0], None, 3, "x.rs").contains("launch_bounds"));
        for (attr, message) in [
            (quote!(launch_bounds), "launch_bounds(512, 3)"),
            (quote!(launch_bounds()), "launch_bounds(512, 3)"),
            (quote!(launch_bounds(1, 2, 3)), "launch_bounds(512, 3)"),
            (quote!(launch_bounds(0)), "takes a value in 1..=1024"),
            (quote!(launch_bounds(1025)), "takes a value in 1..=1024"),
            (
                quote!(launch_bounds(256, 0)),
                "min_blocks_per_sm is at least 1",
            ),
            (
                quote!(launch_bounds(1024, 3)),
                "3 blocks of 1024 threads are 3072 threads, but a multiprocessor holds 2048: ask \
                 for at most 2 blocks",
            ),
            (quote!(launch_bounds(-4)), "invalid digit"),
        ] {
            let e = kernel(attr.clone()).unwrap_err().to_string();
            assert!(e.contains(message), "{attr}: {e}");
        }
        for broken in [
            "cg-kernel v1 name=k cooperative=0 cluster=none launch_bounds= at=1:x.rs",
            "cg-kernel v1 name=k cooperative=0 cluster=none launch_bounds=5,x at=1:x.rs",
            "cg-kernel v1 name=k cooperative=0 cluster=none launch_bounds=5,1,1 at=1:x.rs",
        ] {
            let e = record::decode(broken).unwrap().unwrap_err();
            assert!(e.contains("launch_bounds `"), "{e}");
        }
    }

    #[test]
    fn block_size_is_recorded_and_checked() {
        let kernel = |attr: TokenStream| {
            parse(
                attr,
                quote!(
                    fn k() {}
                ),
            )
        };
        for (attr, shape, field) in [
            (quote!(block_size(256)), [256, 1, 1], " block_size=256,1,1 "),
            (
                quote!(grid_1d, block_size(32, 8)),
                [32, 8, 1],
                " block_size=32,8,1 ",
            ),
            (
                quote!(block_size(8, 8, 16), launch_bounds(1024, 2)),
                [8, 8, 16],
                " block_size=8,8,16 ",
            ),
        ] {
            let k = kernel(attr).unwrap();
            assert_eq!(k.options.block_size, Some(shape));
            let text = record::comment(&k.entries()[0], None, 3, "x.rs");
            assert!(text.contains(field), "{text}");
            let back = record::decode(&text).unwrap().unwrap();
            assert_eq!(back.signature.options, k.options);
        }
        let plain = kernel(quote!()).unwrap();
        assert_eq!(plain.options.block_size, None);
        assert!(!record::comment(&plain.entries()[0], None, 3, "x.rs").contains("block_size"));
        for (attr, message) in [
            (quote!(block_size), "block_size(256) or block_size(32, 8)"),
            (quote!(block_size()), "block_size(256) or block_size(32, 8)"),
            (
                quote!(block_size(1, 2, 3, 4)),
                "block_size(256) or block_size(32, 8)",
            ),
            (quote!(block_size(0)), "takes a value in 1..=1024"),
            (quote!(block_size(2048)), "takes a value in 1..=1024"),
            (quote!(block_size(1, 1, 65)), "takes a value in 1..=64"),
            (
                quote!(block_size(64, 32)),
                "a block has at most 1024 threads, but block_size(64, 32, 1) is 2048",
            ),
            (
                quote!(block_size(256), launch_bounds(512, 2)),
                "block_size(256, 1, 1) fixes every block at 256 threads, but launch_bounds(512, \
                 ..) says at most 512: give launch_bounds(256, ..)",
            ),
            (quote!(block_size(-1)), "invalid digit"),
        ] {
            let e = kernel(attr.clone()).unwrap_err().to_string();
            assert!(e.contains(message), "{attr}: {e}");
        }
        for broken in [
            "cg-kernel v1 name=k cooperative=0 cluster=none block_size=256 at=1:x.rs",
            "cg-kernel v1 name=k cooperative=0 cluster=none block_size=4,x,1 at=1:x.rs",
        ] {
            let e = record::decode(broken).unwrap().unwrap_err();
            assert!(e.contains("block_size `"), "{e}");
        }
    }

    #[test]
    fn multi_grid_implies_cooperative_and_refuses_clusters() {
        let k = parse(
            quote!(multi_grid),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert!(k.options.multi_grid && k.options.cooperative);
        let text = record::comment(&k.entries()[0], None, 7, "x.rs");
        assert!(text.contains(" multi_grid=1 "), "{text}");
        let r = record::decode(&text).unwrap().unwrap();
        assert_eq!(r.signature.options, k.options);
        let plain = parse(
            quote!(cooperative),
            quote!(
                fn k() {}
            ),
        )
        .unwrap();
        assert!(!record::comment(&plain.entries()[0], None, 7, "x.rs").contains("multi_grid"));
        let e = parse(
            quote!(multi_grid, cluster(2)),
            quote!(
                fn k() {}
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("runs without thread-block clusters"), "{e}");
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
            (
                quote!(
                    fn k(x: Output) {}
                ),
                "give its element type",
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

    #[test]
    fn a_generic_kernel_has_one_entry_per_instance() {
        let k = parse(
            quote!(cooperative, instances(k_f32 = <f32, 32>, k_pair = <[u32; 2], { 4 * 16 }>)),
            quote!(
                fn k<T: Pod, const N: usize>(
                    a: &[T],
                    b: *mut [T; N],
                    c: T,
                    d: other::T,
                    e: Wrap<T, N>,
                ) {
                }
            ),
        )
        .unwrap();
        assert!(k.is_generic());
        let entries = k.entries();
        let names: Vec<String> = entries.iter().map(|e| e.name.to_string()).collect();
        assert_eq!(names, ["k_f32", "k_pair"]);
        assert!(entries.iter().all(|e| e.options.cooperative));
        let types =
            |i: usize| -> Vec<String> { entries[i].params.iter().map(|p| text(&p.ty)).collect() };
        assert_eq!(
            types(0),
            ["f32", "[f32;32]", "f32", "other::T", "Wrap<f32,32>"]
        );
        assert_eq!(
            types(1),
            [
                "[u32;2]",
                "[[u32;2];{4*16}]",
                "[u32;2]",
                "other::T",
                "Wrap<[u32;2],{4*16}>"
            ]
        );
        assert_eq!(k.instances[0].describe(&k.ident), "k::<f32, 32>");
        assert_eq!(
            k.instances[1].generic_args().to_string(),
            "< [u32 ; 2] , { 4 * 16 } >"
        );
        // A constant named by a path is a const argument.
        let k = parse(
            quote!(instances(k8 = <EIGHT>)),
            quote!(
                fn k<const N: usize>(a: *mut [u32; N]) {}
            ),
        )
        .unwrap();
        assert_eq!(text(&k.entries()[0].params[0].ty), "[u32;EIGHT]");
    }

    #[test]
    fn rejects_instances_that_do_not_fit() {
        for (attr, f, msg) in [
            (
                quote!(),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "a generic #[kernel] lists its instances",
            ),
            (
                quote!(instances(k_u32 = <u32>)),
                quote!(
                    fn k(x: u32) {}
                ),
                "`k` has no generic parameters",
            ),
            (
                quote!(instances(k_u32 = <u32>)),
                quote!(
                    fn k<T, const N: usize>(x: T) {}
                ),
                "`k` has 2 generic parameters (<T, N>), but the instance `k_u32` gives 1",
            ),
            (
                quote!(instances(k_4 = <4>)),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "`T` is a type parameter: give a type",
            ),
            (
                quote!(instances(k_4 = <u32, u32>)),
                quote!(
                    fn k<T, const N: usize>(x: T) {}
                ),
                "`N` is a const parameter: give a value",
            ),
            (
                quote!(instances(k_4 = <u32, [u8; 2]>)),
                quote!(
                    fn k<T, const N: usize>(x: T) {}
                ),
                "`N` is a const parameter: give a value",
            ),
            (
                quote!(instances(a = <u32>, a = <f32>)),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "two instances are named `a`",
            ),
            (
                quote!(instances(k = <u32>)),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "an instance cannot be named `k`",
            ),
            (
                quote!(instances(k_u32 = u32)),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "in angle brackets",
            ),
            (
                quote!(instances()),
                quote!(
                    fn k<T>(x: T) {}
                ),
                "at least one instance",
            ),
            (
                quote!(instances(k_u32 = <u32>)),
                quote!(
                    fn k<T: Tr>(x: T::Out) {}
                ),
                "names `T` only whole",
            ),
            (
                quote!(instances(k_u32 = <u32>)),
                quote!(
                    fn k<'a, T>(x: T) {}
                ),
                "no lifetime parameters",
            ),
        ] {
            let e = parse(attr, f).unwrap_err().to_string();
            assert!(e.contains(msg), "{e}");
        }
    }
}
