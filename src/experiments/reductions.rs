//! Block reductions (classic tree, warp tile, hierarchical tiles, each
//! also with eight chunks per block; the library's block collective
//! against CUB's) and
//! whole-array sums (cooperative, cooperative with 16-byte loads, two
//! launches, one atomic per element, CUB).

use crate::bench::{self, Bench};
use crate::kernels::{
    BlockReduceClassic, BlockReduceClassic256, BlockReduceClassicChunks, BlockReduceHierarchical,
    BlockReduceHierarchical256, BlockReduceHierarchicalChunks, BlockReduceLibrary, BlockReduceWarp,
    BlockReduceWarp256, BlockReduceWarpChunks, GridSum, GridSumVec4, SumAtomic, SumBlockPartials,
    SumLastBlock, SumPartials,
};
use crate::results::{self, Row, Timing};
use cg_sample_kernels::block_reduce::CHUNKS;

// The rows below name the chunk count.
const _: () = assert!(CHUNKS == 8);
use cooperative_groups::{DeviceBuffer, Error, LaunchConfig, LaunchKind};

const THREADS: u32 = 256;

// The `*_256` kernels' blocks are the rows' blocks.
const _: () = assert!(matches!(
    BlockReduceClassic256::BLOCK_SHAPE,
    Some([THREADS, 1, 1])
));

/// A block-reduction kernel's typed handle, whatever its name.
trait BlockReduce {
    fn run(
        &self,
        cfg: LaunchConfig,
        input: &DeviceBuffer<f32>,
        out: &mut DeviceBuffer<f32>,
    ) -> Result<(), Error>;
}

macro_rules! block_reduce_handles {
    ($($t:ty),*) => {$(
        impl BlockReduce for $t {
            fn run(&self, cfg: LaunchConfig, input: &DeviceBuffer<f32>, out: &mut DeviceBuffer<f32>) -> Result<(), Error> {
                self.launch(cfg, input, out)
            }
        }
    )*};
}
block_reduce_handles!(
    BlockReduceClassic,
    BlockReduceWarp,
    BlockReduceHierarchical,
    BlockReduceClassic256,
    BlockReduceWarp256,
    BlockReduceHierarchical256,
    BlockReduceLibrary,
    BlockReduceClassicChunks,
    BlockReduceWarpChunks,
    BlockReduceHierarchicalChunks
);

/// One block-reduction row: its name, the Rust kernel, its CUDA C++ twin,
/// the launch shape, and the earlier row whose sums must have the same
/// bits (a chunked kernel's one-chunk form).
struct Entry<'a> {
    name: &'static str,
    rust: &'a dyn BlockReduce,
    twin: Option<Box<dyn BlockReduce>>,
    cfg: LaunchConfig,
    same_bits_as: Option<usize>,
}

/// An [`Entry`] for the kernel `$field` of `$b.k`, of handle type
/// `$handle`, and its twin of the same name.
macro_rules! entry {
    ($b:expr, $name:expr, $field:ident, $handle:ty, $cfg:expr, $same:expr) => {
        Entry {
            name: $name,
            rust: &$b.k.$field,
            // SAFETY: kernels/cuda/kernels.cu declares each twin with the
            // Rust kernel's parameters.
            twin: boxed(unsafe {
                $b.twin(
                    stringify!($field),
                    LaunchKind::Plain,
                    <$handle>::from_function,
                )?
            }),
            cfg: $cfg,
            same_bits_as: $same,
        }
    };
}

