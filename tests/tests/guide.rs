//! The guide's examples (`docs/guide/`), run: every kernel of
//! `kernels/samples/src/guide/` through its typed handle, on the GPU where
//! there is one and on the simulator where not, against a CPU model; and
//! the guide itself checked (`guide_is_built_from_tested_files`): every
//! ```rust block is an `{{#include}}` of an anchor that exists, and every
//! relative link of the guide, README.md, docs/*.md and docs/notes/*.md
//! leads somewhere.

#[path = "guide/check.rs"]
mod check;
mod common;

use cg_samples::kernels::Kernels;
use cooperative_groups::{Error, Gpu, LaunchConfig};

/// Sizes that leave partial warps and blocks.
const SIZES: [usize; 4] = [1, 31, 1000, 4133];

/// Values from a fixed-seed generator.
fn values(n: usize, seed: u64, below: u32) -> Vec<u32> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(0..below)).collect()
}

// ANCHOR: tile_sums_host
/// Runs `guide_tile_sums` on blocks of 128 threads: one sum per warp.
fn tile_sums(gpu: &Gpu, input: &[u32]) -> Result<Vec<u32>, Error> {
    let k = Kernels::load(gpu)?;
    let blocks = input.len().div_ceil(128) as u32;
    let input = gpu.upload(input)?;
    let mut sums = gpu.filled(blocks as usize * 4, u32::MAX)?;
    k.guide_tile_sums
        .launch(LaunchConfig::new(blocks, 128), &input, &mut sums)?;
    sums.to_vec()
}
// ANCHOR_END: tile_sums_host

#[test]
fn tile_sums_are_the_warps_sums() {
    let gpu = gpu_or_return!("tile_sums_are_the_warps_sums");
    for n in SIZES {
        let input = values(n, 1, 1 << 20);
        let got = tile_sums(&gpu, &input).unwrap();
        for (w, got) in got.iter().enumerate() {
            let want: u32 = input.iter().skip(32 * w).take(32).sum();
            assert_eq!(*got, want, "warp {w} of {n} elements");
        }
    }
}

#[test]
fn count_odd_counts_once_per_odd_value() {
    let gpu = gpu_or_return!("count_odd_counts_once_per_odd_value");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let input = values(n, 2, 100);
        let want = input.iter().filter(|v| *v % 2 == 1).count() as u32;
        let d = gpu.upload(&input).unwrap();
        let mut count = gpu.filled(1, 0u32).unwrap();
        let blocks = n.div_ceil(96) as u32;
        k.guide_count_odd
            .launch(LaunchConfig::new(blocks, 96), &d, &mut count)
            .unwrap();
        assert_eq!(count.to_vec().unwrap(), [want], "{n} elements");
    }
}

#[test]
fn same_key_counts_the_warps_labels() {
    let gpu = gpu_or_return!("same_key_counts_the_warps_labels");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let keys = values(n, 3, 16);
        let blocks = n.div_ceil(64) as u32;
        let d = gpu.upload(&keys).unwrap();
        let mut out = gpu.filled(blocks as usize * 64, u32::MAX).unwrap();
        k.guide_same_key
            .launch(LaunchConfig::new(blocks, 64), &d, &mut out)
            .unwrap();
        let key = |i: usize| keys.get(i).copied().unwrap_or(u32::MAX);
        let big = |k: u32| k >= 10 && k != u32::MAX;
        for (i, got) in out.to_vec().unwrap().into_iter().enumerate() {
            let warp = (i / 32 * 32)..(i / 32 * 32 + 32);
            let same = warp.clone().filter(|&j| key(j) == key(i)).count() as u32;
            let bigs = if big(key(i)) {
                warp.filter(|&j| big(key(j))).count() as u32
            } else {
                0
            };
            assert_eq!(got, same + 1000 * bigs, "thread {i} of {n}");
        }
    }
}

