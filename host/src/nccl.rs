//! NCCL (the `nccl` feature): transfers between GPUs, in one process or
//! in one process per GPU (across machines too), queued on each GPU's
//! stream in order with its kernels.
//!
//! `libnccl.so.2` is loaded when first needed, like the driver (cudarc's
//! dynamic loading): on a machine without it, [`nccl_present`] is false and
//! every call here returns [`Error::Nccl`] saying what to install. The pip
//! package `nvidia-nccl-cu13` has it; put its `lib` directory
//! (`python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))'`)
//! on `LD_LIBRARY_PATH`.
//!
//! One process for all GPUs:
//!
//! ```ignore
//! let set = GpuSet::all()?;
//! let comms = Communicator::for_set(&set)?;
//! nccl::group(|| {
//!     comms[0].send(&a, 0..n, 1)?;
//!     comms[1].recv(&mut b, 0..n, 0)
//! })?;
//! ```
//!
//! One process per GPU: rank 0 makes a [`UniqueId`] and hands its text
//! ([`UniqueId::to_hex`]) to the others (a file on a shared file system,
//! an environment variable set by the job launcher); every process then
//! calls [`Communicator::for_rank`] with its rank and the number of ranks.
//!
//! Transfers that overlap kernels: a communicator made with
//! [`Communicator::for_set_overlapping`] or
//! [`Communicator::for_rank_overlapping`] queues on a stream of its own,
//! and its transfers go through an [`Overlap`] (see [`overlap`]): they
//! start after the work queued on the GPU so far, the GPU's next kernels
//! run beside them, and [`InFlight::finish`] orders the GPU's later work
//! after them. The buffers stay borrowed until then, so no kernel can
//! touch them meanwhile.

use crate::error::Error;
use crate::{DeviceBuffer, Gpu, GpuSet};
use cudarc::driver::CudaStream;
use cudarc::nccl::{result::NcclError, sys, Comm, Id};
use std::ops::Range;
use std::sync::Arc;

pub mod overlap;
pub use overlap::{InFlight, Overlap};

/// Whether `libnccl.so` can be loaded on this machine.
pub fn nccl_present() -> bool {
    // SAFETY: loads the library (running only its initialisers) and keeps
    // it loaded.
    unsafe { sys::is_culib_present() }
}

/// [`Error::Nccl`] for a machine without the library.
fn require(context: &str) -> Result<(), Error> {
    if nccl_present() {
        return Ok(());
    }
    Err(Error::Nccl {
        context: context.into(),
        message: "libnccl.so.2 could not be loaded: install NCCL (the pip package \
                  nvidia-nccl-cu13 has it) and put its lib directory on LD_LIBRARY_PATH"
            .into(),
    })
}

