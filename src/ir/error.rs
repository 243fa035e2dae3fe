//! Errors of the IR helpers. They name the node (its `name` attribute, or the op name when
//! it has none) so a pass can turn them into a located diagnostic.

use crate::dialect::ArityError;
use melior::ir::{operation::OperationLike, Location, OperationRef};
use std::fmt;

/// Why an IR helper refused to change the IR. The IR is left unchanged when one of these
/// is returned (helpers validate before they mutate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IrError {
    /// The op or GE type is not in the op table (and no generic `ascend.op` exists).
    UnknownOp(String),
    /// The values do not fit the op's operand or result groups.
    Arity {
        op: String,
        what: &'static str,
        error: ArityError,
    },
    /// An operand, result or input index is out of range.
    NoSuchPort {
        node: String,
        what: &'static str,
        index: usize,
    },
    /// Data and control operands are mixed up.
    BadOperands { node: String, reason: &'static str },
    /// The op is not an `ascend` op with a control result (e.g. `func.return`).
    NoCtrl(String),
    /// A control edge or rewiring would make a value used before its definition.
    Dominance { from: String, to: String },
    /// The op still has uses and cannot be erased.
    HasUses(String),
    /// A use passed in does not read the value it was supposed to read.
    StaleUse { node: String, operand: usize },
    /// A node cannot be bypassed (e.g. a data output other than 0 still has consumers).
    CannotBypass { node: String, reason: String },
    /// MLIR refused to build the op.
    Build(String),
    /// The `!ascend.ctrl` type is unknown: the dialect is not loaded in this context.
    DialectNotLoaded,
    /// The module structure is not a GE graph (subgraph with two parents...).
    Structure(String),
    /// The module has no function of the root graph's name (the message lists what it has;
    /// see [`crate::ir::graph::missing_root`]).
    MissingRoot(String),
}

impl fmt::Display for IrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IrError::UnknownOp(name) => write!(f, "unknown op or GE type `{name}`"),
            IrError::Arity { op, what, error } => write!(f, "`{op}` {what}: {error}"),
            IrError::NoSuchPort { node, what, index } => {
                write!(f, "node `{node}` has no {what} #{index}")
            }
            IrError::BadOperands { node, reason } => write!(f, "`{node}`: {reason}"),
            IrError::NoCtrl(node) => write!(f, "node `{node}` has no control result"),
            IrError::Dominance { from, to } => write!(
                f,
                "`{from}` does not come before `{to}` in its block; the edge would break SSA"
            ),
            IrError::HasUses(node) => write!(f, "node `{node}` still has uses"),
            IrError::StaleUse { node, operand } => write!(
                f,
                "operand #{operand} of `{node}` does not read the expected value"
            ),
            IrError::CannotBypass { node, reason } => {
                write!(f, "cannot bypass `{node}`: {reason}")
            }
            IrError::Build(what) => write!(f, "MLIR refused to build {what}"),
            IrError::DialectNotLoaded => write!(f, "the ascend dialect is not loaded"),
            IrError::Structure(what) | IrError::MissingRoot(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for IrError {}

/// An error with the location it is about: what a pass or the `.ge` printer reports as an
/// MLIR diagnostic at the op (or function) it concerns.
#[derive(Clone, Debug)]
pub struct LocatedError<'c> {
    pub location: Location<'c>,
    pub message: String,
}

impl<'c> LocatedError<'c> {
    pub fn new(location: Location<'c>, message: impl Into<String>) -> Self {
        LocatedError {
            location,
            message: message.into(),
        }
    }

    pub fn at(op: OperationRef<'c, '_>, message: impl Into<String>) -> Self {
        LocatedError {
            location: op.location(),
            message: message.into(),
        }
    }
}