#[test]
fn tile_scans_match_the_cpu() {
    let gpu = gpu_or_return!("tile_scans_match_the_cpu");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let input = values(n, 4, 1000);
        let blocks = n.div_ceil(40) as u32;
        let threads = blocks as usize * 40;
        let d = gpu.upload(&input).unwrap();
        let mut outs: Vec<_> = (0..3)
            .map(|_| gpu.filled(threads, u32::MAX).unwrap())
            .collect();
        let [inc, exc, max] = &mut outs[..] else {
            unreachable!()
        };
        k.guide_tile_scans
            .launch(LaunchConfig::new(blocks, 40), &d, inc, exc, max)
            .unwrap();
        let x = |i: usize| input.get(i).copied().unwrap_or(0);
        let (inc, exc, max) = (
            inc.to_vec().unwrap(),
            exc.to_vec().unwrap(),
            max.to_vec().unwrap(),
        );
        for i in 0..threads {
            let tile = i / 8 * 8;
            let before: u32 = (tile..i).map(x).sum();
            assert_eq!(exc[i], before, "exclusive, thread {i} of {n}");
            assert_eq!(inc[i], before + x(i), "inclusive, thread {i} of {n}");
            let largest = (tile..tile + 8).map(x).max().unwrap();
            assert_eq!(max[i], largest, "largest, thread {i} of {n}");
        }
    }
}

#[test]
fn block_sums_and_offsets_match_the_cpu() {
    let gpu = gpu_or_return!("block_sums_and_offsets_match_the_cpu");
    let k = Kernels::load(&gpu).unwrap();
    for threads in [33u32, 256, 1000] {
        let n = 3 * threads as usize - 5;
        let input = values(n, 5, 1000);
        let d = gpu.upload(&input).unwrap();
        let mut sums = gpu.filled(3, u32::MAX).unwrap();
        let mut offsets = gpu.filled(3 * threads as usize, u32::MAX).unwrap();
        k.guide_block_sums
            .launch(LaunchConfig::new(3, threads), &d, &mut sums, &mut offsets)
            .unwrap();
        let x = |i: usize| input.get(i).copied().unwrap_or(0);
        let t = threads as usize;
        let (sums, offsets) = (sums.to_vec().unwrap(), offsets.to_vec().unwrap());
        for (b, sum) in sums.into_iter().enumerate() {
            assert_eq!(sum, (b * t..(b + 1) * t).map(x).sum::<u32>(), "block {b}");
        }
        for (i, got) in offsets.into_iter().enumerate() {
            assert_eq!(got, (i / t * t..i).map(x).sum::<u32>(), "thread {i}");
        }
    }
}

// ANCHOR: is_valid_host
/// `grid.is_valid()` as every thread of four blocks of 64 saw it, launched
/// as its kernel declares: ordinarily (`guide_is_valid`) or cooperatively
/// (`guide_is_valid_cooperative`).
fn is_valid(gpu: &Gpu, cooperative: bool) -> Result<Vec<u32>, Error> {
    let k = Kernels::load(gpu)?;
    let mut out = gpu.filled(256, u32::MAX)?;
    let config = LaunchConfig::new(4, 64);
    if cooperative {
        k.guide_is_valid_cooperative.launch(config, &mut out)?;
    } else {
        k.guide_is_valid.launch(config, &mut out)?;
    }
    out.to_vec()
}
// ANCHOR_END: is_valid_host

/// `grid.is_valid()` is true in a cooperative launch; in an ordinary one it
/// is false on the simulator, and on a GPU true once the process has made
/// a cooperative launch (the driver's grid workspace outlives it, and
/// `is_valid()` reads that workspace, as CUDA's own does). The guide
/// states both (the grid chapter and the table of divergences).
#[test]
fn is_valid_says_how_the_grid_was_launched() {
    let gpu = gpu_or_return!("is_valid_says_how_the_grid_was_launched");
    assert_eq!(
        is_valid(&gpu, true).unwrap(),
        [1; 256],
        "cooperative launch"
    );
    let ordinary = is_valid(&gpu, false).unwrap();
    if gpu.is_simulator() {
        assert_eq!(ordinary, [0; 256], "ordinary launch on the simulator");
    } else {
        // After the cooperative launch above: the workspace stays.
        assert_eq!(
            ordinary, [1; 256],
            "ordinary launch after a cooperative one on the GPU: the driver's grid workspace no \
             longer outlives a cooperative launch; is_valid() now means what its name says, so \
             update its doc comment and the guide (grid chapter, table of divergences)"
        );
    }
}

