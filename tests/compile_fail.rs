//! What the typed kernel API rejects at compile time: kernel parameters that
//! cannot cross to the device, generic kernels without instances or with
//! instances that do not fit, launches with the wrong argument types or
//! count, and launching a cooperative kernel without a cooperative launch.

#[test]
fn rejected_kernels_and_launches() {
    // The kernels crate is built to PTX once for this project; let the
    // trybuild workspace reuse those builds instead of building `core` again.
    let ptx_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/cg-ptx");
    std::env::set_var("CG_PTX_TARGET_DIR", ptx_dir);
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
