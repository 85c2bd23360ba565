//! The kernels compiled for the host, by kernel crate and entry-point name:
//! how a simulated device finds the kernel a typed launch handle names.
//!
//! `#[kernel]` (with cg-core's `sim` feature) registers every entry point of
//! a kernel crate built for the host: its crate, its PTX name and an entry
//! that takes the launch's parameters exactly as the PTX entry point takes
//! them (one pointer per PTX parameter). A host program finds them only if
//! the kernel crate is linked into it (a dependency it names, e.g.
//! `use my_kernels as _;`).

use std::ffi::c_void;

/// One kernel entry point compiled for the host.
pub struct Kernel {
    /// The kernel crate's name as Rust spells it (`my_kernels`).
    pub krate: &'static str,
    /// The entry point's name, as in the PTX module.
    pub name: &'static str,
    /// Runs one thread of the kernel on the simulated device.
    ///
    /// # Safety
    /// `params` points to one pointer per PTX parameter of the entry point,
    /// each to a value of that parameter's type (a device address is a host
    /// pointer on the simulator), valid for the kernel's accesses; called
    /// only by a thread of a simulated launch.
    pub entry: unsafe fn(params: *const *mut c_void),
}

inventory::collect!(Kernel);

/// The kernel `name` of crate `krate`, if a host build of it is linked in.
pub fn find(krate: &str, name: &str) -> Option<&'static Kernel> {
    inventory::iter::<Kernel>
        .into_iter()
        .find(|k| k.krate == krate && k.name == name)
}

/// Whether any kernel of crate `krate` is linked in.
pub fn has_crate(krate: &str) -> bool {
    inventory::iter::<Kernel>
        .into_iter()
        .any(|k| k.krate == krate)
}

#[doc(hidden)]
pub use inventory::submit;
