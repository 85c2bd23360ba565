//! Device-wide atomics on global memory.

use crate::intrinsics;

/// `atomicAdd(ptr, v)` without a result (`red.global.add.f32`).
///
/// # Safety
/// `ptr` must point to a live, 4-byte-aligned `f32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_f32(ptr: *mut f32, v: f32) {
    intrinsics::red_add_f32(ptr, v)
}

/// `atomicAdd(ptr, v)` on a `u32`, without a result (`red.global.add.u32`).
///
/// # Safety
/// `ptr` must point to a live, 4-byte-aligned `u32` in global memory.
#[inline(always)]
pub unsafe fn atomic_add_u32(ptr: *mut u32, v: u32) {
    intrinsics::red_add_u32(ptr, v)
}
