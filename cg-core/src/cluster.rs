//! `cluster_group` (sm_90): the blocks of a thread-block cluster, which run
//! at the same time on one GPU processing cluster, synchronize together and
//! read and write each other's shared memory.
//!
//! | method | PTX |
//! |---|---|
//! | `num_blocks`, `block_rank` | `%cluster_nctarank`, `%cluster_ctarank` |
//! | `dim_blocks`, `block_index` | `%cluster_nctaid`, `%cluster_ctaid` |
//! | `sync` | `barrier.cluster.arrive` + `barrier.cluster.wait` |
//! | `barrier_arrive`, `barrier_wait` | the same, split |
//! | `map_shared_rank` | `mapa.shared::cluster`, then `ld/st.shared::cluster` |
//! | `ClusterSharedArray::atomic` | `atom/red/ld/st{.sem}.cluster.shared::cluster` |
//!
//! On the GPU the module exists only in builds for sm_90 and newer: in a
//! crate built for sm_80, `this_cluster()` does not compile. (On the host
//! it is always there, for documentation and lints.) A kernel that uses it is
//! declared `#[kernel(cluster(x, y, z))]` (or launched with
//! `LaunchConfig::with_cluster`), and gated with
//! `#[cfg(target_feature = "sm_90")]` so that the sm_80 module builds
//! without it; its host handle then reports the kernel as unavailable on
//! older GPUs instead of launching anything.
//!
//! A block must not exit while another block of its cluster may still read
//! its shared memory: end such kernels with `cluster.sync()`.

use crate::atomic::{AtomicRef, AtomicValue, Cluster};
use crate::group::{sealed_groups, Dim3, GroupSync, ThreadGroup};
use crate::intrinsics as i;
use crate::shared::{ld_shared_in, st_shared_in, SharedArray, Window};
use bytemuck::Pod;
use core::marker::PhantomData;
use core::mem::size_of;

/// The calling thread's cluster. Obtain it with [`this_cluster`].
#[derive(Clone, Copy)]
pub struct ClusterGroup {
    _private: (),
}

/// `cg::this_cluster()`.
#[inline(always)]
pub fn this_cluster() -> ClusterGroup {
    ClusterGroup { _private: () }
}

/// Proof of arrival at the cluster barrier, consumed by
/// [`ClusterGroup::barrier_wait`].
#[must_use = "wait on the token with barrier_wait"]
pub struct ClusterBarrierToken {
    _private: (),
}

impl ClusterGroup {
    /// Blocks in the cluster.
    #[inline(always)]
    pub fn num_blocks(&self) -> u32 {
        i::cluster_nctarank()
    }

    /// This block's rank in the cluster, `0..num_blocks()`.
    #[inline(always)]
    pub fn block_rank(&self) -> u32 {
        i::cluster_ctarank()
    }

    /// The cluster's extent in blocks.
    #[inline(always)]
    pub fn dim_blocks(&self) -> Dim3 {
        [
            i::cluster_nctaid_x(),
            i::cluster_nctaid_y(),
            i::cluster_nctaid_z(),
        ]
        .into()
    }

    /// This block's index in the cluster.
    #[inline(always)]
    pub fn block_index(&self) -> Dim3 {
        [
            i::cluster_ctaid_x(),
            i::cluster_ctaid_y(),
            i::cluster_ctaid_z(),
        ]
        .into()
    }

    /// This cluster's index in the grid of clusters.
    #[inline(always)]
    pub fn cluster_index(&self) -> Dim3 {
        [i::cluster_id_x(), i::cluster_id_y(), i::cluster_id_z()].into()
    }

    /// The grid's extent in clusters.
    #[inline(always)]
    pub fn dim_clusters(&self) -> Dim3 {
        [i::cluster_nid_x(), i::cluster_nid_y(), i::cluster_nid_z()].into()
    }

    /// Arrives at the cluster barrier without waiting (release): work done
    /// between this and [`barrier_wait`](Self::barrier_wait) overlaps the
    /// other blocks' arrival.
    #[inline(always)]
    pub fn barrier_arrive(&self) -> ClusterBarrierToken {
        i::barrier_cluster_arrive();
        ClusterBarrierToken { _private: () }
    }

    /// Waits until every thread of the cluster has arrived (acquire).
    #[inline(always)]
    pub fn barrier_wait(&self, token: ClusterBarrierToken) {
        let ClusterBarrierToken { .. } = token;
        i::barrier_cluster_wait();
    }

