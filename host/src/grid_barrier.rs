//! Where a GPU's grid barriers count: one region of counters per GPU, the
//! place in it where the barrier runs fastest, and every module with a
//! grid barrier pointed at that place.
//!
//! `grid.sync()` spreads its arrivals over 16 counters 4 KiB apart
//! (`cg_core::grid`). They must fall in different L2 slices, and which
//! slice an address falls in depends on where the memory lies physically:
//! at some places two counters share a slice, and a barrier costs up to
//! twice as much. So when the first module with a grid barrier loads on a
//! GPU, the host allocates room for [`SLOTS`] places, times the library's
//! own barrier kernel (hand-written PTX, `grid_barrier.ptx`) at each, and
//! keeps the fastest; every such module's word `cg_grid_barrier` is set to
//! it. The place changes what a barrier costs, never what it does.
//!
//! One region serves every module of the GPU: all work on a GPU runs on
//! one stream, so one cooperative launch runs at a time, and a barrier
//! leaves the counters as it found them but for their phase bytes, which
//! every grid reads before it waits.

use crate::context::ContextBound;
use crate::launch::LaunchKind;
use crate::{Error, EventTimer, Gpu, Module};
use cg_core::grid::layout::{SLOTS, SLOT_BYTES};
use cudarc::driver::{CudaSlice, DevicePtr};
use std::ffi::c_void;

/// The calibration kernel: a number of barriers of cg-core's protocol on
/// the counters of one place.
const CALIBRATION_PTX: &str = include_str!("grid_barrier.ptx");

/// Its entry point.
const CALIBRATION_ENTRY: &str = "cg_grid_barrier_calibrate";

/// Threads per block of the timed launches.
const THREADS: u32 = 256;

/// The fewest blocks the calibration kernel runs on (its counters are the
/// 16 of grids of 16 blocks or more).
const LEAST_BLOCKS: u32 = 16;

/// Grid barriers per timed launch: about 0.1-0.2 ms each on an H200.
const BARRIERS: u32 = 100;

/// Timed launches per place (the median counts), after one untimed.
const RUNS: usize = 3;

/// The variable that fixes the place instead of timing every one: a slot
/// number below [`SLOTS`]. For reproducible measurements, and for runs
/// under compute-sanitizer, where timing 32 places at every process start
/// would take minutes.
pub const SLOT_VAR: &str = "CG_GRID_BARRIER_SLOT";

/// Where a GPU's grid barriers count ([`Gpu::grid_barrier_place`]).
#[derive(Clone, Debug, PartialEq)]
pub struct GridBarrierPlace {
    /// The place chosen, below `cg_core::grid::layout::SLOTS`: its counters
    /// start `slot * SLOT_BYTES` into the region.
    pub slot: u32,
    /// How the place was chosen.
    pub chosen: PlaceChoice,
}

/// How a [`GridBarrierPlace`] was chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaceChoice {
    /// Timed: the median microseconds of one launch of `barriers` grid
    /// barriers at each place, in slot order, on `blocks` blocks of 256
    /// threads; the fastest kept.
    Timed {
        /// The grid the launches ran on, in blocks.
        blocks: u32,
        /// Grid barriers a launch.
        barriers: u32,
        /// Microseconds a launch, per place.
        launch_us: Vec<f64>,
    },
    /// Fixed by the environment variable `CG_GRID_BARRIER_SLOT`.
    Fixed,
    /// Not timed: the GPU holds fewer than 16 blocks of 256 threads at once
    /// (no grid of it spreads its arrivals much), or has no cooperative
    /// launch. The first place.
    Untimed,
}

/// A GPU's counter region and the place chosen in it.
pub(crate) struct GridBarrierRegion {
    /// [`SLOTS`] places and 4 KiB to align the first to a page: held, not
    /// read.
    _memory: ContextBound<CudaSlice<u8>>,
    /// The first place's address.
    start: u64,
    place: GridBarrierPlace,
}

impl GridBarrierRegion {
    /// Allocates the region, zeroed, and chooses its place: from
    /// [`SLOT_VAR`] if set, else by timing each.
    pub(crate) fn open(gpu: &Gpu) -> Result<Self, Error> {
        let bytes = (SLOTS * SLOT_BYTES) as usize + 4096;
        let stream = gpu.stream()?;
        let memory = gpu.driver(stream.alloc_zeros::<u8>(bytes), || {
            format!("allocating {bytes} bytes for the grid barrier's counters")
        })?;
        let start = memory.device_ptr(stream).0.next_multiple_of(4096);
        let place = match slot_from_env()? {
            Some(slot) => GridBarrierPlace {
                slot,
                chosen: PlaceChoice::Fixed,
            },
            None => time_places(gpu, start)?,
        };
        gpu.synchronize()?;
        Ok(Self {
            start,
            _memory: gpu.bind(memory),
            place,
        })
    }

