//! One command a step runs (a test binary, a sample, nvcc, a tool around
//! them), with what it needs and how its outcome is judged.

use std::path::PathBuf;

/// How a job's outcome is judged from its exit status and its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Passed when the command exits 0.
    ExitZero,
    /// A planted bug: passed when compute-sanitizer exits with
    /// `--error-exitcode 99` and its output holds one of these texts (the
    /// finding the tool must report).
    Finding(&'static [&'static str]),
    /// A kernel-fault test's child under memcheck: passed when the output
    /// says `CHILD PASSED: <test>` and either holds `want` or, with no
    /// `want`, reports no bad access (`Invalid __global__`, `__shared__`,
    /// `__local__`). The exit status is not looked at: the child reports.
    FaultChild {
        /// The child test's name.
        test: &'static str,
        /// The report memcheck must make, if any.
        want: Option<&'static str>,
    },
}

/// The reports of a bad access that a fault child without `want` must not
/// have.
const BAD_ACCESSES: [&str; 3] = [
    "Invalid __global__",
    "Invalid __shared__",
    "Invalid __local__",
];

impl Check {
    /// Whether a job that exited with `code` (`None`: killed, or not
    /// started) and printed `output` passed.
    pub fn passed(&self, code: Option<i32>, output: &str) -> bool {
        match self {
            Check::ExitZero => code == Some(0),
            Check::Finding(texts) => code == Some(99) && texts.iter().any(|t| output.contains(t)),
            Check::FaultChild { test, want } => {
                output.contains(&format!("CHILD PASSED: {test}"))
                    && match want {
                        Some(want) => output.contains(want),
                        None => !BAD_ACCESSES.iter().any(|b| output.contains(b)),
                    }
            }
        }
    }
}

/// Several copies of one command at once, one per GPU, joined by NCCL: copy
/// `r` of `n` gets `CG_NCCL_RANK=r`, `CG_NCCL_RANKS=n` and
/// `CG_NCCL_ID_FILE=<id_file>` (removed before they start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    /// How many copies.
    pub n: u32,
    /// The file through which rank 0 hands the others NCCL's unique id.
    pub id_file: PathBuf,
}

/// One command of a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// What the summary and the log call it (`test gpu_api-test`).
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Variables set for it, beside those every job gets.
    pub env: Vec<(String, String)>,
    /// Variables removed for it.
    pub env_remove: Vec<String>,
    /// Its deadline in seconds; `None`: the run's default (`--step-seconds`).
    pub limit: Option<u64>,
    /// Files an earlier job builds (nvcc's PTX): without them it does not run.
    pub needs_files: Vec<PathBuf>,
    /// A program it needs on `PATH` (`ncu`): without it, it does not run.
    pub needs_program: Option<&'static str>,
    /// Why it cannot run on this machine (a multi-GPU program on one GPU),
    /// known when the step is planned: it is reported, not run.
    pub cannot_run: Option<String>,
    /// How its outcome is judged.
    pub check: Check,
    /// Copies at once, one per GPU (the NCCL method), if any.
    pub ranks: Option<Ranks>,
    /// The file it builds, if any (its folder is made first).
    pub builds: Option<PathBuf>,
    /// The source it builds that file from: a build left by an earlier
    /// run (into the same `--out`, or carried to the machine with the
    /// bundle) is kept, not run again, when its stamp ([`Job::record_built`])
    /// names this source's bytes and this command, or, with no stamp, when
    /// the file is newer than its source.
    pub from: Option<PathBuf>,
}

impl Job {
    /// A job running `argv`, judged by its exit status, with the default
    /// deadline and nothing more.
    pub fn new(name: impl Into<String>, argv: impl IntoIterator<Item = impl Into<String>>) -> Job {
        Job {
            name: name.into(),
            argv: argv.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            env_remove: Vec::new(),
            limit: None,
            needs_files: Vec::new(),
            needs_program: None,
            cannot_run: None,
            check: Check::ExitZero,
            ranks: None,
            builds: None,
            from: None,
        }
    }

