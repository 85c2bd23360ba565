//! Typed host handles generated from the `#[kernel]` records in the built
//! PTX (`cg_signature::record`): one per entry point that has one, whatever
//! wrote it (a function, an instance of a generic one, a macro).
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

use crate::{ptx, BuildError};
use cg_signature::record::{self, KernelRecord};
use cg_signature::{ClusterShape, ParamKind};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::path::PathBuf;

/// A kernel of the built modules: its record, and the architectures whose
/// modules hold it.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The entry point's signature and where it is declared.
    pub record: KernelRecord,
    /// The architectures (`sm_XX`) whose module has the entry point.
    pub archs: Vec<u32>,
    /// Whether some module lacks it (a kernel behind a `#[cfg]`, such as
    /// the cluster kernels below sm_90), so that its host handle must
    /// report it unavailable instead of failing to load.
    pub conditional: bool,
}

/// The kernels of the modules built for each architecture (`(sm, ptx)`
/// pairs), sorted by name: every entry point with a `#[kernel]` record.
/// One kernel must have one signature in every module that has it.
pub fn collect(modules: &[(u32, String)]) -> Result<Vec<Kernel>, BuildError> {
    let mut out: Vec<Kernel> = Vec::new();
    for (sm, ptx) in modules {
        for r in ptx::records(ptx, *sm)? {
            match out
                .iter_mut()
                .find(|k| k.record.signature.name == r.signature.name)
            {
                Some(k) => {
                    let shape = |r: &KernelRecord| {
                        record::comment(&r.signature, r.instance_of.as_deref(), 0, "")
                    };
                    if shape(&k.record) != shape(&r) {
                        return Err(BuildError::Ptx(format!(
                            "kernel `{}` has one signature in the sm_{} module ({}:{}) and another \
                             in the sm_{sm} module ({}:{}); its host handle can have only one",
                            r.signature.name,
                            k.archs[0],
                            k.record.file,
                            k.record.line,
                            r.file,
                            r.line
                        )));
                    }
                    k.archs.push(*sm);
                }
                None => out.push(Kernel {
                    record: r,
                    archs: vec![*sm],
                    conditional: false,
                }),
            }
        }
    }
    for k in &mut out {
        k.conditional = k.archs.len() < modules.len();
    }
    out.sort_by_key(|k| k.record.signature.name.to_string());
    Ok(out)
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

/// The statement that binds `v` to the launch address of the buffer
/// parameter `param` (writable if `write`): through the buffer, which
/// orders the launch after other GPUs' work on it and records the use, or
/// for a multi-grid kernel through the member, which does so once every
/// grid is given and refuses a buffer two grids would race on.
/// `buffer` is the `DeviceBuffer` behind the parameter (the parameter
/// itself, or an index buffer's values).
fn buffer_address(
    v: &Ident,
    param: &Ident,
    buffer: TokenStream,
    write: bool,
    multi_grid: bool,
) -> TokenStream {
    let name = param.to_string();
    match (multi_grid, write) {
        (false, false) => quote!(let #v: u64 = #buffer.launch_address_for(function)?;),
        (false, true) => quote!(let #v: u64 = #buffer.launch_address_for_mut(function)?;),
        (true, false) => quote!(let #v: u64 = member.buffer(function, #name, #buffer)?;),
        (true, true) => quote!(let #v: u64 = member.buffer_mut(function, #name, #buffer)?;),
    }
}

fn handle(k: &Kernel) -> TokenStream {
    let sig = &k.record.signature;
    let name = &sig.name;
    let name_str = name.to_string();
    let ty_name = camel(name);
    let multi_grid = sig.options.multi_grid;
    let mut host_params = Vec::new();
    let mut values = Vec::new();
    for p in &sig.params {
        let pn = &p.name;
        let ty = &p.ty;
        match p.kind {
            // A uniform value crosses as its value: the host passes a `T`.
            ParamKind::Value | ParamKind::Uniform => {
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
                values.push((
                    v.clone(),
                    buffer_address(&v, pn, quote!(#pn), false, multi_grid),
                ));
                if p.kind == ParamKind::Slice {
                    let l = format_ident!("__{}_len", pn);
                    values.push((l.clone(), quote!(let #l: u64 = #pn.len() as u64;)));
                }
            }
            ParamKind::Indices => {
                host_params.push(quote!(#pn: &::cooperative_groups::IndexBuffer<#ty>));
                let (v, l, b) = (
                    format_ident!("__{}_ptr", pn),
                    format_ident!("__{}_len", pn),
                    format_ident!("__{}_bound", pn),
                );
                let address = buffer_address(&v, pn, quote!(#pn.values()), false, multi_grid);
                values.push((v.clone(), address));
                values.push((l.clone(), quote!(let #l: u64 = #pn.len() as u64;)));
                values.push((b.clone(), quote!(let #b: u64 = #pn.bound() as u64;)));
            }
            ParamKind::MutPtr | ParamKind::Buffer => {
                host_params.push(quote!(#pn: &mut ::cooperative_groups::DeviceBuffer<#ty>));
                let v = format_ident!("__{}_ptr", pn);
                values.push((
                    v.clone(),
                    buffer_address(&v, pn, quote!(#pn), true, multi_grid),
                ));
                if p.kind == ParamKind::Buffer {
                    let l = format_ident!("__{}_len", pn);
                    values.push((l.clone(), quote!(let #l: u64 = #pn.len() as u64;)));
                }
            }
        }
    }
    let lets: Vec<&TokenStream> = values.iter().map(|(_, l)| l).collect();
    let ptrs = values
        .iter()
        .map(|(v, _)| quote!(::core::ptr::addr_of!(#v) as *mut ::core::ffi::c_void));
    let count = values.len();
    let grid_1d = sig.options.grid_1d;
    let max_threads = match sig.options.launch_bounds {
        Some(b) => {
            let n = b.max_threads;
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    let block_shape = match sig.options.block_size {
        Some([x, y, z]) => quote!(::core::option::Option::Some([#x, #y, #z])),
        None => quote!(::core::option::Option::None),
    };
    let kind = match (sig.options.cooperative, sig.options.cluster) {
        _ if multi_grid => quote!(::cooperative_groups::LaunchKind::MultiGrid),
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
    let at = format!("{}:{}", k.record.file, k.record.line);
    let doc = match &k.record.instance_of {
        Some(i) => format!(
            "Typed launch handle for the kernel `{name_str}`: the instance `{i}` of a generic \
             kernel (`{at}`)."
        ),
        None => format!("Typed launch handle for the kernel `{name_str}` (`{at}`)."),
    };
    let launch_doc = format!(
        "Launches `{name_str}` {how}, on the GPU's stream; returns once the launch is queued. \
         Every driver failure comes back as an error."
    );
    let member_doc = format!(
        "Gives `{name_str}` and its parameters as this GPU's grid of a multi-grid launch \
         (`GpuSet::launch` calls this through its closure, once per GPU, and starts every grid \
         once all are given and checked). Buffers may be this GPU's or, through the set's peer \
         access, another GPU's of the set."
    );
    let conditional = k.conditional;
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
                function: Some(Self::required(function)),
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
            quote!(Self {
                function: Self::required(function)
            }),
        )
    };
    let launch_fn = if multi_grid {
        let bytes = values
            .iter()
            .map(|(v, _)| quote!(::cooperative_groups::args::bytes(&#v)));
        quote! {
            #[doc = #member_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn launch(&self, member: &mut ::cooperative_groups::MultiGridMember, #(#host_params),*) -> ::core::result::Result<(), ::cooperative_groups::Error> {
                #get_function
                #(#lets)*
                let params: [&[u8]; #count] = [#(#bytes),*];
                unsafe { member.set_grid(function, &params) }
            }
        }
    } else {
        quote! {
            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn launch(&self, config: ::cooperative_groups::LaunchConfig, #(#host_params),*) -> ::core::result::Result<(), ::cooperative_groups::Error> {
                #get_function
                #(#lets)*
                let mut params: [*mut ::core::ffi::c_void; #count] = [#(#ptrs),*];
                unsafe { function.launch(config, &mut params) }
            }
        }
    };
    // A crate that includes the bindings in a private module and uses some
    // kernels leaves the others, and parts of each handle, unused.
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        pub struct #ty_name {
            function: #field_ty,
        }

        #[allow(dead_code)]
        impl #ty_name {
            /// The entry point's name in the PTX module.
            pub const NAME: &'static str = #name_str;
            /// How the kernel declared it must be launched.
            pub const KIND: ::cooperative_groups::LaunchKind = #kind;
            /// Whether the kernel is a `#[kernel(grid_1d)]`: launched only
            /// on grids of one row of blocks.
            pub const GRID_1D: bool = #grid_1d;

            /// The most threads a block may have, from the kernel's
            /// `#[kernel(launch_bounds(..))]`, if it has one.
            pub const MAX_BLOCK_THREADS: ::core::option::Option<u32> = #max_threads;

            /// The shape every block has, from the kernel's
            /// `#[kernel(block_size(..))]`, if it has one.
            pub const BLOCK_SHAPE: ::core::option::Option<[u32; 3]> = #block_shape;

            /// `function` with this kernel's launch requirements
            /// (`Function::requiring_grid_1d` for a `grid_1d` kernel,
            /// `Function::requiring_block_threads_at_most` for launch bounds,
            /// `Function::requiring_block_shape` for a block size).
            fn required(function: ::cooperative_groups::Function) -> ::cooperative_groups::Function {
                let function = if Self::GRID_1D { function.requiring_grid_1d() } else { function };
                let function = match Self::MAX_BLOCK_THREADS {
                    ::core::option::Option::Some(n) => function.requiring_block_threads_at_most(n),
                    ::core::option::Option::None => function,
                };
                match Self::BLOCK_SHAPE {
                    ::core::option::Option::Some(shape) => function.requiring_block_shape(shape),
                    ::core::option::Option::None => function,
                }
            }

            #launch_fn

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

/// Generates the contents of `cg_kernels.rs`: `PTX` (built from the kernel
/// crate `krate`, as Rust names it), one handle per kernel and `Kernels`,
/// which loads them all.
pub fn generate(krate: &str, kernels: &[Kernel], ptx_files: &[(u32, PathBuf)]) -> String {
    let handles = kernels.iter().map(handle);
    let fields = kernels.iter().map(|k| {
        let n = &k.record.signature.name;
        let t = camel(n);
        let doc = format!("`{n}`.");
        quote!(#[doc = #doc] pub #n: #t)
    });
    let inits = kernels.iter().map(|k| {
        let n = &k.record.signature.name;
        let t = camel(n);
        if k.conditional {
            quote!(#n: #t {
                function: match module.function_if_built(#t::NAME, #t::KIND) {
                    Ok(f) => Some(#t::required(f)),
                    Err(::cooperative_groups::Error::KernelUnavailable { .. }) => None,
                    Err(e) => return Err(e),
                },
                module_sm: module.sm(),
            })
        } else {
            quote!(#n: #t { function: #t::required(module.function(#t::NAME, #t::KIND)?) })
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
        /// loads the newest one the device can run (the simulator runs
        /// the crate's host build of the same kernels).
        #[allow(dead_code)]
        pub static PTX: ::cooperative_groups::PtxSet = ::cooperative_groups::PtxSet::of_crate(#krate, &[#(#modules),*]);

        #(#handles)*

        /// Every kernel of the crate, loaded from [`PTX`] into one module.
        #[allow(dead_code)]
        pub struct Kernels {
            #(#fields,)*
            /// The loaded module.
            pub module: ::cooperative_groups::Module,
        }

        #[allow(dead_code)]
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
        "// Generated by cg-builder from the #[kernel] records in the PTX. Do not edit.\n{}",
        with_safety_comments(&prettyplease::unparse(&tree))
    )
}

/// The generated `unsafe` blocks, each as the line prettyplease prints for
/// it, with the `// SAFETY:` comment that says why it is sound.
const SAFETY_COMMENTS: [(&str, &str); 2] = [
    (
        "unsafe { function.launch(config, &mut params) }",
        "SAFETY: `params` points to one value per parameter the kernel declares, in \
         order and of its type: both the handle's parameters and the entry point's \
         follow the #[kernel] record in the PTX these bindings were generated from. \
         Each buffer address came from `launch_address_for(_mut)` of a buffer this \
         call borrows; the buffer records the use and is freed only after the work \
         queued on it, so the address stays valid until the kernel completes.",
    ),
    (
        "unsafe { member.set_grid(function, &params) }",
        "SAFETY: `params` holds one value per parameter the kernel declares, in \
         order and of its type: both the handle's parameters and the entry point's \
         follow the #[kernel] record in the PTX these bindings were generated from. \
         Each buffer address came from `member.buffer(_mut)`, which keeps the use \
         for the set's check that no two grids race on a buffer and for its \
         ordering and release after the launch.",
    ),
];

/// `code` with a `// SAFETY:` comment above each `unsafe` block, which
/// `quote!` cannot carry (comments are not tokens).
///
/// # Panics
/// On an `unsafe` block that [`SAFETY_COMMENTS`] does not list: every
/// generated block says why it is sound.
fn with_safety_comments(code: &str) -> String {
    let mut out = String::with_capacity(code.len() * 2);
    for line in code.lines() {
        let body = line.trim_start();
        if body.contains("unsafe {") {
            let (_, why) = SAFETY_COMMENTS
                .iter()
                .find(|(block, _)| body == *block)
                .unwrap_or_else(|| {
                    panic!("a generated unsafe block without a SAFETY comment: {body}")
                });
            let indent = &line[..line.len() - body.len()];
            let mut comment = String::new();
            for word in why.split(' ') {
                if !comment.is_empty() && indent.len() + 3 + comment.len() + 1 + word.len() > 80 {
                    out.push_str(&format!("{indent}// {comment}\n"));
                    comment.clear();
                }
                if !comment.is_empty() {
                    comment.push(' ');
                }
                comment.push_str(word);
            }
            out.push_str(&format!("{indent}// {comment}\n"));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module for `sm_<sm>` whose entry points carry `records`.
    fn module(sm: u32, records: &[&str]) -> (u32, String) {
        let mut ptx = format!(".version 8.0\n.target sm_{sm}\n.address_size 64\n");
        for r in records {
            let name = r.split(" name=").nth(1).unwrap().split(' ').next().unwrap();
            ptx += &format!(".visible .entry {name}()\n{{\n\t// {r}\n\tret;\n}}\n");
        }
        (sm, ptx)
    }

    const SUM: &str = "cg-kernel v1 name=sum cooperative=1 cluster=none param=input:slice:f32 \
                       param=out:mut:f32 at=4:kernels/src/sum.rs";
    const DSM: &str = "cg-kernel v1 name=dsm cooperative=0 cluster=2,1,1 param=n:value:u32 \
                       at=9:kernels/src/cluster.rs";
    const FILL: &str = "cg-kernel v1 name=fill_f32 cooperative=0 cluster=none \
                        instance=fill::<f32,%204> param=v:value:f32 param=out:mut:[f32;4] \
                        at=12:kernels/src/fill.rs";

    #[test]
    fn a_kernel_some_modules_lack_is_conditional() {
        let modules = [module(80, &[SUM, FILL]), module(90, &[DSM, SUM, FILL])];
        let kernels = collect(&modules).unwrap();
        let seen: Vec<(String, Vec<u32>, bool)> = kernels
            .iter()
            .map(|k| {
                (
                    k.record.signature.name.to_string(),
                    k.archs.clone(),
                    k.conditional,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("dsm".into(), vec![90], true),
                ("fill_f32".into(), vec![80, 90], false),
                ("sum".into(), vec![80, 90], false)
            ]
        );
    }

    #[test]
    fn a_multi_grid_handle_gives_its_grid_to_the_set() {
        const HALO: &str = "cg-kernel v1 name=halo cooperative=1 cluster=none multi_grid=1 \
                            param=mine:buffer:f32 param=n:value:u32 at=2:kernels/src/halo.rs";
        let kernels = collect(&[module(90, &[HALO, SUM])]).unwrap();
        let code = generate("my_kernels", &kernels, &[(90, PathBuf::from("a.ptx"))]);
        for want in [
            "::cooperative_groups::LaunchKind::MultiGrid",
            "member: &mut ::cooperative_groups::MultiGridMember,\n        mine: &mut ::cooperative_groups::DeviceBuffer<f32>,",
            ".set_grid(",
            "::cooperative_groups::args::bytes(&__n)",
            "member.buffer_mut(function, \"mine\", mine)?",
        ] {
            assert!(code.contains(want), "no `{want}` in:\n{code}");
        }
        // The ordinary handle beside it still launches at once.
        assert!(
            code.contains("function.launch(config, &mut params)"),
            "{code}"
        );
    }

    #[test]
    fn every_generated_unsafe_block_says_why_it_is_sound() {
        const HALO: &str = "cg-kernel v1 name=halo cooperative=1 cluster=none multi_grid=1 \
                            param=mine:buffer:f32 param=n:value:u32 at=2:kernels/src/halo.rs";
        let kernels = collect(&[module(90, &[HALO, SUM, DSM, FILL])]).unwrap();
        let code = generate("my_kernels", &kernels, &[(90, PathBuf::from("a.ptx"))]);
        let lines: Vec<&str> = code.lines().collect();
        let blocks: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].contains("unsafe {"))
            .collect();
        assert_eq!(blocks.len(), 4, "{code}");
        for i in blocks {
            let comment = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.trim_start().starts_with("//"))
                .last()
                .unwrap_or_else(|| panic!("no comment above line {i}:\n{code}"));
            assert!(comment.trim_start().starts_with("// SAFETY: "), "{code}");
            assert!(lines[i - 1].len() <= 80, "{}", lines[i - 1]);
        }
    }

    #[test]
    fn one_kernel_has_one_signature_in_every_module() {
        let other = SUM.replace("out:mut:f32", "out:mut:f64");
        let modules = [module(80, &[SUM]), module(90, &[&other])];
        let e = collect(&modules).unwrap_err().to_string();
        assert!(
            e.contains("kernel `sum` has one signature in the sm_80 module (kernels/src/sum.rs:4) and another in the sm_90 module"),
            "{e}"
        );
    }

    #[test]
    fn handles_take_the_recorded_types_and_leave_nothing_unused_to_warn_about() {
        let modules = [module(80, &[SUM, FILL]), module(90, &[DSM, SUM, FILL])];
        let kernels = collect(&modules).unwrap();
        let files = [(80, PathBuf::from("a.ptx")), (90, PathBuf::from("b.ptx"))];
        let code = generate("my_kernels", &kernels, &files);
        for want in [
            "pub struct FillF32",
            "v: f32,\n        out: &mut ::cooperative_groups::DeviceBuffer<[f32; 4]>,",
            "the instance `fill::<f32, 4>` of a generic kernel (`kernels/src/fill.rs:12`)",
            "input: &::cooperative_groups::DeviceBuffer<f32>",
            "input.launch_address_for(function)?",
            "out.launch_address_for_mut(function)?",
            "::cooperative_groups::LaunchKind::Cooperative",
            "::cooperative_groups::LaunchKind::Cluster {",
            "function: ::core::option::Option<::cooperative_groups::Function>",
        ] {
            assert!(code.contains(want), "no `{want}` in:\n{code}");
        }
        // Every item may go unused in a crate that includes the bindings in
        // a private module.
        let file: syn::File = syn::parse_str(&code).unwrap();
        for item in &file.items {
            let allowed = |attrs: &[syn::Attribute]| {
                attrs.iter().any(|a| {
                    a.path().is_ident("allow")
                        && a.meta.require_list().is_ok_and(|l| {
                            let t = l.tokens.to_string();
                            t.contains("dead_code") || t.contains("unused_imports")
                        })
                })
            };
            let ok = match item {
                syn::Item::Struct(s) => allowed(&s.attrs),
                syn::Item::Impl(i) => allowed(&i.attrs),
                syn::Item::Static(s) => allowed(&s.attrs),
                syn::Item::Use(u) => allowed(&u.attrs),
                other => panic!("an unexpected item: {}", quote!(#other)),
            };
            assert!(ok, "no #[allow(dead_code)] on {}", quote!(#item));
        }
    }
}
