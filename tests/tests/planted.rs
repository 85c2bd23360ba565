//! Planted bugs: each checker of compute-sanitizer catches its kind (run by
//! scripts/gpu-run's sanitizer stage, which launches the ignored tests here
//! under memcheck, racecheck, synccheck and initcheck and expects findings),
//! and a planted deadlock is caught by the host's deadline (an ordinary GPU
//! test, in a child process: a hung kernel holds its stream for good).

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::{Error, LaunchConfig};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kernels() -> (cooperative_groups::Gpu, Kernels) {
    let gpu = common::gpu("planted").expect("planted-bug kernels need a GPU");
    let k = Kernels::load(&gpu).unwrap();
    (gpu, k)
}

#[test]
#[ignore = "planted bug: run under compute-sanitizer --tool memcheck"]
fn planted_out_of_bounds_write() {
    let (gpu, k) = kernels();
    let mut out = gpu.filled(256, 0u32).unwrap();
    let _ = k
        .planted_out_of_bounds_write
        .launch(LaunchConfig::new(2, 256), &mut out, 256);
    let _ = gpu.synchronize();
}

#[test]
#[ignore = "planted bug: run under compute-sanitizer --tool racecheck"]
fn planted_shared_race() {
    let (gpu, k) = kernels();
    let mut out = gpu.filled(64, 0u32).unwrap();
    k.planted_shared_race
        .launch(LaunchConfig::new(1, 64), &mut out)
        .unwrap();
    let _ = gpu.synchronize();
}

#[test]
#[ignore = "planted bug: run under compute-sanitizer --tool synccheck"]
fn planted_warp_barrier_mask() {
    let (gpu, k) = kernels();
    let mut out = gpu.filled(32, 0u32).unwrap();
    k.planted_warp_barrier_mask
        .launch(LaunchConfig::new(1, 32), &mut out)
        .unwrap();
    let _ = gpu.synchronize_timeout(Duration::from_secs(10));
}

#[test]
#[ignore = "planted bug: run under compute-sanitizer --tool initcheck"]
fn planted_uninitialised_read() {
    let (gpu, k) = kernels();
    let input = gpu.alloc_uninit::<u32>(256).unwrap();
    let mut out = gpu.filled(256, 0u32).unwrap();
    k.planted_copy
        .launch(LaunchConfig::new(1, 256), &input, &mut out)
        .unwrap();
    let _ = gpu.synchronize();
}

/// The child of the test below: launches a kernel that never ends and
/// reads its output back with a deadline set. Exits at once afterwards: tearing the context
/// down would wait for the kernel.
#[test]
#[ignore = "child process of a_planted_deadlock_is_caught_by_the_deadline"]
fn child_planted_deadlock() {
    let (gpu, k) = kernels();
    let flag = gpu.filled(1, 0u32).unwrap();
    k.planted_spin_forever
        .launch(LaunchConfig::new(1, 32), &flag)
        .unwrap();
    // An ordinary read of a result, under the deadline every wait obeys.
    gpu.set_deadline(Some(Duration::from_secs(2)));
    match flag.to_vec() {
        Err(e @ Error::Timeout { .. }) => println!("DEADLINE: {e}"),
        other => println!("NO DEADLINE: {other:?}"),
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::exit(0);
}

#[test]
#[cfg_attr(
    cg_no_gpu,
    ignore = "needs a GPU: a hung kernel caught by the host's deadline"
)]
fn a_planted_deadlock_is_caught_by_the_deadline() {
    // The kernel spins on a plain volatile load, which the simulator cannot
    // tell from work (it would spin for ever there).
    let what = "a hung kernel caught by the host's deadline";
    let Some(_gpu) = common::real_gpu("a_planted_deadlock_is_caught_by_the_deadline", what) else {
        return;
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_planted_deadlock",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the child did not come back within 60 s: the deadline did not fire");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let line = out
        .lines()
        .find_map(|l| l.split_once("DEADLINE: ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no deadline error:\n{out}"));
    assert!(
        line.contains("`planted_spin_forever`") && line.contains("did not finish within 2.0 s"),
        "{line}"
    );
    println!("{line}");
}
