//! Unit tests of the mapping and shape inference on models built in Rust (prost types), so
//! they run without the Python `onnx` package; the lit tests in `test/Onnx` cover files.

use super::{
    ge::{dense_text, float_text, quote},
    model_to_ge,
    proto::{
        attribute_proto::AttributeType, tensor_shape_proto::dimension::Value as DimValue,
        tensor_shape_proto::Dimension, type_proto, AttributeProto, GraphProto, ModelProto,
        NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    },
    supported_ops,
    tensor::Tensor,
};
use ascend_kernels::DType;

fn vi(name: &str, elem: i32, dims: Option<&[Option<i64>]>) -> ValueInfoProto {
    let shape = dims.map(|d| TensorShapeProto {
        dim: d
            .iter()
            .map(|x| Dimension {
                value: Some(match x {
                    Some(v) => DimValue::DimValue(*v),
                    None => DimValue::DimParam("n".into()),
                }),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem,
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn f32_in(name: &str, dims: &[i64]) -> ValueInfoProto {
    let d: Vec<Option<i64>> = dims.iter().map(|&x| Some(x)).collect();
    vi(name, 1, Some(&d))
}

fn out(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: v.to_vec(),
        r#type: AttributeType::Ints as i32,
        ..Default::default()
    }
}

fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i: v,
        r#type: AttributeType::Int as i32,
        ..Default::default()
    }
}

fn node(
    op: &str,
    name: &str,
    ins: &[&str],
    outs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: ins.iter().map(|s| s.to_string()).collect(),
        output: outs.iter().map(|s| s.to_string()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn i64_init(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![v.len() as i64],
        data_type: 7,
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

fn f32_init(name: &str, dims: &[i64]) -> TensorProto {
    let n: i64 = dims.iter().product();
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: 1,
        raw_data: (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect(),
        ..Default::default()
    }
}

fn model(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: &[&str],
    inits: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            name: "g".into(),
            node: nodes,
            input: inputs,
            output: outputs.iter().map(|o| out(o)).collect(),
            initializer: inits,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ge(m: &ModelProto) -> String {
    model_to_ge(m, "m.onnx", None).unwrap_or_else(|e| panic!("{e}"))
}

/// The text also imports as `.ge` into a verified module.
fn ge_checked(m: &ModelProto) -> String {
    let text = ge(m);
    let context = crate::dialect::new_context();
    if let Err(d) = crate::syntax::import_ge(&context, &text, "m.ge") {
        panic!("{text}\n{d}");
    }
    text
}

#[test]
fn softmax_axes_follow_the_opset() {
    let m = |opset| {
        model(
            opset,
            vec![node("Softmax", "sm", &["x"], &["y"], vec![])],
            vec![f32_in("x", &[2, 3, 4])],
            &["y"],
            vec![],
        )
    };
    assert!(ge_checked(&m(11)).contains("\"SoftmaxV2\"(\"x\") {\"axes\" = [1, 2]}"));
    assert!(ge_checked(&m(13)).contains("\"SoftmaxV2\"(\"x\") {\"axes\" = [2]}"));
}

#[test]
fn conv_reorders_pads_and_infers_the_output() {
    let m = model(
        13,
        vec![node(
            "Conv",
            "conv1",
            &["x", "w"],
            &["y"],
            vec![ints("pads", &[1, 0, 1, 2]), ints("strides", &[1, 2])],
        )],
        vec![f32_in("x", &[1, 3, 8, 8])],
        &["y"],
        vec![f32_init("w", &[4, 3, 3, 3])],
    );
    let text = ge_checked(&m);
    // ONNX [h_begin, w_begin, h_end, w_end] = [1, 0, 1, 2] -> GE [top, bottom, left, right].
    assert!(text.contains("\"pads\" = [1, 1, 0, 2]"), "{text}");
    assert!(text.contains("\"strides\" = [1, 1, 1, 2]"), "{text}");
    // H: (8 + 2 - 3) / 1 + 1 = 8; W: (8 + 2 - 3) / 2 + 1 = 4.
    assert!(text.contains(": (f32[1, 4, 8, 4])"), "{text}");
}

#[test]
fn reduce_axes_come_from_the_attribute_or_the_input_by_opset() {
    let attr = model(
        11,
        vec![node(
            "ReduceSum",
            "rs",
            &["x"],
            &["y"],
            vec![ints("axes", &[0]), int("keepdims", 0)],
        )],
        vec![f32_in("x", &[2, 3])],
        &["y"],
        vec![],
    );
    let text = ge_checked(&attr);
    assert!(
        text.contains("ReduceSum(\"x\", \"rs/axes\")") && text.contains(": (f32[3])"),
        "{text}"
    );
    let input = model(
        13,
        vec![node("ReduceSum", "rs", &["x", "a"], &["y"], vec![])],
        vec![f32_in("x", &[2, 3])],
        &["y"],
        vec![i64_init("a", &[1])],
    );
    assert!(ge_checked(&input).contains(": (f32[2, 1])"));
    // No axes: everything is reduced (noop_with_empty_axes = 0).
    let all = model(
        13,
        vec![node(
            "ReduceSum",
            "rs",
            &["x"],
            &["y"],
            vec![int("keepdims", 0)],
        )],
        vec![f32_in("x", &[2, 3])],
        &["y"],
        vec![],
    );
    assert!(ge_checked(&all).contains(": (f32[])"));
}

#[test]
fn unknown_dims_stay_unknown() {
    let m = model(
        13,
        vec![node("MatMul", "mm", &["x", "w"], &["y"], vec![])],
        vec![vi("x", 1, Some(&[None, Some(4)]))],
        &["y"],
        vec![f32_init("w", &[4, 5])],
    );
    let text = ge_checked(&m);
    assert!(
        text.contains("Data() {\"index\" = 0} : (f32[?, 4])")
            && text.contains("MatMul(\"x\", \"w\") : (f32[?, 5])"),
        "{text}"
    );
}

#[test]
fn shape_arithmetic_folds_to_constants() {
    let m = model(
        13,
        vec![
            node("Shape", "shape", &["x"], &["s"], vec![]),
            node("Gather", "gather", &["s", "zero"], &["n"], vec![]),
            node("Unsqueeze", "unsq", &["n", "ax0"], &["n1"], vec![]),
            node(
                "Concat",
                "cat",
                &["n1", "minus1"],
                &["shp"],
                vec![int("axis", 0)],
            ),
            node("Reshape", "reshape", &["x", "shp"], &["y"], vec![]),
        ],
        vec![f32_in("x", &[2, 3, 4])],
        &["y"],
        vec![
            TensorProto {
                name: "zero".into(),
                data_type: 7,
                int64_data: vec![0],
                ..Default::default()
            },
            i64_init("ax0", &[0]),
            i64_init("minus1", &[-1]),
        ],
    );
    let text = ge_checked(&m);
    assert!(
        text.contains("Reshape(\"x\", \"cat\") : (f32[2, 12])"),
        "{text}"
    );
    assert!(
        !text.contains("\"Shape\"") && !text.contains("GatherV2"),
        "{text}"
    );
}

#[test]
fn errors_name_the_node_op_and_opset() {
    let m = model(
        13,
        vec![node("Hardmax", "hm", &["x"], &["y"], vec![])],
        vec![f32_in("x", &[2])],
        &["y"],
        vec![],
    );
    let e = model_to_ge(&m, "m.onnx", None).unwrap_err();
    assert!(
        e.starts_with("m.onnx: node 'hm' (Hardmax, opset 13): op type is not supported"),
        "{e}"
    );
    let m = model(
        13,
        vec![node("Conv", "conv1", &["x", "w"], &["y"], vec![])],
        vec![f32_in("x", &[1, 1, 8])],
        &["y"],
        vec![f32_init("w", &[1, 1, 3])],
    );
    let e = model_to_ge(&m, "m.onnx", None).unwrap_err();
    assert!(
        e.starts_with("m.onnx: node 'conv1' (Conv, opset 13): only 2-D convolutions"),
        "{e}"
    );
    let m = model(
        13,
        vec![node("Relu", "r", &["nope"], &["y"], vec![])],
        vec![f32_in("x", &[2])],
        &["y"],
        vec![],
    );
    assert!(model_to_ge(&m, "m.onnx", None)
        .unwrap_err()
        .contains("input 'nope' is not defined"));
    let m = model(
        13,
        vec![node("Relu", "r", &["x"], &["y"], vec![])],
        vec![vi("x", 14, Some(&[Some(2)]))],
        &["y"],
        vec![],
    );
    assert!(model_to_ge(&m, "m.onnx", None)
        .unwrap_err()
        .contains("unsupported element type COMPLEX64 (14)"));
}

#[test]
fn gemm_scales_and_adds_as_ge_expands_it() {
    let mut fc = node(
        "Gemm",
        "fc",
        &["a", "b", "c"],
        &["y"],
        vec![int("transB", 1)],
    );
    fc.attribute.push(AttributeProto {
        name: "alpha".into(),
        f: 0.5,
        r#type: AttributeType::Float as i32,
        ..Default::default()
    });
    let m = model(
        11,
        vec![fc],
        vec![f32_in("a", &[2, 4])],
        &["y"],
        vec![f32_init("b", &[3, 4]), f32_init("c", &[3])],
    );
    let text = ge_checked(&m);
    assert!(text.contains("\"MatMulV2\"(\"a\", \"b\") {\"transpose_x1\" = false, \"transpose_x2\" = true} : (f32[2, 3])"), "{text}");
    assert!(
        text.contains("Mul(\"fc/matmul\", \"fc/alpha\")")
            && text.contains("\"fc\" = Add(\"fc/mul_alpha\", \"c\") : (f32[2, 3])"),
        "{text}"
    );
}

#[test]
fn every_emitted_op_type_has_a_kernel() {
    // The GE types the converters emit, apart from the control-flow ops and Const / Data.
    let emitted = [
        "Abs",
        "Add",
        "LogicalAnd",
        "AvgPool",
        "Cast",
        "Ceil",
        "Maximum",
        "Minimum",
        "ConcatV2",
        "Fill",
        "Conv2D",
        "RealDiv",
        "Div",
        "Identity",
        "Equal",
        "Erf",
        "Exp",
        "Mul",
        "Flatten",
        "Floor",
        "GatherV2",
        "Gelu",
        "MatMulV2",
        "ReduceMean",
        "ReduceMax",
        "Greater",
        "GreaterEqual",
        "LayerNorm",
        "LeakyRelu",
        "Less",
        "LessEqual",
        "Log",
        "SoftmaxV2",
        "BatchMatMulV2",
        "MatMul",
        "MaxPool",
        "Neg",
        "LogicalNot",
        "LogicalOr",
        "PadV2",
        "Pow",
        "Reciprocal",
        "ReduceMin",
        "ReduceProd",
        "ReduceSum",
        "Relu",
        "Reshape",
        "Shape",
        "Sigmoid",
        "Sign",
        "Size",
        "StridedSlice",
        "Split",
        "SplitV",
        "Sqrt",
        "Squeeze",
        "Sub",
        "Tanh",
        "Tile",
        "Transpose",
        "SelectV2",
        "Rsqrt",
    ];
    for t in emitted {
        assert!(ascend_kernels::has_kernel(t), "{t} has no kernel");
    }
    assert!(supported_ops().iter().all(|r| r.kernel));
}

#[test]
fn ge_literals() {
    assert_eq!(float_text(1e-5), "1.0e-5");
    assert_eq!(float_text(0.5), "5.0e-1");
    assert_eq!(float_text(f64::NEG_INFINITY), "-inf");
    assert_eq!(quote("a\"b\\"), "\"a\\\"b\\\\\"");
    let t = Tensor::from_i64s(&[1, 2]);
    assert_eq!(
        dense_text(&t),
        "dense<\"0x01000000000000000200000000000000\"> : tensor<2xi64>"
    );
    let b = Tensor {
        dtype: DType::Bool,
        dims: vec![2],
        bytes: vec![1, 0],
    };
    assert_eq!(dense_text(&b), "dense<[true, false]> : tensor<2xi1>");
}

#[test]
fn axes_known_only_at_run_time_make_the_result_dynamic() {
    let m = model(
        18,
        vec![node("ReduceMean", "rm", &["x", "axes"], &["y"], vec![])],
        vec![f32_in("x", &[2, 3]), vi("axes", 7, Some(&[Some(1)]))],
        &["y"],
        vec![],
    );
    let text = ge_checked(&m);
    assert!(text.contains("\"rm\" = \"ReduceMean\"(\"x\", \"axes\") {\"keep_dims\" = true, \"noop_with_empty_axes\" = false} : (f32[?, ?])"), "{text}");
}

#[test]
fn layer_norm_inv_std_dev_is_computed_from_ge_variance() {
    let m = model(
        17,
        vec![node(
            "LayerNormalization",
            "ln",
            &["x", "g"],
            &["y", "mean", "inv"],
            vec![int("axis", 1)],
        )],
        vec![f32_in("x", &[2, 4])],
        &["y", "mean", "inv"],
        vec![f32_init("g", &[4])],
    );
    let text = ge_checked(&m);
    assert!(
        text.contains("LayerNorm(\"x\", \"g\", \"ln/zero_bias\")")
            && text.contains(": (f32[2, 4], f32[2, 1], f32[2, 1])"),
        "{text}"
    );
    assert!(
        text.contains("\"ln/inv_std_dev\" = \"Rsqrt\"(\"ln/var_eps\") : (f32[2, 1])")
            && text.contains("return \"ln\", \"ln\":1, \"ln/inv_std_dev\""),
        "{text}"
    );
}

#[test]
fn zero_size_tensors_are_a_located_error() {
    let m = model(
        13,
        vec![node("Relu", "r", &["x"], &["y"], vec![])],
        vec![f32_in("x", &[2, 0, 3])],
        &["y"],
        vec![],
    );
    let e = model_to_ge(&m, "m.onnx", None).unwrap_err();
    assert!(
        e.starts_with("m.onnx: node 'r' (Relu, opset 13): zero-size tensors (f32[2, 0, 3])"),
        "{e}"
    );
}

#[test]
fn an_empty_axes_input_reduces_everything_or_is_a_no_op() {
    let axes_in = vi("axes", 7, Some(&[Some(0)]));
    let reduce = |noop: i64| {
        model(
            13,
            vec![node(
                "ReduceSum",
                "r",
                &["x", "axes"],
                &["y"],
                vec![int("noop_with_empty_axes", noop), int("keepdims", 1)],
            )],
            vec![f32_in("x", &[3, 2]), axes_in.clone()],
            &["y"],
            vec![],
        )
    };
    let all = ge_checked(&reduce(0));
    assert!(
        all.contains("\"r\" = ReduceSum(\"x\", \"r/axes\")"),
        "{all}"
    );
    assert!(all.contains(": (f32[1, 1])"), "{all}");
    let noop = ge_checked(&reduce(1));
    assert!(
        noop.contains("\"r\" = Identity(\"x\") : (f32[3, 2])"),
        "{noop}"
    );
}

#[test]
fn pad_and_slice_take_attributes_before_opsets_11_and_10() {
    let m = model(
        6,
        vec![
            node(
                "Pad",
                "p",
                &["x"],
                &["y"],
                vec![ints("pads", &[0, 1, 0, 2])],
            ),
            node(
                "Slice",
                "s",
                &["y"],
                &["z"],
                vec![ints("starts", &[1]), ints("ends", &[3]), ints("axes", &[1])],
            ),
        ],
        vec![f32_in("x", &[2, 3])],
        &["z"],
        vec![],
    );
    let text = ge_checked(&m);
    assert!(
        text.contains("\"p\" = \"PadV2\"(") && text.contains(": (f32[2, 6])"),
        "{text}"
    );
    assert!(
        text.contains("\"s\" = \"StridedSlice\"(") && text.contains(": (f32[2, 2])"),
        "{text}"
    );
}

#[test]
fn elu_prelu_softplus_and_instance_norm_become_elementwise_ops() {
    let m = model(
        13,
        vec![
            node("Elu", "e", &["x"], &["a"], vec![]),
            node("PRelu", "p", &["a", "slope"], &["b"], vec![]),
            node("Softplus", "sp", &["b"], &["c"], vec![]),
            node(
                "InstanceNormalization",
                "n",
                &["c", "sc", "bi"],
                &["y"],
                vec![],
            ),
        ],
        vec![f32_in("x", &[1, 2, 2, 2])],
        &["y"],
        vec![
            f32_init("slope", &[2, 1, 1]),
            f32_init("sc", &[2]),
            f32_init("bi", &[2]),
        ],
    );
    let text = ge_checked(&m);
    // Table ops print bare, generic ones quoted: match the node and the type name.
    for (node, op) in [
        ("\"e\" = ", "SelectV2"),
        ("\"p\" = ", "SelectV2"),
        ("\"sp\" = ", "Log"),
        ("\"n\" = ", "Add"),
        ("\"n/mean\" = ", "ReduceMean"),
    ] {
        let line = text.lines().find(|l| l.trim_start().starts_with(node));
        assert!(line.is_some_and(|l| l.contains(op)), "{node}{op}\n{text}");
    }
}

#[test]
fn dropout_mask_in_inference_is_all_true() {
    let m = model(
        13,
        vec![node("Dropout", "d", &["x"], &["y", "mask"], vec![])],
        vec![f32_in("x", &[2, 3])],
        &["y", "mask"],
        vec![],
    );
    let text = ge_checked(&m);
    assert!(
        text.contains("\"d/mask\" = \"Fill\"(") && text.contains(": (bool[2, 3])"),
        "{text}"
    );
}

#[test]
fn a_node_name_given_twice_is_an_error_naming_both_nodes() {
    let m = model(
        13,
        vec![
            node("Relu", "r", &["x"], &["a"], vec![]),
            node("Sigmoid", "r", &["a"], &["y"], vec![]),
        ],
        vec![f32_in("x", &[2])],
        &["y"],
        vec![],
    );
    let e = model_to_ge(&m, "m.onnx", None).unwrap_err();
    assert!(
        e.contains("node #1 (Sigmoid) is named 'r' like node #0 (Relu)"),
        "{e}"
    );
    // Unnamed nodes never clash: they get generated names.
    let unnamed = model(
        13,
        vec![
            node("Relu", "", &["x"], &["a"], vec![]),
            node("Sigmoid", "", &["a"], &["y"], vec![]),
        ],
        vec![f32_in("x", &[2])],
        &["y"],
        vec![],
    );
    ge_checked(&unnamed);
}

#[test]
fn lrn_maps_size_to_depth_radius_and_divides_alpha() {
    let m = |size: i64| {
        let mut n = node("LRN", "norm1", &["x"], &["y"], vec![int("size", size)]);
        n.attribute.push(AttributeProto {
            name: "alpha".into(),
            f: 0.0005,
            r#type: AttributeType::Float as i32,
            ..Default::default()
        });
        model(
            13,
            vec![n],
            vec![f32_in("x", &[1, 8, 2, 2])],
            &["y"],
            vec![],
        )
    };
    let text = ge_checked(&m(5));
    let alpha = float_text(f64::from(0.0005f32 / 5.0));
    assert!(
        text.contains(&format!(
            "\"LRN\"(\"x\") {{\"depth_radius\" = 2, \"bias\" = 1.0e0, \"alpha\" = {alpha}, \
             \"beta\" = 7.5e-1, \"norm_region\" = \"ACROSS_CHANNELS\"}} : (f32[1, 8, 2, 2])"
        )),
        "{text}"
    );
    let e = model_to_ge(&m(4), "m.onnx", None).unwrap_err();
    assert!(
        e.starts_with("m.onnx: node 'norm1' (LRN, opset 13): size 4 is not supported"),
        "{e}"
    );
    let no_size = model(
        13,
        vec![node("LRN", "n", &["x"], &["y"], vec![])],
        vec![f32_in("x", &[1, 2])],
        &["y"],
        vec![],
    );
    let e = model_to_ge(&no_size, "m.onnx", None).unwrap_err();
    assert!(e.contains("attribute `size` is required"), "{e}");
}
