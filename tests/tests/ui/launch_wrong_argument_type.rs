// The typed handle takes exactly the kernel's parameter types:
// grid_sum(input: &[f32], partials: *mut f32, out: *mut f32).
use cooperative_groups::{Gpu, LaunchConfig};
use cg_samples::kernels::Kernels;

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let input = gpu.upload(&[1u32, 2, 3])?;
    let mut partials = gpu.filled(1, 0.0f32)?;
    let mut out = gpu.filled(1, 0.0f32)?;
    k.grid_sum.launch(LaunchConfig::new(1, 32), &input, &mut partials, &mut out)
}
