//! Several GPUs of one machine working as one: peer access between every
//! pair, and multi-grid launches (`#[kernel(multi_grid)]`: the same kernel
//! on every GPU at once, with `multi_grid.sync()` across them).
//!
//! CUDA 13 has no multi-device cooperative launch any more
//! (`cudaLaunchCooperativeKernelMultiDevice` was deprecated in CUDA 11.3,
//! and `multi_grid_group` is gone from its headers). A [`GpuSet`] builds
//! one from what the driver has: it checks every grid before it launches
//! any (same kernel, same shape, co-resident on its GPU), writes each
//! module's multi-grid workspace (its GPU's barrier counter, the grid's
//! rank, the number of grids, every GPU's counter), then launches one
//! cooperative grid per GPU, in rank order, under one process-wide lock so
//! that two multi-grid launches never interleave their grids.

use crate::error::Error;
use crate::launch::{LaunchConfig, LaunchKind};
use crate::module::{Function, MultiGridWorkspace, MULTI_GRID_WORDS};
use crate::uses::{cross_stream_lock, Uses};
use crate::{DeviceBuffer, Gpu};
use cudarc::driver::sys::{self, CUdevice_P2PAttribute as P2P};
use cudarc::driver::CudaContext;
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Pairs `(from, to)` of device ordinals where `from`'s context can reach
/// `to`'s memory (enabled by a [`GpuSet`]).
static PEERS: Mutex<BTreeSet<(usize, usize)>> = Mutex::new(BTreeSet::new());

/// Serializes multi-grid launches: the grids of one are queued before any
/// grid of another, on every GPU. Streams wait for each other's events only
/// under it too (`uses::cross_stream_lock`).
pub(crate) static LAUNCHING: Mutex<()> = Mutex::new(());

/// Whether kernels on GPU `from` can reach buffers of GPU `to`.
pub(crate) fn peer_access(from: usize, to: usize) -> bool {
    from == to
        || PEERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&(from, to))
}

/// Forgets the peer access of GPU `ordinal`'s old context (after a reset).
pub(crate) fn forget_peers(ordinal: usize) {
    PEERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&(a, b)| a != ordinal && b != ordinal);
}

/// What the set's checks know of one GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetDevice {
    /// Its ordinal.
    pub ordinal: usize,
    /// Its name, e.g. "NVIDIA H200".
    pub name: String,
    /// Its compute capability (`major * 10 + minor`).
    pub sm: u32,
}

/// What the driver says of one ordered pair of GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PeerLink {
    /// `cuDeviceCanAccessPeer`: kernels on the first can read and write the
    /// second's memory.
    pub access: bool,
    /// `CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED`: atomics from the
    /// first on the second's memory are atomic (the multi-grid barrier's
    /// counter needs them).
    pub native_atomics: bool,
}