    /// Sets `key=value` for this job.
    pub fn env(mut self, key: &str, value: impl Into<String>) -> Job {
        self.env.push((key.to_string(), value.into()));
        self
    }

    /// Removes `key` from this job's environment (and any value set for it
    /// before).
    pub fn env_remove(mut self, key: &str) -> Job {
        self.env.retain(|(k, _)| k != key);
        self.env_remove.push(key.to_string());
        self
    }

    /// Its deadline, in seconds.
    pub fn limit(mut self, seconds: u64) -> Job {
        self.limit = Some(seconds);
        self
    }

    /// A file it needs (built by an earlier job).
    pub fn needs_file(mut self, path: impl Into<PathBuf>) -> Job {
        self.needs_files.push(path.into());
        self
    }

    /// A program it needs on `PATH`.
    pub fn needs_program(mut self, program: &'static str) -> Job {
        self.needs_program = Some(program);
        self
    }

    /// Reported as not run, for `reason` (this machine cannot run it).
    pub fn cannot_run(mut self, reason: impl Into<String>) -> Job {
        self.cannot_run = Some(reason.into());
        self
    }

    /// How its outcome is judged.
    pub fn check(mut self, check: Check) -> Job {
        self.check = check;
        self
    }

    /// The file it builds, from `source`.
    pub fn builds(mut self, path: impl Into<PathBuf>, source: impl Into<PathBuf>) -> Job {
        self.builds = Some(path.into());
        self.from = Some(source.into());
        self
    }

    /// Whether the file it builds is there and was built from its source
    /// as it is now, by this command, so that the build need not run again:
    /// its stamp says so, or (a file built before stamps) it is newer than
    /// its source. A stamp survives what times do not: a build carried to
    /// a fresh machine is older there than the bundle's sources, which each
    /// call writes anew.
    pub fn built_already(&self) -> bool {
        let (Some(built), Some(source)) = (&self.builds, &self.from) else {
            return false;
        };
        if !built.exists() {
            return false;
        }
        if let Ok(stamp) = std::fs::read_to_string(stamp_of(built)) {
            return Some(stamp.trim()) == self.source_digest().as_deref();
        }
        let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        matches!((modified(built), modified(source)), (Some(b), Some(s)) if b > s)
    }

    /// Writes the stamp of the file this job built: the digest of its
    /// source's bytes and of its command. Called after the build passed.
    pub fn record_built(&self) -> std::io::Result<()> {
        match (&self.builds, self.source_digest()) {
            (Some(built), Some(digest)) => std::fs::write(stamp_of(built), digest + "\n"),
            _ => Ok(()),
        }
    }

    /// FNV-1a over the source's bytes, then the command's words (each
    /// ended by a zero byte), in hexadecimal; `None` without a readable
    /// source.
    fn source_digest(&self) -> Option<String> {
        let bytes = std::fs::read(self.from.as_ref()?).ok()?;
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let words = self.argv.iter().flat_map(|w| w.bytes().chain([0]));
        for b in bytes.into_iter().chain(words) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Some(format!("fnv1a-{h:016x}"))
    }

    /// Runs `n` copies at once, one per GPU, joined through `id_file`.
    pub fn ranks(mut self, n: u32, id_file: PathBuf) -> Job {
        self.ranks = Some(Ranks { n, id_file });
        self
    }

    /// The job as one shell-like line: variables, program, arguments.
    pub fn command_line(&self) -> String {
        let mut words: Vec<String> = self.env_remove.iter().map(|k| format!("-u {k}")).collect();
        if !words.is_empty() {
            words.insert(0, "env".to_string());
        }
        words.extend(self.env.iter().map(|(k, v)| format!("{k}={}", quote(v))));
        words.extend(self.argv.iter().map(|a| quote(a)));
        words.join(" ")
    }
}

