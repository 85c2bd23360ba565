//! Experiment 5, the seed's other patterns, each checked and timed beside
//! its CUDA C++ twin: a reduction over the active threads of a divergent
//! branch, stream compaction with one atomic per coalesced group (beside
//! CUB's DeviceSelect), per-category sums with `labeled_partition`, and a
//! cooperative prefix sum over the whole array.

use crate::bench::{self, Bench};
use crate::kernels::{
    CategorySums, CompactPositive, CompactPositiveTiles, DivergentSum, GridPrefixSum,
};
use crate::results::Timing;
use crate::results::{self, Row};
use cooperative_groups::DeviceBuffer;

/// Threads per block and elements per thread of `compact_positive_tiles`
/// (kernels/samples/src/patterns.rs).
const COMPACT_THREADS: u32 = 256;
const COMPACT_PER_THREAD: u32 = 16;
use cooperative_groups::{Error, LaunchConfig};
use rand::Rng;

const CATEGORIES: usize = 16;

/// `cg_cub_select_positive` from kernels/cuda/lib_cub_select.cu.
type CubSelect =
    unsafe extern "C" fn(*const f32, *mut f32, *mut u32, u64, i32, i32, *mut f32) -> i32;

/// Runs the pattern rows at `2^log2` elements each.
pub fn patterns(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("patterns");
    let mut rng = rand::rng();
    let mut rows = Vec::new();
    for &log2 in log2s {
        let n = 1usize << log2;
        let size = results::size_label(n);
        let data = bench::random_f32(n);
        let input = b.gpu.upload(&data)?;
        let cfg = LaunchConfig::for_elements(n, 256);

        // Divergent branch: the threads whose flag is set reduce together.
        let flags: Vec<u32> = (0..n).map(|_| rng.random_range(0..2)).collect();
        let fin = b.gpu.upload(&flags)?;
        let warps = n.div_ceil(32);
        // SAFETY: kernels/cuda/kernels.cu declares the twins with the Rust kernels' parameters.
        let twin = unsafe {
            b.twin(
                "divergent_sum",
                DivergentSum::KIND,
                DivergentSum::from_function,
            )?
        };
        let check = |got: &[f32]| {
            (0..warps).all(|w| {
                let picked: Vec<f32> = (w * 32..(w * 32 + 32).min(n))
                    .filter(|&i| flags[i] != 0)
                    .map(|i| data[i])
                    .collect();
                bench::sum_close(got[w], &picked)
            })
        };
        let mut out = b.gpu.filled(warps, 0.0f32)?;
        b.k.divergent_sum.launch(cfg, &fin, &input, &mut out)?;
        let mut ok = check(&out.to_vec()?);
        let mut tout = b.gpu.filled(warps, 0.0f32)?;
        if let Some(t) = &twin {
            t.launch(cfg, &fin, &input, &mut tout)?;
            ok &= check(&tout.to_vec()?);
        }
        let (r, c) = {
            let (fin, input, tout) = (&fin, &input, &mut tout);
            let cuda = twin
                .as_ref()
                .map(|t| move || t.launch(cfg, fin, input, tout));
            let (k, out) = (&b.k.divergent_sum, &mut out);
            b.time_pair(|| k.launch(cfg, fin, input, out), cuda)?
        };
        rows.push(Row::timed(
            "pattern: coalesced_threads sum in a branch",
            &size,
            r,
            c,
            8.0 * n as f64,
            ok,
        ));

        // Stream compaction: one fetch_add per coalesced group, beside
        // CUB's DeviceSelect (which also keeps the order).
        let keep: Vec<f32> = data.iter().copied().filter(|&x| x > 0.0).collect();
        let mut want: Vec<u32> = keep.iter().map(|x| x.to_bits()).collect();
        want.sort_unstable();
        let check = |out: &[f32], count: u32| {
            let mut got: Vec<u32> = out[..count as usize].iter().map(|x| x.to_bits()).collect();
            got.sort_unstable();
            count as usize == keep.len() && got == want
        };
        // SAFETY: kernels/cuda/kernels.cu declares the twins with the Rust kernels' parameters.
        let (twin, twin_tiles) = unsafe {
            (
                b.twin(
                    "compact_positive",
                    CompactPositive::KIND,
                    CompactPositive::from_function,
                )?,
                b.twin(
                    "compact_positive_tiles",
                    CompactPositiveTiles::KIND,
                    CompactPositiveTiles::from_function,
                )?,
            )
        };
        let (r, c, mut ok) =
            compaction_row(b, cfg, &input, &b.k.compact_positive, twin.as_ref(), &check)?;
        let tile = (COMPACT_THREADS * COMPACT_PER_THREAD) as usize;
        let tiles_cfg = LaunchConfig::new(n.div_ceil(tile) as u32, COMPACT_THREADS);
        let (rt, ct, ok_tiles) = compaction_row(
            b,
            tiles_cfg,
            &input,
            &b.k.compact_positive_tiles,
            twin_tiles.as_ref(),
            &check,
        )?;
        // SAFETY: CubSelect is cg_cub_select_positive's signature.
        let cub: Option<CubSelect> =
            unsafe { b.library_fn("lib_cub_select.so", "cg_cub_select_positive") };
        let mut lib = None;
        if let Some(select) = cub {
            let (out, count) = (b.gpu.filled(n, f32::NAN)?, b.gpu.filled(1, 0u32)?);
            b.gpu.synchronize()?;
            let mut ms = 0.0f32;
            // SAFETY: live device buffers of n floats, n floats and 1 u32.
            let rc = unsafe {
                select(
                    input.device_address() as *const f32,
                    out.device_address() as *mut f32,
                    count.device_address() as *mut u32,
                    n as u64,
                    5,
                    b.opts.runs as i32,
                    &mut ms,
                )
            };
            let got = out.to_vec()?;
            let c = count.to_vec()?[0] as usize;
            // CUB keeps the order: compare exactly.
            ok &= rc == 0 && c == keep.len() && got[..c] == keep[..];
            lib = Some(ms as f64 * 1e3);
        }
        let bytes = 4.0 * n as f64 + 4.0 * keep.len() as f64;
        for (name, r, c, verified) in [
            ("pattern: compaction, one fetch_add per warp", r, c, ok),
            (
                "pattern: compaction, one fetch_add per 4096",
                rt,
                ct,
                ok && ok_tiles,
            ),
        ] {
            let mut row = Row::timed(name, &size, r, c, bytes, verified);
            row.library = lib;
            rows.push(row);
        }

        // Per-category sums through labeled_partition.
        let cats: Vec<u32> = (0..n)
            .map(|_| rng.random_range(0..CATEGORIES as u32))
            .collect();
        let cin = b.gpu.upload(&cats)?;
        // SAFETY: kernels/cuda/kernels.cu declares the twin `category_sums`
        // with the Rust kernel's parameters, in order and of the same types.
        let twin = unsafe {
            b.twin(
                "category_sums",
                CategorySums::KIND,
                CategorySums::from_function,
            )?
        };
        let check = |got: &[f32]| {
            (0..CATEGORIES).all(|c| {
                let picked: Vec<f32> = (0..n)
                    .filter(|&i| cats[i] as usize == c)
                    .map(|i| data[i])
                    .collect();
                bench::sum_close(got[c], &picked)
            })
        };
        let mut sums = b.gpu.filled(CATEGORIES, 0.0f32)?;
        b.k.category_sums.launch(cfg, &cin, &input, &mut sums)?;
        let mut ok = check(&sums.to_vec()?);
        let mut tsums = b.gpu.filled(CATEGORIES, 0.0f32)?;
        if let Some(t) = &twin {
            t.launch(cfg, &cin, &input, &mut tsums)?;
            ok &= check(&tsums.to_vec()?);
        }
        let (r, c) = {
            let (cin, input, tsums) = (&cin, &input, &mut tsums);
            let cuda = twin
                .as_ref()
                .map(|t| move || t.launch(cfg, cin, input, tsums));
            let (k, sums) = (&b.k.category_sums, &mut sums);
            b.time_pair(|| k.launch(cfg, cin, input, sums), cuda)?
        };
        rows.push(Row::timed(
            "pattern: labeled_partition category sums",
            &size,
            r,
            c,
            8.0 * n as f64,
            ok,
        ));

        // Cooperative prefix sum.
        let values: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let vin = b.gpu.upload(&values)?;
        let coop = b.k.grid_prefix_sum.function().cooperative_config(256, 0)?;
        // SAFETY: kernels/cuda/kernels.cu declares the twin `grid_prefix_sum`
        // with the Rust kernel's parameters, in order and of the same types.
        let twin = unsafe {
            b.twin(
                "grid_prefix_sum",
                GridPrefixSum::KIND,
                GridPrefixSum::from_function,
            )?
        };
        let mut want = Vec::with_capacity(n);
        let mut acc = 0u32;
        for &v in &values {
            acc = acc.wrapping_add(v);
            want.push(acc);
        }
        let blocks = coop.grid.x as usize;
        let (mut totals, mut out) = (
            b.gpu.filled(blocks, 0u32)?,
            b.gpu.filled(n, 0xDEAD_BEEFu32)?,
        );
        let (mut ttotals, mut tout) = (
            b.gpu.filled(blocks, 0u32)?,
            b.gpu.filled(n, 0xDEAD_BEEFu32)?,
        );
        let (r, c) = {
            let (vin, ttotals, tout) = (&vin, &mut ttotals, &mut tout);
            let cuda = twin
                .as_ref()
                .map(|t| move || t.launch(coop, vin, ttotals, tout));
            let (k, totals, out) = (&b.k.grid_prefix_sum, &mut totals, &mut out);
            b.time_pair(|| k.launch(coop, vin, totals, out), cuda)?
        };
        let mut ok = out.to_vec()? == want;
        if twin.is_some() {
            ok &= tout.to_vec()? == want;
        }
        rows.push(Row::timed(
            "pattern: cooperative prefix sum (u32)",
            &size,
            r,
            c,
            16.0 * n as f64,
            ok,
        ));

        // The same prefix sum as the grid collective (one pass, decoupled
        // look-back) beside the same CUDA C++ (three phases with CUB's
        // block scans: CUDA has no grid-wide scan), its scratch zeroed in
        // every timed run.
        let one =
            b.k.grid_prefix_sum_one_pass
                .function()
                .cooperative_config(256, 0)?;
        let mut words = b.gpu.filled(
            cg_core::grid_collectives::grid_scratch_words::<u32>(one.grid.x, 256, n).max(1),
            0u64,
        )?;
        let mut out = b.gpu.filled(n, 0xDEAD_BEEFu32)?;
        let (r, c) = {
            let (vin, ttotals, tout) = (&vin, &mut ttotals, &mut tout);
            let cuda = twin
                .as_ref()
                .map(|t| move || t.launch(coop, vin, ttotals, tout));
            let (k, out, words) = (&b.k.grid_prefix_sum_one_pass, &mut out, &mut words);
            b.time_pair(
                || {
                    words.zero()?;
                    k.launch(one, vin, out, words)
                },
                cuda,
            )?
        };
        let ok = out.to_vec()? == want;
        rows.push(Row::timed(
            "pattern: cooperative prefix sum (u32), one pass (grid_inclusive_scan)",
            &size,
            r,
            c,
            8.0 * n as f64,
            ok,
        ));
    }
    for r in rows {
        b.push(r);
    }
    Ok(())
}

