//! Kernels on the CPU: a simulated CUDA device (the `sim` feature).
//!
//! Every thread of a launch runs the kernel function, as on the GPU; the
//! group types, shuffles, votes, collectives, barriers, shared memory,
//! atomics and grid barriers behave as CUDA defines them (see `cg_sim`
//! for how, and what is not modelled). Where CUDA leaves a result
//! undefined the simulator says so, and the bugs a GPU hides (a barrier
//! some threads skip, a mask without the caller, a deadlock, `grid.sync()`
//! in an ordinary launch, two output patterns reaching one element in one
//! phase, barriers reached at different call sites, a pattern argument
//! that differs between threads) stop the launch with a [`Fault`] that
//! names the thread.
//!
//! ```ignore
//! use cg_core::sim::{self, Buffer, Shape};
//!
//! let input: Vec<f32> = (0..1000).map(|i| i as f32).collect();
//! let out = Buffer::<f32>::zeroed(input.len());
//! // `scale` is a #[kernel] of a kernel crate; off the GPU it is a plain
//! // function, which every simulated thread calls.
//! sim::launch(Shape::new(4, 256), || my_kernels::scale(&input, out.view(), 2.0))?;
//! assert_eq!(out.to_vec()[10], 20.0);
//! ```
//!
//! A kernel parameter `&[T]` is any host slice; a buffer view
//! (`Output<T>`, `Synced<T>`, `AtomicSlice<T>`) comes from a [`Buffer`]'s
//! [`view`](Buffer::view); a raw pointer from [`Buffer::as_ptr`].

use crate::__private::KernelBuffer;
use core::cell::UnsafeCell;
use std::boxed::Box;
use std::vec::Vec;

pub use cg_sim::warp::POISON;
pub use cg_sim::{with_schedule, Schedule};
pub use cg_sim::{Coords, Fault, FaultKind, Read, Report, Shape, Undefined};

/// Runs `kernel` as every thread of a launch of `shape` on the simulated
/// device; returns when all have returned, or at the first fault.
pub fn launch(shape: Shape, kernel: impl Fn() + Sync) -> Result<Report, Fault> {
    cg_sim::launch(shape, &kernel)
}

/// Runs `f` and returns, beside its result, the text that kernels running
/// on the simulator printed during it ([`println!`](macro@crate::println),
/// [`print!`](macro@crate::print)) on this OS thread, which a simulated
/// launch runs on, instead of writing it to standard output: for a test
/// that checks what a kernel prints.
///
/// ```ignore
/// let (report, text) = sim::capture_printed(|| sim::launch(Shape::new(1, 2), || my_kernels::hello()));
/// report?;
/// assert_eq!(text, "hello from thread 0\nhello from thread 1\n");
/// ```
pub fn capture_printed<R>(f: impl FnOnce() -> R) -> (R, std::string::String) {
    cg_sim::printf::capture(f)
}

/// `value` as a [`Uniform`](crate::uniform::Uniform) argument, for a
/// kernel called directly on the simulator (`sim::launch(shape, ||
/// kernel(sim::uniform(n), ..))`; a launch through a kernel's handle
/// makes its `Uniform` parameters itself). The simulator checks that every
/// thread passes the same value where a pattern takes it (a
/// `NonUniformArgument` fault otherwise). Host code only: a kernel that
/// calls it does not build for the GPU.
pub fn uniform<T: Copy>(value: T) -> crate::uniform::Uniform<T> {
    // SAFETY: on the simulator the contract is checked at run time, where
    // the value is used (`Site::uniform`), instead of being assumed.
    unsafe { crate::uniform::Uniform::new_unchecked(value) }
}

/// Device memory of the simulated device: the buffer a kernel's output
/// views and raw pointers point into. Every simulated thread may hold a
/// view at once, as on the GPU, so it hands them out from a shared
/// reference; read it back ([`to_vec`](Buffer::to_vec)) after the launch.
pub struct Buffer<T> {
    cells: Box<[UnsafeCell<T>]>,
}

// SAFETY: the simulated threads of a launch share the buffer as GPU threads
// share device memory: through the views' disjoint-access rules and
// atomics; the host reads it between launches.
unsafe impl<T: Send> Sync for Buffer<T> {}

impl<T: crate::Pod> Buffer<T> {
    /// A buffer holding `data`.
    pub fn from_slice(data: &[T]) -> Self {
        Buffer {
            cells: data.iter().map(|&v| UnsafeCell::new(v)).collect(),
        }
    }

    /// `len` elements of `value`.
    pub fn filled(len: usize, value: T) -> Self {
        Buffer {
            cells: (0..len).map(|_| UnsafeCell::new(value)).collect(),
        }
    }

    /// `len` zeroed elements.
    pub fn zeroed(len: usize) -> Self {
        Self::filled(len, T::zeroed())
    }

    /// Its length.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The view a kernel parameter takes (`Output<T>`, `Synced<T>`,
    /// `AtomicSlice<T>`), over the whole buffer, as the host's typed
    /// launch passes it.
    pub fn view<V: KernelBuffer<Elem = T>>(&self) -> V {
        // SAFETY: the cells live as long as the buffer, which outlives the
        // launch that uses the view (the launch borrows it); the views'
        // own rules keep the threads' writes apart.
        unsafe { V::from_kernel_buffer(self.as_ptr(), self.len()) }
    }

    /// The buffer's address, for a raw-pointer kernel parameter.
    pub fn as_ptr(&self) -> *mut T {
        UnsafeCell::raw_get(self.cells.as_ptr())
    }

    /// A copy of its contents (after a launch).
    pub fn to_vec(&self) -> Vec<T> {
        // SAFETY: no launch is running (`launch` has returned): nothing
        // writes the cells.
        self.cells.iter().map(|c| unsafe { *c.get() }).collect()
    }
}
