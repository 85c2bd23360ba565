//! NCCL transfers that run beside the GPU's kernels: the halo exchange
//! of a stencil while the interior is swept.
//!
//! An overlapping [`Communicator`] queues on a stream of its own. An
//! [`Overlap`] gathers its transfers, each taking its buffer for as long
//! as the transfers run; [`Overlap::start`] (or [`start`], for the
//! communicators of several GPUs of this process at once) makes the
//! communicator's stream wait for the work queued on the GPU so far and
//! issues the transfers there, in one NCCL group; the kernels queued on
//! the GPU after that run beside them. [`InFlight::finish`] (or dropping
//! the [`InFlight`]) makes the GPU's stream wait for the transfers, so
//! that its later work sees what they received. The buffers stay borrowed
//! until then: no kernel, copy or other transfer can touch them in
//! between. Both steps are stream waits on events, so the same code
//! inside [`Gpu::capture`](crate::Gpu::capture) records a graph whose two
//! branches run at once.
//!
//! ```ignore
//! let comm = Communicator::for_rank_overlapping(&gpu, rank, ranks, &id)?;
//! k.edges.launch(cfg, .., &mut send_up, &mut send_down)?; // the rows to send
//! let mut x = comm.overlap();
//! x.send(&send_up, 0..nx, rank - 1)?;
//! x.recv(&mut halo_up, 0..nx, rank - 1)?;
//! let transfers = x.start()?;
//! k.interior.launch(cfg, &src, &mut dst, ..)?; // beside the transfers
//! transfers.finish()?; // later work sees halo_up
//! ```

use super::{group, require, Communicator};
use crate::error::Error;
use crate::DeviceBuffer;
use std::marker::PhantomData;
use std::ops::Range;

/// One transfer, issued when the group starts.
type Issue<'a> = Box<dyn FnOnce() -> Result<(), Error> + 'a>;

/// Transfers of one overlapping communicator, gathered before they start
/// ([`Communicator::overlap`]). Each holds its buffer (shared for a send,
/// exclusive for a receive) until the transfers finish.
#[must_use = "the transfers start only with Overlap::start"]
pub struct Overlap<'a> {
    comm: &'a Communicator,
    issues: Vec<Issue<'a>>,
}

impl Communicator {
    /// A group of transfers that will run beside the GPU's kernels. The
    /// communicator must be overlapping
    /// ([`Communicator::for_set_overlapping`],
    /// [`Communicator::for_rank_overlapping`]); [`Overlap::start`] says so
    /// otherwise.
    pub fn overlap(&self) -> Overlap<'_> {
        Overlap {
            comm: self,
            issues: Vec::new(),
        }
    }
}

impl<'a> Overlap<'a> {
    /// Sends elements `range` of `buf` to rank `peer` (`ncclSend`), after
    /// the GPU's work queued before [`Overlap::start`].
    pub fn send<T: bytemuck::Pod>(
        &mut self,
        buf: &'a DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        let comm = self.comm;
        // The GPU's stream waits for the other GPUs' work on the buffer,
        // and the transfers' stream for the GPU's at start.
        comm.order(buf, &range, false)?;
        self.issues
            .push(Box::new(move || comm.issue_send(buf, range, peer)));
        Ok(())
    }

    /// Receives elements `range` of `buf` from rank `peer` (`ncclRecv`),
    /// after the GPU's work queued before [`Overlap::start`].
    pub fn recv<T: bytemuck::Pod>(
        &mut self,
        buf: &'a mut DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
    ) -> Result<(), Error> {
        let comm = self.comm;
        comm.order(buf, &range, true)?;
        self.issues
            .push(Box::new(move || comm.issue_recv(buf, range, peer)));
        Ok(())
    }

    /// Starts the transfers: [`start`] for this communicator alone.
    pub fn start(self) -> Result<InFlight<'a>, Error> {
        let mut started = start(vec![self])?;
        Ok(started.pop().expect("one group, one InFlight"))
    }
}

/// Starts the transfers of `overlaps` (one per communicator of this
/// process; ranks of one communicator together) in one NCCL group, each
/// on its communicator's stream once that stream has waited for the work
/// queued on its GPU so far. The GPUs' kernels queued after this run
/// beside the transfers until each [`InFlight`] is finished.
pub fn start(overlaps: Vec<Overlap<'_>>) -> Result<Vec<InFlight<'_>>, Error> {
    require("starting overlapped NCCL transfers")?;
    if let Some(o) = overlaps.iter().find(|o| !o.comm.overlapping) {
        return Err(Error::Nccl {
            context: format!("overlapped transfers of rank {}", o.comm.rank()),
            message: "the communicator queues on its GPU's stream, so its transfers cannot run \
                      beside the GPU's kernels: make it with Communicator::for_set_overlapping or \
                      for_rank_overlapping"
                .into(),
        });
    }
    let mut in_flight = Vec::with_capacity(overlaps.len());
    for o in &overlaps {
        let gpu = &o.comm.gpu;
        let _entered = gpu.enter()?;
        let (ours, theirs) = (o.comm.comm.stream(), gpu.stream()?);
        gpu.driver(ours.join(theirs), || {
            format!(
                "ordering rank {}'s transfers after GPU {}'s work (an event recorded on the \
                 GPU's stream, waited for on the communicator's)",
                o.comm.rank(),
                gpu.ordinal()
            )
        })?;
        // From here on, a failure still joins the streams (the drop).
        in_flight.push(InFlight {
            comm: o.comm,
            joined: false,
            _buffers: PhantomData,
        });
    }
    group(|| {
        overlaps
            .into_iter()
            .flat_map(|o| o.issues)
            .try_for_each(|issue| issue())
    })?;
    Ok(in_flight)
}

/// Transfers started by [`Overlap::start`] or [`start`], running beside
/// the GPU's kernels. Their buffers stay borrowed until it is finished or
/// dropped; either makes the GPU's stream wait for them.
#[must_use = "dropping an InFlight orders the GPU's work after the transfers at once"]
pub struct InFlight<'a> {
    comm: &'a Communicator,
    joined: bool,
    _buffers: PhantomData<&'a mut ()>,
}

impl InFlight<'_> {
    /// Orders the GPU's work queued from now on after the transfers (a
    /// stream wait: the host does not wait).
    pub fn finish(mut self) -> Result<(), Error> {
        self.join()
    }

    fn join(&mut self) -> Result<(), Error> {
        if self.joined {
            return Ok(());
        }
        self.joined = true;
        let gpu = &self.comm.gpu;
        let _entered = gpu.enter()?;
        let ours = self.comm.comm.stream();
        gpu.driver(gpu.stream()?.join(&ours), || {
            format!(
                "ordering GPU {}'s work after rank {}'s transfers (an event recorded on the \
                 communicator's stream, waited for on the GPU's)",
                gpu.ordinal(),
                self.comm.rank()
            )
        })
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        // A join that fails (a lost context) leaves nothing to order.
        let _ = self.join();
    }
}
