//! A simulated thread that overflows its stack hits the stack's guard page:
//! a segmentation fault, which would end the process without a word. This
//! handler says what happened first, when the fault is in a simulated
//! thread, and leaves every other fault to the handler it replaced (Rust's
//! own, which names the overflow of an OS thread's stack).

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

static INSTALLED: AtomicBool = AtomicBool::new(false);
static mut PREVIOUS: MaybeUninit<libc::sigaction> = MaybeUninit::uninit();

const MESSAGE: &[u8] =
    b"\ncg-sim: a simulated thread overflowed its stack (or faulted on memory). \
Give simulated threads larger stacks with CG_SIM_STACK_KIB (default 1024), or look for deep \
recursion in the kernel; a wild raw-pointer access faults the same way.\n";

extern "C" fn on_fault(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    if crate::device::inside() {
        // SAFETY: write(2) of a static buffer is async-signal-safe.
        unsafe { libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len()) };
    }
    // SAFETY: PREVIOUS was written before this handler was installed and
    // never changes after; calling the previous handler (or restoring the
    // default action, so that the faulting instruction faults again and
    // ends the process) is what a chained handler does.
    unsafe {
        let previous = (*std::ptr::addr_of!(PREVIOUS)).assume_init_ref();
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            libc::signal(signal, libc::SIG_DFL);
        } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(handler);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(signal);
        }
    }
}

/// Installs the handler for SIGSEGV (once per process).
pub(crate) fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: sigaction with a zeroed, then filled, action; the previous
    // action is stored before the new handler can run. The handler runs on
    // the alternate signal stack Rust's runtime gives each thread it starts
    // (SA_ONSTACK), since the faulting stack has no room left.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fault as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut previous) == 0 {
            (*std::ptr::addr_of_mut!(PREVIOUS)).write(previous);
            libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
        }
    }
}
