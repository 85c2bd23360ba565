//! What every thread group has in common.

/// A 3-D extent or index (`dim3` in CUDA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

impl From<[u32; 3]> for Dim3 {
    #[inline(always)]
    fn from([x, y, z]: [u32; 3]) -> Self {
        Dim3 { x, y, z }
    }
}

impl Dim3 {
    /// `x * y * z`.
    #[inline(always)]
    pub fn volume(self) -> u32 {
        self.x * self.y * self.z
    }

    /// The linear rank of `index` inside this extent, x fastest.
    #[inline(always)]
    pub fn linear(self, index: Dim3) -> u32 {
        (index.z * self.y + index.y) * self.x + index.x
    }
}

/// A group of threads that can synchronize (CUDA's `thread_group`): the
/// block, its tiles and coalesced groups. Generic code can take any group:
///
/// ```ignore
/// fn leader_writes<G: ThreadGroup>(g: &G, out: *mut u32, v: u32) {
///     if g.thread_rank() == 0 { unsafe { *out = v } }
///     g.sync();
/// }
/// ```
pub trait ThreadGroup {
    /// Number of threads in the group (`num_threads()`, formerly `size()`).
    fn num_threads(&self) -> u32;
    /// This thread's rank in the group, `0..num_threads()`.
    fn thread_rank(&self) -> u32;
    /// Barrier over the group's threads, with memory ordering among them.
    fn sync(&self);
}

/// `cg::sync(group)`: the free-function form of [`ThreadGroup::sync`].
#[inline(always)]
pub fn sync<G: ThreadGroup>(group: &G) {
    group.sync()
}
