//! The order ops are emitted in, and cycle reports.

use super::CheckedGraph;
use crate::syntax::{ast, diagnostics::Diagnostic};
use std::{cmp::Reverse, collections::BinaryHeap};

/// Kahn's algorithm over data and control edges, picking the ready node that comes first in
/// the source, so a file already in dependency order keeps its order. A leftover node means
/// a cycle; the error lists one cycle's nodes in edge order.
pub(super) fn topological_order(
    g: &ast::Graph,
    graph: &CheckedGraph<'_>,
) -> Result<Vec<usize>, Diagnostic> {
    let n = graph.nodes.len();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pending = vec![0usize; n];
    for (i, node) in graph.nodes.iter().enumerate() {
        for p in node
            .data_in
            .iter()
            .map(|&(p, _)| p)
            .chain(node.ctrl_in.iter().copied())
        {
            users[p].push(i);
            pending[i] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| pending[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &u in &users[i] {
            pending[u] -= 1;
            if pending[u] == 0 {
                ready.push(Reverse(u));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Walk predecessors inside the leftover set until a node repeats: that loop is a cycle.
    let start = (0..n).find(|&i| pending[i] > 0).unwrap_or(0);
    let preds = |i: usize| -> Option<usize> {
        let node = &graph.nodes[i];
        node.data_in
            .iter()
            .map(|&(p, _)| p)
            .chain(node.ctrl_in.iter().copied())
            .find(|&p| pending[p] > 0)
    };
    let mut path = vec![start];
    let mut at = start;
    let mut cycle = loop {
        let Some(p) = preds(at) else { break vec![at] };
        if let Some(pos) = path.iter().position(|&x| x == p) {
            let mut cycle = path[pos..].to_vec();
            cycle.reverse();
            break cycle;
        }
        path.push(p);
        at = p;
    };
    // Start the report at the cycle's first node in the source.
    if let Some(first) = cycle
        .iter()
        .enumerate()
        .min_by_key(|&(_, &n)| n)
        .map(|(i, _)| i)
    {
        cycle.rotate_left(first);
    }
    let names: Vec<&str> = cycle
        .iter()
        .map(|&i| g.nodes[i].name.text.as_str())
        .collect();
    let mut shown = names.join(" -> ");
    shown.push_str(" -> ");
    shown.push_str(names[0]);
    let mut d = Diagnostic::new(
        format!("cycle in graph `{}`: {shown}", g.name.text),
        g.nodes[cycle[0]].name.span,
        "this node depends on itself",
    )
    .with_hint("a graph must be acyclic over data and control edges (`^n` counts too)");
    for &i in &cycle[1..] {
        d = d.with_secondary(g.nodes[i].name.span, "on the cycle");
    }
    Err(d)
}
