//! Typed device memory.

use crate::context::ContextBound;
use crate::error::Error;
use crate::uses::Uses;
use crate::Gpu;
use cudarc::driver::{sys, CudaSlice, DevicePtr, DriverError};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::Arc;

/// `len` values of `T` in device memory, allocated on a [`Gpu`]'s stream.
/// The element type is what a kernel's `&[T]`, `*const T` or `*mut T`
/// parameter must match; the typed launch handles take `&DeviceBuffer<T>`
/// for read-only parameters and `&mut DeviceBuffer<T>` for writable ones, so
/// the borrow checker keeps a buffer from being written while it is read by
/// the same launch.
///
/// A buffer belongs to its GPU's context: after [`Gpu::reset`] every
/// operation on it is [`Error::StaleHandle`], and dropping it frees nothing.
///
/// A kernel on another GPU of a [`GpuSet`](crate::GpuSet) may use the
/// buffer (peer access). The buffer remembers which other GPUs' streams
/// have work queued on it, and orders what comes next after that work:
/// [`DeviceBuffer::to_vec`] waits for the other GPUs' kernels that write
/// it, writing it ([`DeviceBuffer::copy_from`], [`DeviceBuffer::zero`],
/// [`DeviceBuffer::copy_from_device`]) or dropping it waits for every
/// kernel that uses it, and a kernel on one GPU waits for the work of the
/// others that conflicts with it (a write for every use, a read for the
/// writes). The waits are CUDA events recorded on the other GPU's stream
/// and waited for on the one that comes next (`cuStreamWaitEvent`): no
/// thread blocks, and a buffer that only its own GPU uses costs nothing.
pub struct DeviceBuffer<T> {
    /// Taken out only by `Drop`.
    bytes: ManuallyDrop<Storage>,
    len: usize,
    gpu: Gpu,
    /// The other GPUs' uses, shared with the multi-grid launches that name
    /// the buffer (which keep its memory until their grids are queued).
    uses: Arc<Uses>,
    _t: PhantomData<T>,
}

/// Where a buffer's bytes live.
pub(crate) enum Storage {
    /// Device memory of a CUDA context.
    Cuda(ContextBound<CudaSlice<u8>>),
    /// Host memory, on the simulator.
    #[cfg(feature = "sim")]
    Host(HostMemory),
}

#[cfg(feature = "nccl")]
impl Storage {
    /// The CUDA memory; `None` on the simulator.
    fn cuda(&self) -> Option<&ContextBound<CudaSlice<u8>>> {
        match self {
            Storage::Cuda(b) => Some(b),
            #[cfg(feature = "sim")]
            Storage::Host(_) => None,
        }
    }

    /// [`Storage::cuda`], mutably.
    fn cuda_mut(&mut self) -> Option<&mut ContextBound<CudaSlice<u8>>> {
        match self {
            Storage::Cuda(b) => Some(b),
            #[cfg(feature = "sim")]
            Storage::Host(_) => None,
        }
    }
}

/// What an NCCL transfer of a buffer on the simulator is.
#[cfg(feature = "nccl")]
fn nccl_needs_gpu() -> Error {
    Error::NeedsGpu {
        operation: "an NCCL transfer".into(),
    }
}

/// The simulator's device memory: host bytes aligned as CUDA aligns an
/// allocation (256 bytes), reached by kernels through raw pointers only.
#[cfg(feature = "sim")]
pub(crate) struct HostMemory {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

#[cfg(feature = "sim")]
impl HostMemory {
    /// `n` bytes (at least one), every one 0xff: what the simulator's
    /// uninitialized memory holds, so that a value nothing wrote shows.
    fn new(n: usize) -> Option<Self> {
        let layout = std::alloc::Layout::from_size_align(n.max(1), 256).ok()?;
        // SAFETY: the layout's size is not zero.
        let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc(layout) })?;
        // SAFETY: `layout.size()` bytes were just allocated at `ptr`.
        unsafe { ptr.as_ptr().write_bytes(0xff, layout.size()) };
        Some(HostMemory { ptr, layout })
    }

    fn bytes(&self, n: usize) -> &[u8] {
        // SAFETY: `n` is at most the allocation's size (the buffer's
        // length); no kernel runs while the host reads (launches are
        // synchronous on the simulator).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), n) }
    }

    fn bytes_mut(&mut self, n: usize) -> &mut [u8] {
        // SAFETY: as `bytes`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), n) }
    }
}

