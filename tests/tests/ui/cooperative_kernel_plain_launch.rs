// A cooperative kernel's typed handle has no ordinary launch: `launch`
// always launches it cooperatively.
use cooperative_groups::{Gpu, LaunchConfig};
use cg_samples::kernels::Kernels;

fn main() -> Result<(), cooperative_groups::Error> {
    let gpu = Gpu::new(0)?;
    let k = Kernels::load(&gpu)?;
    k.grid_sum.launch_plain(LaunchConfig::new(1, 32))
}
