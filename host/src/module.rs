//! Embedded PTX, loaded modules and their functions.

use crate::error::{Context, Error};
use crate::launch::{check_cluster, cooperative_limit, Dim3, LaunchConfig, LaunchKind};
use crate::Gpu;
use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr};
use cudarc::driver::{result, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx as CudarcPtx;
use std::ffi::c_void;
use std::sync::Arc;

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
}

impl PtxSet {
    /// A set of modules (any order).
    pub const fn new(modules: &'static [Ptx]) -> Self {
        Self { modules }
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

/// Names of the `.entry` points of a PTX module.
pub fn entry_points(ptx: &str) -> Vec<&str> {
    ptx.match_indices(".entry ")
        .map(|(i, m)| {
            let rest = &ptx[i + m.len()..];
            rest.split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .unwrap_or("")
        })
        .collect()
}

/// A module loaded on a [`Gpu`].
#[derive(Clone)]
pub struct Module {
    module: Arc<CudaModule>,
    sm: u32,
    source: Arc<str>,
    gpu: Gpu,
}

impl Module {
    pub(crate) fn load(gpu: &Gpu, set: &PtxSet) -> Result<Self, Error> {
        let info = gpu.info();
        let ptx = set.select(info.sm).ok_or_else(|| Error::UnsupportedArch {
            device: info.name.clone(),
            sm: info.sm,
            oldest: set.oldest().unwrap_or(0),
        })?;
        let module = gpu
            .context()
            .load_module(CudarcPtx::from_src(ptx.source))
            .context(|| {
                format!(
                    "loading the sm_{} PTX module on {} (sm_{}); a PTX ISA newer than the driver \
                     supports needs a newer driver",
                    ptx.sm, info.name, info.sm
                )
            })?;
        Ok(Self {
            module,
            sm: ptx.sm,
            source: ptx.source.into(),
            gpu: gpu.clone(),
        })
    }

    /// Loads a PTX file built elsewhere (for example by `nvcc -ptx`), such
    /// as the CUDA C++ twins of the benchmarks.
    pub fn from_ptx_file(gpu: &Gpu, path: &std::path::Path) -> Result<Self, Error> {
        let source = std::fs::read_to_string(path).map_err(|source| Error::Io {
            context: format!("reading the PTX file {}", path.display()),
            source,
        })?;
        let sm = source
            .lines()
            .find_map(|l| l.trim().strip_prefix(".target sm_"))
            .and_then(|t| {
                t.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        let module = gpu
            .context()
            .load_module(CudarcPtx::from_src(source.clone()))
            .context(|| format!("loading {}", path.display()))?;
        Ok(Self {
            module,
            sm,
            source: source.into(),
            gpu: gpu.clone(),
        })
    }

    /// The architecture of the loaded PTX.
    pub fn sm(&self) -> u32 {
        self.sm
    }

    /// The kernel `name` if this module has it: a kernel gated to newer
    /// architectures is [`Error::KernelUnavailable`] here.
    pub fn function_if_built(&self, name: &str, kind: LaunchKind) -> Result<Function, Error> {
        if !entry_points(&self.source).contains(&name) {
            return Err(Error::KernelUnavailable {
                kernel: name.into(),
                sm: self.sm,
            });
        }
        self.function(name, kind)
    }

    /// The kernel `name`, to be launched as `kind`.
    pub fn function(&self, name: &str, kind: LaunchKind) -> Result<Function, Error> {
        let entries = entry_points(&self.source);
        if !entries.contains(&name) {
            return Err(Error::KernelNotFound {
                name: name.into(),
                available: entries.join(", "),
            });
        }
        let function = self
            .module
            .load_function(name)
            .context(|| format!("looking up kernel `{name}`"))?;
        Ok(Function {
            function,
            name: name.into(),
            kind,
            gpu: self.gpu.clone(),
        })
    }
}

/// A kernel in a loaded module, with the launch kind it declared.
#[derive(Clone)]
pub struct Function {
    function: CudaFunction,
    name: String,
    kind: LaunchKind,
    gpu: Gpu,
}

impl Function {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How it is launched.
    pub fn kind(&self) -> LaunchKind {
        self.kind
    }

    /// Resident blocks per multiprocessor for this block size and dynamic
    /// shared memory (the occupancy API).
    pub fn max_blocks_per_sm(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32, Error> {
        self.function
            .occupancy_max_active_blocks_per_multiprocessor(
                block_threads,
                shared_mem_bytes as usize,
                None,
            )
            .context(|| format!("occupancy of `{}` at {block_threads} threads", self.name))
    }

    /// The most blocks a cooperative launch of this kernel can have.
    pub fn max_cooperative_blocks(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32, Error> {
        let per_sm = self.max_blocks_per_sm(block_threads, shared_mem_bytes)?;
        let limit = cooperative_limit(per_sm, self.gpu.info().multiprocessors);
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

    /// Launches with the kind the kernel declared.
    ///
    /// # Safety
    /// `params` must point to one value per PTX parameter of the kernel, of
    /// the parameter's type, and every pointer among them must be valid for
    /// the kernel's accesses until it completes. The generated typed handles
    /// uphold this; prefer them.
    pub unsafe fn launch(
        &self,
        config: LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        self.launch_as(self.kind, config, params)
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
        let info = self.gpu.info();
        info.limits
            .check(&config)
            .map_err(|reason| Error::InvalidLaunch {
                kernel: self.name.clone(),
                reason,
            })?;
        let threads = config.block_threads() as u32;
        self.reserve_shared_mem(config.shared_mem_bytes)?;
        let (cooperative, declared_cluster) = match kind {
            LaunchKind::Plain => (false, None),
            LaunchKind::Cooperative => (true, None),
            LaunchKind::Cluster { cooperative, dims } => {
                if dims.is_none() && config.cluster.is_none() {
                    return Err(Error::InvalidLaunch {
                        kernel: self.name.clone(),
                        reason: "the kernel runs in clusters whose shape each launch gives: LaunchConfig::with_cluster".into(),
                    });
                }
                (cooperative, dims.map(|d| Dim3::from((d[0], d[1], d[2]))))
            }
        };
        let cluster = config.cluster.or(declared_cluster);
        let invalid = |reason: String| Error::InvalidLaunch {
            kernel: self.name.clone(),
            reason,
        };
        if let (Some(asked), Some(declared)) = (config.cluster, declared_cluster) {
            if asked != declared {
                return Err(invalid(format!(
                    "the launch asks for clusters of {asked:?}, the kernel declares {declared:?}"
                )));
            }
        }
        if let Some(c) = cluster {
            if info.sm < 90 {
                return Err(Error::ClusterUnsupported {
                    device: info.name.clone(),
                    sm: info.sm,
                    kernel: self.name.clone(),
                });
            }
            check_cluster(config.grid, c).map_err(invalid)?;
        }
        if cooperative {
            if !info.cooperative_launch {
                return Err(Error::CooperativeUnsupported {
                    device: info.name.clone(),
                    kernel: self.name.clone(),
                });
            }
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
        }
        let grid = (config.grid.x, config.grid.y, config.grid.z);
        let block = (config.block.x, config.block.y, config.block.z);
        let stream = self.gpu.stream().cu_stream();
        self.gpu.set_last_launch(&self.name);
        self.gpu
            .context()
            .bind_to_thread()
            .context(|| "binding the context".into())?;
        let f = self.function.cu_function();
        let smem = config.shared_mem_bytes;
        match (cluster, cooperative) {
            (None, false) => result::launch_kernel(f, grid, block, smem, stream, params)
                .context(|| format!("launching `{}` with {config:?}", self.name)),
            (None, true) => result::launch_cooperative_kernel(f, grid, block, smem, stream, params)
                .context(|| format!("cooperative launch of `{}` with {config:?}", self.name)),
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
                sys::cuLaunchKernelEx(&cfg, f, params.as_mut_ptr(), std::ptr::null_mut())
                    .result()
                    .context(|| format!("cluster launch of `{}` with {config:?}", self.name))
            }
        }
    }

    /// Clusters of `config`'s shape that can be resident at once
    /// (`cuOccupancyMaxActiveClusters`); `config.cluster` must be set.
    pub fn max_active_clusters(&self, config: LaunchConfig) -> Result<u32, Error> {
        let c = config.cluster.ok_or_else(|| Error::InvalidLaunch {
            kernel: self.name.clone(),
            reason: "max_active_clusters needs a cluster shape (LaunchConfig::with_cluster)".into(),
        })?;
        let mut attrs = [cluster_attribute(c)];
        let cfg = sys::CUlaunchConfig {
            gridDimX: config.grid.x,
            gridDimY: config.grid.y,
            gridDimZ: config.grid.z,
            blockDimX: config.block.x,
            blockDimY: config.block.y,
            blockDimZ: config.block.z,
            sharedMemBytes: config.shared_mem_bytes,
            hStream: self.gpu.stream().cu_stream(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: 1,
        };
        let mut n = 0i32;
        self.gpu
            .context()
            .bind_to_thread()
            .context(|| "binding the context".into())?;
        // SAFETY: a valid function and a launch configuration that lives
        // through the call.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, self.function.cu_function(), &cfg) }
            .result()
            .context(|| format!("cluster occupancy of `{}`", self.name))?;
        Ok(n as u32)
    }

    /// Raises the kernel's dynamic shared-memory limit when a launch asks for
    /// more than the default 48 KiB.
    fn reserve_shared_mem(&self, bytes: u32) -> Result<(), Error> {
        if bytes > 48 * 1024 {
            self.function
                .set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
                .context(|| {
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

    #[test]
    fn lists_entry_points() {
        let ptx = ".visible .entry foo(\n.param .u64 a\n)\n{\n}\n.visible .entry bar()\n{\n}\n.func baz()\n{\n}";
        assert_eq!(entry_points(ptx), ["foo", "bar"]);
    }
}
