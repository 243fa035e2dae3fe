//! ge-mlir: the memory-conflict and multi-stream machinery of CANN's Graph Engine (GE),
//! as passes over the `ascend` MLIR dialect.
//!
//! The crate is laid out by role (see README.md, "Architecture"):
//! `dialect` (context, IRDL loading, the op table), `syntax` (the `.ge` text format),
//! `ir` (the only home of `unsafe`: safe wrappers over the MLIR C API), `analysis`,
//! `transforms`, and `pipeline` (the pass registry that `ge-opt` drives).

pub mod analysis;
pub mod dialect;
