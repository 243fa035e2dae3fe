//! `--rt-placement-copies`: the copies of `crate::rtgraph::analysis::placement` put in:
//! each right after its source's producer (after the producer's `SyncStream` for a copy to
//! the host, one SyncStream per producing node), with a `FreeMemory` guarder on the copy,
//! and every consumer that needed it reading the copy.

use super::rewrite_module;
use crate::{
    ir::external_pass::{as_op_ref, PassFailed, PassId, RustPass},
    pipeline::{OptionSpec, PassOptions, Statistic},
    rtgraph::{
        analysis::placement::{plan_copies, SYNC_STREAM},
        model::{Endpoint, Graph, Kind, Module, Node, NodeId},
    },
};
use melior::{ir::operation::OperationRefMut, pass::Pass};
use std::collections::HashMap;

pub const OPTIONS: &[OptionSpec] = &[];
static ID: PassId = PassId::new();

pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = PlacementCopies {
        flag: options.info().flag,
        copies: options.statistic(
            "num-placement-copies",
            "Number of placement copies inserted",
        ),
    };
    Ok(options.build_pass(pass, &ID))
}

/// The producer's part of a copy's name: its node name, or for an unnamed branch input
/// (`inner_data` is printed without one) `inner_data<index>`.
fn producer_name(node: &Node) -> String {
    match &node.kind {
        _ if !node.name.is_empty() => node.name.clone(),
        Kind::InnerData { index, .. } => format!("inner_data{index}"),
        _ => format!("node{}", node.id.0),
    }
}

/// Inserts every graph's copies; returns how many.
pub fn insert_placement_copies(module: &mut Module) -> u64 {
    module.graphs.iter_mut().map(insert_in_graph).sum()
}

fn insert_in_graph(graph: &mut Graph) -> u64 {
    let plan = plan_copies(graph);
    let mut syncs: HashMap<NodeId, NodeId> = HashMap::new();
    for copy in &plan {
        let producer = producer_name(graph.node(copy.src.node).expect("planned from the graph"));
        let mut after = copy.src.node;
        if copy.kind.needs_sync_stream() {
            after = *syncs.entry(copy.src.node).or_insert_with(|| {
                let id = graph.insert_after(
                    copy.src.node,
                    Kind::Kernel {
                        op_type: SYNC_STREAM.into(),
                    },
                    format!("SyncStream_{producer}"),
                    vec![copy.src],
                    0,
                );
                graph.node_mut(id).expect("inserted").placement = Some(copy.from);
                id
            });
        }
        let id = graph.insert_after(
            after,
            Kind::Kernel {
                op_type: copy.kind.kernel().into(),
            },
            format!(
                "{}_{producer}_{}_to_{}",
                copy.kind.kernel(),
                copy.src.output,
                copy.to
            ),
            vec![copy.src],
            1,
        );
        graph.node_mut(id).expect("inserted").placement = Some(copy.to);
        let out = Endpoint {
            node: id,
            output: 0,
        };
        graph.insert_after(
            id,
            Kind::Guarder {
                guarder_type: "FreeMemory".into(),
                release_index: 0,
            },
            "",
            vec![out],
            0,
        );
        for &(consumer, k) in &copy.consumers {
            graph
                .node_mut(consumer)
                .expect("planned from the graph")
                .inputs[k] = out;
        }
    }
    plan.len() as u64
}

#[derive(Clone)]
struct PlacementCopies {
    flag: &'static str,
    copies: Statistic,
}

impl RustPass for PlacementCopies {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        let copies = &self.copies;
        rewrite_module(module, self.flag, |m| {
            copies.add(insert_placement_copies(m));
            Ok(())
        })
    }
}