/// The first of the set's checks: `asked` ordinals, none twice, all among
/// the `count` the driver reports.
pub(crate) fn check_ordinals(asked: &[usize], count: usize) -> Result<(), String> {
    if asked.is_empty() {
        return Err("a set needs at least one GPU".into());
    }
    let mut seen = BTreeSet::new();
    if let Some(twice) = asked.iter().find(|o| !seen.insert(**o)) {
        return Err(format!("GPU {twice} is listed twice"));
    }
    let missing: Vec<usize> = asked.iter().copied().filter(|&o| o >= count).collect();
    if !missing.is_empty() {
        return Err(format!(
            "{} asked for, but the driver reports {count} GPU{} (ordinals 0..{count}); missing: {missing:?} \
             (check nvidia-smi and CUDA_VISIBLE_DEVICES)",
            asked.len(),
            if count == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

/// The rest of the set's checks, on what the driver reported: `devices`
/// (at least one), and `link(i, j)` for every ordered pair of positions.
/// The message names the devices and what is missing.
pub(crate) fn check_set(
    devices: &[SetDevice],
    link: impl Fn(usize, usize) -> PeerLink,
) -> Result<(), String> {
    let first = &devices[0];
    for d in &devices[1..] {
        if (d.name.as_str(), d.sm) != (first.name.as_str(), first.sm) {
            return Err(format!(
                "GPU {} is {} (sm_{}) but GPU {} is {} (sm_{}): a multi-grid launch runs one \
                 module and one launch shape on every GPU, so the GPUs must be the same model",
                first.ordinal, first.name, first.sm, d.ordinal, d.name, d.sm
            ));
        }
    }
    for (i, a) in devices.iter().enumerate() {
        for (j, b) in devices.iter().enumerate() {
            if i == j {
                continue;
            }
            let l = link(i, j);
            if !l.access {
                return Err(format!(
                    "GPU {} ({}) has no peer access to GPU {}'s memory (cuDeviceCanAccessPeer): \
                     kernels on one cannot reach the other's buffers; use GPUs joined by NVLink \
                     or on one PCIe switch (nvidia-smi topo -m)",
                    a.ordinal, a.name, b.ordinal
                ));
            }
            if !l.native_atomics {
                return Err(format!(
                    "atomics from GPU {} on GPU {}'s memory are not native \
                     (CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED is 0), and the multi-grid \
                     barrier's counter needs them; use GPUs joined by NVLink",
                    a.ordinal, b.ordinal
                ));
            }
        }
    }
    Ok(())
}

/// GPUs of one machine that kernels use together: peer access between
/// every pair (a kernel on one may take another's buffers as parameters),
/// and [`GpuSet::launch`] for `#[kernel(multi_grid)]` kernels (on at most
/// eight GPUs). Each GPU holds a counter of the multi-grid barrier, which
/// every GPU's grids update.
///
/// A buffer used by a kernel on another GPU of the set is waited for
/// before the host reads, writes or frees it, and before a kernel on a
/// third GPU uses it in a way that conflicts (see [`DeviceBuffer`]).
/// Dropping the set waits for all of its GPUs, since every GPU's grids
/// update the counters on the others.
///
/// Every GPU of the machine, where they can work together; without a
/// driver, or with GPUs that lack peer access, the error says why:
///
/// ```
/// use cooperative_groups::GpuSet;
///
/// match GpuSet::all() {
///     Ok(set) => println!("{} GPUs with peer access", set.len()),
///     Err(e) => println!("no set of GPUs here: {e}"),
/// }
/// // With a set, a #[kernel(multi_grid)] runs on all of them at once:
/// // let k = set.each(Kernels::load)?;
/// // set.launch(config, |rank, member| k[rank].my_kernel.launch(member, &mut outs[rank]))?;
/// ```
pub struct GpuSet {
    gpus: Vec<Gpu>,
    /// The multi-grid barrier's counters, one on each GPU, in rank order:
    /// a 128-byte line each, so that nothing else shares the polled line.
    counters: Vec<DeviceBuffer<u32>>,
}

impl GpuSet {
    /// Every GPU the driver reports (`CUDA_VISIBLE_DEVICES` chooses).
    pub fn all() -> Result<Self, Error> {
        let count = Gpu::count()?;
        Self::new(&(0..count).collect::<Vec<_>>())
    }

    /// The GPUs `ordinals`, in this order (their ranks in a multi-grid
    /// launch). Refused with [`Error::GpuSet`] when a GPU is missing, the
    /// models differ, or two of them lack peer access or native peer
    /// atomics; peer access is enabled between every pair.
    pub fn new(ordinals: &[usize]) -> Result<Self, Error> {
        let refused = |reason: String| Error::GpuSet {
            ordinals: ordinals.to_vec(),
            reason,
        };
        check_ordinals(ordinals, Gpu::count()?).map_err(refused)?;
        let gpus = ordinals
            .iter()
            .map(|&o| Gpu::new(o))
            .collect::<Result<Vec<_>, _>>()?;
        let devices: Vec<SetDevice> = gpus
            .iter()
            .map(|g| SetDevice {
                ordinal: g.ordinal(),
                name: g.info().name.clone(),
                sm: g.info().sm,
            })
            .collect();
        let ctxs = gpus
            .iter()
            .map(|g| g.context().cloned())
            .collect::<Result<Vec<_>, _>>()?;
        let link = |i: usize, j: usize| peer_link(&ctxs[i], &ctxs[j]);
        check_set(&devices, link).map_err(refused)?;
        for (i, a) in gpus.iter().enumerate() {
            for (j, b) in gpus.iter().enumerate() {
                if i != j {
                    enable_peer_access(a, b)?;
                }
            }
        }
        let counters = gpus
            .iter()
            .map(|g| {
                let mut c = DeviceBuffer::uninit(g, 32)?;
                c.zero()?;
                g.synchronize()?;
                Ok(c)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Self { gpus, counters })
    }

    /// The GPUs, in rank order.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// The number of GPUs.
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Whether the set is empty (never: a set has at least one GPU).
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// `f` for every GPU in rank order (loading modules, allocating the
    /// buffers of each), stopping at the first error.
    pub fn each<T>(&self, f: impl FnMut(&Gpu) -> Result<T, Error>) -> Result<Vec<T>, Error> {
        self.gpus.iter().map(f).collect()
    }

    /// Waits for the work on every GPU of the set.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.gpus.iter().try_for_each(Gpu::synchronize)
    }

    /// A multi-grid launch: `grid(rank, member)` is called for every GPU
    /// in rank order and gives that GPU's kernel and parameters through
    /// the kernel's typed handle (`k[rank].my_kernel.launch(member, ..)`
    /// for a `#[kernel(multi_grid)]`). Nothing starts until every grid is
    /// checked: the same kernel on every GPU, loaded on that GPU, and
    /// `config` co-resident there; then each GPU's grid is queued on its
    /// stream, cooperatively, with its multi-grid workspace.
    ///
    /// ```ignore
    /// let set = GpuSet::all()?;
    /// let k = set.each(Kernels::load)?;
    /// let mut out = set.each(|g| g.filled(n, 0u32))?;
    /// set.launch(config, |rank, member| k[rank].exchange.launch(member, &mut out[rank]))?;
    /// set.synchronize()?;
    /// ```
    ///
    /// The grids run at once, so one buffer given to two of them must not
    /// be written by either: a buffer given writable (`&mut`) to one grid
    /// and given to another at all is refused with
    /// [`Error::MultiGridSharedBuffer`], before any grid starts. A kernel
    /// has no way yet to declare which part of a shared buffer each grid
    /// writes; where it writes disjoint parts (halo rows), see
    /// [`GpuSet::launch_sharing_buffers`]. Every grid is ordered after the
    /// work that uses its buffers on other GPUs, and the buffers remember
    /// the grids (see [`DeviceBuffer`]).
    pub fn launch(
        &self,
        config: LaunchConfig,
        grid: impl FnMut(usize, &mut MultiGridMember) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.launch_grids(config, grid, true)
    }

    /// [`GpuSet::launch`] without refusing buffers shared by grids where
    /// one of them writes: for kernels that write parts of a shared buffer
    /// that no other grid reads or writes (a neighbour's halo rows), which
    /// the kernel cannot declare yet.
    ///
    /// # Safety
    /// Between two `multi_grid.sync()` calls (and before the first, and
    /// after the last), no element of a buffer given to several grids is
    /// written by one grid and read or written by another. Everything else
    /// is checked as in [`GpuSet::launch`].
    pub unsafe fn launch_sharing_buffers(
        &self,
        config: LaunchConfig,
        grid: impl FnMut(usize, &mut MultiGridMember) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.launch_grids(config, grid, false)
    }

    /// [`GpuSet::launch`], refusing shared buffers written by a grid if
    /// `refuse_shared`.
    fn launch_grids(
        &self,
        config: LaunchConfig,
        mut grid: impl FnMut(usize, &mut MultiGridMember) -> Result<(), Error>,
        refuse_shared: bool,
    ) -> Result<(), Error> {
        let refused = |reason: String| Error::MultiGridLaunch { reason };
        let mut members = Vec::with_capacity(self.gpus.len());
        for (rank, gpu) in self.gpus.iter().enumerate() {
            let mut m = MultiGridMember {
                rank,
                ordinal: gpu.ordinal(),
                grid: None,
                buffers: Vec::new(),
            };
            grid(rank, &mut m)?;
            members.push(m);
        }
        let mut plans = Vec::with_capacity(members.len());
        let mut name: Option<&str> = None;
        for (m, gpu) in members.iter().zip(&self.gpus) {
            let Some(g) = &m.grid else {
                return Err(refused(format!(
                    "the closure gave GPU {} (rank {}) no kernel: call the kernel's launch handle \
                     with the member it is given",
                    gpu.ordinal(),
                    m.rank
                )));
            };
            let f = &g.function;
            if f.gpu().ordinal() != gpu.ordinal() {
                return Err(refused(format!(
                    "rank {}'s kernel `{}` was loaded on GPU {}, not on GPU {}: load the kernels on \
                     every GPU of the set (GpuSet::each) and use rank r's for rank r",
                    m.rank,
                    f.name(),
                    f.gpu().ordinal(),
                    gpu.ordinal()
                )));
            }
            if f.kind() != LaunchKind::MultiGrid {
                return Err(refused(format!(
                    "`{}` is not a #[kernel(multi_grid)]",
                    f.name()
                )));
            }
            match name {
                Some(n) if n != f.name() => {
                    return Err(refused(format!(
                        "rank 0 runs `{n}` but rank {} runs `{}`: every GPU runs the same kernel",
                        m.rank,
                        f.name()
                    )))
                }
                _ => name = Some(f.name()),
            }
            let plan = f.plan(LaunchKind::MultiGrid, &config).map_err(|e| {
                refused(format!("GPU {} ({}): {e}", gpu.ordinal(), gpu.info().name))
            })?;
            plans.push(plan);
        }
        if refuse_shared {
            let args: Vec<GridBuffer> = members
                .iter()
                .flat_map(|m| m.buffers.iter().map(|b| b.view(m)))
                .collect();
            check_shared(&args)?;
        }
        if self.gpus.len() > cg_core::multi_grid::MAX_GRIDS as usize {
            return Err(refused(format!(
                "a multi-grid launch spans at most {} GPUs (the barrier's workspace holds every \
                 GPU's counter); this set has {}",
                cg_core::multi_grid::MAX_GRIDS,
                self.gpus.len()
            )));
        }
        let counters = self
            .counters
            .iter()
            .map(DeviceBuffer::launch_address)
            .collect::<Result<Vec<_>, _>>()?;
        // Released before `members`, whose buffer records may free memory
        // (which takes this lock).
        let _one_at_a_time = cross_stream_lock();
        // Each grid after the other GPUs' work on its buffers: waits for
        // events recorded before any grid of this launch is queued.
        for (m, gpu) in members.iter().zip(&self.gpus) {
            for b in &m.buffers {
                b.uses.order(gpu, b.write)?;
            }
        }
        let queued = queue(&mut members, plans, &config, &counters);
        // Queued together, the grids are recorded only after all of them
        // (a grid queued only in part counts as queued).
        for (m, gpu) in members.iter().zip(&self.gpus) {
            for b in &m.buffers {
                b.uses.record(gpu, b.write, false);
            }
        }
        queued
    }
}

/// The multi-grid workspace of grid `rank` of a launch over the GPUs
/// whose barrier counters lie at `counters` (in rank order): its own
/// counter, its rank and the number of grids, every grid's counter.
fn workspace(rank: usize, counters: &[u64]) -> MultiGridWorkspace {
    let mut w = [0u64; MULTI_GRID_WORDS];
    w[0] = counters[rank];
    w[1] = rank as u64 | (counters.len() as u64) << 32;
    w[2..2 + counters.len()].copy_from_slice(counters);
    w
}

/// Queues each member's grid as `plans` say, in rank order, with its
/// multi-grid [`workspace`].
fn queue(
    members: &mut [MultiGridMember],
    plans: Vec<crate::module::LaunchPlan>,
    config: &LaunchConfig,
    counters: &[u64],
) -> Result<(), Error> {
    for (m, plan) in members.iter_mut().zip(plans) {
        let g = m.grid.as_mut().expect("checked above");
        let mut params: Vec<*mut c_void> =
            g.params.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
        let workspace = workspace(m.rank, counters);
        // SAFETY: the parameters come from the kernel's typed handle
        // (`MultiGridMember::set_grid`'s contract); every grid was
        // checked above and the others are queued right after this one.
        unsafe {
                g.function
                    .launch_multi_grid_member(plan, config, workspace, &mut params)
            }
            .map_err(|e| match m.rank {
                0 => e,
                r => Error::MultiGridLaunch {
                    reason: format!(
                        "the grids of ranks 0..{r} were queued, but GPU {}'s failed: {e}; the \
                         queued grids wait for it at their first multi_grid.sync(): end the process",
                        m.ordinal
                    ),
                },
            })?;
    }
    Ok(())
}

impl Drop for GpuSet {
    fn drop(&mut self) {
        // Each counter is freed on its own GPU's stream; the other GPUs'
        // grids may still update it. A wait that fails (a
        // lost context) leaves nothing to protect.
        let _ = self.synchronize();
    }
}

/// One GPU's grid of a multi-grid launch ([`GpuSet::launch`]), filled by
/// the kernel's typed handle.
pub struct MultiGridMember {
    rank: usize,
    ordinal: usize,
    grid: Option<MemberGrid>,
    /// The buffers given to the grid.
    buffers: Vec<MemberBuffer>,
}

/// A buffer given to one grid of a multi-grid launch: its record of uses
/// (which also keeps its memory until the grids are queued, should the
/// closure drop the buffer after giving it), where it lies, and how the
/// grid uses it.
struct MemberBuffer {
    param: String,
    uses: Arc<Uses>,
    buffer_gpu: usize,
    range: Range<u64>,
    write: bool,
}

impl MemberBuffer {
    /// What [`check_shared`] sees of it, in `member`'s grid.
    fn view<'a>(&'a self, member: &MultiGridMember) -> GridBuffer<'a> {
        GridBuffer {
            rank: member.rank,
            gpu: member.ordinal,
            param: &self.param,
            buffer_gpu: self.buffer_gpu,
            range: self.range.clone(),
            write: self.write,
        }
    }
}

/// One buffer parameter of one grid of a multi-grid launch.
#[derive(Clone, Debug)]
pub(crate) struct GridBuffer<'a> {
    /// The grid's rank.
    pub rank: usize,
    /// The grid's GPU.
    pub gpu: usize,
    /// The kernel's parameter.
    pub param: &'a str,
    /// The GPU the buffer lives on.
    pub buffer_gpu: usize,
    /// Its device addresses.
    pub range: Range<u64>,
    /// Whether the parameter is writable.
    pub write: bool,
}

/// [`Error::MultiGridSharedBuffer`] for the first pair of `buffers` of two
/// grids that overlap where one of the two is writable.
pub(crate) fn check_shared(buffers: &[GridBuffer]) -> Result<(), Error> {
    for (i, a) in buffers.iter().enumerate() {
        for b in &buffers[i + 1..] {
            let overlap = a.buffer_gpu == b.buffer_gpu
                && a.range.start < b.range.end
                && b.range.start < a.range.end;
            if a.rank != b.rank && overlap && (a.write || b.write) {
                let (w, o) = if a.write { (a, b) } else { (b, a) };
                return Err(Error::MultiGridSharedBuffer {
                    buffer_gpu: w.buffer_gpu,
                    param: w.param.into(),
                    rank: w.rank,
                    gpu: w.gpu,
                    other_param: o.param.into(),
                    other_rank: o.rank,
                    other_gpu: o.gpu,
                    other_writes: o.write,
                });
            }
        }
    }
    Ok(())
}

struct MemberGrid {
    function: Function,
    /// Each parameter's bytes, 8-byte aligned.
    params: Vec<Vec<u64>>,
}

impl MultiGridMember {
    /// This GPU's rank in the set.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// This GPU's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The address of `buffer` for this GPU's kernel `function`, which
    /// reads it as its parameter `param`: checked as
    /// [`DeviceBuffer::launch_address_for`] checks it, and kept for
    /// [`GpuSet::launch`]'s check of buffers shared by grids, its ordering
    /// after other GPUs' work, and its record of the use. The generated
    /// handles of `#[kernel(multi_grid)]` kernels pass every read-only
    /// buffer through here.
    pub fn buffer<T: bytemuck::Pod>(
        &mut self,
        function: &Function,
        param: &str,
        buffer: &DeviceBuffer<T>,
    ) -> Result<u64, Error> {
        self.add_buffer(function, param, buffer, false)
    }

    /// [`MultiGridMember::buffer`] for a parameter the kernel may write.
    pub fn buffer_mut<T: bytemuck::Pod>(
        &mut self,
        function: &Function,
        param: &str,
        buffer: &mut DeviceBuffer<T>,
    ) -> Result<u64, Error> {
        self.add_buffer(function, param, buffer, true)
    }

    fn add_buffer<T: bytemuck::Pod>(
        &mut self,
        function: &Function,
        param: &str,
        buffer: &DeviceBuffer<T>,
        write: bool,
    ) -> Result<u64, Error> {
        let address = buffer.checked_address_for(function)?;
        self.buffers.push(MemberBuffer {
            param: param.into(),
            uses: buffer.uses().clone(),
            buffer_gpu: buffer.gpu().ordinal(),
            range: address..address + buffer.byte_len(),
            write,
        });
        Ok(address)
    }

    /// Sets this GPU's kernel and the bytes of its parameters (what the
    /// generated handles of `#[kernel(multi_grid)]` kernels call).
    ///
    /// # Safety
    /// `params` must be one value per PTX parameter of `function`, of its
    /// type, and every buffer address among them valid until the kernel
    /// completes, and used by no other grid of the launch in a way that
    /// races: the typed handles uphold this by taking every buffer's
    /// address from [`MultiGridMember::buffer`] or
    /// [`MultiGridMember::buffer_mut`].
    pub unsafe fn set_grid(&mut self, function: &Function, params: &[&[u8]]) -> Result<(), Error> {
        if self.grid.is_some() {
            return Err(Error::MultiGridLaunch {
                reason: format!(
                    "GPU {} (rank {}) was given two kernels: one kernel per GPU",
                    self.ordinal, self.rank
                ),
            });
        }
        let params = params
            .iter()
            .map(|p| {
                let mut words = vec![0u64; p.len().div_ceil(8)];
                bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..p.len()].copy_from_slice(p);
                words
            })
            .collect();
        self.grid = Some(MemberGrid {
            function: function.clone(),
            params,
        });
        Ok(())
    }
}

