// A cooperative kernel's typed handle has no ordinary launch: `launch`
// always launches it cooperatively.
use cg_host::{Gpu, LaunchConfig};
use cooperative_groups::kernels::Kernels;

fn main() -> Result<(), cg_host::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    k.grid_sum.launch_plain(LaunchConfig::new(1, 32))
}