/// Experiment 1: one partial sum per 256-thread block, ten ways.
pub fn block_reductions(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("block reductions, {THREADS} threads per block");
    for &log2 in log2s {
        let n = 1usize << log2;
        let values = bench::random_f32(n);
        let input = b.gpu.upload(&values)?;
        let cfg = LaunchConfig::for_elements(n, THREADS);
        let blocks = cfg.num_blocks() as usize;
        // The *_chunks kernels: CHUNKS chunks of THREADS elements per block.
        let chunks_cfg = LaunchConfig::new(n.div_ceil(THREADS as usize * CHUNKS) as u32, THREADS);
        let entries = [
            entry!(
                b,
                "block reduce: classic shared tree",
                block_reduce_classic,
                BlockReduceClassic,
                cfg,
                None
            ),
            entry!(
                b,
                "block reduce: warp tile shuffles",
                block_reduce_warp,
                BlockReduceWarp,
                cfg,
                None
            ),
            entry!(
                b,
                "block reduce: hierarchical tiles 4/32",
                block_reduce_hierarchical,
                BlockReduceHierarchical,
                cfg,
                None
            ),
            entry!(
                b,
                "block reduce: classic, block_size(256), last warp in registers",
                block_reduce_classic_256,
                BlockReduceClassic256,
                cfg,
                Some(0)
            ),
            entry!(
                b,
                "block reduce: warp tiles, block_size(256), totals in thread 0",
                block_reduce_warp_256,
                BlockReduceWarp256,
                cfg,
                Some(1)
            ),
            entry!(
                b,
                "block reduce: hierarchical, block_size(256), totals in thread 0",
                block_reduce_hierarchical_256,
                BlockReduceHierarchical256,
                cfg,
                Some(2)
            ),
            entry!(
                b,
                "block reduce: library block_reduce_to_first vs CUB",
                block_reduce_library,
                BlockReduceLibrary,
                cfg,
                None
            ),
            entry!(
                b,
                "block reduce: classic, 8 chunks per block",
                block_reduce_classic_chunks,
                BlockReduceClassicChunks,
                chunks_cfg,
                Some(0)
            ),
            entry!(
                b,
                "block reduce: warp tiles, 8 chunks per block",
                block_reduce_warp_chunks,
                BlockReduceWarpChunks,
                chunks_cfg,
                Some(1)
            ),
            entry!(
                b,
                "block reduce: hierarchical, 8 chunks per block",
                block_reduce_hierarchical_chunks,
                BlockReduceHierarchicalChunks,
                chunks_cfg,
                Some(2)
            ),
        ];
        let mut rows = Vec::new();
        let mut sums: Vec<Vec<f32>> = Vec::new();
        for Entry {
            name,
            rust,
            twin: cuda,
            cfg,
            same_bits_as,
        } in entries
        {
            let mut out = b.gpu.filled(blocks, f32::NAN)?;
            let mut twin_out = b.gpu.filled(blocks, f32::NAN)?;
            let (rust_ms, cuda_ms) = {
                let (input, o, t) = (&input, &mut out, &mut twin_out);
                let c = cuda.as_ref().map(|h| move || h.run(cfg, input, t));
                b.time_pair(|| rust.run(cfg, input, o), c)?
            };
            let got = out.to_vec()?;
            let mut verified = blocks_close(&got, &values);
            if cuda.is_some() {
                verified &= blocks_close(&twin_out.to_vec()?, &values);
            }
            if let Some(one_chunk) = same_bits_as {
                verified &= bits(&got) == bits(&sums[one_chunk]);
            }
            sums.push(got);
            rows.push(Row::timed(
                name,
                &results::size_label(n),
                rust_ms,
                cuda_ms,
                4.0 * n as f64,
                verified,
            ));
        }
        for r in rows {
            b.push(r);
        }
    }
    Ok(())
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn boxed<H: BlockReduce + 'static>(h: Option<H>) -> Option<Box<dyn BlockReduce>> {
    h.map(|h| Box::new(h) as Box<dyn BlockReduce>)
}

fn blocks_close(sums: &[f32], values: &[f32]) -> bool {
    sums.len() == values.len().div_ceil(THREADS as usize)
        && values
            .chunks(THREADS as usize)
            .zip(sums)
            .all(|(c, &s)| bench::sum_close(s, c))
}

/// `cg_cub_sum` from kernels/cuda/lib_cub_sum.cu.
type CubSum = unsafe extern "C" fn(*const f32, *mut f32, u64, i32, i32, *mut f32) -> i32;

