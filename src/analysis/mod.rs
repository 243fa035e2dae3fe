//! Analyses over the IR views (safe Rust only).

pub mod reachability;
