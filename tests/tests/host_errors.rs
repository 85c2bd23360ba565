//! The host's answers to bad input and missing pieces: each an error value
//! that says what happened and what to do (the README's catalogue).

mod common;

use cg_tests::kernels::PTX;
use cooperative_groups::{driver_present, Error, Gpu, LaunchConfig, Ptx, PtxSet};

/// What the GPU-only tests here check.
const DRIVER: &str = "the CUDA driver's answers";

#[test]
fn no_driver_is_a_clear_error() {
    if driver_present() {
        println!(
            "a CUDA driver is present: the no-driver path is checked on machines without one (CI)"
        );
        return;
    }
    let e = Gpu::new(0).err().expect("no driver, no GPU");
    assert!(matches!(e, Error::NoDriver), "{e}");
    assert!(
        e.to_string().contains("no CUDA driver on this machine"),
        "{e}"
    );
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's answers")]
fn a_device_ordinal_past_the_last_is_refused() {
    let Some(_gpu) = common::real_gpu("a_device_ordinal_past_the_last_is_refused", DRIVER) else {
        return;
    };
    match Gpu::new(99) {
        Err(e @ Error::NoSuchDevice { ordinal: 99, .. }) => {
            assert!(e.to_string().contains("there is no GPU 99"))
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("GPU 99 opened"),
    }
}

#[test]
#[ignore = "child process of no_visible_device_is_a_clear_error"]
fn child_no_visible_device() {
    match Gpu::new(0) {
        Err(e) => println!("ERROR: {e:?}: {e}"),
        Ok(_) => println!("OPENED"),
    }
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's answers")]
fn no_visible_device_is_a_clear_error() {
    let Some(_gpu) = common::real_gpu("no_visible_device_is_a_clear_error", DRIVER) else {
        return;
    };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_no_visible_device",
            "--nocapture",
        ])
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ERROR: NoDevice"), "{stdout}");
    assert!(
        stdout.contains("CUDA_VISIBLE_DEVICES"),
        "the message says where to look:\n{stdout}"
    );
}

static NEWER_ONLY: PtxSet = PtxSet::new(&[Ptx {
    sm: 200,
    source: "",
}]);

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's answers")]
fn ptx_for_a_newer_architecture_is_refused() {
    let Some(gpu) = common::real_gpu("ptx_for_a_newer_architecture_is_refused", DRIVER) else {
        return;
    };
    let e = gpu
        .load_module(&NEWER_ONLY)
        .err()
        .expect("no module for this device");
    assert!(
        matches!(e, Error::UnsupportedArch { oldest: 200, .. }),
        "{e}"
    );
    assert!(
        e.to_string().contains("older than every PTX module built"),
        "{e}"
    );
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's answers")]
fn a_ptx_isa_newer_than_the_driver_is_a_clear_error() {
    let Some(gpu) = common::real_gpu("a_ptx_isa_newer_than_the_driver_is_a_clear_error", DRIVER)
    else {
        return;
    };
    let m = PTX.select(gpu.info().sm).unwrap();
    let version = m
        .source
        .lines()
        .find(|l| l.starts_with(".version"))
        .unwrap();
    let future: &'static str = Box::leak(
        m.source
            .replacen(version, ".version 99.9", 1)
            .into_boxed_str(),
    );
    let set: &'static [Ptx] = Box::leak(Box::new([Ptx {
        sm: m.sm,
        source: future,
    }]));
    let e = gpu
        .load_module(&PtxSet::new(set))
        .err()
        .expect("the driver cannot know PTX ISA 99.9");
    assert!(matches!(e, Error::Driver { .. }), "{e}");
    assert!(e.to_string().contains("needs a newer driver"), "{e}");
}

