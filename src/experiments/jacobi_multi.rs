//! Jacobi on several GPUs (`jacobi --gpus N`): the field split in bands of
//! rows, one band per GPU, each with a halo row above and below.
//!
//! Three methods, which must give the same field bit for bit:
//!
//! - **multi-grid, peer memory**: one persistent `#[kernel(multi_grid)]`
//!   per GPU (`jacobi_multi_gpu`); after each sweep every GPU writes its
//!   first and last rows straight into its neighbours' halo rows and all
//!   cross one `multi_grid.sync()`;
//! - **NCCL**: one launch per sweep per GPU, the halo rows exchanged with
//!   `ncclSend`/`ncclRecv`, in turn with the sweep or overlapped with it
//!   ([`jacobi_nccl`](super::jacobi_nccl), which also runs them with one
//!   process per GPU, the way they run across machines);
//! - **one GPU**: the single-GPU persistent kernel over the whole field.
//!
//! Times are wall-clock over whole runs of all sweeps (each run is tens of
//! milliseconds or more: launch latency does not enter), median of the
//! runs; each method reports sweeps per second and its speed-up over one
//! GPU.

use crate::bench::{self, Options};
use crate::experiments::jacobi::{fresh, holding, persistent_grids, PersistentGrids, PingPong};
use crate::experiments::jacobi_nccl::{self, SplitBand, SweepGrid};
use crate::kernels::Kernels;
use crate::results::Timing;
use cooperative_groups::nccl::{self, Communicator};
use cooperative_groups::{DeviceBuffer, Error, Gpu, GpuSet, LaunchConfig};
use std::path::Path;
use std::time::Instant;

/// One GPU's band: rows `first - 1 ..= first + interior` of the field (the
/// interior rows and a halo row on each side), in two ping-pong buffers.
pub(super) struct Band {
    pub(super) a: DeviceBuffer<f32>,
    pub(super) b: DeviceBuffer<f32>,
    /// The field's row of the band's first interior row.
    first: usize,
    /// Rows in the buffers: interior + 2.
    pub(super) rows: u32,
}

/// The interior rows `1..ny - 1` split into `parts` contiguous bands as
/// even as can be: `(first row, interior rows)` each.
pub fn bands(ny: usize, parts: usize) -> Vec<(usize, usize)> {
    let interior = ny.saturating_sub(2);
    let mut out = Vec::with_capacity(parts);
    let mut first = 1;
    for p in 0..parts {
        let rows = interior / parts + usize::from(p < interior % parts);
        out.push((first, rows));
        first += rows;
    }
    out
}

impl Band {
    pub(super) fn new(
        gpu: &Gpu,
        init: &[f32],
        nx: usize,
        first: usize,
        interior: usize,
    ) -> Result<Self, Error> {
        let rows = &init[(first - 1) * nx..(first + interior + 1) * nx];
        Ok(Band {
            a: gpu.upload(rows)?,
            b: gpu.upload(rows)?,
            first,
            rows: (interior + 2) as u32,
        })
    }

    /// The buffer holding the field after `sweeps` sweeps.
    pub(super) fn result(&self, sweeps: u32) -> &DeviceBuffer<f32> {
        holding(&self.a, &self.b, sweeps)
    }

    /// Writes the band's rows (its halos only where they are the field's
    /// boundary) into `field`.
    fn copy_into(
        &self,
        field: &mut [f32],
        nx: usize,
        sweeps: u32,
        top: bool,
        bottom: bool,
    ) -> Result<(), Error> {
        let v = self.result(sweeps).to_vec()?;
        let rows = self.rows as usize;
        let from = if top { 0 } else { 1 };
        let to = if bottom { rows } else { rows - 1 };
        let at = (self.first - 1) * nx;
        field[at + from * nx..at + to * nx].copy_from_slice(&v[from * nx..to * nx]);
        Ok(())
    }
}

/// Empty buffers for a band without a neighbour on one side.
struct NoNeighbour {
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
}

