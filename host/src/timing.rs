//! Timing GPU work with CUDA events, as the benchmarks do.

use crate::context::ContextBound;
use crate::error::Error;
use crate::Gpu;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::CudaEvent;

/// A pair of events on a [`Gpu`]'s stream.
pub struct EventTimer {
    gpu: Gpu,
    start: ContextBound<CudaEvent>,
    end: ContextBound<CudaEvent>,
}

impl EventTimer {
    /// Two events with timing enabled.
    pub fn new(gpu: &Gpu) -> Result<Self, Error> {
        let _entered = gpu.enter()?;
        let ev = || {
            let event = gpu
                .context()?
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
            gpu.driver(event, || "creating a CUDA event".into())
                .map(|e| gpu.bind(e))
        };
        Ok(Self {
            gpu: gpu.clone(),
            start: ev()?,
            end: ev()?,
        })
    }

    /// Milliseconds of GPU time taken by the work `f` queues.
    pub fn time(&self, f: impl FnOnce() -> Result<(), Error>) -> Result<f64, Error> {
        let gpu = &self.gpu;
        let _entered = gpu.enter()?;
        gpu.driver(self.start.record(gpu.stream()?), || {
            "recording an event".into()
        })?;
        f()?;
        gpu.driver(self.end.record(gpu.stream()?), || {
            "recording an event".into()
        })?;
        gpu.driver(self.end.synchronize(), || "waiting for an event".into())?;
        gpu.driver(self.start.elapsed_ms(&self.end), || {
            "reading elapsed time".into()
        })
        .map(f64::from)
    }

    /// Median milliseconds of `runs` timings of `f`, after `warmup` untimed runs.
    pub fn median_ms(
        &self,
        warmup: usize,
        runs: usize,
        mut f: impl FnMut() -> Result<(), Error>,
    ) -> Result<f64, Error> {
        for _ in 0..warmup {
            f()?;
        }
        self.gpu.synchronize()?;
        let mut t = Vec::with_capacity(runs);
        for _ in 0..runs {
            t.push(self.time(&mut f)?);
        }
        Ok(median(&mut t))
    }
}

/// The median of `v` (the mean of the middle two for even lengths); NaN for
/// an empty slice.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(super::median(&mut []).is_nan());
    }
}
