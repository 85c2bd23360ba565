//! What the tests share: a small seeded random generator (xorshift64*).

#![allow(dead_code)]

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// Uniform in `[0, n)`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }
}

/// `|got - want| <= tol * max(1, |want|)`, with `want` from an f64 reference.
pub fn close(got: f32, want: f64, tol: f64) -> bool {
    (got as f64 - want).abs() <= tol * want.abs().max(1.0)
}

/// Matrix shapes (rows, columns) for the kernels of one block per row:
/// rows shorter than a block, of a block, a partial block longer.
pub const ROW_SHAPES: [(usize, usize); 7] = [
    (1, 1),
    (3, 31),
    (2, 255),
    (2, 256),
    (5, 257),
    (4, 1000),
    (1, 2048),
];
