//! The execution side: the ACL and HCCL C APIs loaded at run time (`acl`, `hccl`: the only
//! `unsafe` of the runtime), finding the library of a device (`device`), the executor that
//! loads a [`crate::lowering::model::TaskModel`] onto a device and runs it, and the
//! reference interpreter that runs the graph as written, op by op: the oracle (`reference`,
//! compared bit for bit by `compare`).

pub mod acl;
#[deny(unsafe_code)]
pub mod compare;
#[deny(unsafe_code)]
pub mod device;
#[deny(unsafe_code)]
pub mod error;
#[deny(unsafe_code)]
pub mod execute_graph;
#[deny(unsafe_code)]
pub mod executor;
pub mod hccl;
#[deny(unsafe_code)]
pub mod memory;
#[deny(unsafe_code)]
pub mod reference;
#[deny(unsafe_code)]
pub mod streams;
#[deny(unsafe_code)]
pub mod tensor;

pub use error::RuntimeError;
