//! GPU tests of `cg_core::math` with nvcc as the judge: the kernels of
//! kernels/tests/src/math.rs (CUDA's math functions through
//! `FloatMath` and `math::fast`) against their twins in
//! tests/twins/math.cu (the same functions called in CUDA C++, built by
//! nvcc -O3 for the GPU's own architecture, with and without -fmad=false,
//! in gpu-run's twins step), bit for bit:
//!
//! * every `f32` function of one argument (`F32_UNARY`, the fast
//!   intrinsics included) over all 2^32 inputs, in chunks of 2^28;
//! * every `f64` function of one argument and every function of two
//!   arguments on 10^8 inputs: special values (zeros, subnormals, the
//!   extremes, infinities, NaN, integers and half-integers, the edges of
//!   the functions' domains) and random ones (random bit patterns, uniform
//!   in [-1, 1] and in [-100, 100]), and pairs of both;
//! * CUDA's type conversions (`math::convert`): those of a 32-bit input
//!   (`f32`, `i32`, `u32`: `CONVERT32`) over all 2^32 inputs, those of a
//!   64-bit input (`f64`, `i64`, `u64`: `CONVERT64`) on 10^8 inputs, special
//!   (the limits of each integer type and their neighbours, ties, the
//!   values about 2^24 and 2^53, the `f64` specials) and random; every
//!   bit counts there, NaNs' included; and the saturating integer
//!   conversions (`SATURATING`, libcu++'s `cuda::std::saturating_cast` in
//!   the twin) on the same 64-bit inputs, each source type taking their
//!   low bits;
//! * the conversions between the half types and the integers: every one
//!   from `__half` and `__nv_bfloat16` (`FROM_HALF`) over all 2^16 bit
//!   patterns, every one to them (`TO_HALF`) on 2^22 integers (every
//!   16-bit value, each half type's ties about every power of two and
//!   their neighbours, the integer limits, random values and ties), each
//!   source type taking their low bits.
//!
//! Each comparison runs under both floating-point contraction settings:
//! the test kernels built with `FpContract::Off` (the default) against the
//! twins built with nvcc's `-fmad=false`, and built with `FpContract::Fast`
//! (`cg_tests::PTX_CONTRACT_FAST`) against nvcc's default `-fmad=true`; each
//! line of the report starts with `off` or `fast`.
//!
//! A result counts as different when its bits differ, except that two NaNs
//! with different bits (payload or sign; CUDA's functions return the
//! canonical NaN 0x7fffffff, hardware instructions may pass a payload on)
//! are counted apart and reported, not failed. Every function prints how
//! many results were compared and how many differ, with the first inputs
//! that differ.
//!
//! Without a GPU the kernels run on the simulator on a few thousand inputs
//! (every half for `FROM_HALF`, the specials and 4096 random ones for
//! `TO_HALF`) and must give what the same functions give on the host (the
//! notice `GPU TEST ON THE SIMULATOR` says the comparison with nvcc did not
//! run).

mod common;

use cg_test_kernels::math::{
    convert32, convert64, f32_binary, f32_unary, f64_binary, f64_unary, from_half, saturating,
    to_half, CONVERT32, CONVERT64, F32_BINARY, F32_UNARY, F64_BINARY, F64_UNARY, FROM_HALF,
    SATURATING, TO_HALF,
};
use cg_tests::kernels::{
    Convert32, Convert64, ConvertFromHalf, ConvertSaturating, ConvertToHalf, Kernels,
    MathF32Binary, MathF32Unary, MathF64Binary, MathF64Unary,
};
use cooperative_groups::{DeviceBuffer, Function, Gpu, LaunchConfig, LaunchKind, Module};
use rand::rngs::StdRng;
use rand::Rng;

/// What the tests without a simulator side need a GPU for.
const NVCC: &str = "a comparison with nvcc's math functions on the GPU";

/// Inputs per launch of the exhaustive sweep.
const CHUNK: usize = 1 << 28;
/// Inputs of the sampled tests.
const SAMPLES: usize = 100_000_000;

/// With `CG_QUICK=1` (under compute-sanitizer): 2^20 inputs of each chunk
/// of the sweep, a thousandth of the samples.
fn sizes() -> (usize, usize) {
    if common::quick() {
        (1 << 20, SAMPLES / 1000)
    } else {
        (CHUNK, SAMPLES)
    }
}
/// The differing indices `math_diff*` records.
const FIRST: usize = 8;

