//! The device-wide primitives (`cg_primitives`: one launch each of a grid
//! collective) beside the CUB calls they replace: `DeviceScan::ExclusiveSum`,
//! `DeviceReduce::Sum`, `DeviceSelect::If` and
//! `DeviceHistogram::HistogramEven` (kernels/cuda/lib_cub_device.cu), of
//! `u32` and `f32`. The Rust time is the whole host call: the zeroing of
//! its scratch (a memset) and the launch; CUB's is its call on temporary
//! storage allocated beforehand (its own tile-status initialisation
//! included).

use crate::bench::{self, Bench, NO_TWIN};
use crate::results::{self, Row, Timing};
use cg_primitives::{Even, Keep, Primitives, Value};
use cooperative_groups::{DeviceBuffer, Error};
use rand::Rng;

/// Bins of the histogram rows.
const BINS: usize = 256;

/// `cg_cub_exclusive_sum_*` and `cg_cub_reduce_sum_*`.
type CubUnary<T> = unsafe extern "C" fn(*const T, *mut T, u64, i32, i32, *mut f32) -> i32;
/// `cg_cub_select_above_*`.
type CubSelect<T> =
    unsafe extern "C" fn(*const T, *mut T, *mut u32, u64, T, i32, i32, *mut f32) -> i32;
/// `cg_cub_histogram_even_*`.
type CubHistogram<T> =
    unsafe extern "C" fn(*const T, *mut u32, i32, T, T, u64, i32, i32, *mut f32) -> i32;

/// A value type of the rows: its name, its inputs, its CPU results.
trait Case: Value + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    /// `n` random values.
    fn random(n: usize) -> Vec<Self>;
    /// The histogram's levels over the values [`random`](Self::random) draws.
    fn levels() -> Even<Self>;
    /// The operand of the selection: about half the values above it.
    fn middle() -> Self;
    /// Whether `got` is the sum of `values` (exact for integers).
    fn sum_ok(got: Self, values: &[Self]) -> bool;
}

impl Case for u32 {
    const NAME: &'static str = "u32";
    fn random(n: usize) -> Vec<u32> {
        let mut rng = rand::rng();
        (0..n).map(|_| rng.random_range(0..1 << 24)).collect()
    }
    fn levels() -> Even<u32> {
        Even {
            lower: 0,
            upper: 1 << 24,
        }
    }
    fn middle() -> u32 {
        1 << 23
    }
    fn sum_ok(got: u32, values: &[u32]) -> bool {
        got == values.iter().fold(0u32, |a, &b| a.wrapping_add(b))
    }
}

impl Case for f32 {
    const NAME: &'static str = "f32";
    fn random(n: usize) -> Vec<f32> {
        bench::random_f32(n)
    }
    fn levels() -> Even<f32> {
        Even {
            lower: -1.0,
            upper: 1.0,
        }
    }
    fn middle() -> f32 {
        0.0
    }
    fn sum_ok(got: f32, values: &[f32]) -> bool {
        bench::sum_close(got, values)
    }
}

/// The CUB function `name`_`T::NAME` of lib_cub_device.so, when there.
fn cub<F: Copy, T: Case>(b: &Bench, name: &str) -> Option<F> {
    let symbol = format!("{name}_{}", T::NAME);
    // SAFETY: each caller names `F` as the symbol's C signature (the types
    // above, from kernels/cuda/lib_cub_device.cu).
    unsafe { b.library_fn("lib_cub_device.so", &symbol) }
}

/// CUB's median in microseconds, when its call succeeded.
fn cub_us(rc: i32, ms: f32) -> Option<f64> {
    (rc == 0).then_some(ms as f64 * 1e3)
}

