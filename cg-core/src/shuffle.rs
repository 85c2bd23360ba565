//! Moving and comparing any plain-old-data value between lanes.
//!
//! CUDA's group shuffles accept any trivially copyable type of at most 32
//! bytes; so do these. A value is moved as `ceil(size / 4)` 32-bit
//! `shfl.sync` instructions: one for `f32`/`u32`/`i32`, two for `f64`, eight
//! for a 32-byte struct. A type over 32 bytes does not compile.
//!
//! The `c` operand of `shfl.sync` packs a segment mask in bits 8..13 and a
//! clamp lane in bits 0..5. For a group of `width` lanes, CUDA's
//! `__shfl_*_sync(mask, v, x, width)` use `((32 - width) << 8) | 0x1f` (idx,
//! down, xor) and `(32 - width) << 8` (up); so do these.

use crate::intrinsics::{self, shfl_sync, ShflMode};
use bytemuck::Pod;
use core::mem::size_of;

struct SizeCheck<T>(T);
impl<T> SizeCheck<T> {
    const AT_MOST_32_BYTES: () = assert!(
        size_of::<T>() <= 32,
        "a shuffled or reduced type is at most 32 bytes (CUDA's limit)"
    );
}

struct MatchSize<T>(T);
impl<T> MatchSize<T> {
    const FOUR_OR_EIGHT_BYTES: () = assert!(
        size_of::<T>() == 4 || size_of::<T>() == 8,
        "match_any/match_all compare 32-bit or 64-bit values"
    );
}

/// The `c` operand for a segment of `width` lanes (a power of two ≤ 32).
#[inline(always)]
pub(crate) const fn segment_c(mode: ShflMode, width: u32) -> u32 {
    match mode {
        ShflMode::Up => (32 - width) << 8,
        _ => ((32 - width) << 8) | 0x1f,
    }
}

/// Shuffles `value` word by word with the given operands.
///
/// # Safety
/// As [`shfl_sync`]: the caller's lane is in `mask`, and every lane of
/// `mask` that has not exited calls this with the same mode and mask.
#[inline(always)]
pub(crate) unsafe fn shfl_pod<T: Pod>(mode: ShflMode, value: T, b: u32, c: u32, mask: u32) -> T {
    #[allow(clippy::let_unit_value)]
    let () = SizeCheck::<T>::AT_MOST_32_BYTES;
    let words = size_of::<T>().div_ceil(4);
    let mut buf = [0u32; 8];
    // SAFETY: `T` is at most 32 bytes (checked above) and plain old data.
    unsafe {
        core::ptr::copy_nonoverlapping(
            &value as *const T as *const u8,
            buf.as_mut_ptr() as *mut u8,
            size_of::<T>(),
        );
    }
    let mut i = 0;
    while i < words {
        // SAFETY: `shfl.sync`'s contract is this function's (the caller's
        // lane is in `mask`, every lane of it calls this together); every
        // lane runs this loop as often (`words` depends on `T` only).
        buf[i] = unsafe { shfl_sync(mode, buf[i], b, c, mask) };
        i += 1;
    }
    let mut out = T::zeroed();
    // SAFETY: as above; any bit pattern is a valid `T`.
    unsafe {
        core::ptr::copy_nonoverlapping(
            buf.as_ptr() as *const u8,
            &mut out as *mut T as *mut u8,
            size_of::<T>(),
        );
    }
    out
}

/// `match.any.sync` over the bits of a 4- or 8-byte `value`: the lanes of
/// `mask` whose value has the same bits. Another size does not compile.
///
/// # Safety
/// As `match.sync`'s: the caller's lane is in `mask`, and every lane of
/// `mask` that has not exited calls this with the same mask.
#[inline(always)]
pub(crate) unsafe fn match_any_pod<T: Pod>(value: T, mask: u32) -> u32 {
    #[allow(clippy::let_unit_value)]
    let () = MatchSize::<T>::FOUR_OR_EIGHT_BYTES;
    // SAFETY: `match.any.sync`'s contract is this function's; every lane
    // takes the same branch (the size of `T`), so runs one instruction of
    // the same width.
    unsafe {
        if size_of::<T>() == 4 {
            intrinsics::match_any_b32(bits32(value), mask)
        } else {
            intrinsics::match_any_b64(bits64(value), mask)
        }
    }
}

/// `match.all.sync` over the bits of a 4- or 8-byte `value`: `Some(mask)`
/// when every lane of `mask` has the same bits, else `None`.
///
/// # Safety
/// As [`match_any_pod`].
#[inline(always)]
pub(crate) unsafe fn match_all_pod<T: Pod>(value: T, mask: u32) -> Option<u32> {
    #[allow(clippy::let_unit_value)]
    let () = MatchSize::<T>::FOUR_OR_EIGHT_BYTES;
    // SAFETY: as in `match_any_pod`: its contract, and one branch (the
    // size of `T`) in every lane.
    unsafe {
        if size_of::<T>() == 4 {
            intrinsics::match_all_b32(bits32(value), mask)
        } else {
            intrinsics::match_all_b64(bits64(value), mask)
        }
    }
}

/// The first 4 bytes of `value` (zero-extended when it is smaller).
#[inline(always)]
pub fn bits32<T: Pod>(value: T) -> u32 {
    let mut out = 0u32;
    // SAFETY: copies at most 4 bytes of a plain-old-data value into a u32.
    unsafe {
        core::ptr::copy_nonoverlapping(
            &value as *const T as *const u8,
            &mut out as *mut u32 as *mut u8,
            size_of::<T>().min(4),
        )
    };
    out
}

/// The first 8 bytes of `value` (zero-extended when it is smaller).
#[inline(always)]
pub fn bits64<T: Pod>(value: T) -> u64 {
    let mut out = 0u64;
    // SAFETY: copies at most 8 bytes of a plain-old-data value into a u64.
    unsafe {
        core::ptr::copy_nonoverlapping(
            &value as *const T as *const u8,
            &mut out as *mut u64 as *mut u8,
            size_of::<T>().min(8),
        )
    };
    out
}

/// A `T` whose first bytes are those of `bits` (the rest zero): the inverse
/// of [`bits32`] for types of at most 4 bytes.
#[inline(always)]
pub fn from_bits32<T: Pod>(bits: u32) -> T {
    let mut out = T::zeroed();
    // SAFETY: any bit pattern is a valid `T`; at most 4 bytes are copied.
    unsafe {
        core::ptr::copy_nonoverlapping(
            &bits as *const u32 as *const u8,
            &mut out as *mut T as *mut u8,
            size_of::<T>().min(4),
        )
    };
    out
}
