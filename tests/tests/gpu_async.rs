//! GPU tests of asynchronous copies: `memcpy_async` for every length and
//! alignment (tails, misaligned starts, ends that share no alignment) with
//! each way of completing it (wait, wait_prior, per-warp, coalesced group,
//! block barrier with and without the bulk copy engine, pipeline) and in
//! 16-byte pieces (`memcpy_async_aligned`), the
//! barrier's phases with split arrivals and `arrive_and_drop`, pipelines
//! of 1 to 8 stages, the async-copy guide's kernels, and dynamic shared
//! memory above 48 KB. Every element is compared with a CPU reference on
//! random data; outputs are poisoned.

mod common;

use cg_samples::kernels::Kernels as SampleKernels;
use cg_tests::kernels::Kernels;
use cooperative_groups::{DeviceBuffer, Error, Gpu, LaunchConfig};
use rand::rngs::StdRng;
use rand::Rng;

/// The modes of `copy_probe` (kernels/tests/src/api/copies.rs).
const MODES: [(u32, &str); 9] = [
    (0, "memcpy_async(block) + wait"),
    (1, "memcpy_async(dynamic tile of 32) per warp + wait(tile)"),
    (2, "two batches, wait_prior::<1> then wait"),
    (3, "on a block barrier"),
    (4, "two stages of a pipeline"),
    (5, "coalesced group per warp"),
    (
        6,
        "memcpy_async(block, dst, &src[offset..]): what fits in dst",
    ),
    (
        7,
        "on a block barrier with memcpy_async_bulk (the bulk copy engine where aligned)",
    ),
    (
        8,
        "memcpy_async_aligned(block) + wait: 16-byte pieces where aligned",
    ),
];

/// The modes that complete on a block barrier.
const BARRIER_MODES: [u32; 2] = [3, 7];

/// Threads per probe block: three warps and a partial fourth.
const PROBE_BLOCK: u32 = 100;
/// Bytes of dynamic shared memory each probe block copies into.
const REGION_BYTES: usize = 4160;
/// Bytes of source data.
const SRC_BYTES: usize = 4096 + 64;

/// Cases `(src_off, dst_off, count, mode)` in elements of `size` bytes:
/// every mode with lengths around every alignment boundary and offsets
/// that share 16, 8, 4 or no alignment, then random ones.
fn cases(rng: &mut StdRng, size: usize, on_barrier: bool) -> Vec<[u32; 4]> {
    let region = REGION_BYTES / size;
    let src = SRC_BYTES / size;
    let offsets: Vec<usize> = [0, 1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 31]
        .into_iter()
        .filter(|&o| o * size < 64)
        .collect();
    let counts = [
        0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257,
        1000, 1024, 2049, 4000,
    ];
    let random = if common::quick() { 20 } else { 300 };
    let mut out = Vec::new();
    for (mode, _) in MODES
        .into_iter()
        .filter(|&(m, _)| BARRIER_MODES.contains(&m) == on_barrier)
    {
        for &count in counts.iter().filter(|&&c| c * size <= 4096) {
            let s = offsets[rng.random_range(0..offsets.len())];
            let d = offsets[rng.random_range(0..offsets.len())];
            out.push([s as u32, d as u32, count as u32, mode]);
        }
        for &s in &offsets {
            for &d in &offsets {
                out.push([
                    s as u32,
                    d as u32,
                    (rng.random_range(1..=300) / size) as u32,
                    mode,
                ]);
            }
        }
        for _ in 0..random {
            let count = rng.random_range(0..=src.min(region) - 64 / size);
            let s = rng.random_range(0..=src - count);
            let d = rng.random_range(0..=region - count);
            out.push([s as u32, d as u32, count as u32, mode]);
        }
    }
    out
}