/// NCCL's description of `e`.
fn nccl_error(context: impl Into<String>, e: NcclError) -> Error {
    // SAFETY: NCCL returns a static NUL-terminated string for every code.
    let text = unsafe {
        let p = sys::ncclGetErrorString(e.0);
        if p.is_null() {
            format!("{:?}", e.0)
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    Error::Nccl {
        context: context.into(),
        message: format!("{text} ({:?})", e.0),
    }
}

/// The identity of a group of ranks, made once (by rank 0) and given to
/// every rank.
#[derive(Clone, Copy, Debug)]
pub struct UniqueId(Id);

impl UniqueId {
    /// A new identity (`ncclGetUniqueId`).
    pub fn new() -> Result<Self, Error> {
        require("making an NCCL unique id")?;
        Id::new()
            .map(UniqueId)
            .map_err(|e| nccl_error("making an NCCL unique id", e))
    }

    /// Its 128 bytes as 256 hex digits, to pass to the other processes.
    pub fn to_hex(&self) -> String {
        self.0
            .internal()
            .iter()
            .map(|&c| format!("{:02x}", c as u8))
            .collect()
    }

    /// The identity [`UniqueId::to_hex`] wrote.
    pub fn from_hex(text: &str) -> Result<Self, Error> {
        let text = text.trim();
        let bad = || Error::Nccl {
            context: "reading an NCCL unique id".into(),
            message: format!(
                "expected 256 hex digits (what UniqueId::to_hex writes), got {} characters",
                text.len()
            ),
        };
        if text.len() != 256 || !text.is_ascii() {
            return Err(bad());
        }
        let mut internal = [0 as std::ffi::c_char; 128];
        for (i, b) in internal.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?
                as std::ffi::c_char;
        }
        Ok(UniqueId(Id::uninit(internal)))
    }
}

/// One rank of an NCCL communicator: a GPU, and the stream its transfers
/// are queued on: the GPU's own (transfers and kernels run in the order
/// issued), or, for an overlapping communicator, a stream of the
/// communicator's (transfers run beside the GPU's kernels; see
/// [`Overlap`]).
pub struct Communicator {
    comm: Comm,
    gpu: Gpu,
    /// Whether the communicator's stream is its own, not the GPU's.
    overlapping: bool,
}

impl Communicator {
    /// One communicator per GPU of `set`, in rank order, in this process
    /// (`ncclCommInitAll`), queuing on each GPU's stream.
    pub fn for_set(set: &GpuSet) -> Result<Vec<Self>, Error> {
        let streams = set
            .gpus()
            .iter()
            .map(|g| g.stream().cloned())
            .collect::<Result<Vec<_>, _>>()?;
        Self::for_set_on(set, streams, false)
    }

    /// [`Communicator::for_set`], each communicator on a stream of its own
    /// beside its GPU's: its transfers go through [`Overlap`], beside the
    /// GPU's kernels.
    pub fn for_set_overlapping(set: &GpuSet) -> Result<Vec<Self>, Error> {
        let streams = set
            .gpus()
            .iter()
            .map(own_stream)
            .collect::<Result<Vec<_>, _>>()?;
        Self::for_set_on(set, streams, true)
    }

    fn for_set_on(
        set: &GpuSet,
        streams: Vec<Arc<CudaStream>>,
        overlapping: bool,
    ) -> Result<Vec<Self>, Error> {
        require("creating NCCL communicators")?;
        let comms = Comm::from_devices(streams).map_err(|e| {
            nccl_error(
                format!("creating NCCL communicators for {} GPUs", set.len()),
                e,
            )
        })?;
        Ok(comms
            .into_iter()
            .zip(set.gpus())
            .map(|(comm, gpu)| Communicator {
                comm,
                gpu: gpu.clone(),
                overlapping,
            })
            .collect())
    }

    /// This process's rank `rank` of `ranks`, on `gpu`, joining the group
    /// that `id` names (`ncclCommInitRank`: waits until every rank has
    /// joined), queuing on the GPU's stream.
    pub fn for_rank(gpu: &Gpu, rank: usize, ranks: usize, id: &UniqueId) -> Result<Self, Error> {
        Self::for_rank_on(gpu, rank, ranks, id, false)
    }

    /// [`Communicator::for_rank`] on a stream of the communicator's own
    /// beside the GPU's: its transfers go through [`Overlap`], beside the
    /// GPU's kernels.
    pub fn for_rank_overlapping(
        gpu: &Gpu,
        rank: usize,
        ranks: usize,
        id: &UniqueId,
    ) -> Result<Self, Error> {
        Self::for_rank_on(gpu, rank, ranks, id, true)
    }

    fn for_rank_on(
        gpu: &Gpu,
        rank: usize,
        ranks: usize,
        id: &UniqueId,
        overlapping: bool,
    ) -> Result<Self, Error> {
        require("joining an NCCL communicator")?;
        if rank >= ranks {
            return Err(Error::Nccl {
                context: "joining an NCCL communicator".into(),
                message: format!("rank {rank} of {ranks}: ranks are 0..{ranks}"),
            });
        }
        let stream = if overlapping {
            own_stream(gpu)?
        } else {
            gpu.stream()?.clone()
        };
        let comm = Comm::from_rank(stream, rank, ranks, id.0).map_err(|e| {
            nccl_error(
                format!(
                    "joining an NCCL communicator as rank {rank} of {ranks} on GPU {}",
                    gpu.ordinal()
                ),
                e,
            )
        })?;
        Ok(Communicator {
            comm,
            gpu: gpu.clone(),
            overlapping,
        })
    }

    /// Whether the communicator queues on a stream of its own, its
    /// transfers going through [`Overlap`].
    pub fn is_overlapping(&self) -> bool {
        self.overlapping
    }

    /// [`Error::Nccl`] for a plain transfer on an overlapping communicator.
    fn plain(&self, what: &str) -> Result<(), Error> {
        if !self.overlapping {
            return Ok(());
        }
        Err(Error::Nccl {
            context: format!("{what} of rank {}", self.rank()),
            message: "the communicator queues on a stream of its own (made by a *_overlapping \
                      constructor): issue its transfers through Communicator::overlap, which \
                      orders them with the GPU's kernels"
                .into(),
        })
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.comm.world_size()
    }

    /// The GPU.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn check_gpu<T: bytemuck::Pod>(&self, buf: &DeviceBuffer<T>) -> Result<(), Error> {
        if buf.gpu().ordinal() != self.gpu.ordinal() {
            return Err(Error::Nccl {
                context: format!("a transfer of rank {}", self.rank()),
                message: format!(
                    "the buffer lives on GPU {}, the rank's GPU is {}",
                    buf.gpu().ordinal(),
                    self.gpu.ordinal()
                ),
            });
        }
        Ok(())
    }

    /// Sends elements `range` of `buf` to rank `peer` (`ncclSend`), queued
    /// on the GPU's stream. Inside [`group`] when the peer sends too.
    pub fn send<T: bytemuck::Pod>(
        &self,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        self.plain("a send")?;
        self.order(buf, &range, false)?;
        self.issue_send(buf, range, peer)
    }

    /// Receives elements `range` of `buf` from rank `peer` (`ncclRecv`).
    pub fn recv<T: bytemuck::Pod>(
        &self,
        buf: &mut DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        self.plain("a receive")?;
        self.order(buf, &range, true)?;
        self.issue_recv(buf, range, peer)
    }

    /// The checks of a transfer of elements `range` of `buf` (on this
    /// rank's GPU, inside the buffer), and its order: after the other
    /// GPUs' kernels that write it, or, for a receive (`write`), that use
    /// it (before entering the device, as every ordering of a buffer's
    /// uses).
    pub(crate) fn order<T: bytemuck::Pod>(
        &self,
        buf: &DeviceBuffer<T>,
        range: &Range<usize>,
        write: bool,
    ) -> Result<(), Error> {
        self.check_gpu(buf)?;
        buf.byte_view(range.clone())?;
        buf.uses().used_by(&self.gpu, write)
    }

    /// `ncclSend` of elements `range` of `buf` to rank `peer`, on the
    /// communicator's stream ([`Communicator::order`] done).
    pub(crate) fn issue_send<T: bytemuck::Pod>(
        &self,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        let _entered = self.gpu.enter()?;
        let view = buf.byte_view(range.clone())?;
        self.comm.send(&view, peer as i32).map_err(|e| {
            let rank = self.rank();
            nccl_error(
                format!("sending elements {range:?} from rank {rank} to rank {peer}"),
                e,
            )
        })
    }

    /// `ncclRecv` of elements `range` of `buf` from rank `peer`, on the
    /// communicator's stream ([`Communicator::order`] done).
    pub(crate) fn issue_recv<T: bytemuck::Pod>(
        &self,
        buf: &mut DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        let _entered = self.gpu.enter()?;
        let rank = self.rank();
        let mut view = buf.byte_view_mut(range.clone())?;
        self.comm
            .recv(&mut view, peer as i32)
            .map(|_| ())
            .map_err(|e| {
                nccl_error(
                    format!("receiving elements {range:?} at rank {rank} from rank {peer}"),
                    e,
                )
            })
    }
}

