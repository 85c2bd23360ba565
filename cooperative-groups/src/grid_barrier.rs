//! Where a module's grid barrier counters start, chosen after it loads.
//!
//! A grid of 384 blocks or more arrives on 8 counters of the module, 8 KiB
//! apart (`cg_core::grid`). They must fall in different L2 slices, and
//! which slice an address falls in depends on where the module's global
//! lies in physical memory: at some placements two of the 8 collide, and a
//! collision costs 40-80% more a barrier. So the host times the library's
//! own kernel (grid barriers, one such entry point per cooperative kernel
//! of the module) with the counters starting at each offset of
//! [`OFFSETS`] into the module's region, and keeps the fastest. The offset
//! changes what a barrier costs, never what it does.

use crate::launch::LaunchKind;
use crate::{Error, EventTimer, Module};
use cg_core::grid::layout::{
    CALIBRATE_ENTRY, COUNTERS_SYMBOL, OFFSETS, OFFSET_SYMBOL, SPREAD_FROM_BLOCKS,
};
use std::ffi::c_void;

/// Threads per block of the timed launches: 256, on the largest grid the
/// GPU holds (a GPU of 48 SMs or more runs the 384 blocks from which the
/// counters are used): several blocks a SM, whose atomics queue where two
/// counters share an L2 slice.
const THREADS: u32 = 256;

/// Grid barriers per timed launch: about 0.1-0.2 ms each.
const BARRIERS: u32 = 100;

/// Timed launches per offset (the median counts), after one untimed.
const RUNS: usize = 3;

/// The variable that fixes the offset instead of timing the candidates:
/// one of [`OFFSETS`] (in bytes). For reproducible measurements, and for
/// runs under compute-sanitizer, where the dozen timed launches of every
/// module load would take minutes.
pub const OFFSET_VAR: &str = "CG_GRID_BARRIER_OFFSET";

/// Times each offset on `module` and leaves the fastest in its `.global`
/// word, with the counters zeroed; with [`OFFSET_VAR`] set, that offset
/// untimed. `None` where none was set: the module has no cooperative
/// kernel (no calibration entry), or the GPU cannot run the
/// [`SPREAD_FROM_BLOCKS`] blocks from which the counters are used (the
/// module's first offset stays).
pub(crate) fn choose_offset(module: &Module) -> Result<Option<u32>, Error> {
    let Some(entry) = module
        .entry_points()
        .iter()
        .find(|e| e.starts_with(CALIBRATE_ENTRY))
    else {
        return Ok(None);
    };
    if let Some(offset) = offset_from_env()? {
        set_offset(module, offset)?;
        module.gpu().synchronize()?;
        return Ok(Some(offset));
    }
    let function = module.function(entry, LaunchKind::Cooperative)?;
    let config = function.cooperative_config(THREADS, 0)?;
    if config.num_blocks() < u64::from(SPREAD_FROM_BLOCKS) {
        return Ok(None);
    }
    let gpu = module.gpu();
    let timer = EventTimer::new(gpu)?;
    let mut fastest: Option<(f64, u32)> = None;
    for offset in OFFSETS {
        set_offset(module, offset)?;
        let ms = timer.median_ms(1, RUNS, || {
            let mut iters = BARRIERS;
            let mut params = [&mut iters as *mut u32 as *mut c_void];
            // SAFETY: the calibration entry takes one `u32` (the number of
            // barriers) and touches no memory but the module's counters;
            // it reaches grid barriers only, so it is launched
            // cooperatively.
            unsafe { function.launch(config, &mut params) }
        })?;
        if fastest.is_none_or(|(best, _)| ms < best) {
            fastest = Some((ms, offset));
        }
    }
    let offset = fastest.map_or(OFFSETS[0], |(_, o)| o);
    set_offset(module, offset)?;
    gpu.synchronize()?;
    Ok(Some(offset))
}

/// Writes `offset` to the module's `.global` offset word and zeroes its counters'
/// region (counters from another offset share words with these, at other
/// phases), queued on the GPU's stream behind any launch before.
pub(crate) fn set_offset(module: &Module, offset: u32) -> Result<(), Error> {
    let gpu = module.gpu();
    let cuda = module.cuda_module("setting where the grid barrier's counters start")?;
    let _entered = gpu.enter()?;
    let stream = gpu.stream()?;
    gpu.driver(gpu.context()?.bind_to_thread(), || {
        "binding the context".into()
    })?;
    let mut counters = gpu.driver(cuda.get_global(COUNTERS_SYMBOL, stream), || {
        format!("finding the module's grid barrier counters ({COUNTERS_SYMBOL})")
    })?;
    gpu.driver(stream.memset_zeros(&mut counters), || {
        "zeroing the module's grid barrier counters".into()
    })?;
    let mut word = gpu.driver(cuda.get_global(OFFSET_SYMBOL, stream), || {
        format!("finding the module's grid barrier offset ({OFFSET_SYMBOL})")
    })?;
    gpu.driver(
        stream.memcpy_htod(&offset.to_ne_bytes()[..], &mut word),
        || "setting where the module's grid barrier counters start".into(),
    )
}

/// [`OFFSET_VAR`]'s offset, if it is set; an error names a value that is
/// not one of [`OFFSETS`].
fn offset_from_env() -> Result<Option<u32>, Error> {
    std::env::var(OFFSET_VAR)
        .ok()
        .map(|value| parse_offset(&value))
        .transpose()
}

/// A value of [`OFFSET_VAR`] as an offset of [`OFFSETS`].
fn parse_offset(value: &str) -> Result<u32, Error> {
    match value.trim().parse::<u32>() {
        Ok(o) if OFFSETS.contains(&o) => Ok(o),
        _ => Err(Error::Environment {
            variable: OFFSET_VAR.into(),
            value: value.into(),
            expected: format!(
                "where the grid barrier's counters start in their region, in bytes, is one of \
                 {OFFSETS:?}; unset it to let each module time them and keep the fastest"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_variable_takes_the_offsets_only() {
        for o in OFFSETS {
            assert_eq!(parse_offset(&o.to_string()).unwrap(), o);
        }
        assert_eq!(parse_offset(" 32768\n").unwrap(), 32768);
        for bad in ["", "1", "4096", "32 KiB", "-32768", "3e4"] {
            let e = parse_offset(bad).unwrap_err().to_string();
            assert!(
                e.contains(OFFSET_VAR) && e.contains("[0, 32768, 65536]") && e.contains("unset"),
                "{bad:?}: {e}"
            );
        }
    }
}
