//! Shared memory arrays.
//!
//! [`shared_array!`](crate::shared_array) declares a statically sized
//! `.shared` array, one per declaration (its PTX symbol is derived from the
//! file, line and column of the macro call), 16-byte aligned. The
//! returned [`SharedArray`] holds the array's 32-bit shared-window address, so
//! its loads and stores are `ld.shared`/`st.shared`, not generic accesses.
//! [`dynamic_shared`] is the region sized at launch; [`SharedSlice`] is a
//! view of either, and what [`memcpy_async`](crate::memcpy_async) copies
//! into.

use crate::intrinsics;
use bytemuck::Pod;
use core::marker::PhantomData;
use core::mem::{align_of, size_of};

/// A run of `len` values of `T` in this block's shared memory: a view of
/// a [`SharedArray`] ([`SharedArray::as_slice`]), of the dynamic region
/// ([`dynamic_shared`]) or of part of either ([`SharedSlice::subslice`]).
/// It holds a 32-bit shared-window address, so its loads and stores are
/// `ld.shared`/`st.shared`. Indexing out of bounds traps.
///
/// Access from several threads follows CUDA's rules: separate writes and
/// reads of one element with a barrier (`block.sync()`).
#[derive(Clone, Copy)]
pub struct SharedSlice<T: Pod> {
    addr: u32,
    len: u32,
    _t: PhantomData<T>,
}

impl<T: Pod> SharedSlice<T> {
    /// Wraps a shared-window address and a length.
    ///
    /// # Safety
    /// `addr` must be the start of `len` values of `T` in `.shared` memory,
    /// aligned for `T`, used only through this handle's rules.
    #[inline(always)]
    pub const unsafe fn from_raw(addr: u32, len: u32) -> Self {
        Self {
            addr,
            len,
            _t: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the slice is empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slice's address in the shared window.
    #[inline(always)]
    pub fn shared_addr(&self) -> u32 {
        self.addr
    }

    /// Elements `start..start + len` (traps when they run past the end: a
    /// fault the host reports at the caller's line).
    #[inline(always)]
    #[track_caller]
    pub fn subslice(&self, start: usize, len: usize) -> Self {
        assert!(start <= self.len() && len <= self.len() - start);
        // SAFETY: inside this slice.
        unsafe { Self::from_raw(self.addr + (start * size_of::<T>()) as u32, len as u32) }
    }

    /// Elements `start..`, or none when `start >= len` (`slice.get(start..)`
    /// without the `Option`): never traps.
    #[inline(always)]
    pub fn tail_from(&self, start: usize) -> Self {
        let start = start.min(self.len());
        // SAFETY: inside this slice.
        unsafe {
            Self::from_raw(
                self.addr + (start * size_of::<T>()) as u32,
                self.len - start as u32,
            )
        }
    }

    /// Reads element `i` (traps when `i >= len`).
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len());
        // SAFETY: in bounds.
        unsafe { self.get_unchecked(i) }
    }

