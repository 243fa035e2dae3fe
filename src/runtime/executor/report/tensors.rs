//! The tensor a side of a race touches, named from the task model: the simulator reports
//! the side's node and operand (`input 1`, `output 0`, a copy's `source` / `destination`,
//! a collective's pair j as `input j` / `output j`), and the model knows the kernel, copy
//! or HCCL task of that node, its operands and who else writes their bytes.
//!
//! Output `k` of node `n` is tensor `n:k` (an input the kernel writes in place is named as
//! that input);
//! an input is named by where it lives: a model input, a Variable, a Const, or the
//! kernel or copy outputs at exactly its workspace bytes (the plan reuses bytes, so there
//! may be more than one candidate: all are listed, producers first in stream order).

use crate::lowering::{
    lower::written_inputs,
    model::{Operand, Region, Task, TaskModel},
};

/// The name of the tensor at operand `operand` (`input j` / `output k`) of the kernel of
/// node `node`; `None` when the model has no such kernel or operand.
pub fn tensor_name(model: &TaskModel, node: &str, operand: &str) -> Option<String> {
    if matches!(operand, "source" | "destination") {
        return copy_tensor(model, node, operand == "source");
    }
    let (op_type, inputs, outputs) = kernel_operands(model, node)?;
    let (role, index) = operand.split_once(' ')?;
    let index: usize = index.parse().ok()?;
    match role {
        "output" => {
            let data = data_outputs(op_type, inputs, outputs);
            if index < data {
                // An output in a Variable's bytes (Assign's ref output) is that Variable.
                let out = outputs.get(index)?;
                Some(match (out.addr.region, input_name(model, out)) {
                    (Region::Variable, var) => format!("{node}:{index} = {var}"),
                    _ => format!("{node}:{index}"),
                })
            } else {
                // An input the kernel writes in place (`written_inputs`, appended after
                // the data outputs).
                let written = written_inputs(op_type).get(index - data)?;
                Some(input_name(model, inputs.get(*written)?))
            }
        }
        "input" => Some(input_name(model, inputs.get(index)?)),
        _ => None,
    }
}

/// A copy's source (the tensor it reads) or destination (`node:0`). One node may have
/// several copies (a While's input copies): their sources are all listed.
fn copy_tensor(model: &TaskModel, node: &str, source: bool) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: String| {
        if !names.contains(&name) {
            names.push(name);
        }
    };
    for task in model.streams.iter().flat_map(|s| &s.tasks) {
        match task {
            Task::MemcpyAsync { node: n, src, .. } if n == node => add(if source {
                input_name(model, src)
            } else {
                format!("{node}:0")
            }),
            // A Broadcast's copy of input j into output j, before the in-place call.
            Task::Hccl {
                node: n,
                inputs,
                outputs,
                ..
            } if n == node => {
                for (j, input) in inputs.iter().enumerate().take(outputs.len()) {
                    add(if source {
                        input_name(model, input)
                    } else {
                        format!("{node}:{j}")
                    });
                }
            }
            _ => {}
        }
    }
    (!names.is_empty()).then(|| names.join(" or "))
}

type KernelOperands<'m> = (&'m str, &'m [Operand], &'m [Operand]);

fn kernel_operands<'m>(model: &'m TaskModel, node: &str) -> Option<KernelOperands<'m>> {
    model
        .streams
        .iter()
        .flat_map(|s| &s.tasks)
        .find_map(|t| match t {
            Task::Kernel {
                op_type,
                node: n,
                inputs,
                outputs,
                ..
            } if n == node => Some((op_type.as_str(), inputs.as_slice(), outputs.as_slice())),
            // An HCCL task's pair j sends input j and receives output j; it writes no
            // input in place (an `_input_mutable` AllReduce's output has its own bytes).
            Task::Hccl {
                node: n,
                inputs,
                outputs,
                ..
            } if n == node => Some(("", inputs.as_slice(), outputs.as_slice())),
            _ => None,
        })
}

/// The kernel's own outputs: those before the inputs it writes in place, which the
/// lowering appends (`written_inputs`).
fn data_outputs(op_type: &str, inputs: &[Operand], outputs: &[Operand]) -> usize {
    let appended = written_inputs(op_type)
        .iter()
        .filter(|&&i| i < inputs.len())
        .count();
    outputs.len().saturating_sub(appended)
}

fn same_bytes(a: &Operand, b: &Operand) -> bool {
    a.addr == b.addr && a.size == b.size
}

