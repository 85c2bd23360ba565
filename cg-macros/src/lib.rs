//! `#[kernel]`: the one place a kernel's signature is written.
//!
//! ```ignore
//! use cg_core::prelude::*;
//!
//! #[kernel(cooperative)]
//! pub fn scale(input: &[f32], mut out: Output<f32>, factor: f32) {
//!     let grid = this_grid();
//!     for (i, y) in out.grid_stride(&grid) {
//!         *y = input[i] * factor;
//!     }
//!     let out = out.sync(&grid); // grid.sync(); readable by every thread
//! }
//! ```
//!
//! On `nvptx64` the function becomes `#[no_mangle] extern "ptx-kernel"` with
//! its name kept; a `&[T]` parameter or a buffer view (`Output<T>`,
//! `Synced<T>`, `AtomicSlice<T>`) becomes a pointer and a length in PTX and
//! is rebuilt before the body runs; checked index values (`Indices<I>`) a
//! pointer, a length and their bound. Every parameter type must be
//! `bytemuck::Pod` (for pointers and slices, the element type); a type that is
//! not is a compile error pointing at the parameter.
//!
//! The entry point starts with its signature written as a PTX comment (an
//! inline-asm statement with no instruction; `cg_signature::record`), with
//! the file and line of the kernel. `cg-builder` reads those records from
//! the PTX it built and generates the host's typed launch handles from
//! them, so the two sides cannot disagree, and a kernel a `macro_rules!`
//! macro writes gets its handle like any other. The kernel crate enables
//! `#![feature(abi_ptx, asm_experimental_arch)]` (for the entry point's ABI
//! and the record).
//!
//! Options:
//! * `cooperative`: the kernel uses `grid.sync()`; the host handle launches
//!   it cooperatively, always;
//! * `cluster(x, y, z)`: thread-block cluster dimensions (sm_90), or
//!   `cluster` for a shape each launch gives;
//! * `grid_1d`: every launch is one row of blocks (the host handle refuses
//!   any other grid), so block and thread ranks in the grid come from
//!   `blockIdx.x` alone: the kernel reads no other block index;
//! * `launch_bounds(max_threads)` or `launch_bounds(max_threads,
//!   min_blocks_per_sm)`: CUDA's `__launch_bounds__`. The builder writes
//!   them into the entry point as PTX's `.maxntid` and `.minnctapersm`, so
//!   `ptxas` allots registers for `min_blocks_per_sm` resident blocks of
//!   `max_threads` (spilling if it must: read `ptxas -v`), and the host
//!   handle refuses blocks of more than `max_threads` threads;
//! * `block_size(x)`, `block_size(x, y)` or `block_size(x, y, z)`: every
//!   launch's block has exactly this shape. The entry point starts by
//!   telling the compiler so (`blockDim` is a constant, each `threadIdx`
//!   component below it), so block sizes, thread ranks and loops over them
//!   fold as a CUDA C++ template parameter would; the builder writes PTX's
//!   `.reqntid x, y, z` (with `launch_bounds(x * y * z, m)` also
//!   `.minnctapersm m`), and the host handle refuses a block of any other
//!   shape;
//! * `instances(name = <args>, ..)`: the instances of a generic kernel.
//!
//! A generic kernel is CUDA's explicitly instantiated template: each
//! instance is an entry point of its own, with the instance's arguments in
//! place of the generic parameters, and gets a host handle of its own with
//! those concrete types:
//!
//! ```ignore
//! #[kernel(instances(fill_f32 = <f32, 4>, fill_u64 = <u64, 2>))]
//! pub fn fill<T: Pod, const N: usize>(value: T, mut out: Output<[T; N]>) {
//!     out.for_thread(&this_grid(), |o| *o = [value; N]);
//! }
//! // Host: k.fill_f32.launch(cfg, 1.5f32, &mut DeviceBuffer<[f32; 4]>)
//! ```
//!
//! The generic function stays an ordinary (`#[inline(always)]`) function;
//! each entry point calls it with its arguments. A generic kernel without
//! `instances(..)`, an instance with too many or too few arguments, a type
//! where a const value is due (or the reverse), a type that names a
//! generic parameter's associated type (`T::Out`: the host needs a
//! concrete type) and two instances of one name are compile errors naming
//! the fix.
//!
//! On any other target the parameter checks are emitted (for every
//! instance), so host crates can type-check kernel signatures, and, when
//! cg-core has its `sim` feature, the function itself as an ordinary Rust
//! function: every thread of a simulated launch (`cg_core::sim::launch`)
//! calls it.

mod print;

use cg_signature::record;
use cg_signature::{KernelDecl, KernelSignature, ParamKind};
use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ItemFn};

