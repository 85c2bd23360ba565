//! What the simulator checks that the types cannot: the hooks of the
//! output views, grid barriers and patterns into `cg_sim::device`.
//!
//! An [`Output`](crate::output::Output)'s patterns keep threads apart only
//! if every thread uses one pattern per phase and passes the same values
//! to the arguments all threads share, and every thread reaches the same
//! grid barriers. Off the GPU, with the `sim` feature and inside a
//! simulated launch, these hooks tell the simulator each element a pattern
//! hands out (`&mut`), each read through a `Synced` view, each grid
//! barrier and each shared argument, with the kernel's line
//! (`#[track_caller]` on the public methods, on the host only), and it
//! reports a race, a barrier divergence or a non-uniform argument as a
//! fault. On the GPU a [`Site`] is empty and every hook is nothing: no
//! instruction of a kernel changes.
#![cfg_attr(
    not(all(not(target_arch = "nvptx64"), feature = "sim")),
    allow(unused_variables)
)]

/// Where a pattern was called: the kernel's line on the simulator, nothing
/// (a type of no size) on the GPU.
#[derive(Clone, Copy)]
pub(crate) struct Site {
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    at: &'static core::panic::Location<'static>,
}

impl Site {
    /// The caller's site: the first caller up the stack that is not
    /// `#[track_caller]` (the kernel's line, through the public methods).
    #[inline(always)]
    #[cfg_attr(all(not(target_arch = "nvptx64"), feature = "sim"), track_caller)]
    pub(crate) fn here() -> Site {
        Site {
            #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
            at: core::panic::Location::caller(),
        }
    }

    /// The element at `p` is handed out as `&mut` here.
    #[inline(always)]
    pub(crate) fn exclusive<T>(self, p: *const T) {
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            cg_sim::device::global_exclusive(p as u64, self.at);
        }
    }

    /// The buffer at `base` is read through a read view here.
    #[inline(always)]
    pub(crate) fn read<T>(self, base: *const T) {
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            cg_sim::device::global_read(base as u64, self.at);
        }
    }

    /// A grid barrier is reached here.
    #[inline(always)]
    pub(crate) fn grid_barrier(self) {
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            cg_sim::device::grid_barrier_arrive(self.at);
        }
    }

    /// `values` are passed here for arguments every thread must pass
    /// alike (`what`: their names). Off the GPU only: its callers gather
    /// the values only there.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub(crate) fn uniform(self, what: &'static str, values: &[u64]) {
        #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
        if cg_sim::device::inside() {
            cg_sim::device::uniform_argument(self.at, what, values);
        }
    }
}

/// An output view of `len` elements at `ptr` was made.
#[inline(always)]
pub(crate) fn buffer<T>(ptr: *const T, len: usize) {
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    if cg_sim::device::inside() {
        cg_sim::device::global_buffer(ptr as u64, len as u64, core::mem::size_of::<T>() as u64);
    }
}

/// This thread's accesses to the buffer at `ptr` are ordered after every
/// access to it so far (the caller vouches for it: `assume_synced`).
#[inline(always)]
pub(crate) fn acquire<T>(ptr: *const T) {
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    if cg_sim::device::inside() {
        cg_sim::device::global_acquire(ptr as u64);
    }
}

/// This thread has passed a grid barrier.
#[inline(always)]
pub(crate) fn grid_barrier_passed() {
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    if cg_sim::device::inside() {
        cg_sim::device::grid_barrier_passed();
    }
}

/// The kernel `name` starts (its host build, which the simulator runs).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(crate) fn kernel_name(name: &'static str) {
    #[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
    if cg_sim::device::inside() {
        cg_sim::device::kernel_name(name);
    }
}
