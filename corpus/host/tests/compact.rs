//! compact through the host function, against the CPU (as multisets: the
//! kept elements come in any order).

mod common;

use common::Rng;
use cooperative_groups::testing::gpu_for_test;
use corpus_kernels as _;

#[test]
fn compact_matches_the_cpu() {
    let Some(gpu) = gpu_for_test("compact_matches_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(7);
    for n in [0, 1, 31, 255, 256, 257, 1000, 1056 * 256 + 77] {
        // Positive, negative and zero elements.
        let x: Vec<i32> = (0..n).map(|_| rng.below(201) as i32 - 100).collect();
        let mut got = corpus_host::compact(&gpu, &x).unwrap();
        let mut want: Vec<i32> = x.iter().copied().filter(|&v| v > 0).collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "n = {n}");
    }
    // All kept, none kept.
    for x in [vec![5i32; 1000], vec![0i32; 1000], vec![-1i32; 300]] {
        let mut got = corpus_host::compact(&gpu, &x).unwrap();
        got.sort_unstable();
        let want: Vec<i32> = x.iter().copied().filter(|&v| v > 0).collect();
        assert_eq!(got, want);
    }
}
