//! The NCCL methods of Jacobi on several GPUs (`jacobi --gpus N`,
//! `jacobi --nccl-process`): the field in bands of rows as in
//! [`jacobi_multi`](super::jacobi_multi), one launch per sweep, and the
//! halo rows exchanged with `ncclSend`/`ncclRecv`. Two forms:
//!
//! - **in turn**: the band swept whole (`jacobi_sweep`), then its halo
//!   rows exchanged on the same stream: each sweep waits for its exchange;
//! - **overlapped**: the band's first and last rows swept first
//!   (`jacobi_edges`, which also writes them into two send rows), the
//!   exchange started on the communicator's own stream
//!   ([`Overlap`](cooperative_groups::nccl::Overlap)), the rows between
//!   swept beside it (`jacobi_sweep` over the band without its halo rows),
//!   and the next sweep ordered after both. With one process per GPU, the
//!   sweeps also run as a CUDA graph: two sweeps captured once, replayed.
//!
//! Both run in one process for all GPUs, and with one process per GPU
//! ([`nccl_process`]), the way they run across machines.

use super::jacobi::holding;
use super::jacobi_multi::{bands, one_gpu_field, problem, wall_time, Band};
use crate::bench::{self, Options};
use crate::kernels::Kernels;
use cooperative_groups::nccl::{self, Communicator, InFlight, UniqueId};
use cooperative_groups::{DeviceBuffer, Error, Gpu, LaunchConfig};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How the NCCL methods launch `jacobi_sweep` over a band. A launch per
/// sweep and an exchange beside it pull against each other here: a grid
/// of every thread slot, grid-stride, keeps many loads in flight (as the
/// persistent kernel does), but its blocks all run until the sweep ends,
/// so the exchange's kernel finds no room beside them; a thread a point
/// leaves room all along, with one load in flight a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepGrid {
    /// One thread a point, the usual CUDA form.
    PerPoint,
    /// `n` times the grid of every thread slot (blocks of 256 threads),
    /// grid-stride: several points a thread, the blocks retiring in `n`
    /// waves.
    Waves(u32),
    /// Every thread slot but one block's a multiprocessor, grid-stride:
    /// room on each multiprocessor for a block of NCCL's kernel (of 256
    /// threads or fewer: `NCCL_NTHREADS`) beside the sweep.
    RoomForNccl,
}

impl SweepGrid {
    /// The grids the sample compares.
    pub const ALL: [SweepGrid; 4] = [
        SweepGrid::PerPoint,
        SweepGrid::Waves(8),
        SweepGrid::Waves(1),
        SweepGrid::RoomForNccl,
    ];

    /// The launch over `points` points.
    fn config(self, k: &Kernels, points: usize) -> Result<LaunchConfig, Error> {
        let per_point = LaunchConfig::for_elements(points, 256);
        let f = k.jacobi_sweep.function();
        let blocks = match self {
            SweepGrid::PerPoint => return Ok(per_point),
            SweepGrid::Waves(n) => f.cooperative_config(256, 0)?.grid.x.saturating_mul(n),
            SweepGrid::RoomForNccl => {
                let sms = f.gpu().info().multiprocessors;
                f.cooperative_config(256, 0)?.grid.x.saturating_sub(sms)
            }
        };
        Ok(LaunchConfig::new(
            blocks.clamp(1, per_point.grid.x.max(1)),
            256,
        ))
    }

    /// The launch over each band, `points[i]` points on `k[i]`'s GPU:
    /// asked of the driver once for a run, not once a sweep.
    fn configs(
        self,
        k: &[Kernels],
        points: impl Iterator<Item = usize>,
    ) -> Result<Vec<LaunchConfig>, Error> {
        points.zip(k).map(|(n, k)| self.config(k, n)).collect()
    }

    /// How a result line names it.
    pub fn name(self) -> String {
        match self {
            SweepGrid::PerPoint => "a thread a point".into(),
            SweepGrid::Waves(1) => "every thread slot once".into(),
            SweepGrid::Waves(n) => format!("{n} waves of every thread slot"),
            SweepGrid::RoomForNccl => "every thread slot but a block an SM".into(),
        }
    }
}

