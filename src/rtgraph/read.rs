//! `ascend_rt` MLIR back into a [`Module`] (the inverse of [`super::emit`]); every problem
//! is an error at its op, so hand-written execute graphs get `file:line:col` diagnostics.

use super::model::{Endpoint, Graph, Kind, Module, NodeId, Placement};
use crate::ir::{ops, LocatedError};
use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, FlatSymbolRefAttribute, StringAttribute},
    operation::OperationLike,
    BlockLike, OperationRef, RegionLike,
};
use std::collections::HashMap;

/// Reads every `func.func` of the `builtin.module` op `module`.
pub fn read_module<'c>(module: OperationRef<'c, '_>) -> Result<Module, Vec<LocatedError<'c>>> {
    let mut errors = Vec::new();
    let mut graphs = Vec::new();
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return Err(vec![LocatedError::at(
            module,
            "read-rt: the module has no body",
        )]);
    };
    let mut next = body.first_operation();
    while let Some(func) = next {
        next = func.next_in_block();
        if func.name().as_string_ref().as_str() != Ok("func.func") {
            errors.push(LocatedError::at(
                func,
                "read-rt: an execute-graph module holds only func.func graphs",
            ));
            continue;
        }
        match read_graph(func) {
            Ok(graph) => graphs.push(graph),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(Module { graphs })
    } else {
        Err(errors)
    }
}

fn read_graph<'c>(func: OperationRef<'c, '_>) -> Result<Graph, Vec<LocatedError<'c>>> {
    let name = ops::str_attr(func, "sym_name").unwrap_or("").to_string();
    let root = ops::str_attr(func, "sym_visibility") != Some("private");
    let mut graph = Graph::new(name, root);
    let mut errors = Vec::new();
    let mut ids: HashMap<ops::OpKey, NodeId> = HashMap::new();
    // (op, node, the names its `after` lists)
    let mut after: Vec<(OperationRef<'c, '_>, NodeId, Vec<String>)> = Vec::new();
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Err(vec![LocatedError::at(
            func,
            "read-rt: a graph without a body",
        )]);
    };
    if block.argument_count() > 0 {
        errors.push(LocatedError::at(
            func,
            "read-rt: graphs take no arguments (inputs are ascend_rt.data / inner_data)",
        ));
    }
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let op_name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if op_name == "func.return" {
            continue;
        }
        let kind = match kind_of(op, &op_name) {
            Ok(kind) => kind,
            Err(message) => {
                errors.push(LocatedError::at(op, format!("read-rt: {message}")));
                continue;
            }
        };
        let mut inputs = Vec::new();
        for k in 0..op.operand_count() {
            let Ok(value) = op.operand(k) else { continue };
            match ops::producer(value) {
                ops::Producer::Op { op: from, result } => match ids.get(&ops::OpKey::of(from)) {
                    Some(&node) => inputs.push(Endpoint {
                        node,
                        output: result as u32,
                    }),
                    None => errors.push(LocatedError::at(
                        op,
                        format!("read-rt: operand {k} comes from an op that is not a node"),
                    )),
                },
                ops::Producer::Arg { .. } => errors.push(LocatedError::at(
                    op,
                    format!("read-rt: operand {k} is a block argument"),
                )),
            }
        }
        if kind.is_pass_through() && op.result_count() != inputs.len() {
            errors.push(LocatedError::at(
                op,
                format!(
                    "read-rt: {op_name} passes its inputs through: {} inputs but {} results",
                    inputs.len(),
                    op.result_count()
                ),
            ));
        }
        let placement = match ops::str_attr(op, "placement") {
            None => None,
            Some(text) => match Placement::parse(text) {
                Some(p) => Some(p),
                None => {
                    errors.push(LocatedError::at(
                        op,
                        format!("read-rt: placement `{text}` is not host, hbm or p2p"),
                    ));
                    None
                }
            },
        };
        let node_name = ops::str_attr(op, "name").unwrap_or("").to_string();
        let id = graph.push(kind, node_name, inputs, op.result_count() as u32);
        graph.node_mut(id).expect("just pushed").placement = placement;
        ids.insert(ops::OpKey::of(op), id);
        match string_list(op, "after") {
            Ok(names) if !names.is_empty() => after.push((op, id, names)),
            Ok(_) => {}
            Err(m) => errors.push(LocatedError::at(op, format!("read-rt: {m}"))),
        }
    }
    // Control edges name nodes of the same graph, resolved once every node is known.
    let mut by_name: HashMap<&str, Option<NodeId>> = HashMap::new();
    for n in &graph.nodes {
        if !n.name.is_empty() {
            by_name
                .entry(n.name.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(n.id));
        }
    }
    let mut resolved = Vec::new();
    for (op, id, names) in after {
        let mut list = Vec::new();
        for name in names {
            match by_name.get(name.as_str()) {
                Some(Some(p)) if *p != id => list.push(*p),
                Some(Some(_)) => errors.push(LocatedError::at(
                    op,
                    format!("read-rt: `after` names the node itself (`{name}`)"),
                )),
                Some(None) => errors.push(LocatedError::at(
                    op,
                    format!(
                        "read-rt: `after` names `{name}`, which two nodes of the graph are called"
                    ),
                )),
                None => errors.push(LocatedError::at(
                    op,
                    format!("read-rt: `after` names `{name}`, which is no node of the graph"),
                )),
            }
        }
        resolved.push((id, list));
    }
    for (id, list) in resolved {
        graph.node_mut(id).expect("read above").after = list;
    }
    if errors.is_empty() {
        Ok(graph)
    } else {
        Err(errors)
    }
}

