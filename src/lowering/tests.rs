//! Unit tests of the lowering: emit → read on a model with every task and attribute kind,
//! the verifier's rules on small models, and the analysis on small compiled modules
//! (addresses, the Reshape fallback copy, written inputs, control flow).

use super::{emit_model, lower_module, model::*, read_task_model, verify::Place, verify_model};
use crate::dialect::new_context;
use melior::ir::{operation::OperationLike, Module};

fn ws(offset: u64, dims: &[i64]) -> Operand {
    let desc = TensorDesc {
        dtype: DType::F32,
        dims: dims.to_vec(),
        format: 2,
    };
    Operand {
        addr: Addr {
            region: Region::Workspace,
            offset,
        },
        size: desc.bytes(),
        desc,
    }
}

fn scalar_i32(region: Region, offset: u64) -> Operand {
    Operand {
        addr: Addr { region, offset },
        size: 4,
        desc: TensorDesc {
            dtype: DType::I32,
            dims: vec![],
            format: 2,
        },
    }
}

/// A model using every task kind, region and attribute kind.
fn every_kind() -> TaskModel {
    let mut attrs = Attrs::default();
    for (name, value) in [
        ("a_bool", AttrValue::Bool(true)),
        ("b_int", AttrValue::Int(-7)),
        ("c_float", AttrValue::Float(1e-5)),
        ("d_nan", AttrValue::Float(f32::NAN)),
        ("e_str", AttrValue::String("q\"uote\\ é".into())),
        ("f_dtype", AttrValue::DataType(DType::F16)),
        ("g_ints", AttrValue::ListInt(vec![1, -2, 3])),
        ("h_no_ints", AttrValue::ListInt(vec![])),
        ("i_floats", AttrValue::ListFloat(vec![0.5, -3.25])),
        ("j_bools", AttrValue::ListBool(vec![true, false])),
        ("k_strs", AttrValue::ListString(vec!["x".into(), "".into()])),
        ("l_no_floats", AttrValue::ListFloat(vec![])),
    ] {
        attrs.0.push((name.to_string(), value));
    }
    let mut nd = ws(0, &[2, 2]);
    nd.desc.format = 0;
    let input = Operand {
        addr: Addr {
            region: Region::Input(0),
            offset: 0,
        },
        ..ws(0, &[4])
    };
    let weight = Operand {
        addr: Addr {
            region: Region::Weight,
            offset: 0,
        },
        ..ws(0, &[2])
    };
    let var = Operand {
        addr: Addr {
            region: Region::Variable,
            offset: 0,
        },
        ..ws(0, &[4])
    };
    TaskModel {
        name: "main".into(),
        stream_num: 2,
        event_num: 1,
        notify_num: 1,
        label_num: 2,
        memory_size: 1024,
        weight_size: 512,
        var_size: 512,
        weights: vec![Weight {
            node: "w".into(),
            offset: 0,
            desc: weight.desc.clone(),
            bytes: vec![0, 0, 128, 63, 0, 0, 0, 64],
        }],
        variables: vec![Variable {
            node: "v".into(),
            offset: 0,
            desc: var.desc.clone(),
            init: Some(vec![7; 16]),
        }],
        inputs: vec![Input {
            index: 0,
            node: "x".into(),
            desc: input.desc.clone(),
        }],
        outputs: vec![Output {
            index: 0,
            source: "k:0".into(),
            operand: ws(512, &[4]),
        }],
        streams: vec![
            StreamTasks {
                id: 0,
                activated: false,
                tasks: vec![
                    Task::Kernel {
                        op_type: "Add".into(),
                        node: "k".into(),
                        attrs,
                        inputs: vec![input.clone(), weight, var.clone(), nd],
                        outputs: vec![ws(512, &[4])],
                        placement: crate::lowering::model::Placement::Host,
                    },
                    Task::Hccl {
                        node: "ar".into(),
                        collective: Collective::ReduceScatter,
                        group: "g".into(),
                        reduction: Reduction::Max,
                        root_rank: 3,
                        inputs: vec![ws(0, &[4])],
                        outputs: vec![ws(64, &[2])],
                    },
                    Task::MemcpyAsync {
                        node: "c".into(),
                        src: input,
                        dst: ws(128, &[4]),
                    },
                    Task::Memset {
                        node: "z".into(),
                        dst: Addr {
                            region: Region::Workspace,
                            offset: 256,
                        },
                        size: 16,
                        value: 0,
                    },
                    Task::EventRecord {
                        node: "s".into(),
                        event: 0,
                    },
                    Task::NotifyRecord {
                        node: "sn".into(),
                        notify: 0,
                    },
                    Task::StreamActive {
                        node: "act".into(),
                        stream: 1,
                    },
                    Task::StreamSwitch {
                        node: "sw".into(),
                        value: scalar_i32(Region::Workspace, 768),
                        cond: 4,
                        target: scalar_i32(Region::Workspace, 772),
                        true_stream: 1,
                    },
                    Task::LabelSwitchByIndex {
                        node: "ls".into(),
                        index: scalar_i32(Region::Workspace, 768),
                        labels: vec![1, 0],
                    },
                    Task::LabelSet {
                        node: "l0".into(),
                        label: 0,
                    },
                    Task::LabelGoto {
                        node: "g".into(),
                        label: 1,
                    },
                    Task::LabelSet {
                        node: "l1".into(),
                        label: 1,
                    },
                    Task::ModelEndGraph,
                ],
            },
            StreamTasks {
                id: 1,
                activated: true,
                tasks: vec![
                    Task::EventWait {
                        node: "r".into(),
                        event: 0,
                    },
                    Task::EventReset {
                        node: "r".into(),
                        event: 0,
                    },
                    Task::NotifyWait {
                        node: "rn".into(),
                        notify: 0,
                    },
                ],
            },
        ],
    }
}

