//! Typed device memory.

use crate::error::{Context, Error};
use crate::Gpu;
use cudarc::driver::{CudaSlice, DevicePtr};
use std::marker::PhantomData;

/// `len` values of `T` in device memory, allocated on a [`Gpu`]'s stream.
/// The element type is what a kernel's `&[T]`, `*const T` or `*mut T`
/// parameter must match; the typed launch handles take `&DeviceBuffer<T>`
/// for read-only parameters and `&mut DeviceBuffer<T>` for writable ones, so
/// the borrow checker keeps a buffer from being written while it is read by
/// the same launch.
pub struct DeviceBuffer<T> {
    bytes: CudaSlice<u8>,
    len: usize,
    gpu: Gpu,
    _t: PhantomData<T>,
}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    /// `len` elements with unspecified contents.
    pub(crate) fn uninit(gpu: &Gpu, len: usize) -> Result<Self, Error> {
        let n = (len * size_of::<T>()).max(1);
        // SAFETY: `T: Pod` makes any byte pattern a valid value.
        let bytes = unsafe { gpu.stream().alloc::<u8>(n) }
            .context(|| format!("allocating {n} bytes of device memory"))?;
        Ok(Self {
            bytes,
            len,
            gpu: gpu.clone(),
            _t: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's device address (what a kernel's pointer parameter receives).
    pub fn device_address(&self) -> u64 {
        let (ptr, _sync) = self.bytes.device_ptr(self.gpu.stream());
        ptr
    }

    /// Overwrites the buffer with `data`, which must have the same length.
    pub fn copy_from(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                device: self.len,
                host: data.len(),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        let src: &[u8] = bytemuck::cast_slice(data);
        let mut dst = self.bytes.slice_mut(..src.len());
        self.gpu
            .stream()
            .memcpy_htod(src, &mut dst)
            .context(|| format!("copying {} bytes to the GPU", src.len()))
    }

    /// Overwrites the buffer with the contents of `src`, on the device.
    pub fn copy_from_device(&mut self, src: &DeviceBuffer<T>) -> Result<(), Error> {
        if src.len != self.len {
            return Err(Error::LengthMismatch {
                device: self.len,
                host: src.len,
            });
        }
        let n = self.len * size_of::<T>();
        if n == 0 {
            return Ok(());
        }
        let mut dst = self.bytes.slice_mut(..n);
        self.gpu
            .stream()
            .memcpy_dtod(&src.bytes.slice(..n), &mut dst)
            .context(|| format!("copying {n} bytes on the GPU"))
    }

    /// Sets every byte of the buffer to zero, on the device (`cuMemsetD8`,
    /// queued on the stream like a kernel: no host copy, no wait).
    pub fn zero(&mut self) -> Result<(), Error> {
        let n = self.len * size_of::<T>();
        if n == 0 {
            return Ok(());
        }
        let mut dst = self.bytes.slice_mut(..n);
        self.gpu
            .stream()
            .memset_zeros(&mut dst)
            .context(|| format!("zeroing {n} bytes on the GPU"))
    }

    /// Copies the buffer to the host, after the work queued before it.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        // Wait first, under the deadline if one is set: the copy itself
        // would wait for the kernels before it with none.
        self.gpu.synchronize()?;
        let mut out = vec![T::zeroed(); self.len];
        if self.len > 0 {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
            let n = dst.len();
            self.gpu
                .stream()
                .memcpy_dtoh(&self.bytes.slice(..n), dst)
                .context(|| format!("copying {n} bytes from the GPU"))?;
        }
        self.gpu.synchronize()?;
        Ok(out)
    }
}