/// Experiment 2: the whole array to one scalar, five ways.
pub fn array_sums(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("whole-array sums");
    // No copy rate on the simulator (nothing there is timed as on a GPU).
    let copy = if b.gpu.is_simulator() {
        None
    } else {
        Some(b.copy_gbps()?)
    };
    if let Some(copy) = copy {
        eprintln!("  device-to-device copy: {copy:.0} GB/s (read + write, 1 GiB)");
    }
    // SAFETY: CubSum is cg_cub_sum's signature (kernels/cuda/lib_cub_sum.cu).
    let cub: Option<CubSum> = unsafe { b.library_fn("lib_cub_sum.so", "cg_cub_sum") };
    let coop = b.k.grid_sum.function().cooperative_config(THREADS, 0)?;
    let coop4 =
        b.k.grid_sum_vec4
            .function()
            .cooperative_config(THREADS, 0)?;
    for &log2 in log2s {
        let n = 1usize << log2;
        let values = bench::random_f32(n);
        let input = b.gpu.upload(&values)?;
        let size = results::size_label(n);
        let row = |name: &str,
                   rust: Timing,
                   cuda: Option<Timing>,
                   library: Option<f64>,
                   verified: bool| Row {
            library,
            ..Row::timed(name, &size, rust, cuda, 4.0 * n as f64, verified)
        };

        // Cooperative, one load at a time, and with 16-byte loads.
        for (name, vec4) in [
            ("sum: cooperative grid.sync", false),
            ("sum: cooperative, 16-byte loads", true),
        ] {
            let cfg = if vec4 { coop4 } else { coop };
            let blocks = cfg.grid.x as usize;
            let (mut p, mut o) = (b.gpu.filled(blocks, f32::NAN)?, b.gpu.filled(1, f32::NAN)?);
            let (mut tp, mut to) = (b.gpu.filled(blocks, f32::NAN)?, b.gpu.filled(1, f32::NAN)?);
            // SAFETY: the twins have the Rust kernels' parameters.
            let (twin, twin4) = unsafe {
                (
                    b.twin("grid_sum", LaunchKind::Cooperative, GridSum::from_function)?,
                    b.twin(
                        "grid_sum_vec4",
                        LaunchKind::Cooperative,
                        GridSumVec4::from_function,
                    )?,
                )
            };
            let (r, c) = {
                let (input, tp, to) = (&input, &mut tp, &mut to);
                let cuda: Option<Box<dyn FnMut() -> Result<(), Error>>> =
                    match (vec4, &twin, &twin4) {
                        (false, Some(t), _) => Some(Box::new(move || t.launch(cfg, input, tp, to))),
                        (true, _, Some(t)) => Some(Box::new(move || t.launch(cfg, input, tp, to))),
                        _ => None,
                    };
                let (k, k4) = (&b.k.grid_sum, &b.k.grid_sum_vec4);
                let (p, o) = (&mut p, &mut o);
                b.time_pair(
                    || {
                        if vec4 {
                            k4.launch(cfg, input, p, o)
                        } else {
                            k.launch(cfg, input, p, o)
                        }
                    },
                    cuda,
                )?
            };
            let mut ok = bench::sum_close(o.to_vec()?[0], &values);
            if c.is_some() {
                ok &= bench::sum_close(to.to_vec()?[0], &values);
            }
            let mut lib = None;
            if let (true, Some(cub)) = (vec4, cub) {
                let mut out = b.gpu.filled(1, f32::NAN)?;
                b.gpu.synchronize()?;
                let mut ms = 0.0f32;
                // SAFETY: live device buffers of n floats and of 1 float.
                let rc = unsafe {
                    cub(
                        input.device_address() as *const f32,
                        out.device_address() as *mut f32,
                        n as u64,
                        5,
                        b.opts.runs as i32,
                        &mut ms,
                    )
                };
                ok &= rc == 0 && bench::sum_close(out.to_vec()?[0], &values);
                out.copy_from(&[0.0])?;
                lib = Some(ms as f64 * 1e3);
            }
            b.push(row(name, r, c, lib, ok));
        }

        // One ordinary launch on the same grid: the last block to finish
        // adds the partials (a ticket from an AcqRel fetch_add).
        {
            let cfg = coop4;
            let blocks = cfg.grid.x as usize;
            let mut p = b.gpu.filled(blocks, f32::NAN)?;
            let (mut t, mut o) = (b.gpu.filled(1, 0u32)?, b.gpu.filled(1, f32::NAN)?);
            let mut tp = b.gpu.filled(blocks, f32::NAN)?;
            let (mut tt, mut to) = (b.gpu.filled(1, 0u32)?, b.gpu.filled(1, f32::NAN)?);
            // SAFETY: the twin has the Rust kernel's parameters.
            let twin = unsafe {
                b.twin(
                    "sum_last_block",
                    LaunchKind::Plain,
                    SumLastBlock::from_function,
                )?
            };
            let (r, c) = {
                let (input, tp, tt, to) = (&input, &mut tp, &mut tt, &mut to);
                let cuda = twin
                    .as_ref()
                    .map(|k| move || k.launch(cfg, input, tp, tt, to));
                let (k, p, t, o) = (&b.k.sum_last_block, &mut p, &mut t, &mut o);
                b.time_pair(|| k.launch(cfg, input, p, t, o), cuda)?
            };
            let mut ok = bench::sum_close(o.to_vec()?[0], &values) && t.to_vec()? == [0];
            if c.is_some() {
                ok &= bench::sum_close(to.to_vec()?[0], &values) && tt.to_vec()? == [0];
            }
            b.push(row("sum: one launch, last block done", r, c, None, ok));
        }

        // Two launches: grid-stride block partials on the grid that fills
        // the GPU once, then one block adds them.
        let cfg = coop4;
        let blocks = cfg.num_blocks() as usize;
        let one = LaunchConfig::new(1, 1024);
        let (mut p, mut o) = (b.gpu.filled(blocks, f32::NAN)?, b.gpu.filled(1, f32::NAN)?);
        let (mut tp, mut to) = (b.gpu.filled(blocks, f32::NAN)?, b.gpu.filled(1, f32::NAN)?);
        // SAFETY: the twins have the Rust kernels' parameters.
        let twins = unsafe {
            (
                b.twin(
                    "sum_block_partials",
                    LaunchKind::Plain,
                    SumBlockPartials::from_function,
                )?,
                b.twin(
                    "sum_partials",
                    LaunchKind::Plain,
                    SumPartials::from_function,
                )?,
            )
        };
        let (r, c) = {
            let (input, tp, to) = (&input, &mut tp, &mut to);
            let cuda = match &twins {
                (Some(t1), Some(t2)) => Some(move || {
                    t1.launch(cfg, input, tp)?;
                    t2.launch(one, tp, to)
                }),
                _ => None,
            };
            let (k1, k2, p, o) = (&b.k.sum_block_partials, &b.k.sum_partials, &mut p, &mut o);
            b.time_pair(
                || {
                    k1.launch(cfg, input, p)?;
                    k2.launch(one, p, o)
                },
                cuda,
            )?
        };
        let mut ok = bench::sum_close(o.to_vec()?[0], &values);
        if c.is_some() {
            ok &= bench::sum_close(to.to_vec()?[0], &values);
        }
        b.push(row("sum: two launches", r, c, None, ok));

        // One atomic add per element (2^24 only: it is slow).
        if log2 <= 24 {
            let cfg = LaunchConfig::for_elements(n, THREADS);
            // SAFETY: kernels/cuda/kernels.cu declares the twin `sum_atomic`
            // with the Rust kernel's parameters, in order and of the same
            // types.
            let twin =
                unsafe { b.twin("sum_atomic", LaunchKind::Plain, SumAtomic::from_function)? };
            let (mut o, mut to) = (b.gpu.filled(1, 0.0f32)?, b.gpu.filled(1, 0.0f32)?);
            b.k.sum_atomic.launch(cfg, &input, &mut o)?;
            let mut ok = bench::sum_close(o.to_vec()?[0], &values);
            if let Some(t) = &twin {
                t.launch(cfg, &input, &mut to)?;
                ok &= bench::sum_close(to.to_vec()?[0], &values);
            }
            let (r, c) = {
                let (input, to) = (&input, &mut to);
                let cuda = twin.as_ref().map(|t| move || t.launch(cfg, input, to));
                let (k, o) = (&b.k.sum_atomic, &mut o);
                b.time_pair(|| k.launch(cfg, input, o), cuda)?
            };
            b.push(row("sum: one atomicAdd per element", r, c, None, ok));
        }
    }
    if let Some(copy) = copy {
        eprintln!("  (copy ceiling for a read-only kernel: {copy:.0} GB/s of reads)");
    }
    Ok(())
}
