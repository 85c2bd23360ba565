//! Which GPU tests the test binaries ignore, decided when cg-tests is built
//! (`build.rs`), so that libtest itself reports a test that cannot run here
//! as `ignored`, never as `passed`. Each decision is a cfg that the tests
//! name in `#[cfg_attr(cfg, ignore = "...")]`:
//!
//! * `cg_no_gpu`: no CUDA GPU (no driver, no device, or `CG_DEVICE=sim`);
//! * `cg_no_second_gpu`: fewer than two GPUs;
//! * `cg_no_twins`: no nvcc-built CUDA C++ twins under `CG_TWINS_DIR`.
//!
//! `CG_REQUIRE_GPU=1` at build time ignores nothing (the GPU bundle, built
//! here for a GPU machine: there a missing GPU or twin fails the test), and
//! `CG_REQUIRE_GPUS=2` keeps the two-GPU tests.

use std::path::Path;

/// Every cfg this decides, for `cargo::rustc-check-cfg`.
pub const CFGS: [&str; 3] = ["cg_no_gpu", "cg_no_second_gpu", "cg_no_twins"];

/// The environment variables the decision reads (a change builds again).
pub const VARS: [&str; 5] = [
    "CG_REQUIRE_GPU",
    "CG_REQUIRE_GPUS",
    "CG_DEVICE",
    "CG_TWINS_DIR",
    "CUDA_VISIBLE_DEVICES",
];

/// What the build found.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    /// `CG_REQUIRE_GPU=1`: every GPU test must run.
    pub require_gpu: bool,
    /// `CG_REQUIRE_GPUS`: the GPUs the multi-GPU tests must have.
    pub require_gpus: usize,
    /// `CG_DEVICE=sim`: the GPU tests asked onto the simulator.
    pub device_sim: bool,
    /// The devices the CUDA driver reports (0 without a driver).
    pub gpus: usize,
    /// Every twin under `CG_TWINS_DIR` ([`twins_present`]).
    pub twins: bool,
}

/// The cfgs to set for what the build found: the kinds of test that cannot
/// run.
pub fn decide(found: Found) -> Vec<&'static str> {
    if found.require_gpu {
        return Vec::new();
    }
    let gpus = if found.device_sim { 0 } else { found.gpus };
    let mut cfgs = Vec::new();
    if gpus == 0 {
        cfgs.push("cg_no_gpu");
    }
    if gpus < 2 && found.require_gpus < 2 {
        cfgs.push("cg_no_second_gpu");
    }
    if !found.twins {
        cfgs.push("cg_no_twins");
    }
    cfgs
}

/// Whether `dir` holds every twin gpu-run's twins step builds from the
/// sources `names` (the stems of `tests/twins/*.cu`): `NAME.ptx` and
/// `NAME.fmad-false.ptx`.
pub fn twins_present(dir: Option<&Path>, names: &[String]) -> bool {
    let Some(dir) = dir else {
        return false;
    };
    names.iter().all(|name| {
        [format!("{name}.ptx"), format!("{name}.fmad-false.ptx")]
            .iter()
            .all(|file| dir.join(file).is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(gpus: usize) -> Found {
        Found {
            require_gpu: false,
            require_gpus: 0,
            device_sim: false,
            gpus,
            twins: true,
        }
    }

    #[test]
    fn no_gpu_ignores_every_kind_of_gpu_test() {
        let none = Found {
            twins: false,
            ..found(0)
        };
        assert_eq!(decide(none), CFGS);
    }

    #[test]
    fn one_gpu_ignores_the_two_gpu_tests_only() {
        assert_eq!(decide(found(1)), ["cg_no_second_gpu"]);
        assert!(decide(found(2)).is_empty());
        assert!(decide(found(8)).is_empty());
    }

    #[test]
    fn the_simulator_asked_for_is_no_gpu() {
        let sim = Found {
            device_sim: true,
            ..found(2)
        };
        assert_eq!(decide(sim), ["cg_no_gpu", "cg_no_second_gpu"]);
    }

    #[test]
    fn missing_twins_ignore_the_twins_tests_only() {
        let no_twins = Found {
            twins: false,
            ..found(2)
        };
        assert_eq!(decide(no_twins), ["cg_no_twins"]);
    }

    #[test]
    fn a_required_gpu_ignores_nothing() {
        let bundle = Found {
            require_gpu: true,
            twins: false,
            ..found(0)
        };
        assert!(decide(bundle).is_empty());
        let two = Found {
            require_gpus: 2,
            ..found(1)
        };
        assert!(decide(two).is_empty());
    }

    #[test]
    fn twins_are_present_only_with_both_builds_of_each() {
        let dir = std::env::temp_dir().join(format!("cg-twins-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let names = ["api".to_string(), "math".to_string()];
        assert!(!twins_present(None, &names));
        assert!(!twins_present(Some(&dir), &names));
        for file in ["api.ptx", "api.fmad-false.ptx", "math.ptx"] {
            std::fs::write(dir.join(file), "").unwrap();
        }
        assert!(!twins_present(Some(&dir), &names), "no math.fmad-false.ptx");
        std::fs::write(dir.join("math.fmad-false.ptx"), "").unwrap();
        assert!(twins_present(Some(&dir), &names));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
