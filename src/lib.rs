//! ge-mlir: the memory-conflict and multi-stream machinery of CANN's Graph Engine (GE),
//! as passes over the `ascend` MLIR dialect.
//!
//! The crate is laid out by role (see README.md, "Architecture"):
//! `dialect` (context, IRDL loading, the op table), `syntax` (the `.ge` text format),
//! `ir` (the only home of `unsafe`: safe wrappers over the MLIR C API), `analysis`,
//! `transforms`, `pipeline` (the pass registry that `ge-opt` drives), and `onnx` (the ONNX
//! importer).

#[deny(unsafe_code)]
pub mod analysis;
#[deny(unsafe_code)]
pub mod dialect;
#[deny(unsafe_code)]
pub mod driver;
pub mod ir;
#[deny(unsafe_code)]
pub mod lowering;
/// ONNX import: models to `ascend` graphs (`ge-translate --import-onnx`, `ge-opt model.onnx`).
#[deny(unsafe_code)]
pub mod onnx;
#[deny(unsafe_code)]
pub mod pipeline;
/// GE's runtime v2 execute graph (`ascend_rt`): lowering and the runtime If/Case and
/// placement passes.
#[deny(unsafe_code)]
pub mod rtgraph;
/// The ACL loader (`runtime::acl`) is the one place of this module allowed `unsafe`.
pub mod runtime;
#[deny(unsafe_code)]
pub mod syntax;
#[deny(unsafe_code)]
pub mod transforms;
