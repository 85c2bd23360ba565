//! The life of a device's CUDA context in this process: its generations,
//! the fault that ends one, and the handles that belong to it.
//!
//! A kernel fault leaves the device's primary context unusable: every later
//! driver call in it fails. [`Gpu::reset`](crate::Gpu::reset) resets the
//! primary context (`cuDevicePrimaryCtxReset`) and opens it again: a new
//! *generation* (where the driver allows it: the drivers measured here keep
//! a kernel fault for the rest of the process, and the reset is refused). Every handle this crate gives out (a `Gpu`, a buffer, a
//! module, a kernel, a timer, a graph) belongs to the generation it was made
//! in:
//!
//! * each operation first enters its device ([`DeviceState::enter`]): a
//!   handle of an older generation gets [`Error::StaleHandle`], and one of a
//!   generation a fault ended gets [`Error::ContextLost`] naming the fault,
//!   before any driver call;
//! * the driver objects a handle owns are held in a [`ContextBound`], which
//!   releases them only while their generation lives. After a reset their
//!   handles would name nothing, or worse an object of the new context (a
//!   freed device address is handed out again), so they are leaked instead.
//!
//! Operations hold a read lock on their device while they run; a reset takes
//! it for writing, so it waits for the operations in flight on other
//! threads and none starts half-way through one. The lock is re-entrant
//! within a thread (an operation may drop a buffer, which enters again).

use crate::Error;
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

/// One device's context state, for the life of the process.
pub(crate) struct DeviceState {
    ordinal: usize,
    /// Held for reading by every operation, for writing by a reset.
    lock: RwLock<()>,
    /// The current generation; changed only by a reset, under the write
    /// lock, so it is stable for any thread that holds the read lock.
    generation: AtomicU64,
    /// What ended the current generation, once a fault is seen: the fault's
    /// own message, without the advice on recovery.
    lost: Mutex<Option<String>>,
    /// Whether `lost` is set: the one load every operation makes.
    is_lost: AtomicBool,
}

thread_local! {
    /// The devices whose lock this thread holds (re-entrancy).
    static HELD: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The state of device `ordinal` (created on first use, never freed).
pub(crate) fn device(ordinal: usize) -> &'static DeviceState {
    static DEVICES: Mutex<Vec<&'static DeviceState>> = Mutex::new(Vec::new());
    let mut devices = DEVICES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(d) = devices.iter().find(|d| d.ordinal == ordinal) {
        return d;
    }
    let d: &'static DeviceState = Box::leak(Box::new(DeviceState {
        ordinal,
        lock: RwLock::new(()),
        generation: AtomicU64::new(0),
        lost: Mutex::new(None),
        is_lost: AtomicBool::new(false),
    }));
    devices.push(d);
    d
}

/// Proof that this thread has entered a device: a reset waits until it is
/// dropped.
pub(crate) struct Entered {
    ordinal: usize,
    generation: u64,
    /// `None` when this thread already held the lock.
    guard: Option<RwLockReadGuard<'static, ()>>,
}

impl Entered {
    /// The device's current generation.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if self.guard.take().is_some() {
            HELD.with(|h| {
                let mut h = h.borrow_mut();
                if let Some(i) = h.iter().rposition(|&o| o == self.ordinal) {
                    h.remove(i);
                }
            });
        }
    }
}

impl DeviceState {
    /// The device's ordinal.
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Enters the device without checking anything: for releasing handles.
    pub(crate) fn enter_any(&'static self) -> Entered {
        // A thread that holds the lock does not take it again: with a reset
        // waiting for it, a second read would wait behind the reset.
        let held = HELD.with(|h| h.borrow().contains(&self.ordinal));
        let guard = if held {
            None
        } else {
            let g = self.lock.read().unwrap_or_else(|e| e.into_inner());
            HELD.with(|h| h.borrow_mut().push(self.ordinal));
            Some(g)
        };
        Entered {
            ordinal: self.ordinal,
            generation: self.generation.load(Ordering::Acquire),
            guard,
        }
    }

    /// Enters the device for an operation of a handle of `generation`:
    /// [`Error::StaleHandle`] for an older one, [`Error::ContextLost`] when
    /// a fault ended this one.
    pub(crate) fn enter(&'static self, generation: u64) -> Result<Entered, Error> {
        let entered = self.enter_any();
        self.check(generation)?;
        Ok(entered)
    }

    /// [`DeviceState::enter`]'s checks without entering: for a value that
    /// an operation which enters the device will use (a buffer passed to a
    /// launch). No reset can make it pass wrongly: a handle of the current
    /// generation passes only while no newer one exists.
    pub(crate) fn check(&self, generation: u64) -> Result<(), Error> {
        if self.generation.load(Ordering::Acquire) != generation {
            return Err(Error::StaleHandle {
                ordinal: self.ordinal,
            });
        }
        if let Some(cause) = self.lost() {
            return Err(Error::ContextLost {
                ordinal: self.ordinal,
                cause,
            });
        }
        Ok(())
    }

