//! Compiles the primitives' kernels (`cg-primitive-kernels`, in
//! `kernels/primitives`) to PTX for sm_80 and sm_90 and generates their
//! typed handles in `cg_primitives::kernels`.

fn main() {
    if let Err(e) = cg_builder::KernelBuild::new("../kernels/primitives")
        .arch(80)
        .arch(90)
        .emit()
    {
        eprintln!("\nerror: the primitives' kernels could not be built to PTX\n\n{e}\n");
        std::process::exit(1);
    }
}