/// What `cg_core::println!` and `cg_core::print!` expand to: one call of
/// CUDA's `printf` with the C format string and argument buffer of a Rust
/// format string and its arguments (see `cg_core::print`). Called as
/// `print_call!($crate, newline, "format", args...)`.
#[doc(hidden)]
#[proc_macro]
pub fn print_call(input: TokenStream) -> TokenStream {
    match print::expand(input.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Marks a function as a kernel entry point. See the crate documentation.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = syn::parse_macro_input!(item as ItemFn);
    match expand(attr.into(), func) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(attr: proc_macro2::TokenStream, func: ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let decl = KernelDecl::parse(attr, &func)?;
    let args: Vec<&FnArg> = func.sig.inputs.iter().collect();
    let at = func.sig.ident.span();
    if !decl.is_generic() {
        let [sig] = &decl.entries()[..] else {
            unreachable!("a plain kernel is one entry point")
        };
        let attrs: Vec<&Attribute> = func.attrs.iter().collect();
        let body = &func.block;
        let mut out = entry_point(sig, None, &attrs, &func, quote!(#body), at);
        out.extend(param_checks(sig, &args));
        out.extend(host_kernel(&func));
        let ident = &func.sig.ident;
        let names = sig.params.iter().map(|p| &p.name);
        out.extend(host_entry(sig, &func, quote!(#ident(#(#names),*))));
        return Ok(out);
    }
    // The generic function itself, called by every instance's entry point.
    let mut generic = func.clone();
    if !generic.attrs.iter().any(|a| a.path().is_ident("inline")) {
        generic.attrs.push(syn::parse_quote!(#[inline(always)]));
    }
    let mut out = quote! {
        #[cfg(target_arch = "nvptx64")]
        #generic
    };
    out.extend(host_kernel(&generic));
    // Each entry point keeps the function's other attributes (`cfg`,
    // `allow`), not its documentation.
    let attrs: Vec<&Attribute> = func
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("inline"))
        .collect();
    let ident = &decl.ident;
    let names: Vec<_> = decl.params.iter().map(|p| &p.name).collect();
    for inst in &decl.instances {
        let described = inst.describe(ident);
        let doc = format!("The instance `{described}` of [`{ident}`]: a PTX entry point.");
        let mut attrs = attrs.clone();
        let doc_attr: Attribute = syn::parse_quote!(#[doc = #doc]);
        attrs.insert(0, &doc_attr);
        let generic_args = inst.generic_args();
        let call = quote_spanned!(inst.span=> #ident::#generic_args(#(#names),*));
        let call = match func.sig.unsafety {
            Some(_) => quote! {
                #[allow(unused_unsafe)]
                let () = unsafe { #call };
            },
            None => quote!(#call;),
        };
        out.extend(entry_point(
            &inst.signature,
            Some(&described),
            &attrs,
            &func,
            call,
            at,
        ));
        out.extend(host_entry(
            &inst.signature,
            &func,
            quote!(#ident::#generic_args(#(#names),*)),
        ));
        out.extend(param_checks(&inst.signature, &args));
    }
    Ok(out)
}

/// The PTX entry point of `sig` (nvptx64 only): its record, the slices
/// rebuilt from their pointers and lengths, then `body`.
fn entry_point(
    sig: &KernelSignature,
    instance_of: Option<&str>,
    attrs: &[&Attribute],
    func: &ItemFn,
    body: proc_macro2::TokenStream,
    at: Span,
) -> proc_macro2::TokenStream {
    let mut ptx_params = Vec::new();
    let mut rebuild = Vec::new();
    // A plain kernel's body runs in the entry point itself: its parameters
    // keep the `mut` they were declared with, and a buffer view the type
    // it was written with (an instance's generic function takes them as
    // declared, so the types come from the call).
    let written: Vec<Option<(bool, &syn::Type)>> = func
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) if instance_of.is_none() => {
                let mutable = matches!(&*t.pat, syn::Pat::Ident(p) if p.mutability.is_some());
                Some((mutable, &*t.ty))
            }
            _ => None,
        })
        .collect();
    for (i, p) in sig.params.iter().enumerate() {
        let (name, ty) = (&p.name, &p.ty);
        let ptr = format_ident!("__{}_ptr", name);
        let len = format_ident!("__{}_len", name);
        let (mutable, written_ty) = match written.get(i).copied().flatten() {
            Some((m, t)) => (m, Some(t)),
            None => (false, None),
        };
        let mutability = mutable.then(|| quote!(mut));
        match p.kind {
            ParamKind::Slice => rebuild.push(quote! {
                // SAFETY: the host handle passes a live device allocation
                // of `len` elements that no parameter of this launch may
                // write (it holds a shared borrow of the buffer).
                let #mutability #name: &[#ty] = unsafe { ::cg_core::__private::kernel_slice(#ptr, #len) };
            }),
            ParamKind::Buffer => {
                let annotation = written_ty.map(|t| quote!(: #t));
                rebuild.push(quote! {
                    // SAFETY: the host handle passes a live device
                    // allocation of `len` elements that it borrowed
                    // mutably for this launch alone.
                    let #mutability #name #annotation = unsafe {
                        ::cg_core::__private::KernelBuffer::from_kernel_buffer(#ptr.as_ptr(), #len)
                    };
                });
            }
            ParamKind::Indices => {
                let bound = p.bound_name();
                rebuild.push(quote! {
                    // SAFETY: the host handle passes an `IndexBuffer` of
                    // `len` values, each checked to be below `bound` when it
                    // was uploaded, which nothing can write.
                    let #name: ::cg_core::indices::Indices<#ty> = unsafe {
                        ::cg_core::indices::Indices::from_raw_parts(#ptr, #len, #bound)
                    };
                });
            }
            ParamKind::Uniform => {
                let value = quote!(#name: #ty);
                ptx_params.push(value);
                rebuild.push(quote! {
                    // SAFETY: a launch parameter: every thread of the grid
                    // receives the launch's one value.
                    let #name: ::cg_core::uniform::Uniform<#ty> = unsafe {
                        ::cg_core::uniform::Uniform::new_unchecked(#name)
                    };
                });
                continue;
            }
            // A pointer or a value is the PTX parameter itself.
            _ => {
                let ptx = p.ptx_params(&ptr, &len);
                ptx_params.push(quote!(#mutability #ptx));
                continue;
            }
        }
        ptx_params.push(p.ptx_params(&ptr, &len));
    }
    let record = record::statement(sig, instance_of, at);
    let grid_1d = grid_1d_assumption(sig);
    let block_shape = block_shape_assumption(sig);
    let name = &sig.name;
    let vis = &func.vis;
    let unsafety = &func.sig.unsafety;
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #(#attrs)*
        // A `Pod` array or struct by value is a kernel parameter like any
        // other in PTX (`.param .align A .b8 name[N]`), whatever C's FFI
        // would make of it.
        #[allow(improper_ctypes_definitions)]
        #[unsafe(no_mangle)]
        #vis #unsafety extern "ptx-kernel" fn #name(#(#ptx_params),*) {
            #record
            #grid_1d
            #block_shape
            #(#rebuild)*
            #body
        }
    }
}

/// For a `#[kernel(grid_1d)]`: the statement that tells the compiler the
/// grid is one row of blocks (what the host handle checks before launching).
fn grid_1d_assumption(sig: &KernelSignature) -> proc_macro2::TokenStream {
    if sig.options.grid_1d {
        quote! {
            // SAFETY: the host handle launches this kernel only on grids of
            // one row (`#[kernel(grid_1d)]`).
            #[allow(unused_unsafe)]
            let () = unsafe { ::cg_core::__private::assume_grid_1d() };
        }
    } else {
        quote!()
    }
}

/// For a `#[kernel(block_size(x, y, z))]`: the statement that tells the
/// compiler every block has that shape (what the host handle checks
/// before launching, and the PTX's `.reqntid` makes the driver enforce).
fn block_shape_assumption(sig: &KernelSignature) -> proc_macro2::TokenStream {
    match sig.options.block_size {
        Some([x, y, z]) => quote! {
            // SAFETY: the host handle launches this kernel only with blocks
            // of this shape (`#[kernel(block_size(..))]`).
            #[allow(unused_unsafe)]
            let () = unsafe { ::cg_core::__private::assume_block_shape([#x, #y, #z]) };
        },
        None => quote!(),
    }
}

/// Off the GPU, the function itself (through `cg_core::__cg_host_kernel!`,
/// which keeps it only when cg-core has its `sim` feature): every thread of
/// a simulated launch calls it. A generic kernel is the generic function;
/// the simulator calls it with the instance's arguments. It starts by
/// telling the simulator its name (for the faults that name the kernel).
/// Its lint warnings (an unused parameter) are the device build's, which
/// reports them already.
fn host_kernel(func: &ItemFn) -> proc_macro2::TokenStream {
    let mut func = func.clone();
    let name = func.sig.ident.to_string();
    func.block.stmts.insert(
        0,
        syn::parse_quote!(::cg_core::__private::kernel_started(#name);),
    );
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        ::cg_core::__cg_host_kernel! {
            #[allow(unused)]
            #func
        }
    }
}

/// Off the GPU with cg-core's `sim` feature: the entry point of `sig` as
/// the simulator runs it, registered under the kernel crate's name and the
/// PTX name (`cg_sim::registry`). It takes the launch's parameters as the
/// PTX entry point does, one pointer per PTX parameter (what a typed launch
/// handle passes), rebuilds the slices and buffer views from them, and
/// calls the host function with `call`.
fn host_entry(
    sig: &KernelSignature,
    func: &ItemFn,
    call: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut reads = Vec::new();
    let mut index = 0usize;
    let mut next = |ty: proc_macro2::TokenStream| {
        let k = index;
        index += 1;
        // SAFETY: the entry's contract: parameter `k` points to a value of
        // the PTX parameter's type.
        quote!(unsafe { ::core::ptr::read_unaligned(*__params.add(#k) as *const #ty) })
    };
    for p in &sig.params {
        let (name, ty) = (&p.name, &p.ty);
        reads.push(match p.kind {
            ParamKind::Value => {
                let v = next(quote!(#ty));
                quote!(let #name: #ty = #v;)
            }
            ParamKind::Uniform => {
                let v = next(quote!(#ty));
                quote! {
                    // SAFETY: a launch parameter: every simulated thread
                    // receives the launch's one value.
                    let #name: ::cg_core::uniform::Uniform<#ty> =
                        unsafe { ::cg_core::uniform::Uniform::new_unchecked(#v) };
                }
            }
            ParamKind::ConstPtr => {
                let v = next(quote!(*const #ty));
                quote!(let #name: *const #ty = #v;)
            }
            ParamKind::MutPtr => {
                let v = next(quote!(*mut #ty));
                quote!(let #name: *mut #ty = #v;)
            }
            ParamKind::Slice => {
                let (ptr, len) = (next(quote!(*const #ty)), next(quote!(usize)));
                quote! {
                    // SAFETY: the launch handle passes a buffer of `len`
                    // elements that no parameter of this launch writes.
                    let #name: &[#ty] = unsafe { ::core::slice::from_raw_parts(#ptr, #len) };
                }
            }
            ParamKind::Indices => {
                let (ptr, len, bound) = (
                    next(quote!(::core::ptr::NonNull<#ty>)),
                    next(quote!(usize)),
                    next(quote!(usize)),
                );
                quote! {
                    // SAFETY: the launch handle passes an `IndexBuffer` of
                    // `len` values, each below `bound`, that nothing writes.
                    let #name: ::cg_core::indices::Indices<#ty> = unsafe {
                        ::cg_core::indices::Indices::from_raw_parts(#ptr, #len, #bound)
                    };
                }
            }
            ParamKind::Buffer => {
                let (ptr, len) = (next(quote!(*mut #ty)), next(quote!(usize)));
                quote! {
                    // SAFETY: the launch handle passes a buffer of `len`
                    // elements that it borrowed mutably for this launch.
                    let #name = unsafe {
                        ::cg_core::__private::KernelBuffer::from_kernel_buffer(#ptr, #len)
                    };
                }
            }
        });
    }
    let name = sig.name.to_string();
    let entry = format_ident!("__cg_sim_entry_{}", sig.name);
    let grid_1d = grid_1d_assumption(sig);
    let block_shape = block_shape_assumption(sig);
    let call = match func.sig.unsafety {
        Some(_) => quote!(unsafe { #call }),
        None => call,
    };
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        ::cg_core::__cg_host_kernel! {
            #[allow(non_snake_case, unused_unsafe, clippy::all)]
            #[doc(hidden)]
            unsafe fn #entry(__params: *const *mut ::core::ffi::c_void) {
                #grid_1d
                #block_shape
                #(#reads)*
                #call;
            }
            ::cg_core::__private::registry::submit! {
                ::cg_core::__private::registry::Kernel {
                    krate: ::core::env!("CARGO_CRATE_NAME"),
                    name: #name,
                    entry: #entry,
                }
            }
        }
    }
}

/// The compile-time checks that every parameter of `sig` can cross to the
/// device (every target), each error at the parameter.
fn param_checks(sig: &KernelSignature, args: &[&FnArg]) -> proc_macro2::TokenStream {
    let checks = sig.params.iter().zip(args).map(|(p, arg)| {
        let ty = &p.ty;
        match p.kind {
            ParamKind::Indices => quote_spanned! {arg.span()=>
                ::cg_core::__private::assert_index_value::<#ty>();
            },
            _ => quote_spanned! {arg.span()=>
                ::cg_core::__private::assert_pod::<#ty>();
            },
        }
    });
    let check_fn = format_ident!("__cg_kernel_param_checks_{}", sig.name);
    quote! {
        #[allow(non_snake_case, dead_code)]
        const fn #check_fn() {
            #(#checks)*
        }
    }
}
