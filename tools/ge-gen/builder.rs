//! The graph builder the families drive: assigns node ids, checks the structural invariants
//! of the IR conventions as nodes stream past, and forwards everything to a [`Sink`].

use std::io;
use std::rc::Rc;

use crate::ops::{OpType, DATA};
use crate::sink::{Attr, OpRecord, Sink, Val};
use crate::types::{ctrl, Ty};

/// An emitted node: enough to reference any of its results later.
pub struct Node {
    pub id: u32,
    pub name: Rc<str>,
    pub outs: Vec<Ty>,
}

impl Node {
    /// Data result `k`.
    pub fn out(&self, k: usize) -> Val {
        Val {
            id: self.id,
            idx: k as u32,
            ty: self.outs[k],
            name: self.name.clone(),
        }
    }

    /// The control result (always last).
    pub fn ctrl(&self) -> Val {
        Val {
            id: self.id,
            idx: self.outs.len() as u32,
            ty: ctrl(),
            name: self.name.clone(),
        }
    }
}

struct GraphState {
    name: String,
    args: Vec<Ty>,
    results: Vec<Ty>,
    data_seen: Vec<bool>,
    first_id: u32,
}

pub struct Builder<S: Sink> {
    sink: S,
    next_id: u32,
    ops: u64,
    graph: Option<GraphState>,
}

/// Generator bugs surface as errors rather than panics, carrying the graph and node name.
fn bug(msg: String) -> io::Error {
    io::Error::other(format!("ge-gen internal error: {msg}"))
}

impl<S: Sink> Builder<S> {
    pub fn new(sink: S) -> Self {
        Builder {
            sink,
            next_id: 0,
            ops: 0,
            graph: None,
        }
    }

    /// Flushes the sink; returns the number of ascend ops emitted (all graphs).
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(g) = &self.graph {
            return Err(bug(format!("graph {} not ended", g.name)));
        }
        self.sink.finish()?;
        Ok(self.ops)
    }

    pub fn begin(
        &mut self,
        name: &str,
        private: bool,
        args: &[Ty],
        results: &[Ty],
    ) -> io::Result<()> {
        if let Some(g) = &self.graph {
            return Err(bug(format!("graph {name} begun inside graph {}", g.name)));
        }
        self.sink.begin_graph(name, private, args, results)?;
        self.graph = Some(GraphState {
            name: name.to_string(),
            args: args.to_vec(),
            results: results.to_vec(),
            data_seen: vec![false; args.len()],
            first_id: self.next_id,
        });
        Ok(())
    }

    fn graph(&mut self) -> io::Result<&mut GraphState> {
        self.graph
            .as_mut()
            .ok_or_else(|| bug("node outside a graph".into()))
    }

    /// The `Data` node for function argument `index`.
    pub fn data(&mut self, name: String, index: usize) -> io::Result<Val> {
        let g = self.graph()?;
        let ty = match g.data_seen.get_mut(index) {
            Some(seen @ false) => {
                *seen = true;
                g.args[index]
            }
            _ => {
                return Err(bug(format!(
                    "{}: bad or repeated Data index {index}",
                    g.name
                )))
            }
        };
        let attrs = vec![("index", Attr::Int(index as i64))];
        let node = self.emit(&DATA, name, Some(index), &[], &[], attrs, &[ty])?;
        Ok(node.out(0))
    }

    /// A general node. `attrs` may come in any order; they are sorted here.
    pub fn node(
        &mut self,
        op: &'static OpType,
        name: String,
        data: &[Val],
        ctrl_in: &[Val],
        attrs: Vec<(&'static str, Attr)>,
        outs: &[Ty],
    ) -> io::Result<Node> {
        self.emit(op, name, None, data, ctrl_in, attrs, outs)
    }

    /// A node with one data result and no control inputs, returning that result.
    pub fn op(
        &mut self,
        op: &'static OpType,
        name: String,
        data: &[Val],
        attrs: Vec<(&'static str, Attr)>,
        out: Ty,
    ) -> io::Result<Val> {
        Ok(self.emit(op, name, None, data, &[], attrs, &[out])?.out(0))
    }

    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        op: &'static OpType,
        name: String,
        arg: Option<usize>,
        data: &[Val],
        ctrl_in: &[Val],
        mut attrs: Vec<(&'static str, Attr)>,
        outs: &[Ty],
    ) -> io::Result<Node> {
        let id = self.next_id;
        let g = self.graph()?;
        let in_graph = |v: &Val| v.id >= g.first_id && v.id < id;
        if let Some(v) = data
            .iter()
            .find(|v| !in_graph(v) || std::ptr::eq(v.ty, ctrl()))
        {
            return Err(bug(format!(
                "{name}: bad data operand {}#{}",
                v.name, v.idx
            )));
        }
        if let Some(v) = ctrl_in
            .iter()
            .find(|v| !in_graph(v) || !std::ptr::eq(v.ty, ctrl()))
        {
            return Err(bug(format!("{name}: bad control operand {}", v.name)));
        }
        if outs.is_empty() {
            return Err(bug(format!(
                "{name}: ops without data results are not generated"
            )));
        }
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        self.sink.op(&OpRecord {
            id,
            op,
            name: &name,
            arg,
            data,
            ctrl: ctrl_in,
            attrs: &attrs,
            outs,
        })?;
        self.next_id += 1;
        self.ops += 1;
        Ok(Node {
            id,
            name: name.into(),
            outs: outs.to_vec(),
        })
    }

    /// Ends the current graph, checking the IR conventions: every argument consumed by exactly
    /// one Data node and the returned types matching the declared signature.
    pub fn end(&mut self, returns: &[Val]) -> io::Result<()> {
        let g = self
            .graph
            .take()
            .ok_or_else(|| bug("end outside a graph".into()))?;
        if let Some(i) = g.data_seen.iter().position(|s| !s) {
            return Err(bug(format!("{}: argument {i} has no Data node", g.name)));
        }
        let tys: Vec<Ty> = returns.iter().map(|v| v.ty).collect();
        if tys != g.results || returns.iter().any(|v| v.id < g.first_id) {
            return Err(bug(format!(
                "{}: returned values do not match the signature",
                g.name
            )));
        }
        self.sink.end_graph(returns)
    }
}
