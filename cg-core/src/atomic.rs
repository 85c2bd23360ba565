//! Atomics and fences with CUDA's scopes, in the shape of
//! `core::sync::atomic` (CUDA's `cuda::atomic_ref<T, thread_scope>`).
//!
//! An [`AtomicRef<T, S>`] is one location in global or shared memory,
//! operated on atomically at scope `S`: [`Block`] (`thread_scope_block`,
//! PTX `.cta`), [`Cluster`] (`.cluster`, sm_90), [`Device`] (`.gpu`, the
//! default, as `atomicAdd`) or [`System`] (`.sys`: host and peers too). `T`
//! is `u32`, `i32`, `u64`, `i64`, `f32` or `f64`.
//!
//! | method | PTX (global memory, `S = Device`) |
//! |---|---|
//! | `load(Relaxed/Acquire)` | `ld.relaxed.gpu` / `ld.acquire.gpu` |
//! | `load_after_sync()` (a value stored before a barrier this thread passed) | `ld.global` (weak, any scope) |
//! | `store(Relaxed/Release)` | `st.relaxed.gpu` / `st.release.gpu` |
//! | `fetch_add`, `fetch_sub` | `atom{.sem}.gpu.global.add.{u32,u64,f32,f64}` (sub adds the negation) |
//! | `fetch_min`, `fetch_max` | `atom.min`/`atom.max` `.{u32,s32,u64,s64}`; floats: a `cas` loop |
//! | `fetch_and`, `fetch_or`, `fetch_xor` | `atom.{and,or,xor}.{b32,b64}` (integers) |
//! | `swap` | `atom.exch` |
//! | `compare_exchange`, `_weak` | `atom.cas` |
//! | `fetch_update` | a `cas` loop |
//! | `add`, `sub`, `min`, `max`, `and`, `or`, `xor` (no result) | `red{.relaxed,.release}.gpu.global.*` |
//!
//! Orderings are Rust's: `Relaxed`, `Acquire`, `Release`, `AcqRel` map to
//! PTX's `.relaxed`, `.acquire`, `.release`, `.acq_rel`; `SeqCst` is a
//! `fence.sc` of the scope followed by the acquire/release form. As in
//! `core::sync::atomic`, a load with `Release` or `AcqRel`, or a store with
//! `Acquire` or `AcqRel`, panics.
//!
//! An atomic does not alias: any number of threads may hold an
//! [`AtomicRef`] to one location. Making one from a raw pointer is
//! `unsafe` (the pointer must be valid for the kernel's run); making one
//! from a shared-memory array is safe ([`SharedArray::atomic`]).
//!
//! ```ignore
//! let counter = unsafe { AtomicRef::<u32>::from_ptr(count_ptr) };
//! let slot = counter.fetch_add(1, Ordering::Relaxed);     // atom.relaxed.gpu.global.add.u32
//! unsafe { AtomicRef::<f32>::from_ptr(sum_ptr) }.add(x, Ordering::Relaxed);  // red.relaxed.gpu.global.add.f32
//! let hist = shared_array!(u32; 256);
//! hist.atomic(bin).add(1, Ordering::Relaxed);             // red.relaxed.cta.shared.add.u32
//! fence::<Device>(Ordering::SeqCst);                      // fence.sc.gpu (__threadfence())
//! ```
//!
//! [`SharedArray::atomic`]: crate::shared::SharedArray::atomic

use crate::intrinsics::atom::{self, Place, Sem};
use bytemuck::Pod;
use core::marker::PhantomData;
pub use core::sync::atomic::Ordering;

mod sealed {
    pub trait Sealed {}
}

/// A scope of atomics and fences (CUDA's `cuda::thread_scope`).
pub trait Scope: sealed::Sealed + Copy {
    /// The PTX scope.
    #[doc(hidden)]
    const PTX: atom::Scope;
}

