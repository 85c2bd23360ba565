//! The host primitives of cg-primitives (`exclusive_scan`, `reduce`,
//! `select` and `select_into`, `histogram`, on a `Primitives` and as `Gpu` methods) against
//! CPU results: `u32` exactly (wrapping sums), `f32` sums within
//! `γ(n - 1) Σ|x|` of the exact sum and the same bits on a second call,
//! selections in order with the rest of the output untouched, and
//! histograms that overwrite their bins; sizes 0, 1, around a tile of 2048
//! and past 32 tiles (the simulator), and up to 2^24 on a GPU.

mod common;

use cg_core::grid_histogram::Even as Levels;
use cg_primitives::{DevicePrimitives, Even, Keep, Primitives};
use cooperative_groups::Gpu;
use rand::Rng;

/// A tile of the scans: 256 threads of 8 `u32`.
const TILE: usize = 2048;

fn sizes(gpu: &Gpu) -> Vec<usize> {
    let mut s = vec![0, 1, 1000, TILE - 1, TILE, TILE + 1, 33 * TILE + 5];
    if !gpu.is_simulator() {
        s.extend(common::sizes(&[1 << 20, (1 << 24) + 3]));
    }
    s
}

/// Whether `got`, a float sum along a path of `count` additions at most,
/// is within `γ(count - 1)` times `abs` (the values' sum of magnitudes) of
/// `exact`.
fn within(got: f32, exact: f64, abs: f64, count: usize) -> bool {
    let u = f32::EPSILON as f64 / 2.0;
    let k = count.saturating_sub(1) as f64;
    (got as f64 - exact).abs() <= k * u / (1.0 - k * u) * abs
}

#[test]
fn exclusive_scan_and_reduce_match_the_cpu() {
    let test = "exclusive_scan_and_reduce_match_the_cpu";
    let gpu = gpu_or_return!(test);
    let mut p = Primitives::new(&gpu).unwrap();
    let mut rng = common::rng(test);
    for n in sizes(&gpu) {
        let x: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let dx = gpu.upload(&x).unwrap();
        let mut out = gpu.filled(n + 1, 0xa5a5_a5a5u32).unwrap();
        p.exclusive_scan(&dx, &mut out).unwrap();
        let got = out.to_vec().unwrap();
        let mut acc = 0u32;
        for (i, &v) in x.iter().enumerate() {
            assert_eq!(got[i], acc, "u32 exclusive sum of {n}, element {i}");
            acc = acc.wrapping_add(v);
        }
        assert_eq!(got[n], 0xa5a5_a5a5, "the scan wrote past {n} elements");
        assert_eq!(p.reduce(&dx).unwrap(), acc, "u32 sum of {n}");

        let f: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let df = gpu.upload(&f).unwrap();
        let mut out = gpu.filled(n.max(1), f32::NAN).unwrap();
        p.exclusive_scan(&df, &mut out).unwrap();
        let got = out.to_vec().unwrap();
        // The exact prefixes in one pass (a sum per checked element would
        // be quadratic: minutes at 2^24). The bound is the one of a sum
        // along the scan's path to element `i`, not of `i` additions in a
        // row (which says nothing past 2^24 values): a tile's items and
        // its block scan (at most 64 additions), then at most two per
        // earlier tile (the look-back's aggregates and inclusive
        // prefixes). The order itself is checked bit for bit against the
        // model in gpu_grid_collectives (the same device code).
        let (mut exact, mut abs) = (0f64, 0f64);
        for (i, &v) in f.iter().enumerate() {
            if i % 997 == 1 || i + 1 == n {
                let path = 64 + 2 * (i / TILE + 1);
                assert!(
                    within(got[i], exact, abs, path.min(i)),
                    "f32 exclusive sum of {n}, element {i}: {}",
                    got[i]
                );
            }
            exact += v as f64;
            abs += (v as f64).abs();
        }
        let sum = p.reduce(&df).unwrap();
        // Along the reduction's path: a thread's grid-stride share (at
        // most a 256th of the values, a block's threads being 256) and
        // the tree above it.
        let (exact, abs) = f.iter().fold((0f64, 0f64), |(e, a), &v| {
            (e + v as f64, a + (v as f64).abs())
        });
        let path = 64 + n.div_ceil(256);
        assert!(
            within(sum, exact, abs, path.min(n)),
            "f32 sum of {n}: {sum}"
        );
        assert_eq!(
            gpu.reduce(&df).unwrap().to_bits(),
            sum.to_bits(),
            "f32 sum of {n}, again"
        );
    }
}

