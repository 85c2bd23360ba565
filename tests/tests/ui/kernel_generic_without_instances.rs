// A generic kernel lists its instances: a PTX entry point has one
// concrete signature.
use cg_core::kernel;

#[kernel]
pub fn fill<T: bytemuck::Pod>(value: T, out: *mut T) {}

fn main() {}
