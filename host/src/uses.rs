//! Which other GPUs' streams may still use a buffer, and the waits that
//! keep the next use of it from racing with them.
//!
//! Every `Gpu` of a device shares one stream, so work on a buffer's own
//! GPU runs in the order it was issued. A kernel on another GPU of a
//! [`GpuSet`](crate::GpuSet) reaches the buffer through peer access, on its
//! own stream: nothing orders it with the buffer's GPU, or with a third
//! GPU. A buffer therefore keeps a short list of the other streams that
//! have work queued on it (at most one entry per GPU, marked when that
//! work may write), and the next use waits for the entries it conflicts
//! with (a write for every entry, a read for the writes): an event recorded
//! on each of their streams now, waited for on the stream of the next use
//! (`CudaStream::join`, which is `cuEventRecord` and `cuStreamWaitEvent`).
//! The host's own reads and writes are uses on the buffer's stream, and
//! its free one too (after the last holder of the record lets go).
//!
//! A buffer that no other GPU has used costs one atomic load per use.
//!
//! Waits between streams are made under the lock that serializes
//! multi-grid launches: a stream must never wait for an event recorded
//! after one grid of a multi-grid launch was queued while the grid's
//! partners are still to be queued behind that wait (each would wait for
//! the other, forever). That lock is taken before any device is entered,
//! never inside one (a reset waiting for the device would otherwise stop
//! both).

use crate::buffer::Storage;
use crate::error::Error;
use crate::Gpu;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// One stream's queued work on a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Use<S> {
    /// The stream (one per GPU).
    pub stream: S,
    /// Whether some of that work may write the buffer.
    pub write: bool,
}

/// Where a use is queued: the buffer's own stream, or another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum On<S> {
    /// The buffer's own GPU.
    Home,
    /// Another GPU's stream.
    Other(S),
}

/// Whether a new use (a write if `write`) must wait for `earlier`.
fn conflicts<S>(earlier: &Use<S>, write: bool) -> bool {
    write || earlier.write
}

/// The entries of `list` that a use on `on` (a write if `write`) waits
/// for: the conflicting uses of other streams.
pub(crate) fn waits_for<'a, S: PartialEq>(
    list: &'a [Use<S>],
    on: &'a On<S>,
    write: bool,
) -> impl Iterator<Item = &'a Use<S>> + 'a {
    list.iter().filter(move |u| {
        conflicts(u, write)
            && match on {
                On::Home => true,
                On::Other(s) => u.stream != *s,
            }
    })
}

/// `list` once a use on `on` (a write if `write`) is queued. `ordered`:
/// the use waited for the entries [`waits_for`] gave, and nothing else
/// was queued on the buffer since (a launch of one grid, a host copy).
/// Then the entries it waited for are covered by it: a use on the
/// buffer's own stream drops them (the stream itself is always waited
/// for), and a write on another stream replaces the whole list. Without
/// `ordered` (the grids of one multi-grid launch, queued together) the use
/// is only added.
pub(crate) fn record<S: PartialEq>(list: &mut Vec<Use<S>>, on: On<S>, write: bool, ordered: bool) {
    let stream = match on {
        On::Home => {
            if ordered {
                list.retain(|u| !conflicts(u, write));
            }
            return;
        }
        On::Other(s) => s,
    };
    if ordered && write {
        list.clear();
    }
    match list.iter_mut().find(|u| u.stream == stream) {
        Some(u) => u.write |= write,
        None => list.push(Use { stream, write }),
    }
}

/// A GPU's stream: one per device, whichever `Gpu` handle names it.
#[derive(Clone)]
pub(crate) struct Stream(Gpu);

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.0.same_device(&other.0)
    }
}

/// A buffer's uses by other GPUs' streams, and its memory once the buffer
/// is dropped (freed when the last holder of this record lets go, after
/// those uses).
pub(crate) struct Uses {
    home: Gpu,
    /// Whether `list` may be non-empty: the one load of a use on the
    /// buffer's own GPU when no other GPU has used it.
    pending: AtomicBool,
    list: Mutex<Vec<Use<Stream>>>,
    /// The memory of the dropped buffer.
    parked: Mutex<Option<Storage>>,
}

/// The lock under which streams wait for each other: the one multi-grid
/// launches queue their grids under.
pub(crate) fn cross_stream_lock() -> std::sync::MutexGuard<'static, ()> {
    crate::gpu_set::LAUNCHING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

impl Uses {
    /// No use yet, for a buffer of `home`.
    pub(crate) fn new(home: Gpu) -> Self {
        Uses {
            home,
            pending: AtomicBool::new(false),
            list: Mutex::new(Vec::new()),
            parked: Mutex::new(None),
        }
    }

    fn on(&self, by: &Gpu) -> On<Stream> {
        if by.same_device(&self.home) {
            On::Home
        } else {
            On::Other(Stream(by.clone()))
        }
    }

    /// A use by `by`'s stream (a write if `write`), about to be queued:
    /// ordered after the conflicting uses, then recorded. A write needs
    /// the buffer borrowed mutably, so that no other use is in flight.
    pub(crate) fn used_by(&self, by: &Gpu, write: bool) -> Result<(), Error> {
        let on = self.on(by);
        if matches!(on, On::Home) && !self.pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let _lock = cross_stream_lock();
        self.order(by, write)?;
        self.record(by, write, true);
        Ok(())
    }

