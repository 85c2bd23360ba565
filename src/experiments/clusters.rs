//! Thread-block clusters (sm_90): the seed's neighbour sum over clusters of
//! 2, a reduction to one value per cluster of 4 through distributed shared
//! memory beside the per-block reduction, and a histogram whose bins are
//! spread over a cluster's shared memory.

use crate::bench::{self, Bench};
use crate::kernels::{ClusterHistogram, ClusterNeighbourSum, ClusterReduce, SharedHistogram};
use crate::results::{self, Row, Timing};
use cooperative_groups::{DeviceBuffer, Error, LaunchConfig};

/// Bins each block of a cluster holds (kernels/samples/src/cluster.rs); a cluster
/// of 4 blocks counts values below `4 * HISTOGRAM_BINS_PER_BLOCK`.
pub const HISTOGRAM_BINS_PER_BLOCK: usize = 2048;

const THREADS: u32 = 256;

/// Runs the cluster rows at `2^log2` elements each (skipped, with a note,
/// on GPUs older than sm_90).
pub fn clusters(b: &mut Bench, log2s: &[u32]) -> Result<(), Error> {
    eprintln!("clusters");
    if b.gpu.info().sm < 90 {
        eprintln!(
            "  skipped: {} is sm_{}, clusters need sm_90",
            b.gpu.info().name,
            b.gpu.info().sm
        );
        return Ok(());
    }
    let mut rows = Vec::new();
    for &log2 in log2s {
        let n = 1usize << log2;
        let size = results::size_label(n);
        let data = bench::random_f32(n);
        let input = b.gpu.upload(&data)?;
        let blocks = (n as u32).div_ceil(THREADS).next_multiple_of(4);
        let cfg = LaunchConfig::new(blocks, THREADS);

        // Neighbour sum (clusters of 2).
        // SAFETY: kernels/cuda/kernels.cu declares the twins with the Rust kernels' parameters.
        let twin = unsafe {
            b.twin(
                "cluster_neighbour_sum",
                ClusterNeighbourSum::KIND,
                ClusterNeighbourSum::from_function,
            )?
        };
        let (mut out, mut tout) = (b.gpu.filled(n, f32::NAN)?, b.gpu.filled(n, f32::NAN)?);
        let (r, c) = {
            let (input, tout) = (&input, &mut tout);
            let cuda = twin.as_ref().map(|t| move || t.launch(cfg, input, tout));
            let (k, out) = (&b.k.cluster_neighbour_sum, &mut out);
            b.time_pair(|| k.launch(cfg, input, out), cuda)?
        };
        let got = out.to_vec()?;
        let at = |j: usize| if j < n { data[j] } else { 0.0 };
        let t = THREADS as usize;
        let mut ok = (0..n).all(|i| got[i] == data[i] + at(((i / t) ^ 1) * t + i % t));
        if twin.is_some() {
            ok &= tout.to_vec()? == got;
        }
        rows.push(Row::timed(
            "cluster: neighbour sum (clusters of 2)",
            &size,
            r,
            c,
            12.0 * n as f64,
            ok,
        ));

        // One sum per cluster of 4, and per block for comparison.
        // SAFETY: kernels/cuda/kernels.cu declares the twin `cluster_reduce`
        // with the Rust kernel's parameters, in order and of the same types.
        let twin = unsafe {
            b.twin(
                "cluster_reduce",
                ClusterReduce::KIND,
                ClusterReduce::from_function,
            )?
        };
        let nclusters = (blocks / 4) as usize;
        let (mut sums, mut tsums) = (
            b.gpu.filled(nclusters, f32::NAN)?,
            b.gpu.filled(nclusters, f32::NAN)?,
        );
        let (r, c) = {
            let (input, tsums) = (&input, &mut tsums);
            let cuda = twin.as_ref().map(|t| move || t.launch(cfg, input, tsums));
            let (k, sums) = (&b.k.cluster_reduce, &mut sums);
            b.time_pair(|| k.launch(cfg, input, sums), cuda)?
        };
        let per = 4 * t;
        let check = |s: &[f32]| {
            s.iter()
                .enumerate()
                .all(|(c, &v)| bench::sum_close(v, &data[(c * per).min(n)..((c + 1) * per).min(n)]))
        };
        let mut ok = check(&sums.to_vec()?);
        if twin.is_some() {
            ok &= check(&tsums.to_vec()?);
        }
        rows.push(Row::timed(
            "cluster: reduce, one sum per 4 blocks",
            &size,
            r,
            c,
            4.0 * n as f64,
            ok,
        ));

        // Histogram of 8192 bins over clusters of 4.
        let nbins = 4 * HISTOGRAM_BINS_PER_BLOCK;
        let values: Vec<u32> = data
            .iter()
            .map(|&v| ((v + 1.0) * 0.5 * nbins as f32) as u32 % nbins as u32)
            .collect();
        let vin = b.gpu.upload(&values)?;
        let hcfg = LaunchConfig::new(b.gpu.info().multiprocessors * 4, THREADS);
        // SAFETY: kernels/cuda/kernels.cu declares the twin `cluster_histogram`
        // with the Rust kernel's parameters, in order and of the same types.
        let twin = unsafe {
            b.twin(
                "cluster_histogram",
                ClusterHistogram::KIND,
                ClusterHistogram::from_function,
            )?
        };
        let mut want = vec![0u32; nbins];
        for &v in &values {
            want[v as usize] += 1;
        }
        let (r, c, ok) =
            histogram_row(b, hcfg, &vin, &want, &b.k.cluster_histogram, twin.as_ref())?;
        rows.push(Row::timed(
            "cluster: histogram, 8192 bins over 4 blocks",
            &size,
            r,
            c,
            4.0 * n as f64,
            ok,
        ));
        // The same bins in one block's shared memory, no cluster; one value
        // in 1024 out of range (not counted: the kernel's rule).
        let values: Vec<u32> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| if i % 1024 == 0 { v + nbins as u32 } else { v })
            .collect();
        let vin = b.gpu.upload(&values)?;
        let mut want = vec![0u32; nbins];
        for &v in values.iter().filter(|&&v| (v as usize) < nbins) {
            want[v as usize] += 1;
        }
        // SAFETY: kernels/cuda/kernels.cu declares the twin `shared_histogram`
        // with the Rust kernel's parameters, in order and of the same types.
        let twin = unsafe {
            b.twin(
                "shared_histogram",
                SharedHistogram::KIND,
                SharedHistogram::from_function,
            )?
        };
        let (r, c, ok) = histogram_row(b, hcfg, &vin, &want, &b.k.shared_histogram, twin.as_ref())?;
        rows.push(Row::timed(
            "shared: histogram, 8192 bins in each block",
            &size,
            r,
            c,
            4.0 * n as f64,
            ok,
        ));
    }
    for r in rows {
        b.push(r);
    }
    Ok(())
}

