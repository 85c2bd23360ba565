//! Embedded PTX, loaded modules and their functions.

use crate::context::ContextBound;
use crate::error::Error;
use crate::launch::{check_cluster, cooperative_limit, Dim3, LaunchConfig, LaunchKind};
use crate::strings::ModuleStrings;
use crate::Gpu;
use cg_core::fault::{RECORD_SYMBOL, STRINGS_SYMBOL};
use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr};
use cudarc::driver::{result, CudaFunction, CudaModule, DriverError};
use cudarc::nvrtc::Ptx as CudarcPtx;
use std::collections::BTreeSet;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The module global a multi-grid kernel reads its workspace from
/// (`cg_core::multi_grid`): its GPU's counter address; the grid's rank and
/// the number of grids; every grid's counter address.
const MULTI_GRID_SYMBOL: &str = "cg_multi_grid";

/// The words of the multi-grid workspace.
pub(crate) const MULTI_GRID_WORDS: usize = 2 + cg_core::multi_grid::MAX_GRIDS as usize;

/// What a multi-grid launch writes to the module's `cg_multi_grid`.
pub(crate) type MultiGridWorkspace = [u64; MULTI_GRID_WORDS];

/// The module word that holds the address of the grid barrier's counters.
const GRID_BARRIER_SYMBOL: &str = cg_core::grid::layout::SYMBOL;

/// The comment `grid.sync()` leaves in the PTX (`cg_core::grid::SYNC_MARKER`).
const GRID_SYNC_MARKER: &str = cg_core::grid::SYNC_MARKER;

/// One PTX module built for `sm_<sm>`.
#[derive(Clone, Copy, Debug)]
pub struct Ptx {
    /// The architecture it was built for, as in `sm_XX`.
    pub sm: u32,
    /// The PTX text.
    pub source: &'static str,
}

/// The same kernels built for several architectures.
#[derive(Clone, Copy, Debug)]
pub struct PtxSet {
    modules: &'static [Ptx],
    /// The kernel crate the modules were built from (as Rust names it).
    krate: Option<&'static str>,
}

impl PtxSet {
    /// A set of modules (any order).
    pub const fn new(modules: &'static [Ptx]) -> Self {
        Self {
            modules,
            krate: None,
        }
    }

    /// A set of modules built from the kernel crate `krate` (its name as
    /// Rust spells it, `my_kernels`): what cg-builder generates. On the
    /// simulator, the kernels are that crate's host build.
    pub const fn of_crate(krate: &'static str, modules: &'static [Ptx]) -> Self {
        Self {
            modules,
            krate: Some(krate),
        }
    }

    /// The kernel crate the modules were built from, if known.
    pub fn krate(&self) -> Option<&'static str> {
        self.krate
    }

    /// All modules.
    pub fn modules(&self) -> &'static [Ptx] {
        self.modules
    }

    /// The module for a device of compute capability `sm`: the newest
    /// architecture not newer than the device.
    pub fn select(&self, sm: u32) -> Option<&'static Ptx> {
        self.modules
            .iter()
            .filter(|m| m.sm <= sm)
            .max_by_key(|m| m.sm)
    }

    /// The oldest architecture in the set.
    pub fn oldest(&self) -> Option<u32> {
        self.modules.iter().map(|m| m.sm).min()
    }
}

/// A module loaded on a [`Gpu`].
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

/// What a [`Module`] and its [`Function`]s share: they keep it loaded.
struct ModuleInner {
    module: Loaded,
    sm: u32,
    /// The names of its entry points.
    entries: Vec<String>,
    /// Where the module's constant byte arrays lie, for naming a fault's
    /// file and message (`None`: a module built without cg-core).
    strings: Option<Arc<ModuleStrings>>,
    /// Whether the module has the multi-grid workspace (`cg_multi_grid`),
    /// and what was last written to it.
    multi_grid: Option<Mutex<Option<MultiGridWorkspace>>>,
    /// The entry points whose last parameter is the grid barrier's place
    /// (cg-builder appends it: `cg_ptx::Function::takes_grid_barrier_place`).
    taking_grid_barrier_place: BTreeSet<String>,
    /// The address of the grid barrier's counters the module word holds (0:
    /// none set): what every launch of those entry points passes there.
    grid_barrier_place: AtomicU64,
    gpu: Gpu,
}

/// What a module is loaded as.
enum Loaded {
    /// A CUDA module.
    Cuda(ContextBound<Arc<CudaModule>>),
    /// The host build of a kernel crate, on the simulator.
    #[cfg(feature = "sim")]
    Sim {
        /// The kernel crate.
        krate: Option<&'static str>,
    },
}

impl Loaded {
    /// The CUDA module, for `operation` ([`Error::NeedsGpu`] on the
    /// simulator).
    fn cuda(&self, operation: &str) -> Result<&ContextBound<Arc<CudaModule>>, Error> {
        let cuda = match self {
            Loaded::Cuda(m) => Some(m),
            #[cfg(feature = "sim")]
            Loaded::Sim { .. } => None,
        };
        cuda.ok_or_else(|| Error::NeedsGpu {
            operation: operation.into(),
        })
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if let Some(s) = &self.strings {
            self.gpu.remove_strings(s);
        }
    }
}

