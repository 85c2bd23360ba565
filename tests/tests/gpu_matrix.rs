//! GPU test of `cg_core::matrix::Matrix` and the `Tiles2d<Transposed>`
//! output pattern (`kernels/tests/src/matrix.rs`): a tiled transpose whose
//! reads go through the view and whose writes go through the pattern,
//! against the CPU, on shapes with partial tiles at both edges and an
//! output one element longer than the transpose. On the simulator without
//! a GPU. (A block of another height than the pattern's is refused:
//! `sim_semantics`, as the check's trap would end this process's context
//! on a GPU.)

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::LaunchConfig;

#[test]
fn a_transpose_through_a_matrix_view_matches_the_cpu_on_partial_tiles() {
    let gpu = gpu_or_return!("a_transpose_through_a_matrix_view_matches_the_cpu_on_partial_tiles");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("matrix_transpose");
    for (rows, cols) in [(1, 1), (32, 32), (33, 70), (70, 33), (5, 100)] {
        let a = common::random_f32(&mut rng, rows * cols);
        let want: Vec<u32> = (0..rows * cols)
            .map(|i| a[(i % rows) * cols + i / rows].to_bits())
            .collect();
        let input = gpu.upload(&a).unwrap();
        // One element more than the transpose: it must stay NaN.
        let mut out = gpu.filled(rows * cols + 1, f32::NAN).unwrap();
        let cfg = LaunchConfig::new(
            (cols.div_ceil(16) as u32, rows.div_ceil(16) as u32, 1),
            (16, 2, 1),
        );
        k.matrix_transpose
            .launch(cfg, &input, &mut out, rows as u32, cols as u32)
            .unwrap();
        let got: Vec<u32> = out.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
        assert_eq!(got[..rows * cols], want[..], "{rows} x {cols}");
        assert!(
            f32::from_bits(got[rows * cols]).is_nan(),
            "{rows} x {cols}: past the end"
        );
    }
}
