// cg_core::println! prints integers, floats, bools and pointers through
// CUDA's printf: other types, and formats C cannot give, are refused with
// what to print instead.
use cg_core::println;

pub fn kernel_body(c: char, x: f32, n: u32) {
    println!("{}", c);
    println!("{:x}", x);
    println!("{:.2}", n);
    println!("{:?}", n);
}

fn main() {}