impl Module {
    pub(crate) fn load(gpu: &Gpu, set: &PtxSet) -> Result<Self, Error> {
        let info = gpu.info();
        let ptx = set.select(info.sm).ok_or_else(|| Error::UnsupportedArch {
            device: info.name.clone(),
            sm: info.sm,
            oldest: set.oldest().unwrap_or(0),
        })?;
        #[cfg(feature = "sim")]
        if gpu.is_simulator() {
            // The PTX names the entry points (those of the architecture the
            // simulated device has); their host builds run them.
            let entries = cg_ptx::Module::parse(ptx.source)
                .entry_names()
                .into_iter()
                .map(String::from)
                .collect();
            return Ok(Self {
                inner: Arc::new(ModuleInner {
                    module: Loaded::Sim { krate: set.krate() },
                    sm: ptx.sm,
                    entries,
                    strings: None,
                    multi_grid: None,
                    taking_grid_barrier_place: BTreeSet::new(),
                    grid_barrier_place: AtomicU64::new(0),
                    gpu: gpu.clone(),
                }),
            });
        }
        let _entered = gpu.enter()?;
        let what = format!("the sm_{} PTX module", ptx.sm);
        let module = gpu
            .context()?
            .load_module(CudarcPtx::from_src(ptx.source))
            .map_err(|e| load_error(gpu, e, ptx.source, ptx.sm, &what))?;
        Self::loaded(gpu, module, ptx.sm, ptx.source.into())
    }

    /// Loads a PTX file built elsewhere (for example by `nvcc -ptx`), such
    /// as the CUDA C++ twins of the benchmarks.
    pub fn from_ptx_file(gpu: &Gpu, path: &std::path::Path) -> Result<Self, Error> {
        let source = std::fs::read_to_string(path).map_err(|source| Error::Io {
            context: format!("reading the PTX file {}", path.display()),
            source,
        })?;
        Self::from_ptx_source(gpu, source, &path.display().to_string())
    }

