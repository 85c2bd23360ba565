//! Compiles the test kernels (`cg-test-kernels`, in `kernels/tests`) to PTX for sm_80 and
//! sm_90 and generates their typed handles in `cg_tests::kernels`; then once more for sm_90
//! with floating-point contraction (`FpContract::Fast`, nvcc's `-fmad=true`), to
//! `OUT_DIR/cg_kernels_contract_fast_sm_90.ptx`, which the math test compares with nvcc's
//! build under that setting (`cg_tests::PTX_CONTRACT_FAST`).

use cg_builder::{FpContract, KernelBuild};

fn main() {
    let kernels = KernelBuild::new("../kernels/tests");
    let built = kernels
        .clone()
        .arch(80)
        .arch(90)
        .emit()
        .and_then(|()| kernels.arch(90).fp_contract(FpContract::Fast).build());
    let modules = match built {
        Ok(modules) => modules,
        Err(e) => {
            eprintln!("\nerror: the test kernels could not be built to PTX\n\n{e}\n");
            std::process::exit(1);
        }
    };
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set"));
    for (sm, ptx) in modules {
        let path = out.join(format!("cg_kernels_contract_fast_sm_{sm}.ptx"));
        if let Err(e) = std::fs::write(&path, ptx) {
            eprintln!("\nerror: writing {}: {e}\n", path.display());
            std::process::exit(1);
        }
    }
}
