//! What the builder reads from a real build: the record of every kernel,
//! whatever wrote it (a function, an instance of a generic one, a
//! `macro_rules!` macro), which kernels only some architectures have, and
//! that two kernels cannot share a name.

mod common;

use cg_signature::ParamKind;

const LIB: &str = r#"
/// `data[i] *= factor`.
#[kernel(instances(scale_f32 = <f32>, scale_f64 = <f64>))]
pub fn scale<T: Pod + core::ops::Mul<Output = T>>(mut data: Output<T>, n: u32, factor: T) {
    for (i, x) in data.grid_stride(&this_grid()) {
        if i < n as usize {
            *x = *x * factor;
        }
    }
}

macro_rules! fill {
    ($name:ident, $t:ty) => {
        /// `out[i] = value`.
        #[kernel]
        pub fn $name(mut out: Output<$t>, value: $t) {
            if let Some(x) = out.thread_element(&this_grid()) {
                *x = value;
            }
        }
    };
}

fill!(fill_u32, u32);
fill!(fill_pair, [u16; 2]);

/// A kernel of the sm_90 module only.
#[cfg(target_feature = "sm_90")]
#[kernel(cluster(2))]
pub fn only_sm90(input: &[u32], out: *mut u32) {
    unsafe { *out = input[0] };
}
"#;

#[test]
fn every_kernel_is_read_from_its_record_whatever_wrote_it() {
    let dir = common::kernel_crate("records", LIB);
    let modules = common::build(&dir, &[80, 90]).unwrap();
    let kernels = cg_builder::bindings::collect(&modules).unwrap();
    let seen: Vec<String> = kernels
        .iter()
        .map(|k| {
            let r = &k.record;
            let params: Vec<String> = r
                .signature
                .params
                .iter()
                .map(|p| {
                    let ty = &p.ty;
                    let ty = quote::quote!(#ty).to_string();
                    let ty = match p.kind {
                        ParamKind::Value => ty,
                        ParamKind::Uniform => format!("Uniform<{ty}>"),
                        ParamKind::Slice => format!("&[{ty}]"),
                        ParamKind::ConstPtr => format!("*const {ty}"),
                        ParamKind::MutPtr => format!("*mut {ty}"),
                        ParamKind::Buffer => format!("buffer of {ty}"),
                        ParamKind::Indices => format!("indices of {ty}"),
                    };
                    format!("{}: {ty}", p.name)
                })
                .collect();
            format!(
                "{} ({}) {:?} {:?} {}:{} {}",
                r.signature.name,
                params.join(", "),
                k.archs,
                r.instance_of,
                r.file,
                r.line,
                if k.conditional {
                    "conditional"
                } else {
                    "always"
                }
            )
        })
        .collect();
    // Files are named from the directory holding both the kernel crate and
    // the host crate that builds it (here cg-builder): the workspace root.
    assert_eq!(
        seen,
        [
            "fill_pair (out: buffer of [u16 ; 2], value: [u16 ; 2]) [80, 90] None target/cg-compile-fail/records/src/lib.rs:27 always",
            "fill_u32 (out: buffer of u32, value: u32) [80, 90] None target/cg-compile-fail/records/src/lib.rs:26 always",
            "only_sm90 (input: &[u32], out: *mut u32) [90] None target/cg-compile-fail/records/src/lib.rs:32 conditional",
            "scale_f32 (data: buffer of f32, n: u32, factor: f32) [80, 90] Some(\"scale::<f32>\") target/cg-compile-fail/records/src/lib.rs:6 always",
            "scale_f64 (data: buffer of f64, n: u32, factor: f64) [80, 90] Some(\"scale::<f64>\") target/cg-compile-fail/records/src/lib.rs:6 always",
        ]
    );
    let only = kernels
        .iter()
        .find(|k| k.record.signature.name == "only_sm90")
        .unwrap();
    assert_eq!(
        only.record.signature.options.cluster,
        Some(cg_signature::ClusterShape::Fixed([2, 1, 1]))
    );
}

#[test]
fn two_kernels_of_one_name_do_not_build() {
    let dir = common::kernel_crate(
        "same_name",
        "\npub mod a {\n    use super::*;\n    #[kernel]\n    pub fn twice(_out: *mut u32) {}\n}\n\npub mod b {\n    use super::*;\n    #[kernel(instances(twice = <u32>))]\n    pub fn other<T: Pod>(_out: *mut T) {}\n}\n",
    );
    let e = common::build(&dir, &[80]).expect_err("two entry points of one name");
    common::assert_compile_error(e, "symbol `twice` is already defined");
}