/// `sweeps` sweeps of a multi-grid kernel over `bands` (one per GPU of
/// `set`).
fn multi_grid_sweeps(
    set: &GpuSet,
    k: &[Kernels],
    cfg: LaunchConfig,
    bands: &mut [Band],
    none: &mut [(NoNeighbour, NoNeighbour)],
    nx: u32,
    sweeps: u32,
) -> Result<(), Error> {
    let grid = |r: usize, m: &mut cooperative_groups::MultiGridMember| {
        let (before, rest) = bands.split_at_mut(r);
        let (me, after) = rest.split_first_mut().expect("one band per GPU");
        let (no_up, no_down) = &mut none[r];
        let (ua, ub) = match before.last_mut() {
            Some(u) => (&mut u.a, &mut u.b),
            None => (&mut no_up.a, &mut no_up.b),
        };
        let (da, db) = match after.first_mut() {
            Some(d) => (&mut d.a, &mut d.b),
            None => (&mut no_down.a, &mut no_down.b),
        };
        k[r].jacobi_multi_gpu
            .launch(m, &mut me.a, &mut me.b, ua, ub, da, db, nx, me.rows, sweeps)
    };
    // SAFETY: each band is written by its own grid and by its neighbours,
    // which write only its halo rows (its first and last), with a
    // multi_grid.sync() between a sweep's writes and the next sweep's reads;
    // its own grid writes only its interior rows (jacobi_multi_gpu in
    // kernels/samples/src/jacobi.rs).
    unsafe { set.launch_sharing_buffers(cfg, grid) }
}

/// The single-GPU persistent kernel's field after `sweeps` sweeps from
/// `init` (`nx` x `ny`), launched as `cfg` on the GPU `k` was loaded on,
/// and the ping-pong pair it ran on.
pub(super) fn one_gpu_field(
    k: &Kernels,
    cfg: LaunchConfig,
    init: &[f32],
    (nx, ny, sweeps): (usize, usize, u32),
) -> Result<(Vec<f32>, PingPong), Error> {
    let (mut a, mut b) = fresh(k.jacobi_persistent.function().gpu(), init)?;
    k.jacobi_persistent
        .launch(cfg, &mut a, &mut b, nx as u32, ny as u32, sweeps)?;
    let field = holding(&a, &b, sweeps).to_vec()?;
    Ok((field, (a, b)))
}

/// The median wall-clock time of `runs` runs of `f` (after one warm-up),
/// each ended by `wait`.
pub(super) fn wall_time(
    runs: usize,
    f: impl FnMut() -> Result<(), Error>,
    wait: impl Fn() -> Result<(), Error>,
) -> Result<Timing, Error> {
    Ok(Runs::time(runs, f, wait)?.timing)
}

/// The wall-clock times of `runs` runs of `f` (after one warm-up), each
/// ended by `wait`: in the order they ran, and their median and spread.
struct Runs {
    in_order: Vec<f64>,
    timing: Timing,
}

impl Runs {
    fn time(
        runs: usize,
        mut f: impl FnMut() -> Result<(), Error>,
        wait: impl Fn() -> Result<(), Error>,
    ) -> Result<Runs, Error> {
        f()?;
        wait()?;
        let mut in_order = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            f()?;
            wait()?;
            in_order.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let timing = Timing::of(&mut in_order.clone());
        Ok(Runs { in_order, timing })
    }
}

/// One printed result.
struct Line {
    name: String,
    runs: Runs,
    sweeps: u32,
    verified: bool,
}

impl Line {
    /// Sweeps a second at the median time.
    fn sweeps_per_s(&self) -> f64 {
        self.sweeps as f64 / (self.runs.timing.ms * 1e-3)
    }

    /// The one-GPU time over this one's (medians).
    fn speedup(&self, single: &Timing) -> f64 {
        single.ms / self.runs.timing.ms
    }
}

/// The field, its shape and sweeps, from the options: 8192 x 8192 and
/// 1,000 sweeps, or 512 x 512 and 50 with `--quick`.
pub(super) fn problem(opts: &Options) -> (usize, usize, u32) {
    if opts.quick {
        (512, 512, 50)
    } else {
        (8192, 8192, 1000)
    }
}