/// The NCCL halo exchange of one band after a sweep into `dst` (the band's
/// buffer just written): its first and last interior rows to the
/// neighbours, their rows into its halo rows.
fn exchange(
    comm: &Communicator,
    dst: &mut DeviceBuffer<f32>,
    rows: usize,
    nx: usize,
) -> Result<(), Error> {
    let (rank, ranks) = (comm.rank(), comm.ranks());
    if rank > 0 {
        comm.send(dst, nx..2 * nx, rank - 1)?;
        comm.recv(dst, 0..nx, rank - 1)?;
    }
    if rank + 1 < ranks {
        comm.send(dst, (rows - 2) * nx..(rows - 1) * nx, rank + 1)?;
        comm.recv(dst, (rows - 1) * nx..rows * nx, rank + 1)?;
    }
    Ok(())
}

/// `sweeps` sweeps in turn over `bands` (one per communicator, same
/// order): each band swept whole, then the halo exchange.
pub(super) fn sweeps_in_turn(
    k: &[Kernels],
    comms: &[Communicator],
    bands: &mut [Band],
    (nx, sweeps): (u32, u32),
    grid: SweepGrid,
) -> Result<(), Error> {
    let cfgs = grid.configs(k, bands.iter().map(|b| b.a.len()))?;
    for s in 0..sweeps {
        for ((band, k), &cfg) in bands.iter_mut().zip(k).zip(&cfgs) {
            let (src, dst) = if s % 2 == 0 {
                (&band.a, &mut band.b)
            } else {
                (&band.b, &mut band.a)
            };
            k.jacobi_sweep.launch(cfg, src, dst, nx, band.rows)?;
        }
        nccl::group(|| {
            for (band, comm) in bands.iter_mut().zip(comms) {
                let rows = band.rows as usize;
                let dst = if s % 2 == 0 { &mut band.b } else { &mut band.a };
                exchange(comm, dst, rows, nx as usize)?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// One GPU's band for the overlapped form: its rows and the halo rows
/// beside them in buffers of their own, so that the exchange (which writes
/// the halo rows and reads the send rows) and the sweep of the rows
/// between (which writes the band) take disjoint buffers. Each of a
/// ping-pong pair, `[0]` holding the field after an even number of sweeps.
pub struct SplitBand {
    /// The band's rows (`rows` of `nx`).
    body: [DeviceBuffer<f32>; 2],
    /// The row above the band: the previous GPU's last row, or the
    /// field's boundary.
    above: [DeviceBuffer<f32>; 2],
    /// The row below: the next GPU's first row, or the field's boundary.
    below: [DeviceBuffer<f32>; 2],
    /// The band's first row after the sweep, sent to the previous GPU.
    up: DeviceBuffer<f32>,
    /// Its last row, sent to the next GPU.
    down: DeviceBuffer<f32>,
    /// The field's row of the band's first row.
    first: usize,
    rows: u32,
}

impl SplitBand {
    /// The band of `rows` rows from field row `first` of `init` (`nx`
    /// wide), on `gpu`.
    pub fn new(
        gpu: &Gpu,
        init: &[f32],
        nx: usize,
        first: usize,
        rows: usize,
    ) -> Result<Self, Error> {
        let row = |r: usize| &init[r * nx..(r + 1) * nx];
        let twice = |data: &[f32]| -> Result<[DeviceBuffer<f32>; 2], Error> {
            Ok([gpu.upload(data)?, gpu.upload(data)?])
        };
        Ok(SplitBand {
            body: twice(&init[first * nx..(first + rows) * nx])?,
            above: twice(row(first - 1))?,
            below: twice(row(first + rows))?,
            // The boundary columns of the sent rows are the field's.
            up: gpu.upload(row(first))?,
            down: gpu.upload(row(first + rows - 1))?,
            first,
            rows: rows as u32,
        })
    }

    /// The buffer holding the band's rows after `sweeps` sweeps.
    pub fn result(&self, sweeps: u32) -> &DeviceBuffer<f32> {
        holding(&self.body[0], &self.body[1], sweeps)
    }

    /// Writes the band's rows after `sweeps` sweeps into `field` (`nx`
    /// wide).
    pub fn copy_into(&self, field: &mut [f32], nx: usize, sweeps: u32) -> Result<(), Error> {
        let v = self.result(sweeps).to_vec()?;
        field[self.first * nx..self.first * nx + v.len()].copy_from_slice(&v);
        Ok(())
    }
}

// ANCHOR: overlapped_sweep
/// Sweep `s` over `bands` (one per overlapping communicator, same order),
/// overlapped: every band's edge rows, the exchanges started together, the
/// rows between swept beside them (`cfgs[i]` the launch over band `i`);
/// returns the exchanges in flight (the caller finishes them before the
/// next sweep's edges, or drops them).
fn overlapped_sweep<'a>(
    k: &[Kernels],
    comms: &'a [Communicator],
    bands: &'a mut [SplitBand],
    (nx, s): (u32, u32),
    cfgs: &[LaunchConfig],
) -> Result<Vec<InFlight<'a>>, Error> {
    let (p, q) = ((s % 2) as usize, (1 - s % 2) as usize);
    let edge_cfg = LaunchConfig::for_elements(nx as usize, 256);
    for (b, k) in bands.iter_mut().zip(k) {
        let [b0, b1] = &mut b.body;
        let (src, dst) = if p == 0 { (&*b0, b1) } else { (&*b1, b0) };
        k.jacobi_edges.launch(
            edge_cfg,
            &b.above[p],
            src,
            &b.below[p],
            dst,
            &mut b.up,
            &mut b.down,
            nx,
            b.rows,
        )?;
    }
    let n = nx as usize;
    let mut overlaps = Vec::with_capacity(bands.len());
    let mut between = Vec::with_capacity(bands.len());
    for (b, comm) in bands.iter_mut().zip(comms) {
        let (rank, ranks) = (comm.rank(), comm.ranks());
        let mut x = comm.overlap();
        if rank > 0 {
            x.send(&b.up, 0..n, rank - 1)?;
            x.recv(&mut b.above[q], 0..n, rank - 1)?;
        }
        if rank + 1 < ranks {
            x.send(&b.down, 0..n, rank + 1)?;
            x.recv(&mut b.below[q], 0..n, rank + 1)?;
        }
        overlaps.push(x);
        let [b0, b1] = &mut b.body;
        between.push((if p == 0 { (&*b0, b1) } else { (&*b1, b0) }, b.rows));
    }
    let in_flight = nccl::overlap::start(overlaps)?;
    for (((src, dst), rows), (k, &cfg)) in between.into_iter().zip(k.iter().zip(cfgs)) {
        // The band's rows 1 to rows - 2 (rows 0 and rows - 1 are the
        // edges', which the sweep reads and leaves).
        k.jacobi_sweep.launch(cfg, src, dst, nx, rows)?;
    }
    Ok(in_flight)
}
// ANCHOR_END: overlapped_sweep

/// `sweeps` overlapped sweeps over `bands`.
pub fn overlapped_sweeps(
    k: &[Kernels],
    comms: &[Communicator],
    bands: &mut [SplitBand],
    (nx, sweeps): (u32, u32),
    grid: SweepGrid,
) -> Result<(), Error> {
    let cfgs = grid.configs(k, bands.iter().map(|b| b.body[0].len()))?;
    for s in 0..sweeps {
        for x in overlapped_sweep(k, comms, bands, (nx, s), &cfgs)? {
            x.finish()?;
        }
    }
    Ok(())
}

/// `sweeps` overlapped sweeps of one rank, from a graph of two sweeps
/// captured once (`graph`, made at the first call) and replayed; an odd
/// last sweep runs as itself.
fn graph_sweeps(
    k: &Kernels,
    comm: &Communicator,
    band: &mut SplitBand,
    (nx, sweeps): (u32, u32),
    grid: SweepGrid,
    graph: &mut Option<cooperative_groups::Graph>,
) -> Result<(), Error> {
    let (ks, comms) = (std::slice::from_ref(k), std::slice::from_ref(comm));
    if graph.is_none() {
        let gpu = k.jacobi_sweep.function().gpu().clone();
        let two = |band: &mut SplitBand| {
            overlapped_sweeps(ks, comms, std::slice::from_mut(band), (nx, 2), grid)
        };
        *graph = Some(gpu.capture(|| two(band))?);
    }
    let g = graph.as_ref().expect("made above");
    for _ in 0..sweeps / 2 {
        g.launch()?;
    }
    if sweeps % 2 == 1 {
        let cfgs = grid.configs(ks, std::iter::once(band.body[0].len()))?;
        for x in overlapped_sweep(ks, comms, std::slice::from_mut(band), (nx, 0), &cfgs)? {
            x.finish()?;
        }
    }
    Ok(())
}

/// The rank of one process of the NCCL methods, the number of ranks, and
/// two unique ids (one per communicator: the one that queues on the GPU's
/// stream and the overlapping one), from `CG_NCCL_RANK`, `CG_NCCL_RANKS`
/// and the file `CG_NCCL_ID_FILE` (rank 0 writes the ids, one a line; the
/// others wait up to 120 s for them).
fn join_ranks() -> Result<(usize, usize, [UniqueId; 2]), Error> {
    let var = |name: &str| -> Result<String, Error> {
        std::env::var(name).map_err(|_| Error::Nccl {
            context: "starting an NCCL process".into(),
            message: format!(
                "{name} is not set: a process of `jacobi --nccl-process` needs CG_NCCL_RANK, \
                 CG_NCCL_RANKS and CG_NCCL_ID_FILE (see the README's multi-GPU section)"
            ),
        })
    };
    let number = |name: &str| -> Result<usize, Error> {
        var(name)?.parse().map_err(|_| Error::Nccl {
            context: "starting an NCCL process".into(),
            message: format!("{name} is not a number"),
        })
    };
    let (rank, ranks) = (number("CG_NCCL_RANK")?, number("CG_NCCL_RANKS")?);
    let id_file = PathBuf::from(var("CG_NCCL_ID_FILE")?);
    if rank == 0 {
        let ids = [UniqueId::new()?, UniqueId::new()?];
        let tmp = id_file.with_extension("tmp");
        let io = |source| Error::Io {
            context: format!("writing the NCCL ids to {}", id_file.display()),
            source,
        };
        let text = format!("{}\n{}\n", ids[0].to_hex(), ids[1].to_hex());
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &id_file).map_err(io)?;
        return Ok((rank, ranks, ids));
    }
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&id_file) {
            let mut lines = text.lines();
            let mut next = || UniqueId::from_hex(lines.next().unwrap_or_default());
            return Ok((rank, ranks, [next()?, next()?]));
        }
        if start.elapsed() > Duration::from_secs(120) {
            return Err(Error::Nccl {
                context: format!("rank {rank} waiting for the NCCL id"),
                message: format!(
                    "{} did not appear within 120 s: is rank 0 running?",
                    id_file.display()
                ),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One rank of the NCCL methods with one process per GPU, as across
/// machines: rank `CG_NCCL_RANK` of `CG_NCCL_RANKS`, on GPU `rank % count`
/// (or the one `CUDA_VISIBLE_DEVICES` leaves), the unique ids passed
/// through the file `CG_NCCL_ID_FILE` (rank 0 writes them, the others wait
/// for them; on several machines, a path on a shared file system). Runs
/// the form in turn, the overlapped form and the overlapped form as a
/// graph; each rank checks its band against the single-GPU kernel run on
/// its own GPU, and rank 0 also times that kernel, the speed-ups' base.
pub fn nccl_process(opts: &Options) -> Result<bool, Error> {
    let (rank, ranks, [id, overlapping_id]) = join_ranks()?;
    let gpu = Gpu::new(rank % Gpu::count()?)?;
    let k = Kernels::load(&gpu)?;
    let (nx, ny, sweeps) = problem(opts);
    // Every rank makes the same field: a fixed seed.
    let init = bench::random_f32_seeded(nx * ny, 0x5eed);
    let (first, interior) = bands(ny, ranks)[rank];
    let cfg = k.jacobi_persistent.function().cooperative_config(256, 0)?;
    let (whole, (mut wa, mut wb)) = one_gpu_field(&k, cfg, &init, (nx, ny, sweeps))?;
    let want = &whole[first * nx..(first + interior) * nx];
    let runs = opts.runs.clamp(3, 10);
    let ks = std::slice::from_ref(&k);
    let mut results = Vec::new();
    // One communicator on the GPU's stream (in turn), one on its own
    // (overlapped).
    let in_turn = Communicator::for_rank(&gpu, rank, ranks, &id)?;
    let overlapping = [Communicator::for_rank_overlapping(
        &gpu,
        rank,
        ranks,
        &overlapping_id,
    )?];

    for grid in SweepGrid::ALL {
        // In turn.
        let comms = std::slice::from_ref(&in_turn);
        let mut band = [Band::new(&gpu, &init, nx, first, interior)?];
        let run = |band: &mut [Band]| sweeps_in_turn(ks, comms, band, (nx as u32, sweeps), grid);
        run(&mut band)?;
        let got = band[0].result(sweeps).to_vec()?;
        let verified = got[nx..(interior + 1) * nx] == *want;
        let t = wall_time(runs, || run(&mut band), || gpu.synchronize())?;
        results.push((format!("in turn, {}", grid.name()), t, verified));
        drop(band);
        // Overlapped, then as a graph.
        for graph in [false, true] {
            let mut band = [SplitBand::new(&gpu, &init, nx, first, interior)?];
            let mut captured = None;
            let mut run = |band: &mut [SplitBand]| {
                let shape = (nx as u32, sweeps);
                if graph {
                    graph_sweeps(
                        &k,
                        &overlapping[0],
                        &mut band[0],
                        shape,
                        grid,
                        &mut captured,
                    )
                } else {
                    overlapped_sweeps(ks, &overlapping, band, shape, grid)
                }
            };
            run(&mut band)?;
            let verified = band[0].result(sweeps).to_vec()? == *want;
            let t = wall_time(runs, || run(&mut band), || gpu.synchronize())?;
            let form = if graph {
                "overlapped, CUDA graph"
            } else {
                "overlapped"
            };
            results.push((format!("{form}, {}", grid.name()), t, verified));
        }
    }

    let single = if rank == 0 {
        Some(wall_time(
            runs,
            || {
                k.jacobi_persistent
                    .launch(cfg, &mut wa, &mut wb, nx as u32, ny as u32, sweeps)
            },
            || gpu.synchronize(),
        )?)
    } else {
        None
    };
    if let Some(one) = single {
        println!(
            "rank 0 of {ranks} (GPU {}): Jacobi {nx} x {ny}, {sweeps} sweeps, 1 GPU, persistent \
             {}x{}: {:.2} ms (spread {:.1}%), the speed-ups' base",
            gpu.ordinal(),
            cfg.grid.x,
            cfg.block.x,
            one.ms,
            100.0 * one.spread()
        );
    }
    for (name, t, verified) in &results {
        let speedup = single
            .map(|one| format!(", {:.2}x over 1 GPU", one.ms / t.ms))
            .unwrap_or_default();
        println!(
            "rank {rank} of {ranks} (GPU {}): Jacobi {nx} x {ny}, {sweeps} sweeps, launch per \
             sweep + NCCL, {name}: {:.2} ms (spread {:.1}%), {:.0} sweeps/s{speedup}, band {}",
            gpu.ordinal(),
            t.ms,
            100.0 * t.spread(),
            sweeps as f64 / (t.ms * 1e-3),
            if *verified {
                "verified against one GPU"
            } else {
                "FAILED: differs from one GPU"
            }
        );
    }
    Ok(results.iter().all(|r| r.2))
}
