// Each instance's parameter types must be plain old data, as a plain
// kernel's are; the error points at the instance.
use cg_core::kernel;

pub struct Handle(pub Vec<u32>);

#[kernel(instances(fill_f32 = <f32>, fill_handle = <Handle>))]
pub fn fill<T>(value: T, out: *mut T) {}

fn main() {}
