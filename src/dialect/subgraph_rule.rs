//! The one rule for what an op with subgraphs passes to them and gets back, applied by both
//! entries: the `.ge` importer (on its AST, with `.ge` spans) and the `.mlir` verifier
//! ([`super::verify`]). Two rules would let `ge-opt` write modules it cannot read back.
//!
//! * Which attributes name subgraphs: those of the op's *semantic* row, so a generic op of
//!   an aliased type (`"StatelessIf"`, `"_Case"`) calls its subgraphs like the row it is an
//!   alias of; a generic op of an unknown type names none.
//! * What is passed: the op's data inputs after the ones it keeps. A table op keeps its
//!   leading single groups (If's `cond`, Case's `branch_index`); a generic op keeps none,
//!   since its operands are one heterogeneous group (GE's `_parent_node_index` of argument
//!   `i` is then `i`, as the memory model reads it).
//! * What comes back: the op's data results, except a While-family `cond` subgraph, which
//!   returns one predicate.

use super::{Arity, OpDef, Trait};

/// How one op calls its subgraphs.
#[derive(Clone, Copy, Debug)]
pub struct SubgraphRule<'t> {
    /// The row whose subgraph attributes apply (the op's own, or a generic op's type row).
    pub semantic: &'t OpDef,
    /// What is passed and returned (no borrow of the table: checked nodes keep it).
    pub call: SubgraphCall,
}

/// The part of a [`SubgraphRule`] that maps an op's values to a subgraph's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubgraphCall {
    /// Leading data inputs that stay with the op.
    pub kept_inputs: usize,
    /// The op is of the While family (its `cond` subgraph returns one predicate).
    pub loop_family: bool,
}

/// What a subgraph must return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectedResults<T> {
    /// Exactly these types (the op's data results).
    Exactly(Vec<T>),
    /// One value: a loop condition's predicate.
    OnePredicate,
}

impl<'t> SubgraphRule<'t> {
    /// The rule of an op whose table row is `row` and whose semantic row (see
    /// [`super::semantics::semantic_def`]) is `semantic`.
    pub fn new(row: &OpDef, semantic: &'t OpDef) -> Self {
        let kept_inputs = if row.is_generic() {
            0
        } else {
            row.inputs
                .iter()
                .take_while(|g| g.arity == Arity::Single)
                .count()
        };
        SubgraphRule {
            semantic,
            call: SubgraphCall {
                kept_inputs,
                loop_family: semantic.has_trait(Trait::WhileFamily),
            },
        }
    }

    /// Whether attribute `attr` names subgraphs (a symbol or a list of them).
    pub fn names_subgraphs(&self, attr: &str) -> bool {
        self.semantic.subgraph_attr_names().any(|a| a == attr)
    }

    /// See [`SubgraphCall::signature`].
    pub fn signature<T: Clone>(
        &self,
        attr: &str,
        operands: &[T],
        results: &[T],
    ) -> (Vec<T>, ExpectedResults<T>) {
        self.call.signature(attr, operands, results)
    }
}

impl SubgraphCall {
    /// Whether the subgraph named by `attr` is a loop condition.
    pub fn is_loop_condition(&self, attr: &str) -> bool {
        self.loop_family && attr == "cond"
    }

    /// The argument types a subgraph named by `attr` must take, given the op's data
    /// operand types (in order), and what it must return, given the op's data result types.
    pub fn signature<T: Clone>(
        &self,
        attr: &str,
        operands: &[T],
        results: &[T],
    ) -> (Vec<T>, ExpectedResults<T>) {
        let skip = self.kept_inputs.min(operands.len());
        let returns = if self.is_loop_condition(attr) {
            ExpectedResults::OnePredicate
        } else {
            ExpectedResults::Exactly(results.to_vec())
        };
        (operands[skip..].to_vec(), returns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::op_table;

    fn rule(op_name: &str, ge_type: &str) -> SubgraphRule<'static> {
        let t = op_table();
        let row = t.by_op_name(op_name).unwrap();
        let semantic = t.semantics_for_ge_type(ge_type).unwrap_or(row);
        SubgraphRule::new(row, semantic)
    }

    #[test]
    fn table_if_keeps_its_predicate() {
        let r = rule("ascend.if", "If");
        assert_eq!(r.call.kept_inputs, 1);
        assert!(r.names_subgraphs("then_branch") && r.names_subgraphs("else_branch"));
        let (args, ret) = r.signature("then_branch", &[1, 2, 3], &[4]);
        assert_eq!(args, vec![2, 3]);
        assert_eq!(ret, ExpectedResults::Exactly(vec![4]));
    }

    #[test]
    fn generic_alias_passes_every_input_to_its_rows_subgraphs() {
        let r = rule("ascend.op", "StatelessIf");
        assert_eq!(r.call.kept_inputs, 0);
        assert!(r.names_subgraphs("then_branch"));
        assert!(!r.names_subgraphs("f"));
        assert_eq!(r.signature("then_branch", &[1, 2], &[3]).0, vec![1, 2]);
    }

    #[test]
    fn unknown_generic_type_names_no_subgraph() {
        let r = rule("ascend.op", "MyCustomOp");
        assert!(!r.names_subgraphs("then_branch"));
    }

    #[test]
    fn while_condition_returns_one_predicate() {
        let r = rule("ascend.while", "While");
        assert_eq!(
            r.signature("cond", &[1, 2], &[1, 2]).1,
            ExpectedResults::OnePredicate
        );
        assert_eq!(
            r.signature("body", &[1, 2], &[1, 2]).1,
            ExpectedResults::Exactly(vec![1, 2])
        );
        let g = rule("ascend.op", "StatelessWhile");
        assert_eq!(
            g.signature("cond", &[1], &[1]).1,
            ExpectedResults::OnePredicate
        );
    }
}