/// A histogram kernel's handle (the cluster and the shared-memory one).
trait HistogramKernel {
    fn run(
        &self,
        cfg: LaunchConfig,
        values: &DeviceBuffer<u32>,
        bins: &mut DeviceBuffer<u32>,
    ) -> Result<(), Error>;
}

macro_rules! histogram_kernel {
    ($($handle:ty),*) => {$(
        impl HistogramKernel for $handle {
            fn run(
                &self,
                cfg: LaunchConfig,
                values: &DeviceBuffer<u32>,
                bins: &mut DeviceBuffer<u32>,
            ) -> Result<(), Error> {
                self.launch(cfg, values, bins)
            }
        }
    )*};
}
histogram_kernel!(ClusterHistogram, SharedHistogram);

/// Times a histogram kernel beside its twin, then verifies one fresh
/// launch of each against `want`: `(Rust ms, CUDA ms, verified)`.
fn histogram_row<K: HistogramKernel>(
    b: &Bench,
    cfg: LaunchConfig,
    values: &DeviceBuffer<u32>,
    want: &[u32],
    rust: &K,
    twin: Option<&K>,
) -> Result<(Timing, Option<Timing>, bool), Error> {
    let nbins = want.len();
    let (mut bins, mut tbins) = (b.gpu.filled(nbins, 0u32)?, b.gpu.filled(nbins, 0u32)?);
    let (r, c) = {
        let tb = &mut tbins;
        let cuda = twin.map(|t| move || t.run(cfg, values, tb));
        let bins = &mut bins;
        b.time_pair(|| rust.run(cfg, values, bins), cuda)?
    };
    bins.copy_from(&vec![0; nbins])?;
    rust.run(cfg, values, &mut bins)?;
    let mut ok = bins.to_vec()? == want;
    if let Some(t) = twin {
        tbins.copy_from(&vec![0; nbins])?;
        t.run(cfg, values, &mut tbins)?;
        ok &= tbins.to_vec()? == want;
    }
    Ok((r, c, ok))
}
