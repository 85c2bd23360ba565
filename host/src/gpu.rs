//! One GPU: its context, a stream of its own, and what the device can do.

use crate::error::{Context, Error};
use crate::launch::DeviceLimits;
use crate::module::{Module, PtxSet};
use crate::DeviceBuffer;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Work recorded by [`Gpu::capture`], replayed with one call.
pub struct Graph {
    graph: cudarc::driver::CudaGraph,
}

impl Graph {
    /// Replays the recorded work on the stream it was captured from.
    pub fn launch(&self) -> Result<(), Error> {
        self.graph.launch().context(|| "launching a graph".into())
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
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) info: DeviceInfo,
    /// The last kernel launched on the stream, for timeout messages.
    pub(crate) last_launch: Mutex<String>,
    /// How long [`Gpu::synchronize`] waits before giving up, in
    /// milliseconds (0: for ever).
    pub(crate) deadline_ms: AtomicU64,
}

/// A GPU and the stream its work runs on. Cheap to clone (shared handle).
///
/// Every `Gpu` of one device in a process shares one stream, so all work on
/// a device runs in the order it was issued. That is what keeps cooperative
/// kernels safe: each needs every block resident at once, and two of them
/// running at the same time on different streams can each hold part of the
/// GPU and wait at their grid barriers for each other forever.
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
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
    /// Opens GPU `ordinal` (or returns the process's handle to it). Fails
    /// with [`Error::NoDriver`] when there is no CUDA driver,
    /// [`Error::NoDevice`] when it reports no GPU.
    pub fn new(ordinal: usize) -> Result<Self, Error> {
        static OPEN: Mutex<Vec<(usize, Gpu)>> = Mutex::new(Vec::new());
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, gpu)) = open.iter().find(|(o, _)| *o == ordinal) {
            return Ok(gpu.clone());
        }
        let gpu = Self::open(ordinal)?;
        open.push((ordinal, gpu.clone()));
        Ok(gpu)
    }

    fn open(ordinal: usize) -> Result<Self, Error> {
        if !driver_present() {
            return Err(Error::NoDriver);
        }
        let count = match CudaContext::device_count() {
            Ok(n) => n as usize,
            Err(e) => return Err(Error::NoDevice(e.to_string())),
        };
        if count == 0 {
            return Err(Error::NoDevice("0 devices".into()));
        }
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).context(|| format!("opening GPU {ordinal}"))?;
        // All work goes to one stream, in order; cudarc's per-buffer event
        // tracking (for buffers shared between streams) would only add an
        // event record per kernel argument.
        // SAFETY: no buffers exist yet on this context's streams.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().context(|| "creating a stream".into())?;
        let attr = |a: Attr| -> Result<u32, Error> {
            ctx.attribute(a)
                .map(|v| v as u32)
                .context(|| format!("reading {a:?}"))
        };
        let (major, minor) = ctx
            .compute_capability()
            .context(|| "reading the compute capability".into())?;
        let info = DeviceInfo {
            name: ctx.name().context(|| "reading the device name".into())?,
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
        Ok(Self {
            inner: Arc::new(GpuInner {
                ctx,
                stream,
                info,
                last_launch: Mutex::new(String::new()),
                deadline_ms: AtomicU64::new(deadline_from_env()),
            }),
        })
    }

    /// What the device is and can do.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The cudarc context, for what this crate does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// The cudarc stream all of this `Gpu`'s work goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Loads the module of `set` that suits this device: the newest
    /// architecture not newer than the device's.
    pub fn load_module(&self, set: &PtxSet) -> Result<Module, Error> {
        Module::load(self, set)
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: bytemuck::Pod>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let mut b = DeviceBuffer::uninit(self, data.len())?;
        b.copy_from(data)?;
        Ok(b)
    }

    /// A buffer of `len` elements that nothing has written: its contents
    /// are whatever the memory held (any bit pattern is a valid `T: Pod`).
    /// For outputs that a kernel overwrites completely; reading it first is
    /// what compute-sanitizer's initcheck reports.
    pub fn alloc_uninit<T: bytemuck::Pod>(&self, len: usize) -> Result<DeviceBuffer<T>, Error> {
        DeviceBuffer::uninit(self, len)
    }

    /// A buffer of `len` copies of `value` (use a poison value for outputs,
    /// so that an element the kernel did not write is visible).
    pub fn filled<T: bytemuck::Pod>(&self, len: usize, value: T) -> Result<DeviceBuffer<T>, Error> {
        self.upload(&vec![value; len])
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
        let last = self.last_launch();
        self.inner
            .stream
            .synchronize()
            .context(|| format!("waiting for the GPU (last launch: `{last}`)"))
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
        let start = Instant::now();
        loop {
            self.inner
                .ctx
                .bind_to_thread()
                .context(|| "binding the context".into())?;
            // SAFETY: the stream is alive for as long as `self`.
            let r = unsafe { sys::cuStreamQuery(self.inner.stream.cu_stream()) };
            match r {
                sys::cudaError_enum::CUDA_SUCCESS => return Ok(()),
                sys::cudaError_enum::CUDA_ERROR_NOT_READY => {}
                e => {
                    let last = self.last_launch();
                    return Err(Error::Driver {
                        context: format!("waiting for the GPU (last launch: `{last}`)"),
                        source: DriverError(e),
                    });
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
        let stream = &self.inner.stream;
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .context(|| "starting a graph capture".into())?;
        let issued = f();
        let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        issued?;
        match graph.context(|| "finishing a graph capture".into())? {
            Some(g) => Ok(Graph { graph: g }),
            None => Err(Error::InvalidLaunch {
                kernel: "graph".into(),
                reason: "the capture recorded no work".into(),
            }),
        }
    }

    pub(crate) fn set_last_launch(&self, name: &str) {
        let mut l = self
            .inner
            .last_launch
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if l.as_str() != name {
            name.clone_into(&mut l);
        }
    }

    fn last_launch(&self) -> String {
        self.inner
            .last_launch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
