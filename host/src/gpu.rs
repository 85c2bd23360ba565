//! One GPU: its context, a stream of its own, and what the device can do.

use crate::context::{self, ContextBound, DeviceState, Entered};
use crate::error::{driver_error, Error};
use crate::fault::{self, FaultSink, LaunchTrail};
use crate::grid_barrier::{GridBarrierPlace, GridBarrierRegion};
use crate::launch::DeviceLimits;
use crate::module::{Module, PtxSet};
use crate::strings::ModuleStrings;
use crate::DeviceBuffer;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Work recorded by [`Gpu::capture`], replayed with one call.
pub struct Graph {
    graph: ContextBound<cudarc::driver::CudaGraph>,
    gpu: Gpu,
}

impl Graph {
    /// Replays the recorded work on the stream it was captured from.
    pub fn launch(&self) -> Result<(), Error> {
        let _entered = self.gpu.enter()?;
        self.gpu
            .driver(self.graph.launch(), || "launching a graph".into())?;
        self.gpu.launched("(a CUDA graph)");
        Ok(())
    }
}

/// What the device is and what it can do, read once when the [`Gpu`] opens.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability as `major * 10 + minor` (90 for sm_90).
    pub sm: u32,
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Whether `cuLaunchCooperativeKernel` is supported.
    pub cooperative_launch: bool,
    /// L2 cache size in bytes.
    pub l2_bytes: u64,
    /// Launch limits.
    pub limits: DeviceLimits,
}

pub(crate) struct GpuInner {
    /// The grid barrier's counters, made when the first module with a grid
    /// barrier loads (dropped before the context they live in).
    grid_barrier: Mutex<Option<Arc<GridBarrierRegion>>>,
    backend: Backend,
    info: DeviceInfo,
    device: &'static DeviceState,
    /// The context generation this handle belongs to.
    generation: u64,
    /// The last kernel launched on the stream, for fault and timeout
    /// messages.
    last_launch: Mutex<String>,
    /// Kernels launched since the last wait that succeeded.
    launches_since_wait: AtomicU32,
    /// How long [`Gpu::synchronize`] waits before giving up, in
    /// milliseconds (0: for ever).
    deadline_ms: AtomicU64,
    /// The string tables of the modules loaded in this context, for naming
    /// a fault's file and message.
    strings: Mutex<Vec<Arc<ModuleStrings>>>,
}

impl GpuInner {
    /// A device just opened: no launch yet, the deadline from the
    /// environment.
    pub(crate) fn new(
        backend: Backend,
        info: DeviceInfo,
        device: &'static DeviceState,
        generation: u64,
    ) -> Self {
        GpuInner {
            grid_barrier: Mutex::new(None),
            backend,
            info,
            device,
            generation,
            last_launch: Mutex::new(String::new()),
            launches_since_wait: AtomicU32::new(0),
            deadline_ms: AtomicU64::new(deadline_from_env()),
            strings: Mutex::new(Vec::new()),
        }
    }
}

/// What runs a [`Gpu`]'s work.
pub(crate) enum Backend {
    /// A CUDA device.
    Cuda(Cuda),
    /// The CPU simulator ([`Gpu::simulator`]).
    #[cfg(feature = "sim")]
    Sim(crate::simulator::SimDevice),
}

/// A CUDA device's context, stream and fault record.
pub(crate) struct Cuda {
    // Released in this order: the stream and the fault record before the
    // context they live in.
    pub(crate) stream: ContextBound<Arc<CudaStream>>,
    sink: ContextBound<FaultSink>,
    pub(crate) ctx: ContextBound<Arc<CudaContext>>,
}

/// A GPU and the stream its work runs on. Cheap to clone (shared handle).
///
/// Every `Gpu` of one device in a process shares one stream, so all work on
/// a device runs in the order it was issued. That is what keeps cooperative
/// kernels safe: each needs every block resident at once, and two of them
/// running at the same time on different streams can each hold part of the
/// GPU and wait at their grid barriers for each other forever.
///
/// A kernel fault loses the device's context: the call that meets it
/// returns [`Error::KernelPanic`] or [`Error::KernelFault`], and every later
/// call [`Error::ContextLost`]; the GPU is usable again from a new process
/// ([`Gpu::reset`] where the driver allows this one to recover).
///
/// GPU 0 where there is one, else the CPU simulator (the `sim` feature),
/// as a test opens it; a buffer up and back:
///
#[cfg_attr(feature = "sim", doc = "```")]
#[cfg_attr(not(feature = "sim"), doc = "```ignore")]
/// use cooperative_groups::Gpu;
///
/// let gpu = Gpu::new(0).unwrap_or_else(|_| Gpu::simulator());
/// let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
/// let out = gpu.filled(x.len(), 0.0f32)?; // a kernel's `Output<f32>`
/// assert_eq!(x.to_vec()?, [1.0, 2.0, 3.0]);
/// assert_eq!(out.to_vec()?, [0.0; 3]);
/// // Kernels are launched through the typed handles cg-builder generates:
/// // `Kernels::load(&gpu)?.saxpy.launch(LaunchConfig::new(blocks, 256), ..)`.
/// # Ok::<(), cooperative_groups::Error>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
}

