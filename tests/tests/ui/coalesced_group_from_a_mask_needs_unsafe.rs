// A coalesced group made from a mask issues warp instructions with that mask,
// which are undefined unless the caller's lane is in it and every lane of it
// takes part: only `unsafe` code can vouch for that.
use cg_core::prelude::*;

pub fn lower_half() -> u32 {
    let half = CoalescedGroup::from_mask(0xffff);
    half.num_threads()
}

fn main() {}
