//! Experiment 4: what one barrier costs, in nanoseconds: `grid.sync()`,
//! block `sync()` and warp-tile `sync()`, each timed over 0 and `ITERS`
//! barriers in one launch of the full cooperative grid (`QUICK_ITERS`
//! with `--quick`, a smoke run that also runs under compute-sanitizer).

use crate::bench::Bench;
use crate::experiments::jacobi::{persistent_grids, PersistentGrids};
use crate::kernels::{BarrierCostBlock, BarrierCostGrid, BarrierCostTile};
use crate::results::Row;
use cooperative_groups::{DeviceBuffer, Error, LaunchConfig, LaunchKind};

const ITERS: u32 = 1000;

/// Barriers a launch with `--quick`: under racecheck 1,000 grid barriers
/// on both grids took more than 120 s, and 50 of the spread barrier (16
/// lanes a block polling, each poll a vote) more than 100 s.
const QUICK_ITERS: u32 = 10;

trait BarrierLoop {
    fn run(&self, cfg: LaunchConfig, iters: u32, out: &mut DeviceBuffer<u32>) -> Result<(), Error>;
}

macro_rules! barrier_handles {
    ($($t:ty),*) => {$(
        impl BarrierLoop for $t {
            fn run(&self, cfg: LaunchConfig, iters: u32, out: &mut DeviceBuffer<u32>) -> Result<(), Error> {
                self.launch(cfg, iters, out)
            }
        }
    )*};
}
barrier_handles!(BarrierCostGrid, BarrierCostBlock, BarrierCostTile);

/// One row: its name, its grid, the Rust kernel and its twin.
type Run<'a> = (
    &'static str,
    LaunchConfig,
    &'a dyn BarrierLoop,
    Option<&'a dyn BarrierLoop>,
);

/// Nanoseconds per barrier of each kind, Rust beside CUDA C++; the grid
/// barrier also on one block of 1024 threads per SM (the fewest arrivals,
/// where the fastest persistent Jacobi runs).
pub fn barrier_costs(b: &mut Bench) -> Result<(), Error> {
    eprintln!("barrier costs");
    // The persistent Jacobi kernels' full and lean grids.
    let PersistentGrids {
        full: cfg, lean, ..
    } = persistent_grids(b.k.barrier_cost_grid.function())?;
    let iters = if b.opts.quick { QUICK_ITERS } else { ITERS };
    // SAFETY: the twins have the Rust kernels' parameters.
    let twins: [Option<Box<dyn BarrierLoop>>; 3] = unsafe {
        [
            b.twin(
                "barrier_cost_grid",
                LaunchKind::Cooperative,
                BarrierCostGrid::from_function,
            )?
            .map(|h| Box::new(h) as _),
            b.twin(
                "barrier_cost_block",
                LaunchKind::Plain,
                BarrierCostBlock::from_function,
            )?
            .map(|h| Box::new(h) as _),
            b.twin(
                "barrier_cost_tile",
                LaunchKind::Plain,
                BarrierCostTile::from_function,
            )?
            .map(|h| Box::new(h) as _),
        ]
    };
    let [grid_twin, block_twin, tile_twin] = twins;
    let runs: [Run; 4] = [
        (
            "barrier: grid.sync()",
            cfg,
            &b.k.barrier_cost_grid,
            grid_twin.as_deref(),
        ),
        (
            "barrier: grid.sync()",
            lean,
            &b.k.barrier_cost_grid,
            grid_twin.as_deref(),
        ),
        (
            "barrier: block sync()",
            cfg,
            &b.k.barrier_cost_block,
            block_twin.as_deref(),
        ),
        (
            "barrier: warp tile sync()",
            cfg,
            &b.k.barrier_cost_tile,
            tile_twin.as_deref(),
        ),
    ];
    let mut rows = Vec::new();
    for (name, cfg, rust, twin) in runs {
        let per = |h: &dyn BarrierLoop| -> Result<(f64, bool), Error> {
            let mut out = b.gpu.filled(1, u32::MAX)?;
            let (t0, _) = b.time_pair(|| h.run(cfg, 0, &mut out), crate::bench::NO_TWIN)?;
            let (t1, _) = b.time_pair(|| h.run(cfg, iters, &mut out), crate::bench::NO_TWIN)?;
            Ok((
                (t1.ms - t0.ms) * 1e6 / iters as f64,
                out.to_vec()? == [iters],
            ))
        };
        let (rust_ns, mut ok) = per(rust)?;
        let cuda_ns = match twin {
            Some(t) => {
                let (ns, tok) = per(t)?;
                ok &= tok;
                Some(ns)
            }
            None => None,
        };
        rows.push(Row {
            name: name.into(),
            size: format!("{}x{}", cfg.grid.x, cfg.block.x),
            rust: rust_ns,
            cuda: cuda_ns,
            library: None,
            unit: "ns",
            bytes: None,
            verified: ok,
            // A difference of two medians: no run-to-run spread of its own.
            spread: (None, None),
        });
    }
    for r in rows {
        b.push(r);
    }
    Ok(())
}
