// A thread reaches an output's elements only through a pattern derived from
// its own coordinates: an output cannot be indexed, so it cannot write
// another thread's element.
use cg_core::prelude::*;

fn scale(mut out: Output<f32>, i: usize) {
    out[i] = 1.0;
}

fn main() {}
