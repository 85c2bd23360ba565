//! Running a job: under a deadline (coreutils' `timeout`, which ends the
//! job's whole process group), its stdout and stderr in order into its own
//! log, the run's log and the console, and judged by its check.

use crate::job::Job;
use crate::summary::{RunRecord, Status};
use anyhow::{Context, Result};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The run's log: what it prints goes to the console and, when there is
/// one, to a file (`OUT/gpu-run.log`).
pub struct Log {
    file: Option<File>,
}

impl Log {
    /// A log to the console alone (a dry run).
    pub fn console() -> Log {
        Log { file: None }
    }

    /// A log to the console and `path`.
    pub fn to_file(path: &Path) -> Result<Log> {
        Ok(Log {
            file: Some(File::create(path).with_context(|| format!("creating {}", path.display()))?),
        })
    }

    /// Writes `bytes` to the console and the file.
    pub fn write(&mut self, bytes: &[u8]) {
        let mut out = io::stdout().lock();
        // A console or disk that refuses output must not stop the run.
        let _ = out.write_all(bytes).and_then(|_| out.flush());
        if let Some(file) = &mut self.file {
            let _ = file.write_all(bytes);
        }
    }

    /// Writes one line.
    pub fn line(&mut self, text: &str) {
        self.write(format!("{text}\n").as_bytes());
    }
}

/// Runs jobs, one at a time.
pub struct Runner {
    /// The run's log.
    pub log: Log,
    /// Where each job's own log goes (`OUT/logs`); `None`: a dry run, which
    /// prints each job instead of running it.
    logs: Option<PathBuf>,
    /// Variables every job gets.
    env: Vec<(String, String)>,
    /// A job's deadline where it names none.
    default_limit: u64,
    /// When the call's time is up (`--budget`): no job starts after it, and
    /// none runs past it.
    end: Option<Instant>,
    /// Whether a job was stopped at `end`: no other starts.
    out_of_time: bool,
    /// Jobs started so far (numbers their logs).
    count: usize,
}

/// The exit statuses `timeout` gives a job it stopped at its deadline
/// (`TERM`, then `KILL`).
const TIMED_OUT: [i32; 2] = [124, 137];

impl Runner {
    /// A runner logging to `log`, each job's own log under `logs` (`None`:
    /// a dry run), every job with `env`, a default deadline, and a budget
    /// of seconds for the whole call, if any.
    pub fn new(
        log: Log,
        logs: Option<PathBuf>,
        env: Vec<(String, String)>,
        default_limit: u64,
        budget: Option<u64>,
    ) -> Runner {
        let end = budget.map(|s| Instant::now() + Duration::from_secs(s));
        Runner {
            log,
            logs,
            env,
            default_limit,
            end,
            out_of_time: false,
            count: 0,
        }
    }

    /// Runs `job` (or, in a dry run, prints it) and says how it went.
    pub fn run(&mut self, job: &Job) -> RunRecord {
        let Some(logs) = self.logs.clone() else {
            self.log
                .line(&format!("  {:<44} {}", job.name, job.command_line()));
            let limit = job.limit.unwrap_or(self.default_limit);
            let mut notes = vec![format!("deadline {limit} s")];
            notes.extend(
                job.needs_files
                    .iter()
                    .map(|f| format!("needs {}", f.display())),
            );
            notes.extend(job.needs_program.map(|p| {
                format!(
                    "needs {p}{}",
                    if on_path(p) {
                        ""
                    } else {
                        ", not on this machine"
                    }
                )
            }));
            notes.extend(
                job.ranks
                    .iter()
                    .map(|r| format!("{} copies at once, one per GPU", r.n)),
            );
            notes.extend(job.cannot_run.iter().map(|why| format!("not run: {why}")));
            self.log
                .line(&format!("  {:<44} ({})", "", notes.join("; ")));
            return RunRecord::not_run(&job.name, "dry run");
        };
        if let Some(why) = &job.cannot_run {
            self.log.line(&format!("=== {}: not run, {why}", job.name));
            return RunRecord::not_run(&job.name, why.clone());
        }
        if let Some(program) = job.needs_program.filter(|p| !on_path(p)) {
            self.log.line(&format!(
                "=== {}: not run, no {program} on this machine",
                job.name
            ));
            return RunRecord::not_run(&job.name, format!("no {program} on this machine"));
        }
        if let Some(missing) = job.needs_files.iter().find(|f| !f.exists()) {
            let reason = format!("needs {}, which was not built", missing.display());
            self.log
                .line(&format!("=== {}: not run, {reason}", job.name));
            return RunRecord::not_run(&job.name, reason);
        }
        if job.built_already() {
            // A build kept by its time gets its stamp now (the same digest
            // where it had one), for the calls that carry it elsewhere.
            self.stamp(job);
            self.log.line(&format!(
                "=== {}: kept, built from its source as it is (an earlier run's)",
                job.name
            ));
            return RunRecord::kept(&job.name);
        }
        let limit = job.limit.unwrap_or(self.default_limit);
        let left = self
            .end
            .map(|end| end.saturating_duration_since(Instant::now()).as_secs());
        if self.out_of_time || left == Some(0) {
            self.out_of_time = true;
            self.log.line(&format!(
                "=== {}: not run, the call's budget (--budget) is spent",
                job.name
            ));
            return RunRecord::not_run(&job.name, "the call's budget (--budget) was spent");
        }
        let deadline = left.map_or(limit, |left| left.min(limit));
        self.count += 1;
        let log_name = format!("{:03}-{}.log", self.count, file_name(&job.name));
        let record = self.execute(job, deadline, &logs.join(&log_name));
        let mut record = match record {
            Ok(record) => record,
            Err(e) => RunRecord {
                name: job.name.clone(),
                status: Status::Failed,
                reason: Some(format!("could not run: {e:#}")),
                exit: None,
                seconds: 0.0,
                log: None,
            },
        };
        record.log = Some(format!("logs/{log_name}"));
        let timed_out = record.exit.is_some_and(|c| TIMED_OUT.contains(&c));
        if timed_out && deadline < limit {
            self.out_of_time = true;
            record.status = Status::NotRun;
            record.reason = Some(format!(
                "stopped after {deadline} s, at the end of the call's budget (--budget)"
            ));
        } else if timed_out {
            record.reason = Some(format!("did not finish within {deadline} s"));
            self.log.line(&format!(
                "!!! {} did not finish within {deadline} s",
                job.name
            ));
        }
        if record.status == Status::Passed {
            self.stamp(job);
        }
        let exit = record.exit.map_or("none".to_string(), |c| c.to_string());
        let outcome = record.status.word();
        self.log.line(&format!(
            "=== {}: exit {exit} after {:.0} s: {outcome}",
            job.name, record.seconds
        ));
        record
    }

