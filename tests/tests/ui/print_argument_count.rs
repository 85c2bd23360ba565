// cg_core::println! needs one argument for each placeholder, and a
// placeholder for each argument.
use cg_core::println;

pub fn kernel_body(x: u32, y: f32) {
    println!("x = {}, y = {}", x);
    println!("x = {}", x, y);
}

fn main() {}