fn config() -> LaunchConfig {
    LaunchConfig::new(132 * 16, 256)
}

/// What one comparison found.
#[derive(Default)]
struct Found {
    compared: u64,
    differ: u64,
    nan_bits: u64,
    /// `(input, rust bits, cuda bits)` of the first differences.
    first: Vec<String>,
}

/// Counts the differences of `a` and `b` (`u32` results) with the GPU;
/// `describe(i)` names the input of index `i` for a report.
fn diff32(
    gpu: &Gpu,
    k: &Kernels,
    a: &DeviceBuffer<u32>,
    b: &DeviceBuffer<u32>,
    found: &mut Found,
    describe: impl Fn(usize) -> String,
) {
    let mut counts = gpu.filled(2 + FIRST, 0u32).unwrap();
    k.math_diff32.launch(config(), a, b, &mut counts).unwrap();
    let c = counts.to_vec().unwrap();
    found.compared += a.len() as u64;
    found.differ += c[0] as u64;
    found.nan_bits += c[1] as u64;
    if c[0] > 0 && found.first.len() < FIRST {
        let (va, vb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        for &i in &c[2..2 + (c[0] as usize).min(FIRST)] {
            let i = i as usize;
            found.first.push(format!(
                "{}: rust {:#010x}, nvcc {:#010x}",
                describe(i),
                va[i],
                vb[i]
            ));
        }
    }
}

/// [`diff32`] for `u64` results: `f64`s (`nan_apart`: two NaNs with
/// different bits are counted apart), or bits of any type (every
/// difference counts).
fn diff64(
    gpu: &Gpu,
    k: &Kernels,
    (a, b): (&DeviceBuffer<u64>, &DeviceBuffer<u64>),
    nan_apart: bool,
    found: &mut Found,
    describe: impl Fn(usize) -> String,
) {
    let mut counts = gpu.filled(2 + FIRST, 0u32).unwrap();
    k.math_diff64
        .launch(config(), a, b, nan_apart as u32, &mut counts)
        .unwrap();
    let c = counts.to_vec().unwrap();
    found.compared += a.len() as u64;
    found.differ += c[0] as u64;
    found.nan_bits += c[1] as u64;
    if c[0] > 0 && found.first.len() < FIRST {
        let (va, vb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        for &i in &c[2..2 + (c[0] as usize).min(FIRST)] {
            let i = i as usize;
            found.first.push(format!(
                "{}: rust {:#018x}, nvcc {:#018x}",
                describe(i),
                va[i],
                vb[i]
            ));
        }
    }
}

/// Prints one line per function and fails when any differs.
fn report(test: &str, results: &[(String, Found)]) {
    let mut failed = Vec::new();
    for (name, f) in results {
        println!(
            "{test}: {name:>24}: {} compared, {} differ, {} NaN with other bits",
            f.compared, f.differ, f.nan_bits
        );
        for line in &f.first {
            println!("{test}: {name:>24}:     {line}");
        }
        if f.differ > 0 {
            failed.push(name);
        }
    }
    let total: u64 = results.iter().map(|(_, f)| f.compared).sum();
    println!("{test}: {total} results compared in all");
    assert!(failed.is_empty(), "{test}: differ from nvcc's: {failed:?}");
}

/// The special `f32` inputs: zeros, subnormals, extremes, infinities, NaN,
/// integers and half-integers, domain edges.
fn specials32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7fff_ffff),
        f32::from_bits(0x7f80_0001),
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::EPSILON,
        core::f32::consts::PI,
        core::f32::consts::FRAC_PI_2,
        88.72284,
        88.72283,
        -103.97208,
        1e-30,
        1e30,
        16777216.0,
        8388608.5,
    ];
    for i in 0..=40 {
        v.push(i as f32 * 0.5);
    }
    for x in [0.5f32, 1.0, 2.0] {
        v.push(f32::from_bits(x.to_bits() + 1));
        v.push(f32::from_bits(x.to_bits() - 1));
    }
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// [`specials32`] for `f64`.
fn specials64() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        f64::from_bits(0x7fff_ffff_ffff_ffff),
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MAX,
        f64::EPSILON,
        core::f64::consts::PI,
        core::f64::consts::FRAC_PI_2,
        709.782712893384,
        709.782712893385,
        -745.1332191019411,
        1e-300,
        1e300,
        9007199254740992.0,
        4503599627370496.5,
    ];
    for i in 0..=40 {
        v.push(i as f64 * 0.5);
    }
    for x in [0.5f64, 1.0, 2.0] {
        v.push(f64::from_bits(x.to_bits() + 1));
        v.push(f64::from_bits(x.to_bits() - 1));
    }
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// `n` inputs: the specials, then in turn random bit patterns, uniform in
/// [-1, 1], uniform in [-100, 100] and a random special.
fn inputs<T: Copy>(
    rng: &mut StdRng,
    n: usize,
    specials: &[T],
    bits: impl Fn(&mut StdRng) -> T,
    uniform: impl Fn(&mut StdRng, f64) -> T,
) -> Vec<T> {
    let mut v = specials.to_vec();
    while v.len() < n {
        let x = match v.len() % 4 {
            0 => bits(rng),
            1 => uniform(rng, 1.0),
            2 => uniform(rng, 100.0),
            _ => specials[rng.random_range(0..specials.len())],
        };
        v.push(x);
    }
    v
}

