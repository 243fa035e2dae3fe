//! `--rt-subgraph-guarders`: GE's `RemoveGuarders`, `AddGuardersToParentNode` and
//! `AddPlusCount` after `CalcSubgraphGuardersPolicy`
//! (`crate::rtgraph::analysis::guarders`): the in-branch guarders of outputs leave, the
//! parent's outputs get the guarders (right after the cond), and each branch with plus-refs
//! gets one `IdentityAddr` before its inner NetOutput, one input/output per plus-ref.

use super::rewrite_module;
use crate::{
    ir::external_pass::{as_op_ref, PassFailed, PassId, RustPass},
    pipeline::{OptionSpec, PassOptions, Statistic},
    rtgraph::{
        analysis::{conds, guarders::calc_subgraph_guarders_policy},
        model::{Endpoint, Kind, Module},
    },
};
use melior::{ir::operation::OperationRefMut, pass::Pass};

pub const OPTIONS: &[OptionSpec] = &[];
static ID: PassId = PassId::new();

pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = SubgraphGuarders {
        flag: options.info().flag,
        moved: options.statistic(
            "num-parent-guarders",
            "Number of guarders created on parents",
        ),
        plus_refs: options.statistic("num-plus-refs", "Number of IdentityAddr plus-refs"),
    };
    Ok(options.build_pass(pass, &ID))
}

/// Applies the policy of every cond; returns (parent guarders, plus-refs).
pub fn move_subgraph_guarders(module: &mut Module) -> Result<(u64, u64), String> {
    let (mut guarders, mut refs) = (0, 0);
    for (graph, cond) in conds(module) {
        let policy = calc_subgraph_guarders_policy(module, graph, cond)?;
        let name = module.graphs[graph]
            .node(cond)
            .map_or(String::new(), |n| n.name.clone());
        for (b, branch) in policy.branches.iter().enumerate() {
            let frame = &mut module.graphs[branch.graph];
            for &g in &branch.removed_guarders {
                frame.remove(g);
            }
            let (Some(out), false) = (branch.netoutput, branch.plus_refs.is_empty()) else {
                continue;
            };
            let count = branch.plus_refs.len() as u32;
            let ia = frame.insert_before(
                out,
                Kind::IdentityAddr,
                format!("{name}_IdentityAddr_{b}"),
                branch.plus_refs.iter().map(|r| r.src).collect(),
                count,
            );
            let net = frame.node_mut(out).expect("still there");
            for (j, r) in branch.plus_refs.iter().enumerate() {
                net.inputs[r.netoutput_input as usize] = Endpoint {
                    node: ia,
                    output: j as u32,
                };
            }
            refs += u64::from(count);
        }
        let parent = &mut module.graphs[graph];
        // in index order, each right after the cond (so insert in reverse)
        for (k, guarder_type) in policy.parent_guarders.iter().rev() {
            parent.insert_after(
                cond,
                Kind::Guarder {
                    guarder_type: guarder_type.clone(),
                    release_index: 0,
                },
                "",
                vec![Endpoint {
                    node: cond,
                    output: *k,
                }],
                0,
            );
            guarders += 1;
        }
    }
    Ok((guarders, refs))
}

#[derive(Clone)]
struct SubgraphGuarders {
    flag: &'static str,
    moved: Statistic,
    plus_refs: Statistic,
}

impl RustPass for SubgraphGuarders {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        let (moved, plus_refs) = (&self.moved, &self.plus_refs);
        rewrite_module(module, self.flag, |m| {
            let (g, r) = move_subgraph_guarders(m)?;
            moved.add(g);
            plus_refs.add(r);
            Ok(())
        })
    }
}
