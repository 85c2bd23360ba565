//! Experiment 3: Jacobi sweeps on a 2-D Laplace grid — one persistent
//! cooperative kernel with `grid.sync()` between sweeps, one that runs
//! several sweeps in shared memory between grid barriers (where its bands
//! fit), one launch per sweep, and the same launches replayed from a CUDA
//! graph. All methods (and for the small grid a CPU reference) must give
//! the same field, bit for bit.

use crate::bench::{self, Bench};
use crate::kernels::{JacobiInShared, JacobiPersistent, JacobiSweep};
use crate::results::{Row, Timing};
use cg_sample_kernels::jacobi::in_shared_bytes;
use cooperative_groups::{DeviceBuffer, Error, Function, Gpu, LaunchConfig, LaunchKind};

/// The sweeps on the CPU, in the kernels' order of operations.
pub fn jacobi_cpu(init: &[f32], nx: usize, ny: usize, sweeps: u32) -> Vec<f32> {
    let (mut a, mut b) = (init.to_vec(), init.to_vec());
    for _ in 0..sweeps {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                let i = y * nx + x;
                b[i] = 0.25 * (((a[i - 1] + a[i + 1]) + a[i - nx]) + a[i + nx]);
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    a
}

struct Methods<'a> {
    persistent: &'a JacobiPersistent,
    in_shared: &'a JacobiInShared,
    sweep: &'a JacobiSweep,
}

impl Methods<'_> {
    fn run(
        &self,
        method: Method,
        a: &mut DeviceBuffer<f32>,
        b: &mut DeviceBuffer<f32>,
        nx: u32,
        ny: u32,
        sweeps: u32,
    ) -> Result<(), Error> {
        match method {
            Method::Persistent(cfg) => self.persistent.launch(cfg, a, b, nx, ny, sweeps),
            Method::InShared(cfg, depth) => self.in_shared.launch(cfg, a, b, nx, ny, sweeps, depth),
            Method::PerSweep(cfg) => self.per_sweep(cfg, a, b, nx, ny, sweeps),
        }
    }

    fn per_sweep(
        &self,
        cfg: LaunchConfig,
        a: &mut DeviceBuffer<f32>,
        b: &mut DeviceBuffer<f32>,
        nx: u32,
        ny: u32,
        sweeps: u32,
    ) -> Result<(), Error> {
        for s in 0..sweeps {
            if s % 2 == 0 {
                self.sweep.launch(cfg, a, b, nx, ny)?;
            } else {
                self.sweep.launch(cfg, b, a, nx, ny)?;
            }
        }
        Ok(())
    }
}

/// One of the timed methods.
#[derive(Clone, Copy)]
enum Method {
    /// The persistent kernel on this grid.
    Persistent(LaunchConfig),
    /// The kernel that sweeps in shared memory, on this grid at this depth.
    InShared(LaunchConfig, u32),
    /// One launch per sweep, of this shape.
    PerSweep(LaunchConfig),
}

/// The buffer of a ping-pong pair that holds the field after `sweeps`
/// (`a` for an even count, `b` for an odd one).
pub fn holding<'a>(
    a: &'a DeviceBuffer<f32>,
    b: &'a DeviceBuffer<f32>,
    sweeps: u32,
) -> &'a DeviceBuffer<f32> {
    if sweeps.is_multiple_of(2) {
        a
    } else {
        b
    }
}

/// The field after `sweeps`, read back.
fn result(a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, sweeps: u32) -> Result<Vec<f32>, Error> {
    holding(a, b, sweeps).to_vec()
}

/// The two buffers of a field that sweeps ping-pong between.
pub type PingPong = (DeviceBuffer<f32>, DeviceBuffer<f32>);

/// A ping-pong pair, both holding `init` (the boundary values included).
pub fn fresh(gpu: &Gpu, init: &[f32]) -> Result<PingPong, Error> {
    Ok((gpu.upload(init)?, gpu.upload(init)?))
}

