// A kernel parameter must be plain old data to cross to the device.
use cg_core::kernel;

pub struct Handle(pub Vec<u32>);

#[kernel]
pub fn takes_a_vec(data: Handle) {}

fn main() {}
