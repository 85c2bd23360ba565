//! GPU tests of the strided loops the build unrolls
//! (`kernels/tests/src/loops.rs`): every thread's sum against the same
//! sum on the CPU, added in the thread's own order, so the results match
//! bit for bit on partial blocks, partial warps and lengths on both sides
//! of every unrolled remainder; and the generic tile probe. On the
//! simulator without a GPU.

mod common;

use cg_tests::kernels::Kernels;
use cooperative_groups::{DeviceBuffer, Error, Gpu, LaunchConfig};
use rand::rngs::StdRng;
use rand::Rng;

/// Grids (blocks, threads per block) with partial warps and blocks.
const SHAPES: [(u32, u32); 3] = [(3, 96), (2, 256), (5, 33)];

/// Lengths around every remainder of an 8-way unrolled loop.
const LENGTHS: [usize; 7] = [0, 1, 31, 255, 1000, 4099, 20_003];

fn per_thread(threads: usize, f: impl Fn(usize) -> f32) -> Vec<u32> {
    (0..threads).map(|t| f(t).to_bits()).collect()
}

/// Block `b`'s chunk `[b * c, min((b + 1) * c, n))`, `c = ceil(n / blocks)`.
fn chunk(n: usize, blocks: usize, b: usize) -> (usize, usize) {
    let c = n.div_ceil(blocks);
    let start = (b * c).min(n);
    (start, (start + c).min(n))
}

fn run(gpu: &Gpu, what: &str, want: Vec<u32>, launch: impl FnOnce(&mut DeviceBuffer<f32>)) {
    let mut out = gpu.filled(want.len(), f32::NAN).unwrap();
    launch(&mut out);
    let got: Vec<u32> = out.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, want, "{what}");
}

#[test]
fn strided_loops_sum_every_thread_s_elements_in_its_order() {
    let gpu = gpu_or_return!("strided_loops_sum_every_thread_s_elements_in_its_order");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("strided_loops");
    for (blocks, threads) in SHAPES {
        let (nb, nt) = (blocks as usize, threads as usize);
        let all = nb * nt;
        let cfg = LaunchConfig::new(blocks, threads);
        for n in LENGTHS {
            let x = common::random_f32(&mut rng, n);
            let input = gpu.upload(&x).unwrap();
            let what = |name: &str| format!("{name}: n={n} grid={blocks}x{threads}");
            // Block-stride over the block's chunk (both forms).
            let block_chunk = per_thread(all, |t| {
                let (b, r) = (t / nt, t % nt);
                let (start, end) = chunk(n, nb, b);
                (start + r..end).step_by(nt).fold(0.0f32, |s, i| s + x[i])
            });
            run(
                &gpu,
                &what("loop_block_stride_chunk"),
                block_chunk.clone(),
                |o| k.loop_block_stride_chunk.launch(cfg, &input, o).unwrap(),
            );
            run(&gpu, &what("loop_while_chunk"), block_chunk, |o| {
                k.loop_while_chunk.launch(cfg, &input, o).unwrap()
            });
            // Grid-stride (both forms).
            let grid = per_thread(all, |t| (t..n).step_by(all).fold(0.0f32, |s, i| s + x[i]));
            run(&gpu, &what("loop_grid_stride"), grid.clone(), |o| {
                k.loop_grid_stride.launch(cfg, &input, o).unwrap()
            });
            run(&gpu, &what("loop_step_by"), grid, |o| {
                k.loop_step_by.launch(cfg, &input, o).unwrap()
            });
            // A checked gather of random indices.
            let idx: Vec<u32> = (0..n).map(|_| rng.random_range(0..n as u32)).collect();
            let indices = gpu.upload(&idx).unwrap();
            let gather = per_thread(all, |t| {
                (t..n)
                    .step_by(all)
                    .fold(0.0f32, |s, k| s + x[idx[k] as usize])
            });
            run(&gpu, &what("loop_checked_gather"), gather.clone(), |o| {
                k.loop_checked_gather
                    .launch(cfg, &input, &indices, o)
                    .unwrap()
            });
            // A saxpy over `Output::grid_stride`, `x` as long as `out`.
            let y0 = common::random_f32(&mut rng, n);
            let saxpy: Vec<u32> = (0..n).map(|i| (1.5f32 * x[i] + y0[i]).to_bits()).collect();
            let mut y = gpu.upload(&y0).unwrap();
            k.loop_output_grid_stride
                .launch(cfg, &input, 1.5, &mut y)
                .unwrap();
            let got: Vec<u32> = y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, saxpy, "{}", what("loop_output_grid_stride"));
            // The same gather through indices the host checked.
            let checked = gpu.upload_indices(&idx, n).unwrap();
            run(&gpu, &what("loop_validated_gather"), gather, |o| {
                k.loop_validated_gather
                    .launch(cfg, &input, &checked, o)
                    .unwrap()
            });
            // One warp per row of 37 columns, its sum in every lane.
            let cols = 37usize;
            let tile = per_thread(all, |t| {
                let row = t / 32;
                let lane_sum = |l: usize| {
                    if (row + 1) * cols > n {
                        return 0.0f32;
                    }
                    (row * cols + l..(row + 1) * cols)
                        .step_by(32)
                        .fold(0.0f32, |s, j| s + x[j])
                };
                // The warp's reduce: the butterfly's pairwise order.
                let mut v: Vec<f32> = (0..32).map(lane_sum).collect();
                for m in [16, 8, 4, 2, 1] {
                    v = (0..32).map(|l| v[l] + v[l ^ m]).collect();
                }
                v[t % 32]
            });
            // Partial warps (33, 96 threads) reduce over fewer lanes.
            if nt % 32 == 0 {
                run(&gpu, &what("loop_tile_stride"), tile, |o| {
                    k.loop_tile_stride
                        .launch(cfg, &input, cols as u32, o)
                        .unwrap()
                });
            }
        }
        // The pointer chase: increasing hops, so every chain ends.
        let n = 5000usize;
        let next: Vec<u32> = (0..n).map(|i| (i + 1 + i % 3) as u32).collect();
        let hops: Vec<u32> = (0..all)
            .map(|t| {
                let (mut i, mut h) = (t, 0);
                while i < n {
                    i = next[i] as usize;
                    h += 1;
                }
                h
            })
            .collect();
        let next = gpu.upload(&next).unwrap();
        let mut out = gpu.filled(all, u32::MAX).unwrap();
        k.loop_pointer_chase.launch(cfg, &next, &mut out).unwrap();
        assert_eq!(
            out.to_vec().unwrap(),
            hops,
            "loop_pointer_chase grid={blocks}x{threads}"
        );
    }
}

