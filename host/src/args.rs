//! Helpers for the launch code `cg-builder` generates.

/// Passes a plain-old-data value to a kernel by value. The `Pod` bound is
/// the host-side half of the check `#[kernel]` makes on the device side.
#[inline(always)]
pub fn pod<T: bytemuck::Pod>(value: T) -> T {
    value
}

/// The bytes of a parameter value, for a launch that is assembled first and
/// submitted later (a multi-grid launch).
#[inline(always)]
pub fn bytes<T: bytemuck::Pod>(value: &T) -> &[u8] {
    bytemuck::bytes_of(value)
}
