//! Compiles `../kernels` to PTX for sm_90 twice: with floating-point
//! contraction as nvcc does by default (`FpContract::Fast`: the typed
//! launch handles, `OUT_DIR/cg_kernels.rs`, which the comparison with nvcc
//! uses), and without (`FpContract::Off`, Rust's rounding of every
//! operation: `OUT_DIR/kernels_contract_off.ptx`, run beside it).

use cooperative_groups::build::{FpContract, KernelBuild};
use std::path::PathBuf;

fn main() {
    let kernels = KernelBuild::new("../kernels").arch(90);
    let built = kernels
        .clone()
        .fp_contract(FpContract::Fast)
        .emit()
        .and_then(|()| kernels.fp_contract(FpContract::Off).build());
    let modules = match built {
        Ok(modules) => modules,
        Err(e) => {
            eprintln!("\nerror: ../kernels could not be built to PTX\n\n{e}\n");
            std::process::exit(1);
        }
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set for build.rs"));
    for (sm, ptx) in modules {
        let path = out.join("kernels_contract_off.ptx");
        assert_eq!(sm, 90, "one architecture was asked for");
        if let Err(e) = std::fs::write(&path, ptx) {
            eprintln!("\nerror: writing {}: {e}\n", path.display());
            std::process::exit(1);
        }
    }
}