fn inputs32(rng: &mut StdRng, n: usize) -> Vec<f32> {
    inputs(
        rng,
        n,
        &specials32(),
        |r| f32::from_bits(r.random()),
        |r, l| r.random_range(-l..l) as f32,
    )
}

fn inputs64(rng: &mut StdRng, n: usize) -> Vec<f64> {
    inputs(
        rng,
        n,
        &specials64(),
        |r| f64::from_bits(r.random()),
        |r, l| r.random_range(-l..l),
    )
}

/// The special 64-bit inputs of the conversions (bits): the `f64`
/// specials, the limits of each integer type about them, as `f64` and as
/// integers, with their neighbours.
fn specials_convert64() -> Vec<u64> {
    let mut v: Vec<u64> = specials64().iter().map(|x| x.to_bits()).collect();
    for p in 0..64 {
        let x = (1u64 << p) as f64;
        for y in [x, -x] {
            v.extend(
                [
                    y,
                    f64::from_bits(y.to_bits() + 1),
                    f64::from_bits(y.to_bits() - 1),
                    y + 0.5,
                    y - 0.5,
                    y + 1.0,
                    y - 1.0,
                ]
                .map(f64::to_bits),
            );
        }
        for d in [-3i64, -2, -1, 0, 1, 2, 3] {
            let i = (1i64 << p).wrapping_add(d);
            v.extend([i as u64, i.wrapping_neg() as u64]);
        }
    }
    v.extend([
        i64::MAX as u64,
        u64::MAX,
        1 << 63,
        (1 << 53) + 1,
        (1 << 24) + 1,
    ]);
    v
}

/// `n` 64-bit inputs: the specials, then in turn random bit patterns,
/// integers of a random width (signed and unsigned), `f64`s of a random
/// magnitude up to 2^70, and `f32` ties (the `f64` half-way between two
/// `f32`s).
fn inputs_convert64(rng: &mut StdRng, n: usize) -> Vec<u64> {
    let mut v = specials_convert64();
    while v.len() < n {
        let r: u64 = rng.random();
        let x = match v.len() % 4 {
            0 => r,
            1 => {
                let shift = rng.random_range(0..64);
                if rng.random() {
                    r >> shift
                } else {
                    ((r as i64) >> shift) as u64
                }
            }
            2 => {
                let e = rng.random_range(-30..70);
                (rng.random_range(-1.0..1.0f64) * 2f64.powi(e)).to_bits()
            }
            _ => {
                let f = f32::from_bits(r as u32);
                // The neighbour of larger magnitude.
                let g = f32::from_bits(f.to_bits().wrapping_add(1));
                ((f as f64 + g as f64) / 2.0).to_bits()
            }
        };
        v.push(x);
    }
    v
}

