//! Experiment 7, the async-copy guide's kernels (seeds/002), each checked
//! and timed beside its CUDA C++ twin (`cg::memcpy_async`,
//! `cuda::barrier`, `cuda::pipeline`): vector addition through shared
//! memory by hand, with `memcpy_async` + `wait`, with copies on a block
//! barrier and through a pipeline of 4 and of 8 stages, and the pipelined
//! "in between" kernel; with the device-to-device copy rate at the same
//! size as the ceiling.

use crate::bench::{self, Bench, NO_TWIN};
use crate::kernels::{
    InBetweenPipelined, VaddBarrier, VaddMemcpyAsync, VaddPipelined4, VaddPipelined8, VaddSync,
};
use crate::results::{self, Row};
use cooperative_groups::{Error, Function, LaunchConfig};
use rand::Rng;

const THREADS: u32 = 256;
const STAGES: u32 = 4;

/// The grid both sides get: as many blocks as fit on the GPU at once for
/// the kernel that fits fewer.
fn resident_grid(b: &Bench, functions: &[&Function], smem: u32) -> Result<u32, Error> {
    let mut per_sm = u32::MAX;
    for f in functions {
        per_sm = per_sm.min(f.max_blocks_per_sm(THREADS, smem)?);
    }
    Ok(per_sm.max(1) * b.gpu.info().multiprocessors)
}

/// Runs the rows at `2^log2` elements each.
pub fn async_copies(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("async copies (seeds/002)");
    for &log2 in log2s {
        let n = 1usize << log2;
        let size = results::size_label(n);
        let (a, bb) = (bench::random_f32(n), bench::random_f32(n));
        let (da, db) = (b.gpu.upload(&a)?, b.gpu.upload(&bb)?);

        // The ceiling: copying one array (read + write) at this size.
        let mut copy = b.gpu.alloc_uninit::<f32>(n)?;
        let (r, _) = b.time_pair(|| copy.copy_from_device(&da), NO_TWIN)?;
        let copy_rate = 8.0 * n as f64 / (r.ms * 1e-3) / 1e9;
        b.push(Row::timed(
            "async: device copy (ceiling)",
            &size,
            r,
            None,
            8.0 * n as f64,
            true,
        ));
        drop(copy);

        let check = |c: &[f32]| {
            c.iter()
                .zip(a.iter().zip(&bb))
                .all(|(&c, (&x, &y))| c.to_bits() == (x + y).to_bits())
        };
        // One vector-add row: our kernel `b.k.$field` and the twin of the
        // same name, on the same resident grid, both checked, then timed.
        macro_rules! vadd_row {
            ($name:expr, $stages:expr, $field:ident, $handle:ty) => {{
                // SAFETY: kernels/cuda/kernels.cu declares the twin with the Rust kernel's parameters.
                let twin = unsafe {
                    b.twin(
                        stringify!($field),
                        <$handle>::KIND,
                        <$handle>::from_function,
                    )?
                };
                let smem = 2 * $stages * THREADS * 4;
                let mut functions = vec![b.k.$field.function()];
                if let Some(t) = &twin {
                    functions.push(t.function());
                }
                let cfg = LaunchConfig::new(resident_grid(b, &functions, smem)?, THREADS)
                    .with_shared_mem(smem);
                let mut c = b.gpu.filled(n, f32::NAN)?;
                b.k.$field.launch(cfg, &da, &db, &mut c)?;
                let mut ok = check(&c.to_vec()?);
                let mut tc = b.gpu.filled(n, f32::NAN)?;
                if let Some(t) = &twin {
                    t.launch(cfg, &da, &db, &mut tc)?;
                    ok &= check(&tc.to_vec()?);
                }
                let (r, t) = {
                    let (da, db, tc) = (&da, &db, &mut tc);
                    let cuda = twin.as_ref().map(|t| move || t.launch(cfg, da, db, tc));
                    let (k, c) = (&b.k.$field, &mut c);
                    b.time_pair(|| k.launch(cfg, da, db, c), cuda)?
                };
                let bytes = 12.0 * n as f64;
                if !b.gpu.is_simulator() {
                    eprintln!(
                        "    {}: {:.0}% of the copy rate",
                        $name,
                        100.0 * bytes / (r.ms * 1e-3) / 1e9 / copy_rate
                    );
                }
                b.push(Row::timed($name, &size, r, t, bytes, ok));
            }};
        }
        vadd_row!("async: vadd, manual copy + sync", 1, vadd_sync, VaddSync);
        vadd_row!(
            "async: vadd, memcpy_async + wait",
            1,
            vadd_memcpy_async,
            VaddMemcpyAsync
        );
        vadd_row!(
            "async: vadd, copies on a barrier",
            1,
            vadd_barrier,
            VaddBarrier
        );
        vadd_row!(
            "async: vadd, pipeline of 4 stages",
            STAGES,
            vadd_pipelined_4,
            VaddPipelined4
        );
        vadd_row!(
            "async: vadd, pipeline of 8 stages",
            8,
            vadd_pipelined_8,
            VaddPipelined8
        );

        // The guide's pipelined "in between" kernel.
        let mut rng = rand::rng();
        let src: Vec<i32> = (0..n).map(|_| rng.random_range(-1000..1000)).collect();
        let din = b.gpu.upload(&src)?;
        // SAFETY: kernels/cuda/kernels.cu declares the twin
        // `in_between_pipelined` with the Rust kernel's parameters, in order
        // and of the same types.
        let twin = unsafe {
            b.twin(
                "in_between_pipelined",
                InBetweenPipelined::KIND,
                InBetweenPipelined::from_function,
            )?
        };
        let smem = STAGES * THREADS * 4;
        let mut functions = vec![b.k.in_between_pipelined.function()];
        if let Some(t) = &twin {
            functions.push(t.function());
        }
        let cfg =
            LaunchConfig::new(resident_grid(b, &functions, smem)?, THREADS).with_shared_mem(smem);
        let check = |d: &[i32]| {
            src.chunks(THREADS as usize)
                .zip(d.chunks(THREADS as usize))
                .all(|(s, d)| {
                    let (first, last) = (s[0], s[s.len() - 1]);
                    s.iter()
                        .zip(d)
                        .all(|(&v, &r)| r == (first < v && v < last) as i32)
                })
        };
        let mut dest = b.gpu.filled(n, -1i32)?;
        b.k.in_between_pipelined.launch(cfg, &din, &mut dest)?;
        let mut ok = check(&dest.to_vec()?);
        let mut tdest = b.gpu.filled(n, -1i32)?;
        if let Some(t) = &twin {
            t.launch(cfg, &din, &mut tdest)?;
            ok &= check(&tdest.to_vec()?);
        }
        let (r, c) = {
            let (din, tdest) = (&din, &mut tdest);
            let cuda = twin.as_ref().map(|t| move || t.launch(cfg, din, tdest));
            let (k, dest) = (&b.k.in_between_pipelined, &mut dest);
            b.time_pair(|| k.launch(cfg, din, dest), cuda)?
        };
        b.push(Row::timed(
            "async: in between, pipeline of 4 stages",
            &size,
            r,
            c,
            8.0 * n as f64,
            ok,
        ));
    }
    Ok(())
}
