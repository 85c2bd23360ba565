//! The spacing of a module's grid barrier counters, chosen after it loads.
//!
//! A grid of 384 blocks or more arrives on 8 counters of the module
//! (`cg_core::grid`). They must fall in different L2 slices, and which
//! slice an address falls in depends on where the module's global lies in
//! physical memory: 4 KiB apart the counters collide at some placements, 8
//! KiB apart at others, and a collision costs 60-80% more a barrier. So
//! the host times the library's own kernel (`iters` grid barriers, one
//! per cooperative kernel of the module) for each spacing of
//! [`SPACINGS`] and keeps the fastest. The spacing changes what a barrier
//! costs, never what it does.

use crate::launch::LaunchKind;
use crate::{Error, EventTimer, Module};
use cg_core::grid::layout::{CALIBRATE_ENTRY, COUNTERS_SYMBOL, SPACINGS, SPACING_SYMBOL};
use std::ffi::c_void;

/// Threads per block of the timed launches: 256, so that a GPU of 48 SMs
/// or more runs the 384 blocks from which the counters are used.
const THREADS: u32 = 256;

/// Grid barriers per timed launch: about 0.1-0.2 ms each.
const BARRIERS: u32 = 100;

/// The variable that fixes the spacing instead of timing the candidates:
/// one of [`SPACINGS`] (in 32-bit words). For reproducible measurements,
/// and for runs under compute-sanitizer, where the dozen timed launches
/// of every module load would take minutes.
pub const SPACING_VAR: &str = "CG_GRID_BARRIER_SPACING";

/// Timed launches per spacing (the median counts), after one untimed.
const RUNS: usize = 3;

/// The fewest blocks whose barrier uses the counters
/// (`cg_core::grid`'s `SPREAD_FROM_BLOCKS`).
const SPREAD_FROM_BLOCKS: u32 = 384;

/// Times each spacing on `module` and leaves the fastest in its `.const`
/// word, with the counters zeroed; with [`SPACING_VAR`] set, that spacing
/// untimed. `None` where none was set: the module has no cooperative
/// kernel (no calibration entry), or the GPU cannot run the 384 blocks
/// from which the counters are used (the module's default spacing stays,
/// unused).
pub(crate) fn choose_spacing(module: &Module) -> Result<Option<u32>, Error> {
    let Some(entry) = module
        .entry_points()
        .iter()
        .find(|e| e.starts_with(CALIBRATE_ENTRY))
    else {
        return Ok(None);
    };
    if let Some(spacing) = spacing_from_env()? {
        set_spacing(module, spacing)?;
        module.gpu().synchronize()?;
        return Ok(Some(spacing));
    }
    let function = module.function(entry, LaunchKind::Cooperative)?;
    let config = function.cooperative_config(THREADS, 0)?;
    if config.num_blocks() < u64::from(SPREAD_FROM_BLOCKS) {
        return Ok(None);
    }
    let gpu = module.gpu();
    let timer = EventTimer::new(gpu)?;
    let mut fastest: Option<(f64, u32)> = None;
    for spacing in SPACINGS {
        set_spacing(module, spacing)?;
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
            fastest = Some((ms, spacing));
        }
    }
    let spacing = fastest.map_or(SPACINGS[0], |(_, s)| s);
    set_spacing(module, spacing)?;
    gpu.synchronize()?;
    Ok(Some(spacing))
}

/// Writes `spacing` to the module's `.const` word and zeroes its counters
/// (counters of another spacing share words with these, at other phases),
/// queued on the GPU's stream behind any launch before.
pub(crate) fn set_spacing(module: &Module, spacing: u32) -> Result<(), Error> {
    let gpu = module.gpu();
    let cuda = module.cuda_module("setting the grid barrier's spacing")?;
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
    let mut word = gpu.driver(cuda.get_global(SPACING_SYMBOL, stream), || {
        format!("finding the module's grid barrier spacing ({SPACING_SYMBOL})")
    })?;
    gpu.driver(
        stream.memcpy_htod(&spacing.to_ne_bytes()[..], &mut word),
        || "setting the module's grid barrier spacing".into(),
    )
}

/// [`SPACING_VAR`]'s spacing, if it is set; an error names a value that is
/// not one of [`SPACINGS`].
fn spacing_from_env() -> Result<Option<u32>, Error> {
    std::env::var(SPACING_VAR)
        .ok()
        .map(|value| parse_spacing(&value))
        .transpose()
}

/// A value of [`SPACING_VAR`] as a spacing of [`SPACINGS`].
fn parse_spacing(value: &str) -> Result<u32, Error> {
    match value.trim().parse::<u32>() {
        Ok(s) if SPACINGS.contains(&s) => Ok(s),
        _ => Err(Error::Environment {
            variable: SPACING_VAR.into(),
            value: value.into(),
            expected: format!(
                "the spacing of the grid barrier's counters, in 32-bit words, is one of \
                 {SPACINGS:?}; unset it to let each module time them and keep the fastest"
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spacing_variable_takes_the_spacings_only() {
        for s in SPACINGS {
            assert_eq!(parse_spacing(&s.to_string()).unwrap(), s);
        }
        assert_eq!(parse_spacing(" 2048\n").unwrap(), 2048);
        for bad in ["", "0", "4096", "1024 words", "-1024", "1e3"] {
            let e = parse_spacing(bad).unwrap_err().to_string();
            assert!(
                e.contains(SPACING_VAR) && e.contains("[1024, 2048, 3072]") && e.contains("unset"),
                "{bad:?}: {e}"
            );
        }
    }
}