    /// `cluster.map_shared_rank(ptr, rank)`: the same shared array in block
    /// `rank` of the cluster (distributed shared memory).
    #[inline(always)]
    pub fn map_shared_rank<T: Pod, const N: usize>(
        &self,
        array: &SharedArray<T, N>,
        rank: u32,
    ) -> ClusterSharedArray<T, N> {
        ClusterSharedArray {
            addr: i::mapa_shared_cluster(array.shared_addr(), rank),
            _t: PhantomData,
        }
    }
}

impl ThreadGroup for ClusterGroup {
    #[inline(always)]
    fn num_threads(&self) -> u32 {
        self.num_blocks() * Dim3::from(i::block_dim()).volume()
    }

    #[inline(always)]
    fn thread_rank(&self) -> u32 {
        let bd: Dim3 = i::block_dim().into();
        self.block_rank() * bd.volume() + bd.linear(i::thread_idx().into())
    }
}

sealed_groups!([] ClusterGroup);

impl GroupSync for ClusterGroup {
    /// `cluster.sync()`: barrier over every thread of the cluster, with
    /// release/acquire ordering of shared and global memory among them.
    #[inline(always)]
    fn sync(&self) {
        let t = self.barrier_arrive();
        self.barrier_wait(t);
    }
}

/// A shared array of another block of the cluster, from
/// [`ClusterGroup::map_shared_rank`]. Indexing out of bounds traps.
#[derive(Clone, Copy)]
pub struct ClusterSharedArray<T: Pod, const N: usize> {
    addr: u32,
    _t: PhantomData<T>,
}

impl<T: Pod, const N: usize> ClusterSharedArray<T, N> {
    /// Reads element `i` (`ld.shared::cluster`).
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        assert!(i < N);
        // SAFETY: in bounds of the array the address was mapped from.
        unsafe { ld_shared_in(Window::Cluster, self.addr + (i * size_of::<T>()) as u32) }
    }

    /// Writes element `i` (`st.shared::cluster`).
    #[inline(always)]
    pub fn set(&self, i: usize, value: T) {
        assert!(i < N);
        // SAFETY: in bounds of the array the address was mapped from.
        unsafe {
            st_shared_in(
                Window::Cluster,
                self.addr + (i * size_of::<T>()) as u32,
                value,
            )
        }
    }
}

impl<T: Pod, const N: usize> ClusterSharedArray<T, N> {
    /// The array's address in the cluster's shared window (what `mapa`
    /// gave): for [`AtomicRef::from_cluster_shared_addr`] at another scope
    /// than [`ClusterSharedArray::atomic`]'s.
    #[inline(always)]
    pub fn shared_addr(&self) -> u32 {
        self.addr
    }
}

impl<T: AtomicValue, const N: usize> ClusterSharedArray<T, N> {
    /// Element `i` as an atomic at cluster scope (CUDA's
    /// `cuda::atomic_ref<T, thread_scope_cluster>` on a `map_shared_rank`
    /// pointer): every operation of [`AtomicRef`] on distributed shared
    /// memory (`atom`, `red`, `ld`, `st` with `.shared::cluster`), from any
    /// thread of the cluster. Atomics do not alias, so this is safe;
    /// indexing out of bounds traps. The 64-bit `min`, `max`, `and`, `or`
    /// and `xor` are a compare-and-swap loop there: their instructions lose
    /// updates on sm_90 when the owning block and another block update one
    /// location at once (CUDA's own `atomicMin` on a `map_shared_rank`
    /// pointer does; the README's atomics section has the measurements).
    #[inline(always)]
    pub fn atomic(&self, i: usize) -> AtomicRef<'_, T, Cluster> {
        assert!(i < N);
        // SAFETY: in bounds of the array the address was mapped from, a
        // shared array (aligned to its element type) of a block of this
        // cluster; its elements are reached atomically through this
        // reference, and plain accesses race as they would with any other
        // atomic.
        unsafe { AtomicRef::from_cluster_shared_addr(self.addr + (i * size_of::<T>()) as u32) }
    }
}

impl<const N: usize> ClusterSharedArray<u32, N> {
    /// Atomically adds `v` to element `i` (`atom.shared::cluster.add.u32`);
    /// returns the old value.
    #[inline(always)]
    pub fn atomic_add(&self, i: usize, v: u32) -> u32 {
        assert!(i < N);
        // SAFETY: in bounds of the array the address was mapped from.
        unsafe { i::atom_add_shared_cluster_u32(self.addr + (i * 4) as u32, v) }
    }
}
