// A const parameter takes a value, a type parameter a type.
use cg_core::kernel;

#[kernel(instances(fill_f32 = <f32, u32>))]
pub fn fill<T: bytemuck::Pod, const N: usize>(value: T, out: *mut [T; N]) {}

#[kernel(instances(copy_4 = <4>))]
pub fn copy<T: bytemuck::Pod>(input: &[T], out: *mut T) {}

fn main() {}
