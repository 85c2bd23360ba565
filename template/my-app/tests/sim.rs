//! my-app's kernels on the CPU simulator: no GPU needed, so these run in
//! every `cargo test`. Each `#[kernel]` of my-kernels is, off the GPU, an
//! ordinary function that every simulated thread calls; `sim::launch`
//! runs it as a launch of the given shape, and a fault (a panic, a
//! deadlock, a barrier some threads skip) comes back naming the thread.

use cg_core::atomic::AtomicSlice;
use cg_core::sim::{self, Buffer, Shape};

#[test]
fn saxpy_on_the_simulator() {
    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..1000).map(|i| (i % 7) as f32).collect();
    let out = Buffer::<f32>::filled(1000, f32::NAN);
    // 4 blocks of 256 threads: 24 more threads than elements.
    sim::launch(Shape::new(4, 256), || my_kernels::saxpy(2.0, &x, &y, out.view())).unwrap();
    for (i, z) in out.to_vec().into_iter().enumerate() {
        assert_eq!(z, 2.0 * x[i] + y[i], "element {i}");
    }
}

#[test]
fn count_positive_on_the_simulator_with_partial_warps() {
    let x: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
    let want = x.iter().filter(|&&v| v > 0.0).count() as u32;
    // Blocks of 256 threads, and of 100 (each block's last warp has 4
    // threads: `reduce` over its tile of 32 is one `redux.sync`, which adds
    // the lanes present, on the GPU and on the simulator alike).
    for (blocks, threads) in [(4, 256), (10, 100)] {
        let count = Buffer::<u32>::zeroed(1);
        sim::launch(Shape::new(blocks, threads), || {
            let count: AtomicSlice<u32> = count.view();
            my_kernels::count_positive(&x, count)
        })
        .unwrap()
        .all_defined()
        .unwrap();
        assert_eq!(count.to_vec()[0], want, "{blocks} blocks of {threads}");
    }
}

#[test]
fn a_generic_kernel_on_the_simulator() {
    let input: Vec<u32> = (0..1000).collect();
    let sums = Buffer::<u32>::filled(8, u32::MAX);
    sim::launch(Shape::new(1, 256), || my_kernels::warp_sums::<u32, 4>(&input, sums.view()))
        .unwrap()
        .all_defined()
        .unwrap();
    let want: Vec<u32> = (0..8).map(|w| input.iter().skip(w * 128).take(128).sum()).collect();
    assert_eq!(sums.to_vec(), want);
}
