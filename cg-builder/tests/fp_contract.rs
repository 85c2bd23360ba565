//! `KernelBuild::fp_contract`: `a * b + c` stays a multiply and an add
//! (two roundings, Rust's semantics) by default, and becomes one fused
//! multiply-add under `FpContract::Fast` (nvcc's default); `mul_add` is one
//! fused multiply-add either way.

mod common;

use cg_builder::FpContract;

const LIB: &str = r#"
/// `out[i] = a * x[i] + y[i]`, written plainly, and `mul_add` of the same
/// in `f32` and `f64`.
#[kernel]
pub fn axpy(
    a: f32,
    x: &[f32],
    y: &[f32],
    mut out: Output<f32>,
    mut fused: Output<f32>,
    mut wide: Output<f64>,
) {
    let grid = this_grid();
    let i = grid.thread_rank() as usize;
    if let (Some(&x), Some(&y)) = (x.get(i), y.get(i)) {
        out.for_thread(&grid, |o| *o = a * x + y);
        fused.for_thread(&grid, |o| *o = mul_add(a, x, y));
        wide.for_thread(&grid, |o| *o = mul_add(a as f64, x as f64, y as f64));
    }
}
"#;

fn ptx(contract: FpContract) -> String {
    let dir = common::kernel_crate("fp_contract", LIB);
    let mut modules = common::builder(&dir)
        .arch(80)
        .fp_contract(contract)
        .build()
        .unwrap();
    modules.pop().unwrap().1
}

#[test]
fn contraction_is_off_by_default_and_fast_on_request() {
    let off = ptx(FpContract::Off);
    assert_eq!(
        off.matches("fma.rn.f32").count(),
        1,
        "Off: only the explicit mul_add is fused:\n{off}"
    );
    assert!(
        off.contains("mul.rn.f32") && off.contains("add.rn.f32"),
        "{off}"
    );
    let fast = ptx(FpContract::Fast);
    assert_eq!(
        fast.matches("fma.rn.f32").count(),
        2,
        "Fast: the plain expression is fused too:\n{fast}"
    );
    assert!(!fast.contains("mul.rn.f32"), "{fast}");
}
