//! The host's answers to bad input and missing pieces: each an error value
//! that says what happened and what to do (the README's catalogue).

mod common;

use cg_tests::kernels::PTX;
use cooperative_groups::{driver_present, Error, Gpu, Ptx, PtxSet};

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
fn a_device_ordinal_past_the_last_is_refused() {
    let _gpu = gpu_or_return!("a_device_ordinal_past_the_last_is_refused");
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
fn no_visible_device_is_a_clear_error() {
    let Some(_gpu) = common::gpu("no_visible_device_is_a_clear_error") else {
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
fn ptx_for_a_newer_architecture_is_refused() {
    let gpu = gpu_or_return!("ptx_for_a_newer_architecture_is_refused");
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
fn a_ptx_isa_newer_than_the_driver_is_a_clear_error() {
    let gpu = gpu_or_return!("a_ptx_isa_newer_than_the_driver_is_a_clear_error");
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
