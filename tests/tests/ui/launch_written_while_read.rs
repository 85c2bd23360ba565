// One buffer cannot be both an input and an output of one launch.
use cooperative_groups::{Gpu, LaunchConfig};
use cg_samples::kernels::Kernels;

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let mut data = gpu.upload(&[1.0f32, 2.0])?;
    k.block_reduce_warp.launch(LaunchConfig::new(1, 32), &data, &mut data)
}
