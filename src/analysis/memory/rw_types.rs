//! Read/write types of anchors and GE's decision matrix (ge-behaviour-notes B.2-B.7).
//!
//! Every input anchor gets an [`InputRw`], every output anchor an [`OutputRw`]; the pair of a
//! producer output and a consumer input indexes [`MATRIX`], which says whether an Identity
//! must isolate the consumer. Subgraph boundaries are typed once, innermost subgraph first
//! ([`mark_subgraphs`]), and the recorded types ([`RwTypes`]) answer the questions for nodes
//! that own subgraphs (If/Case/PartitionedCall); While-family nodes are ScopeWriteable inputs
//! and SoftRead outputs and their subgraphs are left to SubgraphPass.

use std::collections::HashSet;

use super::super::fast_hash::{FastMap, FastSet};
use std::fmt;

use super::model::{GraphId, InPort, MemError, MemGraph, NodeId, OutPort};

/// Input RW type, in GE's enum order (`InputRWType`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum InputRw {
    /// Only reads the input.
    ReadOnly = 0,
    /// Writes the input and the write is meant to be seen (ref input: Assign, ApplyMomentum).
    Writeable = 1,
    /// Writes the input but the write must stay local (HcomAllReduce, While).
    ScopeWriteable = 2,
    /// Contradictory facts (e.g. a subgraph input both written and scope-written).
    Invalid = 3,
}

/// Output RW type, in GE's enum order (`OutputRWType`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum OutputRw {
    /// Output of a constant.
    ReadOnlyConst = 0,
    /// Non-ref output with more than one consumer edge.
    ReadOnly = 1,
    /// Non-ref output with at most one consumer edge.
    SoftRead = 2,
    /// Ref output, variable, root Data.
    Writeable = 3,
    /// Unknown (missing record, unconnected subgraph input).
    Invalid = 4,
}

/// What the matrix says about one edge.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Conflict {
    DoNothing,
    /// One side is Invalid.
    WrongGraph,
    InsertIdentity,
}

impl fmt::Display for InputRw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputRw::ReadOnly => "read-only",
            InputRw::Writeable => "writable",
            InputRw::ScopeWriteable => "scope-writable",
            InputRw::Invalid => "invalid",
        })
    }
}

impl fmt::Display for OutputRw {
    // All five names (GE's log helper has only four, B.7 quirk).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutputRw::ReadOnlyConst => "const",
            OutputRw::ReadOnly => "read-only",
            OutputRw::SoftRead => "soft-read",
            OutputRw::Writeable => "writable",
            OutputRw::Invalid => "invalid",
        })
    }
}

/// The 4x3 matrix of B.7, indexed `[OutputRw as usize][InputRw as usize]`.
///
/// Only constants are protected from writers; only ScopeWriteable consumers are protected from
/// shared (multi-consumer or writable) outputs; a SoftRead output never needs a copy.
pub const MATRIX: [[Conflict; 3]; 4] = {
    use Conflict::{DoNothing as N, InsertIdentity as I};
    [
        [N, I, I], // ReadOnlyConst
        [N, N, I], // ReadOnly
        [N, N, N], // SoftRead
        [N, N, I], // Writeable
    ]
};

/// `GetConflictResultBetweenNode`: WRONG_GRAPH if either side is Invalid, else the matrix.
pub fn decide(out: OutputRw, inp: InputRw) -> Conflict {
    if out == OutputRw::Invalid || inp == InputRw::Invalid {
        return Conflict::WrongGraph;
    }
    MATRIX[out as usize][inp as usize]
}

/// `GetInputRwTypeInConflict` (B.6): ReadOnly is neutral, equal types stay, Writeable with
/// ScopeWriteable (or anything with Invalid) is Invalid. An empty set is ReadOnly.
pub fn merge(types: impl IntoIterator<Item = InputRw>) -> InputRw {
    let mut acc = InputRw::ReadOnly;
    for t in types {
        acc = match (acc, t) {
            (InputRw::Invalid, _) | (_, InputRw::Invalid) => return InputRw::Invalid,
            (InputRw::ReadOnly, x) | (x, InputRw::ReadOnly) => x,
            (a, b) if a == b => a,
            _ => InputRw::Invalid,
        };
    }
    acc
}

// ----- ref relations (B.2) ---------------------------------------------------------------

/// The output that input `i` of `n` references: the first output whose name equals the
/// input's name. Unnamed inputs are never ref.
pub fn ref_output_of_input(g: &MemGraph, n: NodeId, i: u32) -> Option<u32> {
    let node = g.node(n);
    let name = node.inputs.get(i as usize)?.name?;
    node.outputs
        .iter()
        .position(|o| o.name == Some(name))
        .map(|o| o as u32)
}

/// The input that output `o` of `n` references (inverse of [`ref_output_of_input`]).
pub fn ref_input_of_output(g: &MemGraph, n: NodeId, o: u32) -> Option<u32> {
    let node = g.node(n);
    let name = node.outputs.get(o as usize)?.name?;
    if node.outputs[..o as usize]
        .iter()
        .any(|x| x.name == Some(name))
    {
        return None; // GetOutputIndexByName finds the first output of that name
    }
    node.inputs
        .iter()
        .position(|x| x.name == Some(name))
        .map(|i| i as u32)
}