/// Without nvcc's twins: the Rust kernels on the simulator give the host's
/// functions, bit for bit, on a few thousand inputs.
fn on_the_simulator(gpu: &Gpu, k: &Kernels) {
    let mut rng = common::rng("math on the simulator");
    let n = 2048;
    let xs = inputs32(&mut rng, n);
    let ys: Vec<f32> = xs.iter().rev().copied().collect();
    let dx = gpu.upload(&xs).unwrap();
    let dy = gpu.upload(&ys).unwrap();
    let cfg = LaunchConfig::new(4, 128);
    for (op, name) in F32_UNARY.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
        let start = 0x3f00_0000;
        k.math_f32_unary
            .launch(cfg, op as u32, start, &mut out)
            .unwrap();
        let got = out.to_vec().unwrap();
        for (i, g) in got.iter().enumerate() {
            let want = f32_unary(op as u32, f32::from_bits(start + i as u32)).to_bits();
            assert!(
                *g == want || f32::from_bits(*g).is_nan(),
                "{name}({i}): {g:#x} != {want:#x}"
            );
        }
    }
    for (op, name) in F32_BINARY.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u32>(n).unwrap();
        k.math_f32_binary
            .launch(cfg, op as u32, &dx, &dy, &mut out)
            .unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = f32_binary(op as u32, xs[i], ys[i]).to_bits();
            assert!(
                *g == want || f32::from_bits(*g).is_nan(),
                "{name}: {g:#x} != {want:#x}"
            );
        }
    }
    for (op, name) in CONVERT32.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u64>(n).unwrap();
        let start = 0x4eff_ff00;
        k.convert_32
            .launch(cfg, op as u32, start, &mut out)
            .unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = convert32(op as u32, start.wrapping_add(i as u32));
            assert_eq!(*g, want, "{name}({i}): {g:#x} != {want:#x}");
        }
    }
    let xs = inputs_convert64(&mut rng, n);
    let dx = gpu.upload(&xs).unwrap();
    for (op, name) in CONVERT64.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u64>(n).unwrap();
        k.convert_64.launch(cfg, op as u32, &dx, &mut out).unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = convert64(op as u32, xs[i]);
            assert_eq!(*g, want, "{name}({:#x}): {g:#x} != {want:#x}", xs[i]);
        }
    }
    for (op, name) in SATURATING.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u64>(n).unwrap();
        k.convert_saturating
            .launch(cfg, op as u32, &dx, &mut out)
            .unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = saturating(op as u32, xs[i]);
            assert_eq!(*g, want, "{name}({:#x}): {g:#x} != {want:#x}", xs[i]);
        }
    }
    let xs: Vec<f64> = inputs64(&mut rng, n);
    let ys: Vec<f64> = xs.iter().rev().copied().collect();
    let dx = gpu.upload(&xs).unwrap();
    let dy = gpu.upload(&ys).unwrap();
    for (op, name) in F64_UNARY.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u64>(n).unwrap();
        k.math_f64_unary
            .launch(cfg, op as u32, &dx, &mut out)
            .unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = f64_unary(op as u32, xs[i]).to_bits();
            assert!(
                *g == want || f64::from_bits(*g).is_nan(),
                "{name}: {g:#x} != {want:#x}"
            );
        }
    }
    for (op, name) in F64_BINARY.iter().enumerate() {
        let mut out = gpu.alloc_uninit::<u64>(n).unwrap();
        k.math_f64_binary
            .launch(cfg, op as u32, &dx, &dy, &mut out)
            .unwrap();
        for (i, g) in out.to_vec().unwrap().iter().enumerate() {
            let want = f64_binary(op as u32, xs[i], ys[i]).to_bits();
            assert!(
                *g == want || f64::from_bits(*g).is_nan(),
                "{name}: {g:#x} != {want:#x}"
            );
        }
    }
}

/// A build of the test kernels and nvcc's build of the twins that matches
/// it: `FpContract::Off` (the default build, [`Kernels`]) with
/// `-fmad=false`, `FpContract::Fast` ([`cg_tests::PTX_CONTRACT_FAST`])
/// with nvcc's default `-fmad=true`.
struct Setting {
    /// `off` or `fast`, the prefix of the setting's lines.
    name: &'static str,
    ours: Module,
    twins: Module,
}

/// Both settings, or `None` (after the notice) without the twins.
fn settings(gpu: &Gpu, k: &Kernels, test: &str) -> Option<[Setting; 2]> {
    let off = common::twin_module(gpu, test, "math.fmad-false.ptx")?;
    let fast = common::twin_module(gpu, test, "math.ptx")?;
    Some([
        Setting {
            name: "off",
            ours: k.module.clone(),
            twins: off,
        },
        Setting {
            name: "fast",
            ours: gpu.load_module(&cg_tests::PTX_CONTRACT_FAST).unwrap(),
            twins: fast,
        },
    ])
}