/// `jacobi --gpus N`: the three methods on the first `gpus` GPUs (all with
/// 0), each checked against the single-GPU field; returns whether all
/// matched.
pub fn multi_gpu(opts: &Options, gpus: usize) -> Result<bool, Error> {
    let set = if gpus == 0 {
        GpuSet::all()?
    } else {
        GpuSet::new(&(0..gpus).collect::<Vec<_>>())?
    };
    let n = set.len();
    let info = set.gpus()[0].info().clone();
    eprintln!(
        "{n} x {} (sm_{}, {} SMs)",
        info.name, info.sm, info.multiprocessors
    );
    let k = set.each(Kernels::load)?;
    let (nx, ny, sweeps) = problem(opts);
    let runs = opts.runs.clamp(3, 10);
    let init = bench::random_f32(nx * ny);
    let mut lines = Vec::new();

    // One GPU: the persistent kernel of the single-GPU sample, the faster of
    // its two grids.
    let g0 = &set.gpus()[0];
    let PersistentGrids { full, lean, .. } = persistent_grids(k[0].jacobi_persistent.function())?;
    let (reference, (mut a, mut b)) = one_gpu_field(&k[0], full, &init, (nx, ny, sweeps))?;
    let mut single: Option<Timing> = None;
    for cfg in [full, lean] {
        let r = Runs::time(
            runs,
            || {
                k[0].jacobi_persistent
                    .launch(cfg, &mut a, &mut b, nx as u32, ny as u32, sweeps)
            },
            || g0.synchronize(),
        )?;
        let t = r.timing;
        lines.push(Line {
            name: format!("1 GPU, persistent {}x{}", cfg.grid.x, cfg.block.x),
            runs: r,
            sweeps,
            verified: true,
        });
        if single.is_none_or(|s| t.ms < s.ms) {
            single = Some(t);
        }
    }
    drop((a, b));

    let parts = bands(ny, n);
    let fresh_bands = |set: &GpuSet| -> Result<Vec<Band>, Error> {
        set.gpus()
            .iter()
            .zip(&parts)
            .map(|(g, &(first, rows))| Band::new(g, &init, nx, first, rows))
            .collect()
    };
    let assemble = |bands: &[Band]| -> Result<Vec<f32>, Error> {
        let mut field = init.clone();
        for (i, band) in bands.iter().enumerate() {
            band.copy_into(&mut field, nx, sweeps, i == 0, i + 1 == bands.len())?;
        }
        Ok(field)
    };

    // Multi-grid, peer memory.
    let mut none = set.each(|g| {
        let empty = || -> Result<NoNeighbour, Error> {
            Ok(NoNeighbour {
                a: g.alloc_uninit(0)?,
                b: g.alloc_uninit(0)?,
            })
        };
        Ok((empty()?, empty()?))
    })?;
    let PersistentGrids {
        full: multi_full,
        lean: multi_lean,
        ..
    } = persistent_grids(k[0].jacobi_multi_gpu.function())?;
    for cfg in [multi_full, multi_lean] {
        let mut bands = fresh_bands(&set)?;
        let mut run = |bands: &mut Vec<Band>| {
            multi_grid_sweeps(&set, &k, cfg, bands, &mut none, nx as u32, sweeps)
        };
        run(&mut bands)?;
        let verified = assemble(&bands)? == reference;
        let r = Runs::time(runs, || run(&mut bands), || set.synchronize())?;
        lines.push(Line {
            name: format!(
                "{n} GPUs, multi-grid + peer memory {}x{}",
                cfg.grid.x, cfg.block.x
            ),
            runs: r,
            sweeps,
            verified,
        });
    }

    // NCCL, one process: in turn, and overlapped, on each grid.
    if nccl::nccl_present() && !opts.no_nccl {
        let in_turn = Communicator::for_set(&set)?;
        let overlapping = Communicator::for_set_overlapping(&set)?;
        for grid in SweepGrid::ALL {
            let mut bands = fresh_bands(&set)?;
            let run = |bands: &mut [Band]| {
                jacobi_nccl::sweeps_in_turn(&k, &in_turn, bands, (nx as u32, sweeps), grid)
            };
            run(&mut bands)?;
            let verified = assemble(&bands)? == reference;
            let r = Runs::time(runs, || run(&mut bands), || set.synchronize())?;
            lines.push(Line {
                name: format!("{n} GPUs, NCCL in turn, {}", grid.name()),
                runs: r,
                sweeps,
                verified,
            });
            drop(bands);
            let mut bands = set
                .gpus()
                .iter()
                .zip(&parts)
                .map(|(g, &(first, rows))| SplitBand::new(g, &init, nx, first, rows))
                .collect::<Result<Vec<_>, _>>()?;
            let run = |bands: &mut [SplitBand]| {
                jacobi_nccl::overlapped_sweeps(&k, &overlapping, bands, (nx as u32, sweeps), grid)
            };
            run(&mut bands)?;
            let mut field = init.clone();
            for band in &bands {
                band.copy_into(&mut field, nx, sweeps)?;
            }
            let verified = field == reference;
            let r = Runs::time(runs, || run(&mut bands), || set.synchronize())?;
            lines.push(Line {
                name: format!("{n} GPUs, NCCL overlapped, {}", grid.name()),
                runs: r,
                sweeps,
                verified,
            });
        }
    } else {
        eprintln!("NCCL NOT RUN: libnccl.so.2 not found (install nvidia-nccl-cu13, add its lib directory to LD_LIBRARY_PATH)");
    }

    // What one barrier costs, across the set and on one GPU.
    let barriers = barrier_costs(&set, &k, multi_full)?;

    let single = single.expect("timed above");
    println!("\nJacobi {nx} x {ny}, {sweeps} sweeps, f32, on {n} x {} (wall clock, median of {runs} runs)", info.name);
    println!(
        "  {:<48} {:>10} {:>8} {:>12} {:>9}",
        "method", "ms", "spread", "sweeps/s", "speed-up"
    );
    for l in &lines {
        println!(
            "  {:<48} {:>10.2} {:>7.1}% {:>12.0} {:>8.2}x  {}",
            l.name,
            l.runs.timing.ms,
            100.0 * l.runs.timing.spread(),
            l.sweeps_per_s(),
            l.speedup(&single),
            if l.verified { "verified" } else { "FAILED" }
        );
    }
    println!(
        "  barrier: multi_grid.sync() across {n} GPUs {:.0} ns, grid.sync() on one GPU {:.0} ns ({}x{} grids)",
        barriers.0, barriers.1, multi_full.grid.x, multi_full.block.x
    );
    if let Some(path) = &opts.json {
        write_json(
            path,
            &info.name,
            n,
            (nx, ny, sweeps),
            &lines,
            single,
            barriers,
        )?;
    }
    Ok(lines.iter().all(|l| l.verified))
}

