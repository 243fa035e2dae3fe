//! ONNX import: an ONNX model (`ModelProto`, decoded by prost from the ONNX project's own
//! schema) becomes GE graphs in the `ascend` dialect.
//!
//! The importer maps each node on (op type, opset range) to the GE ops GE's own ONNX
//! parser produces (`ops.rs`, spec notes `ge-import-hccl-labels-notes.md` §3), infers the
//! shapes of what it builds (`shape.rs`), and writes the result as `.ge` graphs (`ge.rs`)
//! that the `.ge` importer checks and builds: one emitter, one set of checks.
//! Initializers become Const (their bytes verbatim), graph inputs that are not initializers
//! Data in order, `If` If with its branches as subgraphs, `Loop` a While with a trip
//! counter (`control.rs`).

mod control;
mod cx;
pub mod dtype;
pub mod ge;
mod ops;
pub mod proto;
mod shape;
pub mod tensor;
pub mod tensor_io;

pub use ops::{list_onnx_ops, supported_ops, OpRule};
pub use tensor_io::{read_tensor_proto, write_tensor_proto};

use cx::Cx;
use ge::{GeGraph, TType, Val};
use melior::{ir::Module as MlirModule, Context};
use prost::Message;
use proto::{GraphProto, ModelProto, ValueInfoProto};
use std::{
    collections::{HashMap, HashSet},
    path::Path,
};

/// The graphs of the module being written: the root first, subgraphs after.
pub struct Module {
    graphs: Vec<GeGraph>,
    graph_names: HashSet<String>,
}

impl Module {
    /// A graph name no other graph has, from `base` (GE names: `/` and `.` allowed).
    fn graph_name(&mut self, base: &str) -> String {
        let clean: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "_./-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let clean = if clean.is_empty() {
            "graph".to_owned()
        } else {
            clean
        };
        let mut name = clean.clone();
        let mut k = 1;
        while !self.graph_names.insert(name.clone()) {
            name = format!("{clean}_{k}");
            k += 1;
        }
        name
    }
}

/// Reads and decodes an ONNX model file. Errors name the file.
pub fn load_model(path: &Path) -> Result<ModelProto, String> {
    let file = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{file}': {e}"))?;
    ModelProto::decode(bytes.as_slice())
        .map_err(|e| format!("{file}: not a valid ONNX model (protobuf decoding failed: {e})"))
}

/// The ONNX model at `path` as `.ge` text (the root graph is `main`).
pub fn onnx_file_to_ge(path: &Path) -> Result<String, String> {
    let model = load_model(path)?;
    model_to_ge(&model, &path.display().to_string(), path.parent())
}

/// Imports the ONNX model at `path` into a verified MLIR module.
pub fn import_onnx_file<'c>(context: &'c Context, path: &Path) -> Result<MlirModule<'c>, String> {
    let text = onnx_file_to_ge(path)?;
    let name = format!("{}.ge", path.display());
    crate::syntax::import_ge(context, &text, &name).map_err(|d| {
        format!(
            "{}: internal error: the imported graphs were rejected:\n{d}",
            path.display()
        )
    })
}

/// A model as `.ge` text. `file` names the model in errors; `model_dir` is where
/// external data files are found.
pub fn model_to_ge(
    model: &ModelProto,
    file: &str,
    model_dir: Option<&Path>,
) -> Result<String, String> {
    let opset = onnx_opset(model).map_err(|e| format!("{file}: {e}"))?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| format!("{file}: the model has no graph"))?;
    let mut module = Module {
        graphs: Vec::new(),
        graph_names: HashSet::new(),
    };
    let root = module.graph_name("main");
    let importer = Importer {
        file,
        opset,
        model_dir,
    };
    let g = importer.root_graph(graph, &root, &mut module)?;
    let mut text = g.text();
    for sub in &module.graphs {
        text.push('\n');
        text.push_str(&sub.text());
    }
    Ok(text)
}

/// The model's `ai.onnx` opset (`opset_import` with domain "" or "ai.onnx").
fn onnx_opset(model: &ModelProto) -> Result<i64, String> {
    model
        .opset_import
        .iter()
        .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version)
        .ok_or_else(|| "the model imports no ai.onnx opset".to_owned())
}

pub(crate) struct Importer<'f> {
    file: &'f str,
    opset: i64,
    model_dir: Option<&'f Path>,
}

/// The type a ValueInfo declares (`None` when it declares no tensor type).
fn declared_type(vi: &ValueInfoProto) -> Result<Option<TType>, String> {
    use proto::{tensor_shape_proto::dimension::Value as Dim, type_proto::Value};
    let Some(Value::TensorType(t)) = vi.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        return match vi.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            None => Ok(None),
            Some(_) => Err(format!(
                "value '{}': only tensor types are supported (not sequences, maps or optionals)",
                vi.name
            )),
        };
    };
    let dtype = dtype::from_onnx(t.elem_type).map_err(|e| format!("value '{}': {e}", vi.name))?;
    let dims = t.shape.as_ref().map(|s| {
        s.dim
            .iter()
            .map(|d| match d.value {
                Some(Dim::DimValue(v)) if v >= 0 => Some(v),
                _ => None,
            })
            .collect()
    });
    Ok(Some(TType::new(dtype, dims)))
}

impl<'f> Importer<'f> {
    fn at_graph(&self, g: &GraphProto, msg: impl std::fmt::Display) -> String {
        if g.name.is_empty() {
            format!("{}: {msg}", self.file)
        } else {
            format!("{}: graph '{}': {msg}", self.file, g.name)
        }
    }