#[cfg(feature = "sim")]
impl Drop for HostMemory {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// SAFETY: the allocation is owned by the buffer alone; shared access only
// reads it on the host, and kernels reach it as GPU kernels reach device
// memory, during a launch that borrows the buffer.
#[cfg(feature = "sim")]
unsafe impl Send for HostMemory {}
// SAFETY: `&HostMemory` gives no way to write the allocation on the host;
// a kernel writes it only during a launch that borrows the buffer mutably.
#[cfg(feature = "sim")]
unsafe impl Sync for HostMemory {}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    /// `len` elements with unspecified contents; [`Error::OutOfMemory`] when
    /// the device has no room.
    pub(crate) fn uninit(gpu: &Gpu, len: usize) -> Result<Self, Error> {
        let _entered = gpu.enter()?;
        // At least one byte, so that even an empty buffer has an address:
        // kernels take buffer views' pointers as non-null.
        let n = len.checked_mul(size_of::<T>()).map(|n| n.max(1));
        let out_of_memory = |bytes: u64| {
            let (free, total) = gpu.memory().unwrap_or((0, 0));
            Error::OutOfMemory {
                ordinal: gpu.ordinal(),
                bytes,
                free,
                total,
            }
        };
        let Some(n) = n else {
            return Err(out_of_memory(u64::MAX));
        };
        #[cfg(feature = "sim")]
        if gpu.is_simulator() {
            let bytes = HostMemory::new(n).ok_or_else(|| out_of_memory(n as u64))?;
            return Ok(Self::new(gpu, Storage::Host(bytes), len));
        }
        // SAFETY: `T: Pod` makes any byte pattern a valid value.
        let bytes = match unsafe { gpu.stream()?.alloc::<u8>(n) } {
            Ok(b) => b,
            Err(DriverError(sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY)) => {
                return Err(out_of_memory(n as u64))
            }
            Err(e) => {
                return Err(
                    gpu.driver_failure(e, || format!("allocating {n} bytes of device memory"))
                )
            }
        };
        Ok(Self::new(gpu, Storage::Cuda(gpu.bind(bytes)), len))
    }