macro_rules! scopes {
    ($($(#[$doc:meta])* $name:ident => $ptx:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Scope for $name {
            const PTX: atom::Scope = atom::Scope::$ptx;
        }
    )*};
}

scopes! {
    /// The threads of one block (`thread_scope_block`, `.cta`).
    Block => Cta;
    /// The threads of one cluster (`thread_scope_cluster`, `.cluster`, sm_90).
    Cluster => Cluster;
    /// Every thread of the device (`thread_scope_device`, `.gpu`).
    Device => Gpu;
    /// The device, the host and peer devices (`thread_scope_system`, `.sys`).
    System => Sys;
}

/// A type atomics operate on: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
/// Loads, stores, `swap` and the compare-exchanges move its bits.
///
/// # Safety
/// The hidden `unsafe` methods of this trait and of [`AtomicArith`] and
/// [`AtomicBits`] (the instructions [`AtomicRef`] calls) ask that their
/// `Place` be a live location of the type, aligned to its size, in the
/// address space it names; `red_*` also that `sem` be relaxed or release.
pub trait AtomicValue: Pod + PartialEq + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn ld(p: Place, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn ld_weak(p: Place) -> Self;
    #[doc(hidden)]
    unsafe fn st(p: Place, v: Self, sem: Sem, scope: atom::Scope);
    #[doc(hidden)]
    unsafe fn exch(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn cas(p: Place, current: Self, new: Self, sem: Sem, scope: atom::Scope) -> Self;
    /// Whether `a` and `b` have the same bits (what `atom.cas` compares).
    #[doc(hidden)]
    fn same_bits(a: Self, b: Self) -> bool;
}

/// A type with atomic arithmetic: `fetch_add`, `fetch_sub`, `fetch_min`,
/// `fetch_max` and their result-less forms.
pub trait AtomicArith: AtomicValue {
    #[doc(hidden)]
    unsafe fn atom_add(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_add(p: Place, v: Self, sem: Sem, scope: atom::Scope);
    #[doc(hidden)]
    fn negate(self) -> Self;
    #[doc(hidden)]
    unsafe fn atom_min(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn atom_max(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_min(p: Place, v: Self, sem: Sem, scope: atom::Scope);
    #[doc(hidden)]
    unsafe fn red_max(p: Place, v: Self, sem: Sem, scope: atom::Scope);
}

/// An integer type with atomic bit operations: `fetch_and`, `fetch_or`,
/// `fetch_xor` and their result-less forms.
pub trait AtomicBits: AtomicArith {
    #[doc(hidden)]
    unsafe fn atom_bits(op: BitOp, p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self;
    #[doc(hidden)]
    unsafe fn red_bits(op: BitOp, p: Place, v: Self, sem: Sem, scope: atom::Scope);
}

/// A bit operation of [`AtomicBits`].
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
}

/// The bit-moving operations of a type of `$bits` bits.
macro_rules! value_ops {
    ($t:ty, $w:ty, $ops:ident) => {
        impl sealed::Sealed for $t {}
        impl AtomicValue for $t {
            #[inline(always)]
            unsafe fn ld(p: Place, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { bytemuck::cast(words::$ops::ld(p, sem, scope)) }
            }
            #[inline(always)]
            unsafe fn ld_weak(p: Place) -> Self {
                // SAFETY: as for `ld`.
                unsafe { bytemuck::cast(words::$ops::ld_weak(p)) }
            }
            #[inline(always)]
            unsafe fn st(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { words::$ops::st(p, bytemuck::cast::<$t, $w>(v), sem, scope) }
            }
            #[inline(always)]
            unsafe fn exch(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    bytemuck::cast(words::$ops::exch(
                        p,
                        bytemuck::cast::<$t, $w>(v),
                        sem,
                        scope,
                    ))
                }
            }
            #[inline(always)]
            unsafe fn cas(
                p: Place,
                current: Self,
                new: Self,
                sem: Sem,
                scope: atom::Scope,
            ) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    bytemuck::cast(words::$ops::cas(
                        p,
                        bytemuck::cast::<$t, $w>(current),
                        bytemuck::cast::<$t, $w>(new),
                        sem,
                        scope,
                    ))
                }
            }
            #[inline(always)]
            fn same_bits(a: Self, b: Self) -> bool {
                bytemuck::cast::<$t, $w>(a) == bytemuck::cast::<$t, $w>(b)
            }
        }
    };
}

/// The word instructions of each width under one set of names, for
/// [`value_ops`].
mod words {
    pub(super) mod w32 {
        pub(crate) use crate::intrinsics::atom::{
            atom_cas_b32 as cas, atom_exch_b32 as exch, ld_b32 as ld, ld_weak_b32 as ld_weak,
            st_b32 as st,
        };
    }
    pub(super) mod w64 {
        pub(crate) use crate::intrinsics::atom::{
            atom_cas_b64 as cas, atom_exch_b64 as exch, ld_b64 as ld, ld_weak_b64 as ld_weak,
            st_b64 as st,
        };
    }
}

value_ops!(u32, u32, w32);
value_ops!(i32, u32, w32);
value_ops!(f32, u32, w32);
value_ops!(u64, u64, w64);
value_ops!(i64, u64, w64);
value_ops!(f64, u64, w64);

/// Integer arithmetic: the hardware's add, min and max.
macro_rules! int_arith {
    ($t:ty, $w:ty, $add:ident, $radd:ident, $min:ident, $max:ident, $rmin:ident, $rmax:ident,
     [$and:ident $or:ident $xor:ident $rand:ident $ror:ident $rxor:ident]) => {
        impl AtomicArith for $t {
            #[inline(always)]
            unsafe fn atom_add(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$add(p, v as $w, sem, scope) as $t }
            }
            #[inline(always)]
            unsafe fn red_add(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$radd(p, v as $w, sem, scope) }
            }
            #[inline(always)]
            fn negate(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            unsafe fn atom_min(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$min(p, v as $w, sem, scope) as $t }
            }
            #[inline(always)]
            unsafe fn atom_max(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$max(p, v as $w, sem, scope) as $t }
            }
            #[inline(always)]
            unsafe fn red_min(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$rmin(p, v as $w, sem, scope) }
            }
            #[inline(always)]
            unsafe fn red_max(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$rmax(p, v as $w, sem, scope) }
            }
        }

        impl AtomicBits for $t {
            #[inline(always)]
            unsafe fn atom_bits(
                op: BitOp,
                p: Place,
                v: Self,
                sem: Sem,
                scope: atom::Scope,
            ) -> Self {
                let v = v as $w;
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    (match op {
                        BitOp::And => atom::$and(p, v, sem, scope),
                        BitOp::Or => atom::$or(p, v, sem, scope),
                        BitOp::Xor => atom::$xor(p, v, sem, scope),
                    }) as $t
                }
            }
            #[inline(always)]
            unsafe fn red_bits(op: BitOp, p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                let v = v as $w;
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    match op {
                        BitOp::And => atom::$rand(p, v, sem, scope),
                        BitOp::Or => atom::$ror(p, v, sem, scope),
                        BitOp::Xor => atom::$rxor(p, v, sem, scope),
                    }
                }
            }
        }
    };
}

