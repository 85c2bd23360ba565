//! Compiles `../kernels` to PTX for sm_90 twice, with and without
//! floating-point contraction (`ports_common::build::kernels_both_ways`).

fn main() {
    ports_common::build::kernels_both_ways("../kernels");
}