/// The grids a persistent Jacobi kernel runs on: every thread slot of the
/// GPU in blocks of 256 threads (`full`) and in blocks of 1024 (`wide`: as
/// many blocks as are co-resident, the same threads with a quarter of the
/// arrivals at each grid barrier), and one block of 1024 threads per SM
/// (`lean`: an eighth of `full`'s arrivals, half its threads).
pub fn persistent_grids(f: &Function) -> Result<PersistentGrids, Error> {
    let sms = f.gpu().info().multiprocessors;
    Ok(PersistentGrids {
        full: f.cooperative_config(256, 0)?,
        wide: f.cooperative_config(1024, 0)?,
        lean: LaunchConfig::new(sms.min(f.max_cooperative_blocks(1024, 0)?), 1024),
    })
}

/// What [`persistent_grids`] returns.
#[derive(Clone, Copy, Debug)]
pub struct PersistentGrids {
    /// Every thread slot, blocks of 256 threads.
    pub full: LaunchConfig,
    /// Every thread slot, blocks of 1024 threads.
    pub wide: LaunchConfig,
    /// One block of 1024 threads per SM.
    pub lean: LaunchConfig,
}

/// The sweeps per grid barrier the shared-memory method runs at (the
/// fastest depths on a 512 x 512 field: `docs/probes/jacobi_sweeps_in_shared.cu`).
pub const IN_SHARED_DEPTHS: [u32; 2] = [4, 6];

/// The launch of [`JacobiInShared`] for an `nx` x `ny` field at `depth`
/// sweeps per barrier: one block of 1024 threads per SM (the fastest shape
/// measured), with the shared memory its bands need; `None` when they do
/// not fit in a block's shared memory or the blocks cannot all be resident.
pub fn in_shared_config(
    f: &Function,
    nx: u32,
    ny: u32,
    depth: u32,
) -> Result<Option<LaunchConfig>, Error> {
    let info = f.gpu().info();
    let blocks = info.multiprocessors;
    let bytes = in_shared_bytes(nx, ny, blocks, depth);
    if bytes > info.limits.max_shared_mem_optin as u64 {
        return Ok(None);
    }
    let bytes = bytes as u32;
    if f.max_cooperative_blocks(1024, bytes)? < blocks {
        return Ok(None);
    }
    Ok(Some(LaunchConfig::new(blocks, 1024).with_shared_mem(bytes)))
}