int_arith!(u32, u32, atom_add_u32, red_add_u32, atom_min_u32, atom_max_u32, red_min_u32, red_max_u32,
    [atom_and_b32 atom_or_b32 atom_xor_b32 red_and_b32 red_or_b32 red_xor_b32]);
int_arith!(i32, u32, atom_add_u32, red_add_u32, atom_min_s32, atom_max_s32, red_min_s32, red_max_s32,
    [atom_and_b32 atom_or_b32 atom_xor_b32 red_and_b32 red_or_b32 red_xor_b32]);
int_arith!(u64, u64, atom_add_u64, red_add_u64, atom_min_u64, atom_max_u64, red_min_u64, red_max_u64,
    [atom_and_b64 atom_or_b64 atom_xor_b64 red_and_b64 red_or_b64 red_xor_b64]);
int_arith!(i64, u64, atom_add_u64, red_add_u64, atom_min_s64, atom_max_s64, red_min_s64, red_max_s64,
    [atom_and_b64 atom_or_b64 atom_xor_b64 red_and_b64 red_or_b64 red_xor_b64]);

/// Float arithmetic: the hardware's add; min and max as `cas` loops
/// (PTX has no float `atom.min`), keeping the stored value when `v` is NaN.
macro_rules! float_arith {
    ($t:ty, $add:ident, $radd:ident) => {
        impl AtomicArith for $t {
            #[inline(always)]
            unsafe fn atom_add(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$add(p, v, sem, scope) }
            }
            #[inline(always)]
            unsafe fn red_add(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { atom::$radd(p, v, sem, scope) }
            }
            #[inline(always)]
            fn negate(self) -> Self {
                -self
            }
            #[inline(always)]
            unsafe fn atom_min(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    cas_loop(
                        p,
                        sem,
                        scope,
                        |old: $t| if v < old { Some(v) } else { None },
                    )
                }
            }
            #[inline(always)]
            unsafe fn atom_max(p: Place, v: Self, sem: Sem, scope: atom::Scope) -> Self {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe {
                    cas_loop(
                        p,
                        sem,
                        scope,
                        |old: $t| if old < v { Some(v) } else { None },
                    )
                }
            }
            #[inline(always)]
            unsafe fn red_min(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { Self::atom_min(p, v, sem, scope) };
            }
            #[inline(always)]
            unsafe fn red_max(p: Place, v: Self, sem: Sem, scope: atom::Scope) {
                // SAFETY: the instruction's contract is this method's (`AtomicValue`'s
                // `# Safety`: a live, aligned location in the space `p` names), which
                // the `AtomicRef` calling it holds by construction.
                unsafe { Self::atom_max(p, v, sem, scope) };
            }
        }
    };
}

