//! The execution side: the ACL and HCCL C APIs loaded at run time (`acl`), the executor
//! that loads a [`crate::lowering::model::TaskModel`] onto a device and runs it, and the
//! reference interpreter that runs the graph as written, op by op: the oracle.

pub mod compare;
pub mod reference;
pub mod tensor;