#[test]
fn rotate_reads_across_the_grid_barrier() {
    let gpu = gpu_or_return!("rotate_reads_across_the_grid_barrier");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let input = values(n, 6, u32::MAX);
        let d = gpu.upload(&input).unwrap();
        let mut copy = gpu.filled(n, 0u32).unwrap();
        let mut out = gpu.filled(n, 0u32).unwrap();
        let config = LaunchConfig::new(3, 128);
        k.guide_rotate
            .launch(config, &d, &mut copy, &mut out)
            .unwrap();
        let out = out.to_vec().unwrap();
        for i in 0..n {
            assert_eq!(out[i], input[(i + 1) % n], "element {i} of {n}");
        }
    }
}

#[test]
fn reverse_chunks_reverses_each_chunk() {
    let gpu = gpu_or_return!("reverse_chunks_reverses_each_chunk");
    let k = Kernels::load(&gpu).unwrap();
    let chunk = cg_sample_kernels::guide::shared::CHUNK;
    for n in [1, 255, 256, 1000] {
        let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let d = gpu.upload(&input).unwrap();
        let mut out = gpu.filled(n, f32::NAN).unwrap();
        k.guide_reverse_chunks
            .launch(LaunchConfig::new(2, chunk as u32), &d, &mut out)
            .unwrap();
        let out = out.to_vec().unwrap();
        for c in input.chunks(chunk).enumerate().map(|(c, _)| c) {
            let part = &input[c * chunk..n.min((c + 1) * chunk)];
            let reversed: Vec<f32> = part.iter().rev().copied().collect();
            assert_eq!(
                &out[c * chunk..c * chunk + part.len()],
                &reversed[..],
                "chunk {c} of {n}"
            );
        }
    }
}

#[test]
fn histogram_counts_every_value() {
    let gpu = gpu_or_return!("histogram_counts_every_value");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let input = values(n, 7, 1 << 30);
        let mut want = vec![0u32; 10];
        for v in &input {
            want[*v as usize % 10] += 1;
        }
        let d = gpu.upload(&input).unwrap();
        let mut bins = gpu.filled(10, 0u32).unwrap();
        k.guide_histogram
            .launch(LaunchConfig::new(2, 64), &d, &mut bins)
            .unwrap();
        assert_eq!(bins.to_vec().unwrap(), want, "{n} values");
    }
}

#[test]
fn saxpy_and_chunk_sums_match_the_cpu() {
    let gpu = gpu_or_return!("saxpy_and_chunk_sums_match_the_cpu");
    let k = Kernels::load(&gpu).unwrap();
    for n in SIZES {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
        let y: Vec<f32> = (0..n + 3).map(|i| (i % 13) as f32).collect();
        let (dx, dy) = (gpu.upload(&x).unwrap(), gpu.upload(&y).unwrap());
        let mut out = gpu.filled(n + 7, f32::NAN).unwrap();
        k.guide_saxpy
            .launch(LaunchConfig::new(3, 64), 0.5, &dx, &dy, &mut out)
            .unwrap();
        let out = out.to_vec().unwrap();
        for i in 0..n {
            assert_eq!(out[i], 0.5 * x[i] + y[i], "saxpy element {i} of {n}");
        }
        assert!(out[n..].iter().all(|o| o.is_nan()), "saxpy wrote past x");

        let input = values(n, 8, 1 << 30);
        let len = 100;
        let chunks = n.div_ceil(len);
        let d = gpu.upload(&input).unwrap();
        let mut sums = gpu.filled(chunks, u32::MAX).unwrap();
        k.guide_chunk_sums
            .launch(LaunchConfig::new(4, 96), &d, len as u32, &mut sums)
            .unwrap();
        let want: Vec<u32> = input
            .chunks(len)
            .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
            .collect();
        assert_eq!(sums.to_vec().unwrap(), want, "chunk sums of {n}");
    }
}

