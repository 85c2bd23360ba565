// instances(..) belongs to generic kernels.
use cg_core::kernel;

#[kernel(instances(fill_f32 = <f32>))]
pub fn fill(value: f32, out: *mut f32) {}

fn main() {}