/// The simulator refuses what only a GPU has (and has no place of the grid
/// barrier's counters to choose), a kernel crate that is not linked in, a buffer of another device and a cooperative grid past its
/// SMs, each naming the cause and what to do; a kernel fault leaves it
/// usable.
#[test]
fn the_simulator_says_what_it_cannot_do() {
    let sim = Gpu::simulator();
    assert!(sim.is_simulator());
    let e = cooperative_groups::EventTimer::new(&sim)
        .err()
        .expect("no events");
    assert!(matches!(e, Error::NeedsGpu { .. }), "{e}");
    assert!(e.to_string().contains("needs a CUDA device"), "{e}");
    let e = sim.capture(|| Ok(())).err().expect("no graphs");
    assert!(matches!(e, Error::NeedsGpu { .. }), "{e}");
    // No place of the grid barrier's counters to choose, even with grid
    // barriers loaded: the simulator's counters are each launch's own.
    let _kernels = cg_tests::kernels::Kernels::load(&sim).unwrap();
    assert_eq!(sim.grid_barrier_place(), None);

    // A set naming a kernel crate this program does not link.
    let elsewhere = PtxSet::of_crate("not_linked_kernels", PTX.modules());
    let m = sim.load_module(&elsewhere).unwrap();
    let name = &m.entry_points()[0];
    let e = m
        .function(name, cooperative_groups::LaunchKind::Plain)
        .err()
        .expect("not linked");
    assert!(matches!(e, Error::NotSimulated { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("no host build of the kernel crate `not_linked_kernels`")
            && text.contains("use not_linked_kernels as _;"),
        "{text}"
    );

    let k = cg_tests::kernels::Kernels::load(&sim).unwrap();
    // A grid larger than the simulated device holds at once.
    let mut scratch = sim.filled(1 << 16, 0u32).unwrap();
    let mut out = sim.filled(1 << 16, 0u32).unwrap();
    let most = k
        .probe_grid_rotate
        .function()
        .max_cooperative_blocks(256, 0)
        .unwrap();
    assert_eq!(most, 32, "4 SMs of 2,048 threads hold 32 blocks of 256");
    let cfg = cooperative_groups::LaunchConfig::new(most + 1, 256);
    let e = k
        .probe_grid_rotate
        .launch(cfg, &mut scratch, &mut out, 1 << 16)
        .expect_err("too large");
    assert!(matches!(e, Error::GridTooLarge { .. }), "{e}");

    // A kernel that faults: the error names the thread, and the simulator
    // runs the next launch.
    let mut raced = sim.filled(256, 0u32).unwrap();
    let e = k
        .planted_shared_race
        .launch(cooperative_groups::LaunchConfig::new(1, 256), &mut raced)
        .expect_err("a shared-memory race");
    assert!(matches!(e, Error::SimulatorFault { .. }), "{e}");
    assert!(e.to_string().contains("block (0, 0, 0), thread ("), "{e}");
    let cfg = cooperative_groups::LaunchConfig::new(4, 256);
    k.probe_grid_rotate
        .launch(cfg, &mut scratch, &mut out, 1024)
        .unwrap();

    // A buffer of the simulator passed to a kernel on a GPU is refused
    // (checked where there is a GPU).
    if let Ok(gpu) = Gpu::new(0) {
        let kg = cg_tests::kernels::Kernels::load(&gpu).unwrap();
        let mut on_gpu = gpu.filled(1 << 16, 0u32).unwrap();
        let e = kg
            .probe_grid_rotate
            .launch(cfg, &mut scratch, &mut on_gpu, 1024)
            .expect_err("foreign buffer");
        assert!(e.to_string().contains("lives on the simulator"), "{e}");
    }
}

/// A `#[kernel(grid_1d)]` (the samples' block reduction) launches on one
/// row of blocks and refuses any other grid before the launch, naming the
/// declaration and the shape to use: on the simulator here, and on the GPU
/// when there is one.
#[test]
fn a_grid_1d_kernel_refuses_a_grid_of_several_rows() {
    let mut gpus = vec![Gpu::simulator()];
    if let Some(gpu) = common::gpu_part("a_grid_1d_kernel_refuses_a_grid_of_several_rows", DRIVER) {
        gpus.push(gpu);
    }
    for gpu in gpus {
        let k = cg_samples::kernels::Kernels::load(&gpu).unwrap();
        assert!(k.block_reduce_warp.function().requires_grid_1d());
        let input = gpu.upload(&[1.0f32; 1024]).unwrap();
        let mut sums = gpu.filled(4, -1.0f32).unwrap();
        let e = k
            .block_reduce_warp
            .launch(LaunchConfig::new((2, 2, 1), 256), &input, &mut sums)
            .expect_err("two rows of blocks");
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("#[kernel(grid_1d)]") && text.contains("launch (4, 1, 1) blocks"),
            "{text}"
        );
        assert_eq!(sums.to_vec().unwrap(), [-1.0; 4], "nothing ran");
        // The same blocks in one row.
        k.block_reduce_warp
            .launch(LaunchConfig::new(4, 256), &input, &mut sums)
            .unwrap();
        assert_eq!(sums.to_vec().unwrap(), [256.0; 4]);
    }
}

/// A `#[kernel(block_size(16, 4, 2))]` runs blocks of exactly that shape
/// and refuses any other before the launch, naming the declaration and the
/// shape to use, even a block of as many threads in another shape (the
/// body computes ranks with the declared extents): on the simulator here,
/// and on the GPU when there is one, where the driver refuses the launch of
/// another shape too (`.reqntid`), without the handle's check.
#[test]
fn a_kernel_with_a_block_size_refuses_every_other_block() {
    use cg_tests::kernels::{Kernels, ProbeBlockSize};
    use cooperative_groups::LaunchKind;
    assert_eq!(ProbeBlockSize::BLOCK_SHAPE, Some([16, 4, 2]));
    assert_eq!(cg_tests::kernels::ProbeGroups::BLOCK_SHAPE, None);
    let mut gpus = vec![Gpu::simulator()];
    if let Some(gpu) = common::gpu_part(
        "a_kernel_with_a_block_size_refuses_every_other_block",
        DRIVER,
    ) {
        gpus.push(gpu);
    }
    for gpu in gpus {
        let k = Kernels::load(&gpu).unwrap();
        let f = k.probe_block_size.function();
        assert_eq!(f.required_block_shape(), Some([16, 4, 2]));
        assert_eq!(f.max_threads_per_block(), 128);
        let mut out = gpu.filled(3 * 128, u32::MAX).unwrap();
        for block in [(128, 1, 1), (16, 8, 1), (16, 4, 1), (32, 4, 2), (4, 16, 2)] {
            let e = k
                .probe_block_size
                .launch(LaunchConfig::new(3, block), &mut out)
                .expect_err("a block of another shape");
            assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
            let text = e.to_string();
            assert!(
                text.contains("probe_block_size")
                    && text.contains(&format!("blocks of {block:?} threads"))
                    && text.contains("declares block_size(16, 4, 2)")
                    && text.contains("LaunchConfig::new(blocks, (16, 4, 2))"),
                "{text}"
            );
        }
        assert_eq!(out.to_vec().unwrap(), [u32::MAX; 3 * 128], "nothing ran");
        k.probe_block_size
            .launch(LaunchConfig::new(3, (16, 4, 2)), &mut out)
            .unwrap();
        let want: Vec<u32> = (0..3 * 128).map(|i| i % 128 + 128_000).collect();
        assert_eq!(out.to_vec().unwrap(), want);
        if !gpu.is_simulator() {
            // The same entry point looked up without its declaration: the
            // handle's check is gone (and the driver's
            // MAX_THREADS_PER_BLOCK does not read `.reqntid`), but the
            // driver refuses the launch of another shape itself.
            let raw = k
                .module
                .function("probe_block_size", LaunchKind::Plain)
                .unwrap();
            assert_eq!(raw.required_block_shape(), None);
            let out = gpu.filled(3 * 128, u32::MAX).unwrap();
            let (ptr, len) = (out.device_address(), out.len() as u64);
            let mut params = [
                &ptr as *const u64 as *mut std::ffi::c_void,
                &len as *const u64 as *mut std::ffi::c_void,
            ];
            // SAFETY: the parameters match probe_block_size(Output<u32>),
            // a pointer and a length; a block of 128 threads in one row
            // would still write only its grid thread rank's element.
            let e = unsafe { raw.launch(LaunchConfig::new(3, (128, 1, 1)), &mut params) }
                .and_then(|()| gpu.synchronize())
                .expect_err("the driver refuses a block of another shape than .reqntid");
            println!("the driver on a block of (128, 1, 1): {e}");
            assert_eq!(out.to_vec().unwrap(), [u32::MAX; 3 * 128], "nothing ran");
        }
    }
}

/// A `#[kernel(launch_bounds(96, 4))]` runs blocks of up to 96 threads, of
/// any shape, and refuses a larger block before the launch, naming the
/// declaration: on the simulator here, and on the GPU when there is one,
/// where the driver's own limit for the function
/// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`) is 96 too, read from the
/// `.maxntid` the builder wrote into the PTX: looked up without the
/// handle's declaration, the function's limit is still 96.
#[test]
fn a_kernel_with_launch_bounds_refuses_larger_blocks() {
    use cg_tests::kernels::{Kernels, ProbeLaunchBounds};
    use cooperative_groups::LaunchKind;
    assert_eq!(ProbeLaunchBounds::MAX_BLOCK_THREADS, Some(96));
    assert_eq!(cg_tests::kernels::ProbeGroups::MAX_BLOCK_THREADS, None);
    let mut gpus = vec![Gpu::simulator()];
    if let Some(gpu) = common::gpu_part("a_kernel_with_launch_bounds_refuses_larger_blocks", DRIVER)
    {
        gpus.push(gpu);
    }
    for gpu in gpus {
        let k = Kernels::load(&gpu).unwrap();
        let f = k.probe_launch_bounds.function();
        assert_eq!(f.declared_max_block_threads(), Some(96));
        assert_eq!(f.max_threads_per_block(), 96);
        let mut out = gpu.filled(3 * 128, u32::MAX).unwrap();
        for block in [(128, 1, 1), (32, 4, 1), (97, 1, 1)] {
            let e = k
                .probe_launch_bounds
                .launch(LaunchConfig::new(3, block), &mut out)
                .expect_err("a block over the bound");
            assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
            let text = e.to_string();
            assert!(
                text.contains("probe_launch_bounds")
                    && text.contains("declares launch_bounds(96)")
                    && text.contains("launch blocks of at most 96 threads"),
                "{text}"
            );
        }
        assert_eq!(out.to_vec().unwrap(), [u32::MAX; 3 * 128], "nothing ran");
        // Blocks of 96 threads, in one row or in three, and of fewer.
        for block in [(96, 1, 1), (32, 3, 1), (7, 1, 1)] {
            let mut out = gpu.filled(3 * 96, u32::MAX).unwrap();
            let cfg = LaunchConfig::new(3, block);
            k.probe_launch_bounds.launch(cfg, &mut out).unwrap();
            let n = block.0 * block.1;
            let want: Vec<u32> = (0..3 * 96)
                .map(|i| {
                    if i < 3 * n {
                        i % n + 1000 * n
                    } else {
                        u32::MAX
                    }
                })
                .collect();
            assert_eq!(out.to_vec().unwrap(), want, "blocks of {block:?}");
        }
        // The same entry point looked up without its declaration.
        if !gpu.is_simulator() {
            let raw = k
                .module
                .function("probe_launch_bounds", LaunchKind::Plain)
                .unwrap();
            assert_eq!(raw.declared_max_block_threads(), None);
            assert_eq!(raw.max_threads_per_block(), 96, "the driver reads .maxntid");
        }
    }
}
