// A missing argument is a compile error, not a garbage kernel parameter.
use cooperative_groups::{Gpu, LaunchConfig};
use cg_samples::kernels::Kernels;

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let input = gpu.upload(&[1.0f32, 2.0])?;
    let mut out = gpu.filled(1, 0.0f32)?;
    k.grid_sum.launch(LaunchConfig::new(1, 32), &input, &mut out)
}