impl Setting {
    /// The kernel `name` of the setting's build and its twin, as `make`
    /// types them.
    fn pair<H>(&self, name: &str, make: impl Fn(Function) -> H) -> (H, H) {
        let f = |m: &Module| make(m.function(name, LaunchKind::Plain).unwrap());
        (f(&self.ours), f(&self.twins))
    }

    /// `name` prefixed with the setting.
    fn label(&self, name: &str) -> String {
        format!("{} {name}", self.name)
    }
}

#[test]
#[cfg_attr(
    all(not(cg_no_gpu), cg_no_twins),
    ignore = "needs the CUDA twins on a GPU: a comparison with nvcc's functions"
)]
fn f32_functions_of_one_argument_equal_nvccs_on_every_input() {
    let test = "f32_functions_of_one_argument_equal_nvccs_on_every_input";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    if gpu.is_simulator() {
        on_the_simulator(&gpu, &k);
        return;
    }
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let (len, _) = sizes();
    let mut a = gpu.alloc_uninit::<u32>(len).unwrap();
    let mut b = gpu.alloc_uninit::<u32>(len).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: both kernels have the typed handle's parameter list (the
        // twin the Rust kernel's).
        let (ours, twin) = s.pair(MathF32Unary::NAME, |f| unsafe {
            MathF32Unary::from_function(f)
        });
        for (op, name) in F32_UNARY.iter().enumerate() {
            let mut found = Found::default();
            for chunk in 0..(1u64 << 32) / CHUNK as u64 {
                let start = (chunk * CHUNK as u64) as u32;
                ours.launch(config(), op as u32, start, &mut a).unwrap();
                twin.launch(config(), op as u32, start, &mut b).unwrap();
                diff32(&gpu, &k, &a, &b, &mut found, |i| {
                    format!("x = {:#010x}", start.wrapping_add(i as u32))
                });
            }
            results.push((s.label(name), found));
        }
    }
    report(test, &results);
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with nvcc's functions"
)]
fn f64_functions_of_one_argument_equal_nvccs_on_samples() {
    let test = "f64_functions_of_one_argument_equal_nvccs_on_samples";
    // The simulator's run is in the f32 test.
    let Some(gpu) = common::real_gpu(test, NVCC) else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let mut rng = common::rng(test);
    let (_, samples) = sizes();
    let xs = inputs64(&mut rng, samples);
    let dx = gpu.upload(&xs).unwrap();
    let mut a = gpu.alloc_uninit::<u64>(samples).unwrap();
    let mut b = gpu.alloc_uninit::<u64>(samples).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(MathF64Unary::NAME, |f| unsafe {
            MathF64Unary::from_function(f)
        });
        for (op, name) in F64_UNARY.iter().enumerate() {
            let mut found = Found::default();
            ours.launch(config(), op as u32, &dx, &mut a).unwrap();
            twin.launch(config(), op as u32, &dx, &mut b).unwrap();
            diff64(&gpu, &k, (&a, &b), true, &mut found, |i| {
                format!("x = {:#018x}", xs[i].to_bits())
            });
            results.push((s.label(name), found));
        }
    }
    report(test, &results);
}

