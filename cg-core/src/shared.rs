//! Shared memory arrays.
//!
//! [`shared_array!`](crate::shared_array) declares a statically sized
//! `.shared` array, one per declaration (its PTX symbol is derived from the
//! file, line and column of the macro call), 16-byte aligned. The
//! returned [`SharedArray`] holds the array's 32-bit shared-window address, so
//! its loads and stores are `ld.shared`/`st.shared`, not generic accesses.

use bytemuck::Pod;
use core::arch::asm;
use core::marker::PhantomData;
use core::mem::size_of;

/// A block-shared array of `N` values of `T`, from
/// [`shared_array!`](crate::shared_array). Indexing out of bounds traps.
///
/// Access from several threads follows CUDA's rules: separate writes and
/// reads of one element with a barrier (`block.sync()`).
#[derive(Clone, Copy)]
pub struct SharedArray<T: Pod, const N: usize> {
    addr: u32,
    _t: PhantomData<T>,
}

impl<T: Pod, const N: usize> SharedArray<T, N> {
    /// Wraps a shared-window address.
    ///
    /// # Safety
    /// `addr` must be the start of a `.shared` allocation of at least
    /// `N * size_of::<T>()` bytes aligned for `T`, used only through this
    /// handle's rules.
    #[inline(always)]
    pub const unsafe fn from_raw(addr: u32) -> Self {
        Self {
            addr,
            _t: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether the array is empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// The array's address in the shared window.
    #[inline(always)]
    pub fn shared_addr(&self) -> u32 {
        self.addr
    }

    /// Reads element `i` (traps when `i >= N`).
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        assert!(i < N);
        // SAFETY: in bounds of the allocation behind `addr`.
        unsafe { ld_shared(self.addr + (i * size_of::<T>()) as u32) }
    }

    /// Writes element `i` (traps when `i >= N`).
    #[inline(always)]
    pub fn set(&self, i: usize, value: T) {
        assert!(i < N);
        // SAFETY: in bounds of the allocation behind `addr`.
        unsafe { st_shared(self.addr + (i * size_of::<T>()) as u32, value) }
    }
}

/// Loads a `T` from a shared-window address with `ld.shared`, in the widest
/// pieces its size allows.
///
/// # Safety
/// `addr` must be a valid shared address of a `T`, aligned for `T`.
#[inline(always)]
pub unsafe fn ld_shared<T: Pod>(addr: u32) -> T {
    let mut out = T::zeroed();
    let dst = &mut out as *mut T as *mut u8;
    match size_of::<T>() {
        4 => {
            let v: u32;
            asm!("ld.shared.b32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(nostack, readonly));
            (dst as *mut u32).write_unaligned(v);
        }
        8 => {
            let v: u64;
            asm!("ld.shared.b64 {v}, [{a}];", v = out(reg64) v, a = in(reg32) addr, options(nostack, readonly));
            (dst as *mut u64).write_unaligned(v);
        }
        n => {
            let mut i = 0;
            while i < n {
                let v: u16;
                asm!("ld.shared.b8 {v}, [{a}];", v = out(reg16) v, a = in(reg32) addr + i as u32, options(nostack, readonly));
                *dst.add(i) = v as u8;
                i += 1;
            }
        }
    }
    out
}

/// Stores a `T` to a shared-window address with `st.shared`.
///
/// # Safety
/// `addr` must be a valid shared address of a `T`, aligned for `T`.
#[inline(always)]
pub unsafe fn st_shared<T: Pod>(addr: u32, value: T) {
    let src = &value as *const T as *const u8;
    match size_of::<T>() {
        4 => {
            let v = (src as *const u32).read_unaligned();
            asm!("st.shared.b32 [{a}], {v};", v = in(reg32) v, a = in(reg32) addr, options(nostack));
        }
        8 => {
            let v = (src as *const u64).read_unaligned();
            asm!("st.shared.b64 [{a}], {v};", v = in(reg64) v, a = in(reg32) addr, options(nostack));
        }
        n => {
            let mut i = 0;
            while i < n {
                let v = *src.add(i) as u16;
                asm!("st.shared.b8 [{a}], {v};", v = in(reg16) v, a = in(reg32) addr + i as u32, options(nostack));
                i += 1;
            }
        }
    }
}

/// Declares a block-shared array and returns its [`SharedArray`] handle:
///
/// ```ignore
/// let partial = shared_array!(f32; 32);
/// partial.set(warp_id, sum);
/// ```
///
/// Each call site is its own array (every thread of a block that runs the
/// same call site sees the same array).
#[macro_export]
macro_rules! shared_array {
    ($ty:ty; $n:expr) => {{
        #[allow(unused_imports)]
        mod __cg_shared_decl {
            use super::*;
            ::core::arch::global_asm!(
                ".shared .align 16 .b8 cg_shared_{h}_{l}_{c}[{bytes}];",
                h = const $crate::__private::fnv1a(file!()),
                l = const line!(), c = const column!(),
                bytes = const ::core::mem::size_of::<[$ty; $n]>(),
            );
        }
        let addr: u32;
        // SAFETY: reads the address of the array declared just above.
        unsafe {
            ::core::arch::asm!(
                "mov.u32 {a}, cg_shared_{h}_{l}_{c};",
                a = out(reg32) addr,
                h = const $crate::__private::fnv1a(file!()),
                l = const line!(), c = const column!(),
                options(nomem, nostack, pure),
            );
            $crate::shared::SharedArray::<$ty, { $n }>::from_raw(addr)
        }
    }};
}