float_arith!(f32, atom_add_f32, red_add_f32);
float_arith!(f64, atom_add_f64, red_add_f64);

/// Replaces the value `old` with `f(old)` until a `cas` succeeds or `f`
/// returns `None`; returns the last value read.
///
/// # Safety
/// As [`AtomicValue`]'s methods: `p` is a live, aligned `T` in the address
/// space it names.
#[inline(always)]
unsafe fn cas_loop<T: AtomicValue>(
    p: Place,
    sem: Sem,
    scope: atom::Scope,
    mut f: impl FnMut(T) -> Option<T>,
) -> T {
    // SAFETY: `p` is a live, aligned `T` in its address space (this
    // function's contract, passed on from the `AtomicArith` method).
    let mut old = unsafe { T::ld(p, Sem::Relaxed, scope) };
    while let Some(new) = f(old) {
        // SAFETY: the same location as the load above.
        let seen = unsafe { T::cas(p, old, new, sem, scope) };
        if T::same_bits(seen, old) {
            break;
        }
        old = seen;
    }
    old
}

/// The semantics of a read-modify-write with `order`, after the
/// sequentially consistent fence `SeqCst` asks for.
#[inline(always)]
fn rmw_sem(order: Ordering, scope: atom::Scope) -> Sem {
    match order {
        Ordering::Relaxed => Sem::Relaxed,
        Ordering::Acquire => Sem::Acquire,
        Ordering::Release => Sem::Release,
        Ordering::AcqRel => Sem::AcqRel,
        _ => {
            atom::fence_sc(scope);
            Sem::AcqRel
        }
    }
}