/// The four rows of `T` at `n` elements.
fn rows<T: Case>(b: &mut Bench, p: &mut Primitives, n: usize) -> Result<Vec<Row>, Error> {
    let (warm, runs) = (5, b.opts.runs as i32);
    let size = results::size_label(n);
    let values = T::random(n);
    let input = b.gpu.upload(&values)?;
    let mut out: DeviceBuffer<T> = b.gpu.filled(n, T::default())?;
    let mut rows = Vec::new();
    let row = |name: &str, t: Timing, lib: Option<f64>, bytes: f64, ok: bool| Row {
        library: lib,
        ..Row::timed(&format!("{name} ({})", T::NAME), &size, t, None, bytes, ok)
    };

    // Exclusive sum: checked on the last element (the total before it)
    // and, for integers, everywhere.
    let (t, _) = b.time_pair(|| p.exclusive_scan(&input, &mut out), NO_TWIN)?;
    let got = out.to_vec()?;
    let ok = n == 0 || T::sum_ok(got[n - 1], &values[..n - 1]);
    let mut lib = None;
    if let Some(f) = cub::<CubUnary<T>, T>(b, "cg_cub_exclusive_sum") {
        let mut ms = 0.0;
        // SAFETY: live device buffers of `n` values each.
        let rc = unsafe {
            f(
                input.device_address() as *const T,
                out.device_address() as *mut T,
                n as u64,
                warm,
                runs,
                &mut ms,
            )
        };
        lib = cub_us(rc, ms);
    }
    rows.push(row("device exclusive sum", t, lib, 8.0 * n as f64, ok));

    // Sum.
    let mut total = b.gpu.filled(1, T::default())?;
    let (t, _) = b.time_pair(|| p.reduce_into(&input, &mut total), NO_TWIN)?;
    let ok = T::sum_ok(total.to_vec()?[0], &values);
    let mut lib = None;
    if let Some(f) = cub::<CubUnary<T>, T>(b, "cg_cub_reduce_sum") {
        let mut ms = 0.0;
        // SAFETY: live device buffers of `n` values and 1.
        let rc = unsafe {
            f(
                input.device_address() as *const T,
                total.device_address() as *mut T,
                n as u64,
                warm,
                runs,
                &mut ms,
            )
        };
        lib = cub_us(rc, ms);
    }
    rows.push(row("device sum", t, lib, 4.0 * n as f64, ok));

    // Select: the values above the middle, in order.
    let keep: Vec<T> = values
        .iter()
        .copied()
        .filter(|&v| v > T::middle())
        .collect();
    // The count stays on the device, as CUB's does in its timing.
    let mut on_device = b.gpu.filled(1, 0u32)?;
    let (t, _) = b.time_pair(
        || p.select_into(&input, &mut out, &mut on_device, Keep::Greater(T::middle())),
        NO_TWIN,
    )?;
    let count = on_device.to_vec()?[0] as usize;
    let ok = count == keep.len() && out.to_vec()?[..count] == keep[..];
    let mut lib = None;
    if let Some(f) = cub::<CubSelect<T>, T>(b, "cg_cub_select_above") {
        let (mut ms, c) = (0.0, b.gpu.filled(1, 0u32)?);
        // SAFETY: live device buffers of `n` values, `n` values and 1 u32.
        let rc = unsafe {
            f(
                input.device_address() as *const T,
                out.device_address() as *mut T,
                c.device_address() as *mut u32,
                n as u64,
                T::middle(),
                warm,
                runs,
                &mut ms,
            )
        };
        lib = cub_us(rc, ms);
    }
    let bytes = 4.0 * (n + keep.len()) as f64;
    rows.push(row("device select (above the middle)", t, lib, bytes, ok));

    // Histogram of 256 even bins.
    let mut bins = b.gpu.filled(BINS, 0u32)?;
    let (t, _) = b.time_pair(|| p.histogram(&input, &mut bins, T::levels()), NO_TWIN)?;
    let levels = T::levels();
    let even = cg_core::grid_histogram::Even::new(levels.lower, levels.upper, BINS as u32);
    let mut want = vec![0u32; BINS];
    values
        .iter()
        .filter_map(|&v| even.bin(v))
        .for_each(|b| want[b as usize] += 1);
    let ok = bins.to_vec()? == want;
    let mut lib = None;
    if let Some(f) = cub::<CubHistogram<T>, T>(b, "cg_cub_histogram_even") {
        let mut ms = 0.0;
        // SAFETY: live device buffers of `n` values and `BINS` counts.
        let rc = unsafe {
            f(
                input.device_address() as *const T,
                bins.device_address() as *mut u32,
                BINS as i32,
                levels.lower,
                levels.upper,
                n as u64,
                warm,
                runs,
                &mut ms,
            )
        };
        lib = cub_us(rc, ms);
    }
    rows.push(row(
        "device histogram (256 even bins)",
        t,
        lib,
        4.0 * n as f64,
        ok,
    ));
    Ok(rows)
}

/// The primitives' rows at `2^log2` elements for each of `log2s`, `u32`
/// then `f32`.
pub fn primitives(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("device-wide primitives beside CUB");
    let mut p = Primitives::new(&b.gpu)?;
    for &log2 in log2s {
        let n = 1usize << log2;
        for row in rows::<u32>(b, &mut p, n)?
            .into_iter()
            .chain(rows::<f32>(b, &mut p, n)?)
        {
            b.push(row);
        }
    }
    Ok(())
}