/// What the driver says of kernels on `a`'s device reaching `b`'s memory.
fn peer_link(a: &CudaContext, b: &CudaContext) -> PeerLink {
    let (da, db) = (a.cu_device(), b.cu_device());
    let mut access = 0;
    let mut atomics = 0;
    // SAFETY: two valid device handles and out-pointers that live through
    // the calls.
    let ok = unsafe {
        sys::cuDeviceCanAccessPeer(&mut access, da, db) == sys::CUresult::CUDA_SUCCESS
            && sys::cuDeviceGetP2PAttribute(
                &mut atomics,
                P2P::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
                da,
                db,
            ) == sys::CUresult::CUDA_SUCCESS
    };
    PeerLink {
        access: ok && access != 0,
        native_atomics: ok && atomics != 0,
    }
}

/// Lets kernels on `from` reach `to`'s memory: its ordinary allocations
/// (`cuCtxEnablePeerAccess`; already enabled is fine) and those of its
/// memory pool, where buffers come from (`cuMemAllocAsync`: peer access to
/// a pool is granted on the pool, `cuMemPoolSetAccess`).
fn enable_peer_access(from: &Gpu, to: &Gpu) -> Result<(), Error> {
    let _entered = from.enter()?;
    from.driver(from.context()?.bind_to_thread(), || {
        "binding the context".into()
    })?;
    // SAFETY: `to`'s context is alive (held by `to`); the call only maps
    // its memory into the current context.
    let r = unsafe { sys::cuCtxEnablePeerAccess(to.context()?.cu_ctx(), 0) };
    if r != sys::CUresult::CUDA_SUCCESS
        && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
    {
        return Err(from.driver_failure(cudarc::driver::DriverError(r), || {
            format!(
                "enabling GPU {}'s access to GPU {}'s memory",
                from.ordinal(),
                to.ordinal()
            )
        }));
    }
    let mut pool = std::ptr::null_mut();
    // SAFETY: a valid device handle and an out-pointer that lives through
    // the call.
    let r = unsafe { sys::cuDeviceGetMemPool(&mut pool, to.context()?.cu_device()) };
    from.driver(r.result(), || {
        format!("finding GPU {}'s memory pool", to.ordinal())
    })?;
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from.context()?.cu_device(),
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: the pool just found, one access descriptor that lives
    // through the call.
    let r = unsafe { sys::cuMemPoolSetAccess(pool, &access, 1) };
    from.driver(r.result(), || {
        format!(
            "letting GPU {} reach the buffers of GPU {}'s memory pool",
            from.ordinal(),
            to.ordinal()
        )
    })?;
    PEERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert((from.ordinal(), to.ordinal()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200(ordinal: usize) -> SetDevice {
        SetDevice {
            ordinal,
            name: "NVIDIA H200".into(),
            sm: 90,
        }
    }

    fn unreachable_link() -> PeerLink {
        PeerLink {
            access: false,
            native_atomics: false,
        }
    }

    const LINKED: PeerLink = PeerLink {
        access: true,
        native_atomics: true,
    };

    #[test]
    fn each_grid_gets_its_counter_its_rank_and_every_counter() {
        let counters = [0x1000, 0x2000, 0x3000];
        for rank in 0..3 {
            let w = workspace(rank, &counters);
            assert_eq!(w[0], counters[rank]);
            assert_eq!(w[1], rank as u64 | 3 << 32);
            assert_eq!(&w[2..5], &counters);
            assert!(w[5..].iter().all(|&a| a == 0), "{w:?}");
        }
        let eight: Vec<u64> = (1..=8).collect();
        assert_eq!(&workspace(7, &eight)[2..], &eight[..]);
    }

    /// Rank `rank`'s grid (on GPU `rank`) given bytes `range` of a buffer
    /// of GPU 0 as `param`.
    fn arg(rank: usize, param: &str, range: Range<u64>, write: bool) -> GridBuffer<'_> {
        GridBuffer {
            rank,
            gpu: rank,
            param,
            buffer_gpu: 0,
            range,
            write,
        }
    }

    #[test]
    fn refuses_a_buffer_two_grids_write_naming_both_parameters_and_gpus() {
        let e = check_shared(&[
            arg(0, "out", 0x1000..0x1100, true),
            arg(1, "out", 0x1000..0x1100, true),
        ])
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::MultiGridSharedBuffer {
                    rank: 0,
                    gpu: 0,
                    other_rank: 1,
                    other_gpu: 1,
                    other_writes: true,
                    ..
                }
            ),
            "{e:?}"
        );
        let text = e.to_string();
        for want in [
            "one buffer of GPU 0 is the writable `out` of rank 0's grid (GPU 0) and the writable \
             `out` of rank 1's (GPU 1)",
            "overwrite",
            "Give each grid a buffer of its own",
            "GpuSet::launch_sharing_buffers",
        ] {
            assert!(text.contains(want), "no `{want}` in: {text}");
        }
    }

    #[test]
    fn refuses_a_buffer_one_grid_writes_and_another_reads() {
        let e = check_shared(&[
            arg(0, "input", 0x1000..0x1100, false),
            arg(1, "halo", 0x1080..0x1200, true),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "the writable `halo` of rank 1's grid (GPU 1) and the read-only `input` of rank 0's"
            ) && e.contains("read half-written"),
            "{e}"
        );
    }

    #[test]
    fn accepts_buffers_read_by_several_grids_or_given_to_one() {
        check_shared(&[
            arg(0, "input", 0x1000..0x1100, false),
            arg(1, "input", 0x1000..0x1100, false),
            arg(0, "out", 0x2000..0x2100, true),
            arg(1, "out", 0x2100..0x2200, true),
        ])
        .unwrap();
        // One grid may take a buffer twice (read-only, as the borrow rules
        // of its handle allow); a buffer of another GPU at the same
        // address is another buffer.
        let mut other_gpu = arg(1, "out", 0x1000..0x1100, true);
        other_gpu.buffer_gpu = 1;
        check_shared(&[
            arg(0, "a", 0x1000..0x1100, false),
            arg(0, "b", 0x1000..0x1100, false),
            other_gpu,
        ])
        .unwrap();
    }

    #[test]
    fn accepts_same_model_gpus_with_peer_access_and_atomics() {
        check_ordinals(&[0, 1], 2).unwrap();
        check_set(&[h200(0), h200(1)], |_, _| LINKED).unwrap();
        check_set(&[h200(1)], |_, _| unreachable_link()).unwrap();
        check_ordinals(&[3, 0, 2, 1], 4).unwrap();
        check_set(&[h200(3), h200(0), h200(2), h200(1)], |_, _| LINKED).unwrap();
    }

    #[test]
    fn refuses_fewer_gpus_than_asked_for() {
        let e = check_ordinals(&[0, 1], 1).unwrap_err();
        assert!(
            e.contains("2 asked for, but the driver reports 1 GPU") && e.contains("missing: [1]"),
            "{e}"
        );
        assert!(check_ordinals(&[], 2)
            .unwrap_err()
            .contains("at least one GPU"));
        let e = check_ordinals(&[0, 0], 2).unwrap_err();
        assert!(e.contains("GPU 0 is listed twice"), "{e}");
    }

    #[test]
    fn refuses_different_models() {
        let h100 = SetDevice {
            ordinal: 1,
            name: "NVIDIA H100 80GB HBM3".into(),
            sm: 90,
        };
        let e = check_set(&[h200(0), h100], |_, _| LINKED).unwrap_err();
        assert!(
            e.contains("GPU 0 is NVIDIA H200 (sm_90) but GPU 1 is NVIDIA H100 80GB HBM3 (sm_90)")
                && e.contains("same model"),
            "{e}"
        );
        let a100 = SetDevice {
            ordinal: 1,
            name: "NVIDIA H200".into(),
            sm: 80,
        };
        assert!(check_set(&[h200(0), a100], |_, _| LINKED).is_err());
    }

    #[test]
    fn refuses_missing_peer_access_or_atomics_in_either_direction() {
        let e = check_set(&[h200(0), h200(1)], |i, _| PeerLink {
            access: i == 0,
            native_atomics: true,
        })
        .unwrap_err();
        assert!(
            e.contains("GPU 1 (NVIDIA H200) has no peer access to GPU 0's memory"),
            "{e}"
        );
        let e = check_set(&[h200(0), h200(1)], |i, _| PeerLink {
            access: true,
            native_atomics: i == 1,
        })
        .unwrap_err();
        assert!(
            e.contains("atomics from GPU 0 on GPU 1's memory are not native"),
            "{e}"
        );
    }
}
