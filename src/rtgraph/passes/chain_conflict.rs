//! `--rt-chain-conflict`: GE's `AddPointFromForConflicts` after
//! `CalcChainConflictSolvePolicy` (`crate::rtgraph::analysis::chain_conflict`): for every
//! If/Case with conflict indexes, one `PointFromInputs` per branch, right before the
//! branch's inner NetOutput, with one input/output per conflict index (in index order)
//! between the source and the NetOutput.

use super::rewrite_module;
use crate::{
    ir::external_pass::{as_op_ref, PassFailed, PassId, RustPass},
    pipeline::{OptionSpec, PassOptions, Statistic},
    rtgraph::{
        analysis::{chain_conflict::calc_chain_conflict_solve_policy, conds},
        model::{Endpoint, Kind, Module},
    },
};
use melior::{ir::operation::OperationRefMut, pass::Pass};

pub const OPTIONS: &[OptionSpec] = &[];
static ID: PassId = PassId::new();

pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = ChainConflict {
        flag: options.info().flag,
        inserted: options.statistic(
            "num-point-from-inputs",
            "Number of PointFromInputs inserted",
        ),
    };
    Ok(options.build_pass(pass, &ID))
}

/// Applies the policy of every cond; returns the PointFromInputs inserted.
pub fn solve_chain_conflicts(module: &mut Module) -> Result<u64, String> {
    let mut inserted = 0;
    for (graph, cond) in conds(module) {
        let policy = calc_chain_conflict_solve_policy(module, graph, cond)?;
        if policy.conflict_indexes.is_empty() {
            continue;
        }
        let name = module.graphs[graph]
            .node(cond)
            .map_or(String::new(), |n| n.name.clone());
        for (b, &(branch, out)) in policy.netoutputs.iter().enumerate() {
            let frame = &mut module.graphs[branch];
            let net = frame.node(out).expect("found by the policy").clone();
            let inputs: Vec<Endpoint> = policy
                .conflict_indexes
                .iter()
                .map(|&k| net.inputs[k as usize])
                .collect();
            let count = inputs.len() as u32;
            let pfi = frame.insert_before(
                out,
                Kind::PointFromInputs,
                format!("{name}_PointFromInputs_{b}"),
                inputs,
                count,
            );
            let net = frame.node_mut(out).expect("still there");
            for (j, &k) in policy.conflict_indexes.iter().enumerate() {
                net.inputs[k as usize] = Endpoint {
                    node: pfi,
                    output: j as u32,
                };
            }
            inserted += 1;
        }
    }
    Ok(inserted)
}

#[derive(Clone)]
struct ChainConflict {
    flag: &'static str,
    inserted: Statistic,
}

impl RustPass for ChainConflict {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        let inserted = &self.inserted;
        rewrite_module(module, self.flag, |m| {
            inserted.add(solve_chain_conflicts(m)?);
            Ok(())
        })
    }
}