    /// Loads PTX text; `what` names it in errors.
    pub(crate) fn from_ptx_source(gpu: &Gpu, source: String, what: &str) -> Result<Self, Error> {
        let sm = cg_ptx::Module::parse(&source)
            .target
            .and_then(|t| t.strip_prefix("sm_"))
            .and_then(|t| {
                t.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        let _entered = gpu.enter()?;
        let module = gpu
            .context()?
            .load_module(CudarcPtx::from_src(source.clone()))
            .map_err(|e| load_error(gpu, e, &source, sm, what))?;
        Self::loaded(gpu, module, sm, source.into())
    }

    /// A module just loaded: its fault record connected to the GPU's.
    fn loaded(
        gpu: &Gpu,
        module: Arc<CudaModule>,
        sm: u32,
        source: Arc<str>,
    ) -> Result<Self, Error> {
        let module = gpu.bind(module);
        let ptx = cg_ptx::Module::parse(&source);
        let strings = connect_fault_record(gpu, &module, &ptx, &source)?;
        let place = connect_grid_barrier(gpu, &module, &ptx)?;
        let module = Loaded::Cuda(module);
        if let Some(s) = &strings {
            gpu.add_strings(s.clone());
        }
        let entries = ptx.entry_names().into_iter().map(String::from).collect();
        let multi_grid = ptx.global(MULTI_GRID_SYMBOL).map(|_| Mutex::new(None));
        let taking_grid_barrier_place = ptx
            .entries()
            .filter(|f| f.takes_grid_barrier_place())
            .map(|f| f.name.to_string())
            .collect();
        Ok(Self {
            inner: Arc::new(ModuleInner {
                module,
                sm,
                entries,
                strings,
                multi_grid,
                taking_grid_barrier_place,
                grid_barrier_place: AtomicU64::new(place),
                gpu: gpu.clone(),
            }),
        })
    }

    /// Points the module's grid barrier word at place `slot` of its GPU's
    /// counters, or sets it to 0 (`None`) as in a module no host set up
    /// (`testing::set_grid_barrier_slot`).
    pub(crate) fn set_grid_barrier_slot(&self, slot: Option<u32>) -> Result<(), Error> {
        let gpu = &self.inner.gpu;
        let module = self
            .inner
            .module
            .cuda("setting the grid barrier's counters")?;
        let _entered = gpu.enter()?;
        let address = match slot {
            Some(slot) => gpu.grid_barrier()?.slot_address(slot),
            None => 0,
        };
        set_grid_barrier_word(gpu, module, address)?;
        self.inner
            .grid_barrier_place
            .store(address, Ordering::Relaxed);
        Ok(())
    }

    /// The architecture of the loaded PTX.
    pub fn sm(&self) -> u32 {
        self.inner.sm
    }

    /// The names of the module's entry points (kernels), in the order of
    /// the PTX.
    pub fn entry_points(&self) -> &[String] {
        &self.inner.entries
    }

    /// The kernel `name` if this module has it: a kernel gated to newer
    /// architectures is [`Error::KernelUnavailable`] here.
    pub fn function_if_built(&self, name: &str, kind: LaunchKind) -> Result<Function, Error> {
        if !self.entry_points().iter().any(|e| e == name) {
            return Err(Error::KernelUnavailable {
                kernel: name.into(),
                sm: self.inner.sm,
            });
        }
        self.function(name, kind)
    }

    /// The kernel `name`, to be launched as `kind`.
    pub fn function(&self, name: &str, kind: LaunchKind) -> Result<Function, Error> {
        let entries = self.entry_points();
        if !entries.iter().any(|e| e == name) {
            return Err(Error::KernelNotFound {
                name: name.into(),
                available: entries.join(", "),
            });
        }
        let gpu = &self.inner.gpu;
        #[cfg(feature = "sim")]
        if let Loaded::Sim { krate } = &self.inner.module {
            return Ok(Function {
                function: Entry::Sim(crate::simulator::find_kernel(*krate, name)?),
                module: self.inner.clone(),
                name: name.into(),
                kind,
                max_threads: gpu.info().limits.max_threads_per_block,
                grid_1d: false,
                declared_max_threads: None,
                block_shape: None,
                takes_grid_barrier_place: false,
            });
        }
        let module = self.inner.module.cuda("looking up a CUDA function")?;
        let _entered = gpu.enter()?;
        let function = gpu.driver(module.load_function(name), || {
            format!("looking up kernel `{name}`")
        })?;
        // Fixed for the kernel on this device: read once here, not on every
        // launch that checks against it.
        let max_threads = gpu.driver(
            function.get_attribute(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            || format!("reading the threads per block of `{name}`"),
        )?;
        Ok(Function {
            function: Entry::Cuda(Arc::new(gpu.bind(function))),
            module: self.inner.clone(),
            name: name.into(),
            kind,
            max_threads: max_threads.max(0) as u32,
            grid_1d: false,
            declared_max_threads: None,
            block_shape: None,
            takes_grid_barrier_place: self.inner.taking_grid_barrier_place.contains(name),
        })
    }
}

/// Why the driver would not load a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoadFailure {
    /// Its PTX ISA version is newer than the driver knows.
    DriverTooOld,
    /// The driver's PTX compiler rejected it.
    PtxRejected,
    /// It targets a newer architecture than the device.
    NewerArchitecture,
    /// Anything else (a lost context among them): the code says.
    Other,
}

/// What a failed load's error code (and, for PTX the compiler rejected,
/// the compiler's `log`) means: the driver is blamed only for a PTX ISA it
/// does not know, the PTX only when its compiler rejected it.
fn load_failure(code: sys::CUresult, log: Option<&str>) -> LoadFailure {
    use sys::cudaError_enum as E;
    match code {
        E::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => LoadFailure::DriverTooOld,
        E::CUDA_ERROR_INVALID_PTX | E::CUDA_ERROR_INVALID_IMAGE => {
            let old_driver =
                log.is_some_and(|l| l.to_ascii_lowercase().contains("unsupported .version"));
            if old_driver {
                LoadFailure::DriverTooOld
            } else {
                LoadFailure::PtxRejected
            }
        }
        E::CUDA_ERROR_NO_BINARY_FOR_GPU => LoadFailure::NewerArchitecture,
        _ => LoadFailure::Other,
    }
}

/// The error for a module the driver would not load, by what the driver
/// said (see [`load_failure`]); a lost context is the fault that lost it.
fn load_error(gpu: &Gpu, e: DriverError, source: &str, sm: u32, what: &str) -> Error {
    use sys::cudaError_enum as E;
    let info = gpu.info();
    let loading = format!("loading {what} on {} (sm_{})", info.name, info.sm);
    let log = matches!(e.0, E::CUDA_ERROR_INVALID_PTX | E::CUDA_ERROR_INVALID_IMAGE)
        .then(|| jit_error_log(source))
        .flatten();
    match load_failure(e.0, log.as_deref()) {
        LoadFailure::DriverTooOld => Error::Driver {
            context: format!(
                "{loading}: its PTX ISA version is newer than this driver supports, so it needs a newer driver{}",
                log.map(|l| format!(" (the driver's PTX compiler says: {l})")).unwrap_or_default()
            ),
            source: e,
        },
        LoadFailure::PtxRejected => Error::InvalidPtx {
            sm,
            device: info.name.clone(),
            log: log.unwrap_or_else(|| e.to_string()),
        },
        LoadFailure::NewerArchitecture => Error::Driver {
            context: format!("{loading}: the module is for a newer architecture than the device's"),
            source: e,
        },
        LoadFailure::Other => gpu.driver_failure(e, || loading),
    }
}

/// The error log of the driver's PTX compiler for `source`: loads it once
/// more, asking for the log (only after a load failed).
fn jit_error_log(source: &str) -> Option<String> {
    let src = CString::new(source).ok()?;
    let mut log = vec![0u8; 1 << 16];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut module = std::ptr::null_mut();
    // SAFETY: a NUL-terminated image, two options whose values are a buffer
    // and its size (passed as a pointer-sized integer, as the API wants);
    // all live through the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            src.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if r == sys::cudaError_enum::CUDA_SUCCESS {
        // SAFETY: the module just loaded, unloaded once.
        let _ = unsafe { result::module::unload(module) };
        return None;
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    let text = String::from_utf8_lossy(&log[..end]).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Points the module's grid barrier word (`cg_grid_barrier`) at the GPU's
/// counters, where a kernel of it reaches `grid.sync()`: the first such
/// module of a GPU allocates them and times their place
/// (`grid_barrier`). Returns the address it set (0 where it set none),
/// which launches also pass to the entry points that take it as a
/// parameter.
fn connect_grid_barrier(
    gpu: &Gpu,
    module: &Arc<CudaModule>,
    ptx: &cg_ptx::Module<'_>,
) -> Result<u64, Error> {
    if ptx.global(GRID_BARRIER_SYMBOL).is_none()
        || ptx
            .entries_reaching(|f| f.comments().any(|c| c == GRID_SYNC_MARKER))
            .is_empty()
    {
        return Ok(0);
    }
    let address = gpu.grid_barrier()?.address();
    set_grid_barrier_word(gpu, module, address)?;
    Ok(address)
}

/// Sets the module's grid barrier word to `address`, and waits for it.
fn set_grid_barrier_word(gpu: &Gpu, module: &Arc<CudaModule>, address: u64) -> Result<(), Error> {
    write_module_global(
        gpu,
        module,
        GRID_BARRIER_SYMBOL,
        &address.to_ne_bytes(),
        "grid barrier word (cg_grid_barrier)",
    )?;
    gpu.driver(gpu.stream()?.synchronize(), || {
        "waiting for the module's grid barrier word to be set".into()
    })
}

/// Queues on the GPU's stream the write of `bytes` to the module global
/// `symbol` (`what` names it in errors): kernels queued before it still
/// see the old value.
fn write_module_global(
    gpu: &Gpu,
    module: &Arc<CudaModule>,
    symbol: &str,
    bytes: &[u8],
    what: &str,
) -> Result<(), Error> {
    let stream = gpu.stream()?;
    gpu.driver(gpu.context()?.bind_to_thread(), || {
        "binding the context".into()
    })?;
    let mut global = gpu.driver(module.get_global(symbol, stream), || {
        format!("finding the module's {what}")
    })?;
    gpu.driver(stream.memcpy_htod(bytes, &mut global), || {
        format!("setting the module's {what}")
    })
}

/// Points a module's fault record (`cg_fault_record`) at the GPU's and
/// reads its string table (`cg_fault_strings`), so that a kernel of it that
/// panics can be reported; `None` for a module without them (built without
/// cg-core, by nvcc for example).
fn connect_fault_record(
    gpu: &Gpu,
    module: &Arc<CudaModule>,
    ptx: &cg_ptx::Module<'_>,
    source: &Arc<str>,
) -> Result<Option<Arc<ModuleStrings>>, Error> {
    // Asked of the PTX, not the driver: a lookup of a missing symbol is an
    // API error that compute-sanitizer reports.
    if ptx.global(RECORD_SYMBOL).is_none() {
        return Ok(None);
    }
    let has_strings = ptx.global(STRINGS_SYMBOL).is_some();
    let stream = gpu.stream()?;
    gpu.driver(gpu.context()?.bind_to_thread(), || {
        "binding the context".into()
    })?;
    let mut record = match module.get_global(RECORD_SYMBOL, stream) {
        Ok(r) => r,
        Err(DriverError(sys::cudaError_enum::CUDA_ERROR_NOT_FOUND)) => return Ok(None),
        Err(e) => return Err(gpu.driver_failure(e, || "finding the module's fault record".into())),
    };
    let address = gpu.fault_record_address()?.to_ne_bytes();
    gpu.driver(stream.memcpy_htod(&address[..], &mut record), || {
        "setting the module's fault record".into()
    })?;
    let table = if has_strings {
        module.get_global(STRINGS_SYMBOL, stream)
    } else {
        Err(DriverError(sys::cudaError_enum::CUDA_ERROR_NOT_FOUND))
    };
    let addresses = match table {
        Ok(table) => {
            let mut bytes = vec![0u8; table.len()];
            gpu.driver(stream.memcpy_dtoh(&table, &mut bytes[..]), || {
                "reading the module's string table".into()
            })?;
            bytes
                .chunks_exact(8)
                .map(|c| c.try_into().map_or(0, u64::from_ne_bytes))
                .collect()
        }
        Err(DriverError(sys::cudaError_enum::CUDA_ERROR_NOT_FOUND)) => Vec::new(),
        Err(e) => return Err(gpu.driver_failure(e, || "finding the module's string table".into())),
    };
    gpu.driver(stream.synchronize(), || {
        "waiting for the module's fault record to be set".into()
    })?;
    Ok(Some(Arc::new(ModuleStrings::new(
        source.clone(),
        addresses,
    ))))
}

/// A kernel in a loaded module, with the launch kind it declared.
#[derive(Clone)]
pub struct Function {
    function: Entry,
    /// Keeps the module loaded (and its fault strings known) while the
    /// kernel can run.
    module: Arc<ModuleInner>,
    name: String,
    kind: LaunchKind,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`, read at lookup.
    max_threads: u32,
    /// Launched only on grids of one row ([`Function::requiring_grid_1d`]).
    grid_1d: bool,
    /// The most threads a block may have, as the kernel declared it
    /// ([`Function::requiring_block_threads_at_most`]).
    declared_max_threads: Option<u32>,
    /// The shape every block must have, as the kernel declared it
    /// ([`Function::requiring_block_shape`]).
    block_shape: Option<[u32; 3]>,
    /// Whether its last PTX parameter is the grid barrier's place, which
    /// every launch appends to the caller's parameters.
    takes_grid_barrier_place: bool,
}

/// What runs a [`Function`].
#[derive(Clone)]
enum Entry {
    /// A CUDA function.
    Cuda(Arc<ContextBound<CudaFunction>>),
    /// The kernel's host build, on the simulator.
    #[cfg(feature = "sim")]
    Sim(&'static cg_sim::registry::Kernel),
}

impl Function {
    /// The CUDA function, for `operation` ([`Error::NeedsGpu`] on the
    /// simulator).
    fn cuda(&self, operation: &str) -> Result<&ContextBound<CudaFunction>, Error> {
        let cuda = match &self.function {
            Entry::Cuda(f) => Some(&**f),
            #[cfg(feature = "sim")]
            Entry::Sim(_) => None,
        };
        cuda.ok_or_else(|| Error::NeedsGpu {
            operation: format!("{operation} of `{}`", self.name),
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The GPU the kernel was loaded on.
    pub fn gpu(&self) -> &Gpu {
        &self.module.gpu
    }

    /// How it is launched.
    pub fn kind(&self) -> LaunchKind {
        self.kind
    }

    /// The same function, launched only on grids of one row of blocks
    /// (`grid.y == grid.z == 1`; any other launch is an
    /// [`Error::InvalidLaunch`] before it reaches the driver): what a
    /// `#[kernel(grid_1d)]` assumes, and what its generated handle asks
    /// for.
    pub fn requiring_grid_1d(mut self) -> Self {
        self.grid_1d = true;
        self
    }

    /// Whether launches must be grids of one row
    /// ([`requiring_grid_1d`](Self::requiring_grid_1d)).
    pub fn requires_grid_1d(&self) -> bool {
        self.grid_1d
    }

    /// The same function, launched only with blocks of at most `threads`
    /// threads (any larger block is an [`Error::InvalidLaunch`] that names
    /// the declaration, before it reaches the driver, on the simulator
    /// too): what a `#[kernel(launch_bounds(threads, ..))]` promised the
    /// PTX compiler, and what its generated handle asks for.
    pub fn requiring_block_threads_at_most(mut self, threads: u32) -> Self {
        self.declared_max_threads = Some(threads);
        self.max_threads = self.max_threads.min(threads);
        self
    }

    /// The most threads per block the kernel declared
    /// ([`requiring_block_threads_at_most`](Self::requiring_block_threads_at_most)),
    /// if it did.
    pub fn declared_max_block_threads(&self) -> Option<u32> {
        self.declared_max_threads
    }

    /// The same function, launched only with blocks of exactly `shape`
    /// threads (any other block is an [`Error::InvalidLaunch`] that names
    /// the declaration, before it reaches the driver, on the simulator
    /// too): what a `#[kernel(block_size(x, y, z))]` compiled its body
    /// for, and what its generated handle asks for.
    pub fn requiring_block_shape(mut self, shape: [u32; 3]) -> Self {
        let threads = shape.iter().product::<u32>();
        self.block_shape = Some(shape);
        self.max_threads = self.max_threads.min(threads);
        self
    }

    /// The shape every block must have
    /// ([`requiring_block_shape`](Self::requiring_block_shape)), if the
    /// kernel declared one.
    pub fn required_block_shape(&self) -> Option<[u32; 3]> {
        self.block_shape
    }

    /// Resident blocks per multiprocessor for this block size and dynamic
    /// shared memory (the occupancy API).
    pub fn max_blocks_per_sm(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32, Error> {
        #[cfg(feature = "sim")]
        if let Entry::Sim(_) = self.function {
            return Ok(crate::simulator::max_blocks_per_sm(
                block_threads,
                shared_mem_bytes,
            ));
        }
        let function = self.cuda("the occupancy query")?;
        let gpu = self.gpu();
        let _entered = gpu.enter()?;
        // The driver counts a block asking for more than 48 KiB as not
        // fitting until the kernel's limit is raised, as a launch raises it.
        self.reserve_shared_mem(shared_mem_bytes)?;
        gpu.driver(
            function.occupancy_max_active_blocks_per_multiprocessor(
                block_threads,
                shared_mem_bytes as usize,
                None,
            ),
            || format!("occupancy of `{}` at {block_threads} threads", self.name),
        )
    }

    /// The most blocks a cooperative launch of this kernel can have.
    pub fn max_cooperative_blocks(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32, Error> {
        let per_sm = self.max_blocks_per_sm(block_threads, shared_mem_bytes)?;
        let limit = cooperative_limit(per_sm, self.gpu().info().multiprocessors);
        Ok(u32::try_from(limit).unwrap_or(u32::MAX))
    }

    /// A 1-D launch with the largest co-resident grid of `block_threads`
    /// threads: the usual shape of a persistent cooperative kernel.
    pub fn cooperative_config(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<LaunchConfig, Error> {
        let blocks = self.max_cooperative_blocks(block_threads, shared_mem_bytes)?;
        if blocks == 0 {
            return Err(Error::InvalidLaunch {
                kernel: self.name.clone(),
                reason: format!(
                    "no block of {block_threads} threads with {shared_mem_bytes} bytes of shared memory fits on a multiprocessor"
                ),
            });
        }
        Ok(LaunchConfig::new(blocks, block_threads).with_shared_mem(shared_mem_bytes))
    }

    /// Launches with the kind the kernel declared. Where cg-builder gave
    /// the kernel the grid barrier's place as a last PTX parameter
    /// (`cg_ptx::Function::takes_grid_barrier_place`), the launch appends
    /// it: `params` holds the kernel's declared parameters only.
    ///
    /// # Safety
    /// `params` must point to one value per parameter the kernel declares
    /// (its PTX parameters but the grid barrier's place), of the
    /// parameter's type, and every pointer among them must be valid for the
    /// kernel's accesses until it completes. The generated typed handles
    /// uphold this; prefer them.
    pub unsafe fn launch(
        &self,
        config: LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        // SAFETY: `params` is what `launch_as` asks (this function's
        // contract); the kind is the one the kernel declared.
        unsafe { self.launch_as(self.kind, config, params) }
    }

    /// Launches as `kind`, whatever the kernel declared: the escape hatch
    /// behind [`Function::launch`], used by tests that check what happens on
    /// a wrong launch (a grid-sync kernel launched without cooperative launch
    /// traps, or, in a process that made an earlier cooperative launch, may
    /// hang).
    ///
    /// # Safety
    /// As [`Function::launch`], and `kind` must suit the kernel.
    pub unsafe fn launch_as(
        &self,
        kind: LaunchKind,
        config: LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        if kind == LaunchKind::MultiGrid {
            return Err(self.invalid(
                "it is a #[kernel(multi_grid)], which runs on every GPU of a set at once: launch \
                 it through GpuSet::launch"
                    .into(),
            ));
        }
        let gpu = self.gpu();
        let _entered = gpu.enter()?;
        let plan = self.plan(kind, &config)?;
        // SAFETY: the caller vouches for `params` and `kind` (this
        // function's contract); `plan` has checked `config` against the
        // device and the kernel.
        unsafe { self.submit(plan, &config, params) }?;
        gpu.launched(&self.name);
        Ok(())
    }

    /// An invalid-launch error for this kernel.
    fn invalid(&self, reason: String) -> Error {
        Error::InvalidLaunch {
            kernel: self.name.clone(),
            reason,
        }
    }

    /// One grid of a multi-grid launch, checked (`plan`) by the caller:
    /// writes the module's multi-grid workspace where it changed (queued
    /// on the stream, so that kernels before it still see the old one), then
    /// queues the cooperative launch.
    ///
    /// # Safety
    /// As [`Function::launch`]; `workspace` is a counter every GPU of the
    /// set reaches, this grid's rank and the number of grids, and the
    /// other grids of the launch are queued right after this one.
    pub(crate) unsafe fn launch_multi_grid_member(
        &self,
        plan: LaunchPlan,
        config: &LaunchConfig,
        workspace: MultiGridWorkspace,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let gpu = self.gpu();
        let module = self.module.module.cuda("a multi-grid launch")?;
        let _entered = gpu.enter()?;
        if let Some(last) = &self.module.multi_grid {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if *last != Some(workspace) {
                let bytes: &[u8] = bytemuck::cast_slice(&workspace);
                write_module_global(
                    gpu,
                    module,
                    MULTI_GRID_SYMBOL,
                    bytes,
                    "multi-grid workspace",
                )?;
                *last = Some(workspace);
            }
        }
        // SAFETY: the caller's contract.
        unsafe { self.submit(plan, config, params) }?;
        gpu.launched(&self.name);
        Ok(())
    }

    /// Checks `config` against the device, the kernel's declaration `kind`
    /// and, for a cooperative launch, co-residency; raises the kernel's
    /// dynamic shared memory limit where the launch needs it. Returns how to
    /// launch.
    pub(crate) fn plan(
        &self,
        kind: LaunchKind,
        config: &LaunchConfig,
    ) -> Result<LaunchPlan, Error> {
        let info = self.gpu().info();
        info.limits
            .check(config)
            .map_err(|reason| self.invalid(reason))?;
        if self.grid_1d && (config.grid.y, config.grid.z) != (1, 1) {
            return Err(self.invalid(format!(
                "a grid of {:?} blocks, but the kernel is a #[kernel(grid_1d)]: it computes its \
                 block ranks from blockIdx.x alone, so it runs only on one row of blocks; launch \
                 ({}, 1, 1) blocks (LaunchConfig::new(blocks, threads)) and loop over the rest of \
                 the data inside the kernel",
                config.grid,
                config.num_blocks()
            )));
        }
        if let Some([x, y, z]) = self.block_shape {
            let block = config.block;
            if (block.x, block.y, block.z) != (x, y, z) {
                return Err(self.invalid(format!(
                    "blocks of ({}, {}, {}) threads, but the kernel declares block_size({x}, {y}, \
                     {z}): its body was compiled for blocks of exactly that shape; launch blocks \
                     of that shape (LaunchConfig::new(blocks, ({x}, {y}, {z}))), or change the \
                     #[kernel(block_size(..))]",
                    block.x, block.y, block.z
                )));
            }
        }
        let threads = config.block_threads() as u32;
        if let Some(most) = self.declared_max_threads.filter(|&most| threads > most) {
            return Err(self.invalid(format!(
                "blocks of {threads} threads, but the kernel declares launch_bounds({most}): \
                 its PTX was compiled for blocks of at most {most} threads; launch blocks of at \
                 most {most} threads, or raise the bound in #[kernel(launch_bounds(..))]"
            )));
        }
        let most = self.max_threads_per_block();
        if threads > most {
            return Err(self.invalid(format!(
                "blocks of {threads} threads, but this kernel runs at most {most} per block: \
                 it uses {} registers per thread and a block's threads share one SM's 65536 \
                 (a `.maxntid` in its PTX would lower the limit too); launch blocks of at most \
                 {most} threads",
                self.registers_per_thread()?
            )));
        }
        self.reserve_shared_mem(config.shared_mem_bytes)?;
        let (cooperative, declared_cluster) = match kind {
            LaunchKind::Plain => (false, None),
            LaunchKind::Cooperative | LaunchKind::MultiGrid => (true, None),
            LaunchKind::Cluster { cooperative, dims } => {
                if dims.is_none() && config.cluster.is_none() {
                    return Err(self.invalid(
                        "the kernel runs in clusters whose shape each launch gives: LaunchConfig::with_cluster".into(),
                    ));
                }
                (cooperative, dims.map(|d| Dim3::from((d[0], d[1], d[2]))))
            }
        };
        if let (Some(asked), Some(declared)) = (config.cluster, declared_cluster) {
            if asked != declared {
                return Err(self.invalid(format!(
                    "the launch asks for clusters of {asked:?}, the kernel declares {declared:?}"
                )));
            }
        }
        let cluster = config.cluster.or(declared_cluster);
        if let Some(c) = cluster {
            if info.sm < 90 {
                return Err(Error::ClusterUnsupported {
                    device: info.name.clone(),
                    sm: info.sm,
                    kernel: self.name.clone(),
                });
            }
            check_cluster(config.grid, c).map_err(|reason| self.invalid(reason))?;
        }
        if cooperative {
            self.check_co_resident(config)?;
        }
        Ok(LaunchPlan {
            cluster,
            cooperative,
        })
    }

    /// For a cooperative launch: the device supports it, and every block of
    /// `config`'s grid can be resident at once.
    fn check_co_resident(&self, config: &LaunchConfig) -> Result<(), Error> {
        let info = self.gpu().info();
        if !info.cooperative_launch {
            return Err(Error::CooperativeUnsupported {
                device: info.name.clone(),
                kernel: self.name.clone(),
            });
        }
        let threads = config.block_threads() as u32;
        let per_sm = self.max_blocks_per_sm(threads, config.shared_mem_bytes)?;
        let limit = cooperative_limit(per_sm, info.multiprocessors);
        if config.num_blocks() > limit {
            return Err(Error::GridTooLarge {
                kernel: self.name.clone(),
                requested: config.num_blocks(),
                limit,
                per_sm,
                sms: info.multiprocessors,
                threads,
                shared_mem_bytes: config.shared_mem_bytes,
            });
        }
        Ok(())
    }

    /// Queues the launch `plan` describes on the GPU's stream.
    ///
    /// # Safety
    /// As [`Function::launch_as`].
    unsafe fn submit(
        &self,
        plan: LaunchPlan,
        config: &LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        #[cfg(feature = "sim")]
        if let Entry::Sim(kernel) = self.function {
            let cluster = plan.cluster.map(|c| c.as_array());
            // SAFETY: as this function's contract.
            return unsafe {
                crate::simulator::launch(self, kernel, cluster, plan.cooperative, config, params)
            };
        }
        let gpu = self.gpu();
        let grid = (config.grid.x, config.grid.y, config.grid.z);
        let block = (config.block.x, config.block.y, config.block.z);
        let stream = gpu.stream()?.cu_stream();
        gpu.driver(gpu.context()?.bind_to_thread(), || {
            "binding the context".into()
        })?;
        let f = self.cuda("a launch")?.cu_function();
        let smem = config.shared_mem_bytes;
        // The grid barrier's place, after the caller's parameters where
        // cg-builder appended it (the driver copies the values at launch).
        let mut place = self.module.grid_barrier_place.load(Ordering::Relaxed);
        let mut with_place;
        let params = if self.takes_grid_barrier_place {
            with_place = params.to_vec();
            with_place.push((&raw mut place).cast());
            &mut with_place[..]
        } else {
            params
        };
        // Each launch below is sound for the same reasons: `f` is this
        // kernel's function in its module, whose context is bound to this
        // thread, and `stream` its GPU's stream; `params` points to one value
        // per PTX parameter, of its type, each pointer valid until the kernel
        // completes (this function's contract, with the grid barrier's place
        // appended where the kernel takes it).
        let launched = match (plan.cluster, plan.cooperative) {
            // SAFETY: as said above the match.
            (None, false) => unsafe { result::launch_kernel(f, grid, block, smem, stream, params) },
            // SAFETY: as said above the match; `Function::plan`, which made
            // this plan, checked that the grid can be co-resident.
            (None, true) => unsafe {
                result::launch_cooperative_kernel(f, grid, block, smem, stream, params)
            },
            (Some(c), coop) => {
                let mut attrs = vec![cluster_attribute(c)];
                if coop {
                    attrs.push(cooperative_attribute());
                }
                let cfg = sys::CUlaunchConfig {
                    gridDimX: grid.0,
                    gridDimY: grid.1,
                    gridDimZ: grid.2,
                    blockDimX: block.0,
                    blockDimY: block.1,
                    blockDimZ: block.2,
                    sharedMemBytes: smem,
                    hStream: stream,
                    attrs: attrs.as_mut_ptr(),
                    numAttrs: attrs.len() as u32,
                };
                // SAFETY: as said above the match; `cfg` and the attributes it points to
                // live across the call, which copies them.
                unsafe { sys::cuLaunchKernelEx(&cfg, f, params.as_mut_ptr(), std::ptr::null_mut()) }
                    .result()
            }
        };
        let how = match (plan.cluster, plan.cooperative) {
            (None, false) => "launching",
            (None, true) => "cooperative launch of",
            (Some(_), _) => "cluster launch of",
        };
        gpu.driver(launched, || {
            format!("{how} `{}` with {config:?}", self.name)
        })
    }

    /// Clusters of `config`'s shape that can be resident at once
    /// (`cuOccupancyMaxActiveClusters`); `config.cluster` must be set.
    pub fn max_active_clusters(&self, config: LaunchConfig) -> Result<u32, Error> {
        let c = config.cluster.ok_or_else(|| Error::InvalidLaunch {
            kernel: self.name.clone(),
            reason: "max_active_clusters needs a cluster shape (LaunchConfig::with_cluster)".into(),
        })?;
        #[cfg(feature = "sim")]
        if let Entry::Sim(_) = self.function {
            return Ok(crate::simulator::max_active_clusters(
                config.block_threads() as u32,
                config.shared_mem_bytes,
                c.volume() as u32,
            ));
        }
        let function = self.cuda("the cluster occupancy query")?;
        let mut attrs = [cluster_attribute(c)];
        let cfg = sys::CUlaunchConfig {
            gridDimX: config.grid.x,
            gridDimY: config.grid.y,
            gridDimZ: config.grid.z,
            blockDimX: config.block.x,
            blockDimY: config.block.y,
            blockDimZ: config.block.z,
            sharedMemBytes: config.shared_mem_bytes,
            hStream: self.gpu().stream()?.cu_stream(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: 1,
        };
        let mut n = 0i32;
        let gpu = self.gpu();
        let _entered = gpu.enter()?;
        gpu.driver(gpu.context()?.bind_to_thread(), || {
            "binding the context".into()
        })?;
        // SAFETY: a valid function (of the current generation: entered
        // above) and a launch configuration that lives through the call.
        let r = unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, function.cu_function(), &cfg) };
        gpu.driver(r.result(), || {
            format!("cluster occupancy of `{}`", self.name)
        })?;
        Ok(n as u32)
    }

    /// The most threads a block of this kernel can have on this device
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`): the device's limit, or
    /// fewer when the kernel's registers per thread do not fit more or its
    /// launch bounds say so.
    pub fn max_threads_per_block(&self) -> u32 {
        self.max_threads
    }

    /// The registers each thread of this kernel uses
    /// (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub fn registers_per_thread(&self) -> Result<u32, Error> {
        let function = self.cuda("the register count")?;
        let gpu = self.gpu();
        let _entered = gpu.enter()?;
        let n = gpu.driver(
            function.get_attribute(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS),
            || format!("reading the registers per thread of `{}`", self.name),
        )?;
        Ok(n.max(0) as u32)
    }

    /// Raises the kernel's dynamic shared-memory limit when a launch asks for
    /// more than the default 48 KiB.
    fn reserve_shared_mem(&self, bytes: u32) -> Result<(), Error> {
        if bytes > 48 * 1024 && !self.gpu().is_simulator() {
            let set = self.cuda("raising the shared memory limit")?.set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            );
            self.gpu().driver(set, || {
                format!(
                    "allowing `{}` {bytes} bytes of dynamic shared memory",
                    self.name
                )
            })?;
        }
        Ok(())
    }
}

fn cluster_attribute(c: Dim3) -> sys::CUlaunchAttribute {
    // SAFETY: a plain C struct; the id says which union member is read.
    let mut a: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = c.x;
    a.value.clusterDim.y = c.y;
    a.value.clusterDim.z = c.z;
    a
}

fn cooperative_attribute() -> sys::CUlaunchAttribute {
    // SAFETY: as above.
    let mut a: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    a.value.cooperative = 1;
    a
}

/// How a checked launch goes to the driver (see `Function::plan`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaunchPlan {
    /// The cluster shape, for a launch in clusters.
    cluster: Option<Dim3>,
    /// Whether the launch is cooperative.
    cooperative: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    static SET: PtxSet = PtxSet::new(&[Ptx { sm: 90, source: "" }, Ptx { sm: 80, source: "" }]);

    #[test]
    fn selects_the_newest_module_the_device_runs() {
        assert_eq!(SET.select(90).map(|p| p.sm), Some(90));
        assert_eq!(SET.select(100).map(|p| p.sm), Some(90));
        assert_eq!(SET.select(86).map(|p| p.sm), Some(80));
        assert_eq!(SET.select(80).map(|p| p.sm), Some(80));
        assert!(SET.select(75).is_none());
        assert_eq!(SET.oldest(), Some(80));
    }

    /// Every error a load can meet is blamed on what it says: the driver's
    /// age only for a PTX ISA it does not know, the PTX only when the
    /// compiler rejected it, and a lost context never on either.
    #[test]
    fn a_failed_load_blames_only_what_failed() {
        use sys::cudaError_enum as E;
        let codes = [
            E::CUDA_ERROR_INVALID_VALUE,
            E::CUDA_ERROR_OUT_OF_MEMORY,
            E::CUDA_ERROR_NOT_INITIALIZED,
            E::CUDA_ERROR_INVALID_CONTEXT,
            E::CUDA_ERROR_INVALID_IMAGE,
            E::CUDA_ERROR_NO_BINARY_FOR_GPU,
            E::CUDA_ERROR_INVALID_PTX,
            E::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            E::CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            E::CUDA_ERROR_INVALID_SOURCE,
            E::CUDA_ERROR_FILE_NOT_FOUND,
            E::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
            E::CUDA_ERROR_NOT_FOUND,
            E::CUDA_ERROR_ILLEGAL_ADDRESS,
            E::CUDA_ERROR_LAUNCH_FAILED,
            E::CUDA_ERROR_MISALIGNED_ADDRESS,
            E::CUDA_ERROR_ILLEGAL_INSTRUCTION,
            E::CUDA_ERROR_HARDWARE_STACK_ERROR,
            E::CUDA_ERROR_UNKNOWN,
        ];
        for code in codes {
            let got = load_failure(
                code,
                Some("ptxas application ptx input, line 9; error: syntax"),
            );
            let want = match code {
                E::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => LoadFailure::DriverTooOld,
                E::CUDA_ERROR_INVALID_PTX | E::CUDA_ERROR_INVALID_IMAGE => LoadFailure::PtxRejected,
                E::CUDA_ERROR_NO_BINARY_FOR_GPU => LoadFailure::NewerArchitecture,
                _ => LoadFailure::Other,
            };
            assert_eq!(got, want, "{code:?}");
            if crate::fault::lost_context_fault(code).is_some() {
                assert_eq!(
                    got,
                    LoadFailure::Other,
                    "{code:?}: the fault, not the module"
                );
            }
        }
        // The compiler's own word that the ISA is too new.
        assert_eq!(
            load_failure(
                E::CUDA_ERROR_INVALID_PTX,
                Some("ptxas application ptx input, line 5; fatal   : Unsupported .version 99.9; current version is '9.0'")
            ),
            LoadFailure::DriverTooOld
        );
        assert_eq!(
            load_failure(E::CUDA_ERROR_INVALID_PTX, None),
            LoadFailure::PtxRejected
        );
    }
}