/// The open GPUs of the process, by ordinal: what [`Gpu::new`] returns.
static OPEN: Mutex<Vec<(usize, Gpu)>> = Mutex::new(Vec::new());

/// Whether the driver gives this process a new context on `device`: it
/// creates one (not the primary one) and destroys it again. After a kernel
/// fault, drivers that keep the fault for the rest of the process answer
/// with the fault's code.
fn new_context_allowed(device: sys::CUdevice) -> Result<(), sys::CUresult> {
    let mut ctx = std::ptr::null_mut();
    // SAFETY: no creation parameters; the context made (and made current)
    // is destroyed before return, which makes the one current before it
    // current again.
    unsafe {
        sys::cuCtxCreate_v4(&mut ctx, std::ptr::null_mut(), 0, device)
            .result()
            .map_err(|e| e.0)?;
        let _ = sys::cuCtxDestroy_v2(ctx);
    }
    Ok(())
}

/// `CG_DEADLINE_SECONDS` as milliseconds (0 when unset or not a number).
fn deadline_from_env() -> u64 {
    std::env::var("CG_DEADLINE_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map_or(0, |s| ((s * 1000.0) as u64).max(1))
}

/// Whether a CUDA driver library can be loaded on this machine.
///
/// The library found stays loaded for the life of the process: unloading
/// `libcuda` (as a probe that opens and closes it would) can deadlock or
/// crash later driver calls from other threads.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        ["libcuda.so.1", "libcuda.so"].iter().any(|name| {
            // SAFETY: loading the system's CUDA driver runs only its own
            // initialisers; it is never unloaded.
            match unsafe { libloading::Library::new(*name) } {
                Ok(lib) => {
                    std::mem::forget(lib);
                    true
                }
                Err(_) => false,
            }
        })
    })
}

impl Gpu {
    /// How many GPUs the driver reports (`CUDA_VISIBLE_DEVICES` chooses):
    /// [`Error::NoDriver`] without a driver.
    pub fn count() -> Result<usize, Error> {
        if !driver_present() {
            return Err(Error::NoDriver);
        }
        match CudaContext::device_count() {
            Ok(n) => Ok(n.max(0) as usize),
            Err(e) => Err(Error::NoDevice(e.to_string())),
        }
    }

