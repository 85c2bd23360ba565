//! `gpu-run`: runs the bundle of scripts/gpu-bundle on a GPU machine (CUDA,
//! nvcc, compute-sanitizer and ncu there; no Rust). The steps and what each
//! runs are the table of `steps.rs`; this file reads the options, runs the
//! selected steps in the table's order, and writes the summary and the
//! archive.
//!
//! Everything a run writes goes under one folder (`--out`, default `$OUT`):
//! `gpu-run.log` (all output), `summary.json`, and at the end
//! `gpu-run.tar.gz` holding those, `logs/` (one log per job) and `results/`
//! (the benchmark's, corpus's and ports' JSON, charts and ncu reports). The
//! builds (`build/`: twins, PTX) stay out of the archive.

mod bundle;
mod device;
mod job;
mod run;
mod select;
mod steps;
mod summary;

use anyhow::{bail, Context, Result};
use clap::Parser;
use job::Job;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use steps::{Ctx, Gate, Gpus, STEPS};
use summary::{RunRecord, StepRecord, Summary};

/// Runs the GPU bundle's steps (`--list` lists them) and writes a summary.
#[derive(Parser, Debug)]
#[command(name = "gpu-run", about, long_about = None)]
struct Args {
    /// Only these steps or groups (comma-separated; groups: tests,
    /// sanitizers, all). The preflight and the gate come along, and the
    /// twins where a step needs them.
    #[arg(long, value_delimiter = ',')]
    steps: Option<Vec<String>>,
    /// Leave out these steps or groups (comma-separated).
    #[arg(long, value_delimiter = ',')]
    skip: Vec<String>,
    /// List the steps and exit.
    #[arg(long)]
    list: bool,
    /// Print each job's command line instead of running it (a packed
    /// bundle is listed, not unpacked, so that it stays small enough to
    /// carry; nothing is written under --out).
    #[arg(long)]
    dry_run: bool,
    /// The bundle (default: the folder this program is in).
    #[arg(long)]
    bundle: Option<PathBuf>,
    /// Where everything the run writes goes (default: $OUT, else
    /// .gpu-results).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only the test binaries whose name holds this (every step that runs
    /// test binaries; the sanitizer steps then leave the samples out).
    #[arg(long)]
    only: Option<String>,
    /// Only the jobs whose name holds one of these (repeat it for several),
    /// in the steps that are not in every selection; nvcc's builds always
    /// run. Splits one step over calls: `--steps racecheck --match=-test`,
    /// then `--steps racecheck --match sample`.
    #[arg(long = "match", allow_hyphen_values = true)]
    matching: Vec<String>,
    /// The sanitizers over the test binaries of thousands of launches too
    /// (gpu_api, gpu_differential, gpu_atomics).
    #[arg(long)]
    sanitize_all: bool,
    /// An extra argument for the benchmark (repeat it for several:
    /// `--bench-arg=--only --bench-arg=async_copies`).
    #[arg(long, allow_hyphen_values = true)]
    bench_arg: Vec<String>,
    /// The deadline of a job that names none, in seconds.
    #[arg(long, default_value_t = 240)]
    step_seconds: u64,
    /// Seconds this call may take: no job starts after them, none runs past
    /// them (stopped there, it counts as not run), so that the call ends in
    /// time to pack its results.
    #[arg(long)]
    budget: Option<u64>,
    /// The number of GPUs, instead of nvidia-smi's.
    #[arg(long)]
    gpus: Option<u32>,
    /// nvcc's architecture (`sm_90`), instead of the device's.
    #[arg(long)]
    arch: Option<String>,
    /// Keep `logs/`, `results/` and `build/` beside the archive.
    #[arg(long)]
    keep: bool,
    /// The folder of nvcc's builds (default: `build/` in the output
    /// folder, removed at the end). A folder outside it is kept: a later
    /// call on the same machine (still warm) given the same folder keeps
    /// the builds newer than their sources instead of running nvcc again.
    #[arg(long)]
    build: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("gpu-run: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs what `args` ask; whether every run passed.
fn run(args: &Args) -> Result<bool> {
    if args.list {
        print!("{}", list());
        return Ok(true);
    }
    let selected = select::select(STEPS, args.steps.as_deref(), &args.skip)?;
    let out = absolute(
        &args
            .out
            .clone()
            .or_else(|| std::env::var_os("OUT").map(PathBuf::from))
            .unwrap_or(".gpu-results".into()),
    )?;
    let bundle_dir = match &args.bundle {
        Some(dir) => dir.clone(),
        None => std::env::current_exe()?
            .parent()
            .context("the program's folder")?
            .to_path_buf(),
    };
    let log = if args.dry_run {
        run::Log::console()
    } else {
        for dir in ["logs", "results", "build"] {
            fs::create_dir_all(out.join(dir))
                .with_context(|| format!("creating {}", out.join(dir).display()))?;
        }
        if let Some(build) = &args.build {
            fs::create_dir_all(build).with_context(|| format!("creating {}", build.display()))?;
        }
        run::Log::to_file(&out.join("gpu-run.log"))?
    };
    let device = device::Device::find(args.gpus, args.arch.clone())?;
    let ctx = Ctx {
        bundle: bundle::Bundle::open(&bundle_dir, !args.dry_run)?,
        build: args.build.clone().unwrap_or_else(|| out.join("build")),
        results: out.join("results"),
        arch: device.arch.clone(),
        gpus: device.gpus,
        only: args.only.clone(),
        sanitize_all: args.sanitize_all,
        bench_args: args.bench_arg.clone(),
    };
    let logs = (!args.dry_run).then(|| out.join("logs"));
    let mut runner = run::Runner::new(log, logs, environment(&ctx), args.step_seconds, args.budget);
    runner.log.line(&format!(
        "gpu-run: {} GPU(s), {}; steps: {}",
        device.gpus,
        device.arch,
        selected.join(", ")
    ));
    for line in &device.about {
        runner.log.line(&format!("gpu-run: {line}"));
    }
    let mut summary = Summary::new(device, &selected);
    let mut stopped: Option<String> = None;
    for step in STEPS {
        let record = run_step(
            step,
            &ctx,
            &selected,
            &args.matching,
            stopped.as_deref(),
            &mut runner,
        )?;
        let closes = match step.gate {
            Gate::No => false,
            Gate::IfThisFailed => record.failed > 0,
            Gate::IfAnyFailed => {
                summary.failed > 0 && selected.contains(&step.name) && stopped.is_none()
            }
        };
        let mut record = record;
        if closes {
            let why = match step.gate {
                Gate::IfThisFailed => format!("{} failed: nothing after it runs", step.name),
                _ => format!("{} failed above: fix them first", summary.failed),
            };
            runner.log.line(&format!("gpu-run: {why}"));
            if step.gate == Gate::IfAnyFailed {
                record.status = summary::Status::Failed;
                record.reason = Some(why.clone());
            }
            stopped = Some(format!("the gate after {}: {why}", step.name));
        } else if step.gate == Gate::IfAnyFailed
            && selected.contains(&step.name)
            && stopped.is_none()
        {
            record.status = summary::Status::Passed;
            record.reason = Some("open: nothing failed above".into());
        }
        summary.push(record);
        if !args.dry_run {
            write_summary(&summary, &out)?;
        }
    }
    runner.log.line("");
    runner.log.line(&summary.table());
    if !args.dry_run {
        write_summary(&summary, &out)?;
        pack(&out, args.keep)?;
        println!("gpu-run: everything in {}", out.join(ARCHIVE).display());
    }
    Ok(summary.failed == 0)
}

/// The archive a run leaves in its output folder.
const ARCHIVE: &str = "gpu-run.tar.gz";

/// Runs one step of the table (or says why not).
fn run_step(
    step: &steps::Step,
    ctx: &Ctx,
    selected: &[&str],
    matching: &[String],
    stopped: Option<&str>,
    runner: &mut run::Runner,
) -> Result<StepRecord> {
    let skip = |reason: String| Ok(StepRecord::new(step.name, Vec::new(), Some(reason)));
    if !selected.contains(&step.name) {
        return skip("not selected".into());
    }
    if let Some(why) = stopped {
        runner
            .log
            .line(&format!("gpu-run: step {} not run ({why})", step.name));
        return skip(why.to_string());
    }
    if !step.gpus.met_by(ctx.gpus) {
        let needs = match step.gpus {
            Gpus::Any => "a GPU".to_string(),
            Gpus::AtLeast(n) => format!("{n} GPUs or more"),
            Gpus::Exactly(n) => format!("exactly {n} GPU(s)"),
        };
        return skip(format!("needs {needs}; {} here", ctx.gpus));
    }
    let kept = |job: &Job| {
        step.always
            || job.builds.is_some()
            || matching.is_empty()
            || matching.iter().any(|m| job.name.contains(m.as_str()))
    };
    let jobs: Vec<Job> = (step.plan)(ctx)?.into_iter().filter(kept).collect();
    runner.log.line(&format!(
        "##### {}: {} ({} jobs)",
        step.name,
        step.about,
        jobs.len()
    ));
    if jobs.is_empty() {
        let reason =
            (step.gate == Gate::No).then(|| "nothing of it in this bundle (or --only)".to_string());
        return Ok(StepRecord::new(step.name, Vec::new(), reason));
    }
    let runs: Vec<RunRecord> = jobs.iter().map(|job| runner.run(job)).collect();
    Ok(StepRecord::new(step.name, runs, None))
}

/// The variables every job gets: those of the table, the twins' folder,
/// and the Python package's NCCL on the library path where installed.
fn environment(ctx: &Ctx) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = steps::ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.push(("CG_TWINS_DIR".into(), ctx.twins().display().to_string()));
    let nccl = Command::new("python3")
        .args([
            "-c",
            "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))",
        ])
        .output();
    if let Some(out) = nccl.ok().filter(|o| o.status.success()) {
        let lib = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let path = match std::env::var("LD_LIBRARY_PATH") {
            Ok(old) if !old.is_empty() => format!("{lib}:{old}"),
            _ => lib,
        };
        env.push(("LD_LIBRARY_PATH".into(), path));
    }
    env
}

/// The table of steps, as `--list` prints it.
fn list() -> String {
    let mut out =
        String::from("The steps, in the order they run (--steps/--skip take names and groups):\n");
    for s in STEPS {
        let mut needs = Vec::new();
        if s.needs_twins {
            needs.push("twins".to_string());
        }
        match s.gpus {
            Gpus::Any => {}
            Gpus::AtLeast(n) => needs.push(format!("{n}+ GPUs")),
            Gpus::Exactly(n) => needs.push(format!("{n} GPU")),
        }
        let mut marks = Vec::new();
        if let Some(group) = s.group {
            marks.push(format!("group {group}"));
        }
        if s.gate != Gate::No {
            marks.push("gate".to_string());
        }
        if s.always {
            marks.push("always".to_string());
        }
        if !needs.is_empty() {
            marks.push(format!("needs {}", needs.join(", ")));
        }
        out.push_str(&format!(
            "  {:<12} {}\n  {:<12} [{}]\n",
            s.name,
            s.about,
            "",
            marks.join("; ")
        ));
    }
    out
}

/// `path` made absolute (against the current folder), without needing it
/// to exist.
fn absolute(path: &Path) -> Result<PathBuf> {
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    })
}

/// Writes the summary's JSON to `out/summary.json`.
fn write_summary(summary: &Summary, out: &Path) -> Result<()> {
    let json = serde_json::to_string_pretty(summary)?;
    fs::write(out.join("summary.json"), json + "\n").context("writing summary.json")
}

/// Packs the log, the summary, the jobs' logs and the results into one
/// archive in `out` (the lent machine returns a few files only), removing
/// the folders unless `keep`.
fn pack(out: &Path, keep: bool) -> Result<()> {
    // The archive's path is taken before tar's -C: absolute.
    let status = Command::new("tar")
        .arg("-czf")
        .arg(out.join(ARCHIVE))
        .arg("-C")
        .arg(out)
        .args(["gpu-run.log", "summary.json", "logs", "results"])
        .status()
        .context("running tar")?;
    if !status.success() {
        bail!("tar could not pack {}", out.display());
    }
    if !keep {
        for dir in ["logs", "results", "build"] {
            fs::remove_dir_all(out.join(dir))
                .with_context(|| format!("removing {}", out.join(dir).display()))?;
        }
    }
    Ok(())
}
