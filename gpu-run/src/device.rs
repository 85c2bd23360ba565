//! The machine's GPUs, as nvidia-smi reports them: how many, and the
//! architecture nvcc builds for.

use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::process::Command;

/// The GPUs of the machine.
#[derive(Clone, Debug, Serialize)]
pub struct Device {
    /// How many GPUs.
    pub gpus: u32,
    /// The first GPU's architecture, as nvcc names it (`sm_90`).
    pub arch: String,
    /// nvidia-smi's line for each GPU (name, driver, memory, clocks), or
    /// where the values were given instead.
    pub about: Vec<String>,
}

impl Device {
    /// The machine's GPUs, `gpus` and `arch` taking the place of what
    /// nvidia-smi says where given (a dry run on a machine without a GPU).
    pub fn find(gpus: Option<u32>, arch: Option<String>) -> Result<Device> {
        if let (Some(gpus), Some(arch)) = (gpus, arch.clone()) {
            return Ok(Device {
                gpus,
                arch,
                about: vec!["given by --gpus and --arch".to_string()],
            });
        }
        let caps = query("compute_cap")
            .context("nvidia-smi could not be asked (pass --gpus and --arch for a dry run)")?;
        let Some(first) = caps.first() else {
            bail!("nvidia-smi lists no GPU")
        };
        let about = query("name,driver_version,memory.total,clocks.sm,clocks.max.sm")?;
        Ok(Device {
            gpus: gpus.unwrap_or(caps.len() as u32),
            arch: arch.map_or_else(|| arch_of(first), Ok)?,
            about,
        })
    }
}

/// nvidia-smi's values of `fields`, one line per GPU.
fn query(fields: &str) -> Result<Vec<String>> {
    let out = Command::new("nvidia-smi")
        .arg(format!("--query-gpu={fields}"))
        .arg("--format=csv,noheader")
        .output()?;
    if !out.status.success() {
        bail!(
            "nvidia-smi --query-gpu={fields} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// nvcc's architecture for a compute capability as nvidia-smi writes it
/// (`9.0` is `sm_90`, `10.0` is `sm_100`).
pub fn arch_of(compute_cap: &str) -> Result<String> {
    let parse = || {
        let (major, minor) = compute_cap.trim().split_once('.')?;
        let major: u32 = major.parse().ok()?;
        let minor: u32 = minor.parse().ok()?;
        Some(format!("sm_{major}{minor}"))
    };
    parse().with_context(|| format!("not a compute capability: `{compute_cap}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compute_capability_names_the_architecture() {
        assert_eq!(arch_of("9.0").unwrap(), "sm_90");
        assert_eq!(arch_of(" 10.0\n").unwrap(), "sm_100");
        assert_eq!(arch_of("12.1").unwrap(), "sm_121");
        assert!(arch_of("[N/A]").is_err());
    }
}
