//! Ops with subgraphs against the subgraphs' signatures.

use super::{index_span, show, show_list, CheckedGraph, Checker};
use crate::dialect::subgraph_rule::ExpectedResults;
use crate::syntax::{
    ast::{self, Input, OpTypeKind},
    diagnostics::Diagnostic,
};
use melior::ir::Type;

impl<'c> Checker<'c, '_> {
    /// Operand and result types of ops with subgraphs against the subgraphs' signatures.
    ///
    /// By [`crate::dialect::subgraph_rule`], the rule the `.mlir` verifier applies: a table
    /// op passes its data inputs after the leading single groups (If: all but `cond`; Case:
    /// all but `branch_index`), a generic op all of them, in order, as the subgraph's Data
    /// indices. A subgraph's outputs are the op's outputs, except a While-family `cond`
    /// subgraph, which returns one predicate.
    pub(super) fn check_subgraph_uses(
        &mut self,
        file: &ast::File,
        g: &ast::Graph,
        graph: &CheckedGraph<'c>,
        all: &[CheckedGraph<'c>],
    ) {
        for (i, node) in graph.nodes.iter().enumerate() {
            let Some(call) = node.subgraph_call else {
                continue;
            };
            if node.subgraphs.is_empty() {
                continue;
            }
            let n = &g.nodes[i];
            let data_inputs: Vec<&Input> = n
                .inputs
                .iter()
                .filter(|x| matches!(x, Input::Data { .. }))
                .collect();
            let operands: Vec<Type> = node
                .data_in
                .iter()
                .map(|&(p, k)| graph.nodes[p].results[k])
                .collect();
            let skip = call.kept_inputs.min(operands.len());
            let op = match &n.op_type.kind {
                OpTypeKind::Known(t) | OpTypeKind::Generic(t) => t.as_str(),
            };
            for (key, symbol) in &node.subgraphs {
                let Some(&si) = self.graph_index.get(&symbol.graph.text) else {
                    continue;
                };
                let (sub, sub_ast) = (&all[si], &file.graphs[si]);
                let (passed, expected) = call.signature(key, &operands, &node.results);
                let sg = &sub_ast.name.text;
                if passed.len() != sub.arg_types.len() {
                    let mut d = Diagnostic::new(
                        format!(
                            "`{}` ({op}) passes {} inputs to graph `{sg}`, which takes {}",
                            n.name.text,
                            passed.len(),
                            sub.arg_types.len()
                        ),
                        symbol.span,
                        format!("`{key}` is called with {} inputs", passed.len()),
                    )
                    .with_secondary(
                        sub_ast.name.span,
                        format!("takes {} inputs (its Data nodes)", sub.arg_types.len()),
                    );
                    if skip > 0 {
                        d = d.with_note(format!("the first {skip} data input(s) of {op} stay with the op; the rest go to the subgraph"));
                    }
                    self.diags.push(d);
                } else {
                    for (j, (have, want)) in passed.iter().zip(&sub.arg_types).enumerate() {
                        if have != want {
                            let at = data_inputs
                                .get(skip + j)
                                .map_or(n.op_type.span, |x| x.span());
                            self.diags.push(
                                Diagnostic::new(
                                    format!("type mismatch: input {} of `{}` is {} but graph `{sg}` takes {} as input {j}", skip + j, n.name.text, show(*have), show(*want)),
                                    at,
                                    format!("this is {}", show(*have)),
                                )
                                .with_secondary(index_span(&sub_ast.nodes[sub.arg_nodes[j]]), format!("Data {j} of `{sg}` is {}", show(*want))),
                            );
                        }
                    }
                }
                let ret_span = sub_ast.ret.as_ref().map_or(sub_ast.close, |r| r.span);
                if expected == ExpectedResults::OnePredicate {
                    if sub.result_types.len() != 1 {
                        self.diags.push(
                            Diagnostic::new(
                                format!(
                                    "`cond` graph `{sg}` of `{}` must return one value, returns {}",
                                    n.name.text,
                                    sub.result_types.len()
                                ),
                                symbol.span,
                                "the loop condition",
                            )
                            .with_secondary(ret_span, "returns here"),
                        );
                    }
                } else if expected != ExpectedResults::Exactly(sub.result_types.clone()) {
                    self.diags.push(
                        Diagnostic::new(
                            format!(
                                "type mismatch: `{}` ({op}) has results {} but graph `{sg}` returns {}",
                                n.name.text,
                                show_list(&node.results),
                                show_list(&sub.result_types)
                            ),
                            n.results_span,
                            format!("`{key}` = @{sg} must return these"),
                        )
                        .with_secondary(ret_span, format!("`{sg}` returns {}", show_list(&sub.result_types))),
                    );
                }
            }
        }
    }
}