/// The tensor an input reads, by where it lives.
fn input_name(model: &TaskModel, input: &Operand) -> String {
    let at = input.addr.offset;
    match input.addr.region {
        Region::Input(k) => model
            .inputs
            .iter()
            .find(|i| i.index == k)
            .map_or_else(|| format!("model input {k}"), |i| format!("{}:0", i.node)),
        Region::Variable => model.variables.iter().find(|v| v.offset == at).map_or_else(
            || format!("variable bytes +{at}"),
            |v| format!("{}:0", v.node),
        ),
        Region::Weight => model.weights.iter().find(|w| w.offset == at).map_or_else(
            || format!("weight bytes +{at}"),
            |w| format!("{}:0", w.node),
        ),
        Region::Workspace | Region::Output(_) => {
            let producers = producers(model, input);
            if producers.is_empty() {
                format!("workspace bytes +{at}")
            } else {
                producers.join(" or ")
            }
        }
    }
}

/// Every kernel, copy and collective output at exactly `input`'s bytes, as `node:k`.
fn producers(model: &TaskModel, input: &Operand) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for task in model.streams.iter().flat_map(|s| &s.tasks) {
        let found: Vec<String> = match task {
            Task::Kernel {
                op_type,
                node,
                inputs,
                outputs,
                ..
            } => outputs[..data_outputs(op_type, inputs, outputs)]
                .iter()
                .enumerate()
                .filter(|(_, o)| same_bytes(o, input))
                .map(|(k, _)| format!("{node}:{k}"))
                .collect(),
            Task::MemcpyAsync { node, dst, .. } if same_bytes(dst, input) => {
                vec![format!("{node}:0")]
            }
            Task::Hccl { node, outputs, .. } => outputs
                .iter()
                .enumerate()
                .filter(|(_, o)| same_bytes(o, input))
                .map(|(k, _)| format!("{node}:{k}"))
                .collect(),
            _ => Vec::new(),
        };
        for name in found {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::model::{
        Addr, Collective, DType, Input, Reduction, StreamTasks, TensorDesc,
    };

    fn ws(offset: u64) -> Operand {
        Operand {
            addr: Addr {
                region: Region::Workspace,
                offset,
            },
            size: 1024,
            desc: TensorDesc {
                dtype: DType::F32,
                dims: vec![256],
                format: 2,
            },
        }
    }

    /// `g = Relu(x)`; `ar = HcomAllReduce(g, x)` fused over two pairs; `u = Relu(ar:0)`.
    fn model() -> TaskModel {
        let mut x = ws(0);
        x.addr.region = Region::Input(0);
        let kernel = |node: &str, input: Operand, output: Operand| Task::Kernel {
            op_type: "Relu".to_owned(),
            node: node.to_owned(),
            attrs: Default::default(),
            inputs: vec![input],
            outputs: vec![output],
            placement: crate::lowering::model::Placement::Hbm,
        };
        TaskModel {
            name: "main".to_owned(),
            stream_num: 1,
            event_num: 0,
            notify_num: 0,
            label_num: 0,
            memory_size: 4096,
            weight_size: 0,
            var_size: 0,
            weights: vec![],
            variables: vec![],
            inputs: vec![Input {
                index: 0,
                node: "x".to_owned(),
                desc: x.desc.clone(),
            }],
            outputs: vec![],
            streams: vec![StreamTasks {
                id: 0,
                activated: false,
                tasks: vec![
                    kernel("g", x.clone(), ws(0)),
                    Task::Hccl {
                        node: "ar".to_owned(),
                        collective: Collective::AllReduce,
                        group: "hccl_world_group".to_owned(),
                        reduction: Reduction::Sum,
                        root_rank: 0,
                        inputs: vec![ws(0), x],
                        outputs: vec![ws(1024), ws(2048)],
                    },
                    kernel("u", ws(1024), ws(3072)),
                ],
            }],
        }
    }

    #[test]
    fn a_collectives_pairs_name_their_tensors_and_its_outputs_are_producers() {
        let m = model();
        assert_eq!(tensor_name(&m, "ar", "input 0").as_deref(), Some("g:0"));
        assert_eq!(tensor_name(&m, "ar", "input 1").as_deref(), Some("x:0"));
        assert_eq!(tensor_name(&m, "ar", "output 1").as_deref(), Some("ar:1"));
        assert_eq!(tensor_name(&m, "ar", "output 2"), None);
        // A reader of the collective's output names it.
        assert_eq!(tensor_name(&m, "u", "input 0").as_deref(), Some("ar:0"));
        // A Broadcast's copy of input j into output j.
        assert_eq!(
            tensor_name(&m, "ar", "source").as_deref(),
            Some("g:0 or x:0")
        );
        assert_eq!(
            tensor_name(&m, "ar", "destination").as_deref(),
            Some("ar:0 or ar:1")
        );
    }
}
