//! histogram through the host function, against the CPU.

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn histogram_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("histogram_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(4);
    for n in [0, 1, 31, 255, 256, 257, 1000, 1056 * 256 + 77] {
        let mut x: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
        // Some crowded bins too.
        for v in x.iter_mut().step_by(3) {
            *v &= 0x03ff_ffff;
        }
        let mut want = vec![0u32; 256];
        for &v in &x {
            want[(v >> 24) as usize] += 1;
        }
        assert_eq!(corpus_host::histogram(&gpu, &x).unwrap(), want, "n = {n}");
    }
}
