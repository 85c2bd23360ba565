//! Compiles `kernels/` to PTX for sm_80 and sm_90 and generates the typed
//! handles in `cooperative_groups::kernels` (see cg-builder).

fn main() {
    if let Err(e) = cg_builder::KernelBuild::new("kernels")
        .arch(80)
        .arch(90)
        .emit()
    {
        eprintln!("\nerror: the kernels could not be built to PTX\n\n{e}\n");
        std::process::exit(1);
    }
}
