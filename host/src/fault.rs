//! Kernel faults: the record a stopping kernel leaves in host-mapped memory
//! (`cg_core::fault`), which driver errors mean that a kernel faulted and
//! the context is lost, and the errors the host makes of them.

use crate::strings::{decode_panic_message, ModuleStrings, PanicMessage};
use crate::Error;
use cg_core::fault::{FaultRecord, KIND_CHECK, MESSAGE_LEN_UNKNOWN, RECORD_WRITTEN};
use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{result, CudaContext, DriverError};
use std::sync::Arc;

/// A [`FaultRecord`] in pinned host memory mapped into the device's address
/// space: the device writes it before it traps, and it stays readable after
/// the context is lost (device memory does not).
pub(crate) struct FaultSink {
    host: *mut FaultRecord,
    device: u64,
    ctx: Arc<CudaContext>,
}

// SAFETY: the record is plain memory; the host only reads it (volatile),
// and only after the kernel that wrote it has stopped.
unsafe impl Send for FaultSink {}
// SAFETY: as above.
unsafe impl Sync for FaultSink {}

impl FaultSink {
    /// An empty record, allocated in `ctx`.
    pub(crate) fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let bytes = size_of::<FaultRecord>();
        // SAFETY: a fresh allocation of `bytes`, page-aligned (so aligned
        // for the record), written only through this pointer until the
        // device address is handed out.
        unsafe {
            let host =
                result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP)? as *mut FaultRecord;
            host.write_volatile(FaultRecord::default());
            let mut device = 0;
            if let Err(e) = sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0).result()
            {
                let _ = result::free_host(host.cast());
                return Err(e);
            }
            Ok(Self {
                host,
                device,
                ctx: ctx.clone(),
            })
        }
    }

    /// The device address a module's `cg_fault_record` is set to.
    pub(crate) fn device_address(&self) -> u64 {
        self.device
    }

    /// The record, once a kernel has written all of it.
    pub(crate) fn read(&self) -> Option<FaultRecord> {
        // SAFETY: the allocation lives as long as `self`; the device wrote
        // the state last, after a system-scope fence.
        unsafe {
            if std::ptr::addr_of!((*self.host).state).read_volatile() != RECORD_WRITTEN {
                return None;
            }
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            Some(self.host.read_volatile())
        }
    }
}

impl Drop for FaultSink {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: allocated by `malloc_host` in `new`, freed once. (A sink of
        // a context that was reset is leaked instead, by its `ContextBound`.)
        let _ = unsafe { result::free_host(self.host.cast()) };
    }
}

/// What a driver error says about the context: `Some` for the errors a
/// faulting kernel leaves, which every later call in the context repeats
/// (the context is lost): what the fault is, and what causes it and how to
/// find where.
pub(crate) fn lost_context_fault(code: CUresult) -> Option<(&'static str, &'static str)> {
    use sys::cudaError_enum as E;
    Some(match code {
        E::CUDA_ERROR_ILLEGAL_ADDRESS => (
            "an illegal memory access",
            "a load or store outside every allocation, for example through a raw pointer past its \
             buffer. The driver does not report the address: run the program under \
             `compute-sanitizer --tool memcheck` to see it and the instruction",
        ),
        E::CUDA_ERROR_LAUNCH_FAILED => (
            "a trap that left no fault record",
            "a `trap` instruction outside cg-core's checks and panics, or a kernel not built with \
             cg-core, so no location is known",
        ),
        E::CUDA_ERROR_MISALIGNED_ADDRESS => (
            "a misaligned memory access",
            "an address that is not a multiple of the access size, for example a pointer cast to a \
             wider type; `compute-sanitizer --tool memcheck` names it",
        ),
        E::CUDA_ERROR_INVALID_ADDRESS_SPACE => (
            "an access to the wrong memory space",
            "an address of one state space used as another's (for example a shared address as a \
             global one)",
        ),
        E::CUDA_ERROR_ILLEGAL_INSTRUCTION => (
            "an illegal instruction",
            "an instruction the GPU cannot run (inline assembly for a newer architecture, for example)",
        ),
        E::CUDA_ERROR_INVALID_PC => ("an invalid program counter", "a jump to an invalid address"),
        E::CUDA_ERROR_HARDWARE_STACK_ERROR => (
            "a hardware stack error",
            "a call stack overflow, for example by deep recursion",
        ),
        E::CUDA_ERROR_ASSERT => ("a device-side assertion", "an `assert` in device code failed"),
        E::CUDA_ERROR_LAUNCH_TIMEOUT => (
            "the display watchdog",
            "the kernel ran too long on a GPU that drives a display",
        ),
        E::CUDA_ERROR_ECC_UNCORRECTABLE => (
            "an uncorrectable ECC error",
            "device memory failed; the GPU may need attention (`nvidia-smi -q -d ECC`)",
        ),
        _ => return None,
    })
}

/// The name of a driver error code, as the driver spells it.
pub(crate) fn code_name(code: CUresult) -> String {
    format!("{code:?}")
}

/// Where the last kernels came from, for naming the one that faulted.
pub(crate) struct LaunchTrail<'a> {
    /// The last kernel launched.
    pub(crate) last: &'a str,
    /// Kernels launched since the last wait that succeeded (the fault is in
    /// one of them, the last as a rule).
    pub(crate) since_wait: u32,
}

