//! `#[kernel]`: the one place a kernel's signature is written.
//!
//! ```ignore
//! use cg_core::prelude::*;
//!
//! #[kernel(cooperative)]
//! pub fn scale(input: &[f32], out: *mut f32, factor: f32) {
//!     let grid = this_grid();
//!     let i = grid.thread_rank() as usize;
//!     if i < input.len() {
//!         unsafe { *out.add(i) = input[i] * factor };
//!     }
//!     grid.sync();
//! }
//! ```
//!
//! On `nvptx64` the function becomes `#[no_mangle] extern "ptx-kernel"` with
//! its name kept; a `&[T]` parameter becomes a pointer and a length in PTX and
//! is rebuilt as a slice before the body runs. Every parameter type must be
//! `bytemuck::Pod` (for pointers and slices, the element type); a type that is
//! not is a compile error pointing at the parameter. `cg-builder` reads the
//! same signature (through `cg-signature`) to generate the host's typed launch
//! handle, so the two sides cannot disagree.
//!
//! Options: `cooperative` (the kernel uses `grid.sync()`: the host handle
//! launches it cooperatively, always) and `cluster(x, y, z)` (thread-block
//! cluster dimensions, sm_90).
//!
//! On any other target only the parameter checks are emitted, so host crates
//! can type-check kernel signatures.

use cg_signature::{KernelSignature, ParamKind};
use proc_macro::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::ItemFn;

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
    let sig = KernelSignature::parse(attr, &func)?;
    let mut ptx_params = Vec::new();
    let mut rebuild = Vec::new();
    let mut checks = Vec::new();
    for (p, arg) in sig.params.iter().zip(func.sig.inputs.iter()) {
        let name = &p.name;
        let ty = &p.ty;
        checks.push(quote_spanned! {arg.span()=>
            ::cg_core::__private::assert_pod::<#ty>();
        });
        match p.kind {
            ParamKind::Value | ParamKind::ConstPtr | ParamKind::MutPtr => {
                let full = match &arg {
                    syn::FnArg::Typed(t) => &t.ty,
                    syn::FnArg::Receiver(_) => unreachable!("rejected by the parser"),
                };
                ptx_params.push(quote!(#name: #full));
            }
            ParamKind::Slice => {
                let ptr = format_ident!("__{}_ptr", name);
                let len = format_ident!("__{}_len", name);
                ptx_params.push(quote!(#ptr: *const #ty, #len: usize));
                rebuild.push(quote! {
                    // SAFETY: the host handle passes a live device allocation
                    // of `len` elements that no parameter of this launch may
                    // write (it holds a shared borrow of the buffer).
                    let #name: &[#ty] = unsafe { ::core::slice::from_raw_parts(#ptr, #len) };
                });
            }
        }
    }
    let attrs = &func.attrs;
    let vis = &func.vis;
    let unsafety = &func.sig.unsafety;
    let ident = &func.sig.ident;
    let body = &func.block;
    let check_fn = format_ident!("__cg_kernel_param_checks_{}", ident);
    Ok(quote! {
        #[cfg(target_arch = "nvptx64")]
        #(#attrs)*
        #[unsafe(no_mangle)]
        #vis #unsafety extern "ptx-kernel" fn #ident(#(#ptx_params),*) {
            #(#rebuild)*
            #body
        }

        #[allow(non_snake_case, dead_code)]
        const fn #check_fn() {
            #(#checks)*
        }
    })
}
