//! The probes' selector scheme, the one description both sides read: the
//! kernels here (`with_group`, `api_group_queries`) and the GPU tests'
//! models (`tests/tests/common/api.rs` includes this file). Plain data
//! and bit arithmetic, no device code.

/// The bits of a thread's key.
#[derive(Clone, Copy)]
pub struct Key(pub u32);

impl Key {
    /// The predicate that splits groups (`binary_partition`, the branch
    /// around `coalesced_threads()`): bit 0.
    pub fn split(self) -> bool {
        self.0 & 1 != 0
    }

    /// The label of `labeled_partition`: bits 1..3.
    pub fn label(self) -> u32 {
        (self.0 >> 1) & 3
    }

    /// The predicate of the votes: bit 3.
    pub fn vote(self) -> bool {
        self.0 & 8 != 0
    }

    /// The 32-bit value of the matches: bits 4..6.
    pub fn matched(self) -> u32 {
        (self.0 >> 4) & 3
    }

    /// A 64-bit label: [`label`](Self::label) in the high word, the same
    /// low word for every thread (a 32-bit match would merge all groups).
    pub fn wide_label(self) -> u64 {
        (self.label() as u64) << 32 | 7
    }
}

/// Group selectors [`with_group`](super::with_group) understands: `0..GROUP_KINDS`.
pub const GROUP_KINDS: u32 = 21;
/// The selector whose group is `coalesced_threads()` inside a branch.
pub const BRANCH: u32 = 14;
/// The selector whose group is a labeled partition of `coalesced_threads()`
/// inside a branch.
pub const BRANCH_LABELED: u32 = 20;
/// Selectors of `api_group_queries`: [`GROUP_KINDS`] and beyond.
pub const QUERY_KINDS: u32 = 41;
/// `api_group_queries`' selector for the block itself.
pub const BLOCK_SEL: u32 = 39;
/// Words of group info per thread (`write_info`): rank, size, mask, meta
/// rank, meta size.
pub const INFO_WORDS: usize = 5;

/// What each selector of `with_group` (`0..GROUP_KINDS`) and of
/// `api_group_queries` (`..QUERY_KINDS`) names, by selector.
pub const SELECTORS: [&str; QUERY_KINDS as usize] = [
    "tiled_partition::<1>(block)",
    "tiled_partition::<2>(block)",
    "tiled_partition::<4>(block)",
    "tiled_partition::<8>(block)",
    "tiled_partition::<16>(block)",
    "tiled_partition::<32>(block)",
    "tiled_partition_dynamic(block, 1)",
    "tiled_partition_dynamic(block, 2)",
    "tiled_partition_dynamic(block, 4)",
    "tiled_partition_dynamic(block, 8)",
    "tiled_partition_dynamic(block, 16)",
    "tiled_partition_dynamic(block, 32)",
    "binary_partition(warp, key)",
    "labeled_partition(warp, label)",
    "coalesced_threads() in a branch",
    "tiled_partition_dynamic(binary_partition(warp, key), 4)",
    "labeled_partition(tile<8>, label)",
    "binary_partition(tile<16>, key)",
    "labeled_partition(warp, 64-bit label)",
    "binary_partition(labeled_partition(warp, label), key)",
    "labeled_partition(coalesced_threads() in a branch, label)",
    "tiled_partition::<1>(tile<32>)",
    "tiled_partition::<2>(tile<32>)",
    "tiled_partition::<4>(tile<32>)",
    "tiled_partition::<8>(tile<32>)",
    "tiled_partition::<16>(tile<32>)",
    "tiled_partition::<32>(tile<32>)",
    "tiled_partition_dynamic(tile<8>, 1)",
    "tiled_partition_dynamic(tile<8>, 2)",
    "tiled_partition_dynamic(tile<8>, 4)",
    "tiled_partition_dynamic(tile<8>, 8)",
    "tiled_partition_dynamic(tile<8>, 16)",
    "tiled_partition_dynamic(tile<8>, 32)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 1)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 2)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 4)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 8)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 16)",
    "tiled_partition_dynamic(tiled_partition_dynamic(block, 16), 32)",
    "this_thread_block()",
    "this_thread()",
];