/// One location of `T` in global or shared memory, operated on atomically
/// at scope `S` (CUDA's `cuda::atomic_ref<T, S>`). See the module docs.
#[derive(Clone, Copy)]
pub struct AtomicRef<'a, T: AtomicValue, S: Scope = Device> {
    place: Place,
    _t: PhantomData<(&'a T, S)>,
}

impl<T: AtomicValue, S: Scope> AtomicRef<'_, T, S> {
    /// The atomic at `ptr`, in global memory.
    ///
    /// # Safety
    /// `ptr` must point to a `T` in global memory, aligned to its size, that
    /// stays valid while the reference is used, and that is accessed only
    /// atomically (or, between barriers, by one thread) meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr(ptr: *mut T) -> Self {
        Self::at(Place::Global(ptr as u64))
    }

    /// The atomic at an address in this block's shared window (for
    /// shared-memory arrays, [`SharedArray::atomic`] is the safe way).
    ///
    /// # Safety
    /// `addr` is a `T` in this block's shared memory, aligned to its size,
    /// accessed only atomically (or, between barriers, by one thread) while
    /// the reference is used.
    ///
    /// [`SharedArray::atomic`]: crate::shared::SharedArray::atomic
    #[inline(always)]
    pub unsafe fn from_shared_addr(addr: u32) -> Self {
        Self::at(Place::Shared(addr))
    }

    /// The atomic at an address in the cluster's shared window: shared
    /// memory of any block of this block's cluster, as `mapa` gives it
    /// (sm_90; for a mapped shared array, [`ClusterSharedArray::atomic`] is
    /// the safe way).
    ///
    /// # Safety
    /// `addr` is a `T` in the shared memory of a block of this cluster,
    /// aligned to its size, accessed only atomically (or, between cluster
    /// barriers, by one thread) while the reference is used, and that block
    /// has not exited.
    ///
    /// [`ClusterSharedArray::atomic`]: crate::cluster::ClusterSharedArray::atomic
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    pub unsafe fn from_cluster_shared_addr(addr: u32) -> Self {
        Self::at(Place::ClusterShared(addr))
    }

    #[inline(always)]
    fn at(place: Place) -> Self {
        AtomicRef {
            place,
            _t: PhantomData,
        }
    }

    /// Loads the value (`ld.relaxed` / `ld.acquire`; `SeqCst`: `fence.sc`
    /// first). Panics for `Release` and `AcqRel`, as `core` does.
    #[inline(always)]
    pub fn load(&self, order: Ordering) -> T {
        let sem = match order {
            Ordering::Relaxed => Sem::Relaxed,
            Ordering::Acquire => Sem::Acquire,
            Ordering::SeqCst => {
                atom::fence_sc(S::PTX);
                Sem::Acquire
            }
            _ => panic!("there is no such thing as a release load"),
        };
        // SAFETY: the place is valid (constructor contract).
        unsafe { T::ld(self.place, sem, S::PTX) }
    }

    /// The value as a plain load reads it (`ld.global`, weak; no scope),
    /// which the L1 cache may serve: for a value written before a barrier
    /// that this thread has passed since (`grid.sync()`,
    /// `multi_grid.sync()`, `block.sync()` for shared memory) and not
    /// written again until the next one, as CUDA code reads such a value
    /// through a plain pointer.
    ///
    /// Where [`load`](Self::load) with `Relaxed` at [`System`] scope goes
    /// to memory every time (across NVLink, for a peer GPU's word), this
    /// load is served from L1 after the first thread of a multiprocessor
    /// asked. The barrier's acquire orders the writes before it; a value
    /// written concurrently, with no barrier between, may read stale (an
    /// earlier value of the location, never a torn one).
    ///
    /// ```ignore
    /// sums.at(rank).store(mine, Ordering::Relaxed);
    /// mg.sync();
    /// let total = sums.at(0).load_after_sync() + sums.at(1).load_after_sync();
    /// ```
    #[inline(always)]
    pub fn load_after_sync(&self) -> T {
        // SAFETY: the place is valid (constructor contract).
        unsafe { T::ld_weak(self.place) }
    }

    /// Stores `value` (`st.relaxed` / `st.release`; `SeqCst`: `fence.sc`
    /// first). Panics for `Acquire` and `AcqRel`, as `core` does.
    #[inline(always)]
    pub fn store(&self, value: T, order: Ordering) {
        let sem = match order {
            Ordering::Relaxed => Sem::Relaxed,
            Ordering::Release => Sem::Release,
            Ordering::SeqCst => {
                atom::fence_sc(S::PTX);
                Sem::Release
            }
            _ => panic!("there is no such thing as an acquire store"),
        };
        // SAFETY: as `load`.
        unsafe { T::st(self.place, value, sem, S::PTX) }
    }

    /// Stores `value`, returns the previous value (`atom.exch`).
    #[inline(always)]
    pub fn swap(&self, value: T, order: Ordering) -> T {
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        unsafe { T::exch(self.place, value, sem, S::PTX) }
    }

    /// Stores `new` if the value is `current` (`atom.cas`): `Ok(previous)`
    /// when it was stored, `Err(actual)` when not. `failure` may not be
    /// `Release` or `AcqRel` (as in `core`); the instruction carries the
    /// stronger of the two orderings.
    #[inline(always)]
    pub fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        let order = match (success, failure) {
            (_, Ordering::Release | Ordering::AcqRel) => {
                panic!("there is no such thing as a release failure ordering")
            }
            (_, Ordering::SeqCst) | (Ordering::SeqCst, _) => Ordering::SeqCst,
            (Ordering::Release, Ordering::Acquire) => Ordering::AcqRel,
            (Ordering::Relaxed, Ordering::Acquire) => Ordering::Acquire,
            (s, _) => s,
        };
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        let old = unsafe { T::cas(self.place, current, new, sem, S::PTX) };
        if T::same_bits(old, current) {
            Ok(old)
        } else {
            Err(old)
        }
    }

    /// [`compare_exchange`](Self::compare_exchange): PTX's `atom.cas` never
    /// fails spuriously, so this is the same instruction.
    #[inline(always)]
    pub fn compare_exchange_weak(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        self.compare_exchange(current, new, success, failure)
    }

    /// Applies `f` until its result is stored with a compare-exchange
    /// (`Ok(previous)`) or `f` returns `None` (`Err(current)`), as `core`'s
    /// `fetch_update`.
    #[inline(always)]
    pub fn fetch_update(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: impl FnMut(T) -> Option<T>,
    ) -> Result<T, T> {
        let mut prev = self.load(fetch_order);
        while let Some(next) = f(prev) {
            match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                Ok(x) => return Ok(x),
                Err(seen) => prev = seen,
            }
        }
        Err(prev)
    }
}

