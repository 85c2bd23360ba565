//! Memory instructions in the simulator. A shared-window address is
//! turned into the host address of the block's byte right before each
//! access (`cg_sim::device::shared_ptr`, which checks the bounds, or
//! `shared_access` for plain loads and stores, which also checks for races
//! and unwritten bytes); a global address is a host address. Every atomic,
//! scoped load and store goes through [`rmw`], [`cas`], [`load`] and
//! [`store`], with [`before`] and [`after`] telling the race check its
//! release and acquire semantics.

use super::atom::{Place, Sem};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

/// The bytes of a PTX width (`"8"`, `"32"`, `"64"`).
pub(crate) const fn bytes_of_width(bits: &str) -> u32 {
    match bits.as_bytes() {
        b"8" => 1,
        b"16" => 2,
        b"32" => 4,
        _ => 8,
    }
}

/// `ld.shared.b<8 * bytes>` at `addr`, zero-extended.
pub(crate) fn shared_load(addr: u32, bytes: u32) -> u64 {
    let p = cg_sim::device::shared_access(addr, bytes, false);
    let mut word = [0u8; 8];
    // SAFETY: `shared_ptr` checked that `bytes` (at most 8) bytes are in
    // the block's shared memory.
    unsafe { core::ptr::copy_nonoverlapping(p, word.as_mut_ptr(), bytes as usize) };
    u64::from_le_bytes(word)
}

/// `st.shared.b<8 * bytes>` of the low bytes of `v` at `addr`.
pub(crate) fn shared_store(addr: u32, bytes: u32, v: u64) {
    let p = cg_sim::device::shared_access(addr, bytes, true);
    // SAFETY: as `shared_load`.
    unsafe { core::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, bytes as usize) };
}

/// Before an atomic or store of semantics `sem`: a release for the
/// simulator's race check where `sem` releases.
pub(crate) fn before(sem: Sem) {
    if matches!(sem, Sem::Release | Sem::AcqRel) {
        cg_sim::device::release();
    }
}

/// After an atomic or load of semantics `sem`: an acquire where `sem`
/// acquires.
pub(crate) fn after(sem: Sem) {
    if matches!(sem, Sem::Acquire | Sem::AcqRel) {
        cg_sim::device::acquire();
    }
}

/// A 32- or 64-bit word the simulator's atomics work on.
pub(crate) trait Word: Copy {
    /// One atomic read-modify-write of the word at `p`; returns the old
    /// value.
    fn rmw(p: *mut u8, f: impl Fn(Self) -> Self) -> Self;
    /// Compare-and-swap; returns the old value.
    fn cas(p: *mut u8, current: Self, new: Self) -> Self;
    /// An atomic load.
    fn load(p: *mut u8) -> Self;
    /// An atomic store.
    fn store(p: *mut u8, v: Self);
}

macro_rules! word {
    ($t:ty, $atomic:ty) => {
        impl Word for $t {
            fn rmw(p: *mut u8, f: impl Fn(Self) -> Self) -> Self {
                // SAFETY: `place_ptr` checked the address.
                let a = unsafe { <$atomic>::from_ptr(p as *mut $t) };
                a.fetch_update(SeqCst, SeqCst, |x| Some(f(x)))
                    .unwrap_or_else(|x| x)
            }
            fn cas(p: *mut u8, current: Self, new: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$atomic>::from_ptr(p as *mut $t) };
                a.compare_exchange(current, new, SeqCst, SeqCst)
                    .unwrap_or_else(|x| x)
            }
            fn load(p: *mut u8) -> Self {
                // SAFETY: as above.
                unsafe { <$atomic>::from_ptr(p as *mut $t) }.load(SeqCst)
            }
            fn store(p: *mut u8, v: Self) {
                // SAFETY: as above.
                unsafe { <$atomic>::from_ptr(p as *mut $t) }.store(v, SeqCst)
            }
        }
    };
}
word!(u32, AtomicU32);
word!(u64, AtomicU64);

/// The host address of an atomic's location, checked: shared addresses in
/// the block's shared memory, every address aligned to the word.
fn place_ptr<T>(place: Place) -> *mut u8 {
    let bytes = core::mem::size_of::<T>();
    let p = match place {
        Place::Global(a) => a as *mut u8,
        Place::Shared(a) | Place::ClusterShared(a) => {
            cg_sim::device::shared_filled(a, bytes as u32);
            cg_sim::device::shared_ptr(a, bytes as u32)
        }
    };
    assert!(
        !p.is_null() && p as usize % bytes == 0,
        "a {}-byte atomic at {place:?}, which is null or not aligned to its size",
        bytes
    );
    p
}

/// `atom` on `place`: `f` of the old value is the new one.
pub(crate) fn rmw<T: Word>(place: Place, f: impl Fn(T) -> T) -> T {
    T::rmw(place_ptr::<T>(place), f)
}

/// `atom.cas`.
pub(crate) fn cas<T: Word>(place: Place, current: T, new: T) -> T {
    T::cas(place_ptr::<T>(place), current, new)
}

/// `ld.relaxed/acquire`: a poll, so the other threads run first.
pub(crate) fn load<T: Word>(place: Place) -> T {
    cg_sim::device::spin();
    T::load(place_ptr::<T>(place))
}

/// `st.relaxed/release`.
pub(crate) fn store<T: Word>(place: Place, v: T) {
    T::store(place_ptr::<T>(place), v)
}

/// A subnormal `f32` flushed to a zero of its sign, as `atom.add.f32` does.
pub(crate) fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}
