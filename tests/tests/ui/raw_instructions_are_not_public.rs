// The raw masked instructions (`shfl.sync`, `vote.sync`, `bar.warp.sync`, ...)
// are private to cg-core: kernels reach them only through the group types,
// whose masks hold the caller by construction.
fn main() {
    let _ = cg_core::intrinsics::bar_warp_sync(0xffff);
}
