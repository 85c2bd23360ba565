//! What a kernel leaves behind when it stops on a panic or on one of this
//! crate's checks, so that the host can say where and why.
//!
//! A trap ends the launch with nothing but "unspecified launch failure" and
//! leaves the CUDA context unusable, device memory included. So before the
//! trap, the first thread to stop writes a [`FaultRecord`] to host memory
//! that the host mapped into the device's address space (pinned, so it
//! outlives the context): the source location, the block and thread, and
//! where the message lies in the module's constant data. The host then
//! names the message from the module's own PTX (the way `defmt` names an
//! embedded device's log strings from its ELF file), so the device copies no
//! text and formats nothing.
//!
//! Two module globals tie this together, declared here with `global_asm!`:
//!
//! * `cg_fault_record`: the record's device address, set by the host after
//!   it loads the module (0: no record, the kernel only traps);
//! * `cg_fault_claim`: a word in device memory that the first thread to stop
//!   takes with a compare-and-swap, so that no other thread overwrites its
//!   record. The others wait until the record is complete, then trap too
//!   (a trap anywhere ends the whole grid).
//!
//! Everything here is on the path to a trap, reached only from `#[cold]`
//! branches: `report` is one `#[inline(never)]` function, so a kernel
//! that does not stop runs exactly the instructions it ran before.

/// [`FaultRecord::state`] once the record is complete.
pub const RECORD_WRITTEN: u32 = 0x4347_5046;

/// [`FaultRecord::kind`]: a Rust panic (a bounds check, `unwrap` on `None`,
/// `assert!`, `panic!`, an arithmetic overflow checked in debug builds).
pub const KIND_PANIC: u32 = 1;

/// [`FaultRecord::kind`]: one of this crate's checks failed (for example
/// `grid.sync()` in a kernel not launched cooperatively); the message names
/// the check.
pub const KIND_CHECK: u32 = 2;

/// [`FaultRecord::message_len`] of a panic: the message is either a
/// `&'static str` or the template of a formatted message, and only the
/// module's PTX tells which (and how long).
pub const MESSAGE_LEN_UNKNOWN: u64 = u64::MAX;

/// The names of the module globals (see the module documentation).
pub const RECORD_SYMBOL: &str = "cg_fault_record";

/// See [`RECORD_SYMBOL`].
pub const CLAIM_SYMBOL: &str = "cg_fault_claim";

/// The table `cg-builder` appends to the PTX: the device addresses of the
/// module's byte arrays (string literals, file names, format templates), in
/// the order of their declarations, through which the host names the
/// addresses a [`FaultRecord`] holds.
pub const STRINGS_SYMBOL: &str = "cg_fault_strings";

/// What the first thread to stop writes to the host, in host-mapped memory.
///
/// Addresses are device addresses in the module's constant data; the host
/// resolves them through the table `cg-builder` appends to the PTX
/// (`cg_fault_strings`). The layout suits the device's vector stores: the
/// fewer values the reporting code holds at once, the fewer registers it
/// adds to the kernels that can reach it.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultRecord {
    /// `%ctaid` of the thread that stopped.
    pub block: [u32; 3],
    /// Its `%tid`.
    pub thread: [u32; 3],
    /// [`KIND_PANIC`] or [`KIND_CHECK`].
    pub kind: u32,
    /// Source line of the panic or of the call that failed the check.
    pub line: u32,
    /// Device address of the source file's name.
    pub file: u64,
    /// Its length in bytes.
    pub file_len: u64,
    /// Device address of the message (0: unknown).
    pub message: u64,
    /// Its length in bytes, or [`MESSAGE_LEN_UNKNOWN`].
    pub message_len: u64,
    /// Source column.
    pub column: u32,
    /// [`RECORD_WRITTEN`] once every other field is written and visible.
    pub state: u32,
    /// Keeps the size a multiple of the alignment.
    pub _reserved: [u32; 2],
}

pub use device::{check, check_failed, trap};

#[cfg(target_arch = "nvptx64")]
pub(crate) use device::report_panic;

// The record is written on the GPU only.
#[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
mod device {
    use super::*;
    use crate::intrinsics::atom::{fence_sc, Scope};
    use crate::intrinsics::{self, fault as insn};
    use core::panic::Location;
    #[cfg(target_arch = "nvptx64")]
    use core::{
        mem::{size_of, transmute_copy},
        panic::{PanicInfo, PanicMessage},
    };

    /// `cg_fault_claim` while a thread writes its record, and once it is done.
    const CLAIMED: u32 = 1;
    const DONE: u32 = 2;