/// The error for a fault the driver reported as `code`: a panic or failed
/// check when the device left a record, else the fault `code` names.
pub(crate) fn fault_error(
    ordinal: usize,
    code: CUresult,
    record: Option<FaultRecord>,
    trail: LaunchTrail<'_>,
    strings: &[Arc<ModuleStrings>],
) -> Error {
    let kernel = trail.last.to_string();
    let earlier_launches = trail.since_wait.saturating_sub(1);
    match record {
        Some(r) => {
            let file = strings
                .iter()
                .find_map(|s| s.string_at(r.file, r.file_len as usize))
                .unwrap_or_else(|| "<unknown file>".into());
            Error::KernelPanic {
                kernel,
                earlier_launches,
                file,
                line: r.line,
                column: r.column,
                block: r.block,
                thread: r.thread,
                message: panic_message(&r, strings),
                check: r.kind == KIND_CHECK,
                ordinal,
            }
        }
        None => {
            let (fault, hint) = lost_context_fault(code).unwrap_or(("a fault", "see the code"));
            Error::KernelFault {
                kernel,
                earlier_launches,
                code: code_name(code),
                fault: fault.into(),
                hint: hint.into(),
                ordinal,
            }
        }
    }
}

/// The message of a record: a check's own, a panic's static message, or a
/// formatted panic's template with `{}` for its values.
fn panic_message(r: &FaultRecord, strings: &[Arc<ModuleStrings>]) -> String {
    let unknown = || "(the message could not be found in the module)".to_string();
    if r.message == 0 {
        return unknown();
    }
    if r.message_len != MESSAGE_LEN_UNKNOWN {
        return strings
            .iter()
            .find_map(|s| s.string_at(r.message, r.message_len as usize))
            .unwrap_or_else(unknown);
    }
    match strings.iter().find_map(|s| s.bytes_at(r.message)) {
        Some(bytes) => match decode_panic_message(&bytes) {
            PanicMessage::Static(m) => m,
            PanicMessage::Formatted(m) => {
                format!("{m} (each {{}} is a value the GPU does not keep)")
            }
        },
        None => unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::cudaError_enum as E;

    /// Only the errors of a faulting kernel mean the context is lost; the
    /// errors of a bad call do not.
    #[test]
    fn only_kernel_faults_lose_the_context() {
        for code in [
            E::CUDA_ERROR_ILLEGAL_ADDRESS,
            E::CUDA_ERROR_LAUNCH_FAILED,
            E::CUDA_ERROR_MISALIGNED_ADDRESS,
            E::CUDA_ERROR_ILLEGAL_INSTRUCTION,
            E::CUDA_ERROR_HARDWARE_STACK_ERROR,
        ] {
            assert!(lost_context_fault(code).is_some(), "{code:?}");
        }
        for code in [
            E::CUDA_ERROR_OUT_OF_MEMORY,
            E::CUDA_ERROR_INVALID_VALUE,
            E::CUDA_ERROR_INVALID_PTX,
            E::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            E::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
            E::CUDA_ERROR_NOT_FOUND,
            E::CUDA_ERROR_NOT_READY,
        ] {
            assert!(lost_context_fault(code).is_none(), "{code:?}");
        }
        assert!(lost_context_fault(E::CUDA_ERROR_ILLEGAL_ADDRESS)
            .unwrap()
            .1
            .contains("compute-sanitizer --tool memcheck"));
    }

    #[test]
    fn a_record_names_its_file_message_block_and_thread() {
        let ptx = "\
.global .align 1 .b8 f[22] = {107, 101, 114, 110, 101, 108, 115, 47, 115, 114, 99, 47, 102, 97, 117, 108, 116, 115, 46, 114, 115, 0};
.global .align 1 .b8 m[3] = {98, 97, 100};
.visible .global .align 8 .u64 cg_fault_strings[2] = {generic(f), generic(m)};
";
        let strings = [Arc::new(ModuleStrings::new(ptx.into(), vec![0x100, 0x200]))];
        let record = FaultRecord {
            block: [1, 2, 0],
            thread: [5, 3, 0],
            kind: cg_core::fault::KIND_PANIC,
            line: 21,
            column: 13,
            file: 0x100,
            file_len: 21,
            message: 0x200,
            message_len: MESSAGE_LEN_UNKNOWN,
            state: RECORD_WRITTEN,
            ..FaultRecord::default()
        };
        let trail = LaunchTrail {
            last: "k",
            since_wait: 1,
        };
        let e = fault_error(
            0,
            E::CUDA_ERROR_LAUNCH_FAILED,
            Some(record),
            trail,
            &strings,
        );
        let text = e.to_string();
        assert!(
            text.starts_with(
                "kernel `k` panicked at kernels/src/faults.rs:21:13, block (1, 2, 0), thread (5, 3, 0):\nbad\n"
            ),
            "{text}"
        );
        assert!(text.contains("Gpu::reset"), "{text}");
        let trail = LaunchTrail {
            last: "k",
            since_wait: 3,
        };
        let e = fault_error(0, E::CUDA_ERROR_ILLEGAL_ADDRESS, None, trail, &strings);
        let text = e.to_string();
        assert!(
            text.starts_with("kernel `k` (or one of the 2 launched before it since the last completed wait) stopped on an illegal memory access (CUDA_ERROR_ILLEGAL_ADDRESS): a load or store"),
            "{text}"
        );
    }
}
