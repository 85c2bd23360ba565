// `&mut [T]` would give every thread the same unique reference.
use cg_core::kernel;

#[kernel]
pub fn writes(out: &mut [f32]) {}

fn main() {}