/// `n` pairs: every special against every special first, then random
/// inputs of `inputs`.
fn pairs<T: Copy>(
    rng: &mut StdRng,
    n: usize,
    specials: &[T],
    inputs: fn(&mut StdRng, usize) -> Vec<T>,
) -> (Vec<T>, Vec<T>) {
    let (mut xs, mut ys) = (inputs(rng, n), inputs(rng, n));
    for (i, (x, y)) in specials
        .iter()
        .flat_map(|x| specials.iter().map(move |y| (*x, *y)))
        .enumerate()
    {
        xs[i] = x;
        ys[i] = y;
    }
    (xs, ys)
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with nvcc's functions"
)]
fn functions_of_two_arguments_equal_nvccs_on_samples() {
    let test = "functions_of_two_arguments_equal_nvccs_on_samples";
    // The simulator's run is in the f32 test.
    let Some(gpu) = common::real_gpu(test, NVCC) else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let mut rng = common::rng(test);
    let (_, samples) = sizes();
    let mut results = Vec::new();
    {
        let (xs, ys) = pairs(&mut rng, samples, &specials32(), inputs32);
        let (dx, dy) = (gpu.upload(&xs).unwrap(), gpu.upload(&ys).unwrap());
        let mut a = gpu.alloc_uninit::<u32>(samples).unwrap();
        let mut b = gpu.alloc_uninit::<u32>(samples).unwrap();
        for s in &settings {
            // SAFETY: as in the f32 test.
            let (ours, twin) = s.pair(MathF32Binary::NAME, |f| unsafe {
                MathF32Binary::from_function(f)
            });
            for (op, name) in F32_BINARY.iter().enumerate() {
                let mut found = Found::default();
                ours.launch(config(), op as u32, &dx, &dy, &mut a).unwrap();
                twin.launch(config(), op as u32, &dx, &dy, &mut b).unwrap();
                diff32(&gpu, &k, &a, &b, &mut found, |i| {
                    format!(
                        "(x, y) = ({:#010x}, {:#010x})",
                        xs[i].to_bits(),
                        ys[i].to_bits()
                    )
                });
                results.push((s.label(&format!("f32 {name}")), found));
            }
        }
    }
    {
        let (xs, ys) = pairs(&mut rng, samples, &specials64(), inputs64);
        let (dx, dy) = (gpu.upload(&xs).unwrap(), gpu.upload(&ys).unwrap());
        let mut a = gpu.alloc_uninit::<u64>(samples).unwrap();
        let mut b = gpu.alloc_uninit::<u64>(samples).unwrap();
        for s in &settings {
            // SAFETY: as in the f32 test.
            let (ours, twin) = s.pair(MathF64Binary::NAME, |f| unsafe {
                MathF64Binary::from_function(f)
            });
            for (op, name) in F64_BINARY.iter().enumerate() {
                let mut found = Found::default();
                ours.launch(config(), op as u32, &dx, &dy, &mut a).unwrap();
                twin.launch(config(), op as u32, &dx, &dy, &mut b).unwrap();
                diff64(&gpu, &k, (&a, &b), true, &mut found, |i| {
                    format!(
                        "(x, y) = ({:#018x}, {:#018x})",
                        xs[i].to_bits(),
                        ys[i].to_bits()
                    )
                });
                results.push((s.label(&format!("f64 {name}")), found));
            }
        }
    }
    report(test, &results);
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with nvcc's functions"
)]
fn conversions_of_32_bit_inputs_equal_nvccs_on_every_input() {
    let test = "conversions_of_32_bit_inputs_equal_nvccs_on_every_input";
    // The simulator's run is in the f32 test.
    let Some(gpu) = common::real_gpu(test, NVCC) else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let (len, _) = sizes();
    let mut a = gpu.alloc_uninit::<u64>(len).unwrap();
    let mut b = gpu.alloc_uninit::<u64>(len).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(Convert32::NAME, |f| unsafe { Convert32::from_function(f) });
        for (op, name) in CONVERT32.iter().enumerate() {
            let mut found = Found::default();
            for chunk in 0..(1u64 << 32) / CHUNK as u64 {
                let start = (chunk * CHUNK as u64) as u32;
                ours.launch(config(), op as u32, start, &mut a).unwrap();
                twin.launch(config(), op as u32, start, &mut b).unwrap();
                diff64(&gpu, &k, (&a, &b), false, &mut found, |i| {
                    format!("x = {:#010x}", start.wrapping_add(i as u32))
                });
            }
            results.push((s.label(name), found));
        }
    }
    report(test, &results);
}