/// Nanoseconds per `multi_grid.sync()` across `set` and per `grid.sync()`
/// on its first GPU, with grids of `cfg`: 10,000 barriers timed minus none.
fn barrier_costs(set: &GpuSet, k: &[Kernels], cfg: LaunchConfig) -> Result<(f64, f64), Error> {
    const ITERS: u32 = 10_000;
    let mut outs = set.each(|g| g.filled(1, 0u32))?;
    let mut multi = |iters: u32| {
        wall_time(
            5,
            || {
                set.launch(cfg, |r, m| {
                    k[r].barrier_cost_multi_grid.launch(m, iters, &mut outs[r])
                })
            },
            || set.synchronize(),
        )
    };
    let (m0, m1) = (multi(0)?, multi(ITERS)?);
    let g0 = &set.gpus()[0];
    let mut out = g0.filled(1, 0u32)?;
    let mut grid = |iters: u32| {
        wall_time(
            5,
            || k[0].barrier_cost_grid.launch(cfg, iters, &mut out),
            || g0.synchronize(),
        )
    };
    let (g0t, g1t) = (grid(0)?, grid(ITERS)?);
    let per = |a: Timing, b: Timing| (b.ms - a.ms) * 1e6 / ITERS as f64;
    Ok((per(m0, m1), per(g0t, g1t)))
}

fn write_json(
    path: &Path,
    device: &str,
    gpus: usize,
    (nx, ny, sweeps): (usize, usize, u32),
    lines: &[Line],
    single: Timing,
    (multi_ns, grid_ns): (f64, f64),
) -> Result<(), Error> {
    let rows: Vec<_> = lines
        .iter()
        .map(|l| {
            serde_json::json!({
                "method": l.name,
                "ms": l.runs.timing.ms,
                "p10_ms": l.runs.timing.p10_ms,
                "p90_ms": l.runs.timing.p90_ms,
                "runs_ms": l.runs.in_order,
                "sweeps_per_s": l.sweeps_per_s(),
                "speedup": l.speedup(&single),
                "verified": l.verified,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "device": device,
        "gpus": gpus,
        "field": [nx, ny],
        "sweeps": sweeps,
        "rows": rows,
        "multi_grid_sync_ns": multi_ns,
        "grid_sync_ns": grid_ns,
    });
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap_or_default()).map_err(|source| {
        Error::Io {
            context: format!("writing {}", path.display()),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_split_the_interior_rows_evenly_and_in_order() {
        for ny in [3usize, 4, 10, 8192, 8193] {
            for parts in 1..=8 {
                let b = bands(ny, parts);
                assert_eq!(b.len(), parts);
                assert_eq!(b[0].0, 1);
                let mut next = 1;
                for &(first, rows) in &b {
                    assert_eq!(first, next, "{ny} rows in {parts}");
                    next += rows;
                }
                assert_eq!(next, ny - 1, "{ny} rows in {parts}");
                let (lo, hi) = (
                    b.iter().map(|x| x.1).min().unwrap(),
                    b.iter().map(|x| x.1).max().unwrap(),
                );
                assert!(hi - lo <= 1);
            }
        }
    }
}
