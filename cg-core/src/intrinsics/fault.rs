//! The instructions behind [`crate::fault`]: the module globals a stopping
//! kernel writes through, and the system-scope stores to host memory.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(
    ".visible .global .align 8 .u64 cg_fault_record = 0;",
    ".visible .global .align 4 .u32 cg_fault_claim = 0;",
);

/// `atom.relaxed.gpu.global.cas.b32` on `cg_fault_claim`: stores `new`
/// where the claim holds 0; returns the old value.
#[inline(always)]
pub(crate) fn claim_cas(new: u32) -> u32 {
    device!("atom.relaxed.gpu.global.cas.b32", {
        let old: u32;
        // SAFETY: the module global declared above, a 4-byte-aligned word
        // only ever accessed atomically.
        unsafe {
            asm!(
                "atom.relaxed.gpu.global.cas.b32 {old}, [cg_fault_claim], {free}, {c};",
                old = out(reg32) old,
                free = in(reg32) 0u32,
                c = in(reg32) new,
                options(nostack),
            )
        };
        old
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `st.release.gpu.global.u32` of `v` to `cg_fault_claim`.
#[inline(always)]
pub(crate) fn claim_store_release(v: u32) {
    device!("st.release.gpu.global.u32", {
        // SAFETY: as `claim_cas`.
        unsafe {
            asm!("st.release.gpu.global.u32 [cg_fault_claim], {d};", d = in(reg32) v, options(nostack))
        };
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `ld.acquire.gpu.global.u32` of `cg_fault_claim`.
#[inline(always)]
pub(crate) fn claim_load_acquire() -> u32 {
    device!("ld.acquire.gpu.global.u32", {
        let state: u32;
        // SAFETY: as `claim_cas`.
        unsafe {
            asm!("ld.acquire.gpu.global.u32 {s}, [cg_fault_claim];", s = out(reg32) state, options(nostack))
        };
        state
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `ld.relaxed.gpu.global.u64` of `cg_fault_record`.
#[inline(always)]
pub(crate) fn record_address() -> u64 {
    device!("ld.relaxed.gpu.global.u64", {
        let address: u64;
        // SAFETY: the module global declared above, 8-byte aligned.
        unsafe {
            asm!("ld.relaxed.gpu.global.u64 {a}, [cg_fault_record];", a = out(reg64) address, options(nostack))
        };
        address
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `nanosleep.u32 1000`: the thread sleeps for about a microsecond.
#[inline(always)]
pub(crate) fn nanosleep_1us() {
    device!("nanosleep.u32", {
        // SAFETY: no operands.
        unsafe { asm!("nanosleep.u32 1000;", options(nostack)) };
    }, sim: { cg_sim::device::spin() })
}

/// `st.relaxed.sys.u32`: a store to host memory, visible at system scope
/// (after a fence).
///
/// # Safety
/// `p` must be a valid, 4-byte-aligned address of host-mapped memory that
/// no other thread accesses meanwhile.
#[inline(always)]
pub(crate) unsafe fn store_u32(p: *mut u32, v: u32) {
    device!("st.relaxed.sys.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!("st.relaxed.sys.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack));
        }
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `st.relaxed.sys.v4.u32`: four words to host memory, visible at system
/// scope (after a fence).
///
/// # Safety
/// As [`store_u32`], for 16 bytes at a 16-byte-aligned `p`.
#[inline(always)]
pub(crate) unsafe fn store_v4(p: *mut u32, [a, b, c, d]: [u32; 4]) {
    device!("st.relaxed.sys.v4.u32", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!(
                "st.relaxed.sys.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
                p = in(reg64) p,
                a = in(reg32) a,
                b = in(reg32) b,
                c = in(reg32) c,
                d = in(reg32) d,
                options(nostack),
            );
        }
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}

/// `st.relaxed.sys.v2.u64`: two 64-bit words to host memory, as
/// [`store_v4`].
///
/// # Safety
/// As [`store_v4`].
#[inline(always)]
pub(crate) unsafe fn store_v2_u64(p: *mut u64, [a, b]: [u64; 2]) {
    device!("st.relaxed.sys.v2.u64", {
        // SAFETY: the instruction's contract is this function's `# Safety`,
        // which its caller upholds.
        unsafe {
            asm!(
                "st.relaxed.sys.v2.u64 [{p}], {{{a}, {b}}};",
                p = in(reg64) p,
                a = in(reg64) a,
                b = in(reg64) b,
                options(nostack),
            );
        }
    }, sim: { unreachable!("the fault record is written on the GPU only; the simulator reports a failed check as a panic") })
}