/// Runs one element type's probe over [`cases`] and checks every element
/// of every block's region.
fn check_copies<T>(
    gpu: &Gpu,
    rng: &mut StdRng,
    launch: impl Fn(
        LaunchConfig,
        &DeviceBuffer<u32>,
        &DeviceBuffer<T>,
        &mut DeviceBuffer<T>,
        T,
    ) -> Result<(), Error>,
    random: impl Fn(&mut StdRng) -> T,
    poison: T,
    unwritten: T,
    on_barrier: bool,
) where
    T: bytemuck::Pod + PartialEq + std::fmt::Debug,
{
    let size = std::mem::size_of::<T>();
    let all = cases(rng, size, on_barrier);
    let region = REGION_BYTES / size;
    let src: Vec<T> = (0..SRC_BYTES / size).map(|_| random(rng)).collect();
    let flat: Vec<u32> = all.iter().flatten().copied().collect();
    let (dcases, dsrc) = (gpu.upload(&flat).unwrap(), gpu.upload(&src).unwrap());
    let mut out = gpu.filled(all.len() * region, unwritten).unwrap();
    let cfg = LaunchConfig::new(all.len() as u32, PROBE_BLOCK).with_shared_mem(REGION_BYTES as u32);
    launch(cfg, &dcases, &dsrc, &mut out, poison).unwrap();
    let got = out.to_vec().unwrap();
    let mut checked = [0usize; MODES.len()];
    for (k, &[s, d, count, mode]) in all.iter().enumerate() {
        let (s, d, count) = (s as usize, d as usize, count as usize);
        for i in 0..region {
            let want = if (d..d + count).contains(&i) {
                src[s + i - d]
            } else {
                poison
            };
            let g = got[k * region + i];
            assert!(
                g == want,
                "{}-byte elements, {}: src offset {s}, dst offset {d}, count {count}: \
                 region[{i}] = {g:?}, want {want:?}",
                size,
                MODES[mode as usize].1
            );
        }
        checked[mode as usize] += 1;
    }
    println!("{size}-byte elements: {checked:?} cases per mode, every element right");
}

/// Every element type's probe, the barrier mode or every other one.
fn copy_probes(test: &str, on_barrier: bool) {
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng(test);
    check_copies(
        &gpu,
        &mut rng,
        |c, a, b, o, p| k.copy_probe_u8.launch(c, a, b, o, p),
        |r| r.random::<u8>() & 0x7F,
        0xA5,
        0x5A,
        on_barrier,
    );
    check_copies(
        &gpu,
        &mut rng,
        |c, a, b, o, p| k.copy_probe_u32.launch(c, a, b, o, p),
        |r| r.random::<u32>() >> 1,
        0xA5A5_A5A5,
        0x5A5A_5A5A,
        on_barrier,
    );
    check_copies(
        &gpu,
        &mut rng,
        |c, a, b, o, p| k.copy_probe_u64.launch(c, a, b, o, p),
        |r| r.random::<u64>() >> 1,
        0xA5A5_A5A5_A5A5_A5A5,
        0x5A5A_5A5A_5A5A_5A5A,
        on_barrier,
    );
}

#[test]
fn memcpy_async_every_length_and_alignment() {
    copy_probes("memcpy_async_every_length_and_alignment", false);
}

/// Separate from the test above because compute-sanitizer's synccheck
/// reports `cp.async.mbarrier.arrive` (how a copy that is not 16-byte
/// aligned completes on a barrier) as a missing wait, for CUDA's own
/// `cuda::memcpy_async` on a `cuda::barrier` too; scripts/gpu-run skips the
/// barrier tests under synccheck alone.
#[test]
fn memcpy_async_on_a_barrier_every_length_and_alignment() {
    copy_probes("memcpy_async_on_a_barrier_every_length_and_alignment", true);
}

