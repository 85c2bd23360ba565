// One buffer cannot be both an input and an output of one launch.
use cg_host::{Gpu, LaunchConfig};
use cooperative_groups::kernels::Kernels;

fn main() -> Result<(), cg_host::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let mut data = gpu.upload(&[1.0f32, 2.0])?;
    k.block_reduce_warp.launch(LaunchConfig::new(1, 32), &data, &mut data)
}
