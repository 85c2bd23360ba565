//! Experiment 4: what one barrier costs, in nanoseconds: `grid.sync()`,
//! block `sync()` and warp-tile `sync()`, each timed over 0 and `ITERS`
//! barriers in one launch of the full cooperative grid.

use crate::bench::Bench;
use crate::kernels::{BarrierCostBlock, BarrierCostGrid, BarrierCostTile};
use crate::results::Row;
use cooperative_groups::{DeviceBuffer, Error, LaunchConfig, LaunchKind};

const ITERS: u32 = 1000;

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

/// Nanoseconds per barrier of each kind, Rust beside CUDA C++.
pub fn barrier_costs(b: &mut Bench) -> Result<(), Error> {
    eprintln!("barrier costs");
    let cfg =
        b.k.barrier_cost_grid
            .function()
            .cooperative_config(256, 0)?;
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
    let names = [
        "barrier: grid.sync()",
        "barrier: block sync()",
        "barrier: warp tile sync()",
    ];
    let mut rows = Vec::new();
    for ((name, twin), i) in names.into_iter().zip(twins).zip(0..) {
        let rust: &dyn BarrierLoop = match i {
            0 => &b.k.barrier_cost_grid,
            1 => &b.k.barrier_cost_block,
            _ => &b.k.barrier_cost_tile,
        };
        let per = |h: &dyn BarrierLoop| -> Result<(f64, bool), Error> {
            let mut out = b.gpu.filled(1, u32::MAX)?;
            let (t0, _) = b.time_pair(|| h.run(cfg, 0, &mut out), crate::bench::NO_TWIN)?;
            let (t1, _) = b.time_pair(|| h.run(cfg, ITERS, &mut out), crate::bench::NO_TWIN)?;
            Ok((
                (t1.ms - t0.ms) * 1e6 / ITERS as f64,
                out.to_vec()? == [ITERS],
            ))
        };
        let (rust_ns, mut ok) = per(rust)?;
        let cuda_ns = match &twin {
            Some(t) => {
                let (ns, tok) = per(&**t)?;
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