    /// Writes element `i` (traps when `i >= len`).
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, value: T) {
        assert!(i < self.len());
        // SAFETY: in bounds.
        unsafe { self.set_unchecked(i, value) }
    }

    /// Reads element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        // SAFETY: `i < len` (this function's contract), so element `i` is a
        // `T` of the slice's shared memory, aligned for `T` (its contract).
        unsafe { ld_shared(self.addr + (i * size_of::<T>()) as u32) }
    }

    /// Element `i` as a block-scope atomic (traps when `i >= len`).
    #[inline(always)]
    pub fn atomic(&self, i: usize) -> crate::atomic::AtomicRef<'static, T, crate::atomic::Block>
    where
        T: crate::atomic::AtomicValue,
    {
        assert!(i < self.len());
        // SAFETY: in bounds (checked).
        unsafe { self.atomic_unchecked(i) }
    }

    /// Element `i` as a block-scope atomic, or `None` when `i >= len`
    /// (`slice::get`'s rule): for indices computed from data, where an
    /// index past the end is skipped rather than a fault.
    #[inline(always)]
    pub fn get_atomic(
        &self,
        i: usize,
    ) -> Option<crate::atomic::AtomicRef<'static, T, crate::atomic::Block>>
    where
        T: crate::atomic::AtomicValue,
    {
        // SAFETY: in bounds (checked).
        (i < self.len()).then(|| unsafe { self.atomic_unchecked(i) })
    }

    /// # Safety
    /// `i < len`.
    #[inline(always)]
    pub(crate) unsafe fn atomic_unchecked(
        &self,
        i: usize,
    ) -> crate::atomic::AtomicRef<'static, T, crate::atomic::Block>
    where
        T: crate::atomic::AtomicValue,
    {
        // SAFETY: `i` in bounds (the caller's contract), aligned for `T`
        // (the slice's contract); shared memory of this block, reached only
        // through atomics or barriers.
        unsafe {
            crate::atomic::AtomicRef::from_shared_addr(self.addr + (i * size_of::<T>()) as u32)
        }
    }

    /// Writes element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, value: T) {
        // SAFETY: `i < len` (this function's contract), so element `i` is a
        // `T` of the slice's shared memory, aligned for `T` (its contract).
        unsafe { st_shared(self.addr + (i * size_of::<T>()) as u32, value) }
    }
}

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

    /// The whole array as a [`SharedSlice`].
    #[inline(always)]
    pub fn as_slice(&self) -> SharedSlice<T> {
        // SAFETY: the array's own extent.
        unsafe { SharedSlice::from_raw(self.addr, N as u32) }
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
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        self.as_slice().get(i)
    }

    /// Reads element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < N`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        // SAFETY: `i < N` (this function's contract), the slice's length.
        unsafe { self.as_slice().get_unchecked(i) }
    }

    /// Writes element `i` without a bounds check.
    ///
    /// # Safety
    /// `i < N`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, value: T) {
        // SAFETY: `i < N` (this function's contract), the slice's length.
        unsafe { self.as_slice().set_unchecked(i, value) }
    }

    /// Element `i` as a block-scope atomic (traps when `i >= N`): the
    /// shared-memory form of [`AtomicRef`](crate::atomic::AtomicRef),
    /// safe from any thread of the block.
    ///
    /// ```ignore
    /// let hist = shared_array!(u32; 256);
    /// hist.atomic(bin).add(1, Ordering::Relaxed);   // red.relaxed.cta.shared.add.u32
    /// ```
    #[inline(always)]
    pub fn atomic(&self, i: usize) -> crate::atomic::AtomicRef<'static, T, crate::atomic::Block>
    where
        T: crate::atomic::AtomicValue,
    {
        self.as_slice().atomic(i)
    }

    /// Element `i` as a block-scope atomic, or `None` when `i >= N`: for
    /// bins computed from data, where a value out of range is skipped
    /// rather than a fault (CUB's `DeviceHistogram` rule).
    ///
    /// ```ignore
    /// if let Some(bin) = hist.get_atomic(value as usize) {
    ///     bin.add(1, Ordering::Relaxed);
    /// }
    /// ```
    #[inline(always)]
    pub fn get_atomic(
        &self,
        i: usize,
    ) -> Option<crate::atomic::AtomicRef<'static, T, crate::atomic::Block>>
    where
        T: crate::atomic::AtomicValue,
    {
        self.as_slice().get_atomic(i)
    }

    /// Writes element `i` (traps when `i >= N`).
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, value: T) {
        self.as_slice().set(i, value)
    }
}

/// The block's dynamic shared memory (`extern __shared__ T s[]`) as
/// `T`s: as many as fit in the bytes the launch asked for
/// (`LaunchConfig::with_shared_mem`; `%dynamic_smem_size`). 16-byte
/// aligned; every call in a kernel returns the same region, so split it
/// with [`SharedSlice::subslice`].
#[inline(always)]
pub fn dynamic_shared<T: Pod>() -> SharedSlice<T> {
    const { assert!(core::mem::align_of::<T>() <= 16 && size_of::<T>() > 0) };
    let addr = intrinsics::dynamic_shared_addr();
    let n = intrinsics::dynamic_smem_size() / size_of::<T>() as u32;
    // SAFETY: the launch's dynamic region: `n` whole `T`s at a 16-byte
    // aligned start (and `T` is aligned to at most 16).
    unsafe { SharedSlice::from_raw(addr, n) }
}

/// Which shared window an address is in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// This block's shared memory (`.shared::cta`, plain `.shared`).
    Block,
    /// The cluster's distributed shared memory (`.shared::cluster`, sm_90):
    /// any block's shared memory, through an address from `mapa`.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    Cluster,
}

/// One `ld.shared{::cluster}.b$w` from `$addr` in `$win`.
macro_rules! ld {
    ($win:expr, $block:ident, $cluster:ident, $addr:expr) => {
        match $win {
            Window::Block => intrinsics::$block($addr),
            #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
            Window::Cluster => intrinsics::$cluster($addr),
        }
    };
}

/// One `st.shared{::cluster}.b$w` of `$v` to `$addr` in `$win`.
macro_rules! st {
    ($win:expr, $block:ident, $cluster:ident, $v:expr, $addr:expr) => {
        match $win {
            Window::Block => intrinsics::$block($addr, $v),
            #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
            Window::Cluster => intrinsics::$cluster($addr, $v),
        }
    };
}

