// Instances are entry points: two of one name, or one named like the
// generic function, cannot be.
use cg_core::kernel;

#[kernel(instances(fill_a = <f32>, fill_a = <u32>))]
pub fn fill<T: bytemuck::Pod>(value: T, out: *mut T) {}

#[kernel(instances(copy = <f32>))]
pub fn copy<T: bytemuck::Pod>(value: T, out: *mut T) {}

fn main() {}
