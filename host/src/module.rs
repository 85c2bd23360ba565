//! Embedded PTX, loaded modules and their functions.

use crate::error::{Context, Error};
use crate::launch::{cooperative_limit, LaunchConfig, LaunchKind};
use crate::Gpu;
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
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
        let source = std::fs::read_to_string(path).map_err(|e| Error::InvalidLaunch {
            kernel: path.display().to_string(),
            reason: format!("cannot read the PTX file: {e}"),
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
        let grid = (config.grid.x, config.grid.y, config.grid.z);
        let block = (config.block.x, config.block.y, config.block.z);
        let stream = self.gpu.stream().cu_stream();
        self.gpu.set_last_launch(&self.name);
        self.gpu
            .context()
            .bind_to_thread()
            .context(|| "binding the context".into())?;
        let f = self.function.cu_function();
        match kind {
            LaunchKind::Plain => {
                result::launch_kernel(f, grid, block, config.shared_mem_bytes, stream, params)
                    .context(|| format!("launching `{}` with {config:?}", self.name))
            }
            LaunchKind::Cooperative => {
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
                result::launch_cooperative_kernel(
                    f,
                    grid,
                    block,
                    config.shared_mem_bytes,
                    stream,
                    params,
                )
                .context(|| format!("cooperative launch of `{}` with {config:?}", self.name))
            }
            LaunchKind::Cluster { .. } => Err(Error::InvalidLaunch {
                kernel: self.name.clone(),
                reason:
                    "thread-block cluster launches are not supported by this version of cg-host"
                        .into(),
            }),
        }
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
