//! A buffer of one GPU used by a kernel on another (peer access, which a
//! `GpuSet` enables): the host waits for that kernel before it reads,
//! writes or frees the buffer, and a kernel on either GPU waits for the
//! other GPU's kernel that writes it before it reads it. The kernel
//! (`slow_fill`, kernels/tests/src/peer.rs) spins for 50 ms before it
//! writes, so a call that did not wait would see the buffer unwritten, or
//! free it under the kernel. Two GPUs (scripts/gpu-run's multi-GPU stage,
//! `CG_REQUIRE_GPUS=2`); with fewer, each test says loudly that it did not
//! run.

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::testing::gpus_for_test;
use cooperative_groups::{DeviceBuffer, Gpu, GpuSet, LaunchConfig};
use std::time::{Duration, Instant};

const POISON: u32 = 0xDEAD_BEEF;
const N: usize = 4096;
/// How long `slow_fill` spins before it writes.
const SPIN_NS: u64 = 50_000_000;

/// The set of GPUs 0 and 1, with the test deadline, and the kernels loaded
/// on each.
fn open(test: &str) -> Option<(GpuSet, [Kernels; 2])> {
    let set = gpus_for_test(test, 2)?;
    for g in set.gpus() {
        if g.deadline().is_none() {
            g.set_deadline(Some(common::DEADLINE));
        }
    }
    let k = [0, 1].map(|i| Kernels::load(&set.gpus()[i]).unwrap());
    Some((set, k))
}

/// What `slow_fill` writes with `value`.
fn filled_by(value: u32) -> Vec<u32> {
    (0..N as u32).map(|i| value.wrapping_add(i)).collect()
}

/// Starts `slow_fill` (of `k`'s GPU) writing `value + i` into `buf`.
fn start_slow_fill(k: &Kernels, buf: &mut DeviceBuffer<u32>, value: u32) {
    let cfg = LaunchConfig::new(4, 128);
    k.slow_fill.launch(cfg, SPIN_NS, value, buf).unwrap();
}

/// Copies `input` into `out` with a kernel of `k`'s GPU.
fn copy_on(k: &Kernels, input: &DeviceBuffer<u32>, out: &mut DeviceBuffer<u32>) {
    let cfg = LaunchConfig::for_elements(N, 128);
    k.planted_copy.launch(cfg, input, out).unwrap();
}

fn gpu0(set: &GpuSet) -> &Gpu {
    &set.gpus()[0]
}

#[test]
#[cfg_attr(cg_no_second_gpu, ignore = "needs two GPUs: waits across GPUs")]
fn to_vec_waits_for_another_gpus_kernel_that_writes_the_buffer() {
    let Some((set, k)) = open("to_vec_waits_for_another_gpus_kernel_that_writes_the_buffer") else {
        return;
    };
    let mut buf = gpu0(&set).filled(N, POISON).unwrap();
    start_slow_fill(&k[1], &mut buf, 7);
    let start = Instant::now();
    let got = buf.to_vec().unwrap();
    assert_eq!(
        got,
        filled_by(7),
        "GPU 0's buffer read while GPU 1's kernel was still writing it"
    );
    assert!(
        start.elapsed() >= Duration::from_millis(40),
        "to_vec returned after {:?}, before GPU 1's kernel could have ended",
        start.elapsed()
    );
}

#[test]
#[cfg_attr(cg_no_second_gpu, ignore = "needs two GPUs: waits across GPUs")]
fn host_writes_wait_for_another_gpus_kernel_that_writes_the_buffer() {
    let Some((set, k)) = open("host_writes_wait_for_another_gpus_kernel_that_writes_the_buffer")
    else {
        return;
    };
    let mut buf = gpu0(&set).filled(N, POISON).unwrap();
    // The host's write comes after the kernel's, so it is what stays.
    start_slow_fill(&k[1], &mut buf, 7);
    buf.copy_from(&filled_by(100)).unwrap();
    assert_eq!(buf.to_vec().unwrap(), filled_by(100), "copy_from");
    start_slow_fill(&k[1], &mut buf, 7);
    buf.zero().unwrap();
    assert_eq!(buf.to_vec().unwrap(), vec![0; N], "zero");
    let source = gpu0(&set).upload(&filled_by(200)).unwrap();
    start_slow_fill(&k[1], &mut buf, 7);
    buf.copy_from_device(&source).unwrap();
    assert_eq!(buf.to_vec().unwrap(), filled_by(200), "copy_from_device");
}

