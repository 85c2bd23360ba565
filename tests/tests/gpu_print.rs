//! What kernels print with `cg_core::println!`, checked to the character:
//! the kernels of kernels/tests/src/print.rs, on the simulator and on
//! the GPU.
//!
//! * `print_formats` (one thread) prints every format the macro supports
//!   on the edge values of each type; the text must be [`FORMATS`], which
//!   is what glibc's `printf` prints for the C format string the macro
//!   builds (the CUDA driver formats on the host as it does).
//! * `print_threads` (two blocks of 48 threads) prints two lines from each
//!   thread; each thread's lines must come out whole and in its order,
//!   every thread's, and nothing else (CUDA does not order different
//!   threads' lines; the simulator runs one thread after another, so there
//!   the whole text is known too).
//!
//! On the simulator the text is captured in the test
//! (`cg_core::sim::capture_printed`). On the GPU the driver writes it to
//! the process's standard output (through C's stdio) when the host
//! synchronises, so the GPU tests run the launch in a child process (this
//! test binary, its test `child_process`, with `CG_PRINT_CHILD` naming the
//! kernel), which prints the text between two marker lines, and read its
//! standard output. Without a GPU the GPU tests are ignored.

mod common;

use cg_test_kernels::print::{DOUBLES, INTS, SINGLES};
use cg_tests::kernels::Kernels;
use cooperative_groups::{Gpu, LaunchConfig};
use std::io::Write;
use std::process::Command;

/// What `print_formats` prints.
const FORMATS: &str = "\
i8 -128 127 u8 255 i16 -32768 u16 65535
i32 -2147483648 u32 4294967295 i64 -9223372036854775808 9223372036854775807 u64 18446744073709551615
isize -1 usize 18446744073709551615 bool true false
hex ff 1234 0x1234 ffffffff 8000000000000000 0xFFFFFFFFFFFFFFFF 0o11064 200 0
[ 4660] [-1   ] [-0001] [+4660] [+1.5] [true    ] [ false] [1.50    ] [-002.500] [   7f]
f64 1.5 0.1 -0 1e+20 1e-07 nan -nan -inf 4.94066e-324
f64 1.23457e+06 3.14159 1.79769e+308
f32 0.1 1e+20 -0 nan inf 1.4013e-45 1.17549e-38 1.67772e+07 3.40282e+38
fixed 0.100 -2 -0.00 inf 0.10000000000000000555 exp 1.500000e+00 1.000000E+20 1.23e+06 4.940656e-324
pointers 0x0 0x1234 0xffffffffffffffff
{braces} 100% 255 127 255 4660 1234
partial 0 
32 arguments: -128 127 255 -32768 65535 -2147483648 4294967295 -9223372036854775808 9223372036854775807 -1 4660 0 1.5 0.1 -0 1e+20 1e-07 0.1 1e+20 -0 -128 127 true 4660 4660 -9223372036854775808 9223372036854775807 1.23457e+06 3.14159 1.79769e+308 3.40282e+38
";

/// The environment variable that makes `child_process` launch a kernel.
const CHILD_VAR: &str = "CG_PRINT_CHILD";
/// The lines the child prints around the kernel's text.
const BEGIN: &str = "=== cg-print: kernel output begins";
const END: &str = "=== cg-print: kernel output ends";

/// `print_threads`'s launch.
const BLOCKS: u32 = 2;
const THREADS: u32 = 48;

fn thread_values() -> Vec<f32> {
    (0..BLOCKS * THREADS).map(|r| r as f32 * 0.25).collect()
}

/// Launches `print_formats` on one thread and waits for it.
fn launch_formats(gpu: &Gpu) {
    let k = Kernels::load(gpu).unwrap();
    let (ints, doubles, singles) = (
        gpu.upload(&INTS).unwrap(),
        gpu.upload(&DOUBLES).unwrap(),
        gpu.upload(&SINGLES).unwrap(),
    );
    k.print_formats
        .launch(LaunchConfig::new(1, 1), &ints, &doubles, &singles)
        .unwrap();
    gpu.synchronize().unwrap();
}

/// Launches `print_threads` and waits for it.
fn launch_threads(gpu: &Gpu) {
    let k = Kernels::load(gpu).unwrap();
    let values = gpu.upload(&thread_values()).unwrap();
    k.print_threads
        .launch(LaunchConfig::new(BLOCKS, THREADS), &values)
        .unwrap();
    gpu.synchronize().unwrap();
}