#[test]
fn select_keeps_the_cpu_s_values_in_order() {
    let test = "select_keeps_the_cpu_s_values_in_order";
    let gpu = gpu_or_return!(test);
    let mut p = Primitives::new(&gpu).unwrap();
    let mut rng = common::rng(test);
    for n in sizes(&gpu) {
        let x: Vec<u32> = (0..n).map(|_| rng.random_range(0..100)).collect();
        let dx = gpu.upload(&x).unwrap();
        for keep in [Keep::Less(30), Keep::Greater(98), Keep::NotEqual(7)] {
            let want: Vec<u32> = x
                .iter()
                .copied()
                .filter(|&v| match keep {
                    Keep::Less(o) => v < o,
                    Keep::Greater(o) => v > o,
                    Keep::NotEqual(o) => v != o,
                })
                .collect();
            let mut out = gpu.filled(n + 1, u32::MAX).unwrap();
            let count = p.select(&dx, &mut out, keep).unwrap();
            let got = out.to_vec().unwrap();
            assert_eq!(count, want.len(), "{keep:?} of {n}");
            assert_eq!(got[..count], want[..], "{keep:?} of {n}");
            assert!(
                got[count..].iter().all(|&v| v == u32::MAX),
                "{keep:?} of {n}: wrote past the count"
            );
            // The same through `select_into`: the count left in a
            // poisoned buffer of two, its second value untouched.
            let mut out = gpu.filled(n + 1, u32::MAX).unwrap();
            let mut on_device = gpu.filled(2, u32::MAX).unwrap();
            p.select_into(&dx, &mut out, &mut on_device, keep).unwrap();
            let on_device = on_device.to_vec().unwrap();
            assert_eq!(on_device, [want.len() as u32, u32::MAX], "{keep:?} of {n}");
            assert_eq!(out.to_vec().unwrap(), got, "{keep:?} of {n}: select_into");
        }
        let f: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let df = gpu.upload(&f).unwrap();
        let mut out = gpu.filled(n.max(1), f32::NAN).unwrap();
        let count = gpu.select(&df, &mut out, Keep::Greater(0.0)).unwrap();
        let want: Vec<f32> = f.iter().copied().filter(|&v| v > 0.0).collect();
        assert_eq!(
            out.to_vec().unwrap()[..count],
            want[..],
            "positive f32 of {n}"
        );
    }
}

/// `select_into` refuses an empty count buffer before any launch, naming
/// the buffer.
#[test]
fn select_into_refuses_an_empty_count_buffer() {
    let test = "select_into_refuses_an_empty_count_buffer";
    let gpu = gpu_or_return!(test);
    let mut p = Primitives::new(&gpu).unwrap();
    let dx = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut out = gpu.filled(3, 0u32).unwrap();
    let mut empty = gpu.filled(0, 0u32).unwrap();
    let err = p
        .select_into(&dx, &mut out, &mut empty, Keep::Less(2))
        .unwrap_err()
        .to_string();
    assert!(err.contains("count buffer is empty"), "{err}");
}

#[test]
fn histogram_counts_as_the_cpu() {
    let test = "histogram_counts_as_the_cpu";
    let gpu = gpu_or_return!(test);
    let mut p = Primitives::new(&gpu).unwrap();
    let mut rng = common::rng(test);
    for n in sizes(&gpu) {
        let x: Vec<u32> = (0..n).map(|_| rng.random_range(0..1100)).collect();
        let dx = gpu.upload(&x).unwrap();
        for nbins in [1usize, 10, 7, 1000] {
            let levels = Levels::new(0u32, 1000, nbins as u32);
            let mut want = vec![0u32; nbins];
            x.iter()
                .filter_map(|&v| levels.bin(v))
                .for_each(|b| want[b as usize] += 1);
            // Bins that start non-zero: the histogram overwrites them.
            let mut bins = gpu.filled(nbins, 5u32).unwrap();
            p.histogram(
                &dx,
                &mut bins,
                Even {
                    lower: 0,
                    upper: 1000,
                },
            )
            .unwrap();
            assert_eq!(bins.to_vec().unwrap(), want, "{nbins} bins of {n} u32");
        }
        let f: Vec<f32> = (0..n).map(|_| rng.random_range(-0.5..1.5)).collect();
        let df = gpu.upload(&f).unwrap();
        let levels = Levels::new(0.0f32, 1.0, 256);
        let mut want = vec![0u32; 256];
        f.iter()
            .filter_map(|&v| levels.bin(v))
            .for_each(|b| want[b as usize] += 1);
        let mut bins = gpu.filled(256, 5u32).unwrap();
        gpu.histogram(
            &df,
            &mut bins,
            Even {
                lower: 0.0,
                upper: 1.0,
            },
        )
        .unwrap();
        assert_eq!(bins.to_vec().unwrap(), want, "256 bins of {n} f32");
    }
    let mut none = gpu.filled(MAX_PLUS_ONE, 0u32).unwrap();
    let dx = gpu.upload(&[1u32]).unwrap();
    assert!(
        p.histogram(
            &dx,
            &mut none,
            Even {
                lower: 0,
                upper: 10
            }
        )
        .is_err(),
        "too many bins"
    );
}

/// One bin more than the histogram takes.
const MAX_PLUS_ONE: usize = cg_primitives::MAX_BINS + 1;
