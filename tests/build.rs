//! Compiles the test kernels (`cg-test-kernels`, in `kernels/tests`) to PTX for sm_80 and
//! sm_90 and generates their typed handles in `cg_tests::kernels`; then once more for sm_90
//! with floating-point contraction (`FpContract::Fast`, nvcc's `-fmad=true`), to
//! `OUT_DIR/cg_kernels_contract_fast_sm_90.ptx`, which the math test compares with nvcc's
//! build under that setting (`cg_tests::PTX_CONTRACT_FAST`). And decides which GPU tests
//! cannot run here, as cfgs the tests ignore themselves by (`skips.rs`).

use cg_builder::{FpContract, KernelBuild};
use std::path::{Path, PathBuf};

mod skips;

fn main() {
    emit_skips();
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

/// Sets the cfgs of the GPU tests that cannot run here (`skips.rs`).
fn emit_skips() {
    for cfg in skips::CFGS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    for var in skips::VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let var = |name: &str| std::env::var(name).ok();
    let require_gpu = var("CG_REQUIRE_GPU").as_deref() == Some("1");
    let twins_dir = std::env::var_os("CG_TWINS_DIR").map(PathBuf::from);
    if let Some(dir) = &twins_dir {
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    let found = skips::Found {
        require_gpu,
        require_gpus: var("CG_REQUIRE_GPUS")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
        device_sim: var("CG_DEVICE").as_deref() == Some("sim"),
        // With a GPU required nothing is ignored: no need to look.
        gpus: if require_gpu { 0 } else { cuda_devices() },
        twins: skips::twins_present(twins_dir.as_deref(), &twin_sources()),
    };
    for cfg in skips::decide(found) {
        println!("cargo::rustc-cfg={cfg}");
    }
}

/// The stems of `twins/*.cu`, the CUDA C++ twins' sources.
fn twin_sources() -> Vec<String> {
    let dir = Path::new("twins");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/twins")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "cu").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

/// The CUDA devices the driver reports (`CUDA_VISIBLE_DEVICES` chooses): 0
/// without a driver, or when `cuInit` fails.
fn cuda_devices() -> usize {
    type CuInit = unsafe extern "C" fn(u32) -> i32;
    type CuDeviceGetCount = unsafe extern "C" fn(*mut i32) -> i32;
    // SAFETY: loading the system's CUDA driver runs only its own
    // initialisers; this process only asks it for the device count.
    let Some(lib) = ["libcuda.so.1", "libcuda.so"]
        .iter()
        .find_map(|name| unsafe { libloading::Library::new(*name) }.ok())
    else {
        return 0;
    };
    // SAFETY: the driver API's signatures of `cuInit(unsigned int)` and
    // `cuDeviceGetCount(int *)` (cuda.h), both returning a `CUresult`; the
    // count is written to a live local.
    unsafe {
        let (Ok(init), Ok(count)) = (
            lib.get::<CuInit>(b"cuInit\0"),
            lib.get::<CuDeviceGetCount>(b"cuDeviceGetCount\0"),
        ) else {
            return 0;
        };
        let mut n = 0;
        if init(0) != 0 || count(&mut n) != 0 {
            return 0;
        }
        usize::try_from(n).unwrap_or(0)
    }
}