/// A compaction kernel's handle (one `fetch_add` per warp or per block).
trait CompactKernel {
    fn run(
        &self,
        cfg: LaunchConfig,
        input: &DeviceBuffer<f32>,
        out: &mut DeviceBuffer<f32>,
        count: &mut DeviceBuffer<u32>,
    ) -> Result<(), Error>;
}

macro_rules! compact_kernel {
    ($($handle:ty),*) => {$(
        impl CompactKernel for $handle {
            fn run(
                &self,
                cfg: LaunchConfig,
                input: &DeviceBuffer<f32>,
                out: &mut DeviceBuffer<f32>,
                count: &mut DeviceBuffer<u32>,
            ) -> Result<(), Error> {
                self.launch(cfg, input, out, count)
            }
        }
    )*};
}
compact_kernel!(CompactPositive, CompactPositiveTiles);

/// Verifies one launch of a compaction kernel and of its twin with
/// `check(out, count)`, then times both (the counter is zeroed on the
/// stream before every run): `(Rust, CUDA, verified)`.
fn compaction_row<K: CompactKernel>(
    b: &Bench,
    cfg: LaunchConfig,
    input: &DeviceBuffer<f32>,
    rust: &K,
    twin: Option<&K>,
    check: &dyn Fn(&[f32], u32) -> bool,
) -> Result<(Timing, Option<Timing>, bool), Error> {
    let n = input.len();
    let (mut out, mut count) = (b.gpu.filled(n, f32::NAN)?, b.gpu.filled(1, 0u32)?);
    let (mut tout, mut tcount) = (b.gpu.filled(n, f32::NAN)?, b.gpu.filled(1, 0u32)?);
    rust.run(cfg, input, &mut out, &mut count)?;
    let mut ok = check(&out.to_vec()?, count.to_vec()?[0]);
    if let Some(t) = twin {
        t.run(cfg, input, &mut tout, &mut tcount)?;
        ok &= check(&tout.to_vec()?, tcount.to_vec()?[0]);
    }
    let (r, c) = {
        let (tout, tcount) = (&mut tout, &mut tcount);
        let cuda = twin.map(|t| {
            move || {
                tcount.zero()?;
                t.run(cfg, input, tout, tcount)
            }
        });
        let (out, count) = (&mut out, &mut count);
        b.time_pair(
            || {
                count.zero()?;
                rust.run(cfg, input, out, count)
            },
            cuda,
        )?
    };
    Ok((r, c, ok))
}