/// Whether any input of `n` is a ref input (the node gets `reference` = true).
pub fn is_ref_node(g: &MemGraph, n: NodeId) -> bool {
    (0..g.node(n).inputs.len() as u32).any(|i| ref_output_of_input(g, n, i).is_some())
}

fn is_ref_switch(g: &MemGraph, n: NodeId) -> bool {
    g.node(n).sem.ref_switch
}

// ----- single-node rules ------------------------------------------------------------------

/// `GetSingleNodeInputRWTypeByIndex` (B.3 a-e) for a node without subgraphs.
pub fn single_node_input_type(g: &MemGraph, n: NodeId, i: u32) -> InputRw {
    let node = g.node(n);
    if node.sem.input_mutable {
        InputRw::ScopeWriteable
    } else if node.sem.phony {
        InputRw::ReadOnly
    } else if ref_output_of_input(g, n, i).is_some() || (i == 0 && is_ref_switch(g, n)) {
        InputRw::Writeable
    } else {
        InputRw::ReadOnly
    }
}

/// `GetSingleNodeOutputRWTypeByIndex` (B.4 2 a-g). A subgraph Data takes the type of the
/// parent's producer (recursively, still by the single-node rule).
pub fn single_node_output_type(g: &MemGraph, n: NodeId, o: u32) -> OutputRw {
    let node = g.node(n);
    let s = node.sem;
    if s.var_like {
        return OutputRw::Writeable;
    }
    if s.data_like {
        let Some(idx) = node.parent_index else {
            // A root Data is writable: GE's temporary rule for torchair graphs.
            return OutputRw::Writeable;
        };
        return match subgraph_data_source(g, n, idx) {
            Some(src) => single_node_output_type(g, src.node, src.index),
            None => OutputRw::Invalid,
        };
    }
    if ref_input_of_output(g, n, o).is_some() || is_ref_switch(g, n) {
        return OutputRw::Writeable;
    }
    if s.const_like {
        return OutputRw::ReadOnlyConst;
    }
    if o as usize >= node.outputs.len() {
        return OutputRw::Invalid;
    }
    if node.consumer_count(o) > 1 {
        OutputRw::ReadOnly
    } else {
        OutputRw::SoftRead
    }
}

/// The producer feeding the parent node's input `idx` for subgraph input node `data`.
pub fn subgraph_data_source(g: &MemGraph, data: NodeId, idx: u32) -> Option<OutPort> {
    let parent = g.parent_of(data)?;
    g.src(parent, idx)
}

// ----- subgraph records (B.5) -------------------------------------------------------------

/// Types recorded at subgraph boundaries by [`mark_subgraphs`] (GE's `node_rwtype_map_`),
/// plus the full rules B.3 / B.4 that consult them.
#[derive(Clone, Debug, Default)]
pub struct RwTypes {
    data_input: FastMap<NodeId, InputRw>,
    net_output: FastMap<(NodeId, u32), OutputRw>,
    /// Data nodes of each marked subgraph by parent index (GE's `subgraph_inputs_`).
    datas: FastMap<(GraphId, u32), NodeId>,
    marked: FastSet<GraphId>,
}

/// A subgraph NetOutput input that must be fed through a new Identity (B.5): the producer's
/// output is Writeable and the parent cannot absorb the write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetOutputIsolation {
    pub producer: OutPort,
    pub net_output_input: InPort,
    pub parent: NodeId,
}

impl RwTypes {
    /// `GetInputRWTypeByIndex` (B.3).
    pub fn input_type(&self, g: &MemGraph, n: NodeId, i: u32) -> InputRw {
        let node = g.node(n);
        if node.sem.while_family {
            return InputRw::ScopeWriteable;
        }
        if node
            .inputs
            .get(i as usize)
            .is_some_and(|x| x.special_input_size > 0)
        {
            return InputRw::ScopeWriteable;
        }
        if node.subgraphs.is_empty() {
            return single_node_input_type(g, n, i);
        }
        let mut types = Vec::new();
        for &sg in &node.subgraphs {
            if !self.marked.contains(&sg) {
                // Not typed (yet): any Data for this index has no record.
                let unmarked = g
                    .graph(sg)
                    .order
                    .iter()
                    .any(|&d| g.node(d).sem.data && g.node(d).parent_index == Some(i));
                if unmarked {
                    return InputRw::Invalid;
                }
                continue;
            }
            if let Some(d) = self.datas.get(&(sg, i)) {
                match self.data_input.get(d) {
                    Some(&t) => types.push(t),
                    None => return InputRw::Invalid,
                }
            }
        }
        merge(types)
    }

