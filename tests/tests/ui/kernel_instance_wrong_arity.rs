// An instance gives one argument per generic parameter.
use cg_core::kernel;

#[kernel(instances(fill_f32 = <f32>))]
pub fn fill<T: bytemuck::Pod, const N: usize>(value: T, out: *mut [T; N]) {}

fn main() {}
