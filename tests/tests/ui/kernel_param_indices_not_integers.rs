// Checked index values are integers: an `Indices<f32>` parameter is refused.
use cg_core::indices::Indices;
use cg_core::kernel;

#[kernel]
pub fn gathers_through_floats(idx: Indices<f32>) {}

fn main() {}
