//! Typed host handles generated from the kernel crate's `#[kernel]`
//! signatures.
//!
//! For `#[kernel(cooperative)] pub fn grid_sum(input: &[f32], out: *mut f32)`
//! the generated code is, in essence:
//!
//! ```ignore
//! pub struct GridSum { function: cooperative_groups::Function }
//! impl GridSum {
//!     pub fn launch(&self, config: LaunchConfig, input: &DeviceBuffer<f32>,
//!                   out: &mut DeviceBuffer<f32>) -> Result<(), cooperative_groups::Error>;
//! }
//! pub struct Kernels { pub grid_sum: GridSum, /* one field per kernel */ }
//! pub static PTX: cooperative_groups::PtxSet; // one embedded module per architecture
//! ```
//!
//! `launch` takes exactly the kernel's parameters, mapped as the table in
//! `cg-signature` says, and launches the way the kernel declared:
//! cooperatively (after checking that the grid can be co-resident) for
//! `#[kernel(cooperative)]`, with cluster dimensions for `cluster(..)`.

use crate::{io_err, BuildError};
use cg_signature::{ClusterShape, KernelSignature, ParamKind};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::path::{Path, PathBuf};

/// A `#[kernel]` found in the crate's sources.
#[derive(Debug, Clone)]
pub struct ScannedKernel {
    /// Its signature.
    pub signature: KernelSignature,
    /// The file it is in, relative to the kernel crate's parent directory.
    pub file: PathBuf,
    /// Whether the function carries a `#[cfg(..)]` of its own.
    pub gated: bool,
}

impl ScannedKernel {
    /// Whether a module built for `sm_<sm>` may lack this kernel: one with
    /// its own `#[cfg]`, or a cluster kernel below sm_90 (clusters exist
    /// only from sm_90 on, so their code is gated).
    pub fn may_be_absent(&self, sm: u32) -> bool {
        self.gated || (self.signature.options.cluster.is_some() && sm < 90)
    }

    /// Whether some module may lack this kernel, so that its host handle
    /// must report it unavailable instead of failing to load.
    pub fn conditional(&self) -> bool {
        self.may_be_absent(0)
    }
}

/// Reads every `.rs` file under `crate_dir/src` and returns the `#[kernel]`
/// functions, sorted by name. Two kernels with one name are an error (PTX
/// entry points share one namespace).
pub fn scan_crate(crate_dir: &Path) -> Result<Vec<ScannedKernel>, BuildError> {
    let mut files = Vec::new();
    collect_rs(&crate_dir.join("src"), &mut files)?;
    files.sort();
    let mut out: Vec<ScannedKernel> = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(io_err(format!("reading {}", file.display())))?;
        let parsed = syn::parse_file(&text).map_err(|e| BuildError::Source {
            path: file.clone(),
            message: format!("{e} (line {})", e.span().start().line),
        })?;
        let mut found = Vec::new();
        scan_items(&parsed.items, &mut found);
        for (attr, func) in found {
            let gated = func.attrs.iter().any(|a| a.path().is_ident("cfg"));
            let signature =
                KernelSignature::parse(attr, &func).map_err(|e| BuildError::Source {
                    path: file.clone(),
                    message: format!("`{}`: {e}", func.sig.ident),
                })?;
            if let Some(prev) = out.iter().find(|k| k.signature.name == signature.name) {
                return Err(BuildError::Source {
                    path: file.clone(),
                    message: format!(
                        "a second #[kernel] named `{}` (the first is in {}): PTX entry points share one namespace",
                        signature.name,
                        prev.file.display()
                    ),
                });
            }
            let shown = crate_dir
                .parent()
                .and_then(|p| file.strip_prefix(p).ok())
                .unwrap_or(&file);
            out.push(ScannedKernel {
                signature,
                file: shown.to_path_buf(),
                gated,
            });
        }
    }
    out.sort_by_key(|k| k.signature.name.to_string());
    Ok(out)
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), BuildError> {
    let entries = std::fs::read_dir(dir).map_err(io_err(format!("reading {}", dir.display())))?;
    for entry in entries {
        let path = entry
            .map_err(io_err(format!("reading {}", dir.display())))?
            .path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn scan_items(items: &[syn::Item], out: &mut Vec<(TokenStream, syn::ItemFn)>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                for attr in &f.attrs {
                    if attr
                        .path()
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "kernel")
                    {
                        let args = match &attr.meta {
                            syn::Meta::List(l) => l.tokens.clone(),
                            _ => TokenStream::new(),
                        };
                        out.push((args, f.clone()));
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    scan_items(items, out);
                }
            }
            _ => {}
        }
    }
}

