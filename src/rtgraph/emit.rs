//! The execute graph as `ascend_rt` MLIR text (generic form, one `func.func` per graph);
//! [`super::read`] is its inverse.

use super::model::{Endpoint, Graph, Kind, Module, Node, NodeId};
use std::{collections::HashMap, fmt::Write};

const TENSOR: &str = "!ascend_rt.tensor";

pub fn emit_module(module: &Module) -> String {
    let mut out = String::from("module {\n");
    for graph in &module.graphs {
        emit_graph(&mut out, graph);
    }
    out.push_str("}\n");
    out
}

fn quote(text: &str) -> String {
    let mut s = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

fn emit_graph(out: &mut String, graph: &Graph) {
    let visibility = if graph.root { "" } else { "private " };
    let _ = writeln!(out, "  func.func {visibility}@{}() {{", graph.name);
    let names: HashMap<NodeId, String> = graph
        .nodes
        .iter()
        .map(|n| (n.id, format!("%n{}", n.id.0)))
        .collect();
    let value = |e: &Endpoint| -> String {
        let base = names
            .get(&e.node)
            .cloned()
            .unwrap_or_else(|| format!("%missing{}", e.node.0));
        let outputs = graph.node(e.node).map_or(1, |n| n.outputs);
        if outputs == 1 {
            base
        } else {
            format!("{base}#{}", e.output)
        }
    };
    for node in &graph.nodes {
        out.push_str("    ");
        match node.outputs {
            0 => {}
            1 => {
                let _ = write!(out, "{} = ", names[&node.id]);
            }
            n => {
                let _ = write!(out, "{}:{n} = ", names[&node.id]);
            }
        }
        let operands: Vec<String> = node.inputs.iter().map(value).collect();
        let _ = write!(
            out,
            "\"{}\"({}) {{{}}} : ({}) -> ",
            node.kind.op_name(),
            operands.join(", "),
            attributes(graph, node).join(", "),
            vec![TENSOR; node.inputs.len()].join(", ")
        );
        match node.outputs {
            1 => out.push_str(TENSOR),
            n => {
                let _ = write!(out, "({})", vec![TENSOR; n as usize].join(", "));
            }
        }
        out.push('\n');
    }
    out.push_str("    return\n  }\n");
}

fn attributes(graph: &Graph, node: &Node) -> Vec<String> {
    let mut attrs = Vec::new();
    let named = !matches!(
        node.kind,
        Kind::Guarder { .. } | Kind::InnerData { .. } | Kind::InnerNetOutput | Kind::NetOutput
    );
    if named {
        attrs.push(format!("name = {}", quote(&node.name)));
    }
    match &node.kind {
        Kind::Data { index } | Kind::InnerData { index, .. } => {
            attrs.push(format!("index = {index} : i64"))
        }
        Kind::Kernel { op_type } => attrs.push(format!("type = {}", quote(op_type))),
        Kind::Guarder {
            guarder_type,
            release_index,
        } => {
            attrs.push(format!("type = {}", quote(guarder_type)));
            attrs.push(format!("release_index = {release_index} : i64"));
        }
        Kind::Cond { op_type, branches } => {
            attrs.push(format!("type = {}", quote(op_type)));
            let list: Vec<String> = branches.iter().map(|b| format!("@{b}")).collect();
            attrs.push(format!("branches = [{}]", list.join(", ")));
        }
        _ => {}
    }
    if let Kind::InnerData {
        guarder_outside: Some(t),
        ..
    } = &node.kind
    {
        attrs.push(format!("guarder_outside = {}", quote(t)));
    }
    if let Some(p) = node.placement {
        attrs.push(format!("placement = \"{p}\""));
    }
    if !node.after.is_empty() {
        let names: Vec<String> = node
            .after
            .iter()
            .map(|id| quote(graph.node(*id).map_or("", |n| n.name.as_str())))
            .collect();
        attrs.push(format!("after = [{}]", names.join(", ")));
    }
    attrs
}
