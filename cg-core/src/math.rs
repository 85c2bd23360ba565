//! Floating-point operations whose rounding a kernel states: the explicit
//! fused multiply-add (CUDA's `fmaf`, `__fmaf_rn`, `fma`).
//!
//! `a * b + c` in a kernel rounds twice, as Rust specifies and as the same
//! code computes on the host, unless the kernel crate is built with
//! `FpContract::Fast` (cg-builder), which lets the compiler fuse it as nvcc
//! does by default. [`mul_add`] is one `fma.rn` whatever the setting.

use crate::intrinsics;

/// A float with a fused multiply-add instruction: `f32` and `f64`.
pub trait MulAdd: Copy + sealed::Sealed {
    /// `self * b + c`, rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl MulAdd for f32 {
    /// `fma.rn.f32`.
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        intrinsics::fma_rn_f32(self, b, c)
    }
}

impl MulAdd for f64 {
    /// `fma.rn.f64`.
    #[inline(always)]
    fn mul_add(self, b: f64, c: f64) -> f64 {
        intrinsics::fma_rn_f64(self, b, c)
    }
}

/// `a * b + c` with a single rounding (to nearest even): one `fma.rn`
/// instruction, CUDA's `fmaf(a, b, c)` / `fma(a, b, c)`.
///
/// ```ignore
/// let y = mul_add(a, x[i], y[i]); // fma.rn.f32
/// ```
#[inline(always)]
pub fn mul_add<T: MulAdd>(a: T, b: T, c: T) -> T {
    a.mul_add(b, c)
}

/// `fma.rn.f32` in the simulator: one rounding, as on the GPU.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
pub(crate) fn host_fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `fma.rn.f64` in the simulator.
#[cfg(all(not(target_arch = "nvptx64"), feature = "sim"))]
pub(crate) fn host_fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}