    /// The chosen place's address: what every module's `cg_grid_barrier`
    /// holds.
    pub(crate) fn address(&self) -> u64 {
        self.slot_address(self.place.slot)
    }

    /// The address of place `slot` (below [`SLOTS`]).
    pub(crate) fn slot_address(&self, slot: u32) -> u64 {
        place_address(self.start, slot)
    }

    /// The chosen place.
    pub(crate) fn place(&self) -> &GridBarrierPlace {
        &self.place
    }
}

/// The address of place `slot` of a region whose first place is at
/// `start`.
fn place_address(start: u64, slot: u32) -> u64 {
    start + u64::from(slot * SLOT_BYTES)
}

/// Times the calibration kernel at every place of the region whose first
/// place is at `start`, and keeps the fastest.
fn time_places(gpu: &Gpu, start: u64) -> Result<GridBarrierPlace, Error> {
    let untimed = GridBarrierPlace {
        slot: 0,
        chosen: PlaceChoice::Untimed,
    };
    if !gpu.info().cooperative_launch {
        return Ok(untimed);
    }
    let module = Module::from_ptx_source(
        gpu,
        CALIBRATION_PTX.into(),
        "the grid barrier's calibration kernel",
    )?;
    let function = module.function(CALIBRATION_ENTRY, LaunchKind::Cooperative)?;
    let config = function.cooperative_config(THREADS, 0)?;
    let blocks = config.grid.x;
    if blocks < LEAST_BLOCKS {
        return Ok(untimed);
    }
    let timer = EventTimer::new(gpu)?;
    let mut launch_us = Vec::with_capacity(SLOTS as usize);
    for slot in 0..SLOTS {
        let mut place = place_address(start, slot);
        let ms = timer.median_ms(1, RUNS, || {
            let mut barriers = BARRIERS;
            let mut params = [
                &mut place as *mut u64 as *mut c_void,
                &mut barriers as *mut u32 as *mut c_void,
            ];
            // SAFETY: the calibration kernel takes a `u64` (the place's
            // address) and a `u32` (the barriers), and touches only the
            // place's 16 counters, in the region this function's caller
            // keeps alive; it is launched cooperatively, as its barriers
            // need.
            unsafe { function.launch(config, &mut params) }
        })?;
        launch_us.push(ms * 1000.0);
    }
    let slot = (0..SLOTS)
        .min_by(|&a, &b| launch_us[a as usize].total_cmp(&launch_us[b as usize]))
        .unwrap_or(0);
    Ok(GridBarrierPlace {
        slot,
        chosen: PlaceChoice::Timed {
            blocks,
            barriers: BARRIERS,
            launch_us,
        },
    })
}

/// [`SLOT_VAR`]'s slot, if it is set; an error names a value that is not a
/// slot.
fn slot_from_env() -> Result<Option<u32>, Error> {
    std::env::var(SLOT_VAR)
        .ok()
        .map(|value| parse_slot(&value))
        .transpose()
}

/// A value of [`SLOT_VAR`] as a slot.
fn parse_slot(value: &str) -> Result<u32, Error> {
    match value.trim().parse::<u32>() {
        Ok(s) if s < SLOTS => Ok(s),
        _ => Err(Error::Environment {
            variable: SLOT_VAR.into(),
            value: value.into(),
            expected: format!(
                "the place of the grid barrier's counters is a slot from 0 to {}; unset it to let \
                 the GPU time every place and keep the fastest",
                SLOTS - 1
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_variable_takes_slots_only() {
        for s in [0, 1, SLOTS - 1] {
            assert_eq!(parse_slot(&s.to_string()).unwrap(), s);
        }
        assert_eq!(parse_slot(" 7\n").unwrap(), 7);
        for bad in ["", "32", "-1", "x", "1.5", "4096"] {
            let e = parse_slot(bad).unwrap_err().to_string();
            assert!(
                e.contains(SLOT_VAR) && e.contains("from 0 to 31") && e.contains("unset"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn the_calibration_kernel_is_the_one_entry_of_its_ptx() {
        let m = cg_ptx::Module::parse(CALIBRATION_PTX);
        assert_eq!(m.entry_names(), [CALIBRATION_ENTRY]);
    }
}