#[test]
fn a_tile_cut_in_generic_code_sums_its_members() {
    let gpu = gpu_or_return!("a_tile_cut_in_generic_code_sums_its_members");
    let k = Kernels::load(&gpu).unwrap();
    let (blocks, threads) = (3u32, 64u32);
    let all = (blocks * threads) as usize;
    let values: Vec<u32> = (0..all as u32).map(|i| i * 7 + 1).collect();
    let input = gpu.upload(&values).unwrap();
    let cfg = LaunchConfig::new(blocks, threads);
    for n in [4usize, 32] {
        let mut out = gpu.filled(all, u32::MAX).unwrap();
        match n {
            4 => k
                .probe_generic_tile_4
                .launch(cfg, &input, &mut out)
                .unwrap(),
            _ => k
                .probe_generic_tile_32
                .launch(cfg, &input, &mut out)
                .unwrap(),
        }
        let want: Vec<u32> = (0..all)
            .map(|t| values[t - t % n..t - t % n + n].iter().sum())
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "tiles of {n}");
    }
}

#[test]
fn index_values_outside_their_bound_are_refused_before_upload() {
    let gpu = gpu_or_return!("index_values_outside_their_bound_are_refused_before_upload");
    let refused = |e: Error| match e {
        Error::IndexOutOfBounds {
            position,
            value,
            bound,
        } => (position, value, bound),
        other => panic!("not IndexOutOfBounds: {other}"),
    };
    let e = gpu.upload_indices(&[0u32, 9, 10, 11], 10).err().unwrap();
    assert!(
        e.to_string()
            .contains("index 10 at position 2 is not in 0..10"),
        "{e}"
    );
    assert_eq!(refused(e), (2, "10".into(), 10));
    let e = gpu.upload_indices(&[3i32, -1], 10).err().unwrap();
    assert_eq!(refused(e), (1, "-1".into(), 10));
    let e = gpu.upload_indices(&[0u64], 0).err().unwrap();
    assert_eq!(refused(e), (0, "0".into(), 0));
    let ok = gpu.upload_indices(&[9u16, 0, 5], 10).unwrap();
    assert_eq!((ok.len(), ok.bound()), (3, 10));
    assert_eq!(ok.values().to_vec().unwrap(), [9, 0, 5]);
}