fn int(op: OperationRef, name: &str) -> Result<i64, String> {
    ops::int_attr(op, name).ok_or_else(|| format!("missing integer attribute `{name}`"))
}

fn string(op: OperationRef, name: &str) -> Result<String, String> {
    ops::str_attr(op, name)
        .map(str::to_string)
        .ok_or_else(|| format!("missing string attribute `{name}`"))
}

fn kind_of(op: OperationRef, op_name: &str) -> Result<Kind, String> {
    Ok(match op_name {
        "ascend_rt.data" => Kind::Data {
            index: int(op, "index")?,
        },
        "ascend_rt.const" => Kind::Const,
        "ascend_rt.node" => Kind::Kernel {
            op_type: string(op, "type")?,
        },
        "ascend_rt.guarder" => Kind::Guarder {
            guarder_type: string(op, "type")?,
            release_index: int(op, "release_index")?,
        },
        "ascend_rt.cond" => Kind::Cond {
            op_type: string(op, "type")?,
            branches: symbols(op, "branches")?,
        },
        "ascend_rt.inner_data" => Kind::InnerData {
            index: int(op, "index")?,
            guarder_outside: ops::str_attr(op, "guarder_outside").map(str::to_string),
        },
        "ascend_rt.inner_netoutput" => Kind::InnerNetOutput,
        "ascend_rt.netoutput" => Kind::NetOutput,
        "ascend_rt.point_from_inputs" => Kind::PointFromInputs,
        "ascend_rt.identity_addr" => Kind::IdentityAddr,
        other => return Err(format!("`{other}` is not an ascend_rt op")),
    })
}

/// The optional string-array attribute `name` (empty when absent).
fn string_list(op: OperationRef, name: &str) -> Result<Vec<String>, String> {
    let Ok(attr) = op.attribute(name) else {
        return Ok(Vec::new());
    };
    let bad = || format!("`{name}` must be a list of node names (\"a\", ...)");
    if !attr.is_array() {
        return Err(bad());
    }
    let list = ArrayAttribute::try_from(attr).map_err(|_| bad())?;
    (0..list.len())
        .map(|i| {
            let e = list.element(i).map_err(|_| bad())?;
            if !e.is_string() {
                return Err(bad());
            }
            StringAttribute::try_from(e)
                .ok()
                .and_then(ops::string_value)
                .map(str::to_string)
                .ok_or_else(bad)
        })
        .collect()
}

fn symbols(op: OperationRef, name: &str) -> Result<Vec<String>, String> {
    let bad = || format!("`{name}` must be a list of symbols (@branch, ...)");
    let attr = op.attribute(name).map_err(|_| bad())?;
    if !attr.is_array() {
        return Err(bad());
    }
    let list = ArrayAttribute::try_from(attr).map_err(|_| bad())?;
    (0..list.len())
        .map(|i| {
            let e = list.element(i).map_err(|_| bad())?;
            if !e.is_flat_symbol_ref() {
                return Err(bad());
            }
            FlatSymbolRefAttribute::try_from(e)
                .ok()
                .and_then(ops::symbol_value)
                .map(str::to_string)
                .ok_or_else(bad)
        })
        .collect()
}