    /// `GetOutputRWTypeByIndex` (B.4).
    pub fn output_type(&self, g: &MemGraph, n: NodeId, o: u32) -> OutputRw {
        let node = g.node(n);
        if node.sem.while_family {
            return OutputRw::SoftRead;
        }
        if node.subgraphs.is_empty() {
            return single_node_output_type(g, n, o);
        }
        let outs: Vec<NodeId> = node
            .subgraphs
            .iter()
            .filter_map(|&sg| g.graph(sg).net_output)
            .collect();
        let mut t = OutputRw::SoftRead;
        if let [only] = outs[..] {
            match self.net_output.get(&(only, o)) {
                Some(&r) => t = r,
                None => return OutputRw::Invalid,
            }
        }
        if t == OutputRw::Writeable {
            return t;
        }
        if o as usize >= node.outputs.len() {
            return OutputRw::Invalid;
        }
        if node.consumer_count(o) > 1 {
            OutputRw::ReadOnly
        } else {
            t
        }
    }

    /// The recorded input type of a subgraph Data (for diagnostics).
    pub fn recorded_data_type(&self, d: NodeId) -> Option<InputRw> {
        self.data_input.get(&d).copied()
    }

    /// `JudgeOptimizableByParentNode(parent, p)` (B.5): true when a writable subgraph output
    /// may flow out of `parent`'s output `p` without a copy.
    pub fn judge_optimizable_by_parent(&self, g: &MemGraph, parent: NodeId, p: u32) -> bool {
        let pn = g.node(parent);
        if pn.sem.partitioned_call || p as usize >= pn.outputs.len() {
            return true;
        }
        if pn.subgraphs.len() > 1 {
            // A branch whose output p is a shared (ReadOnly) tensor conflicts with a branch
            // whose output p is writable.
            for &sg in &pn.subgraphs {
                let Some(src) = g.graph(sg).net_output.and_then(|no| g.src(no, p)) else {
                    break; // GE's check fails and is ignored: no conflict found
                };
                if self.output_type(g, src.node, src.index) == OutputRw::ReadOnly {
                    return false;
                }
            }
        }
        for c in g.consumers(parent, p) {
            if !g.node(c.node).subgraphs.is_empty() {
                return false;
            }
            if single_node_input_type(g, c.node, c.index) != InputRw::ReadOnly {
                return false;
            }
        }
        true
    }
}

/// `MarkRWTypeForAllSubgraph` (B.5), innermost subgraph first, skipping While subgraphs.
/// Pure: returns the records and the NetOutput inputs that need an Identity (the caller
/// inserts them; inserting one does not change any other record).
pub fn mark_subgraphs(g: &MemGraph) -> Result<(RwTypes, Vec<NetOutputIsolation>), MemError> {
    let mut rw = RwTypes::default();
    let mut isolations = Vec::new();
    let mut seen_names = HashSet::new();
    for sg in g.all_subgraphs().into_iter().rev() {
        let Some(parent) = g.graph(sg).parent else {
            continue;
        };
        if g.node(parent).sem.while_family {
            continue;
        }
        mark_subgraph(g, sg, parent, &mut rw, &mut isolations, &mut seen_names)?;
    }
    Ok((rw, isolations))
}

fn mark_subgraph<'g>(
    g: &'g MemGraph,
    sg: GraphId,
    parent: NodeId,
    rw: &mut RwTypes,
    isolations: &mut Vec<NetOutputIsolation>,
    seen_names: &mut HashSet<&'g str>,
) -> Result<(), MemError> {
    let name = g.graph(sg).name.as_str();
    if !seen_names.insert(name) {
        return Err(MemError::at(
            g,
            parent,
            format!("subgraph name '{name}' is not unique"),
        ));
    }
    rw.marked.insert(sg);
    let mut indices: FastMap<u32, NodeId> = FastMap::default();
    for &n in &g.graph(sg).order {
        let node = g.node(n);
        if node.sem.data {
            let t = merge(
                g.consumers(n, 0)
                    .iter()
                    .map(|c| rw.input_type(g, c.node, c.index)),
            );
            rw.data_input.insert(n, t);
            let Some(idx) = node.parent_index else {
                return Err(MemError::at(
                    g,
                    n,
                    "subgraph Data has no _parent_node_index",
                ));
            };
            if let Some(&other) = indices.get(&idx) {
                return Err(MemError::at(
                    g,
                    n,
                    format!(
                        "_parent_node_index {idx} is also used by '{}'",
                        g.node(other).name
                    ),
                ));
            }
            indices.insert(idx, n);
            rw.datas.insert((sg, idx), n);
        }
        if node.sem.net_output {
            for (j, inp) in node.inputs.iter().enumerate() {
                let j = j as u32;
                let Some(p) = inp.parent_index else {
                    return Err(MemError::at(
                        g,
                        n,
                        format!("input {j} has no _parent_node_index"),
                    ));
                };
                let Some(src) = inp.src else {
                    return Err(MemError::at(g, n, format!("input {j} is not connected")));
                };
                let mut t = rw.output_type(g, src.node, src.index);
                if t == OutputRw::Writeable && !rw.judge_optimizable_by_parent(g, parent, p) {
                    isolations.push(NetOutputIsolation {
                        producer: src,
                        net_output_input: InPort { node: n, index: j },
                        parent,
                    });
                    t = OutputRw::SoftRead;
                }
                rw.net_output.insert((n, j), t);
            }
        }
    }
    Ok(())
}
