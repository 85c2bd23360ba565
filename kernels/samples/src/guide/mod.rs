//! The guide's examples (`docs/guide/`): each chapter shows its kernels from
//! these files through mdBook's `{{#include}}`, and
//! `tests/tests/guide.rs` runs every one of them on the simulator (and on
//! the GPU where there is one) against a CPU model.

pub mod atomics;
pub mod block_collectives;
pub mod coalesced;
pub mod collectives;
pub mod faults;
pub mod generic;
pub mod grid;
pub mod groups;
pub mod outputs;
pub mod partitions;
pub mod print;
pub mod shared;
