//! Every way a host call can fail, each with what to do about it.
//!
//! A kernel fault comes back once as what it was ([`Error::KernelPanic`],
//! [`Error::KernelFault`]), from whichever call first meets it, and every
//! later call on that GPU as [`Error::ContextLost`], naming it: no later
//! message can blame the driver, the PTX or the arguments for it.

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
    /// An index value that [`Gpu::upload_indices`](crate::Gpu::upload_indices)
    /// refused: negative, or not below the bound it was to be checked
    /// against. Nothing was uploaded.
    #[error(
        "index {value} at position {position} is not in 0..{bound}: every value of an index \
         buffer must be below the bound given to upload_indices (the length of the slice the \
         kernel gathers from); fix the data, or give the right bound"
    )]
    IndexOutOfBounds {
        /// Where the value is in the data.
        position: usize,
        /// The value, as written.
        value: String,
        /// The bound.
        bound: usize,
    },
    /// An environment variable the library reads holds a value it does
    /// not take.
    #[error("the environment variable {variable}={value}: {expected}")]
    Environment {
        /// The variable.
        variable: String,
        /// Its value.
        value: String,
        /// What it takes, and what unsetting it does.
        expected: String,
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
    /// A kernel panicked (a bounds check, `unwrap` on `None`, `assert!`,
    /// `panic!`), or stopped on one of cg-core's checks (`check`; the
    /// message names it): where, in which thread, and why. The context is
    /// lost with it: every later call on the GPU fails with
    /// [`Error::ContextLost`]. Current drivers keep the fault for the rest
    /// of the process, so the GPU is usable again only from a new process
    /// ([`Gpu::reset`](crate::Gpu::reset) says whether this one can recover).
    #[error(
        "kernel {kernel_desc} {stopped} at {file}:{line}:{column}, block ({}, {}, {}), thread ({}, {}, {}):\n{message}\n{lost}",
        .block[0], .block[1], .block[2], .thread[0], .thread[1], .thread[2],
        kernel_desc = kernel_phrase(kernel, *earlier_launches),
        stopped = if *check { "failed a cg-core check" } else { "panicked" },
        lost = lost_advice(*ordinal),
    )]
    KernelPanic {
        /// The last kernel launched before the fault was seen.
        kernel: String,
        /// Kernels launched before it since the last completed wait (the
        /// fault is in one of them or in `kernel`).
        earlier_launches: u32,
        /// Source file, as the project names it (`kernels/tests/src/x.rs`).
        file: String,
        /// Source line.
        line: u32,
        /// Source column.
        column: u32,
        /// The block (`blockIdx`) of the first thread that stopped.
        block: [u32; 3],
        /// Its thread index in the block (`threadIdx`).
        thread: [u32; 3],
        /// The panic's message; a formatted one as its template, with `{}`
        /// for each value (the GPU keeps no values).
        message: String,
        /// One of cg-core's checks stopped the kernel, not a panic.
        check: bool,
        /// The GPU.
        ordinal: usize,
    },
    /// A kernel stopped on a hardware exception (an illegal address, a
    /// misaligned access, a trap that left no record, ...); the context is
    /// lost with it, as for [`Error::KernelPanic`].
    #[error(
        "kernel {kernel_desc} stopped on {fault} ({code}): {hint}\n{lost}",
        kernel_desc = kernel_phrase(kernel, *earlier_launches),
        lost = lost_advice(*ordinal),
    )]
    KernelFault {
        /// The last kernel launched before the fault was seen.
        kernel: String,
        /// As in [`Error::KernelPanic`].
        earlier_launches: u32,
        /// The driver's error code, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        code: String,
        /// What the fault is, e.g. "an illegal memory access".
        fault: String,
        /// What causes it and how to find where.
        hint: String,
        /// The GPU.
        ordinal: usize,
    },
    /// A call on a GPU whose context an earlier kernel fault lost.
    #[error(
        "GPU {ordinal}'s context was lost to an earlier fault, so nothing can run in it: {cause}\n\
         The CUDA driver keeps a kernel fault for the rest of the process: use GPU {ordinal} again \
         from a new process (Gpu::reset() recovers in this one only where the driver allows it)"
    )]
    ContextLost {
        /// The GPU.
        ordinal: usize,
        /// The fault that lost it.
        cause: String,
    },
    /// A handle (buffer, module, kernel, `Gpu`, timer, graph) of a context
    /// that [`Gpu::reset`](crate::Gpu::reset) has since replaced.
    #[error(
        "this handle belongs to GPU {ordinal}'s context from before Gpu::reset(), whose memory and \
         kernels are gone: use the Gpu that reset returned (or Gpu::new({ordinal})) and upload or \
         load again"
    )]
    StaleHandle {
        /// The GPU.
        ordinal: usize,
    },
    /// [`Gpu::reset`](crate::Gpu::reset) did not reset the context: a
    /// kernel still runs, the driver refuses this process a new context
    /// after a kernel fault, or the call came from inside an operation.
    #[error("Gpu::reset() of GPU {ordinal} refused: {reason}")]
    ResetRefused {
        /// The GPU.
        ordinal: usize,
        /// Why.
        reason: String,
    },
    /// Device memory ran out.
    #[error(
        "out of memory on GPU {ordinal}: {} asked for, {} free of {}; drop buffers no longer \
         needed, or work on the data in pieces",
        bytes_text(*bytes), bytes_text(*free), bytes_text(*total),
    )]
    OutOfMemory {
        /// The GPU.
        ordinal: usize,
        /// Bytes asked for.
        bytes: u64,
        /// Bytes free when the allocation failed.
        free: u64,
        /// Bytes of device memory in all.
        total: u64,
    },
    /// The driver's PTX compiler rejected a module.
    #[error("the sm_{sm} PTX module does not compile for {device}; the driver's PTX compiler says:\n{log}")]
    InvalidPtx {
        /// The module's architecture.
        sm: u32,
        /// The device.
        device: String,
        /// The compiler's error log.
        log: String,
    },
    /// GPUs that cannot work as one [`GpuSet`](crate::GpuSet): fewer than
    /// asked for, different models, no peer access or no peer atomics
    /// between two of them.
    #[error("GPUs {ordinals:?} cannot work as one set: {reason}")]
    GpuSet {
        /// The ordinals asked for.
        ordinals: Vec<usize>,
        /// What is missing, naming the devices.
        reason: String,
    },
    /// A buffer of one GPU passed to a kernel on another that cannot reach
    /// it.
    #[error(
        "`{kernel}` runs on GPU {kernel_gpu}, but a buffer passed to it lives on GPU {buffer_gpu}, \
         which GPU {kernel_gpu} has no peer access to: open a GpuSet of both GPUs (it enables peer \
         access between them), or copy the data to GPU {kernel_gpu}"
    )]
    ForeignBuffer {
        /// The kernel.
        kernel: String,
        /// Where it runs.
        kernel_gpu: usize,
        /// Where the buffer lives.
        buffer_gpu: usize,
    },
    /// A multi-grid launch that cannot start: every grid is checked
    /// before any is launched, so nothing ran.
    #[error("multi-grid launch refused before any grid started: {reason}")]
    MultiGridLaunch {
        /// What is wrong, naming the GPU.
        reason: String,
    },
    /// One buffer given to two grids of a multi-grid launch
    /// ([`GpuSet::launch`](crate::GpuSet::launch)), writable in one of
    /// them: the grids run at once, so they would race on it. Nothing
    /// started.
    #[error(
        "multi-grid launch refused before any grid started: one buffer of GPU {buffer_gpu} is the \
         writable `{param}` of rank {rank}'s grid (GPU {gpu}) and {} `{other_param}` of rank \
         {other_rank}'s (GPU {other_gpu}); the grids run at once, so one would {} what the other \
         writes, and a kernel cannot declare yet which part of a buffer each grid writes. Give \
         each grid a buffer of its own (and pass data between grids after multi_grid.sync()), \
         or, where each grid writes only parts no other grid touches between the same \
         barriers, launch with the unsafe GpuSet::launch_sharing_buffers",
        if *other_writes { "the writable" } else { "the read-only" },
        if *other_writes { "overwrite" } else { "read half-written" }
    )]
    MultiGridSharedBuffer {
        /// The GPU the buffer lives on.
        buffer_gpu: usize,
        /// The writable parameter.
        param: String,
        /// The rank of the grid it is given to.
        rank: usize,
        /// That grid's GPU.
        gpu: usize,
        /// The other grid's parameter.
        other_param: String,
        /// The other grid's rank.
        other_rank: usize,
        /// The other grid's GPU.
        other_gpu: usize,
        /// Whether the other grid may write it too.
        other_writes: bool,
    },
    /// An operation only a CUDA device has, asked of the simulator
    /// ([`Gpu::simulator`](crate::Gpu::simulator)).
    #[error(
        "{operation} needs a CUDA device: the simulator runs kernels with CUDA's semantics but has \
         no CUDA context, streams, events, graphs or peers; run this part on a GPU (Gpu::new)"
    )]
    NeedsGpu {
        /// What was asked.
        operation: String,
    },
    /// A kernel the simulator cannot run: its kernel crate is not compiled
    /// for the host and linked into the program.
    #[error("the kernel `{kernel}` cannot run on the simulator: {reason}")]
    NotSimulated {
        /// The kernel.
        kernel: String,
        /// Why, and what to do.
        reason: String,
    },
    /// A launch on the simulator stopped at a fault: a panic, a barrier not
    /// every thread reaches, a deadlock, a shared-memory race and the rest
    /// of `cg_sim`'s checks. The simulated device stays usable.
    #[error("kernel `{kernel}` on the simulator: {fault}")]
    SimulatorFault {
        /// The kernel.
        kernel: String,
        /// The fault: what happened, and the thread (block, thread, warp,
        /// lane) where.
        fault: String,
    },
    /// NCCL (the `nccl` feature) could not be loaded or failed.
    #[error("{context}: {message}")]
    Nccl {
        /// What was being done.
        context: String,
        /// NCCL's word, or what to install.
        message: String,
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

impl Error {
    /// For a fault that lost a context ([`Error::KernelPanic`],
    /// [`Error::KernelFault`]): what happened, on one line, without the
    /// advice on recovery; what [`Error::ContextLost`] repeats.
    pub fn fault_summary(&self) -> Option<String> {
        match self {
            Error::KernelPanic { .. } | Error::KernelFault { .. } => {
                let text = self.to_string();
                let mut lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(':')).collect();
                lines.pop(); // the advice
                Some(lines.join(": "))
            }
            _ => None,
        }
    }
}

/// Names the kernel a fault is blamed on, and the others it could be in.
fn kernel_phrase(kernel: &str, earlier_launches: u32) -> String {
    match earlier_launches {
        0 => format!("`{kernel}`"),
        1 => format!("`{kernel}` (or the kernel launched before it since the last completed wait)"),
        n => format!(
            "`{kernel}` (or one of the {n} launched before it since the last completed wait)"
        ),
    }
}

/// What a lost context means and how to go on.
fn lost_advice(ordinal: usize) -> String {
    format!(
        "GPU {ordinal}'s context is lost with it, and the CUDA driver keeps the fault for the rest \
         of the process: use GPU {ordinal} again from a new process (Gpu::reset() recovers in this \
         one only where the driver allows it)"
    )
}

/// `n` bytes, in bytes and GiB.
fn bytes_text(n: u64) -> String {
    format!("{n} bytes ({:.2} GiB)", n as f64 / (1u64 << 30) as f64)
}

/// A driver error with what was being done (for calls that cannot meet a
/// lost context: opening one).
pub(crate) fn driver_error(context: String, source: DriverError) -> Error {
    Error::Driver { context, source }
}
