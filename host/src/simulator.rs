//! The CPU simulator as a device (the `sim` feature): [`Gpu::simulator`]
//! opens it, and the same typed launch handles, buffers, launch checks and
//! errors work on it as on a GPU.
//!
//! A kernel runs on it when its kernel crate is compiled for the host too
//! and linked into the program: a dependency of the host crate (a
//! dev-dependency for tests) with cg-core's `sim` feature, which this
//! crate's `sim` feature turns on, named somewhere in the program
//! (`use my_kernels as _;`) so that the linker keeps it. `#[kernel]`
//! registers every entry point of such a crate (`cg_sim::registry`);
//! loading a module looks its kernels up there by crate and name.
//!
//! The simulated device is an sm_90 device with [`cg_sim::SMS`] SMs of
//! [`cg_sim::SM_THREADS`] threads: a cooperative launch may have as many
//! blocks as fit there (what [`Function::max_cooperative_blocks`]
//! answers). Device memory is host memory; a launch runs to its end before
//! `launch` returns (so [`Gpu::synchronize`] has nothing to wait for); a
//! fault of the kernel comes back from `launch` itself as
//! [`Error::SimulatorFault`] naming the thread, and the device stays
//! usable. What the simulator found undefined in the last launch (reads of
//! missing lanes, of shared memory no thread wrote) is in
//! [`Gpu::simulator_report`]. Timing (events, graphs), peer access, NCCL
//! and multi-grid launches need a GPU: they are [`Error::NeedsGpu`].

use crate::context;
use crate::gpu::{Backend, GpuInner};
use crate::launch::{DeviceLimits, LaunchConfig};
use crate::module::Function;
use crate::{DeviceInfo, Error, Gpu};
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

pub use cg_sim::{Coords, Read, Report, Undefined};

/// The compute capability the simulated device reports: the kernels' sm_90
/// module is the one it loads, clusters included.
pub const SIMULATED_SM: u32 = 90;

/// The key of the simulator's device state (no CUDA ordinal can be this).
const SIM_DEVICE_KEY: usize = usize::MAX;

/// The simulator's part of a [`Gpu`].
pub(crate) struct SimDevice {
    /// What the last launch found undefined.
    report: Mutex<Option<Report>>,
}

impl Gpu {
    /// The CPU simulator as a device: buffers in host memory, kernels run
    /// by `cg_sim` with CUDA's semantics, every launch checked as on a GPU
    /// against the simulated device's limits (see the `simulator` module
    /// of this crate for what it runs and what needs a GPU).
    pub fn simulator() -> Gpu {
        let device = context::device(SIM_DEVICE_KEY);
        let generation = device.enter_any().generation();
        Gpu {
            inner: Arc::new(GpuInner::new(
                Backend::Sim(SimDevice {
                    report: Mutex::new(None),
                }),
                info(),
                device,
                generation,
            )),
        }
    }

