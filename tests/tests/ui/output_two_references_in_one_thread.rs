// Each pattern borrows the output mutably: one thread cannot hold two `&mut`
// to elements of it at once (two grid-stride walks would alias).
use cg_core::prelude::*;

fn twice(mut out: Output<f32>) {
    let grid = this_grid();
    let first = out.thread_element(&grid);
    let again = out.thread_element(&grid);
    if let (Some(a), Some(b)) = (first, again) {
        *a = 1.0;
        *b = 2.0;
    }
}

fn main() {}