/// A new stream on `gpu`'s context, for an overlapping communicator: of
/// the highest priority, so that the transfers' kernels get
/// multiprocessors as soon as they can run, not after the blocks of the
/// GPU's kernels beside them.
fn own_stream(gpu: &Gpu) -> Result<Arc<CudaStream>, Error> {
    let ctx = gpu.context()?;
    let what = || "creating a stream for an overlapping NCCL communicator".to_string();
    gpu.driver(ctx.bind_to_thread(), what)?;
    let (_, greatest) = gpu.driver(cudarc::driver::result::stream::get_priority_range(), what)?;
    gpu.driver(ctx.new_stream_with_priority(greatest), what)
}

/// Runs `f` between `ncclGroupStart` and `ncclGroupEnd`: the transfers it
/// issues (on any communicator of this process) start together, so that
/// pairs of sends and receives cannot wait for each other.
pub fn group(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    require("starting an NCCL group")?;
    cudarc::nccl::group_start()
        .map(|_| ())
        .map_err(|e| nccl_error("starting an NCCL group", e))?;
    let issued = f();
    let ended = cudarc::nccl::group_end()
        .map(|_| ())
        .map_err(|e| nccl_error("ending an NCCL group", e));
    issued.and(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_ids_round_trip_through_hex() {
        let mut internal = [0 as std::ffi::c_char; 128];
        for (i, b) in internal.iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8 as std::ffi::c_char;
        }
        let id = UniqueId(Id::uninit(internal));
        let text = id.to_hex();
        assert_eq!(text.len(), 256);
        let back = UniqueId::from_hex(&format!("{text}\n")).unwrap();
        assert_eq!(back.0.internal(), id.0.internal());
        let e = UniqueId::from_hex("abc").unwrap_err().to_string();
        assert!(e.contains("expected 256 hex digits"), "{e}");
        let e = UniqueId::from_hex(&"zz".repeat(128))
            .unwrap_err()
            .to_string();
        assert!(e.contains("256 hex digits"), "{e}");
    }
}