#[test]
#[cfg_attr(
    any(cg_no_gpu, cg_no_twins),
    ignore = "needs a GPU and the CUDA twins: a comparison with nvcc's functions"
)]
fn conversions_of_64_bit_inputs_equal_nvccs_on_samples() {
    let test = "conversions_of_64_bit_inputs_equal_nvccs_on_samples";
    // The simulator's run is in the f32 test.
    let Some(gpu) = common::real_gpu(test, NVCC) else {
        return;
    };
    let k = Kernels::load(&gpu).unwrap();
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let mut rng = common::rng(test);
    let (_, samples) = sizes();
    let xs = inputs_convert64(&mut rng, samples);
    let dx = gpu.upload(&xs).unwrap();
    let mut a = gpu.alloc_uninit::<u64>(samples).unwrap();
    let mut b = gpu.alloc_uninit::<u64>(samples).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(Convert64::NAME, |f| unsafe { Convert64::from_function(f) });
        for (op, name) in CONVERT64.iter().enumerate() {
            let mut found = Found::default();
            ours.launch(config(), op as u32, &dx, &mut a).unwrap();
            twin.launch(config(), op as u32, &dx, &mut b).unwrap();
            diff64(&gpu, &k, (&a, &b), false, &mut found, |i| {
                format!("x = {:#018x}", xs[i])
            });
            results.push((s.label(name), found));
        }
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(ConvertSaturating::NAME, |f| unsafe {
            ConvertSaturating::from_function(f)
        });
        for (op, name) in SATURATING.iter().enumerate() {
            let mut found = Found::default();
            ours.launch(config(), op as u32, &dx, &mut a).unwrap();
            twin.launch(config(), op as u32, &dx, &mut b).unwrap();
            diff64(&gpu, &k, (&a, &b), false, &mut found, |i| {
                format!("x = {:#018x}", xs[i])
            });
            results.push((s.label(&format!("saturating {name}")), found));
        }
    }
    report(test, &results);
}

/// Inputs of the conversions to halves.
const TO_HALF_SAMPLES: usize = 1 << 22;

/// The special integer inputs of the conversions to halves (bits, each
/// source type taking the low ones): about each power of two `2^p`, of
/// both signs, the ties of both half types (`2^p + k 2^(p - 11)` for
/// `f16`, `2^p + k 2^(p - 8)` for `bf16`, `k` odd) and the values a unit
/// of the last place on either side, with their neighbours; each integer
/// type's limits and their neighbours; the `f16` overflow thresholds.
fn specials_to_half() -> Vec<u64> {
    let mut v = Vec::new();
    for p in 0..64u32 {
        for t in [11u32, 10, 9, 8, 7, 12] {
            let Some(t) = p.checked_sub(t) else { continue };
            for k in [0i128, 1, 2, 3, 5, -1, -2, -3] {
                let x = (1i128 << p) + k * (1i128 << t);
                for d in [-1i128, 0, 1] {
                    v.extend([(x + d) as u64, (-(x + d)) as u64]);
                }
            }
        }
    }
    for limit in [
        i16::MIN as i64,
        i16::MAX as i64,
        u16::MAX as i64,
        i32::MIN as i64,
        i32::MAX as i64,
        u32::MAX as i64,
        i64::MIN,
        i64::MAX,
        -1,
        65504,
        65519,
        65520,
        65535,
    ] {
        for d in [-1i64, 0, 1] {
            let x = limit.wrapping_add(d);
            v.extend([x as u64, x.wrapping_neg() as u64]);
        }
    }
    v
}

/// `n` integer inputs of the conversions to halves: every 16-bit value
/// first (0 to 2^16 - 1: all of each 16-bit type), the specials, then in
/// turn random bit patterns, integers of a random width (signed and
/// unsigned), and random ties of either half type (a random significand
/// of 9 or 12 bits ending in 1, shifted, and its neighbours).
fn inputs_to_half(rng: &mut StdRng, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..1 << 16).collect();
    v.extend(specials_to_half());
    while v.len() < n {
        let r: u64 = rng.random();
        let x = match v.len() % 3 {
            0 => r,
            1 => {
                let shift = rng.random_range(0..64);
                if rng.random() {
                    r >> shift
                } else {
                    ((r as i64) >> shift) as u64
                }
            }
            _ => {
                let bits = if rng.random() { 9 } else { 12 };
                let tie = (r >> (64 - bits)) | 1;
                let x = tie << rng.random_range(0..=64 - bits);
                let x = x.wrapping_add(rng.random_range(0..3)).wrapping_sub(1);
                if rng.random() {
                    x
                } else {
                    x.wrapping_neg()
                }
            }
        };
        v.push(x);
    }
    v
}