fn camel(name: &Ident) -> Ident {
    let s: String = name
        .to_string()
        .split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    Ident::new(&s, Span::call_site())
}

fn handle(k: &ScannedKernel) -> TokenStream {
    let sig = &k.signature;
    let name = &sig.name;
    let name_str = name.to_string();
    let ty_name = camel(name);
    let mut host_params = Vec::new();
    let mut values = Vec::new();
    for p in &sig.params {
        let pn = &p.name;
        let ty = &p.ty;
        match p.kind {
            ParamKind::Value => {
                host_params.push(quote!(#pn: #ty));
                let v = format_ident!("__{}", pn);
                values.push((
                    v.clone(),
                    quote!(let #v: #ty = ::cooperative_groups::args::pod(#pn);),
                ));
            }
            ParamKind::Slice | ParamKind::ConstPtr => {
                host_params.push(quote!(#pn: &::cooperative_groups::DeviceBuffer<#ty>));
                let v = format_ident!("__{}_ptr", pn);
                values.push((v.clone(), quote!(let #v: u64 = #pn.launch_address()?;)));
                if p.kind == ParamKind::Slice {
                    let l = format_ident!("__{}_len", pn);
                    values.push((l.clone(), quote!(let #l: u64 = #pn.len() as u64;)));
                }
            }
            ParamKind::MutPtr => {
                host_params.push(quote!(#pn: &mut ::cooperative_groups::DeviceBuffer<#ty>));
                let v = format_ident!("__{}_ptr", pn);
                values.push((v.clone(), quote!(let #v: u64 = #pn.launch_address()?;)));
            }
        }
    }
    let lets = values.iter().map(|(_, l)| l);
    let ptrs = values
        .iter()
        .map(|(v, _)| quote!(::core::ptr::addr_of!(#v) as *mut ::core::ffi::c_void));
    let count = values.len();
    let kind = match (sig.options.cooperative, sig.options.cluster) {
        (c, Some(ClusterShape::Fixed([x, y, z]))) => {
            quote!(::cooperative_groups::LaunchKind::Cluster { cooperative: #c, dims: Some([#x, #y, #z]) })
        }
        (c, Some(ClusterShape::Runtime)) => {
            quote!(::cooperative_groups::LaunchKind::Cluster { cooperative: #c, dims: None })
        }
        (true, None) => quote!(::cooperative_groups::LaunchKind::Cooperative),
        (false, None) => quote!(::cooperative_groups::LaunchKind::Plain),
    };
    let how = match (sig.options.cooperative, sig.options.cluster) {
        (_, Some(ClusterShape::Fixed(_))) => "in thread-block clusters of its declared shape (`cuLaunchKernelEx`)",
        (_, Some(ClusterShape::Runtime)) => {
            "in thread-block clusters of the shape `config.cluster` gives (`cuLaunchKernelEx`)"
        }
        (true, None) => {
            "cooperatively (`cuLaunchCooperativeKernel`), after checking that the grid can be co-resident"
        }
        (false, None) => "as an ordinary launch",
    };
    let file = k.file.display().to_string();
    let doc = format!("Typed launch handle for the kernel `{name_str}` (`{file}`).");
    let launch_doc = format!(
        "Launches `{name_str}` {how}, on the GPU's stream; returns once the launch is queued. \
         Every driver failure comes back as an error."
    );
    let conditional = k.conditional();
    let (field_ty, get_function, accessor, from_fn) = if conditional {
        (
            quote!(::core::option::Option<::cooperative_groups::Function>, module_sm: u32),
            quote!(let function = self.function()?;),
            quote! {
                /// The loaded function (occupancy queries, attributes), or
                /// [`::cooperative_groups::Error::KernelUnavailable`] when the loaded
                /// module was built without it.
                pub fn function(&self) -> ::core::result::Result<&::cooperative_groups::Function, ::cooperative_groups::Error> {
                    self.function.as_ref().ok_or_else(|| ::cooperative_groups::Error::KernelUnavailable {
                        kernel: Self::NAME.into(),
                        sm: self.module_sm,
                    })
                }
            },
            quote!(Self {
                function: Some(function),
                module_sm: 0
            }),
        )
    } else {
        (
            quote!(::cooperative_groups::Function),
            quote!(let function = &self.function;),
            quote! {
                /// The loaded function: occupancy queries, the largest
                /// cooperative grid, attributes.
                pub fn function(&self) -> &::cooperative_groups::Function {
                    &self.function
                }
            },
            quote!(Self { function }),
        )
    };
    quote! {
        #[doc = #doc]
        pub struct #ty_name {
            function: #field_ty,
        }

        impl #ty_name {
            /// The entry point's name in the PTX module.
            pub const NAME: &'static str = #name_str;
            /// How the kernel declared it must be launched.
            pub const KIND: ::cooperative_groups::LaunchKind = #kind;

            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn launch(&self, config: ::cooperative_groups::LaunchConfig, #(#host_params),*) -> ::core::result::Result<(), ::cooperative_groups::Error> {
                #get_function
                #(#lets)*
                let mut params: [*mut ::core::ffi::c_void; #count] = [#(#ptrs),*];
                // SAFETY: `params` matches the entry point's parameters one for
                // one: both sides are generated from the same #[kernel] signature.
                unsafe { function.launch(config, &mut params) }
            }

            #accessor

            /// A handle over a function from another module that has exactly
            /// this kernel's PTX parameter list (for example its CUDA C++ twin
            /// built by nvcc, in the benchmarks).
            ///
            /// # Safety
            /// `function`'s parameters must match this kernel's, one for one.
            pub unsafe fn from_function(function: ::cooperative_groups::Function) -> Self {
                #from_fn
            }
        }
    }
}

/// Generates the contents of `cg_kernels.rs`: `PTX`, one handle per
/// kernel and `Kernels`, which loads them all.
pub fn generate(kernels: &[ScannedKernel], ptx_files: &[(u32, PathBuf)]) -> String {
    let handles = kernels.iter().map(handle);
    let fields = kernels.iter().map(|k| {
        let n = &k.signature.name;
        let t = camel(n);
        let doc = format!("`{n}`.");
        quote!(#[doc = #doc] pub #n: #t)
    });
    let inits = kernels.iter().map(|k| {
        let n = &k.signature.name;
        let t = camel(n);
        if k.conditional() {
            quote!(#n: #t {
                function: match module.function_if_built(#t::NAME, #t::KIND) {
                    Ok(f) => Some(f),
                    Err(::cooperative_groups::Error::KernelUnavailable { .. }) => None,
                    Err(e) => return Err(e),
                },
                module_sm: module.sm(),
            })
        } else {
            quote!(#n: #t { function: module.function(#t::NAME, #t::KIND)? })
        }
    });
    let modules = ptx_files.iter().map(|(sm, path)| {
        let p = path.display().to_string();
        quote!(::cooperative_groups::Ptx { sm: #sm, source: include_str!(#p) })
    });
    let file = quote! {
        #[allow(unused_imports)]
        use super::*;

        /// The kernel crate's PTX, one module per architecture; the host
        /// loads the newest one the device can run.
        pub static PTX: ::cooperative_groups::PtxSet = ::cooperative_groups::PtxSet::new(&[#(#modules),*]);

        #(#handles)*

        /// Every kernel of the crate, loaded from [`PTX`] into one module.
        pub struct Kernels {
            #(#fields,)*
            /// The loaded module.
            pub module: ::cooperative_groups::Module,
        }

        impl Kernels {
            /// Loads the module that matches `gpu` and looks up every kernel.
            pub fn load(gpu: &::cooperative_groups::Gpu) -> ::core::result::Result<Self, ::cooperative_groups::Error> {
                let module = gpu.load_module(&PTX)?;
                Ok(Self { #(#inits,)* module })
            }
        }
    };
    let tree: syn::File = syn::parse2(file).expect("generated bindings parse");
    format!(
        "// Generated by cg-builder from the #[kernel] signatures. Do not edit.\n{}",
        prettyplease::unparse(&tree)
    )
}