    /// The fault that ended the current generation, if one did.
    pub(crate) fn lost(&self) -> Option<String> {
        if !self.is_lost.load(Ordering::Acquire) {
            return None;
        }
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records that a fault (described by `cause`) ended generation
    /// `generation`; true for the first to report it, false when another
    /// call already did or the generation is over. Called with the device
    /// entered, so the generation cannot change meanwhile.
    pub(crate) fn set_lost(&self, generation: u64, cause: String) -> bool {
        if self.generation.load(Ordering::Acquire) != generation {
            return false;
        }
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        if lost.is_some() {
            return false;
        }
        *lost = Some(cause);
        self.is_lost.store(true, Ordering::Release);
        true
    }

    /// Ends generation `generation` with `reset` (which resets the driver's
    /// context) once no operation holds the device; returns the new
    /// generation. [`Error::StaleHandle`] when `generation` is already over;
    /// [`Error::ResetRefused`] when this thread is inside an operation on the
    /// device (it would wait for itself).
    pub(crate) fn reset(
        &'static self,
        generation: u64,
        reset: impl FnOnce() -> Result<(), Error>,
    ) -> Result<u64, Error> {
        if HELD.with(|h| h.borrow().contains(&self.ordinal)) {
            return Err(Error::ResetRefused {
                ordinal: self.ordinal,
                reason:
                    "this thread is inside an operation on the GPU (a reset would wait for itself)"
                        .into(),
            });
        }
        let _writing = self.lock.write().unwrap_or_else(|e| e.into_inner());
        if self.generation.load(Ordering::Acquire) != generation {
            return Err(Error::StaleHandle {
                ordinal: self.ordinal,
            });
        }
        reset()?;
        *self.lost.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.is_lost.store(false, Ordering::Release);
        Ok(self.generation.fetch_add(1, Ordering::AcqRel) + 1)
    }
}

/// A driver object (cudarc's) that belongs to one generation of a device's
/// context: released normally while that generation lives, leaked after a
/// reset ended it.
pub(crate) struct ContextBound<T> {
    value: ManuallyDrop<T>,
    device: &'static DeviceState,
    generation: u64,
}

impl<T> ContextBound<T> {
    /// `value`, made in generation `generation` of `device`.
    pub(crate) fn new(value: T, device: &'static DeviceState, generation: u64) -> Self {
        Self {
            value: ManuallyDrop::new(value),
            device,
            generation,
        }
    }
}

impl<T> Deref for ContextBound<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for ContextBound<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T> Drop for ContextBound<T> {
    fn drop(&mut self) {
        let entered = self.device.enter_any();
        if entered.generation() == self.generation {
            // SAFETY: dropped once, here; the field is not used afterwards.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
        // Otherwise leaked: the context it belonged to is gone, and its
        // handle could name an object of the new one.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_fault_loses_the_generation_and_a_reset_starts_the_next() {
        let d = device(1001);
        drop(d.enter(0).expect("a fresh device"));
        assert!(d.set_lost(0, "kernel `k` panicked".into()));
        assert!(
            !d.set_lost(0, "a second fault".into()),
            "the first fault stays"
        );
        match d.enter(0) {
            Err(Error::ContextLost {
                ordinal: 1001,
                cause,
            }) => {
                assert_eq!(cause, "kernel `k` panicked")
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("entered a lost context"),
        }
        assert_eq!(d.reset(0, || Ok(())).unwrap(), 1);
        assert!(matches!(
            d.enter(0),
            Err(Error::StaleHandle { ordinal: 1001 })
        ));
        assert!(d.enter(1).is_ok(), "the new generation works");
        assert!(d.lost().is_none());
        assert!(
            matches!(d.reset(0, || Ok(())), Err(Error::StaleHandle { .. })),
            "a stale handle cannot reset the new context"
        );
    }

    #[test]
    fn a_failed_reset_keeps_the_generation() {
        let d = device(1002);
        let e = d.reset(0, || {
            Err(Error::ResetRefused {
                ordinal: 1002,
                reason: "no".into(),
            })
        });
        assert!(e.is_err());
        assert!(d.enter(0).is_ok());
    }

    #[test]
    fn handles_of_an_ended_generation_are_leaked_not_released() {
        let d = device(1003);
        let drops = Arc::new(AtomicUsize::new(0));
        let old = ContextBound::new(Counted(drops.clone()), d, 0);
        let current = ContextBound::new(Counted(drops.clone()), d, 0);
        drop(current);
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "released in its generation"
        );
        d.reset(0, || Ok(())).unwrap();
        drop(old);
        assert_eq!(drops.load(Ordering::SeqCst), 1, "leaked after the reset");
        drop(ContextBound::new(Counted(drops.clone()), d, 1));
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn entering_again_on_one_thread_does_not_wait_and_a_reset_from_inside_is_refused() {
        let d = device(1004);
        let outer = d.enter(0).unwrap();
        let inner = d.enter(0).unwrap();
        assert!(matches!(
            d.reset(0, || Ok(())),
            Err(Error::ResetRefused { .. })
        ));
        drop(inner);
        drop(outer);
        assert_eq!(d.reset(0, || Ok(())).unwrap(), 1);
    }

    #[test]
    fn a_reset_waits_for_operations_on_other_threads() {
        let d = device(1005);
        let entered = d.enter(0).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let t = {
            let done = done.clone();
            std::thread::spawn(move || {
                let g = d.reset(0, || Ok(())).unwrap();
                done.store(true, Ordering::SeqCst);
                g
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(!done.load(Ordering::SeqCst), "the reset did not wait");
        drop(entered);
        assert_eq!(t.join().unwrap(), 1);
    }
}
