//! A buffer of one GPU passed to a kernel on another: refused with
//! `Error::ForeignBuffer` until a `GpuSet` of both enables peer access,
//! then written through NVLink. Its own test binary: the peer access a set
//! enables lasts for the process, so no other test may open a set first.

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::testing::has_gpus_for_test;
use cooperative_groups::{Error, Gpu, GpuSet, LaunchConfig};

const POISON: u32 = 0xDEAD_BEEF;

#[test]
#[cfg_attr(cg_no_second_gpu, ignore = "needs two GPUs: peer access")]
fn a_buffer_of_another_gpu_is_refused_until_a_set_enables_peer_access() {
    let test = "a_buffer_of_another_gpu_is_refused_until_a_set_enables_peer_access";
    if !has_gpus_for_test(test, 2) {
        return;
    }
    let (g0, g1) = (Gpu::new(0).unwrap(), Gpu::new(1).unwrap());
    for g in [&g0, &g1] {
        g.set_deadline(Some(common::DEADLINE));
    }
    let k0 = Kernels::load(&g0).unwrap();
    let cfg = LaunchConfig::new(4, 96);
    let n = 4 * 96 + 7;
    let mut theirs = g1.filled(n, POISON).unwrap();
    // Pattern 0 of the output probe: thread r writes r + 1 to element r.
    let e = k0
        .output_probe
        .launch(cfg, 0, 0, 0, &mut theirs)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::ForeignBuffer {
                kernel_gpu: 0,
                buffer_gpu: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("open a GpuSet of both GPUs"), "{e}");
    let _set = GpuSet::new(&[0, 1]).unwrap();
    k0.output_probe.launch(cfg, 0, 0, 0, &mut theirs).unwrap();
    g0.synchronize().unwrap();
    let got = theirs.to_vec().unwrap();
    for (i, v) in got.iter().enumerate() {
        let want = if i < 4 * 96 { i as u32 + 1 } else { POISON };
        assert_eq!(
            *v, want,
            "element {i} of GPU 1's buffer, written from GPU 0"
        );
    }
}
