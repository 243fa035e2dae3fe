//! Analyses shared by the passes.

pub mod memory;
