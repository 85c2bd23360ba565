//! Misuses that must not compile on the device: a tile size that is not a
//! power of two at most 512, and a shuffled value over 32 bytes. Each case is
//! a small kernel crate built through KernelBuild, which must fail with the
//! message cg-core gives.

mod common;

use cg_builder::BuildError;
use common::assert_compile_error;

/// Builds a one-kernel crate whose body is `body` and returns the error.
fn build_kernel(case: &str, body: &str) -> BuildError {
    let dir = common::kernel_crate(
        case,
        &format!("\n#[kernel]\npub fn k(out: *mut u32) {{\n{body}\n}}\n"),
    );
    common::build(&dir, &[80]).expect_err("the kernel must not compile")
}

#[test]
fn tile_sizes_must_be_powers_of_two_at_most_512() {
    for (case, n) in [("tile3", 3), ("tile96", 96), ("tile1024", 1024)] {
        let e = build_kernel(case, &format!("let t = tiled_partition::<{n}>(&this_thread_block());\nunsafe {{ *out = t.thread_rank() }};"));
        assert_compile_error(e, "a thread_block_tile size is a power of two at most 512");
    }
}

#[test]
fn shuffled_values_are_at_most_32_bytes() {
    let e = build_kernel(
        "shfl40",
        "let w = tiled_partition::<32>(&this_thread_block());\nlet v = w.shfl([1u32; 10], 0);\nunsafe { *out = v[3] };",
    );
    assert_compile_error(e, "a shuffled or reduced type is at most 32 bytes");
}