/// `word` quoted for a shell where it needs it.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Where the stamp of a built file lies: beside it, `<file>.built-from`.
fn stamp_of(built: &std::path::Path) -> PathBuf {
    let mut name = built.file_name().unwrap_or_default().to_os_string();
    name.push(".built-from");
    built.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    /// Sets the modification time of the file at `p`.
    fn at(p: &PathBuf, t: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(t)
            .unwrap()
    }

    #[test]
    fn a_build_newer_than_its_source_is_kept() {
        let dir = std::env::temp_dir().join(format!("gpu-run-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cu, ptx) = (dir.join("a.cu"), dir.join("a.ptx"));
        std::fs::write(&cu, "").unwrap();
        let job = Job::new("nvcc a.cu", ["nvcc"]).builds(&ptx, &cu);
        assert!(!job.built_already(), "nothing built yet");
        std::fs::write(&ptx, "").unwrap();
        let now = SystemTime::now();
        at(&cu, now - Duration::from_secs(60));
        at(&ptx, now);
        assert!(job.built_already());
        // The source changed after the build: built again.
        at(&cu, now + Duration::from_secs(60));
        assert!(!job.built_already());
        assert!(!Job::new("x", ["x"]).built_already());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stamped_build_is_kept_whatever_the_times_until_its_source_or_command_changes() {
        let dir = std::env::temp_dir().join(format!("gpu-run-stamp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cu, ptx) = (dir.join("a.cu"), dir.join("a.ptx"));
        std::fs::write(&cu, "__global__ void k() {}").unwrap();
        std::fs::write(&ptx, "").unwrap();
        let job = Job::new("nvcc a.cu", ["nvcc", "-O3"]).builds(&ptx, &cu);
        job.record_built().unwrap();
        // Unpacked on a fresh machine: the source newer than the build.
        at(&cu, SystemTime::now() + Duration::from_secs(60));
        assert!(job.built_already(), "same bytes, same command: kept");
        let other_flags = Job::new("nvcc a.cu", ["nvcc", "-O3", "-fmad=false"]).builds(&ptx, &cu);
        assert!(!other_flags.built_already(), "another command: built again");
        std::fs::write(&cu, "__global__ void k() { }").unwrap();
        assert!(!job.built_already(), "another source: built again");
        std::fs::remove_file(&ptx).unwrap();
        job.record_built().unwrap();
        assert!(!job.built_already(), "no file: built again");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finding_needs_the_tools_exit_status_and_one_of_its_texts() {
        let check = Check::Finding(&["hazard"]);
        assert!(check.passed(Some(99), "========= Error: Race reported hazard"));
        assert!(
            !check.passed(Some(0), "hazard"),
            "no finding reported by the status"
        );
        assert!(!check.passed(Some(99), "an API error"), "another finding");
        assert!(!check.passed(None, "hazard"), "killed at its deadline");
    }

    #[test]
    fn a_fault_child_must_say_it_passed_and_report_only_what_is_wanted() {
        let quiet = Check::FaultChild {
            test: "child_assert",
            want: None,
        };
        assert!(quiet.passed(Some(1), "CHILD PASSED: child_assert\n"));
        assert!(!quiet.passed(Some(0), "CHILD PASSED: child_other\n"));
        assert!(!quiet.passed(
            Some(0),
            "CHILD PASSED: child_assert\nInvalid __shared__ read"
        ));
        let wild = Check::FaultChild {
            test: "child_wild_write",
            want: Some("Invalid __global__ write"),
        };
        assert!(wild.passed(
            Some(0),
            "Invalid __global__ write of size 4\nCHILD PASSED: child_wild_write"
        ));
        assert!(!wild.passed(Some(0), "CHILD PASSED: child_wild_write"));
    }

    #[test]
    fn a_command_line_quotes_what_a_shell_would_split() {
        let job = Job::new("x", ["ncu", "--kernel-name", "regex:^(a|b)$"])
            .env("CG_QUICK", "1")
            .env_remove("CG_GRID_BARRIER_SLOT");
        assert_eq!(
            job.command_line(),
            "env -u CG_GRID_BARRIER_SLOT CG_QUICK=1 ncu --kernel-name 'regex:^(a|b)$'"
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
