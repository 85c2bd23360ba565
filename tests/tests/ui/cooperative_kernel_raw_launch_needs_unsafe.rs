// The only way to launch a cooperative kernel as an ordinary launch is the
// raw escape hatch, which is `unsafe`.
use cooperative_groups::{Gpu, LaunchConfig, LaunchKind};
use cg_samples::kernels::Kernels;

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let mut params: [*mut std::ffi::c_void; 0] = [];
    k.grid_sum.function().launch_as(LaunchKind::Plain, LaunchConfig::new(1, 32), &mut params)
}
