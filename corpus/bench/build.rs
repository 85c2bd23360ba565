//! Compiles `../kernels` to PTX for sm_90 twice, with and without
//! floating-point contraction (`ports_common::build::kernels_both_ways`):
//! the typed handles come from the first.

fn main() {
    ports_common::build::kernels_both_ways("../kernels");
}
