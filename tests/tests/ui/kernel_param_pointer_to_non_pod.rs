// The element type behind a pointer must be plain old data too.
use cg_core::kernel;

#[kernel]
pub fn reads(names: *const String) {}

fn main() {}
