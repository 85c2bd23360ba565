// The group traits are sealed: their operations trust what a group says about
// its lanes, so only cg-core's group types implement them.
use cg_core::prelude::*;

#[derive(Clone, Copy)]
pub struct HalfWarp;

impl GroupSync for HalfWarp {
    fn sync(&self) {}
}

fn main() {}
