// `sync` consumes the write view: a `&mut` to an element cannot be kept past
// the barrier, where every other thread may read that element.
use cg_core::prelude::*;

fn phases(mut out: Output<f32>) -> f32 {
    let grid = this_grid();
    let mine = out.thread_element(&grid).unwrap();
    let all = out.sync(&grid);
    *mine = 1.0;
    all[0]
}

fn main() {}