/// Runs the Jacobi rows for each `(nx, ny, sweeps)`.
pub fn jacobi(b: &mut Bench, shapes: &[(u32, u32, u32)]) -> Result<(), Error> {
    eprintln!("jacobi");
    // SAFETY: the twins have the Rust kernels' parameters.
    let twins = unsafe {
        match (
            b.twin(
                "jacobi_persistent",
                LaunchKind::Cooperative,
                JacobiPersistent::from_function,
            )?,
            b.twin(
                "jacobi_in_shared",
                LaunchKind::Cooperative,
                JacobiInShared::from_function,
            )?,
            b.twin(
                "jacobi_sweep",
                LaunchKind::Plain,
                JacobiSweep::from_function,
            )?,
        ) {
            (Some(p), Some(i), Some(s)) => Some((p, i, s)),
            _ => None,
        }
    };
    let grids = persistent_grids(b.k.jacobi_persistent.function())?;
    let persistent = [grids.full, grids.wide, grids.lean];
    let mut rows = Vec::new();
    for &(nx, ny, sweeps) in shapes {
        let len = nx as usize * ny as usize;
        let init = bench::random_f32(len);
        let per_sweep_cfg = LaunchConfig::for_elements(len, 256);
        let rust = Methods {
            persistent: &b.k.jacobi_persistent,
            in_shared: &b.k.jacobi_in_shared,
            sweep: &b.k.jacobi_sweep,
        };
        let cuda = twins.as_ref().map(|(p, i, s)| Methods {
            persistent: p,
            in_shared: i,
            sweep: s,
        });
        let mut in_shared = Vec::new();
        for depth in IN_SHARED_DEPTHS {
            match in_shared_config(b.k.jacobi_in_shared.function(), nx, ny, depth)? {
                Some(cfg) => in_shared.push((cfg, depth)),
                None => eprintln!(
                    "  jacobi in shared memory, {depth} sweeps a barrier: {nx}x{ny} does not fit \
                     ({} bytes of shared memory a block), not run",
                    in_shared_bytes(nx, ny, b.gpu.info().multiprocessors, depth)
                ),
            }
        }
        let reference = if len <= 1 << 20 {
            Some(jacobi_cpu(&init, nx as usize, ny as usize, sweeps))
        } else {
            None
        };
        let size = format!("{nx}x{ny}x{sweeps}");
        let bytes = 8.0 * len as f64 * sweeps as f64;

        // Verify: every method from the same start gives the same field.
        let mut fields = Vec::new();
        for m in std::iter::once(&rust).chain(cuda.as_ref()) {
            let methods = persistent
                .iter()
                .map(|&c| Method::Persistent(c))
                .chain(
                    in_shared
                        .iter()
                        .map(|&(c, depth)| Method::InShared(c, depth)),
                )
                .chain([Method::PerSweep(per_sweep_cfg)]);
            for method in methods {
                let (mut a, mut bb) = fresh(&b.gpu, &init)?;
                m.run(method, &mut a, &mut bb, nx, ny, sweeps)?;
                fields.push(result(&a, &bb, sweeps)?);
            }
        }
        // A CUDA graph needs a GPU: on the simulator that method is left
        // out.
        let (mut ga, mut gb) = fresh(&b.gpu, &init)?;
        let graph = if b.gpu.is_simulator() {
            None
        } else {
            let (a, bb) = (&mut ga, &mut gb);
            let graph = b
                .gpu
                .capture(|| rust.per_sweep(per_sweep_cfg, a, bb, nx, ny, sweeps))?;
            graph.launch()?;
            fields.push(result(&ga, &gb, sweeps)?);
            Some(graph)
        };
        let same = fields.windows(2).all(|w| w[0] == w[1]);
        let matches_cpu = reference.as_ref().is_none_or(|r| r == &fields[0]);
        let verified = same && matches_cpu;

        let (mut a, mut bb) = fresh(&b.gpu, &init)?;
        let (mut ta, mut tb) = fresh(&b.gpu, &init)?;
        let mut time = |method: Method| -> Result<(Timing, Option<Timing>), Error> {
            let (a, bb, ta, tb) = (&mut a, &mut bb, &mut ta, &mut tb);
            let c = cuda
                .as_ref()
                .map(|m| move || m.run(method, ta, tb, nx, ny, sweeps));
            b.time_pair(|| rust.run(method, a, bb, nx, ny, sweeps), c)
        };
        let mut timed = Vec::new();
        for coop in persistent {
            let (r, c) = time(Method::Persistent(coop))?;
            let name = format!("jacobi: persistent {}x{}", coop.grid.x, coop.block.x);
            timed.push((name, r, c));
        }
        for (cfg, depth) in in_shared {
            let (r, c) = time(Method::InShared(cfg, depth))?;
            let name = format!(
                "jacobi: in shared, {depth} sweeps a barrier {}x{}",
                cfg.grid.x, cfg.block.x
            );
            timed.push((name, r, c));
        }
        let (sr, sc) = time(Method::PerSweep(per_sweep_cfg))?;
        // The graph replays launches on these very buffers: keep them alive
        // as long as the graph.
        let (mut ca, mut cb) = fresh(&b.gpu, &init)?;
        let cuda_graph = match &cuda {
            Some(m) => {
                let (a, bb) = (&mut ca, &mut cb);
                Some(
                    b.gpu
                        .capture(|| m.per_sweep(per_sweep_cfg, a, bb, nx, ny, sweeps))?,
                )
            }
            None => None,
        };
        let graphed = match &graph {
            Some(graph) => {
                let c = cuda_graph.as_ref().map(|g| move || g.launch());
                let (gr, gc) = b.time_pair(|| graph.launch(), c)?;
                Some(("jacobi: launches replayed from a graph".to_string(), gr, gc))
            }
            None => None,
        };
        for (name, r, c) in timed
            .into_iter()
            .chain([("jacobi: one launch per sweep".to_string(), sr, sc)])
            .chain(graphed)
        {
            rows.push(Row::timed(&name, &size, r, c, bytes, verified));
        }
    }
    for r in rows {
        b.push(r);
    }
    Ok(())
}
