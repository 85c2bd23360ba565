//! The generated bindings in a private module of a crate that uses one
//! kernel: no warning (every handle, and every part of one, may go unused),
//! which `deny(warnings)` turns into a failure to compile.
#![deny(warnings)]

mod kernels {
    include!(concat!(env!("OUT_DIR"), "/cg_kernels.rs"));
}

#[test]
fn bindings_in_a_private_module_with_one_kernel_used_compile_without_warnings() {
    let launch = kernels::ProbeGroups::launch;
    let _ = launch;
    assert_eq!(kernels::ProbeGroups::NAME, "probe_groups");
}
