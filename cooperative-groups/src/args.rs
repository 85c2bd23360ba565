//! Helpers for the launch code `cg-builder` generates.

/// Passes a plain-old-data value to a kernel by value. The `Pod` bound is
/// the host-side half of the check `#[kernel]` makes on the device side.
#[inline(always)]
pub fn pod<T: bytemuck::Pod>(value: T) -> T {
    value
}
