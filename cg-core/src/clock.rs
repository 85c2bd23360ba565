//! The GPU's clocks.

use crate::intrinsics;

/// `%globaltimer`: nanoseconds on a clock shared by the whole GPU (CUDA
/// reads it for `cuda::std::chrono::system_clock`). Its resolution is the
/// driver's choice (about a microsecond on current GPUs).
///
/// ```ignore
/// let start = globaltimer();
/// while globaltimer().wrapping_sub(start) < ns {}
/// ```
#[inline(always)]
pub fn globaltimer() -> u64 {
    intrinsics::globaltimer()
}