#[test]
fn barrier_phases_split_arrivals_and_drops() {
    let gpu = gpu_or_return!("barrier_phases_split_arrivals_and_drops");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("barrier_phases_split_arrivals_and_drops");
    for nt in [32u32, 100, 256, 1024] {
        for keep in [1, nt / 2 + 1, nt] {
            let data: Vec<u32> = (0..nt).map(|_| rng.random()).collect();
            let din = gpu.upload(&data).unwrap();
            let mut out = gpu.filled(nt as usize, 0xDEAD_BEEFu32).unwrap();
            k.barrier_rounds
                .launch(LaunchConfig::new(1, nt), &din, keep, &mut out)
                .unwrap();
            let got = out.to_vec().unwrap();
            for t in 0..keep as usize {
                let mut total = 0u32;
                for round in 0..4 {
                    total = total.wrapping_mul(3);
                    total = total.wrapping_add(data[(t + 1) % keep as usize] + round);
                }
                assert_eq!(got[t], total, "block {nt}, {keep} stay: thread {t}");
            }
            assert!(got[keep as usize..].iter().all(|&v| v == 0xDEAD_BEEF));
        }
    }
}

/// `c = a + b` through one of the vector-add kernels, checked bit for bit
/// (the sum of two floats is exact to compare).
fn check_vadd(
    gpu: &Gpu,
    rng: &mut StdRng,
    what: &str,
    n: usize,
    cfg: LaunchConfig,
    launch: impl Fn(
        LaunchConfig,
        &DeviceBuffer<f32>,
        &DeviceBuffer<f32>,
        &mut DeviceBuffer<f32>,
    ) -> Result<(), Error>,
) {
    let a = common::random_f32(rng, n);
    let b = common::random_f32(rng, n);
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let poison = f32::from_bits(0x7FC0_DEAD);
    let mut c = gpu.filled(n, poison).unwrap();
    launch(cfg, &da, &db, &mut c).unwrap();
    let got = c.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(
            got[i].to_bits(),
            (a[i] + b[i]).to_bits(),
            "{what}, n = {n}, {cfg:?}: c[{i}] = {}, want {}",
            got[i],
            a[i] + b[i]
        );
    }
}

/// Grids that loop many times and grids that cover the array once.
fn shapes(n: usize) -> Vec<(u32, u32)> {
    let mut s = Vec::new();
    for block in [64u32, 96, 256] {
        s.push((3, block));
        s.push((n.div_ceil(block as usize).clamp(1, 600) as u32, block));
    }
    s
}

#[test]
fn pipelines_of_1_to_8_stages() {
    let gpu = gpu_or_return!("pipelines_of_1_to_8_stages");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("pipelines_of_1_to_8_stages");
    let kernels: [(u32, VaddLaunch); 8] = [
        (1, &|c, a, b, o| k.vadd_pipelined_1.launch(c, a, b, o)),
        (2, &|c, a, b, o| k.vadd_pipelined_2.launch(c, a, b, o)),
        (3, &|c, a, b, o| k.vadd_pipelined_3.launch(c, a, b, o)),
        (4, &|c, a, b, o| k.vadd_pipelined_4.launch(c, a, b, o)),
        (5, &|c, a, b, o| k.vadd_pipelined_5.launch(c, a, b, o)),
        (6, &|c, a, b, o| k.vadd_pipelined_6.launch(c, a, b, o)),
        (7, &|c, a, b, o| k.vadd_pipelined_7.launch(c, a, b, o)),
        (8, &|c, a, b, o| k.vadd_pipelined_8.launch(c, a, b, o)),
    ];
    for (stages, launch) in kernels {
        for n in common::sizes(&[1, 255, 1000, 4097, 100_003]) {
            for (grid, block) in shapes(n) {
                let cfg = LaunchConfig::new(grid, block).with_shared_mem(2 * stages * block * 4);
                check_vadd(
                    &gpu,
                    &mut rng,
                    &format!("{stages}-stage pipeline"),
                    n,
                    cfg,
                    launch,
                );
            }
        }
    }
}

