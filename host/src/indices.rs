//! Index buffers whose every value the host checked against a bound: the
//! host argument of a kernel's `Indices<I>` parameter (cg-core's
//! `indices` module), which gathers through them without a bounds check
//! per element.

use crate::{DeviceBuffer, Error, Gpu};
pub use cg_core::indices::IndexValue;

/// Index values in device memory, each at least 0 and below
/// [`bound`](IndexBuffer::bound), checked when they were uploaded
/// ([`Gpu::upload_indices`]). Nothing can write them afterwards: the
/// buffer inside is reachable only by shared reference, so a kernel may
/// read it as `&[I]` too but never take it as an output. A kernel's
/// `Indices<I>` parameter takes `&IndexBuffer<I>`.
pub struct IndexBuffer<I: IndexValue> {
    values: DeviceBuffer<I>,
    bound: usize,
}

impl<I: IndexValue + std::fmt::Display> IndexBuffer<I> {
    /// Checks every value of `data` against `bound` on the host, then
    /// uploads them. [`Error::IndexOutOfBounds`] names the first value
    /// that is negative or not below `bound`; nothing is uploaded then.
    pub(crate) fn upload(gpu: &Gpu, data: &[I], bound: usize) -> Result<Self, Error> {
        if let Some(position) = first_out_of_bounds(data, bound) {
            return Err(Error::IndexOutOfBounds {
                position,
                value: data[position].to_string(),
                bound,
            });
        }
        Ok(Self {
            values: gpu.upload(data)?,
            bound,
        })
    }
}

/// Where the first value of `data` outside `0..bound` is.
fn first_out_of_bounds<I: IndexValue>(data: &[I], bound: usize) -> Option<usize> {
    let bound = bound as u64;
    data.iter()
        .position(|v| v.to_index().is_none_or(|i| i >= bound))
}

impl<I: IndexValue> IndexBuffer<I> {
    /// How many values there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The bound every value is below: a kernel's gather through them
    /// (`Indices::over`) needs a slice of at least this many elements.
    pub fn bound(&self) -> usize {
        self.bound
    }

    /// The values, read-only: for a kernel's `&[I]` parameter, or to copy
    /// them back ([`DeviceBuffer::to_vec`]).
    pub fn values(&self) -> &DeviceBuffer<I> {
        &self.values
    }

    /// The GPU the values live on.
    pub fn gpu(&self) -> &Gpu {
        self.values.gpu()
    }
}

#[cfg(test)]
mod tests {
    use super::first_out_of_bounds;

    #[test]
    fn the_first_value_outside_the_bound_is_named() {
        assert_eq!(first_out_of_bounds::<u32>(&[0, 4, 3], 5), None);
        assert_eq!(first_out_of_bounds::<u32>(&[0, 5, 6], 5), Some(1));
        assert_eq!(first_out_of_bounds::<u32>(&[], 0), None);
        assert_eq!(first_out_of_bounds::<u32>(&[0], 0), Some(0));
        assert_eq!(first_out_of_bounds::<i32>(&[1, -1], 5), Some(1));
        assert_eq!(first_out_of_bounds::<i64>(&[i64::MAX], usize::MAX), None);
        assert_eq!(first_out_of_bounds::<u64>(&[u64::MAX], usize::MAX), Some(0));
        assert_eq!(first_out_of_bounds::<u16>(&[u16::MAX], 1 << 16), None);
    }
}
