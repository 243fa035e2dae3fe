//! Safe wrappers over the MLIR C API: the only module of the crate allowed to use `unsafe`.
//!
//! melior covers most of the C API; what it lacks (or exposes only through `unsafe`
//! constructors) is wrapped here, one small file per concern.

pub mod external_pass;
pub mod pass_manager;
pub mod source;
