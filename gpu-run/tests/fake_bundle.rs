//! gpu-run over a fake bundle and a fake machine: shell scripts in place of
//! the test binaries, the samples, nvcc and nvidia-smi (no GPU, no CUDA).

use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// Held while a script is written and while gpu-run is started: a child
/// forked by one test while another writes a script would hold the script
/// open for writing, and running it would fail ("Text file busy").
static FILES: Mutex<()> = Mutex::new(());

/// Writes an executable shell script.
fn script(path: &Path, body: &str) {
    let _files = FILES.lock().unwrap_or_else(|e| e.into_inner());
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A program that says how it was called and with which variables, then
/// exits with `code`.
fn program(path: &Path, code: i32) {
    let says = "echo \"ran $(basename $0) $*\"; \
        echo \"env CG_REQUIRE_GPU=$CG_REQUIRE_GPU NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS\"";
    script(path, &format!("{says}\nexit {code}"));
}

/// A bundle and a machine (its `PATH`) in a temporary folder.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    /// A bundle of a few tests, every sample, two twins, a corpus of two
    /// kernels and one port; nvidia-smi reporting `gpus` GPUs of compute
    /// capability `cap`; nvcc that fails on any file holding `BROKEN`.
    fn new(gpus: usize, cap: &str) -> Machine {
        let m = Machine {
            dir: tempfile::tempdir().unwrap(),
        };
        let b = m.bundle();
        for t in [
            "gpu_foundation-test",
            "gpu_api-test",
            "gpu_multi_grid-test",
            "planted-test",
            "host_errors-test",
            "cg_core-lib",
        ] {
            program(&b.join("tests").join(t), 0);
        }
        for s in [
            "grid_sum",
            "reduce",
            "jacobi",
            "clusters",
            "async_copy",
            "bench",
        ] {
            program(&b.join("bin").join(s), 0);
        }
        for (dir, cu) in [
            ("bench", "kernels.cu"),
            ("bench", "lib_cub_sum.cu"),
            ("twins-src", "api.cu"),
            ("corpus", "dot.cu"),
            ("corpus", "scan.cu"),
            ("ports", "reduction.cu"),
        ] {
            fs::create_dir_all(b.join(dir)).unwrap();
            fs::write(b.join(dir).join(cu), "// a kernel\n").unwrap();
        }
        program(&b.join("corpus/corpus-bench"), 0);
        program(&b.join("ports/reduction"), 0);
        let caps = vec![cap; gpus].join("\\n");
        script(
            &m.path().join("fake-bin/nvidia-smi"),
            &format!(
                "case \"$1\" in --query-gpu=compute_cap) printf '{caps}\\n' ;; *) echo 'Fake GPU, 1.0, 1 MiB' ;; esac"
            ),
        );
        // nvcc: writes its -o file, fails on a source holding BROKEN.
        script(
            &m.path().join("fake-bin/nvcc"),
            "echo \"nvcc $*\"; out=; for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n\
             src=$a; grep -q BROKEN \"$src\" && { echo \"$src: error\"; exit 1; }; echo ptx > \"$out\"",
        );
        m
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bundle(&self) -> PathBuf {
        self.path().join("bundle")
    }

    fn out(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// gpu-run with these arguments, over the bundle, on this machine.
    fn run(&self, args: &[&str]) -> Output {
        let path = format!(
            "{}:{}",
            self.path().join("fake-bin").display(),
            std::env::var("PATH").unwrap()
        );
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpu-run"));
        cmd.arg("--bundle")
            .arg(self.bundle())
            .args(args)
            .env("PATH", path)
            .env_remove("OUT");
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = {
            let _files = FILES.lock().unwrap_or_else(|e| e.into_inner());
            cmd.spawn().unwrap()
        };
        child.wait_with_output().unwrap()
    }

    /// The summary a run wrote to `out`.
    fn summary(&self, out: &str) -> Value {
        serde_json::from_str(&fs::read_to_string(self.out(out).join("summary.json")).unwrap())
            .unwrap()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The step `name` of a summary.
fn step<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()
}

/// The names of a summary's runs of status `status`.
fn runs(summary: &Value, status: &str) -> BTreeSet<String> {
    let steps = summary["steps"].as_array().unwrap();
    let all = steps.iter().flat_map(|s| s["runs"].as_array().unwrap());
    all.filter(|r| r["status"] == status)
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_dry_run_prints_the_plan_for_the_devices_architecture_and_writes_nothing() {
    let m = Machine::new(2, "10.0");
    let out = m.run(&["--dry-run", "--out", m.out("out").to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(!m.out("out").exists(), "a dry run writes nothing");
    assert!(
        !text.contains("sm_90"),
        "the architecture is the device's:\n{text}"
    );
    for want in [
        "2 GPU(s), sm_100",
        "nvcc -O3 -arch=sm_100 -shared -Xcompiler -fPIC -o",
        "lib_cub_sum.so",
        "nvcc -O3 -arch=sm_100 -ptx -o",
        "test gpu_multi_grid-test (2 GPUs)",
        "CG_REQUIRE_GPUS=2",
        "sample jacobi --nccl-process x 2",
        "2 copies at once, one per GPU",
        "memcheck gpu_multi_grid-test (2 GPUs)",
        "--skip on_a_barrier --skip guide_barrier_kernel",
        "planted planted_shared_race under racecheck",
        "--report-api-errors no --target-processes application-only",
        "regex:^(dot|scan)$",
        "port reduction under ncu",
    ] {
        assert!(text.contains(want), "no `{want}` in the plan:\n{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("one-gpu") && l.contains("needs exactly 1 GPU(s); 2 here")),
        "{text}"
    );
}

#[test]
fn a_dry_run_lists_a_packed_bundle_and_a_run_unpacks_it() {
    let m = Machine::new(1, "9.0");
    // Packed as scripts/gpu-bundle packs it: the binaries' folders in one
    // archive beside the rest.
    let b = m.bundle();
    let packed = Command::new("sh")
        .arg("-c")
        .arg("tar -cf - tests bin ports corpus | xz > binaries.tar.xz && rm -rf tests bin ports corpus")
        .current_dir(&b)
        .status()
        .unwrap();
    assert!(packed.success());
    let dry = m.run(&["--dry-run", "--steps", "gpu-tests"]);
    let text = stdout(&dry);
    assert!(dry.status.success(), "{text}");
    assert!(
        text.contains("test gpu_api-test"),
        "the tests from the archive's list:\n{text}"
    );
    assert!(
        b.join("binaries.tar.xz").exists() && !b.join("tests").exists(),
        "a dry run leaves the bundle packed (unpacked it is too large to carry)"
    );
    let run = m.run(&[
        "--steps",
        "gpu-tests",
        "--out",
        m.out("out").to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stdout(&run));
    assert!(b.join("tests/gpu_api-test").exists() && !b.join("binaries.tar.xz").exists());
    assert!(runs(&m.summary("out"), "passed").contains("test gpu_api-test"));
}

#[test]
fn every_nvcc_failure_is_counted_and_what_needs_its_output_is_not_run() {
    let m = Machine::new(1, "9.0");
    fs::write(m.bundle().join("bench/kernels.cu"), "BROKEN\n").unwrap();
    fs::write(m.bundle().join("corpus/scan.cu"), "BROKEN\n").unwrap();
    let out = m.run(&[
        "--steps",
        "twins,corpus,ports",
        "--skip",
        "gate",
        "--out",
        m.out("out").to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let summary = m.summary("out");
    let twins = step(&summary, "twins");
    assert_eq!(
        (
            twins["status"].as_str(),
            twins["passed"].as_u64(),
            twins["failed"].as_u64()
        ),
        (Some("failed"), Some(3), Some(1))
    );
    let corpus = step(&summary, "corpus");
    assert_eq!(
        (
            corpus["passed"].as_u64(),
            corpus["failed"].as_u64(),
            corpus["not_run"].as_u64()
        ),
        (Some(1), Some(1), Some(2))
    );
    let failed = runs(&summary, "failed");
    assert!(
        failed.contains("nvcc bench/kernels.cu") && failed.contains("nvcc corpus/scan.cu"),
        "{failed:?}"
    );
    assert!(runs(&summary, "passed").contains("port reduction"));
    let ncu = &step(&summary, "ports")["runs"][2];
    assert_eq!(
        (ncu["status"].as_str(), ncu["reason"].as_str()),
        (Some("not_run"), Some("no ncu on this machine"))
    );
    assert!(
        text.contains("failed: nvcc bench/kernels.cu, nvcc corpus/scan.cu"),
        "{text}"
    );
    assert!(
        text.contains("gpu-run: 7 passed, 2 failed, 3 not run"),
        "{text}"
    );
}

#[test]
fn the_gate_stops_what_follows_a_failure_and_the_run_ends_in_one_archive() {
    let m = Machine::new(1, "9.0");
    program(&m.bundle().join("tests/gpu_api-test"), 1);
    let out = m.run(&[
        "--steps",
        "gpu-tests,bench",
        "--out",
        m.out("out").to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let summary = m.summary("out");
    assert_eq!(step(&summary, "gate")["status"], "failed");
    let bench = step(&summary, "bench");
    assert_eq!(bench["status"], "not_run");
    assert!(
        bench["reason"].as_str().unwrap().contains("fix them first"),
        "{bench}"
    );
    assert!(
        text.contains("env CG_REQUIRE_GPU=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1"),
        "{text}"
    );
    let mut left: Vec<String> = fs::read_dir(m.out("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["gpu-run.log", "gpu-run.tar.gz", "summary.json"]);
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(m.out("out").join("gpu-run.tar.gz"))
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.contains("logs/")
            && listing.contains("summary.json")
            && listing.contains("test_gpu_api-test.log"),
        "{listing}"
    );
}

#[test]
fn a_failed_preflight_stops_the_run() {
    let m = Machine::new(1, "9.0");
    program(&m.bundle().join("tests/gpu_foundation-test"), 1);
    let out = m.run(&["--steps", "tests", "--out", m.out("out").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let summary = m.summary("out");
    assert_eq!(summary["failed"], 1);
    assert_eq!(
        summary["passed"], 4,
        "the twins only (two of the bench, the test twin with and without -fmad=false)"
    );
    assert!(step(&summary, "gpu-tests")["reason"]
        .as_str()
        .unwrap()
        .contains("preflight failed"));
}

#[test]
fn a_run_split_over_calls_runs_what_one_call_runs() {
    let m = Machine::new(1, "9.0");
    let whole = m.run(&[
        "--skip",
        "sanitizers",
        "--out",
        m.out("whole").to_str().unwrap(),
    ]);
    assert!(whole.status.success(), "{}", stdout(&whole));
    for (out, steps) in [("a", "tests"), ("b", "bench,corpus"), ("c", "ports")] {
        let call = m.run(&["--steps", steps, "--out", m.out(out).to_str().unwrap()]);
        assert!(call.status.success(), "{}", stdout(&call));
    }
    let split: BTreeSet<String> = ["a", "b", "c"]
        .iter()
        .flat_map(|o| runs(&m.summary(o), "passed"))
        .collect();
    assert_eq!(split, runs(&m.summary("whole"), "passed"));
    assert_eq!(
        step(&m.summary("whole"), "gate")["status"],
        "passed",
        "open"
    );
    assert!(
        split.contains("test cg_core-lib")
            && split.contains("bench")
            && split.contains("port reduction")
    );
}

#[test]
fn a_job_stopped_by_the_calls_budget_is_not_run_and_nothing_starts_after_it() {
    let m = Machine::new(1, "9.0");
    script(&m.bundle().join("tests/gpu_api-test"), "sleep 30");
    let out = m.run(&[
        "--steps",
        "gpu-tests",
        "--budget",
        "2",
        "--out",
        m.out("out").to_str().unwrap(),
    ]);
    let summary = m.summary("out");
    assert!(
        out.status.success(),
        "a spent budget is no failure: {}",
        stdout(&out)
    );
    let tests = step(&summary, "gpu-tests");
    let api = tests["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "test gpu_api-test")
        .unwrap();
    assert_eq!(api["status"], "not_run");
    assert!(api["reason"].as_str().unwrap().contains("budget"), "{api}");
    assert!(tests["runs"]
        .as_array()
        .unwrap()
        .iter()
        .skip_while(|r| r["name"] != "test gpu_api-test")
        .all(|r| r["status"] == "not_run"));
}

#[test]
fn match_splits_a_step_over_calls_and_keeps_the_builds() {
    let m = Machine::new(1, "9.0");
    let out = m.run(&[
        "--steps",
        "gpu-tests",
        "--match",
        "gpu_api",
        "--match=-lib",
        "--out",
        m.out("out").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    let passed = runs(&m.summary("out"), "passed");
    let tests: Vec<&String> = passed.iter().filter(|r| r.starts_with("test ")).collect();
    assert_eq!(
        tests,
        ["test gpu_api-test"],
        "cpu-tests is not selected: cg_core-lib stays out"
    );
    assert!(
        passed.contains("preflight") && passed.contains("nvcc bench/kernels.cu"),
        "{passed:?}"
    );
}