    /// Stops the kernel at once (`trap`), leaving no record: the launch
    /// fails with CUDA's unspecified launch failure. [`check_failed`] says
    /// why as well.
    #[inline(always)]
    pub fn trap() -> ! {
        intrinsics::trap()
    }

    /// Stops the kernel because the check named `what` failed, recording the
    /// caller's location. `what` says what was wrong and how to fix it.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn check_failed(what: &'static str) -> ! {
        // Off the GPU (the simulator), a failed check is a Rust panic.
        #[cfg(not(target_arch = "nvptx64"))]
        panic!("{what}");
        #[cfg(target_arch = "nvptx64")]
        report(
            KIND_CHECK,
            Location::caller(),
            what.as_ptr() as u64,
            what.len() as u64,
        )
    }

    /// `if !holds { check_failed(what) }`: the check itself stays inline,
    /// the report is out of line.
    #[inline(always)]
    #[track_caller]
    pub fn check(holds: bool, what: &'static str) {
        if !holds {
            check_failed(what)
        }
    }

    /// The panic handler's work: the location and the message's template.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn report_panic(info: &PanicInfo<'_>) -> ! {
        // Panics always carry a location; the fallback keeps this total.
        let at = info.location().unwrap_or(Location::caller());
        report(KIND_PANIC, at, message_template(info), MESSAGE_LEN_UNKNOWN)
    }

    /// The device address of the panic message's template: the bytes of a
    /// static message, or the encoded pieces of a formatted one; 0 where
    /// `core::fmt::Arguments` is not laid out as expected.
    ///
    /// `Arguments` is two words: the template, and either the static
    /// message's length (tagged in bit 0) or a pointer to the formatted
    /// values. Only the template is read: reading the other word would keep
    /// every formatted panic's values, and the code that formats them,
    /// alive in every kernel that can panic. The layout is core's private
    /// one; the size checks and the probe with a static message (whose
    /// length word is known) fold to constants and turn this off, not
    /// wrong, if it changes.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn message_template(info: &PanicInfo<'_>) -> u64 {
        if size_of::<core::fmt::Arguments<'_>>() != 2 * size_of::<u64>()
            || size_of::<PanicMessage<'_>>() != size_of::<u64>()
        {
            return 0;
        }
        // SAFETY: both have the size of the type read (checked above), and
        // every bit pattern of the words read is a valid `u64`.
        let probe: [u64; 2] = unsafe { transmute_copy(&format_args!("ab")) };
        if probe[1] != (2 << 1 | 1) {
            return 0;
        }
        let message = info.message();
        // SAFETY: a `PanicMessage` is one reference to the `Arguments`
        // (its size was checked above); the `Arguments` lives for the call.
        let arguments: &core::fmt::Arguments<'_> = unsafe { transmute_copy(&message) };
        // SAFETY: as for the probe.
        let words: [u64; 2] = unsafe { transmute_copy(arguments) };
        words[0]
    }

    /// Records the fault (when this thread is the first to stop and the
    /// host set a record) and traps.
    #[cold]
    #[inline(never)]
    fn report(kind: u32, at: &Location<'_>, message: u64, message_len: u64) -> ! {
        // The claim admits one writer: the first thread of the module to stop.
        if insn::claim_cas(CLAIMED) == 0 {
            let record = insn::record_address() as *mut FaultRecord;
            if !record.is_null() {
                let [bx, by, bz] = intrinsics::block_idx();
                let [tx, ty, tz] = intrinsics::thread_idx();
                // SAFETY: the record address is the host-mapped record the
                // host stored before launch (16-byte aligned, as
                // `FaultRecord` is), which no other thread writes: this one
                // holds the claim.
                unsafe {
                    let r = &raw mut (*record).block as *mut u32;
                    insn::store_v4(r, [bx, by, bz, tx]);
                    insn::store_v4(r.add(4), [ty, tz, kind, at.line()]);
                    let file = at.file();
                    insn::store_v2_u64(
                        &raw mut (*record).file,
                        [file.as_ptr() as u64, file.len() as u64],
                    );
                    insn::store_v2_u64(&raw mut (*record).message, [message, message_len]);
                    insn::store_u32(&raw mut (*record).column, at.column());
                    // Everything above reaches host memory before the state.
                    fence_sc(Scope::Sys);
                    insn::store_u32(&raw mut (*record).state, RECORD_WRITTEN);
                    fence_sc(Scope::Sys);
                }
            }
            insn::claim_store_release(DONE);
        } else {
            // Spin until the thread that took the claim has written its
            // record.
            while insn::claim_load_acquire() != DONE {
                insn::nanosleep_1us();
            }
        }
        intrinsics::trap()
    }
}
