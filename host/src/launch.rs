//! Launch shapes and the checks made before a launch reaches the driver.
//!
//! These are pure functions of the configuration and the device's limits,
//! so they are tested on the CPU (including property tests).

/// A 3-D extent (CUDA's `dim3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z`, without overflow.
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    pub(crate) fn as_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

/// Grid, block, dynamic shared memory and (sm_90) cluster shape of one
/// launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// Blocks per thread-block cluster; `None` for the kernel's declared
    /// `#[kernel(cluster(..))]` shape, or no clusters.
    pub cluster: Option<Dim3>,
}

impl LaunchConfig {
    /// A grid of `grid` blocks of `block` threads, no dynamic shared memory.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        Self {
            grid: grid.into(),
            block: block.into(),
            shared_mem_bytes: 0,
            cluster: None,
        }
    }

    /// The same launch in thread-block clusters of `cluster` blocks (sm_90).
    pub fn with_cluster(mut self, cluster: impl Into<Dim3>) -> Self {
        self.cluster = Some(cluster.into());
        self
    }

    /// Enough 1-D blocks of `threads` to give one thread per element
    /// (at least one block).
    pub fn for_elements(n: usize, threads: u32) -> Self {
        let blocks = (n as u64).div_ceil(threads.max(1) as u64).max(1);
        Self::new(u32::try_from(blocks).unwrap_or(u32::MAX), threads)
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub fn with_shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }

    /// Blocks in the grid.
    pub fn num_blocks(&self) -> u64 {
        self.grid.volume()
    }

    /// Threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block.volume()
    }
}

/// How a kernel must be launched; declared by `#[kernel(...)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchKind {
    /// `cuLaunchKernel`.
    Plain,
    /// `cuLaunchCooperativeKernel`: every block resident at once, so that
    /// `grid.sync()` works.
    Cooperative,
    /// One grid on every GPU of a [`GpuSet`](crate::GpuSet), each launched
    /// cooperatively, with the multi-grid workspace that
    /// `multi_grid.sync()` needs (`#[kernel(multi_grid)]`); only
    /// [`GpuSet::launch`](crate::GpuSet::launch) starts one.
    MultiGrid,
    /// A thread-block-cluster launch (`cuLaunchKernelEx`, sm_90), possibly
    /// also cooperative.
    Cluster {
        /// Also cooperative.
        cooperative: bool,
        /// Cluster dimensions in blocks; `None`: each launch gives them.
        dims: Option<[u32; 3]>,
    },
}

/// The device limits a launch is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Block extent per dimension.
    pub max_block: [u32; 3],
    /// Grid extent per dimension.
    pub max_grid: [u32; 3],
    /// Dynamic shared memory a block can opt in to, in bytes.
    pub max_shared_mem_optin: u32,
}

impl DeviceLimits {
    /// Checks `cfg` against these limits; the message names the limit.
    pub fn check(&self, cfg: &LaunchConfig) -> Result<(), String> {
        let axes = ["x", "y", "z"];
        for (what, dims, max) in [
            ("grid", cfg.grid, self.max_grid),
            ("block", cfg.block, self.max_block),
        ] {
            for ((axis, v), m) in axes.iter().zip(dims.as_array()).zip(max) {
                if v == 0 {
                    return Err(format!("{what}.{axis} is 0: every dimension is at least 1"));
                }
                if v > m {
                    return Err(format!(
                        "{what}.{axis} = {v} exceeds the device's maximum of {m}"
                    ));
                }
            }
        }
        let threads = cfg.block_threads();
        if threads > self.max_threads_per_block as u64 {
            return Err(format!(
                "a block of {} x {} x {} = {threads} threads exceeds the device's maximum of {} threads per block",
                cfg.block.x, cfg.block.y, cfg.block.z, self.max_threads_per_block
            ));
        }
        if cfg.shared_mem_bytes > self.max_shared_mem_optin {
            return Err(format!(
                "{} bytes of dynamic shared memory per block exceed the device's maximum of {} bytes",
                cfg.shared_mem_bytes, self.max_shared_mem_optin
            ));
        }
        Ok(())
    }
}

/// The largest cluster a launch may ask for without the non-portable
/// cluster-size attribute.
pub const MAX_PORTABLE_CLUSTER: u64 = 8;

/// Checks a cluster shape against a grid: every dimension at least 1, the
/// grid a whole number of clusters, at most [`MAX_PORTABLE_CLUSTER`] blocks.
pub fn check_cluster(grid: Dim3, cluster: Dim3) -> Result<(), String> {
    let axes = ["x", "y", "z"];
    for ((axis, c), g) in axes.iter().zip(cluster.as_array()).zip(grid.as_array()) {
        if c == 0 {
            return Err(format!(
                "cluster.{axis} is 0: every dimension is at least 1"
            ));
        }
        if g % c != 0 {
            return Err(format!(
                "grid.{axis} = {g} is not a multiple of cluster.{axis} = {c}"
            ));
        }
    }
    if cluster.volume() > MAX_PORTABLE_CLUSTER {
        return Err(format!(
            "a cluster of {} x {} x {} = {} blocks exceeds the portable maximum of {MAX_PORTABLE_CLUSTER}",
            cluster.x,
            cluster.y,
            cluster.z,
            cluster.volume()
        ));
    }
    Ok(())
}

