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

    /// Reads element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < N`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        ld_shared(self.addr + (i * size_of::<T>()) as u32)
    }

    /// Writes element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < N`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, value: T) {
        st_shared(self.addr + (i * size_of::<T>()) as u32, value)
    }

    /// Writes element `i` (traps when `i >= N`).
    #[inline(always)]
    pub fn set(&self, i: usize, value: T) {
        assert!(i < N);
        // SAFETY: in bounds of the allocation behind `addr`.
        unsafe { st_shared(self.addr + (i * size_of::<T>()) as u32, value) }
    }
}

/// Which shared window an address is in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// This block's shared memory (`.shared::cta`, plain `.shared`).
    Block,
    /// The cluster's distributed shared memory (`.shared::cluster`, sm_90):
    /// any block's shared memory, through an address from `mapa`.
    #[cfg(target_feature = "sm_90")]
    Cluster,
}

/// One `ld.shared{::cluster}.bN` of `$ty` into `$v`.
macro_rules! ld {
    ($win:expr, $w:literal, $class:ident, $ty:ty, $addr:expr) => {{
        let v: $ty;
        match $win {
            Window::Block => asm!(concat!("ld.shared.b", $w, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $addr, options(nostack, readonly)),
            #[cfg(target_feature = "sm_90")]
            Window::Cluster => asm!(concat!("ld.shared::cluster.b", $w, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $addr, options(nostack, readonly)),
        }
        v
    }};
}

/// One `st.shared{::cluster}.bN` of `$v`.
macro_rules! st {
    ($win:expr, $w:literal, $class:ident, $v:expr, $addr:expr) => {{
        match $win {
            Window::Block => asm!(concat!("st.shared.b", $w, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $addr, options(nostack)),
            #[cfg(target_feature = "sm_90")]
            Window::Cluster => asm!(concat!("st.shared::cluster.b", $w, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $addr, options(nostack)),
        }
    }};
}

/// Loads a `T` from a shared-window address with `ld.shared` (or
/// `ld.shared::cluster`), in the widest pieces its size allows.
///
/// # Safety
/// `addr` must be a valid address of a `T` in `window`, aligned for `T`.
#[inline(always)]
pub unsafe fn ld_shared_in<T: Pod>(window: Window, addr: u32) -> T {
    let mut out = T::zeroed();
    let dst = &mut out as *mut T as *mut u8;
    match size_of::<T>() {
        4 => (dst as *mut u32).write_unaligned(ld!(window, "32", reg32, u32, addr)),
        8 => (dst as *mut u64).write_unaligned(ld!(window, "64", reg64, u64, addr)),
        n => {
            for i in 0..n {
                *dst.add(i) = ld!(window, "8", reg16, u16, addr + i as u32) as u8;
            }
        }
    }
    out
}

/// Stores a `T` to a shared-window address with `st.shared` (or
/// `st.shared::cluster`).
///
/// # Safety
/// `addr` must be a valid address of a `T` in `window`, aligned for `T`.
#[inline(always)]
pub unsafe fn st_shared_in<T: Pod>(window: Window, addr: u32, value: T) {
    let src = &value as *const T as *const u8;
    match size_of::<T>() {
        4 => st!(
            window,
            "32",
            reg32,
            (src as *const u32).read_unaligned(),
            addr
        ),
        8 => st!(
            window,
            "64",
            reg64,
            (src as *const u64).read_unaligned(),
            addr
        ),
        n => {
            for i in 0..n {
                st!(window, "8", reg16, *src.add(i) as u16, addr + i as u32);
            }
        }
    }
}

/// [`ld_shared_in`] this block's window.
///
/// # Safety
/// As [`ld_shared_in`].
#[inline(always)]
pub unsafe fn ld_shared<T: Pod>(addr: u32) -> T {
    ld_shared_in(Window::Block, addr)
}

/// [`st_shared_in`] this block's window.
///
/// # Safety
/// As [`st_shared_in`].
#[inline(always)]
pub unsafe fn st_shared<T: Pod>(addr: u32, value: T) {
    st_shared_in(Window::Block, addr, value)
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