/// The semantics of a result-less update: `red` takes relaxed or release;
/// the others use the `atom` form (`None`).
#[inline(always)]
fn red_sem(order: Ordering) -> Option<Sem> {
    match order {
        Ordering::Relaxed => Some(Sem::Relaxed),
        Ordering::Release => Some(Sem::Release),
        _ => None,
    }
}

impl<T: AtomicArith, S: Scope> AtomicRef<'_, T, S> {
    /// Adds `value`, returns the previous value (`atom.add`; wrapping for
    /// integers).
    #[inline(always)]
    pub fn fetch_add(&self, value: T, order: Ordering) -> T {
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        unsafe { T::atom_add(self.place, value, sem, S::PTX) }
    }

    /// Subtracts `value` (adds its negation), returns the previous value.
    #[inline(always)]
    pub fn fetch_sub(&self, value: T, order: Ordering) -> T {
        self.fetch_add(value.negate(), order)
    }

    /// Stores the minimum of the value and `value`, returns the previous
    /// value (`atom.min`; for floats a `cas` loop).
    #[inline(always)]
    pub fn fetch_min(&self, value: T, order: Ordering) -> T {
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        unsafe { T::atom_min(self.place, value, sem, S::PTX) }
    }

    /// Stores the maximum of the value and `value`, returns the previous
    /// value (`atom.max`; for floats a `cas` loop).
    #[inline(always)]
    pub fn fetch_max(&self, value: T, order: Ordering) -> T {
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        unsafe { T::atom_max(self.place, value, sem, S::PTX) }
    }

    /// Adds `value` with no result (`red.add`: `atomicAdd` whose result is
    /// unused).
    #[inline(always)]
    pub fn add(&self, value: T, order: Ordering) {
        match red_sem(order) {
            // SAFETY: as `load`.
            Some(sem) => unsafe { T::red_add(self.place, value, sem, S::PTX) },
            None => {
                self.fetch_add(value, order);
            }
        }
    }

    /// Subtracts `value` with no result.
    #[inline(always)]
    pub fn sub(&self, value: T, order: Ordering) {
        self.add(value.negate(), order)
    }

    /// Stores the minimum with no result (`red.min`).
    #[inline(always)]
    pub fn min(&self, value: T, order: Ordering) {
        match red_sem(order) {
            // SAFETY: as `load`.
            Some(sem) => unsafe { T::red_min(self.place, value, sem, S::PTX) },
            None => {
                self.fetch_min(value, order);
            }
        }
    }

    /// Stores the maximum with no result (`red.max`).
    #[inline(always)]
    pub fn max(&self, value: T, order: Ordering) {
        match red_sem(order) {
            // SAFETY: as `load`.
            Some(sem) => unsafe { T::red_max(self.place, value, sem, S::PTX) },
            None => {
                self.fetch_max(value, order);
            }
        }
    }
}