    fn new(gpu: &Gpu, bytes: Storage, len: usize) -> Self {
        Self {
            bytes: ManuallyDrop::new(bytes),
            len,
            gpu: gpu.clone(),
            uses: Arc::new(Uses::new(gpu.clone())),
            _t: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's device address (what a kernel's pointer parameter
    /// receives). It means nothing after [`Gpu::reset`]; see
    /// [`DeviceBuffer::launch_address`].
    pub fn device_address(&self) -> u64 {
        match &*self.bytes {
            Storage::Cuda(b) => match self.gpu.stream() {
                Ok(stream) => b.device_ptr(stream).0,
                Err(_) => unreachable!("a buffer in CUDA memory belongs to a CUDA device"),
            },
            #[cfg(feature = "sim")]
            Storage::Host(h) => h.ptr.as_ptr() as u64,
        }
    }

    /// The device address to pass to a kernel: [`Error::StaleHandle`] for a
    /// buffer of a context that [`Gpu::reset`] replaced (its address could
    /// name memory of the new context), [`Error::ContextLost`] after a
    /// fault. The generated launch handles pass every buffer through here.
    pub fn launch_address(&self) -> Result<u64, Error> {
        self.gpu.check()?;
        Ok(self.device_address())
    }

    /// [`DeviceBuffer::launch_address`] for a launch of `kernel` (on its
    /// GPU) that reads the buffer: a buffer of another GPU is passed only
    /// where that GPU can reach it (peer access, which a
    /// [`GpuSet`](crate::GpuSet) of both enables); else
    /// [`Error::ForeignBuffer`]. The kernel's GPU is ordered after the
    /// other GPUs' work that writes the buffer (and, for a buffer of
    /// another GPU, after its own GPU's work), and the buffer remembers the
    /// use (see [`DeviceBuffer`]). The generated launch handles pass every
    /// read-only buffer through here, just before they queue the launch.
    pub fn launch_address_for(&self, kernel: &crate::Function) -> Result<u64, Error> {
        let address = self.checked_address_for(kernel)?;
        self.uses.used_by(kernel.gpu(), false)?;
        Ok(address)
    }

    /// [`DeviceBuffer::launch_address_for`] for a launch that may write the
    /// buffer: the kernel's GPU is ordered after every other use of it.
    /// The generated launch handles pass every writable buffer through
    /// here.
    pub fn launch_address_for_mut(&mut self, kernel: &crate::Function) -> Result<u64, Error> {
        let address = self.checked_address_for(kernel)?;
        self.uses.used_by(kernel.gpu(), true)?;
        Ok(address)
    }

    /// [`DeviceBuffer::launch_address`] where `kernel` can reach the
    /// buffer: the checks of [`DeviceBuffer::launch_address_for`], without
    /// the ordering (which a multi-grid launch makes once every grid is
    /// given).
    pub(crate) fn checked_address_for(&self, kernel: &crate::Function) -> Result<u64, Error> {
        if self.gpu.is_simulator() != kernel.gpu().is_simulator() {
            let place = |sim: bool| if sim { "the simulator" } else { "a GPU" };
            return Err(Error::InvalidLaunch {
                kernel: kernel.name().into(),
                reason: format!(
                    "it runs on {}, but a buffer passed to it lives on {}: upload the data to the \
                     device the kernel was loaded on",
                    place(kernel.gpu().is_simulator()),
                    place(self.gpu.is_simulator())
                ),
            });
        }
        let (mine, theirs) = (self.gpu.ordinal(), kernel.gpu().ordinal());
        if mine != theirs && !crate::gpu_set::peer_access(theirs, mine) {
            return Err(Error::ForeignBuffer {
                kernel: kernel.name().into(),
                kernel_gpu: theirs,
                buffer_gpu: mine,
            });
        }
        self.launch_address()
    }

    /// The record of the buffer's uses by other GPUs, for a multi-grid
    /// launch to hold until its grids are queued.
    pub(crate) fn uses(&self) -> &Arc<Uses> {
        &self.uses
    }

    /// The buffer's size in bytes (at least one: what was allocated).
    pub(crate) fn byte_len(&self) -> u64 {
        (self.len * size_of::<T>()).max(1) as u64
    }

    /// The GPU the buffer lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// `range` of the buffer's elements as a byte view, for NCCL's
    /// transfers.
    #[cfg(feature = "nccl")]
    pub(crate) fn byte_view(
        &self,
        range: std::ops::Range<usize>,
    ) -> Result<cudarc::driver::CudaView<'_, u8>, Error> {
        self.check_range(&range)?;
        let t = size_of::<T>();
        let bytes = self.bytes.cuda().ok_or_else(nccl_needs_gpu)?;
        Ok(bytes.slice(range.start * t..range.end * t))
    }

    /// `range` of the buffer's elements as a mutable byte view.
    #[cfg(feature = "nccl")]
    pub(crate) fn byte_view_mut(
        &mut self,
        range: std::ops::Range<usize>,
    ) -> Result<cudarc::driver::CudaViewMut<'_, u8>, Error> {
        self.check_range(&range)?;
        let t = size_of::<T>();
        let bytes = self.bytes.cuda_mut().ok_or_else(nccl_needs_gpu)?;
        Ok(bytes.slice_mut(range.start * t..range.end * t))
    }

    /// An error naming the buffer unless `range` lies inside it.
    #[cfg(feature = "nccl")]
    fn check_range(&self, range: &std::ops::Range<usize>) -> Result<(), Error> {
        if range.start > range.end || range.end > self.len {
            return Err(Error::Nccl {
                context: format!("a transfer of elements {range:?}"),
                message: format!(
                    "the buffer on GPU {} holds {} elements",
                    self.gpu.ordinal(),
                    self.len
                ),
            });
        }
        Ok(())
    }