/// The most blocks a cooperative launch can have: `per_sm` resident blocks
/// on each of `sms` multiprocessors.
pub fn cooperative_limit(per_sm: u32, sms: u32) -> u64 {
    per_sm as u64 * sms as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const H100: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_block: [1024, 1024, 64],
        max_grid: [2_147_483_647, 65535, 65535],
        max_shared_mem_optin: 232_448,
    };

    #[test]
    fn names_the_limit_that_was_broken() {
        let e = H100.check(&LaunchConfig::new(0, 32)).unwrap_err();
        assert!(e.contains("grid.x is 0"), "{e}");
        let e = H100.check(&LaunchConfig::new(1, (32, 32, 2))).unwrap_err();
        assert!(e.contains("2048 threads") && e.contains("1024"), "{e}");
        let e = H100.check(&LaunchConfig::new(1, (1, 1, 65))).unwrap_err();
        assert!(e.contains("block.z = 65") && e.contains("64"), "{e}");
        let e = H100.check(&LaunchConfig::new((1, 70000), 32)).unwrap_err();
        assert!(e.contains("grid.y = 70000"), "{e}");
        let e = H100
            .check(&LaunchConfig::new(1, 32).with_shared_mem(300_000))
            .unwrap_err();
        assert!(e.contains("300000") && e.contains("232448"), "{e}");
        assert!(H100
            .check(&LaunchConfig::new(1056, 256).with_shared_mem(65536))
            .is_ok());
    }

    #[test]
    fn cluster_shapes_divide_the_grid() {
        assert!(check_cluster(Dim3::from(8), Dim3::from(2)).is_ok());
        assert!(check_cluster(Dim3::from((4, 6)), Dim3::from((2, 2))).is_ok());
        let e = check_cluster(Dim3::from(7), Dim3::from(2)).unwrap_err();
        assert!(
            e.contains("grid.x = 7 is not a multiple of cluster.x = 2"),
            "{e}"
        );
        let e = check_cluster(Dim3::from(32), Dim3::from(16)).unwrap_err();
        assert!(
            e.contains("16 blocks exceeds the portable maximum of 8"),
            "{e}"
        );
        let e = check_cluster(Dim3::from(32), Dim3::from((2, 0))).unwrap_err();
        assert!(e.contains("cluster.y is 0"), "{e}");
    }

    #[test]
    fn for_elements_covers_every_element() {
        assert_eq!(LaunchConfig::for_elements(0, 256).num_blocks(), 1);
        assert_eq!(LaunchConfig::for_elements(1, 256).num_blocks(), 1);
        assert_eq!(LaunchConfig::for_elements(256, 256).num_blocks(), 1);
        assert_eq!(LaunchConfig::for_elements(257, 256).num_blocks(), 2);
    }

    proptest! {
        #[test]
        fn check_accepts_exactly_the_configs_within_limits(
            gx in 0u32..5_000_000, gy in 0u32..70_000, gz in 0u32..70_000,
            bx in 0u32..1500, by in 0u32..1500, bz in 0u32..80,
            smem in 0u32..300_000,
        ) {
            let cfg = LaunchConfig::new((gx, gy, gz), (bx, by, bz)).with_shared_mem(smem);
            let within = [gx, gy, gz, bx, by, bz].iter().all(|&v| v > 0)
                && gy <= 65535 && gz <= 65535
                && bx <= 1024 && by <= 1024 && bz <= 64
                && (bx as u64 * by as u64 * bz as u64) <= 1024
                && smem <= 232_448;
            prop_assert_eq!(H100.check(&cfg).is_ok(), within);
        }

        #[test]
        fn for_elements_gives_one_thread_per_element(n in 0usize..100_000_000, t in 1u32..1025) {
            let cfg = LaunchConfig::for_elements(n, t);
            prop_assert!(cfg.num_blocks() * t as u64 >= n as u64);
            prop_assert!(cfg.num_blocks() == 1 || (cfg.num_blocks() - 1) * (t as u64) < n as u64);
        }

        #[test]
        fn check_cluster_accepts_exactly_whole_portable_clusters(
            g in (1u32..64, 1u32..8, 1u32..4), c in (0u32..10, 0u32..4, 0u32..3),
        ) {
            let ok = check_cluster(Dim3::from(g), Dim3::from(c)).is_ok();
            let want = c.0 > 0 && c.1 > 0 && c.2 > 0
                && g.0 % c.0 == 0 && g.1 % c.1 == 0 && g.2 % c.2 == 0
                && (c.0 * c.1 * c.2) <= 8;
            prop_assert_eq!(ok, want);
        }

        #[test]
        fn cooperative_limit_is_resident_blocks(per_sm in 0u32..64, sms in 1u32..200) {
            prop_assert_eq!(cooperative_limit(per_sm, sms), per_sm as u64 * sms as u64);
        }
    }
}
