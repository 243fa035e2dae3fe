//! The per-node conversion context: the node's inputs as [`Val`]s, its attributes, and
//! builders for the GE nodes that replace it.

use super::{
    ge::{GeAttr, GeGraph, TType, Val},
    proto::{AttributeProto, GraphProto, NodeProto},
    tensor::{self, Tensor},
    Module,
};
use std::path::Path;

/// What a converter works with. Errors are plain messages; the caller locates them at
/// the node (`model.onnx: node 'conv1' (Conv, opset 13): ...`).
pub struct Cx<'a> {
    pub node: &'a NodeProto,
    pub opset: i64,
    pub ge: &'a mut GeGraph,
    pub module: &'a mut Module,
    pub inputs: Vec<Option<Val>>,
    /// Types the model declares for the node's outputs (value_info, graph outputs).
    pub hints: Vec<Option<TType>>,
    /// The GE node name of the node's main op; helper nodes are `name/suffix`.
    pub name: String,
    pub model_dir: Option<&'a Path>,
    /// Values of the enclosing graph, for the outer-scope captures of subgraphs.
    pub env: &'a std::collections::HashMap<String, Val>,
}

pub type Res<T> = Result<T, String>;

impl<'a> Cx<'a> {
    pub fn n_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Input `i`, which the op requires.
    pub fn x(&self, i: usize) -> Res<Val> {
        self.opt(i)
            .ok_or_else(|| format!("input {i} is required but missing"))
    }

    /// Input `i` if present (an empty name is an absent optional input).
    pub fn opt(&self, i: usize) -> Option<Val> {
        self.inputs.get(i).cloned().flatten()
    }

    /// Input `i`'s value, which must be known at import time (a Const or folded).
    pub fn konst(&self, i: usize, what: &str) -> Res<Option<std::rc::Rc<Tensor>>> {
        match self.opt(i) {
            None => Ok(None),
            Some(v) => v.konst.clone().map(Some).ok_or_else(|| {
                format!("input {i} ({what}) must be a constant (an initializer or Constant)")
            }),
        }
    }

    /// Input `i` as integers known at import time.
    pub fn konst_ints(&self, i: usize, what: &str) -> Res<Option<Vec<i64>>> {
        match self.konst(i, what)? {
            None => Ok(None),
            Some(t) => t
                .to_i64s()
                .map(Some)
                .ok_or_else(|| format!("input {i} ({what}) must hold integers")),
        }
    }

    fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.node.attribute.iter().find(|a| a.name == name)
    }

    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attr(name).map_or(default, |a| a.i)
    }

    pub fn float(&self, name: &str, default: f64) -> f64 {
        self.attr(name).map_or(default, |a| a.f as f64)
    }

    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).map(|a| a.ints.clone())
    }

    pub fn floats(&self, name: &str) -> Option<Vec<f32>> {
        self.attr(name).map(|a| a.floats.clone())
    }

    pub fn string(&self, name: &str, default: &str) -> String {
        self.attr(name).map_or(default.to_owned(), |a| {
            String::from_utf8_lossy(&a.s).into_owned()
        })
    }

    pub fn tensor(&self, name: &str) -> Res<Option<Tensor>> {
        match self.attr(name).and_then(|a| a.t.as_ref()) {
            None => Ok(None),
            Some(t) => tensor::decode(t, self.model_dir)
                .map(Some)
                .map_err(|e| format!("attribute `{name}`: {e}")),
        }
    }

    pub fn graph(&self, name: &str) -> Res<&'a GraphProto> {
        self.attr(name)
            .and_then(|a| a.g.as_ref())
            .ok_or_else(|| format!("attribute `{name}` (a graph) is missing"))
    }

    /// The declared type of output `k` merged into the inferred one: a dim the inference
    /// left unknown takes the declared value; a declared rank fills an unknown rank.
    pub fn out_type(&self, k: usize, inferred: TType) -> TType {
        match self.hints.get(k).cloned().flatten() {
            None => inferred,
            Some(hint) => merge(inferred, &hint),
        }
    }

    /// The node's main GE op (named after the ONNX node), with the declared output types.
    pub fn emit(
        &mut self,
        op_type: &str,
        inputs: &[&Val],
        attrs: &[(&str, GeAttr)],
        inferred: Vec<TType>,
    ) -> Vec<Val> {
        let results: Vec<TType> = inferred
            .into_iter()
            .enumerate()
            .map(|(k, t)| self.out_type(k, t))
            .collect();
        let name = self.name.clone();
        self.ge.node(&name, op_type, inputs, attrs, &results)
    }

    pub fn emit1(
        &mut self,
        op_type: &str,
        inputs: &[&Val],
        attrs: &[(&str, GeAttr)],
        inferred: TType,
    ) -> Val {
        self.emit(op_type, inputs, attrs, vec![inferred])
            .pop()
            .expect("one result")
    }

    /// A helper op of the expansion (`name/suffix`), typed by inference only.
    pub fn helper(
        &mut self,
        suffix: &str,
        op_type: &str,
        inputs: &[&Val],
        attrs: &[(&str, GeAttr)],
        ty: TType,
    ) -> Val {
        let name = format!("{}/{suffix}", self.name);
        self.ge.node1(&name, op_type, inputs, attrs, ty)
    }

    /// A Const helper (`name/suffix`).
    pub fn cst(&mut self, suffix: &str, value: Tensor) -> Val {
        let name = format!("{}/{suffix}", self.name);
        self.ge.constant(&name, value)
    }

    /// The node's result as a Const (a value folded at import time).
    pub fn folded(&mut self, value: Tensor) -> Val {
        let name = self.name.clone();
        self.ge.constant(&name, value)
    }
}

/// `inferred` with its unknowns filled from `declared` (same dtype assumed; the inferred
/// dtype wins).
pub fn merge(inferred: TType, declared: &TType) -> TType {
    let dims = match (inferred.dims, &declared.dims) {
        (None, d) => d.clone(),
        (Some(a), Some(b)) if a.len() == b.len() => {
            Some(a.iter().zip(b).map(|(x, y)| x.or(*y)).collect())
        }
        (a, _) => a,
    };
    TType::new(inferred.dtype, dims)
}