#[test]
#[cfg_attr(cg_no_second_gpu, ignore = "needs two GPUs: waits across GPUs")]
fn a_kernel_reads_a_buffer_after_another_gpus_kernel_wrote_it() {
    let Some((set, k)) = open("a_kernel_reads_a_buffer_after_another_gpus_kernel_wrote_it") else {
        return;
    };
    let (g0, g1) = (gpu0(&set), &set.gpus()[1]);
    // GPU 1 writes GPU 0's buffer; GPU 0 reads it, by a kernel and by a copy.
    let mut buf = g0.filled(N, POISON).unwrap();
    let mut out = g0.filled(N, POISON).unwrap();
    start_slow_fill(&k[1], &mut buf, 7);
    copy_on(&k[0], &buf, &mut out);
    assert_eq!(out.to_vec().unwrap(), filled_by(7), "GPU 0's kernel");
    let mut copied = g0.filled(N, POISON).unwrap();
    start_slow_fill(&k[1], &mut buf, 8);
    copied.copy_from_device(&buf).unwrap();
    assert_eq!(copied.to_vec().unwrap(), filled_by(8), "GPU 0's copy");
    // GPU 0 writes its own buffer; GPU 1 reads it.
    let mut theirs = g1.filled(N, POISON).unwrap();
    start_slow_fill(&k[0], &mut buf, 9);
    copy_on(&k[1], &buf, &mut theirs);
    assert_eq!(theirs.to_vec().unwrap(), filled_by(9), "GPU 1's kernel");
}

#[test]
#[cfg_attr(cg_no_second_gpu, ignore = "needs two GPUs: waits across GPUs")]
fn a_buffer_dropped_under_another_gpus_kernel_is_freed_after_it() {
    let Some((set, k)) = open("a_buffer_dropped_under_another_gpus_kernel_is_freed_after_it")
    else {
        return;
    };
    let g0 = gpu0(&set);
    let mut buf = g0.filled(N, POISON).unwrap();
    let freed = buf.device_address();
    start_slow_fill(&k[1], &mut buf, 7);
    drop(buf);
    // The next allocation of the same size on GPU 0 takes the freed memory
    // from the pool where it can: freed before GPU 1's kernel ended, it
    // would receive that kernel's writes (or, under compute-sanitizer, the
    // kernel would write memory no allocation holds).
    let next = g0.filled(N, 5u32).unwrap();
    set.synchronize().unwrap();
    if next.device_address() != freed {
        eprintln!(
            "note: the pool gave the next buffer other memory ({:#x}, not {freed:#x}): this run \
             shows only that nothing faulted",
            next.device_address()
        );
    }
    assert_eq!(
        next.to_vec().unwrap(),
        vec![5; N],
        "GPU 1's kernel wrote into memory freed under it"
    );
}

/// The median of `runs` timings of `iters` calls of `f`, in nanoseconds
/// per call.
fn ns_per_call(runs: usize, iters: u32, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

/// What the host pays per buffer for the record of other GPUs' uses, on a
/// buffer only its own device uses (the simulator's: the same code path as
/// a GPU's up to the driver): the launch address of a read-only and of a
/// writable buffer, a buffer allocated and dropped, and a whole simulated
/// launch of a small kernel for scale. A measurement, not a check:
/// `cargo test -p cg-tests --test gpu_peer_waits -- --ignored --nocapture`.
#[test]
#[ignore]
fn host_cost_of_the_buffer_use_record() {
    let gpu = Gpu::simulator();
    let k = Kernels::load(&gpu).unwrap();
    let input = gpu.filled(256, 1u32).unwrap();
    let mut out = gpu.filled(256, 0u32).unwrap();
    let f = k.planted_copy.function();
    let read = ns_per_call(9, 1_000_000, || {
        std::hint::black_box(input.launch_address_for(f).unwrap());
    });
    let write = ns_per_call(9, 1_000_000, || {
        std::hint::black_box(out.launch_address_for_mut(f).unwrap());
    });
    let alloc = ns_per_call(9, 100_000, || {
        drop(std::hint::black_box(gpu.alloc_uninit::<u32>(1).unwrap()));
    });
    let cfg = LaunchConfig::new(1, 32);
    let launch = ns_per_call(9, 2_000, || {
        k.planted_copy.launch(cfg, &input, &mut out).unwrap();
    });
    println!(
        "launch_address_for {read:.1} ns, launch_address_for_mut {write:.1} ns, a buffer \
         allocated and dropped {alloc:.1} ns, a simulated launch of 32 threads {:.2} us \
         (median of 9 runs)",
        launch / 1000.0
    );
}
