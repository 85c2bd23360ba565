// A cooperative kernel's handle launches it cooperatively, always. The only
// way around is the raw escape hatch, which is `unsafe`.
use cg_host::{Gpu, LaunchConfig, LaunchKind};
use cooperative_groups::kernels::Kernels;

fn main() -> Result<(), cg_host::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    let mut params: [*mut std::ffi::c_void; 0] = [];
    k.grid_sum.launch_plain(LaunchConfig::new(1, 32))?;
    k.grid_sum.function().launch_as(LaunchKind::Plain, LaunchConfig::new(1, 32), &mut params)
}
