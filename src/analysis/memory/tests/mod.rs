//! Tests of the memory decision engines, named after the spec's terms.

mod atomic;
mod hccl;
mod inplace;
mod layout;
mod layout_table;
mod lint;
mod matrix;
mod mem_plan;
mod node_size;
mod process_inplace;
mod props;
mod rw;
mod subgraph;
pub(super) mod support;
mod symbols;
mod zero_copy;
