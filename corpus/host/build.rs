//! Compiles ../kernels to PTX (sm_80 and sm_90) and generates a typed
//! launch handle per `#[kernel]` into `OUT_DIR/cg_kernels.rs`.

fn main() {
    if let Err(e) = cooperative_groups::build::KernelBuild::new("../kernels")
        .arch(80)
        .arch(90)
        .emit()
    {
        eprintln!("\nerror: the corpus kernels could not be built to PTX\n\n{e}\n");
        std::process::exit(1);
    }
}
