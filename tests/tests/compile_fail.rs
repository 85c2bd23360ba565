//! What the typed kernel API rejects at compile time: kernel parameters that
//! cannot cross to the device, generic kernels without instances or with
//! instances that do not fit, launches with the wrong argument types or
//! count, launching a cooperative kernel without a cooperative launch, and
//! reaching cg-core's warp instructions with a mask that may not hold the
//! caller (raw instructions, coalesced groups from a mask, group types of
//! one's own), and a kernel touching a buffer while an overlapped NCCL
//! transfer of it runs.

#[test]
fn rejected_kernels_and_launches() {
    // The kernel crates are built to PTX once for this workspace; let the
    // trybuild workspace reuse those builds instead of building `core` again.
    let ptx_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/cg-ptx");
    std::env::set_var("CG_PTX_TARGET_DIR", ptx_dir);
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