    /// On the simulator, what its last launch found undefined (empty when
    /// every value it read was defined); `None` on a GPU, or before the
    /// first launch.
    pub fn simulator_report(&self) -> Option<Report> {
        let sim = self.sim()?;
        sim.report.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// What the simulated device is and can do.
fn info() -> DeviceInfo {
    DeviceInfo {
        name: format!(
            "cg-sim (CPU simulator, {} SMs of {} threads)",
            cg_sim::SMS,
            cg_sim::SM_THREADS
        ),
        sm: SIMULATED_SM,
        multiprocessors: cg_sim::SMS,
        cooperative_launch: true,
        l2_bytes: 0,
        limits: DeviceLimits {
            max_threads_per_block: cg_sim::MAX_BLOCK_THREADS,
            max_block: [cg_sim::MAX_BLOCK_THREADS, cg_sim::MAX_BLOCK_THREADS, 64],
            max_grid: [i32::MAX as u32, 65535, 65535],
            max_shared_mem_optin: cg_sim::MAX_SHARED_BYTES,
        },
    }
}

/// Blocks of `threads` threads and `shared` bytes of dynamic shared memory
/// resident at once on one simulated SM.
pub(crate) fn max_blocks_per_sm(threads: u32, shared: u32) -> u32 {
    if threads == 0 || threads > cg_sim::MAX_BLOCK_THREADS || shared > cg_sim::MAX_SHARED_BYTES {
        return 0;
    }
    let by_shared = cg_sim::SM_SHARED_BYTES
        .checked_div(shared)
        .unwrap_or(u32::MAX);
    (cg_sim::SM_THREADS / threads)
        .min(cg_sim::SM_BLOCKS)
        .min(by_shared)
}

/// Clusters of `cluster_blocks` blocks (each of `threads` threads and
/// `shared` bytes) resident at once: a cluster lives on one SM here.
pub(crate) fn max_active_clusters(threads: u32, shared: u32, cluster_blocks: u32) -> u32 {
    let per_sm = max_blocks_per_sm(threads, shared) / cluster_blocks.max(1);
    per_sm * cg_sim::SMS
}

/// The kernel `name` of `krate`, registered by its `#[kernel]`.
pub(crate) fn find_kernel(
    krate: Option<&str>,
    name: &str,
) -> Result<&'static cg_sim::registry::Kernel, Error> {
    let Some(krate) = krate else {
        return Err(Error::NotSimulated {
            kernel: name.into(),
            reason:
                "its PTX set names no kernel crate (a PtxSet built by hand, or by a cg-builder \
                     older than the simulator): only kernels whose handles cg-builder generated \
                     run on the simulator"
                    .into(),
        });
    };
    cg_sim::registry::find(krate, name).ok_or_else(|| Error::NotSimulated {
        kernel: name.into(),
        reason: if cg_sim::registry::has_crate(krate) {
            format!(
                "the host build of `{krate}` linked into this program has no kernel of that name: \
                 is it behind a `cfg` the host build leaves out?"
            )
        } else {
            format!(
                "no host build of the kernel crate `{krate}` is linked into this program: make it a \
                 dependency of the host crate (a dev-dependency for tests), turn on \
                 cooperative-groups' `sim` feature, and name the crate once (`use {krate} as _;`) \
                 so that the linker keeps its kernels"
            )
        },
    })
}

/// The launch's PTX parameters, shared by every simulated thread.
struct Params(*const *mut c_void);

// SAFETY: the parameters are only read, by the simulated threads of one
// launch, which all run on the launching OS thread.
unsafe impl Sync for Params {}

/// Runs `kernel` (found for `function`) on the simulator, as checked by
/// `plan`: returns when every thread has returned, with a fault as
/// [`Error::SimulatorFault`].
///
/// # Safety
/// As [`Function::launch`]: `params` holds one pointer per PTX parameter of
/// the kernel, to a value of its type.
pub(crate) unsafe fn launch(
    function: &Function,
    kernel: &'static cg_sim::registry::Kernel,
    cluster: Option<[u32; 3]>,
    cooperative: bool,
    config: &LaunchConfig,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let sim = function
        .gpu()
        .sim()
        .expect("a simulated function's GPU is the simulator");
    let mut shape = cg_sim::Shape::dims(config.grid.as_array(), config.block.as_array())
        .with_dynamic_shared(config.shared_mem_bytes);
    if let Some(c) = cluster {
        shape = shape.with_cluster(c);
    }
    if cooperative {
        shape = shape.cooperative();
    }
    let params = Params(params.as_ptr());
    let entry = kernel.entry;
    let run = || {
        let p = &params;
        // SAFETY: this function's contract.
        unsafe { entry(p.0) }
    };
    let result = cg_sim::launch(shape, &run);
    let mut report = sim.report.lock().unwrap_or_else(|e| e.into_inner());
    match result {
        Ok(r) => {
            *report = Some(r);
            Ok(())
        }
        Err(fault) => {
            *report = None;
            Err(Error::SimulatorFault {
                kernel: function.name().into(),
                fault: fault.to_string(),
            })
        }
    }
}