/// Each thread's lines, by rank, in the order it prints them.
fn thread_lines() -> Vec<[String; 2]> {
    let values = thread_values();
    (0..BLOCKS * THREADS)
        .map(|r| {
            [
                format!("block {} thread {}: rank {r}", r / THREADS, r % THREADS),
                format!("rank {r}: value {:.2}", values[r as usize]),
            ]
        })
        .collect()
}

/// Checks `text` as `print_threads`'s: whole lines, each thread's two in
/// its order, every thread's once, nothing else.
fn check_threads(text: &str) {
    let expected = thread_lines();
    assert!(text.ends_with('\n'), "the text ends mid-line:\n{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 * expected.len(), "the text:\n{text}");
    for (r, [first, second]) in expected.iter().enumerate() {
        let at = |line: &str| {
            let found: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == line).collect();
            assert_eq!(
                found.len(),
                1,
                "rank {r}: `{line}` is there {} times:\n{text}",
                found.len()
            );
            found[0]
        };
        assert!(
            at(first) < at(second),
            "rank {r}'s lines are out of order:\n{text}"
        );
    }
}

#[test]
fn formats_on_the_simulator() {
    let gpu = Gpu::simulator();
    let ((), text) = cg_core::sim::capture_printed(|| launch_formats(&gpu));
    assert_eq!(text, FORMATS);
}

#[test]
fn threads_on_the_simulator() {
    let gpu = Gpu::simulator();
    let ((), text) = cg_core::sim::capture_printed(|| launch_threads(&gpu));
    check_threads(&text);
    // The simulator runs each thread until it waits (these never do): one
    // thread's lines after another's, in rank order.
    let in_order: String = thread_lines()
        .iter()
        .flat_map(|lines| lines.iter().map(|l| format!("{l}\n")))
        .collect();
    assert_eq!(text, in_order);
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's printf")]
fn formats_on_the_gpu() {
    if let Some(text) = printed_on_the_gpu("formats_on_the_gpu", "formats") {
        assert_eq!(text, FORMATS);
    }
}

#[test]
#[cfg_attr(cg_no_gpu, ignore = "needs a GPU: the CUDA driver's printf")]
fn threads_on_the_gpu() {
    if let Some(text) = printed_on_the_gpu("threads_on_the_gpu", "threads") {
        check_threads(&text);
    }
}

/// What the kernel `which` printed on the GPU, from a child process; `None`
/// (after the notice GPU TEST NOT RUN) where there is no GPU.
fn printed_on_the_gpu(test: &str, which: &str) -> Option<String> {
    drop(common::real_gpu(
        test,
        "the CUDA driver's printf writes to the standard output",
    )?);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, which)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{test}: the child process failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, rest) = stdout
        .split_once(&format!("{BEGIN}\n"))
        .unwrap_or_else(|| panic!("{test}: no `{BEGIN}` in the child's output:\n{stdout}"));
    let (text, _) = rest
        .split_once(&format!("{END}\n"))
        .unwrap_or_else(|| panic!("{test}: no `{END}` in the child's output:\n{stdout}"));
    Some(text.to_string())
}

/// The child process of the GPU tests: with `CG_PRINT_CHILD` set, launches
/// that kernel on the GPU and writes its text between the marker lines;
/// otherwise nothing.
#[test]
#[ignore = "child process of formats_on_the_gpu and threads_on_the_gpu"]
fn child_process() {
    let Ok(which) = std::env::var(CHILD_VAR) else {
        return;
    };
    let gpu = Gpu::new(0).unwrap();
    // Modules load (and a module load flushes the printf buffer too)
    // before the first marker.
    Kernels::load(&gpu).unwrap();
    let marker = |line: &str| {
        let mut out = std::io::stdout().lock();
        out.write_all(format!("{line}\n").as_bytes()).unwrap();
        out.flush().unwrap();
    };
    marker(BEGIN);
    match which.as_str() {
        "formats" => launch_formats(&gpu),
        "threads" => launch_threads(&gpu),
        other => panic!("{CHILD_VAR}={other}: expected formats or threads"),
    }
    // The driver wrote the text through C's stdio: out of its buffer before
    // the closing marker.
    // SAFETY: fflush(NULL) flushes every output stream; nothing else uses
    // C's stdio here.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    marker(END);
}