/// Problem sizes of the guide's kernels: one element, partial chunks, and
/// (not under the sanitizers) a million.
const GUIDE_SIZES: [usize; 4] = [1, 1000, 65_537, 1 << 20];

/// The barrier stage apart, for synccheck (see
/// [`memcpy_async_on_a_barrier_every_length_and_alignment`]).
#[test]
fn guide_barrier_kernel_matches_cpu() {
    let gpu = gpu_or_return!("guide_barrier_kernel_matches_cpu");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("guide_barrier_kernel_matches_cpu");
    for n in common::sizes(&GUIDE_SIZES) {
        for (grid, block) in shapes(n) {
            let cfg = LaunchConfig::new(grid, block).with_shared_mem(2 * block * 4);
            check_vadd(
                &gpu,
                &mut rng,
                "copies on a barrier",
                n,
                cfg,
                |c, a, b, o| k.vadd_barrier.launch(c, a, b, o),
            );
        }
    }
}

#[test]
fn guide_kernels_match_cpu() {
    let gpu = gpu_or_return!("guide_kernels_match_cpu");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("guide_kernels_match_cpu");
    let kernels: [(&str, VaddLaunch); 2] = [
        ("manual copy", &|c, a, b, o| k.vadd_sync.launch(c, a, b, o)),
        ("memcpy_async + wait", &|c, a, b, o| {
            k.vadd_memcpy_async.launch(c, a, b, o)
        }),
    ];
    let sizes = common::sizes(&GUIDE_SIZES);
    for (what, launch) in kernels {
        for &n in &sizes {
            for (grid, block) in shapes(n) {
                let cfg = LaunchConfig::new(grid, block).with_shared_mem(2 * block * 4);
                check_vadd(&gpu, &mut rng, what, n, cfg, launch);
            }
        }
    }
    // The pipelined "in between" kernel, 4 stages of one i32 per thread.
    for &n in &sizes {
        for (grid, block) in shapes(n) {
            let src: Vec<i32> = (0..n).map(|_| rng.random_range(-50..50)).collect();
            let din = gpu.upload(&src).unwrap();
            let mut dest = gpu.filled(n, -7i32).unwrap();
            let cfg = LaunchConfig::new(grid, block).with_shared_mem(4 * block * 4);
            k.in_between_pipelined.launch(cfg, &din, &mut dest).unwrap();
            let got = dest.to_vec().unwrap();
            for (chunk, (s, g)) in src
                .chunks(block as usize)
                .zip(got.chunks(block as usize))
                .enumerate()
            {
                let (first, last) = (s[0], s[s.len() - 1]);
                for (j, (&v, &r)) in s.iter().zip(g).enumerate() {
                    let want = (first < v && v < last) as i32;
                    assert_eq!(
                        r,
                        want,
                        "in between, n = {n}, {cfg:?}: dest[{}]",
                        chunk * block as usize + j
                    );
                }
            }
        }
    }
}

#[test]
fn dynamic_shared_memory_above_48_kib() {
    let gpu = gpu_or_return!("dynamic_shared_memory_above_48_kib");
    let k = SampleKernels::load(&gpu).unwrap();
    let mut rng = common::rng("dynamic_shared_memory_above_48_kib");
    // 8 stages of two 1024-float chunks: 64 KiB per block.
    let cfg = LaunchConfig::new(7, 1024).with_shared_mem(2 * 8 * 1024 * 4);
    assert!(gpu.info().limits.max_shared_mem_optin >= cfg.shared_mem_bytes);
    check_vadd(
        &gpu,
        &mut rng,
        "8 stages of 1024",
        1_000_003,
        cfg,
        |c, a, b, o| k.vadd_pipelined_8.launch(c, a, b, o),
    );
}

/// A launcher of one of the vector-add kernels.
type VaddLaunch<'a> = &'a dyn Fn(
    LaunchConfig,
    &DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
    &mut DeviceBuffer<f32>,
) -> Result<(), Error>;