    /// Opens GPU `ordinal` (or returns the process's handle to it). Fails
    /// with [`Error::NoDriver`] when there is no CUDA driver,
    /// [`Error::NoDevice`] when it reports no GPU.
    pub fn new(ordinal: usize) -> Result<Self, Error> {
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, gpu)) = open.iter().find(|(o, _)| *o == ordinal) {
            return Ok(gpu.clone());
        }
        let gpu = Self::open(ordinal)?;
        open.push((ordinal, gpu.clone()));
        Ok(gpu)
    }

    fn open(ordinal: usize) -> Result<Self, Error> {
        let count = Self::count()?;
        if count == 0 {
            return Err(Error::NoDevice("0 devices".into()));
        }
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        let device = context::device(ordinal);
        // Entered for the whole opening, so that no reset interleaves.
        let entered = device.enter_any();
        let generation = entered.generation();
        let failed = |what: String| move |e: DriverError| driver_error(what, e);
        let ctx = CudaContext::new(ordinal).map_err(failed(format!("opening GPU {ordinal}")))?;
        let ctx = ContextBound::new(ctx, device, generation);
        // All work goes to one stream, in order; cudarc's per-buffer event
        // tracking (for buffers shared between streams) would only add an
        // event record per kernel argument.
        // SAFETY: no buffers exist yet on this context's streams.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(failed("creating a stream".into()))?;
        let stream = ContextBound::new(stream, device, generation);
        let sink = FaultSink::new(&ctx).map_err(failed("allocating the fault record".into()))?;
        let sink = ContextBound::new(sink, device, generation);
        let attr = |a: Attr| -> Result<u32, Error> {
            ctx.attribute(a)
                .map(|v| v as u32)
                .map_err(failed(format!("reading {a:?}")))
        };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(failed("reading the compute capability".into()))?;
        let info = DeviceInfo {
            name: ctx
                .name()
                .map_err(failed("reading the device name".into()))?,
            sm: (major * 10 + minor) as u32,
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            cooperative_launch: attr(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
            limits: DeviceLimits {
                max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
                max_block: [
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
                ],
                max_grid: [
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                    attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
                ],
                max_shared_mem_optin: attr(
                    Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                )?,
            },
        };
        drop(entered);
        Ok(Self {
            inner: Arc::new(GpuInner::new(
                Backend::Cuda(Cuda { stream, sink, ctx }),
                info,
                device,
                generation,
            )),
        })
    }

    /// Resets the device's primary context (`cuDevicePrimaryCtxReset`) and
    /// opens a new one, releasing everything the old one held. Returns the
    /// new `Gpu`, which [`Gpu::new`] returns from now on too.
    ///
    /// After a kernel fault ([`Error::KernelPanic`], [`Error::KernelFault`])
    /// this is how a process would go on, where the driver allows it. The
    /// drivers measured here (580) keep a kernel fault for the rest of the
    /// process: they refuse it every new context, primary or not, reset or
    /// not. The reset asks first (it creates and destroys a context of its
    /// own) and, refused, returns [`Error::ResetRefused`] saying so, with
    /// nothing changed: the GPU is usable again only from a new process.
    ///
    /// Every handle of the old context, on every thread (this `Gpu` and its
    /// clones, its buffers, modules, kernels, timers and graphs), is invalid
    /// after a reset: using one returns [`Error::StaleHandle`], and dropping
    /// one releases nothing (what it held went with the context). Upload and
    /// load again on the new `Gpu`. The reset waits for the calls on this
    /// GPU in flight on other threads. It is refused for a handle that is
    /// already stale, and while a kernel is still running (after
    /// [`Error::Timeout`]): the reset would wait for it.
    pub fn reset(&self) -> Result<Gpu, Error> {
        let ordinal = self.ordinal();
        let cuda = self.cuda("Gpu::reset")?;
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        {
            let entered = self.inner.device.enter_any();
            if entered.generation() != self.inner.generation {
                return Err(Error::StaleHandle { ordinal });
            }
            // A lost context answers with its fault, a live one with the
            // state of its stream.
            let _ = cuda.ctx.bind_to_thread();
            // SAFETY: the stream of the current generation (checked above,
            // with the device entered), alive as long as `self`.
            let r = unsafe { sys::cuStreamQuery(cuda.stream.cu_stream()) };
            if r == sys::cudaError_enum::CUDA_ERROR_NOT_READY {
                return Err(Error::ResetRefused {
                    ordinal,
                    reason: format!(
                        "a kernel is still running on it (the last launched: `{}`), and a reset \
                         would wait for it to end: end the process instead",
                        self.last_launch()
                    ),
                });
            }
            if fault::lost_context_fault(r).is_some() {
                // A fault no call has met yet: record it as what lost the
                // context.
                let _ = self.driver_failure(DriverError(r), String::new);
            }
            if self.inner.device.lost().is_some() {
                if let Err(code) = new_context_allowed(cuda.ctx.cu_device()) {
                    return Err(Error::ResetRefused {
                        ordinal,
                        reason: format!(
                            "the CUDA driver keeps the kernel fault for the rest of this process: it \
                             refuses it a new context ({}), so a reset would only lose the old \
                             one's handles; use GPU {ordinal} again from a new process (to go on \
                             after a fault, run the work that may fault in a child process)",
                            fault::code_name(code)
                        ),
                    });
                }
            }
        }
        let cu_device = cuda.ctx.cu_device();
        self.inner.device.reset(self.inner.generation, || {
            // SAFETY: the device of this context; no call of this crate is in
            // flight on it (the device is held for writing).
            unsafe { sys::cuDevicePrimaryCtxReset_v2(cu_device) }
                .result()
                .map_err(|e| driver_error(format!("resetting GPU {ordinal}'s primary context"), e))
        })?;
        crate::gpu_set::forget_peers(ordinal);
        let gpu = Self::open(ordinal)?;
        gpu.inner.deadline_ms.store(
            self.inner.deadline_ms.load(Ordering::Relaxed),
            Ordering::Relaxed,
        );
        open.retain(|(o, _)| *o != ordinal);
        open.push((ordinal, gpu.clone()));
        Ok(gpu)
    }

    /// The device's ordinal (0 for the simulator, which is a device of its
    /// own).
    pub fn ordinal(&self) -> usize {
        match self.inner.backend {
            Backend::Cuda(_) => self.inner.device.ordinal(),
            #[cfg(feature = "sim")]
            Backend::Sim(_) => 0,
        }
    }

    /// Whether `other` is a handle to the same device (so the same stream).
    pub(crate) fn same_device(&self, other: &Gpu) -> bool {
        std::ptr::eq(self.inner.device, other.inner.device)
    }

    /// Whether this is the CPU simulator ([`Gpu::simulator`]) rather than a
    /// CUDA device.
    pub fn is_simulator(&self) -> bool {
        !matches!(self.inner.backend, Backend::Cuda(_))
    }

    /// The CUDA parts of the device, for `operation`:
    /// [`Error::NeedsGpu`] on the simulator.
    pub(crate) fn cuda(&self, operation: &str) -> Result<&Cuda, Error> {
        self.cuda_parts().ok_or_else(|| Error::NeedsGpu {
            operation: operation.into(),
        })
    }

    /// The CUDA parts of the device; `None` on the simulator.
    fn cuda_parts(&self) -> Option<&Cuda> {
        match &self.inner.backend {
            Backend::Cuda(c) => Some(c),
            #[cfg(feature = "sim")]
            Backend::Sim(_) => None,
        }
    }

    /// The simulated device, on the simulator.
    #[cfg(feature = "sim")]
    pub(crate) fn sim(&self) -> Option<&crate::simulator::SimDevice> {
        match &self.inner.backend {
            Backend::Sim(s) => Some(s),
            Backend::Cuda(_) => None,
        }
    }

    /// What the device is and can do.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The cudarc context, for what this crate does not wrap
    /// ([`Error::NeedsGpu`] on the simulator). After [`Gpu::reset`], the
    /// old `Gpu`'s context is gone: using it is up to the caller.
    pub fn context(&self) -> Result<&Arc<CudaContext>, Error> {
        Ok(&self.cuda("the CUDA context")?.ctx)
    }

    /// The cudarc stream all of this `Gpu`'s work goes to (see
    /// [`Gpu::context`]).
    pub fn stream(&self) -> Result<&Arc<CudaStream>, Error> {
        Ok(&self.cuda("a CUDA stream")?.stream)
    }

    /// Free and total device memory in bytes, as the driver reports them
    /// (`cuMemGetInfo`).
    pub fn memory(&self) -> Result<(u64, u64), Error> {
        let cuda = self.cuda("reading the free device memory")?;
        let _entered = self.enter()?;
        self.driver(cuda.ctx.bind_to_thread(), || "binding the context".into())?;
        let (free, total) = self.driver(cudarc::driver::result::mem_get_info(), || {
            "reading the free device memory".into()
        })?;
        Ok((free as u64, total as u64))
    }

    /// Loads the module of `set` that suits this device: the newest
    /// architecture not newer than the device's.
    pub fn load_module(&self, set: &PtxSet) -> Result<Module, Error> {
        Module::load(self, set)
    }

    /// A buffer holding a copy of `data`. [`Error::OutOfMemory`] when the
    /// device has no room for it.
    pub fn upload<T: bytemuck::Pod>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let mut b = DeviceBuffer::uninit(self, data.len())?;
        b.copy_from(data)?;
        Ok(b)
    }

    /// Index values for a kernel's `Indices<I>` parameter, each checked on
    /// the host to be at least 0 and below `bound` (the length of the
    /// slice the kernel gathers from), then uploaded: the kernel's gather
    /// through them needs no check per element. [`Error::IndexOutOfBounds`]
    /// names the first value that is not; nothing is uploaded then.
    pub fn upload_indices<I: crate::IndexValue + std::fmt::Display>(
        &self,
        data: &[I],
        bound: usize,
    ) -> Result<crate::IndexBuffer<I>, Error> {
        crate::IndexBuffer::upload(self, data, bound)
    }

    /// A buffer of `len` elements that nothing has written: its contents
    /// are whatever the memory held (any bit pattern is a valid `T: Pod`).
    /// For outputs that a kernel overwrites completely; reading it first is
    /// what compute-sanitizer's initcheck reports.
    pub fn alloc_uninit<T: bytemuck::Pod>(&self, len: usize) -> Result<DeviceBuffer<T>, Error> {
        DeviceBuffer::uninit(self, len)
    }

    /// A buffer of `len` copies of `value` (use a poison value for outputs,
    /// so that an element the kernel did not write is visible). The device
    /// memory is taken first: [`Error::OutOfMemory`] comes before any host
    /// memory is used.
    pub fn filled<T: bytemuck::Pod>(&self, len: usize, value: T) -> Result<DeviceBuffer<T>, Error> {
        let mut b = DeviceBuffer::uninit(self, len)?;
        b.copy_from(&vec![value; len])?;
        Ok(b)
    }

    /// Waits for all work on the stream; reports a kernel fault here. With a
    /// deadline set ([`Gpu::set_deadline`], or `CG_DEADLINE_SECONDS` in the
    /// environment), a kernel still running after it becomes
    /// [`Error::Timeout`] naming the last launch; every wait of this crate
    /// (`DeviceBuffer::to_vec` included) goes through here.
    pub fn synchronize(&self) -> Result<(), Error> {
        if let Some(d) = self.deadline() {
            return self.synchronize_timeout(d);
        }
        let Some(cuda) = self.cuda_parts() else {
            // The simulator's launches complete before they return.
            return Ok(());
        };
        let _entered = self.enter()?;
        let last = self.last_launch();
        self.driver(cuda.stream.synchronize(), || {
            format!("waiting for the GPU (last launch: `{last}`)")
        })?;
        self.inner.launches_since_wait.store(0, Ordering::Relaxed);
        Ok(())
    }

    /// Sets how long [`Gpu::synchronize`] waits for the GPU before it
    /// returns [`Error::Timeout`] (`None`: for ever, the default). Shared
    /// by every `Gpu` of the device in this process.
    pub fn set_deadline(&self, deadline: Option<Duration>) {
        let ms = deadline.map_or(0, |d| (d.as_millis() as u64).max(1));
        self.inner.deadline_ms.store(ms, Ordering::Relaxed);
    }

    /// The deadline of [`Gpu::synchronize`], if any.
    pub fn deadline(&self) -> Option<Duration> {
        match self.inner.deadline_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// Waits for all work on the stream, at most `timeout`: a kernel that
    /// deadlocks becomes [`Error::Timeout`] naming it, not a hung process.
    pub fn synchronize_timeout(&self, timeout: Duration) -> Result<(), Error> {
        let Some(cuda) = self.cuda_parts() else {
            return Ok(());
        };
        let _entered = self.enter()?;
        let start = Instant::now();
        loop {
            self.driver(cuda.ctx.bind_to_thread(), || "binding the context".into())?;
            // SAFETY: the stream is alive for as long as `self`, and of the
            // current generation (entered above).
            let r = unsafe { sys::cuStreamQuery(cuda.stream.cu_stream()) };
            match r {
                sys::cudaError_enum::CUDA_SUCCESS => {
                    self.inner.launches_since_wait.store(0, Ordering::Relaxed);
                    return Ok(());
                }
                sys::cudaError_enum::CUDA_ERROR_NOT_READY => {}
                e => {
                    let last = self.last_launch();
                    return Err(self.driver_failure(DriverError(e), || {
                        format!("waiting for the GPU (last launch: `{last}`)")
                    }));
                }
            }
            if start.elapsed() >= timeout {
                return Err(Error::Timeout {
                    kernel: self.last_launch(),
                    seconds: timeout.as_secs_f64(),
                });
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Records the work `f` issues on the stream into a CUDA graph instead
    /// of running it; replay it with [`Graph::launch`].
    pub fn capture(&self, f: impl FnOnce() -> Result<(), Error>) -> Result<Graph, Error> {
        let stream = &self.cuda("capturing a CUDA graph")?.stream;
        let _entered = self.enter()?;
        self.driver(
            stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            || "starting a graph capture".into(),
        )?;
        let issued = f();
        let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        issued?;
        match self.driver(graph, || "finishing a graph capture".into())? {
            Some(g) => Ok(Graph {
                graph: self.bind(g),
                gpu: self.clone(),
            }),
            None => Err(Error::InvalidLaunch {
                kernel: "graph".into(),
                reason: "the capture recorded no work".into(),
            }),
        }
    }

    /// Enters the device for an operation of this handle:
    /// [`Error::StaleHandle`] after a reset, [`Error::ContextLost`] after a
    /// fault. A reset waits until the returned value is dropped.
    pub(crate) fn enter(&self) -> Result<Entered, Error> {
        self.inner.device.enter(self.inner.generation)
    }

    /// [`Gpu::enter`]'s checks without entering (see
    /// `DeviceState::check`).
    pub(crate) fn check(&self) -> Result<(), Error> {
        self.inner.device.check(self.inner.generation)
    }

    /// `value` (a driver object of this context), released with this
    /// context's generation and leaked after a reset.
    pub(crate) fn bind<T>(&self, value: T) -> ContextBound<T> {
        ContextBound::new(value, self.inner.device, self.inner.generation)
    }

    /// The result of a driver call, its error described by `what` (see
    /// [`Gpu::driver_failure`]).
    pub(crate) fn driver<T>(
        &self,
        result: Result<T, DriverError>,
        what: impl FnOnce() -> String,
    ) -> Result<T, Error> {
        result.map_err(|e| self.driver_failure(e, what))
    }

    /// The error for a failed driver call (made with the device entered):
    /// when the code means a kernel faulted and the context is lost, the
    /// fault itself the first time it is seen ([`Error::KernelPanic`] from
    /// the fault record, or [`Error::KernelFault`]) and
    /// [`Error::ContextLost`] naming it after that; else
    /// [`Error::Driver`] with `what`.
    pub(crate) fn driver_failure(&self, e: DriverError, what: impl FnOnce() -> String) -> Error {
        if fault::lost_context_fault(e.0).is_none() {
            return Error::Driver {
                context: what(),
                source: e,
            };
        }
        let ordinal = self.ordinal();
        if let Some(cause) = self.inner.device.lost() {
            return Error::ContextLost { ordinal, cause };
        }
        let last = self.last_launch();
        let strings = self
            .inner
            .strings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let trail = LaunchTrail {
            last: &last,
            since_wait: self.inner.launches_since_wait.load(Ordering::Relaxed),
        };
        let sink = self.cuda_parts().and_then(|c| c.sink.read());
        let err = fault::fault_error(ordinal, e.0, sink, trail, &strings);
        let cause = err.fault_summary().unwrap_or_default();
        if self.inner.device.set_lost(self.inner.generation, cause) {
            err
        } else {
            Error::ContextLost {
                ordinal,
                cause: self.inner.device.lost().unwrap_or_default(),
            }
        }
    }

    /// The grid barrier's counters on this GPU: allocated, and their place
    /// timed, at the first call.
    pub(crate) fn grid_barrier(&self) -> Result<Arc<GridBarrierRegion>, Error> {
        let mut region = self
            .inner
            .grid_barrier
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(r) = &*region {
            return Ok(r.clone());
        }
        let r = Arc::new(GridBarrierRegion::open(self)?);
        *region = Some(r.clone());
        Ok(r)
    }

    /// Where `grid.sync()` counts on this GPU: the place of the grid
    /// barrier's counters and how it was chosen (`None` until a module
    /// with a grid barrier has loaded, and on the simulator, whose
    /// counters are each launch's own).
    pub fn grid_barrier_place(&self) -> Option<GridBarrierPlace> {
        let region = self
            .inner
            .grid_barrier
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        region.as_ref().map(|r| r.place().clone())
    }

    /// The device address a module's fault record pointer is set to.
    pub(crate) fn fault_record_address(&self) -> Result<u64, Error> {
        Ok(self.cuda("a fault record")?.sink.device_address())
    }

    /// Registers the string table of a module loaded in this context.
    pub(crate) fn add_strings(&self, strings: Arc<ModuleStrings>) {
        self.inner
            .strings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(strings);
    }

    /// Forgets the string table of a module being unloaded.
    pub(crate) fn remove_strings(&self, strings: &Arc<ModuleStrings>) {
        self.inner
            .strings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| !Arc::ptr_eq(s, strings));
    }

    /// Notes a launch queued on the stream, for naming the kernel of a
    /// later fault or timeout.
    pub(crate) fn launched(&self, name: &str) {
        let mut l = self
            .inner
            .last_launch
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if l.as_str() != name {
            name.clone_into(&mut l);
        }
        self.inner
            .launches_since_wait
            .fetch_add(1, Ordering::Relaxed);
    }

    fn last_launch(&self) -> String {
        self.inner
            .last_launch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
