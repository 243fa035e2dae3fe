//! The `ascend` dialect: context set-up, IRDL loading and the op table.

pub mod context;
pub mod table;

pub use context::{new_context, IRDL_SOURCE};
pub use table::{op_table, Arity, ArityError, Group, OpDef, OpTable};