#[test]
fn emit_then_read_gives_the_same_model_for_every_kind() {
    let model = every_kind();
    assert!(
        verify_model(&model).is_empty(),
        "{:?}",
        verify_model(&model)
    );
    let context = new_context();
    let text = emit_model(&model);
    let module = Module::parse(&context, &text).expect("emitted IR parses");
    assert!(module.as_operation().verify());
    let read = read_task_model(&module).expect("reads back");
    // NaN != NaN: compare the NaN's bits, then the rest.
    let nan_bits = |m: &TaskModel| match &m.streams[0].tasks[0] {
        Task::Kernel { attrs, .. } => match attrs.get("d_nan") {
            Some(AttrValue::Float(f)) => f.to_bits(),
            _ => 0,
        },
        _ => 0,
    };
    assert_eq!(nan_bits(&read), nan_bits(&model));
    let strip = |mut m: TaskModel| {
        if let Task::Kernel { attrs, .. } = &mut m.streams[0].tasks[0] {
            attrs.0.retain(|(n, _)| n != "d_nan");
        }
        m
    };
    assert_eq!(strip(read), strip(model));
}

#[test]
fn the_verifier_finds_each_broken_rule() {
    let base = every_kind();
    let find = |m: &TaskModel, what: &str| verify_model(m).iter().any(|f| f.message.contains(what));

    let mut m = base.clone();
    m.streams[0]
        .tasks
        .retain(|t| !matches!(t, Task::EventRecord { .. }));
    assert!(find(&m, "event 0 is waited but never recorded"));

    let mut m = base.clone();
    m.streams[1].activated = false;
    assert!(find(&m, "bound as a HEAD stream"));

    let mut m = base.clone();
    m.memory_size = 100;
    assert!(find(&m, "lie outside the workspace"));

    let mut m = base.clone();
    m.label_num = 1;
    assert!(find(&m, "label 1 is out of range"));

    let mut m = base.clone();
    m.streams[1].tasks.push(Task::LabelGoto {
        node: "g2".into(),
        label: 0,
    });
    let f = verify_model(&m);
    assert!(f
        .iter()
        .any(|f| f.place == Place::Task(1, 3) && f.message.contains("set on stream 0")));

    let mut m = base.clone();
    m.weights[0].bytes.pop();
    assert!(find(&m, "weight `w` has 7 bytes"));
}

/// Parses `text`, lowers it, and checks the verifier accepts the result.
fn lower(text: &str) -> TaskModel {
    let context = new_context();
    let module = Module::parse(&context, text).expect("test module parses");
    let model = lower_module(&module).expect("lowers");
    assert!(
        verify_model(&model).is_empty(),
        "{:?}",
        verify_model(&model)
    );
    model
}

