//! Compiles the sample kernels (`cg-sample-kernels`, in `kernels/samples`) to PTX for sm_80 and
//! sm_90 and generates their typed handles in `cg_samples::kernels`.

fn main() {
    if let Err(e) = cg_builder::KernelBuild::new("kernels/samples")
        .arch(80)
        .arch(90)
        .emit()
    {
        eprintln!("\nerror: the sample kernels could not be built to PTX\n\n{e}\n");
        std::process::exit(1);
    }
}