    /// The root graph: initializers as Const, the other inputs as Data in order.
    fn root_graph(
        &self,
        g: &GraphProto,
        name: &str,
        module: &mut Module,
    ) -> Result<GeGraph, String> {
        let mut ge = GeGraph::new(name);
        let mut env: HashMap<String, Val> = HashMap::new();
        self.initializers(g, &mut ge, &mut env)?;
        for vi in &g.input {
            if env.contains_key(&vi.name) {
                continue; // an input with an initializer of its name is a Const (GE skips it)
            }
            let ty = declared_type(vi)
                .map_err(|e| self.at_graph(g, e))?
                .ok_or_else(|| self.at_graph(g, format!("input '{}' declares no type", vi.name)))?;
            let mut v = ge.data(&vi.name, ty);
            // An input without elements has one possible value: known at import time, so
            // the ops that read it (empty `axes` of a Reduce) fold it away.
            if let Some(dims) = v.ty.static_dims().filter(|d| d.contains(&0)) {
                v.konst = Some(std::rc::Rc::new(tensor::Tensor {
                    dtype: v.ty.dtype,
                    dims,
                    bytes: Vec::new(),
                }));
            }
            env.insert(vi.name.clone(), v);
        }
        self.body(g, &mut ge, &mut env, module)?;
        self.outputs(g, &mut ge, &env)?;
        Ok(ge)
    }

    fn initializers(
        &self,
        g: &GraphProto,
        ge: &mut GeGraph,
        env: &mut HashMap<String, Val>,
    ) -> Result<(), String> {
        for init in &g.initializer {
            let t = tensor::decode(init, self.model_dir)
                .map_err(|e| self.at_graph(g, format!("initializer '{}': {e}", init.name)))?;
            let v = ge.constant(&init.name, t);
            env.insert(init.name.clone(), v);
        }
        if !g.sparse_initializer.is_empty() {
            return Err(self.at_graph(g, "sparse initializers are not supported"));
        }
        Ok(())
    }

    /// Converts the nodes of `g` in order into `ge`.
    fn body(
        &self,
        g: &GraphProto,
        ge: &mut GeGraph,
        env: &mut HashMap<String, Val>,
        module: &mut Module,
    ) -> Result<(), String> {
        let mut hints: HashMap<&str, TType> = HashMap::new();
        for vi in g.value_info.iter().chain(&g.output) {
            if let Ok(Some(t)) = declared_type(vi) {
                hints.insert(vi.name.as_str(), t);
            }
        }
        // GE identifies nodes by name: a name given twice in one graph is an error naming
        // both nodes (unnamed nodes get generated, unique names).
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, node) in g.node.iter().enumerate() {
            if node.name.is_empty() {
                continue;
            }
            if let Some(j) = first.insert(node.name.as_str(), i) {
                return Err(self.at_graph(
                    g,
                    format!(
                        "node #{i} ({}) is named '{}' like node #{j} ({}): GE identifies nodes by name",
                        node.op_type, node.name, g.node[j].op_type
                    ),
                ));
            }
        }
        for node in &g.node {
            self.node(node, &hints, ge, env, module)?;
        }
        Ok(())
    }

    fn node(
        &self,
        node: &proto::NodeProto,
        hints: &HashMap<&str, TType>,
        ge: &mut GeGraph,
        env: &mut HashMap<String, Val>,
        module: &mut Module,
    ) -> Result<(), String> {
        let display = if node.name.is_empty() {
            node.output.first().cloned().unwrap_or_default()
        } else {
            node.name.clone()
        };
        let at = |msg: String| {
            format!(
                "{}: node '{display}' ({}, opset {}): {msg}",
                self.file, node.op_type, self.opset
            )
        };
        if !(node.domain.is_empty() || node.domain == "ai.onnx") {
            return Err(at(format!(
                "domain '{}' is not supported (only ai.onnx)",
                node.domain
            )));
        }
        let rule = ops::find_rule(&node.op_type, self.opset).map_err(at)?;
        let mut inputs = Vec::with_capacity(node.input.len());
        for name in &node.input {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            let v = env.get(name).cloned().ok_or_else(|| {
                at(format!("input '{name}' is not defined before this node (nodes must be in topological order)"))
            })?;
            inputs.push(Some(v));
        }
        let node_hints = node
            .output
            .iter()
            .map(|o| hints.get(o.as_str()).cloned())
            .collect();
        let outputs = {
            let mut cx = Cx {
                node,
                opset: self.opset,
                ge,
                module,
                inputs,
                hints: node_hints,
                name: display.clone(),
                model_dir: self.model_dir,
                env,
            };
            (rule.convert)(self, &mut cx).map_err(at)?
        };
        if let Some(message) = ge.zero_size.take() {
            return Err(at(message));
        }
        for (k, name) in node.output.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            match outputs.get(k) {
                Some(v) => {
                    env.insert(name.clone(), v.clone());
                }
                None => return Err(at(format!("output {k} ('{name}') is not supported"))),
            }
        }
        Ok(())
    }

    fn outputs(
        &self,
        g: &GraphProto,
        ge: &mut GeGraph,
        env: &HashMap<String, Val>,
    ) -> Result<Vec<TType>, String> {
        let mut types = Vec::new();
        for vi in &g.output {
            let v = env.get(&vi.name).ok_or_else(|| {
                self.at_graph(g, format!("output '{}' is produced by no node", vi.name))
            })?;
            if v.ty.dims.as_ref().is_some_and(|d| d.contains(&Some(0))) {
                return Err(self.at_graph(
                    g,
                    format!(
                        "output '{}' is a zero-size tensor ({}): zero-size tensors are not \
                         supported (the device allocates no memory for them)",
                        vi.name,
                        v.ty.ge()
                    ),
                ));
            }
            ge.output(v);
            types.push(v.ty.clone());
        }
        Ok(types)
    }
}

#[cfg(test)]
mod tests;