fn kernels(model: &TaskModel, stream: usize) -> Vec<(&str, &[Operand], &[Operand])> {
    model.streams[stream]
        .tasks
        .iter()
        .filter_map(|t| match t {
            Task::Kernel {
                node,
                inputs,
                outputs,
                ..
            } => Some((node.as_str(), inputs.as_slice(), outputs.as_slice())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_reshape_the_plan_placed_apart_gets_a_copy_and_one_at_minus_one_aliases() {
    // Hand-written plans: `r1`'s output at its own offset (the old plan), `r2`'s left out.
    let model = lower(
        r#"module {
  func.func @main(%arg0: tensor<4x4xf32>) -> (tensor<16xf32>, tensor<16xf32>) attributes {memory_size = 2048 : i64, stream_num = 1 : i64, event_num = 0 : i64} {
    %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x", output_offset = [-1], stream_id = 0 : i64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, !ascend.ctrl)
    %1:2 = "ascend.const"() {name = "shape", output_offset = [-1], stream_id = 0 : i64, value = dense<16> : tensor<1xi64>} : () -> (tensor<1xi64>, !ascend.ctrl)
    %2:2 = "ascend.relu"(%0#0) {name = "a", output_offset = [0], stream_id = 0 : i64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, !ascend.ctrl)
    %3:2 = "ascend.reshape"(%2#0, %1#0) {name = "r1", output_offset = [512], stream_id = 0 : i64} : (tensor<4x4xf32>, tensor<1xi64>) -> (tensor<16xf32>, !ascend.ctrl)
    %4:2 = "ascend.reshape"(%2#0, %1#0) {name = "r2", output_offset = [-1], stream_id = 0 : i64} : (tensor<4x4xf32>, tensor<1xi64>) -> (tensor<16xf32>, !ascend.ctrl)
    %5:2 = "ascend.relu"(%3#0) {name = "b", output_offset = [1024], stream_id = 0 : i64} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
    %6:2 = "ascend.relu"(%4#0) {name = "c", output_offset = [1536], stream_id = 0 : i64} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
    return %5#0, %6#0 : tensor<16xf32>, tensor<16xf32>
  }
}"#,
    );
    let copies: Vec<_> = model.streams[0]
        .tasks
        .iter()
        .filter_map(|t| match t {
            Task::MemcpyAsync { node, src, dst } => {
                Some((node.as_str(), src.addr.offset, dst.addr.offset))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        copies,
        vec![("r1", 0, 512)],
        "only the misplaced Reshape copies"
    );
    let k = kernels(&model, 0);
    assert_eq!(k[1].0, "b");
    assert_eq!(k[1].1[0].addr.offset, 512, "b reads the copy");
    assert_eq!(k[2].0, "c");
    assert_eq!(
        k[2].1[0].addr.offset, 0,
        "c reads a's bytes through the alias"
    );
    assert_eq!(k[2].1[0].desc.dims, vec![16], "with the Reshape's shape");
    assert_eq!(model.weights[0].bytes, 16i64.to_le_bytes().to_vec());
}

#[test]
fn apply_momentum_writes_accum_as_a_second_output() {
    let model = lower(
        r#"module {
  func.func @main() attributes {memory_size = 512 : i64, stream_num = 1 : i64, event_num = 0 : i64} {
    %0:2 = "ascend.variable"() {name = "w", output_offset = [-1], stream_id = 0 : i64} : () -> (tensor<4xf32>, !ascend.ctrl)
    %1:2 = "ascend.variable"() {name = "m", output_offset = [-1], stream_id = 0 : i64} : () -> (tensor<4xf32>, !ascend.ctrl)
    %2:2 = "ascend.const"() {name = "lr", output_offset = [-1], stream_id = 0 : i64, value = dense<0.5> : tensor<f32>} : () -> (tensor<f32>, !ascend.ctrl)
    %3:2 = "ascend.const"() {name = "g", output_offset = [-1], stream_id = 0 : i64, value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> (tensor<4xf32>, !ascend.ctrl)
    %4:2 = "ascend.apply_momentum"(%0#0, %1#0, %2#0, %3#0, %2#0) {name = "upd", output_offset = [-1], stream_id = 0 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, !ascend.ctrl)
    return
  }
}"#,
    );
    let k = kernels(&model, 0);
    let (_, inputs, outputs) = k[0];
    assert_eq!(outputs.len(), 2);
    assert_eq!(outputs[0].addr, inputs[0].addr, "var");
    assert_eq!(outputs[1].addr, inputs[1].addr, "accum");
    assert_eq!(outputs[1].addr.region, Region::Variable);
    assert_eq!(
        model.variables[1].offset, 512,
        "each Variable has its own aligned slot"
    );
    assert_eq!(
        model.weights[0].bytes,
        0.5f32.to_le_bytes().to_vec(),
        "splat"
    );
    assert_eq!(model.weight_size, 1024);
}