    /// Writes a passed or kept build's stamp (`Job::record_built`); a
    /// stamp that cannot be written costs a later call the build, and is
    /// logged.
    fn stamp(&mut self, job: &Job) {
        if let Err(e) = job.record_built() {
            self.log.line(&format!(
                "!!! {}: its stamp could not be written: {e}",
                job.name
            ));
        }
    }

    /// Runs `job`'s copies under `deadline`, their output to the logs and
    /// to `log_path`, and judges them.
    fn execute(&mut self, job: &Job, deadline: u64, log_path: &Path) -> Result<RunRecord> {
        self.log.line(&format!("=== {}", job.name));
        self.log.line(&format!("$ {}", job.command_line()));
        if let Some(dir) = job.builds.as_deref().and_then(Path::parent) {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let mut own_log =
            File::create(log_path).with_context(|| format!("creating {}", log_path.display()))?;
        let _ = writeln!(own_log, "$ {}", job.command_line());
        let start = Instant::now();
        let (mut reader, writer) = io::pipe()?;
        let copies = job.ranks.as_ref().map_or(1, |r| r.n);
        if let Some(ranks) = &job.ranks {
            let _ = fs::remove_file(&ranks.id_file);
        }
        let mut children = Vec::new();
        for rank in 0..copies {
            let mut cmd = Command::new("timeout");
            cmd.args(["-k", "5", &deadline.to_string()]).args(&job.argv);
            cmd.envs(self.env.iter().map(|(k, v)| (k, v)))
                .envs(job.env.iter().map(|(k, v)| (k, v)));
            for key in &job.env_remove {
                cmd.env_remove(key);
            }
            if let Some(ranks) = &job.ranks {
                cmd.env("CG_NCCL_RANK", rank.to_string())
                    .env("CG_NCCL_RANKS", ranks.n.to_string());
                cmd.env("CG_NCCL_ID_FILE", &ranks.id_file);
            }
            cmd.stdin(Stdio::null())
                .stdout(writer.try_clone()?)
                .stderr(writer.try_clone()?);
            // The command (holding the pipe's write end) is dropped once
            // spawned, so that the pipe ends with the children.
            children.push(cmd.spawn().context("starting `timeout` (coreutils)")?);
        }
        drop(writer);
        let mut output = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            self.log.write(&buf[..n]);
            let _ = own_log.write_all(&buf[..n]);
            output.extend_from_slice(&buf[..n]);
        }
        let mut exit = Some(0);
        for mut child in children {
            let code = child.wait()?.code();
            if exit == Some(0) {
                exit = code;
            }
        }
        let output = String::from_utf8_lossy(&output);
        let status = if job.check.passed(exit, &output) {
            Status::Passed
        } else {
            Status::Failed
        };
        Ok(RunRecord {
            name: job.name.clone(),
            status,
            reason: None,
            exit,
            seconds: start.elapsed().as_secs_f64(),
            log: None,
        })
    }
}

/// Whether `program` is on `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// A job's name as a file name: letters, digits, `.`, `_` and `-` alone (as
/// the lent machine's return of files wants), the rest as `_`.
pub fn file_name(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    mapped.trim_matches('_').chars().take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_name_makes_a_plain_file_name() {
        assert_eq!(
            file_name("test gpu_api-test (2 GPUs)"),
            "test_gpu_api-test__2_GPUs"
        );
        assert_eq!(file_name("nvcc bench/kernels.cu"), "nvcc_bench_kernels.cu");
        assert_eq!(
            file_name("sample bench:array_sums"),
            "sample_bench_array_sums"
        );
    }
}
