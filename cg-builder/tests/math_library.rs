//! cg-builder's math library against cg-core's declarations: every
//! `cg_math_*` function cg-core can call is defined by nvcc's compilation
//! of `math.cu`, for both architectures, both modes and both `-fmad`
//! settings, and a module that
//! calls all of them assembles once linked. Needs nvcc (PyPI's
//! nvidia-cuda-nvcc, which scripts/setup installs): without it the test
//! says so and passes.

use cg_builder::math::{self, MathMode};
use cg_builder::FpContract;
use std::path::Path;

/// The `cg_math_*` functions cg-core declares, with their PTX parameter
/// and return types as rustc writes them.
fn declared() -> Vec<(String, Vec<&'static str>, &'static str)> {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cg-core/src/math/device.rs"),
    )
    .unwrap();
    let ty = |t: &str| match t.trim() {
        "f32" | "i32" => ".b32",
        "f64" | "u64" => ".b64",
        other => panic!("a type the test does not know: {other}"),
    };
    let mut out = Vec::new();
    for line in src.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("cg_math_") else {
            continue;
        };
        let (name, rest) = rest.split_once('(').unwrap();
        let (args, ret) = rest.split_once(") -> ").unwrap();
        let params = args
            .split(',')
            .filter(|a| !a.trim().is_empty())
            .map(|a| ty(a.split(':').nth(1).unwrap()))
            .collect();
        out.push((
            format!("cg_math_{name}"),
            params,
            ty(ret.trim_end_matches(';')),
        ));
    }
    assert!(out.len() > 100, "cg-core declares {} functions", out.len());
    out
}

#[test]
fn every_function_cg_core_declares_is_defined_and_assembles() {
    if math::nvcc().is_err() {
        eprintln!("NOT RUN: every_function_cg_core_declares_is_defined_and_assembles: no nvcc");
        return;
    }
    let decls = declared();
    // A module as rustc writes it: one declaration a function, one call
    // each from a kernel.
    let mut module = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    for (name, params, ret) in &decls {
        let ps: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("\t.param {t} {name}_param_{i}"))
            .collect();
        module.push_str(&format!(
            ".extern .func  (.param {ret} func_retval0) {name}\n(\n{}\n)\n;\n",
            ps.join(",\n")
        ));
    }
    module.push_str(".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n");
    module.push_str("\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n");
    for (name, params, ret) in &decls {
        module.push_str(&format!("\t{{\n\t.param {ret} retval0;\n"));
        let mut args = Vec::new();
        for (j, t) in params.iter().enumerate() {
            module.push_str(&format!(
                "\t.param {t} param{j};\n\tst.param{t} [param{j}], 0;\n"
            ));
            args.push(format!("param{j}"));
        }
        module.push_str(&format!(
            "\tcall.uni (retval0), {name}, ({});\n\tld.param{ret} {}, [retval0];\n\t}}\n",
            args.join(", "),
            if *ret == ".b32" { "%r1" } else { "%rd1" }
        ));
    }
    module.push_str("\tret;\n}\n");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("math-library");
    let settings = [MathMode::Precise, MathMode::Fast]
        .into_iter()
        .flat_map(|mode| [FpContract::Off, FpContract::Fast].map(|c| (mode, c)));
    for (mode, contract) in settings {
        for sm in [80, 90] {
            let m = module.replace(".target sm_90", &format!(".target sm_{sm}"));
            let library = math::library_ptx(sm, mode, contract, &target).unwrap();
            let linked = math::link(&m, &library).unwrap();
            let parsed = cg_ptx::Module::parse(&linked);
            for (name, _, _) in &decls {
                assert!(
                    parsed.function(name).and_then(|f| f.body).is_some(),
                    "{mode:?} {contract:?} sm_{sm}: {name} is not defined"
                );
            }
            assert!(
                !linked.contains(".extern .func"),
                "{mode:?} {contract:?} sm_{sm}"
            );
            assemble(&linked, sm, &target);
        }
    }
}

/// ptxas (beside nvcc) assembles `ptx` for `sm_<sm>`, when it is there.
fn assemble(ptx: &str, sm: u32, dir: &Path) {
    let nvcc = math::nvcc().unwrap();
    let ptxas = nvcc.with_file_name("ptxas");
    let ptxas = if nvcc.parent().is_some_and(|p| !p.as_os_str().is_empty()) {
        ptxas
    } else {
        "ptxas".into()
    };
    let src = dir.join(format!("linked-{sm}.ptx"));
    std::fs::write(&src, ptx).unwrap();
    let Ok(out) = std::process::Command::new(&ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg("-o")
        .arg(dir.join("linked.cubin"))
        .arg(&src)
        .output()
    else {
        eprintln!(
            "no ptxas at {}: the linked module is not assembled",
            ptxas.display()
        );
        return;
    };
    assert!(
        out.status.success(),
        "ptxas sm_{sm}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
