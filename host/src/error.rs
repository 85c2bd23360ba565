//! Every way a host call can fail, each with what to do about it.

use cudarc::driver::DriverError;

/// An error from the host runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `libcuda` could not be loaded.
    #[error(
        "no CUDA driver on this machine: libcuda.so could not be loaded. Run on a machine with an \
         NVIDIA GPU and driver (the README's \"GPU workflow\" runs the project on one from a machine without)"
    )]
    NoDriver,
    /// The driver loaded but reports no GPU.
    #[error("the CUDA driver reports no GPU ({0}); check `nvidia-smi` and CUDA_VISIBLE_DEVICES")]
    NoDevice(String),
    /// A device ordinal past the last device.
    #[error("there is no GPU {ordinal}: the driver reports {count}")]
    NoSuchDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many there are.
        count: usize,
    },
    /// The device is older than every PTX module that was built.
    #[error(
        "{device} is sm_{sm}, older than every PTX module built (sm_{oldest} is the oldest); \
         add .arch({sm}) to the KernelBuild in build.rs if the kernels can run there"
    )]
    UnsupportedArch {
        /// Device name.
        device: String,
        /// Its compute capability as `major * 10 + minor`.
        sm: u32,
        /// The oldest module built.
        oldest: u32,
    },
    /// A cooperative launch on a device that cannot do one.
    #[error(
        "{device} does not support cooperative launches, which `{kernel}` needs for grid.sync()"
    )]
    CooperativeUnsupported {
        /// Device name.
        device: String,
        /// The kernel.
        kernel: String,
    },
    /// A cluster launch on a device older than sm_90.
    #[error(
        "`{kernel}` runs in thread-block clusters, which need sm_90 or newer; {device} is sm_{sm}"
    )]
    ClusterUnsupported {
        /// Device name.
        device: String,
        /// Its compute capability.
        sm: u32,
        /// The kernel.
        kernel: String,
    },
    /// A kernel compiled only for newer architectures than the loaded module.
    #[error(
        "kernel `{kernel}` is not in the sm_{sm} module this device loaded: it is built only for newer \
         architectures (its source is gated with cfg(target_feature = \"sm_XX\"))"
    )]
    KernelUnavailable {
        /// The kernel.
        kernel: String,
        /// The loaded module's architecture.
        sm: u32,
    },
    /// A cooperative grid larger than can be resident at once.
    #[error(
        "cooperative launch of `{kernel}` refused before launch: {requested} blocks requested, but at \
         most {limit} can be co-resident on this GPU ({per_sm} per SM x {sms} SMs with {threads} threads \
         and {shared_mem_bytes} bytes of dynamic shared memory per block); launch at most {limit} blocks \
         (Function::max_cooperative_blocks) and loop over the data inside the kernel"
    )]
    GridTooLarge {
        /// The kernel.
        kernel: String,
        /// Blocks asked for.
        requested: u64,
        /// Blocks that fit.
        limit: u64,
        /// Resident blocks per SM for this block shape.
        per_sm: u32,
        /// SMs on the device.
        sms: u32,
        /// Threads per block.
        threads: u32,
        /// Dynamic shared memory per block.
        shared_mem_bytes: u32,
    },
    /// A launch configuration the device cannot run, found before launch.
    #[error("invalid launch of `{kernel}`: {reason}")]
    InvalidLaunch {
        /// The kernel.
        kernel: String,
        /// What is wrong and the limit.
        reason: String,
    },
    /// A kernel name the module does not export.
    #[error("the PTX module has no kernel `{name}`; it has: {available}")]
    KernelNotFound {
        /// The name asked for.
        name: String,
        /// The entry points it has.
        available: String,
    },
    /// Host and device buffers of different lengths.
    #[error("length mismatch: device buffer holds {device} elements, host slice {host}")]
    LengthMismatch {
        /// Device elements.
        device: usize,
        /// Host elements.
        host: usize,
    },
    /// Work on the stream did not finish in time.
    #[error("GPU work did not finish within {seconds:.1} s (last launch: `{kernel}`); a kernel may be deadlocked")]
    Timeout {
        /// The last kernel launched on the stream.
        kernel: String,
        /// The deadline.
        seconds: f64,
    },
    /// Reading or writing a file failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A CUDA driver call failed.
    #[error("{context}: {source}")]
    Driver {
        /// What was being done.
        context: String,
        /// The driver's error.
        #[source]
        source: DriverError,
    },
}

/// Attaches what was being done to a driver error.
pub(crate) trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Error>;
}

impl<T> Context<T> for Result<T, DriverError> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, Error> {
        self.map_err(|source| Error::Driver {
            context: what(),
            source,
        })
    }
}