/// A random CSR matrix of `rows` rows over `cols` columns: row offsets
/// (some rows empty, and row 1's two offsets out of order, an empty row,
/// wherever a later row has elements), column indices, values.
fn random_csr(rng: &mut StdRng, rows: usize, cols: usize) -> (Vec<u32>, Vec<u32>, Vec<f32>) {
    let mut offsets = vec![0u32];
    for _ in 0..rows {
        let len = if rng.random_range(0..4) == 0 {
            0
        } else {
            rng.random_range(1..40)
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    let nnz = *offsets.last().unwrap() as usize;
    if rows >= 2 && (offsets[2] as usize) < nnz {
        // Row 0 one element longer, row 1 ending before it starts.
        offsets[1] = offsets[2] + 1;
    }
    let columns = (0..nnz).map(|_| rng.random_range(0..cols as u32)).collect();
    let values = common::random_f32(rng, nnz);
    (offsets, columns, values)
}

#[test]
fn csr_rows_sum_every_row_in_its_order() {
    let gpu = gpu_or_return!("csr_rows_sum_every_row_in_its_order");
    let k = Kernels::load(&gpu).unwrap();
    let mut rng = common::rng("csr_rows");
    for (blocks, threads) in SHAPES {
        let cfg = LaunchConfig::new(blocks, threads);
        for rows in [0, 1, 2, 33, 1000, 4099] {
            let cols = 777;
            let (offsets, columns, values) = random_csr(&mut rng, rows, cols);
            let x = common::random_f32(&mut rng, cols);
            let nnz = values.len();
            let want: Vec<u32> = (0..rows)
                .map(|r| {
                    let (start, end) = (offsets[r] as usize, offsets[r + 1] as usize);
                    // Empty where the offsets are out of order.
                    (start..end)
                        .fold(0.0f32, |s, k| values[k].mul_add(x[columns[k] as usize], s))
                        .to_bits()
                })
                .collect();
            let row_offsets = gpu.upload_indices(&offsets, nnz + 1).unwrap();
            let wide: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
            let row_offsets_u64 = gpu.upload_indices(&wide, nnz + 1).unwrap();
            let columns = gpu.upload_indices(&columns, cols).unwrap();
            let (values, x) = (gpu.upload(&values).unwrap(), gpu.upload(&x).unwrap());
            let what = |name: &str| format!("{name}: rows={rows} grid={blocks}x{threads}");
            let run = |name: &str, launch: &dyn Fn(&mut DeviceBuffer<f32>)| {
                // Poisoned: every row must be written.
                let mut y = gpu.filled(rows, f32::NAN).unwrap();
                launch(&mut y);
                let got: Vec<u32> = y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{}", what(name));
            };
            run("loop_csr_rows_fold", &|y| {
                k.loop_csr_rows_fold
                    .launch(cfg, &row_offsets, &columns, &values, &x, y)
                    .unwrap()
            });
            run("loop_csr_rows_for", &|y| {
                k.loop_csr_rows_for
                    .launch(cfg, &row_offsets, &columns, &values, &x, y)
                    .unwrap()
            });
            run("loop_csr_rows_u64", &|y| {
                k.loop_csr_rows_u64
                    .launch(cfg, &row_offsets_u64, &columns, &values, &x, y)
                    .unwrap()
            });
        }
    }
}

/// The fault of `loop_csr_rows_fold` on the simulator (a GPU's panic
/// loses its context) over row offsets `offsets` below `bound`, columns
/// `[0, 1, 0, 1]` below 2, `values` ones and an output of `rows`.
fn csr_rows_fault(offsets: &[u32], bound: usize, values: usize, rows: usize) -> String {
    let gpu = Gpu::simulator();
    let k = Kernels::load(&gpu).unwrap();
    let row_offsets = gpu.upload_indices(offsets, bound).unwrap();
    let columns = gpu.upload_indices(&[0u32, 1, 0, 1], 2).unwrap();
    let values = gpu.upload(&vec![1.0f32; values]).unwrap();
    let x = gpu.upload(&[1.0f32; 2]).unwrap();
    let mut y = gpu.filled(rows, 0.0f32).unwrap();
    k.loop_csr_rows_fold
        .launch(
            LaunchConfig::new(1, 32),
            &row_offsets,
            &columns,
            &values,
            &x,
            &mut y,
        )
        .and_then(|()| gpu.synchronize())
        .expect_err("the launch faults")
        .to_string()
}

/// CSR rows over values shorter than the row offsets' bound minus one are
/// refused once, by `Indices::rows`.
#[test]
fn csr_rows_over_values_shorter_than_the_offsets_bound_panic_in_the_kernel() {
    // Offsets up to 4 (bound 5), three values.
    let text = csr_rows_fault(&[0, 2, 3], 5, 3, 2);
    assert!(
        text.contains("CSR rows over values or a gather shorter than the row offsets' bound"),
        "{text}"
    );
}

/// A row past the last offset is refused, as slicing past a slice's end is.
#[test]
fn a_csr_row_past_the_last_offset_panics_in_the_kernel() {
    // Two rows, an output of three.
    let text = csr_rows_fault(&[0, 1, 2], 3, 2, 3);
    assert!(
        text.contains("a CSR row past the last row offset"),
        "{text}"
    );
}

/// On the simulator: a GPU's panic loses its context for the rest of the
/// test program (the fault tests run it in a process of its own).
#[test]
fn a_gather_over_a_slice_shorter_than_the_bound_panics_in_the_kernel() {
    let gpu = Gpu::simulator();
    let k = Kernels::load(&gpu).unwrap();
    // Indices below 100, a gather over 50 elements: `over` refuses.
    let checked = gpu.upload_indices(&[99u32, 1], 100).unwrap();
    let x = gpu.upload(&[1.0f32; 50]).unwrap();
    let mut out = gpu.filled(32, 0.0f32).unwrap();
    let e = k
        .loop_validated_gather
        .launch(LaunchConfig::new(1, 32), &x, &checked, &mut out)
        .and_then(|()| gpu.synchronize())
        .expect_err("the launch faults");
    let text = e.to_string();
    assert!(
        text.contains("a gather over a slice shorter than its indices' bound"),
        "{text}"
    );
}
