//! Transformations over the `ascend` dialect. Each pass is one file and one row of
//! [`crate::pipeline::PASSES`].

pub mod memory;
pub mod stream;
pub mod topo_order;