impl<T: AtomicBits, S: Scope> AtomicRef<'_, T, S> {
    #[inline(always)]
    fn fetch_bits(&self, op: BitOp, value: T, order: Ordering) -> T {
        let sem = rmw_sem(order, S::PTX);
        // SAFETY: as `load`.
        unsafe { T::atom_bits(op, self.place, value, sem, S::PTX) }
    }

    #[inline(always)]
    fn bits(&self, op: BitOp, value: T, order: Ordering) {
        match red_sem(order) {
            // SAFETY: as `load`.
            Some(sem) => unsafe { T::red_bits(op, self.place, value, sem, S::PTX) },
            None => {
                self.fetch_bits(op, value, order);
            }
        }
    }

    /// Bitwise and, returns the previous value (`atom.and`).
    #[inline(always)]
    pub fn fetch_and(&self, value: T, order: Ordering) -> T {
        self.fetch_bits(BitOp::And, value, order)
    }

    /// Bitwise or, returns the previous value (`atom.or`).
    #[inline(always)]
    pub fn fetch_or(&self, value: T, order: Ordering) -> T {
        self.fetch_bits(BitOp::Or, value, order)
    }

    /// Bitwise xor, returns the previous value (`atom.xor`).
    #[inline(always)]
    pub fn fetch_xor(&self, value: T, order: Ordering) -> T {
        self.fetch_bits(BitOp::Xor, value, order)
    }

    /// Bitwise and with no result (`red.and`).
    #[inline(always)]
    pub fn and(&self, value: T, order: Ordering) {
        self.bits(BitOp::And, value, order)
    }

    /// Bitwise or with no result (`red.or`).
    #[inline(always)]
    pub fn or(&self, value: T, order: Ordering) {
        self.bits(BitOp::Or, value, order)
    }

    /// Bitwise xor with no result (`red.xor`).
    #[inline(always)]
    pub fn xor(&self, value: T, order: Ordering) {
        self.bits(BitOp::Xor, value, order)
    }
}

