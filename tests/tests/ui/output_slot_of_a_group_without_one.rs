// Only groups with a slot of their own in the grid (blocks, static tiles,
// clusters) get a leader's element: coalesced groups can share an index, so
// two leaders could write one element.
use cg_core::prelude::*;

fn leaders(mut out: Output<u32, Leaders<CoalescedGroup>>) {
    let active = coalesced_threads();
    if let Some(slot) = out.leader_element(&active) {
        *slot = active.num_threads();
    }
}

fn main() {}
