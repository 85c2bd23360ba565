//! Compiles the test kernels (`cg-test-kernels`, in `kernels/tests`) to PTX for sm_80 and
//! sm_90 and generates their typed handles in `cg_tests::kernels`.

fn main() {
    if let Err(e) = cg_builder::KernelBuild::new("../kernels/tests")
        .arch(80)
        .arch(90)
        .emit()
    {
        eprintln!("\nerror: the test kernels could not be built to PTX\n\n{e}\n");
        std::process::exit(1);
    }
}
