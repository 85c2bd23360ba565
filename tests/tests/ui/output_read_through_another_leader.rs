// A write by one pattern and a read through another: each block's leader
// writes its element, then each tile's leader reads its tile's element,
// which for tile 1 of block 0 is block 1's.
use cg_core::prelude::*;

fn leaders(mut out: Output<u32, Leaders<ThreadBlock>>) -> u32 {
    let block = this_thread_block();
    let tile = tiled_partition::<32>(&block);
    out.for_leader(&block, |y| *y = 1);
    out.leader_element(&tile).map_or(0, |y| *y)
}

fn main() {}
