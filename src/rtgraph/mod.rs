//! GE's runtime v2 execute graph as MLIR (the `ascend_rt` dialect,
//! `dialects/ascend_rt.irdl.mlir`): what gert's lowering builds from a compiled graph
//! before it runs it. Tensors carry `FreeMemory` guarders, If/Case become `cond` nodes whose
//! branch frames (private functions) start with `inner_data` and end in `inner_netoutput`,
//! and every kernel says where its outputs live (`placement`: host, hbm, p2p).
//!
//! * [`model`](crate::rtgraph::model): the graph as plain Rust; [`read`](crate::rtgraph::read) and [`emit`](crate::rtgraph::emit) move it in and out of MLIR.
//! * [`lower`](crate::rtgraph::lower): a compiled `ascend` module → the execute graph (`--lower-to-rt`).
//! * [`analysis`](crate::rtgraph::analysis): GE's `bg_condition.cc` policies and the placement copy table, as pure
//!   decisions over the model; each pass in [`passes`](crate::rtgraph::passes) reads, decides, applies and emits.

pub mod analysis;
pub mod emit;
pub mod lower;
pub mod model;
pub mod passes;
pub mod read;

#[cfg(test)]
mod tests;
