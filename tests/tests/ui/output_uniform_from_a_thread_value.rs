// A `Uniform` is made only from uniform sources (a kernel parameter, a
// constant, the launch's shape, arithmetic on those): not from a value a
// thread computes.
use cg_core::prelude::*;

fn make() -> Uniform<u32> {
    let rank = this_thread_block().thread_rank();
    let a: Uniform<u32> = rank.into();
    let b = Uniform::new_unchecked(rank);
    let _ = b;
    a
}

fn main() {}