/// `len` atomics of `T` in global memory, reached by index (bounds-checked
/// once per access).
#[derive(Clone, Copy)]
pub struct AtomicSlice<'a, T: AtomicValue, S: Scope = Device> {
    ptr: *mut T,
    len: usize,
    _t: PhantomData<(&'a T, S)>,
}

impl<'a, T: AtomicValue, S: Scope> AtomicSlice<'a, T, S> {
    /// The `len` values at `ptr`, in global memory.
    ///
    /// # Safety
    /// As [`AtomicRef::from_ptr`] for each of the `len` elements.
    #[inline(always)]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        AtomicSlice {
            ptr,
            len,
            _t: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `len` elements (panics when the slice is shorter): one
    /// check, after which indices below `len` need none.
    #[inline(always)]
    pub fn prefix(&self, len: usize) -> Self {
        assert!(len <= self.len, "AtomicSlice::prefix: the slice is shorter");
        AtomicSlice { len, ..*self }
    }

    /// Element `i`, or `None` when `i >= len`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<AtomicRef<'a, T, S>> {
        // SAFETY: in bounds of the slice the constructor vouched for.
        (i < self.len).then(|| unsafe { AtomicRef::from_ptr(self.ptr.add(i)) })
    }

    /// Element `i` (panics when `i >= len`).
    #[inline(always)]
    pub fn at(&self, i: usize) -> AtomicRef<'a, T, S> {
        assert!(i < self.len, "atomic index out of bounds");
        // SAFETY: in bounds of the slice the constructor vouched for.
        unsafe { AtomicRef::from_ptr(self.ptr.add(i)) }
    }
}

/// A memory fence at scope `S` (`core::sync::atomic::fence` with a scope):
/// `Acquire`, `Release` and `AcqRel` are `fence.acq_rel`, `SeqCst` is
/// `fence.sc`; `Relaxed` panics, as in `core`.
///
/// ```ignore
/// fence::<Device>(Ordering::SeqCst);   // __threadfence()
/// ```
#[inline(always)]
pub fn fence<S: Scope>(order: Ordering) {
    match order {
        Ordering::Relaxed => panic!("there is no such thing as a relaxed fence"),
        Ordering::SeqCst => atom::fence_sc(S::PTX),
        _ => atom::fence_acq_rel(S::PTX),
    }
}

/// CUDA's `__threadfence_block()`: `fence.sc.cta` (`membar.cta`).
#[inline(always)]
pub fn threadfence_block() {
    atom::fence_sc(atom::Scope::Cta)
}

/// CUDA's `__threadfence()`: `fence.sc.gpu` (`membar.gl`).
#[inline(always)]
pub fn threadfence() {
    atom::fence_sc(atom::Scope::Gpu)
}

/// CUDA's `__threadfence_system()`: `fence.sc.sys` (`membar.sys`).
#[inline(always)]
pub fn threadfence_system() {
    atom::fence_sc(atom::Scope::Sys)
}

/// `atomicAdd(ptr, v)` without a result (`red.relaxed.gpu.global.add.f32`).
///
/// # Safety
/// `ptr` must point to a live, 4-byte-aligned `f32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_f32(ptr: *mut f32, v: f32) {
    // SAFETY: `ptr` points to a live, 4-byte-aligned `f32` in global memory
    // (this function's contract): what `from_ptr` asks.
    unsafe { AtomicRef::<f32>::from_ptr(ptr) }.add(v, Ordering::Relaxed)
}

/// `atomicAdd(ptr, v)` on a `u32`, without a result
/// (`red.relaxed.gpu.global.add.u32`).
///
/// # Safety
/// `ptr` must point to a live, 4-byte-aligned `u32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_u32(ptr: *mut u32, v: u32) {
    // SAFETY: `ptr` points to a live, 4-byte-aligned `u32` in global memory
    // (this function's contract): what `from_ptr` asks.
    unsafe { AtomicRef::<u32>::from_ptr(ptr) }.add(v, Ordering::Relaxed)
}
