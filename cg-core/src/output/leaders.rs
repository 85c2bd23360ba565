//! The [`Leaders`] pattern: one element per group of a kind (a block, a
//! static tile, a cluster), written by the group's leader.

use super::pattern::InLeaders;
use super::{Output, Pattern, Synced};
use crate::block::ThreadBlock;
use crate::checks::Site;
use crate::grid::{this_grid, GridGroup};
use crate::group::{GroupSync, ThreadGroup};
use crate::multi_warp::MultiWarpTile;
use crate::tile::ThreadBlockTile;
use crate::Pod;

impl<T: Pod, P: Pattern> Output<T, P> {
    /// The element of `group` (a block, a static tile, a cluster): `Some`
    /// for the group's leader (its rank 0 thread) when the group's index
    /// in the grid is below `len()`, `None` for every other thread.
    ///
    /// ```ignore
    /// let s = block_reduce(&block, &scratch, v, Plus);
    /// if let Some(slot) = block_sums.leader_element(&block) {
    ///     *slot = s;
    /// }
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn leader_element<G: LeaderSlot>(&mut self, group: &G) -> Option<&mut T>
    where
        P: InLeaders<G>,
    {
        let site = Site::here();
        self.leader_index(group)
            // SAFETY: see `leader_index`.
            .map(|i| unsafe { self.element(i, site) })
    }

    /// Calls `f` with the element of `group` if this thread is the group's
    /// leader and the element exists ([`leader_element`](Self::leader_element)
    /// without the `Option`: compiles to a predicated store where the
    /// `Option` form may keep a second test).
    ///
    /// ```ignore
    /// block_sums.for_leader(&block, |slot| *slot = s);
    /// ```
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn for_leader<G: LeaderSlot>(&mut self, group: &G, f: impl FnOnce(&mut T))
    where
        P: InLeaders<G>,
    {
        if let Some(i) = self.leader_index(group) {
            // SAFETY: see `leader_index`.
            f(unsafe { self.element(i, Site::here()) })
        }
    }

    /// The element of `group` when this thread is its leader and the
    /// buffer has it: in bounds, and the leader's alone (each group of the
    /// grid has its own slot, `LeaderSlot`, and one leader).
    #[inline(always)]
    fn leader_index<G: LeaderSlot>(&self, group: &G) -> Option<usize> {
        if !group.is_leader() {
            return None;
        }
        let i = group.slot();
        (i < self.len as u64).then_some(i as usize)
    }
}

impl<T: Pod, P: Pattern> Output<T, P> {
    /// CUDA's "threadFenceReduction" finish, without `unsafe`: the leader
    /// of each block writes `value` to the block's element (its rank in
    /// the grid, as [`for_leader`](Self::for_leader)) and takes a ticket of
    /// `tickets` (`fetch_add(1, AcqRel)`); the block that takes the last
    /// of `grid.num_blocks()` tickets gets the whole buffer to read, every
    /// other block `None`. The last block sets `tickets` back to 0 for the
    /// next launch (it must be 0 before the first). Collective over the
    /// block: every thread calls it (it synchronizes the block once).
    ///
    /// ```ignore
    /// if let Some(partials) = partials.sync_last_block(&grid, &block, s, counter.at(0)) {
    ///     // every block's `s` is here: this block adds them up
    /// }
    /// ```
    ///
    /// The ordering is the tickets': each leader's write comes before its
    /// ticket (release), the last ticket's taker acquires every earlier
    /// one, and a device-scope acquire fence after the block barrier
    /// extends that to the block's other threads. Consuming the write view
    /// keeps every block from writing the buffer again in the launch.
    #[inline(always)]
    pub fn sync_last_block(
        mut self,
        grid: &GridGroup,
        block: &ThreadBlock,
        value: T,
        tickets: crate::atomic::AtomicRef<'_, u32>,
    ) -> Option<Synced<T>>
    where
        P: InLeaders<ThreadBlock>,
    {
        use crate::atomic::{fence, Device, Ordering};
        let last = crate::shared_array!(u32; 1);
        let blocks = grid.num_blocks();
        if let Some(slot) = self.leader_element(block) {
            *slot = value;
            let ticket = tickets.fetch_add(1, Ordering::AcqRel);
            let is_last = ticket == blocks - 1;
            if is_last {
                // Every block has taken its ticket: the counter is free.
                tickets.store(0, Ordering::Relaxed);
            }
            last.set(0, is_last as u32);
        }
        block.sync();
        if last.get(0) == 0 {
            return None;
        }
        fence::<Device>(Ordering::Acquire);
        // SAFETY: every block's leader wrote its element before its ticket
        // (release); this block's leader took the last ticket (acquire),
        // and the fence after the barrier extends that to this block's
        // threads. No thread writes the buffer again: `self` is consumed
        // here by every thread of every block.
        Some(unsafe { self.assume_synced() })
    }
}

/// A group with one output slot of its own in the grid and one leader to
/// write it ([`Output::leader_element`]): the block (slot: its rank in the
/// grid), a static tile of `N` threads (slot: its index among the grid's
/// tiles of `N`, block by block) and, on sm_90, a cluster (slot: its rank
/// among the grid's clusters). Coalesced groups, labeled partitions and
/// dynamic tiles have no slot: many of them can share indices.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no output slot of its own",
    label = "several groups of this kind can share an index, so their leaders could write one element",
    note = "give each block, static tile or cluster an element with `leader_element`, or add into one element through an `AtomicSlice`"
)]
pub trait LeaderSlot: GroupSync {
    /// The group's slot: unique among the grid's groups of this kind.
    fn slot(&self) -> u64;
    /// Whether this thread is the group's leader (rank 0).
    fn is_leader(&self) -> bool;
}

impl LeaderSlot for ThreadBlock {
    #[inline(always)]
    fn slot(&self) -> u64 {
        this_grid().block_rank() as u64
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

/// The slot of this thread's `n`-thread tile: tiles of `n` cover a block
/// in rank order, `ceil(threads / n)` per block.
#[inline(always)]
fn tile_slot(n: u32) -> u64 {
    let block = crate::block::this_thread_block();
    let per_block = block.num_threads().div_ceil(n) as u64;
    this_grid().block_rank() as u64 * per_block + (block.thread_rank() / n) as u64
}

impl<const N: u32> LeaderSlot for ThreadBlockTile<N> {
    #[inline(always)]
    fn slot(&self) -> u64 {
        tile_slot(N)
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

impl<const N: u32> LeaderSlot for MultiWarpTile<N> {
    #[inline(always)]
    fn slot(&self) -> u64 {
        tile_slot(N)
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl LeaderSlot for crate::cluster::ClusterGroup {
    #[inline(always)]
    fn slot(&self) -> u64 {
        self.dim_clusters().linear(self.cluster_index()) as u64
    }
    #[inline(always)]
    fn is_leader(&self) -> bool {
        self.thread_rank() == 0
    }
}
