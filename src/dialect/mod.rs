//! The `ascend` dialect: context set-up, IRDL loading and the op table.

pub mod context;

pub use context::{new_context, IRDL_SOURCE};
