//! Functional control flow (If, Case, While, PartitionedCall) sunk to labels and stream
//! activations, as GE's `LabelAllocator` and label makers do.

use super::lower::{Lowering, ParentInputs};
use melior::ir::OperationRef;

/// Lowers a functional control-flow node and its subgraphs at the node's place in the
/// global order.
pub(crate) fn lower_functional<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    op: OperationRef<'c, 'a>,
    ge_type: &str,
    _name: &str,
    _stream: u32,
) {
    let _ = ParentInputs {
        operands: Vec::new(),
        first: 0,
    };
    lw.error(op, format!("`{ge_type}` is not lowered yet"));
}