    /// Overwrites the buffer with `data`, which must have the same length.
    pub fn copy_from(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                device: self.len,
                host: data.len(),
            });
        }
        // Before entering the device: the ordering takes the lock of
        // multi-grid launches, which is never taken inside a device.
        self.uses.used_by(&self.gpu, true)?;
        let _entered = self.gpu.enter()?;
        if self.len == 0 {
            return Ok(());
        }
        let src: &[u8] = bytemuck::cast_slice(data);
        match &mut *self.bytes {
            Storage::Cuda(b) => {
                let mut dst = b.slice_mut(..src.len());
                self.gpu
                    .driver(self.gpu.stream()?.memcpy_htod(src, &mut dst), || {
                        format!("copying {} bytes to the GPU", src.len())
                    })
            }
            #[cfg(feature = "sim")]
            Storage::Host(h) => {
                h.bytes_mut(src.len()).copy_from_slice(src);
                Ok(())
            }
        }
    }

    /// Overwrites the buffer with the contents of `src`, on the device.
    pub fn copy_from_device(&mut self, src: &DeviceBuffer<T>) -> Result<(), Error> {
        if src.len != self.len {
            return Err(Error::LengthMismatch {
                device: self.len,
                host: src.len,
            });
        }
        // The copy runs on this buffer's stream: it writes this buffer and
        // reads `src`, perhaps another GPU's (ordered before entering, as
        // in `copy_from`).
        self.uses.used_by(&self.gpu, true)?;
        src.uses.used_by(&self.gpu, false)?;
        let _entered = self.gpu.enter()?;
        let _src_entered = src.gpu.enter()?;
        let n = self.len * size_of::<T>();
        if n == 0 {
            return Ok(());
        }
        match (&mut *self.bytes, &*src.bytes) {
            (Storage::Cuda(to), Storage::Cuda(from)) => {
                let from = from.slice(..n);
                let mut to = to.slice_mut(..n);
                self.gpu
                    .driver(self.gpu.stream()?.memcpy_dtod(&from, &mut to), || {
                        format!("copying {n} bytes on the GPU")
                    })
            }
            #[cfg(feature = "sim")]
            (Storage::Host(to), Storage::Host(from)) => {
                to.bytes_mut(n).copy_from_slice(from.bytes(n));
                Ok(())
            }
            #[cfg(feature = "sim")]
            _ => Err(Error::NeedsGpu {
                operation: "a copy between the simulator and a GPU (copy through the host: \
                            to_vec, then copy_from)"
                    .into(),
            }),
        }
    }

    /// Sets every byte of the buffer to zero, on the device (`cuMemsetD8`,
    /// queued on the stream like a kernel: no host copy, no wait).
    pub fn zero(&mut self) -> Result<(), Error> {
        self.uses.used_by(&self.gpu, true)?;
        let _entered = self.gpu.enter()?;
        let n = self.len * size_of::<T>();
        if n == 0 {
            return Ok(());
        }
        match &mut *self.bytes {
            Storage::Cuda(b) => {
                let mut dst = b.slice_mut(..n);
                self.gpu
                    .driver(self.gpu.stream()?.memset_zeros(&mut dst), || {
                        format!("zeroing {n} bytes on the GPU")
                    })
            }
            #[cfg(feature = "sim")]
            Storage::Host(h) => {
                h.bytes_mut(n).fill(0);
                Ok(())
            }
        }
    }

    /// Copies the buffer to the host, after the work queued before it: on
    /// its GPU, and on the other GPUs whose kernels write it.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        self.uses.used_by(&self.gpu, false)?;
        // Wait first, under the deadline if one is set: the copy itself
        // would wait for the kernels before it with none.
        self.gpu.synchronize()?;
        let _entered = self.gpu.enter()?;
        let mut out = vec![T::zeroed(); self.len];
        if self.len > 0 {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
            let n = dst.len();
            match &*self.bytes {
                Storage::Cuda(b) => self
                    .gpu
                    .driver(self.gpu.stream()?.memcpy_dtoh(&b.slice(..n), dst), || {
                        format!("copying {n} bytes from the GPU")
                    })?,
                #[cfg(feature = "sim")]
                Storage::Host(h) => dst.copy_from_slice(h.bytes(n)),
            }
        }
        self.gpu.synchronize()?;
        Ok(out)
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the field is not used afterwards.
        let bytes = unsafe { ManuallyDrop::take(&mut self.bytes) };
        // Freed when the last holder of the record lets go: after the
        // other GPUs' uses, on the buffer's own stream.
        self.uses.park(bytes);
    }
}
