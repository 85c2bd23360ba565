// Changing a buffer's pattern without a grid barrier is the unsafe escape
// hatch (`into_pattern`, for a kernel that picks its pattern by a launch
// parameter), not safe code.
use cg_core::prelude::*;

fn change(out: Output<u32>) {
    let block = this_thread_block();
    let mut leaders = out.into_pattern::<Leaders<ThreadBlock>>();
    leaders.for_leader(&block, |y| *y = 1);
}

fn main() {}