    /// Makes `by`'s stream wait for the uses a use there (a write if
    /// `write`) conflicts with, and for the buffer's own stream when `by`
    /// is another GPU. The caller holds [`cross_stream_lock`].
    pub(crate) fn order(&self, by: &Gpu, write: bool) -> Result<(), Error> {
        let on = self.on(by);
        if matches!(on, On::Home) && !self.pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        if !matches!(on, On::Home) {
            join(by, &self.home)?;
        }
        for u in waits_for(&list, &on, write) {
            join(by, &u.stream.0)?;
        }
        Ok(())
    }

    /// Records a use by `by`'s stream, just queued or about to be (see
    /// [`record`] for `ordered`).
    pub(crate) fn record(&self, by: &Gpu, write: bool, ordered: bool) {
        let on = self.on(by);
        if matches!(on, On::Home) && !self.pending.load(Ordering::Acquire) {
            return;
        }
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        record(&mut list, on, write, ordered);
        self.pending.store(!list.is_empty(), Ordering::Release);
    }

    /// Keeps the memory of the dropped buffer until the record is dropped.
    pub(crate) fn park(&self, bytes: Storage) {
        *self.parked.lock().unwrap_or_else(|e| e.into_inner()) = Some(bytes);
    }
}

impl Drop for Uses {
    fn drop(&mut self) {
        let parked = self.parked.get_mut().unwrap_or_else(|e| e.into_inner());
        let Some(bytes) = parked.take() else {
            return;
        };
        if self.pending.load(Ordering::Acquire) {
            // The free is queued on the buffer's own stream: after the
            // other streams' uses. Where the driver cannot order it (a lost
            // context), wait for those streams on the host; a stream that
            // cannot be waited for has no work left.
            let ordered = {
                let _lock = cross_stream_lock();
                self.order(&self.home.clone(), true)
            };
            if ordered.is_err() {
                let list = self.list.get_mut().unwrap_or_else(|e| e.into_inner());
                for u in list.iter() {
                    let _ = u.stream.0.synchronize();
                }
            }
        }
        drop(bytes);
    }
}

/// Makes `waiter`'s stream wait for the work queued so far on `source`'s.
/// A `source` whose context is gone (reset, or lost to a fault) has no
/// work left to wait for.
fn join(waiter: &Gpu, source: &Gpu) -> Result<(), Error> {
    let _waiter_entered = waiter.enter()?;
    let _source_entered = match source.enter() {
        Ok(e) => e,
        Err(Error::StaleHandle { .. } | Error::ContextLost { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    let (to, from) = (waiter.stream()?, source.stream()?);
    waiter.driver(to.join(from), || {
        format!(
            "ordering GPU {}'s work on a buffer after GPU {}'s (an event recorded on GPU {}'s \
             stream, waited for on GPU {}'s)",
            waiter.ordinal(),
            source.ordinal(),
            source.ordinal(),
            waiter.ordinal()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(stream: u32, write: bool) -> Use<u32> {
        Use { stream, write }
    }

    fn waits(list: &[Use<u32>], on: On<u32>, write: bool) -> Vec<u32> {
        waits_for(list, &on, write).map(|u| u.stream).collect()
    }

    #[test]
    fn a_read_waits_for_the_writes_and_a_write_for_every_use() {
        let list = [u(1, false), u(2, true), u(3, false)];
        assert_eq!(waits(&list, On::Home, false), [2]);
        assert_eq!(waits(&list, On::Home, true), [1, 2, 3]);
        assert_eq!(waits(&list, On::Other(2), false), Vec::<u32>::new());
        assert_eq!(waits(&list, On::Other(1), false), [2]);
        assert_eq!(waits(&list, On::Other(1), true), [2, 3]);
        assert_eq!(waits(&[], On::Other(1), true), Vec::<u32>::new());
    }

    #[test]
    fn an_ordered_use_covers_what_it_waited_for() {
        // The buffer's own stream: a read covers the writes it waited for,
        // a write everything.
        let mut list = vec![u(1, false), u(2, true)];
        record(&mut list, On::Home, false, true);
        assert_eq!(list, [u(1, false)]);
        record(&mut list, On::Home, true, true);
        assert!(list.is_empty());
        // Another stream: a write replaces the list, a read is added (the
        // buffer's own stream did not wait for the writes).
        let mut list = vec![u(1, false), u(2, true)];
        record(&mut list, On::Other(3), false, true);
        assert_eq!(list, [u(1, false), u(2, true), u(3, false)]);
        record(&mut list, On::Other(1), true, true);
        assert_eq!(list, [u(1, true)]);
    }

    #[test]
    fn the_grids_of_one_launch_are_only_added_one_entry_per_stream() {
        let mut list = vec![u(1, true)];
        record(&mut list, On::Home, true, false);
        record(&mut list, On::Other(2), true, false);
        record(&mut list, On::Other(1), false, false);
        record(&mut list, On::Other(2), false, false);
        assert_eq!(list, [u(1, true), u(2, true)]);
        let mut list = vec![u(1, false)];
        record(&mut list, On::Other(1), true, false);
        assert_eq!(list, [u(1, true)], "a write marks the stream's entry");
    }
}