/// Without nvcc's twins: the conversions between halves and integers on
/// the simulator give the host's, bit for bit (`halves`: every half, each
/// function to an integer; else the specials of [`inputs_to_half`] and
/// 4096 random ones, each function to a half).
fn halves_on_the_simulator(gpu: &Gpu, k: &Kernels, test: &str, halves: bool) {
    let cfg = LaunchConfig::new(4, 128);
    let mut compared = 0;
    if halves {
        for (op, name) in FROM_HALF.iter().enumerate() {
            let mut out = gpu.alloc_uninit::<u64>(1 << 16).unwrap();
            k.convert_from_half
                .launch(cfg, op as u32, &mut out)
                .unwrap();
            for (i, g) in out.to_vec().unwrap().iter().enumerate() {
                let want = from_half(op as u32, i as u16);
                assert_eq!(*g, want, "{name}({i:#06x}): {g:#x} != {want:#x}");
                compared += 1;
            }
        }
    } else {
        let mut rng = common::rng(test);
        let n = (1 << 16) + specials_to_half().len() + 4096;
        let xs: Vec<u64> = inputs_to_half(&mut rng, n)[1 << 16..].to_vec();
        let dx = gpu.upload(&xs).unwrap();
        for (op, name) in TO_HALF.iter().enumerate() {
            let mut out = gpu.alloc_uninit::<u64>(xs.len()).unwrap();
            k.convert_to_half
                .launch(cfg, op as u32, &dx, &mut out)
                .unwrap();
            for (i, g) in out.to_vec().unwrap().iter().enumerate() {
                let want = to_half(op as u32, xs[i]);
                assert_eq!(*g, want, "{name}({:#x}): {g:#x} != {want:#x}", xs[i]);
                compared += 1;
            }
        }
    }
    println!("{test}: {compared} results compared with the host's on the simulator");
}

#[test]
#[cfg_attr(
    all(not(cg_no_gpu), cg_no_twins),
    ignore = "needs the CUDA twins on a GPU: a comparison with nvcc's functions"
)]
fn halves_to_integers_equal_nvccs_on_every_half() {
    let test = "halves_to_integers_equal_nvccs_on_every_half";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    if gpu.is_simulator() {
        halves_on_the_simulator(&gpu, &k, test, true);
        return;
    }
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let mut a = gpu.alloc_uninit::<u64>(1 << 16).unwrap();
    let mut b = gpu.alloc_uninit::<u64>(1 << 16).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(ConvertFromHalf::NAME, |f| unsafe {
            ConvertFromHalf::from_function(f)
        });
        for (op, name) in FROM_HALF.iter().enumerate() {
            let mut found = Found::default();
            ours.launch(config(), op as u32, &mut a).unwrap();
            twin.launch(config(), op as u32, &mut b).unwrap();
            diff64(&gpu, &k, (&a, &b), false, &mut found, |i| {
                format!("x = {i:#06x}")
            });
            results.push((s.label(name), found));
        }
    }
    report(test, &results);
}

#[test]
#[cfg_attr(
    all(not(cg_no_gpu), cg_no_twins),
    ignore = "needs the CUDA twins on a GPU: a comparison with nvcc's functions"
)]
fn integers_to_halves_equal_nvccs_on_samples() {
    let test = "integers_to_halves_equal_nvccs_on_samples";
    let gpu = gpu_or_return!(test);
    let k = Kernels::load(&gpu).unwrap();
    if gpu.is_simulator() {
        halves_on_the_simulator(&gpu, &k, test, false);
        return;
    }
    let Some(settings) = settings(&gpu, &k, test) else {
        return;
    };
    let mut rng = common::rng(test);
    let n = if common::quick() {
        1 << 17
    } else {
        TO_HALF_SAMPLES
    };
    let xs = inputs_to_half(&mut rng, n);
    let dx = gpu.upload(&xs).unwrap();
    let mut a = gpu.alloc_uninit::<u64>(xs.len()).unwrap();
    let mut b = gpu.alloc_uninit::<u64>(xs.len()).unwrap();
    let mut results = Vec::new();
    for s in &settings {
        // SAFETY: as in the f32 test.
        let (ours, twin) = s.pair(ConvertToHalf::NAME, |f| unsafe {
            ConvertToHalf::from_function(f)
        });
        for (op, name) in TO_HALF.iter().enumerate() {
            let mut found = Found::default();
            ours.launch(config(), op as u32, &dx, &mut a).unwrap();
            twin.launch(config(), op as u32, &dx, &mut b).unwrap();
            diff64(&gpu, &k, (&a, &b), false, &mut found, |i| {
                format!("x = {:#018x}", xs[i])
            });
            results.push((s.label(name), found));
        }
    }
    report(test, &results);
}
