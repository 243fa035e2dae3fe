//! Analyses over frozen views of the IR (safe Rust only): each pass decides here and
//! applies its decisions with rewrite patterns.

pub mod fast_hash;
pub mod interner;
pub mod memory;
pub mod reachability;
pub mod stream;
