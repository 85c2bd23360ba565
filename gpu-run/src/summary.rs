//! What a run did: each step passed, failed or not run, with its runs'
//! counts and seconds; printed as a table and written as JSON.

use crate::device::Device;
use serde::Serialize;
use std::fmt::Write as _;

/// The outcome of a run or a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It ran and passed.
    Passed,
    /// It ran and failed (or, for a gate, closed).
    Failed,
    /// It did not run; the reason says why.
    NotRun,
}

impl Status {
    /// The status as the table writes it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::NotRun => "not run",
        }
    }
}

/// One job's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    /// The job's name.
    pub name: String,
    /// Its outcome.
    pub status: Status,
    /// Why it did not run, or how it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its exit status (`null`: killed by a signal, or never started).
    pub exit: Option<i32>,
    /// Its wall time.
    pub seconds: f64,
    /// Its output's file, relative to the output folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl RunRecord {
    /// A build that did not run because its file was built from its source
    /// as it is (`Job::built_already`): passed, as when it was built.
    pub fn kept(name: &str) -> RunRecord {
        RunRecord {
            name: name.to_string(),
            status: Status::Passed,
            reason: Some("kept: built from its source as it is".into()),
            exit: None,
            seconds: 0.0,
            log: None,
        }
    }

    /// A job that did not run, and why.
    pub fn not_run(name: &str, reason: impl Into<String>) -> RunRecord {
        RunRecord {
            name: name.to_string(),
            status: Status::NotRun,
            reason: Some(reason.into()),
            exit: None,
            seconds: 0.0,
            log: None,
        }
    }
}

/// One step's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct StepRecord {
    /// The step's name.
    pub name: String,
    /// Failed if a run failed (or the gate closed); passed if some ran and
    /// none failed; not run otherwise.
    pub status: Status,
    /// Why it did not run (or why the gate closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its runs that passed.
    pub passed: usize,
    /// Its runs that failed.
    pub failed: usize,
    /// Its runs that did not run.
    pub not_run: usize,
    /// The wall time of its runs.
    pub seconds: f64,
    /// Its runs.
    pub runs: Vec<RunRecord>,
}

impl StepRecord {
    /// A step of these runs (`reason`: why it did not run, where none ran).
    pub fn new(name: &str, runs: Vec<RunRecord>, reason: Option<String>) -> StepRecord {
        let count = |s: Status| runs.iter().filter(|r| r.status == s).count();
        let (passed, failed, not_run) = (
            count(Status::Passed),
            count(Status::Failed),
            count(Status::NotRun),
        );
        let status = if failed > 0 {
            Status::Failed
        } else if passed > 0 {
            Status::Passed
        } else {
            Status::NotRun
        };
        let seconds = runs.iter().fold(0.0, |sum, r| sum + r.seconds);
        StepRecord {
            name: name.to_string(),
            status,
            reason,
            passed,
            failed,
            not_run,
            seconds,
            runs,
        }
    }
}

/// A whole run's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The GPUs it ran on.
    pub device: Device,
    /// The steps selected for it.
    pub selected: Vec<String>,
    /// Every step of the table, selected or not.
    pub steps: Vec<StepRecord>,
    /// Runs passed, over every step.
    pub passed: usize,
    /// Runs failed, over every step.
    pub failed: usize,
    /// Runs not run, over every step.
    pub not_run: usize,
    /// The wall time of every run.
    pub seconds: f64,
}

impl Summary {
    /// An empty summary of a run on `device` of the steps `selected`.
    pub fn new(device: Device, selected: &[&str]) -> Summary {
        let selected = selected.iter().map(|s| s.to_string()).collect();
        Summary {
            device,
            selected,
            steps: Vec::new(),
            passed: 0,
            failed: 0,
            not_run: 0,
            seconds: 0.0,
        }
    }

    /// Adds a step's outcome.
    pub fn push(&mut self, step: StepRecord) {
        self.passed += step.passed;
        self.failed += step.failed;
        self.not_run += step.not_run;
        self.seconds += step.seconds;
        self.steps.push(step);
    }

    /// The names of the runs that failed.
    pub fn failures(&self) -> Vec<&str> {
        let runs = self.steps.iter().flat_map(|s| &s.runs);
        runs.filter(|r| r.status == Status::Failed)
            .map(|r| r.name.as_str())
            .collect()
    }

    /// The table printed at the end of a run: one line per step, then the
    /// failed runs, then the line `gpu-run: P passed, F failed, N not run`.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<12} {:<8} {:>6} {:>6} {:>7} {:>8}  note",
            "step", "status", "passed", "failed", "not run", "seconds"
        );
        for s in &self.steps {
            let note = s.reason.as_deref().unwrap_or("");
            let _ = writeln!(
                out,
                "{:<12} {:<8} {:>6} {:>6} {:>7} {:>8.0}  {note}",
                s.name,
                s.status.word(),
                s.passed,
                s.failed,
                s.not_run,
                s.seconds
            );
        }
        let failures = self.failures();
        if !failures.is_empty() {
            let _ = writeln!(out, "failed: {}", failures.join(", "));
        }
        let _ = write!(
            out,
            "gpu-run: {} passed, {} failed, {} not run",
            self.passed, self.failed, self.not_run
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, status: Status, seconds: f64) -> RunRecord {
        RunRecord {
            name: name.into(),
            status,
            reason: None,
            exit: Some(0),
            seconds,
            log: None,
        }
    }

    #[test]
    fn a_step_fails_with_one_failed_run_and_is_not_run_with_none_run() {
        let step = StepRecord::new(
            "t",
            vec![run("a", Status::Passed, 1.0), run("b", Status::Failed, 2.5)],
            None,
        );
        assert_eq!(
            (
                step.status,
                step.passed,
                step.failed,
                step.not_run,
                step.seconds
            ),
            (Status::Failed, 1, 1, 0, 3.5)
        );
        let step = StepRecord::new("t", vec![RunRecord::not_run("a", "no ncu")], None);
        assert_eq!((step.status, step.not_run), (Status::NotRun, 1));
        assert_eq!(
            StepRecord::new("t", vec![], Some("not selected".into())).status,
            Status::NotRun
        );
    }

    #[test]
    fn the_summary_adds_up_its_steps_and_names_the_failures() {
        let device = Device {
            gpus: 1,
            arch: "sm_90".into(),
            about: vec![],
        };
        let mut summary = Summary::new(device, &["tests"]);
        summary.push(StepRecord::new(
            "twins",
            vec![run("nvcc bench/kernels.cu", Status::Failed, 3.0)],
            None,
        ));
        summary.push(StepRecord::new(
            "bench",
            vec![run("bench", Status::Passed, 70.0)],
            None,
        ));
        summary.push(StepRecord::new(
            "ports",
            vec![],
            Some("not selected".into()),
        ));
        assert_eq!((summary.passed, summary.failed, summary.not_run), (1, 1, 0));
        let table = summary.table();
        assert!(table.contains("failed: nvcc bench/kernels.cu"), "{table}");
        assert!(
            table.ends_with("gpu-run: 1 passed, 1 failed, 0 not run"),
            "{table}"
        );
        assert!(
            table.lines().any(|l| l.starts_with("ports")
                && l.contains("not run")
                && l.ends_with("not selected")),
            "{table}"
        );
        let json: serde_json::Value = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["steps"][0]["status"], "failed");
        assert_eq!(json["steps"][2]["status"], "not_run");
        assert_eq!(json["steps"][0]["runs"][0]["name"], "nvcc bench/kernels.cu");
        assert_eq!(json["device"]["arch"], "sm_90");
    }
}