/// Loads a `T` from a shared-window address with `ld.shared` (or
/// `ld.shared::cluster`), in the widest pieces its size and alignment
/// allow.
///
/// # Safety
/// `addr` must be a valid address of a `T` in `window`, aligned for `T`.
#[inline(always)]
pub unsafe fn ld_shared_in<T: Pod>(window: Window, addr: u32) -> T {
    let mut out = T::zeroed();
    let dst = &mut out as *mut T as *mut u8;
    // SAFETY: each write goes to `out`, a local `T`, through `dst` at an
    // offset below `size_of::<T>()`, unaligned; each load reads a piece of the
    // `T` at `addr` in `window`, at an offset that is a multiple of the
    // piece's width, which the arm picks from `T`'s size and alignment, so
    // it is as aligned as `addr` (a `T` there, aligned for `T`: this
    // function's contract).
    unsafe {
        match size_of::<T>() {
            4 => (dst as *mut u32).write_unaligned(ld!(
                window,
                ld_shared_b32,
                ld_shared_cluster_b32,
                addr
            )),
            8 => (dst as *mut u64).write_unaligned(ld!(
                window,
                ld_shared_b64,
                ld_shared_cluster_b64,
                addr
            )),
            // Larger values in the widest words their alignment allows.
            n if n % 8 == 0 && align_of::<T>() >= 8 => {
                for i in (0..n).step_by(8) {
                    (dst.add(i) as *mut u64).write_unaligned(ld!(
                        window,
                        ld_shared_b64,
                        ld_shared_cluster_b64,
                        addr + i as u32
                    ))
                }
            }
            n if n % 4 == 0 && align_of::<T>() >= 4 => {
                for i in (0..n).step_by(4) {
                    (dst.add(i) as *mut u32).write_unaligned(ld!(
                        window,
                        ld_shared_b32,
                        ld_shared_cluster_b32,
                        addr + i as u32
                    ))
                }
            }
            n => {
                for i in 0..n {
                    *dst.add(i) =
                        ld!(window, ld_shared_b8, ld_shared_cluster_b8, addr + i as u32) as u8;
                }
            }
        }
    }
    out
}

/// Stores a `T` to a shared-window address with `st.shared` (or
/// `st.shared::cluster`), in the widest pieces its size and alignment
/// allow.
///
/// # Safety
/// `addr` must be a valid address of a `T` in `window`, aligned for `T`.
#[inline(always)]
pub unsafe fn st_shared_in<T: Pod>(window: Window, addr: u32, value: T) {
    let src = &value as *const T as *const u8;
    // SAFETY: each read comes from `value`, a local `T`, through `src` at an
    // offset below `size_of::<T>()`, unaligned; each store writes a piece of
    // the `T` at `addr` in `window`, at an offset that is a multiple of the
    // piece's width, which the arm picks from `T`'s size and alignment, so
    // it is as aligned as `addr` (a `T` there, aligned for `T`: this
    // function's contract).
    unsafe {
        match size_of::<T>() {
            4 => st!(
                window,
                st_shared_b32,
                st_shared_cluster_b32,
                (src as *const u32).read_unaligned(),
                addr
            ),
            8 => st!(
                window,
                st_shared_b64,
                st_shared_cluster_b64,
                (src as *const u64).read_unaligned(),
                addr
            ),
            n if n % 8 == 0 && align_of::<T>() >= 8 => {
                for i in (0..n).step_by(8) {
                    st!(
                        window,
                        st_shared_b64,
                        st_shared_cluster_b64,
                        (src.add(i) as *const u64).read_unaligned(),
                        addr + i as u32
                    )
                }
            }
            n if n % 4 == 0 && align_of::<T>() >= 4 => {
                for i in (0..n).step_by(4) {
                    st!(
                        window,
                        st_shared_b32,
                        st_shared_cluster_b32,
                        (src.add(i) as *const u32).read_unaligned(),
                        addr + i as u32
                    )
                }
            }
            n => {
                for i in 0..n {
                    st!(
                        window,
                        st_shared_b8,
                        st_shared_cluster_b8,
                        *src.add(i) as u16,
                        addr + i as u32
                    );
                }
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
    // SAFETY: `addr` is an aligned `T` of this block's window (this
    // function's contract).
    unsafe { ld_shared_in(Window::Block, addr) }
}

/// [`st_shared_in`] this block's window.
///
/// # Safety
/// As [`st_shared_in`].
#[inline(always)]
pub unsafe fn st_shared<T: Pod>(addr: u32, value: T) {
    // SAFETY: `addr` is an aligned `T` of this block's window (this
    // function's contract).
    unsafe { st_shared_in(Window::Block, addr, value) }
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
        let addr: u32 = $crate::__cg_shared_array_addr!($ty; $n);
        // SAFETY: a `.shared` array of `[$ty; $n]`, 16-byte aligned, of
        // this call site alone, reached only through the handle.
        unsafe { $crate::shared::SharedArray::<$ty, { $n }>::from_raw(addr) }
    }};
}