#[test]
fn generic_kernels_have_one_handle_per_instance() {
    let gpu = gpu_or_return!("generic_kernels_have_one_handle_per_instance");
    let k = Kernels::load(&gpu).unwrap();
    let mut ints = gpu.filled(1000, 0u32).unwrap();
    let mut floats = gpu.filled(1000, 0f64).unwrap();
    let config = LaunchConfig::new(2, 128);
    k.guide_fill_u32.launch(config, 7, &mut ints).unwrap();
    k.guide_fill_f64.launch(config, 0.25, &mut floats).unwrap();
    assert_eq!(ints.to_vec().unwrap(), [7; 1000]);
    assert_eq!(floats.to_vec().unwrap(), [0.25; 1000]);

    let input = values(1000, 9, 100);
    let d = gpu.upload(&input).unwrap();
    let mut out = gpu.filled(1024, u32::MAX).unwrap();
    k.guide_tile_sizes
        .launch(LaunchConfig::new(4, 256), &d, &mut out)
        .unwrap();
    let x = |i: usize| input.get(i).copied().unwrap_or(0);
    for (i, got) in out.to_vec().unwrap().into_iter().enumerate() {
        let four: u32 = (i / 4 * 4..i / 4 * 4 + 4).map(x).sum();
        let sixteen: u32 = (i / 16 * 16..i / 16 * 16 + 16).map(x).sum();
        assert_eq!(got, four + 1000 * sixteen, "thread {i}");
    }
}

// ANCHOR: show_sim
/// The text `guide_show` prints, called directly on the simulator as
/// every thread of one block of 4 (`cg_core::sim`), captured.
#[test]
fn show_prints_each_element() {
    use cg_core::sim::{self, Shape};
    let x = [1.5f32, 0.1, -2.0];
    let (launched, text) = sim::capture_printed(|| {
        sim::launch(Shape::new(1, 4), || {
            cg_sample_kernels::guide::print::guide_show(&x)
        })
    });
    launched.unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "thread 0: x = 1.5, 1.500, bits 0x3fc00000",
            "thread 1: x = 0.1, 0.100, bits 0x3dcccccd",
            "thread 2: x = -2, -2.000, bits 0xc0000000",
        ]
    );
}
// ANCHOR_END: show_sim

// ANCHOR: fault_sim
/// An index past the end on the simulator: the launch stops with a
/// `Fault` that names the thread and the panic's file and line.
#[test]
fn a_bad_index_is_a_fault_naming_the_thread() {
    use cg_core::sim::{self, Buffer, Shape};
    let input = [1.0f32, 2.0, 3.0];
    let index = [2u32, 0, 7, 1];
    let out = Buffer::<f32>::filled(4, f32::NAN);
    let fault = sim::launch(Shape::new(1, 32), || {
        cg_sample_kernels::guide::faults::guide_checked_gather(&input, &index, out.view())
    })
    .unwrap_err()
    .to_string();
    assert!(fault.contains("thread (2, 0, 0)"), "{fault}");
    assert!(
        fault.contains("kernels/samples/src/guide/faults.rs"),
        "{fault}"
    );
    assert!(fault.contains("index out of bounds"), "{fault}");
}
// ANCHOR_END: fault_sim

#[test]
fn show_runs_on_the_gpu_too() {
    let gpu = gpu_or_return!("show_runs_on_the_gpu_too");
    let k = Kernels::load(&gpu).unwrap();
    let x = gpu.upload(&[1.5f32, 0.1]).unwrap();
    k.guide_show.launch(LaunchConfig::new(1, 32), &x).unwrap();
    gpu.synchronize().unwrap();
}
