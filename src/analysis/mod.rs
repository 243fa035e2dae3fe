//! Analyses over frozen views of a graph: they decide, the transforms apply.

pub mod stream;
