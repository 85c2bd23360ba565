//! The kernels of the printing test (tests/tests/gpu_print.rs): every
//! format `cg_core::println!` supports, on the edge values of each type
//! (read from the inputs, so that the widening and packing run in the
//! kernel), and a line from every thread of a launch.
use cg_core::prelude::*;
use cg_core::{print, println};

/// The integers [`print_formats`] reads: the extremes of each width, -1,
/// and 0x1234.
pub const INTS: [i64; 12] = [
    -128,
    127,
    255,
    -32768,
    65535,
    i32::MIN as i64,
    u32::MAX as i64,
    i64::MIN,
    i64::MAX,
    -1,
    0x1234,
    0,
];

/// The `f64`s [`print_formats`] reads: plain values, -0, large and small
/// ones, NaN of both signs, infinity, the smallest subnormal, the largest
/// finite value.
pub const DOUBLES: [f64; 13] = [
    1.5,
    0.1,
    -0.0,
    1e20,
    1e-7,
    f64::NAN,
    -f64::NAN,
    f64::NEG_INFINITY,
    5e-324,
    1234567.0,
    core::f64::consts::PI,
    f64::MAX,
    -2.5,
];

/// The `f32`s [`print_formats`] reads.
pub const SINGLES: [f32; 9] = [
    0.1,
    1e20,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    1e-45,
    f32::MIN_POSITIVE,
    16777216.0,
    f32::MAX,
];

/// One thread (launch it with one) prints a line for each group of formats
/// on [`INTS`], [`DOUBLES`] and [`SINGLES`].
#[kernel]
pub fn print_formats(ints: &[i64], doubles: &[f64], singles: &[f32]) {
    let (i, d, s) = (ints, doubles, singles);
    println!(
        "i8 {} {} u8 {} i16 {} u16 {}",
        i[0] as i8, i[1] as i8, i[2] as u8, i[3] as i16, i[4] as u16
    );
    println!(
        "i32 {} u32 {} i64 {} {} u64 {}",
        i[5] as i32, i[6] as u32, i[7], i[8], i[9] as u64
    );
    println!(
        "isize {} usize {} bool {} {}",
        i[9] as isize,
        i[9] as usize,
        i[9] < 0,
        i[9] > 0
    );
    println!(
        "hex {:x} {:X} {:#x} {:x} {:x} {:#X} {:#o} {:o} {:x}",
        i[9] as i8,
        i[10] as u16,
        i[10] as i32,
        i[9] as i32,
        i[7],
        i[9] as u64,
        i[10],
        i[0] as i8,
        i[11] as u8
    );
    println!(
        "[{:5}] [{:<5}] [{:05}] [{:+}] [{:+}] [{:8}] [{:>6}] [{:<8.2}] [{:08.3}] [{:>5x}]",
        i[10] as i32,
        i[9],
        i[9] as i16,
        i[10],
        d[0],
        i[9] < 0,
        i[9] > 0,
        d[0],
        d[12],
        i[1] as u8
    );
    println!(
        "f64 {} {} {} {} {} {} {} {} {}",
        d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]
    );
    println!("f64 {} {} {}", d[9], d[10], d[11]);
    println!(
        "f32 {} {} {} {} {} {} {} {} {}",
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]
    );
    println!(
        "fixed {:.3} {:.0} {:.2} {:.1} {:.20} exp {:e} {:E} {:.2e} {:e}",
        s[0], d[12], d[2], -d[7], d[1], d[0], s[1], d[9], d[8]
    );
    println!(
        "pointers {:p} {:p} {:p}",
        core::ptr::null::<u8>(),
        i[10] as usize as *const f32,
        i[9] as usize as *mut u64
    );
    let n = i[10];
    println!(
        "{{braces}} 100% {1} {0} {1} {n} {name:x}",
        i[1],
        i[2],
        name = n
    );
    print!("partial ");
    print!("{} ", i[11]);
    println!();
    println!("{} arguments: {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
        32, i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11],
        d[0], d[1], d[2], d[3], d[4], s[0], s[1], s[2], i[0] as i8, i[1] as u16, i[9] < 0,
        i[10] as u32, i[10] as i16, i[7] as isize, i[8] as usize, d[9], d[10], d[11], s[8]);
}

/// Every thread prints two lines: its place, then its element of `values`.
#[kernel]
pub fn print_threads(values: &[f32]) {
    let block = this_thread_block();
    let rank = this_grid().thread_rank();
    println!(
        "block {} thread {}: rank {}",
        block.group_index().x,
        block.thread_rank(),
        rank
    );
    println!("rank {rank}: value {:.2}", values[rank as usize]);
}
