//! The mapping table: ONNX (op type, opset range) -> the GE ops GE's ONNX parser builds
//! (spec notes §3), restricted to what `tools/ascend-kernels` can run. Each rule's
//! converter reads the node's inputs and attributes, infers the output types and writes
//! the GE nodes.

use super::{
    control,
    cx::{Cx, Res},
    dtype,
    ge::{GeAttr, TType, Val},
    shape::{self, Dims},
    tensor::Tensor,
    Importer,
};
use ascend_kernels::DType;

pub(crate) type Convert = fn(&Importer, &mut Cx) -> Res<Vec<Val>>;

/// One mapping: ONNX `op` at opsets `since..=until` becomes `ge` (a description of the GE
/// ops built; `kernel`: every op built has a kernel in `ascend-kernels`).
pub struct OpRule {
    pub op: &'static str,
    pub since: i64,
    pub until: i64,
    pub ge: &'static str,
    pub kernel: bool,
    pub(crate) convert: Convert,
}

/// The oldest and newest opsets the rules are written for.
const LO: i64 = 6;
const HI: i64 = 25;

macro_rules! rule {
    ($op:literal, $since:expr, $until:expr, $ge:literal, $f:expr) => {
        OpRule {
            op: $op,
            since: $since,
            until: $until,
            ge: $ge,
            kernel: true,
            convert: $f,
        }
    };
}

static RULES: &[OpRule] = &[
    rule!("Abs", LO, HI, "Abs", unary),
    rule!("Add", LO, HI, "Add", binary),
    rule!("And", LO, HI, "LogicalAnd", binary),
    rule!(
        "AveragePool",
        LO,
        HI,
        "AvgPool (NCHW, SAME/VALID; explicit pads via PadV2)",
        pool
    ),
    rule!(
        "BatchNormalization",
        LO,
        HI,
        "Sub, Mul, Add, Sqrt, RealDiv + Reshape (inference)",
        batch_norm
    ),
    rule!("Cast", LO, HI, "Cast (dst_type)", cast),
    rule!("Ceil", LO, HI, "Ceil", unary),
    rule!("Clip", LO, HI, "Maximum, Minimum (+ Const bounds)", clip),
    rule!("Concat", LO, HI, "ConcatV2 (+ Const concat_dim)", concat),
    rule!("Constant", LO, HI, "Const", constant),
    rule!(
        "ConstantOfShape",
        9,
        HI,
        "Fill (+ Const value)",
        constant_of_shape
    ),
    rule!(
        "Conv",
        LO,
        HI,
        "Conv2D (NCHW; pads [top, bottom, left, right])",
        conv
    ),
    rule!("Div", LO, HI, "RealDiv (floats) / Div (ints)", binary),
    rule!("Dropout", LO, HI, "Identity (inference)", dropout),
    rule!(
        "Elu",
        LO,
        HI,
        "SelectV2 on Greater: x, alpha * (Exp - 1)",
        elu_like
    ),
    rule!("Equal", LO, HI, "Equal", binary),
    rule!("Erf", 9, HI, "Erf", unary),
    rule!("Exp", LO, HI, "Exp", unary),
    rule!("Expand", 8, HI, "Mul (+ Fill of ones)", expand),
    rule!("Flatten", LO, HI, "Flatten", flatten),
    rule!("Floor", LO, HI, "Floor", unary),
    rule!("Gather", LO, HI, "GatherV2 (+ Const axis)", gather),
    rule!("Gelu", 20, HI, "Gelu (tanh) / Mul, Erf, Add (exact)", gelu),
    rule!(
        "Gemm",
        LO,
        HI,
        "MatMulV2 (transpose_x1/x2), Mul (alpha, beta), Add",
        gemm
    ),
    rule!(
        "GlobalAveragePool",
        LO,
        HI,
        "ReduceMean (keep_dims)",
        global_pool
    ),
    rule!(
        "GlobalMaxPool",
        LO,
        HI,
        "ReduceMax (keep_dims)",
        global_pool
    ),
    rule!("Greater", LO, HI, "Greater", binary),
    rule!("GreaterOrEqual", 12, HI, "GreaterEqual", binary),
    rule!("Identity", LO, HI, "Identity", unary),
    rule!(
        "If",
        LO,
        HI,
        "If (branches as subgraphs, outer-scope values as inputs)",
        control::if_op
    ),
    rule!(
        "InstanceNormalization",
        LO,
        HI,
        "ReduceMean, Sub, Mul, Sqrt, RealDiv + Reshape (per sample and channel)",
        instance_norm
    ),
    rule!(
        "LayerNormalization",
        17,
        HI,
        "LayerNorm (+ Add, Rsqrt for InvStdDev)",
        layer_norm
    ),
    rule!(
        "LeakyRelu",
        LO,
        HI,
        "LeakyRelu (negative_slope)",
        leaky_relu
    ),
    rule!("Less", LO, HI, "Less", binary),
    rule!(
        "LRN",
        LO,
        HI,
        "LRN (depth_radius = (size - 1) / 2, alpha / size, ACROSS_CHANNELS)",
        lrn
    ),
    rule!("LessOrEqual", 12, HI, "LessEqual", binary),
    rule!("Log", LO, HI, "Log", unary),
    rule!("LogSoftmax", LO, HI, "SoftmaxV2 + Log", softmax),
    rule!(
        "Loop",
        LO,
        HI,
        "While (trip counter; cond and body subgraphs)",
        control::loop_op
    ),
    rule!(
        "MatMul",
        LO,
        HI,
        "BatchMatMulV2 (MatMul for rank 2)",
        matmul
    ),
    rule!("Max", LO, HI, "Maximum (chained)", variadic),
    rule!(
        "MaxPool",
        LO,
        HI,
        "MaxPool (NCHW, SAME/VALID; explicit pads via PadV2)",
        pool
    ),
    rule!("Mean", LO, HI, "Add (chained), RealDiv", variadic),
    rule!("Min", LO, HI, "Minimum (chained)", variadic),
    rule!("Mul", LO, HI, "Mul", binary),
    rule!("Neg", LO, HI, "Neg", unary),
    rule!("Not", LO, HI, "LogicalNot", unary),
    rule!("Or", LO, HI, "LogicalOr", binary),
    rule!("PRelu", LO, HI, "SelectV2 on Less: x * slope, x", prelu),
    rule!(
        "Pad",
        LO,
        10,
        "PadV2 (constant mode; pads, value attributes)",
        pad
    ),
    rule!("Pad", 11, HI, "PadV2 (constant mode)", pad),
    rule!("Pow", LO, HI, "Pow", binary),
    rule!("Reciprocal", LO, HI, "Reciprocal", unary),
    rule!("ReduceMax", LO, HI, "ReduceMax (+ Const axes)", reduce),
    rule!("ReduceMean", LO, HI, "ReduceMean (+ Const axes)", reduce),
    rule!("ReduceMin", LO, HI, "ReduceMin (+ Const axes)", reduce),
    rule!("ReduceProd", LO, HI, "ReduceProd (+ Const axes)", reduce),
    rule!("ReduceSum", LO, HI, "ReduceSum (+ Const axes)", reduce),
    rule!("Relu", LO, HI, "Relu", unary),
    rule!("Reshape", 5, HI, "Reshape", reshape),
    rule!(
        "Selu",
        LO,
        HI,
        "gamma * SelectV2 on Greater: x, alpha * (Exp - 1)",
        elu_like
    ),
    rule!(
        "Shape",
        LO,
        HI,
        "Shape (Const when the input shape is static)",
        shape_op
    ),
    rule!("Sigmoid", LO, HI, "Sigmoid", unary),
    rule!("Sign", 9, HI, "Sign", unary),
    rule!("Size", LO, HI, "Size (Const when static)", size_op),
    rule!(
        "Slice",
        LO,
        9,
        "StridedSlice (starts, ends, axes attributes)",
        slice
    ),
    rule!(
        "Slice",
        10,
        HI,
        "StridedSlice (+ Const begin/end/strides)",
        slice
    ),
    rule!("Softmax", LO, HI, "SoftmaxV2 (axes by opset)", softmax),
    rule!("Softplus", LO, HI, "Log of Exp + 1", softplus),
    rule!(
        "Split",
        LO,
        HI,
        "Split / SplitV (+ Const split_dim, size_splits)",
        split
    ),
    rule!("Sqrt", LO, HI, "Sqrt", unary),
    rule!("Squeeze", LO, HI, "Squeeze (axis)", squeeze),
    rule!("Sub", LO, HI, "Sub", binary),
    rule!("Sum", LO, HI, "Add (chained)", variadic),
    rule!("Tanh", LO, HI, "Tanh", unary),
    rule!("Tile", LO, HI, "Tile", tile),
    rule!("Transpose", LO, HI, "Transpose (+ Const perm)", transpose),
    rule!("Unsqueeze", LO, HI, "Reshape (+ Const shape)", unsqueeze),
    rule!("Where", 9, HI, "SelectV2", where_op),
];

/// The rules, for `--list-onnx-ops` and tests.
pub fn supported_ops() -> &'static [OpRule] {
    RULES
}

/// `ge-translate --list-onnx-ops`: one line per rule.
pub fn list_onnx_ops() -> String {
    let mut out = String::from("# ONNX op (ai.onnx)    opsets  -> GE ops built\n");
    for r in RULES {
        let kernel = if r.kernel {
            ""
        } else {
            "   [no kernel: compiles, cannot run]"
        };
        out.push_str(&format!(
            "{:<22} {:>2}-{:<2}  -> {}{kernel}\n",
            r.op,
            r.since.max(LO),
            r.until,
            r.ge
        ));
    }
    out
}

/// The rule for `op` at `opset`, or why there is none.
pub fn find_rule(op: &str, opset: i64) -> Result<&'static OpRule, String> {
    let mut known = RULES.iter().filter(|r| r.op == op).peekable();
    if known.peek().is_none() {
        return Err(
            "op type is not supported (`ge-translate --list-onnx-ops` lists what is)".into(),
        );
    }
    let ranges: Vec<String> = known
        .clone()
        .map(|r| format!("{}-{}", r.since.max(LO), r.until))
        .collect();
    known
        .find(|r| r.since.max(LO) <= opset && opset <= r.until)
        .ok_or_else(|| {
            format!(
                "no mapping at this opset (supported: opsets {})",
                ranges.join(", ")
            )
        })
}

fn ty(v: &Val) -> TType {
    v.ty.clone()
}

fn rank_of(v: &Val, what: &str) -> Res<usize> {
    v.ty.rank()
        .ok_or_else(|| format!("{what} has an unknown rank"))
}

/// Same-name elementwise ops (and Not -> LogicalNot).
fn unary(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let op = cx.node.op_type.as_str();
    let ge = if op == "Not" { "LogicalNot" } else { op };
    if op == "Identity" {
        if let Some(k) = &x.konst {
            return Ok(vec![cx.folded((**k).clone())]);
        }
    }
    // Shape arithmetic (the expanded function bodies negate axis counts): folded so the
    // shapes that depend on it stay static.
    if let (Some(k), "Neg" | "Abs") = (&x.konst, op) {
        if x.ty.dtype == DType::I64 && k.elements() <= 64 {
            if let Some(v) = k.to_i64s() {
                let v: Vec<i64> = v
                    .iter()
                    .map(|&e| {
                        if op == "Neg" {
                            e.wrapping_neg()
                        } else {
                            e.wrapping_abs()
                        }
                    })
                    .collect();
                return Ok(vec![cx.folded(Tensor::from_i64s_dims(&v, k.dims.clone()))]);
            }
        }
    }
    Ok(vec![cx.emit1(ge, &[&x], &[], ty(&x))])
}

/// The input of a float-only composition (the kernels have no Elu, Selu, SoftPlus, PRelu
/// or InstanceNorm: the nodes become the elementwise ops they are defined by).
fn float_input(cx: &Cx) -> Res<Val> {
    let x = cx.x(0)?;
    if !dtype::is_float(x.ty.dtype) {
        return Err(format!(
            "{:?} inputs are not supported (float only)",
            x.ty.dtype
        ));
    }
    Ok(x)
}

/// Elu: `x > 0 ? x : alpha * (exp(x) - 1)`; Selu: that times gamma.
fn elu_like(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = float_input(cx)?;
    let selu = cx.node.op_type == "Selu";
    let dt = x.ty.dtype;
    let alpha = cx.float("alpha", if selu { 1.673_263_192_176_818_8 } else { 1.0 });
    let zero = cx.cst("zero", Tensor::scalar(dt, 0.0)?);
    let one = cx.cst("one", Tensor::scalar(dt, 1.0)?);
    let alpha_c = cx.cst("alpha", Tensor::scalar(dt, alpha)?);
    let bools = x.ty.with_dtype(DType::Bool);
    let positive = cx.helper("positive", "Greater", &[&x, &zero], &[], bools);
    let e = cx.helper("exp", "Exp", &[&x], &[], ty(&x));
    let em1 = cx.helper("expm1", "Sub", &[&e, &one], &[], ty(&x));
    let negative = cx.helper("negative", "Mul", &[&em1, &alpha_c], &[], ty(&x));
    if !selu {
        return Ok(vec![cx.emit1(
            "SelectV2",
            &[&positive, &x, &negative],
            &[],
            ty(&x),
        )]);
    }
    let gamma = cx.float("gamma", 1.050_701_022_148_132_3);
    let gamma_c = cx.cst("gamma", Tensor::scalar(dt, gamma)?);
    let select = cx.helper(
        "select",
        "SelectV2",
        &[&positive, &x, &negative],
        &[],
        ty(&x),
    );
    Ok(vec![cx.emit1("Mul", &[&select, &gamma_c], &[], ty(&x))])
}

/// Softplus: `ln(exp(x) + 1)`, as ONNX defines it.
fn softplus(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = float_input(cx)?;
    let one = cx.cst("one", Tensor::scalar(x.ty.dtype, 1.0)?);
    let e = cx.helper("exp", "Exp", &[&x], &[], ty(&x));
    let e1 = cx.helper("exp_plus_one", "Add", &[&e, &one], &[], ty(&x));
    Ok(vec![cx.emit1("Log", &[&e1], &[], ty(&x))])
}

/// PRelu: `x < 0 ? slope * x : x`, slope broadcast to x (unidirectionally).
fn prelu(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = float_input(cx)?;
    let slope = cx.x(1)?;
    if slope.ty.dtype != x.ty.dtype {
        return Err("the slope's element type differs from the input's".into());
    }
    let dims = shape::broadcast(&x.ty.dims, &slope.ty.dims)?;
    if x.ty.dims.is_some() && dims != x.ty.dims {
        return Err("the slope does not broadcast to the input's shape".into());
    }
    let zero = cx.cst("zero", Tensor::scalar(x.ty.dtype, 0.0)?);
    let negative = cx.helper(
        "negative",
        "Less",
        &[&x, &zero],
        &[],
        x.ty.with_dtype(DType::Bool),
    );
    let scaled = cx.helper("scaled", "Mul", &[&x, &slope], &[], ty(&x));
    Ok(vec![cx.emit1(
        "SelectV2",
        &[&negative, &scaled, &x],
        &[],
        ty(&x),
    )])
}

/// InstanceNormalization: per sample and channel over the spatial axes,
/// `scale * (x - mean) / sqrt(var + epsilon) + B`.
fn instance_norm(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = float_input(cx)?;
    let (scale, bias) = (cx.x(1)?, cx.x(2)?);
    let rank = rank_of(&x, "input 0")?;
    if rank < 3 {
        return Err("the input must have rank >= 3".into());
    }
    let dt = x.ty.dtype;
    let d = x.ty.dims.clone().unwrap_or_default();
    let reduced: Dims = (0..rank)
        .map(|i| if i < 2 { d[i] } else { Some(1) })
        .collect();
    let rtype = TType::new(dt, Some(reduced));
    let axes: Vec<i64> = (2..rank as i64).collect();
    let axes_c = cx.cst("axes", Tensor::from_i64s(&axes));
    let keep = [
        ("keep_dims", GeAttr::Bool(true)),
        ("noop_with_empty_axes", GeAttr::Bool(true)),
    ];
    let mean = cx.helper("mean", "ReduceMean", &[&x, &axes_c], &keep, rtype.clone());
    let centred = cx.helper("centred", "Sub", &[&x, &mean], &[], ty(&x));
    let square = cx.helper("square", "Mul", &[&centred, &centred], &[], ty(&x));
    let var = cx.helper(
        "var",
        "ReduceMean",
        &[&square, &axes_c],
        &keep,
        rtype.clone(),
    );
    let eps = cx.cst("epsilon", Tensor::scalar(dt, cx.float("epsilon", 1e-5))?);
    let var_eps = cx.helper("var_eps", "Add", &[&var, &eps], &[], rtype.clone());
    let std = cx.helper("std", "Sqrt", &[&var_eps], &[], rtype);
    let normalized = cx.helper("normalized", "RealDiv", &[&centred, &std], &[], ty(&x));
    let mut shape = vec![-1i64];
    shape.extend(std::iter::repeat_n(1, rank - 2));
    let pdims: Dims = std::iter::once(d[1])
        .chain(std::iter::repeat_n(Some(1), rank - 2))
        .collect();
    let ptype = TType::new(dt, Some(pdims));
    let shape_c = cx.cst("param_shape", Tensor::from_i64s(&shape));
    let s = cx.helper(
        "scale_reshape",
        "Reshape",
        &[&scale, &shape_c],
        &[],
        ptype.clone(),
    );
    let b = cx.helper("bias_reshape", "Reshape", &[&bias, &shape_c], &[], ptype);
    let scaled = cx.helper("scaled", "Mul", &[&normalized, &s], &[], ty(&x));
    Ok(vec![cx.emit1("Add", &[&scaled, &b], &[], ty(&x))])
}

fn leaky_relu(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let alpha = cx.float("alpha", 0.01);
    Ok(vec![cx.emit1(
        "LeakyRelu",
        &[&x],
        &[("negative_slope", GeAttr::Float(alpha))],
        ty(&x),
    )])
}

/// LRN as GE's ONNX parser maps it: `depth_radius = (size - 1) / 2`, `alpha / size`
/// (divided in f32, as the parser does), `norm_region = "ACROSS_CHANNELS"`. An even `size`
/// is refused: ONNX's window is then one channel longer above than below, which GE's
/// symmetric `depth_radius` cannot express.
fn lrn(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    if !cx.has_attr("size") {
        return Err("attribute `size` is required".into());
    }
    let size = cx.int("size", 0);
    if size <= 0 || size % 2 == 0 {
        return Err(format!(
            "size {size} is not supported (GE's LRN takes a positive odd size)"
        ));
    }
    if rank_of(&x, "input 0")? < 2 {
        return Err("input 0 needs rank >= 2 (N, C, ...)".into());
    }
    let alpha = cx.float("alpha", 1e-4) as f32 / size as f32;
    let attrs = [
        ("depth_radius", GeAttr::Int((size - 1) / 2)),
        ("bias", GeAttr::Float(cx.float("bias", 1.0))),
        ("alpha", GeAttr::Float(f64::from(alpha))),
        ("beta", GeAttr::Float(cx.float("beta", 0.75))),
        ("norm_region", GeAttr::Str("ACROSS_CHANNELS".into())),
    ];
    Ok(vec![cx.emit1("LRN", &[&x], &attrs, ty(&x))])
}

/// Elementwise binary ops with numpy broadcasting (opset >= 7; opset 6's `broadcast`
/// attribute with `axis` is rejected unless it means the same).
fn binary(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (a, b) = (cx.x(0)?, cx.x(1)?);
    if cx.opset < 7 && cx.int("broadcast", 0) == 1 && cx.has_attr("axis") {
        let ra = rank_of(&a, "input 0")? as i64;
        let rb = rank_of(&b, "input 1")? as i64;
        if cx.int("axis", 0) != ra - rb {
            return Err(
                "legacy broadcasting with an `axis` other than the trailing one is not supported"
                    .into(),
            );
        }
    }
    let op = cx.node.op_type.as_str();
    let float = dtype::is_float(a.ty.dtype);
    let (ge, out_dtype) = match op {
        "Div" if float => ("RealDiv", a.ty.dtype),
        "Div" => ("Div", a.ty.dtype),
        "And" => ("LogicalAnd", DType::Bool),
        "Or" => ("LogicalOr", DType::Bool),
        "Equal" | "Less" | "Greater" => (op, DType::Bool),
        "LessOrEqual" => ("LessEqual", DType::Bool),
        "GreaterOrEqual" => ("GreaterEqual", DType::Bool),
        _ => (op, a.ty.dtype),
    };
    if a.ty.dtype != b.ty.dtype {
        return Err(format!(
            "inputs have different element types ({:?} and {:?})",
            a.ty.dtype, b.ty.dtype
        ));
    }
    let dims = shape::broadcast(&a.ty.dims, &b.ty.dims)?;
    if let Some(folded) = fold_int_binary(op, &a, &b, &dims) {
        return Ok(vec![cx.folded(folded)]);
    }
    Ok(vec![cx.emit1(
        ge,
        &[&a, &b],
        &[],
        TType::new(out_dtype, dims),
    )])
}

/// Shape arithmetic on constant integer tensors (PyTorch exports compute Reshape shapes
/// this way): folded at import time so the shapes stay static.
fn fold_int_binary(op: &str, a: &Val, b: &Val, dims: &Option<Dims>) -> Option<Tensor> {
    let (ka, kb) = (a.konst.as_ref()?, b.konst.as_ref()?);
    if a.ty.dtype != DType::I64 || ka.elements() > 64 {
        return None;
    }
    let out_dims: Vec<i64> = dims.as_ref()?.iter().copied().collect::<Option<_>>()?;
    let (va, vb) = (ka.to_i64s()?, kb.to_i64s()?);
    let n: usize = out_dims.iter().product::<i64>() as usize;
    let pick = |v: &[i64], i: usize| {
        if v.len() == 1 {
            v[0]
        } else {
            v.get(i).copied().unwrap_or(0)
        }
    };
    if (va.len() != 1 && va.len() != n) || (vb.len() != 1 && vb.len() != n) {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (x, y) = (pick(&va, i), pick(&vb, i));
        out.push(match op {
            "Add" => x.wrapping_add(y),
            "Sub" => x.wrapping_sub(y),
            "Mul" => x.wrapping_mul(y),
            "Div" if y != 0 => x / y,
            _ => return None,
        });
    }
    Some(Tensor::from_i64s_dims(&out, out_dims))
}

/// Max / Min / Sum / Mean over any number of inputs: a chain of binary ops.
fn variadic(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let n = cx.n_inputs();
    let op = cx.node.op_type.clone();
    let ge = match op.as_str() {
        "Max" => "Maximum",
        "Min" => "Minimum",
        _ => "Add",
    };
    let mut acc = cx.x(0)?;
    if n == 1 && op != "Mean" {
        return Ok(vec![cx.emit1("Identity", &[&acc], &[], ty(&acc))]);
    }
    for i in 1..n {
        let next = cx.x(i)?;
        let dims = shape::broadcast(&acc.ty.dims, &next.ty.dims)?;
        let t = TType::new(acc.ty.dtype, dims);
        acc = if i + 1 == n && op != "Mean" {
            cx.emit1(ge, &[&acc, &next], &[], t)
        } else {
            cx.helper(
                &format!("{}{i}", ge.to_lowercase()),
                ge,
                &[&acc, &next],
                &[],
                t,
            )
        };
    }
    if op == "Mean" {
        let count = cx.cst("count", Tensor::scalar(acc.ty.dtype, n as f64)?);
        let t = ty(&acc);
        acc = cx.emit1("RealDiv", &[&acc, &count], &[], t);
    }
    Ok(vec![acc])
}

fn where_op(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (c, a, b) = (cx.x(0)?, cx.x(1)?, cx.x(2)?);
    let dims = shape::broadcast(&shape::broadcast(&c.ty.dims, &a.ty.dims)?, &b.ty.dims)?;
    Ok(vec![cx.emit1(
        "SelectV2",
        &[&c, &a, &b],
        &[],
        TType::new(a.ty.dtype, dims),
    )])
}

fn cast(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let to =
        dtype::from_onnx(cx.int("to", 0) as i32).map_err(|e| format!("attribute `to`: {e}"))?;
    if let Some(k) = &x.konst {
        if let (Some(v), false, false) =
            (k.to_i64s(), dtype::is_float(to), dtype::is_float(k.dtype))
        {
            if to == DType::I64 || to == DType::I32 {
                let t = if to == DType::I64 {
                    Tensor::from_i64s_dims(&v, k.dims.clone())
                } else {
                    Tensor::from_i32s_dims(
                        &v.iter().map(|&x| x as i32).collect::<Vec<_>>(),
                        k.dims.clone(),
                    )
                };
                return Ok(vec![cx.folded(t)]);
            }
        }
    }
    Ok(vec![cx.emit1(
        "Cast",
        &[&x],
        &[("dst_type", GeAttr::Int(to.acl() as i64))],
        x.ty.with_dtype(to),
    )])
}

/// Constant: every value form (`value`, `value_float(s)`, `value_int(s)`); sparse and
/// string values are errors.
fn constant(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let t = if let Some(t) = cx.tensor("value")? {
        t
    } else if cx.has_attr("value_float") {
        Tensor::float_scalar(DType::F32, cx.float("value_float", 0.0))?
    } else if let Some(v) = cx.floats("value_floats") {
        Tensor {
            dtype: DType::F32,
            dims: vec![v.len() as i64],
            bytes: v.iter().flat_map(|f| f.to_le_bytes()).collect(),
        }
    } else if cx.has_attr("value_int") {
        Tensor::from_i64s_dims(&[cx.int("value_int", 0)], vec![])
    } else if let Some(v) = cx.ints("value_ints") {
        Tensor::from_i64s(&v)
    } else {
        return Err("only the value, value_float(s) and value_int(s) forms are supported (sparse and string values are not)".into());
    };
    let name = cx.name.clone();
    let ty = cx.out_type(0, TType::fixed(t.dtype, &t.dims));
    let _ = ty;
    Ok(vec![cx.ge.constant(&name, t)])
}

fn constant_of_shape(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let shape_in = cx.x(0)?;
    let value = cx
        .tensor("value")?
        .unwrap_or(Tensor::float_scalar(DType::F32, 0.0)?);
    let value = Tensor {
        dims: vec![],
        ..value
    };
    if let Some(dims) = cx.konst_ints(0, "shape").ok().flatten() {
        let n: i64 = dims.iter().product();
        if n <= 4096 {
            let bytes = value.bytes.repeat(n.max(0) as usize);
            return Ok(vec![cx.folded(Tensor {
                dtype: value.dtype,
                dims,
                bytes,
            })]);
        }
    }
    let rank = shape_in.ty.static_dims().and_then(|d| d.first().copied());
    let dims = match cx.konst_ints(0, "shape").ok().flatten() {
        Some(d) => Some(d.into_iter().map(Some).collect()),
        None => rank.map(|r| vec![None; r as usize]),
    };
    let dtype = value.dtype;
    let v = cx.cst("value", value);
    Ok(vec![cx.emit1(
        "Fill",
        &[&shape_in, &v],
        &[],
        TType::new(dtype, dims),
    )])
}

fn dropout(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let wants_mask = cx.node.output.get(1).is_some_and(|o| !o.is_empty());
    if cx.opset >= 12 {
        if let Some(t) = cx.konst(2, "training_mode")? {
            if t.bytes.iter().any(|&b| b != 0) {
                return Err("training_mode = true is not supported (inference only)".into());
            }
        } else if cx.opt(2).is_some() {
            return Err("input 2 (training_mode) must be a constant".into());
        }
    }
    let y = cx.emit1("Identity", &[&x], &[], ty(&x));
    if !wants_mask {
        return Ok(vec![y]);
    }
    // Inference keeps every element: the mask is all ones (bool from opset 10, the input's
    // type before), a Fill of the input's static shape.
    let dims =
        x.ty.static_dims()
            .ok_or("the mask output needs a static input shape")?;
    let mask_dtype = if cx.opset >= 10 {
        DType::Bool
    } else {
        x.ty.dtype
    };
    let shape = cx.cst("mask_shape", Tensor::from_i64s(&dims));
    let one = cx.cst("mask_one", Tensor::scalar(mask_dtype, 1.0)?);
    let mask = cx.helper(
        "mask",
        "Fill",
        &[&shape, &one],
        &[],
        TType::fixed(mask_dtype, &dims),
    );
    Ok(vec![y, mask])
}

/// MatMul: numpy semantics on rank >= 2 operands. GE's plugin builds BatchMatMulV2; two
/// rank-2 operands become MatMul.
fn matmul(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (a, b) = (cx.x(0)?, cx.x(1)?);
    let (ra, rb) = (rank_of(&a, "input 0")?, rank_of(&b, "input 1")?);
    if ra < 2 || rb < 2 {
        return Err(format!(
            "rank-1 operands are not supported (ranks {ra} and {rb})"
        ));
    }
    let (da, db) = (
        a.ty.dims.clone().unwrap_or_default(),
        b.ty.dims.clone().unwrap_or_default(),
    );
    let (k1, k2) = (da[ra - 1], db[rb - 2]);
    if let (Some(x), Some(y)) = (k1, k2) {
        if x != y {
            return Err(format!(
                "inner dimensions differ: {} x {}",
                shape::show(&da),
                shape::show(&db)
            ));
        }
    }
    let batch = shape::broadcast(&Some(da[..ra - 2].to_vec()), &Some(db[..rb - 2].to_vec()))?;
    let mut dims = batch.unwrap_or_default();
    dims.push(da[ra - 2]);
    dims.push(db[rb - 1]);
    let out = TType::new(a.ty.dtype, Some(dims));
    let ge = if ra == 2 && rb == 2 {
        "MatMul"
    } else {
        "BatchMatMulV2"
    };
    Ok(vec![cx.emit1(ge, &[&a, &b], &[], out)])
}

/// Gemm: Y = alpha * A' * B' + beta * C, as GE's plugin expands it: MatMulV2 with the
/// transposes as attributes, a scalar Mul when alpha / beta are not 1, then Add.
fn gemm(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (a, b) = (cx.x(0)?, cx.x(1)?);
    let c = cx.opt(2);
    let (ta, tb) = (cx.int("transA", 0) != 0, cx.int("transB", 0) != 0);
    let (alpha, beta) = (cx.float("alpha", 1.0), cx.float("beta", 1.0));
    if cx.opset < 7 && cx.int("broadcast", 0) == 0 && c.is_some() {
        // opset 6 without broadcast: C must already have Y's shape; broadcasting below is a superset.
    }
    let (da, db) = (
        a.ty.dims
            .clone()
            .filter(|d| d.len() == 2)
            .ok_or("input 0 must be rank 2")?,
        b.ty.dims
            .clone()
            .filter(|d| d.len() == 2)
            .ok_or("input 1 must be rank 2")?,
    );
    let m = if ta { da[1] } else { da[0] };
    let n = if tb { db[0] } else { db[1] };
    let dtype = a.ty.dtype;
    let y_ty = TType::new(dtype, Some(vec![m, n]));
    let attrs = [
        ("transpose_x1", GeAttr::Bool(ta)),
        ("transpose_x2", GeAttr::Bool(tb)),
    ];
    let c = c.filter(|_| beta != 0.0);
    let last_is_mm = alpha == 1.0 && c.is_none();
    let mut y = if last_is_mm {
        return Ok(vec![cx.emit1("MatMulV2", &[&a, &b], &attrs, y_ty)]);
    } else {
        cx.helper("matmul", "MatMulV2", &[&a, &b], &attrs, y_ty.clone())
    };
    if alpha != 1.0 {
        let s = cx.cst("alpha", Tensor::scalar(dtype, alpha)?);
        y = if c.is_none() {
            return Ok(vec![cx.emit1("Mul", &[&y, &s], &[], y_ty)]);
        } else {
            cx.helper("mul_alpha", "Mul", &[&y, &s], &[], y_ty.clone())
        };
    }
    let mut c = c.expect("C is present when the result is not the product");
    if beta != 1.0 {
        let s = cx.cst("beta", Tensor::scalar(dtype, beta)?);
        let t = ty(&c);
        c = cx.helper("mul_beta", "Mul", &[&c, &s], &[], t);
    }
    let dims = shape::broadcast(&y.ty.dims, &c.ty.dims)?;
    Ok(vec![cx.emit1(
        "Add",
        &[&y, &c],
        &[],
        TType::new(dtype, dims),
    )])
}

/// Spatial pads `[b1, b2, e1, e2]` for `auto_pad`, from the static input dims.
fn auto_pads(
    cx: &Cx,
    x: &Dims,
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Res<Option<Vec<i64>>> {
    let mode = cx.string("auto_pad", "NOTSET");
    match mode.as_str() {
        "NOTSET" | "" => Ok(None),
        "VALID" => Ok(Some(vec![0; 2 * kernel.len()])),
        "SAME_UPPER" | "SAME_LOWER" => {
            let n = kernel.len();
            let mut pads = vec![0; 2 * n];
            for i in 0..n {
                let input = x[2 + i].ok_or("auto_pad SAME needs static spatial dims")?;
                let out = (input + strides[i] - 1) / strides[i];
                let span = dilations[i] * (kernel[i] - 1) + 1;
                let total = ((out - 1) * strides[i] + span - input).max(0);
                let small = total / 2;
                let (b, e) = if mode == "SAME_UPPER" {
                    (small, total - small)
                } else {
                    (total - small, small)
                };
                pads[i] = b;
                pads[i + n] = e;
            }
            Ok(Some(pads))
        }
        other => Err(format!("auto_pad {other:?} is not supported")),
    }
}

/// Conv (2-D, NCHW): Conv2D with strides / dilations in NCHW order and pads reordered
/// from ONNX's `[h_begin, w_begin, h_end, w_end]` to GE's `[top, bottom, left, right]`.
fn conv(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (x, w) = (cx.x(0)?, cx.x(1)?);
    let bias = cx.opt(2);
    let xd =
        x.ty.dims
            .clone()
            .filter(|d| d.len() == 4)
            .ok_or("only 2-D convolutions (rank-4 NCHW input) are supported")?;
    let wd =
        w.ty.static_dims()
            .filter(|d| d.len() == 4)
            .ok_or("the weight must have a static rank-4 shape")?;
    let kernel = cx.ints("kernel_shape").unwrap_or(wd[2..].to_vec());
    let strides = cx.ints("strides").unwrap_or(vec![1, 1]);
    let dilations = cx.ints("dilations").unwrap_or(vec![1, 1]);
    let group = cx.int("group", 1);
    let pads = match auto_pads(cx, &xd, &kernel, &strides, &dilations)? {
        Some(p) => p,
        None => cx.ints("pads").unwrap_or(vec![0; 4]),
    };
    if pads.len() != 4 || strides.len() != 2 || dilations.len() != 2 {
        return Err("pads, strides and dilations must describe 2 spatial axes".into());
    }
    let oh = shape::window_out(
        xd[2],
        kernel[0],
        strides[0],
        (pads[0], pads[2]),
        dilations[0],
        false,
    );
    let ow = shape::window_out(
        xd[3],
        kernel[1],
        strides[1],
        (pads[1], pads[3]),
        dilations[1],
        false,
    );
    let out = TType::new(x.ty.dtype, Some(vec![xd[0], Some(wd[0]), oh, ow]));
    let attrs = [
        ("strides", GeAttr::Ints(vec![1, 1, strides[0], strides[1]])),
        (
            "pads",
            GeAttr::Ints(vec![pads[0], pads[2], pads[1], pads[3]]),
        ),
        (
            "dilations",
            GeAttr::Ints(vec![1, 1, dilations[0], dilations[1]]),
        ),
        ("groups", GeAttr::Int(group)),
        ("data_format", GeAttr::Str("NCHW".into())),
    ];
    let mut ins = vec![&x, &w];
    if let Some(b) = &bias {
        ins.push(b);
    }
    Ok(vec![cx.emit1("Conv2D", &ins, &attrs, out)])
}

/// MaxPool / AveragePool (2-D, NCHW). The kernels pad the TF way ("SAME" / "VALID"):
/// explicit ONNX pads that equal SAME's become SAME, others a PadV2 (-inf for MaxPool,
/// 0 for AveragePool with count_include_pad) followed by VALID.
fn pool(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let is_max = cx.node.op_type == "MaxPool";
    if is_max && cx.node.output.get(1).is_some_and(|o| !o.is_empty()) {
        return Err("the Indices output is not supported".into());
    }
    let xd =
        x.ty.dims
            .clone()
            .filter(|d| d.len() == 4)
            .ok_or("only 2-D pooling (rank-4 NCHW input) is supported")?;
    let kernel = cx
        .ints("kernel_shape")
        .ok_or("attribute `kernel_shape` is required")?;
    let strides = cx.ints("strides").unwrap_or(vec![1, 1]);
    let dilations = cx.ints("dilations").unwrap_or(vec![1, 1]);
    if kernel.len() != 2 || strides.len() != 2 {
        return Err("only 2 spatial axes are supported".into());
    }
    if dilations.iter().any(|&d| d != 1) {
        return Err("dilations other than 1 are not supported".into());
    }
    let ceil = cx.int("ceil_mode", 0) != 0;
    let count_include_pad = cx.int("count_include_pad", 0) != 0;
    let pads = match auto_pads(cx, &xd, &kernel, &strides, &dilations)? {
        Some(p) => p,
        None => cx.ints("pads").unwrap_or(vec![0; 4]),
    };
    let oh = shape::window_out(xd[2], kernel[0], strides[0], (pads[0], pads[2]), 1, ceil);
    let ow = shape::window_out(xd[3], kernel[1], strides[1], (pads[1], pads[3]), 1, ceil);
    let floor_h = shape::window_out(xd[2], kernel[0], strides[0], (pads[0], pads[2]), 1, false);
    let floor_w = shape::window_out(xd[3], kernel[1], strides[1], (pads[1], pads[3]), 1, false);
    if ceil && (oh != floor_h || ow != floor_w) {
        return Err("ceil_mode = 1 that changes the output size is not supported".into());
    }
    let out = TType::new(x.ty.dtype, Some(vec![xd[0], xd[1], oh, ow]));
    let same = auto_pads_same(&xd, &kernel, &strides);
    let ge = if is_max { "MaxPool" } else { "AvgPool" };
    let attrs = |padding: &str| {
        vec![
            ("ksize", GeAttr::Ints(vec![1, 1, kernel[0], kernel[1]])),
            ("strides", GeAttr::Ints(vec![1, 1, strides[0], strides[1]])),
            ("padding", GeAttr::Str(padding.into())),
            ("data_format", GeAttr::Str("NCHW".into())),
        ]
    };
    if pads.iter().all(|&p| p == 0) {
        return Ok(vec![cx.emit1(ge, &[&x], &attrs("VALID"), out)]);
    }
    // SAME divides by the non-pad count (count_include_pad = 0) and ignores pads for max.
    if same.as_deref() == Some(&pads[..]) && (is_max || !count_include_pad) {
        return Ok(vec![cx.emit1(ge, &[&x], &attrs("SAME"), out)]);
    }
    if !is_max && !count_include_pad {
        return Err(
            "explicit pads that are not SAME's with count_include_pad = 0 are not supported".into(),
        );
    }
    let fill = if is_max { f64::NEG_INFINITY } else { 0.0 };
    let padded_dims = vec![
        xd[0],
        xd[1],
        xd[2].map(|h| h + pads[0] + pads[2]),
        xd[3].map(|w| w + pads[1] + pads[3]),
    ];
    let paddings = cx.cst(
        "paddings",
        Tensor::from_i64s_dims(
            &[0, 0, 0, 0, pads[0], pads[2], pads[1], pads[3]],
            vec![4, 2],
        ),
    );
    let value = cx.cst("pad_value", Tensor::scalar(x.ty.dtype, fill)?);
    let padded = cx.helper(
        "pad",
        "PadV2",
        &[&x, &paddings, &value],
        &[],
        TType::new(x.ty.dtype, Some(padded_dims)),
    );
    Ok(vec![cx.emit1(ge, &[&padded], &attrs("VALID"), out)])
}

/// The `[b1, b2, e1, e2]` pads TF's SAME uses for static dims.
fn auto_pads_same(x: &Dims, kernel: &[i64], strides: &[i64]) -> Option<Vec<i64>> {
    let mut pads = vec![0; 4];
    for i in 0..2 {
        let input = x[2 + i]?;
        let out = (input + strides[i] - 1) / strides[i];
        let total = ((out - 1) * strides[i] + kernel[i] - input).max(0);
        pads[i] = total / 2;
        pads[i + 2] = total - total / 2;
    }
    Some(pads)
}

fn global_pool(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let axes: Vec<i64> = (2..rank as i64).collect();
    let mut dims = x.ty.dims.clone().unwrap_or_default();
    for d in dims.iter_mut().skip(2) {
        *d = Some(1);
    }
    let ge = if cx.node.op_type == "GlobalMaxPool" {
        "ReduceMax"
    } else {
        "ReduceMean"
    };
    let axes_v = cx.cst("axes", Tensor::from_i64s(&axes));
    Ok(vec![cx.emit1(
        ge,
        &[&x, &axes_v],
        &[("keep_dims", GeAttr::Bool(true))],
        TType::new(x.ty.dtype, Some(dims)),
    )])
}

/// BatchNormalization in inference mode, decomposed (GE's BatchNorm has no kernel):
/// `y = (x - mean) * (scale / sqrt(var + eps)) + B`, parameters reshaped to `[C, 1, ...]`.
fn batch_norm(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    if cx.int("training_mode", 0) != 0 || cx.node.output.iter().skip(1).any(|o| !o.is_empty()) {
        return Err("training mode (running mean / variance outputs) is not supported".into());
    }
    if cx.opset < 7 && cx.int("is_test", 1) == 0 {
        return Err("is_test = 0 (training) is not supported".into());
    }
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    if rank < 2 {
        return Err("the input must have rank >= 2".into());
    }
    let eps = cx.float("epsilon", 1e-5);
    let dtype = x.ty.dtype;
    let c = x.ty.dims.as_ref().and_then(|d| d[1]);
    let mut shape = vec![-1i64];
    shape.extend(std::iter::repeat_n(1, rank - 2));
    let pdims: Dims = std::iter::once(c)
        .chain(std::iter::repeat_n(Some(1), rank - 2))
        .collect();
    let ptype = TType::new(dtype, Some(pdims));
    let shape_c = cx.cst("param_shape", Tensor::from_i64s(&shape));
    let names = ["scale", "bias", "mean", "var"];
    let mut p = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let v = cx.x(i + 1)?;
        p.push(cx.helper(
            &format!("{n}_reshape"),
            "Reshape",
            &[&v, &shape_c],
            &[],
            ptype.clone(),
        ));
    }
    let eps_c = cx.cst("epsilon", Tensor::scalar(dtype, eps)?);
    let var_eps = cx.helper("var_eps", "Add", &[&p[3], &eps_c], &[], ptype.clone());
    let std = cx.helper("std", "Sqrt", &[&var_eps], &[], ptype.clone());
    let factor = cx.helper("factor", "RealDiv", &[&p[0], &std], &[], ptype.clone());
    let centred = cx.helper("centred", "Sub", &[&x, &p[2]], &[], ty(&x));
    let scaled = cx.helper("scaled", "Mul", &[&centred, &factor], &[], ty(&x));
    Ok(vec![cx.emit1("Add", &[&scaled, &p[1]], &[], ty(&x))])
}

/// LayerNormalization (17+): LayerNorm with begin_norm_axis = begin_params_axis = axis;
/// only output Y (GE's mean / variance outputs are not ONNX's InvStdDev).
fn layer_norm(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    if cx.int("stash_type", 1) != 1 {
        return Err("stash_type other than 1 (float) is not supported".into());
    }
    let (x, scale) = (cx.x(0)?, cx.x(1)?);
    let rank = rank_of(&x, "input 0")?;
    let axis = shape::axis(cx.int("axis", -1), rank)?;
    let eps = cx.float("epsilon", 1e-5);
    let bias = match cx.opt(2) {
        Some(b) => b,
        None => {
            let dims = scale
                .ty
                .static_dims()
                .ok_or("a missing bias needs a static scale shape")?;
            let n = dims.iter().product::<i64>() as usize;
            let zero = Tensor::scalar(scale.ty.dtype, 0.0)?;
            cx.cst(
                "zero_bias",
                Tensor {
                    dtype: zero.dtype,
                    dims,
                    bytes: zero.bytes.repeat(n),
                },
            )
        }
    };
    let xd = x.ty.dims.clone().unwrap_or_default();
    let stat: Dims = xd[..axis]
        .iter()
        .copied()
        .chain(std::iter::repeat_n(Some(1), rank - axis))
        .collect();
    let stat_ty = TType::new(x.ty.dtype, Some(stat));
    let attrs = [
        ("begin_norm_axis", GeAttr::Int(axis as i64)),
        ("begin_params_axis", GeAttr::Int(axis as i64)),
        ("epsilon", GeAttr::Float(eps)),
    ];
    let out = cx.emit(
        "LayerNorm",
        &[&x, &scale, &bias],
        &attrs,
        vec![ty(&x), stat_ty.clone(), stat_ty.clone()],
    );
    if cx.node.output.get(2).is_none_or(|o| o.is_empty()) {
        return Ok(out[..2].to_vec());
    }
    // ONNX's third output is InvStdDev = 1 / sqrt(variance + epsilon); GE's is the variance.
    let e = cx.cst("epsilon", Tensor::scalar(x.ty.dtype, eps)?);
    let var_eps = cx.helper("var_eps", "Add", &[&out[2], &e], &[], stat_ty.clone());
    let inv = cx.helper("inv_std_dev", "Rsqrt", &[&var_eps], &[], stat_ty);
    Ok(vec![out[0].clone(), out[1].clone(), inv])
}

/// Gelu (20+): the tanh approximation is GE's Gelu; the exact form is decomposed as
/// `0.5 * x * (1 + erf(x / sqrt(2)))`.
fn gelu(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    match cx.string("approximate", "none").as_str() {
        "tanh" => Ok(vec![cx.emit1("Gelu", &[&x], &[], ty(&x))]),
        "none" => {
            let d = x.ty.dtype;
            let r2 = cx.cst(
                "inv_sqrt2",
                Tensor::scalar(d, std::f64::consts::FRAC_1_SQRT_2)?,
            );
            let one = cx.cst("one", Tensor::scalar(d, 1.0)?);
            let half = cx.cst("half", Tensor::scalar(d, 0.5)?);
            let t = ty(&x);
            let s = cx.helper("scaled", "Mul", &[&x, &r2], &[], t.clone());
            let e = cx.helper("erf", "Erf", &[&s], &[], t.clone());
            let p = cx.helper("plus_one", "Add", &[&e, &one], &[], t.clone());
            let h = cx.helper("half_x", "Mul", &[&x, &half], &[], t.clone());
            Ok(vec![cx.emit1("Mul", &[&h, &p], &[], t)])
        }
        other => Err(format!("approximate = {other:?} is not supported")),
    }
}

/// Softmax / LogSoftmax. Up to opset 12 the input is seen as 2-D at `axis` (default 1),
/// i.e. softmax over all axes from `axis` on; from 13 over `axis` alone (default -1).
fn softmax(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let axes: Vec<i64> = if cx.opset < 13 {
        let a = shape::axis(cx.int("axis", 1), rank.max(1))?;
        (a as i64..rank as i64).collect()
    } else {
        vec![shape::axis(cx.int("axis", -1), rank.max(1))? as i64]
    };
    let attrs = [("axes", GeAttr::Ints(axes))];
    if cx.node.op_type == "LogSoftmax" {
        let s = cx.helper("softmax", "SoftmaxV2", &[&x], &attrs, ty(&x));
        return Ok(vec![cx.emit1("Log", &[&s], &[], ty(&x))]);
    }
    Ok(vec![cx.emit1("SoftmaxV2", &[&x], &attrs, ty(&x))])
}

fn reshape(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (x, s) = (cx.x(0)?, cx.x(1)?);
    let allowzero = cx.int("allowzero", 0) != 0;
    let dims = match &s.konst {
        Some(k) => {
            let shape = k.to_i64s().ok_or("input 1 (shape) must hold integers")?;
            Some(shape::reshape(&x.ty.dims, &shape, allowzero)?)
        }
        None => {
            s.ty.static_dims()
                .and_then(|d| d.first().copied())
                .map(|r| vec![None; r as usize])
        }
    };
    if let (Some(k), Some(d)) = (&x.konst, &dims) {
        if let Some(d) = d.iter().copied().collect::<Option<Vec<i64>>>() {
            return Ok(vec![cx.folded(Tensor {
                dims: d,
                ..(**k).clone()
            })]);
        }
    }
    Ok(vec![cx.emit1(
        "Reshape",
        &[&x, &s],
        &[],
        TType::new(x.ty.dtype, dims),
    )])
}

/// A Reshape to `dims` with a Const shape (unknown dims as one -1).
fn reshape_to(cx: &mut Cx, x: &Val, dims: Dims) -> Res<Val> {
    if let (Some(k), Some(d)) = (&x.konst, dims.iter().copied().collect::<Option<Vec<i64>>>()) {
        return Ok(cx.folded(Tensor {
            dims: d,
            ..(**k).clone()
        }));
    }
    if dims.iter().filter(|d| d.is_none()).count() > 1 {
        return Err(format!(
            "the result shape {} has more than one unknown dim",
            shape::show(&dims)
        ));
    }
    let shape: Vec<i64> = dims.iter().map(|d| d.unwrap_or(-1)).collect();
    let s = cx.cst("shape", Tensor::from_i64s(&shape));
    Ok(cx.emit1("Reshape", &[x, &s], &[], TType::new(x.ty.dtype, Some(dims))))
}

fn flatten(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let a = cx.int("axis", 1);
    let a = if a == rank as i64 {
        rank
    } else {
        shape::axis(a, rank)?
    };
    let d = x.ty.dims.clone().unwrap_or_default();
    let out = TType::new(
        x.ty.dtype,
        Some(vec![shape::product(&d[..a]), shape::product(&d[a..])]),
    );
    Ok(vec![cx.emit1(
        "Flatten",
        &[&x],
        &[("axis", GeAttr::Int(a as i64))],
        out,
    )])
}

/// Axes from the attribute (before `input_from`) or the constant input 1.
fn axes_of(cx: &Cx, input_from: i64) -> Res<Option<Vec<i64>>> {
    if cx.opset < input_from {
        Ok(cx.ints("axes"))
    } else if cx.has_attr("axes") {
        Err(format!(
            "attribute `axes` is gone since opset {input_from}: axes are input 1"
        ))
    } else {
        cx.konst_ints(1, "axes")
    }
}

fn squeeze(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let d = x.ty.dims.clone().unwrap_or_default();
    let axes: Vec<usize> = match axes_of(cx, 13)? {
        Some(a) => a
            .iter()
            .map(|&a| shape::axis(a, rank))
            .collect::<Res<_>>()?,
        None => {
            if d.iter().any(Option::is_none) {
                return Err("Squeeze without axes needs a static input shape".into());
            }
            (0..rank).filter(|&i| d[i] == Some(1)).collect()
        }
    };
    for &a in &axes {
        if d[a].is_some_and(|v| v != 1) {
            return Err(format!("axis {a} has size {}, not 1", d[a].unwrap_or(0)));
        }
    }
    let out: Dims = (0..rank)
        .filter(|i| !axes.contains(i))
        .map(|i| d[i])
        .collect();
    if let Some(k) = &x.konst {
        let dims: Vec<i64> = out.iter().map(|d| d.unwrap_or(1)).collect();
        return Ok(vec![cx.folded(Tensor {
            dims,
            ..(**k).clone()
        })]);
    }
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    Ok(vec![cx.emit1(
        "Squeeze",
        &[&x],
        &[("axis", GeAttr::Ints(axes))],
        TType::new(x.ty.dtype, Some(out)),
    )])
}

fn unsqueeze(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let axes = axes_of(cx, 13)?.ok_or("axes are required")?;
    let out_rank = rank + axes.len();
    let mut norm: Vec<usize> = axes
        .iter()
        .map(|&a| shape::axis(a, out_rank))
        .collect::<Res<_>>()?;
    norm.sort_unstable();
    let mut src = x.ty.dims.clone().unwrap_or_default().into_iter();
    let dims: Dims = (0..out_rank)
        .map(|i| {
            if norm.contains(&i) {
                Some(1)
            } else {
                src.next().flatten()
            }
        })
        .collect();
    Ok(vec![reshape_to(cx, &x, dims)?])
}

fn shape_op(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let clamp = |v: i64| -> usize {
        (if v < 0 { v + rank as i64 } else { v }).clamp(0, rank as i64) as usize
    };
    let start = clamp(cx.int("start", 0));
    let end = if cx.has_attr("end") {
        clamp(cx.int("end", rank as i64))
    } else {
        rank
    };
    let end = end.max(start);
    if let Some(d) = x.ty.static_dims() {
        return Ok(vec![cx.folded(Tensor::from_i64s(&d[start..end]))]);
    }
    if start != 0 || end != rank {
        return Err("start / end on a dynamic shape are not supported".into());
    }
    Ok(vec![cx.emit1(
        "Shape",
        &[&x],
        &[],
        TType::fixed(DType::I64, &[rank as i64]),
    )])
}

fn size_op(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    if let Some(d) = x.ty.static_dims() {
        return Ok(vec![
            cx.folded(Tensor::from_i64s_dims(&[d.iter().product()], vec![]))
        ]);
    }
    Ok(vec![cx.emit1(
        "Size",
        &[&x],
        &[],
        TType::fixed(DType::I64, &[]),
    )])
}

fn transpose(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let perm = cx
        .ints("perm")
        .unwrap_or_else(|| (0..rank as i64).rev().collect());
    let mut seen = vec![false; rank];
    for &p in &perm {
        let ok = p >= 0 && (p as usize) < rank && !seen[p as usize];
        if !ok || perm.len() != rank {
            return Err(format!("perm {perm:?} is not a permutation of rank {rank}"));
        }
        seen[p as usize] = true;
    }
    let d = x.ty.dims.clone().unwrap_or_default();
    let out: Dims = perm.iter().map(|&p| d[p as usize]).collect();
    let p = cx.cst("perm", Tensor::from_i64s(&perm));
    Ok(vec![cx.emit1(
        "Transpose",
        &[&x, &p],
        &[],
        TType::new(x.ty.dtype, Some(out)),
    )])
}

fn concat(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let xs: Vec<Val> = (0..cx.n_inputs()).map(|i| cx.x(i)).collect::<Res<_>>()?;
    let first = xs.first().ok_or("Concat needs at least one input")?.clone();
    let rank = rank_of(&first, "input 0")?;
    let a = shape::axis(
        cx.int("axis", if cx.opset < 4 { 1 } else { i64::MIN }),
        rank,
    )
    .map_err(|_| "attribute `axis` is missing or out of range".to_owned())?;
    let mut out = first.ty.dims.clone().unwrap_or_default();
    let mut total = Some(0i64);
    for (i, v) in xs.iter().enumerate() {
        let d =
            v.ty.dims
                .clone()
                .ok_or(format!("input {i} has an unknown rank"))?;
        if d.len() != rank {
            return Err(format!(
                "input {i} has rank {}, input 0 has {rank}",
                d.len()
            ));
        }
        total = total.zip(d[a]).map(|(t, x)| t + x);
        for k in 0..rank {
            if k != a && out[k].is_none() {
                out[k] = d[k];
            }
        }
    }
    out[a] = total;
    if xs.iter().all(|v| v.konst.is_some()) && first.ty.dtype == DType::I64 && rank == 1 {
        let mut vals = Vec::new();
        for v in &xs {
            vals.extend(
                v.konst
                    .as_ref()
                    .and_then(|k| k.to_i64s())
                    .unwrap_or_default(),
            );
        }
        return Ok(vec![cx.folded(Tensor::from_i64s(&vals))]);
    }
    let dim = cx.cst("concat_dim", Tensor::from_i32s_dims(&[a as i32], vec![]));
    let mut ins: Vec<&Val> = xs.iter().collect();
    ins.push(&dim);
    Ok(vec![cx.emit1(
        "ConcatV2",
        &ins,
        &[("N", GeAttr::Int(xs.len() as i64))],
        TType::new(first.ty.dtype, Some(out)),
    )])
}

fn split(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let a = shape::axis(cx.int("axis", 0), rank)?;
    let n = cx.node.output.len();
    let dim = x.ty.dims.as_ref().and_then(|d| d[a]);
    let sizes: Option<Vec<i64>> = if cx.opset < 13 {
        cx.ints("split")
    } else {
        cx.konst_ints(1, "split")?
    };
    let sizes = match sizes {
        Some(s) if s.len() != n => {
            return Err(format!("split sizes {s:?} do not match the {n} outputs"))
        }
        Some(s) => Some(s),
        None if cx.opset >= 18 && cx.has_attr("num_outputs") => {
            let k = cx.int("num_outputs", n as i64);
            let d = dim.ok_or("num_outputs needs a static split dimension")?;
            let chunk = (d + k - 1) / k;
            Some((0..k).map(|i| chunk.min(d - chunk * i).max(0)).collect())
        }
        None => None,
    };
    let equal = match &sizes {
        None => true,
        Some(s) => s.windows(2).all(|w| w[0] == w[1]),
    };
    let out_dims = |size: Option<i64>| {
        let mut d = x.ty.dims.clone().unwrap_or_default();
        d[a] = size;
        TType::new(x.ty.dtype, Some(d))
    };
    if equal {
        let size = match &sizes {
            Some(s) => s.first().copied(),
            None => dim.map(|d| d / n as i64),
        };
        if let (Some(d), None) = (dim, &sizes) {
            if d % n as i64 != 0 {
                return Err(format!("dimension {d} does not split into {n} equal parts"));
            }
        }
        let sd = cx.cst("split_dim", Tensor::from_i32s_dims(&[a as i32], vec![]));
        let types = vec![out_dims(size); n];
        return Ok(cx.emit(
            "Split",
            &[&sd, &x],
            &[("num_split", GeAttr::Int(n as i64))],
            types,
        ));
    }
    let s = sizes.unwrap_or_default();
    let ss = cx.cst("size_splits", Tensor::from_i64s(&s));
    let sd = cx.cst("split_dim", Tensor::from_i32s_dims(&[a as i32], vec![]));
    let types = s.iter().map(|&k| out_dims(Some(k))).collect();
    Ok(cx.emit(
        "SplitV",
        &[&x, &ss, &sd],
        &[("num_split", GeAttr::Int(n as i64))],
        types,
    ))
}

fn gather(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (x, idx) = (cx.x(0)?, cx.x(1)?);
    let rank = rank_of(&x, "input 0")?;
    let a = shape::axis(cx.int("axis", 0), rank)?;
    let xd = x.ty.dims.clone().unwrap_or_default();
    let id = idx.ty.dims.clone().ok_or("indices have an unknown rank")?;
    let out: Dims = xd[..a]
        .iter()
        .chain(&id)
        .chain(&xd[a + 1..])
        .copied()
        .collect();
    if let (Some(k), Some(ik)) = (&x.konst, &idx.konst) {
        if rank == 1 && k.dtype == DType::I64 {
            let (vals, is) = (
                k.to_i64s().unwrap_or_default(),
                ik.to_i64s().unwrap_or_default(),
            );
            let n = vals.len() as i64;
            let picked: Option<Vec<i64>> = is
                .iter()
                .map(|&i| vals.get((if i < 0 { i + n } else { i }) as usize).copied())
                .collect();
            if let Some(p) = picked {
                return Ok(vec![cx.folded(Tensor::from_i64s_dims(&p, ik.dims.clone()))]);
            }
        }
    }
    let axis = cx.cst("axis", Tensor::from_i32s_dims(&[a as i32], vec![]));
    Ok(vec![cx.emit1(
        "GatherV2",
        &[&x, &idx, &axis],
        &[("negative_index_support", GeAttr::Bool(true))],
        TType::new(x.ty.dtype, Some(out)),
    )])
}

/// ReduceX: axes from the attribute before opset 13 (ReduceSum) / 18 (the others), from
/// input 1 after; no axes reduces everything unless `noop_with_empty_axes`.
fn reduce(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    let op = cx.node.op_type.clone();
    let from = if op == "ReduceSum" { 13 } else { 18 };
    let keep = cx.int("keepdims", 1) != 0;
    let noop = cx.int("noop_with_empty_axes", 0) != 0;
    if let Some(runtime_axes) = cx.opt(1).filter(|v| cx.opset >= from && v.konst.is_none()) {
        // Axes known only at run time: the result's dims are unknown (dynamic shape).
        let dims = keep.then(|| vec![None; rank]);
        let attrs = [
            ("keep_dims", GeAttr::Bool(keep)),
            ("noop_with_empty_axes", GeAttr::Bool(noop)),
        ];
        return Ok(vec![cx.emit1(
            &op,
            &[&x, &runtime_axes],
            &attrs,
            TType::new(x.ty.dtype, dims),
        )]);
    }
    let axes = axes_of(cx, from)?;
    let axes: Vec<usize> = match axes {
        Some(a) if !a.is_empty() => a
            .iter()
            .map(|&a| shape::axis(a, rank))
            .collect::<Res<_>>()?,
        _ if noop => vec![],
        _ => (0..rank).collect(),
    };
    if axes.is_empty() {
        // noop_with_empty_axes (or a scalar): the input itself, without an empty axes Const.
        return Ok(vec![cx.emit1("Identity", &[&x], &[], ty(&x))]);
    }
    let d = x.ty.dims.clone().unwrap_or_default();
    let out: Dims = (0..rank)
        .filter_map(|i| match (axes.contains(&i), keep) {
            (false, _) => Some(d[i]),
            (true, true) => Some(Some(1)),
            (true, false) => None,
        })
        .collect();
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let av = cx.cst("axes", Tensor::from_i64s(&axes));
    let attrs = [
        ("keep_dims", GeAttr::Bool(keep)),
        ("noop_with_empty_axes", GeAttr::Bool(true)),
    ];
    Ok(vec![cx.emit1(
        &op,
        &[&x, &av],
        &attrs,
        TType::new(x.ty.dtype, Some(out)),
    )])
}

fn clip(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let d = x.ty.dtype;
    let (lo, hi) = if cx.opset < 11 {
        let lo = cx
            .has_attr("min")
            .then(|| Tensor::scalar(d, cx.float("min", 0.0)))
            .transpose()?;
        let hi = cx
            .has_attr("max")
            .then(|| Tensor::scalar(d, cx.float("max", 0.0)))
            .transpose()?;
        (lo.map(|t| cx.cst("min", t)), hi.map(|t| cx.cst("max", t)))
    } else {
        (cx.opt(1), cx.opt(2))
    };
    let mut v = x.clone();
    match (lo, hi) {
        (None, None) => return Ok(vec![cx.emit1("Identity", &[&x], &[], ty(&x))]),
        (Some(lo), None) => v = cx.emit1("Maximum", &[&v, &lo], &[], ty(&x)),
        (None, Some(hi)) => v = cx.emit1("Minimum", &[&v, &hi], &[], ty(&x)),
        (Some(lo), Some(hi)) => {
            v = cx.helper("max", "Maximum", &[&v, &lo], &[], ty(&x));
            v = cx.emit1("Minimum", &[&v, &hi], &[], ty(&x));
        }
    }
    Ok(vec![v])
}

/// Slice (attributes before 10, inputs from 10): StridedSlice over every axis, begin / end masks for the axes not named.
fn slice(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let rank = rank_of(&x, "input 0")?;
    // Before opset 10, starts / ends / axes are attributes and there are no steps.
    let (starts, ends, axes, steps) = if cx.opset < 10 {
        let starts = cx.ints("starts").ok_or("attribute `starts` is required")?;
        let ends = cx.ints("ends").ok_or("attribute `ends` is required")?;
        let axes = cx
            .ints("axes")
            .unwrap_or_else(|| (0..starts.len() as i64).collect());
        let steps = vec![1; starts.len()];
        (starts, ends, axes, steps)
    } else {
        let starts = cx.konst_ints(1, "starts")?.ok_or("starts are required")?;
        let ends = cx.konst_ints(2, "ends")?.ok_or("ends are required")?;
        let axes = cx
            .konst_ints(3, "axes")?
            .unwrap_or_else(|| (0..starts.len() as i64).collect());
        let steps = cx.konst_ints(4, "steps")?.unwrap_or(vec![1; starts.len()]);
        (starts, ends, axes, steps)
    };
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps must have one entry per sliced axis".into());
    }
    let (mut b, mut e, mut s) = (vec![0i64; rank], vec![0i64; rank], vec![1i64; rank]);
    let (mut bm, mut em) = ((1i64 << rank) - 1, (1i64 << rank) - 1);
    let d = x.ty.dims.clone().unwrap_or_default();
    let mut out = d.clone();
    for k in 0..axes.len() {
        let a = shape::axis(axes[k], rank)?;
        if steps[k] == 0 {
            return Err("a step of 0 is not allowed".into());
        }
        let clampv = |v: i64| v.clamp(-(1i64 << 62), 1i64 << 62);
        b[a] = clampv(starts[k]);
        e[a] = clampv(ends[k]);
        s[a] = steps[k];
        bm &= !(1 << a);
        em &= !(1 << a);
        out[a] = d[a].map(|n| {
            let fix = |v: i64, lo: i64, hi: i64| (if v < 0 { v + n } else { v }).clamp(lo, hi);
            if steps[k] > 0 {
                let (st, en) = (fix(starts[k], 0, n), fix(ends[k], 0, n));
                ((en - st).max(0) + steps[k] - 1) / steps[k]
            } else {
                let (st, en) = (fix(starts[k], -1, n - 1), fix(ends[k], -1, n - 1));
                ((st - en).max(0) + (-steps[k]) - 1) / (-steps[k])
            }
        });
    }
    if let (Some(k), 1) = (&x.konst, rank) {
        if let (Some(vals), Some(n)) = (k.to_i64s(), out[0]) {
            if k.dtype == DType::I64 {
                let n0 = vals.len() as i64;
                let fix = |v: i64, lo: i64, hi: i64| (if v < 0 { v + n0 } else { v }).clamp(lo, hi);
                let start = if s[0] > 0 {
                    fix(b[0], 0, n0)
                } else {
                    fix(b[0], -1, n0 - 1)
                };
                let picked: Vec<i64> = (0..n).map(|i| vals[(start + i * s[0]) as usize]).collect();
                return Ok(vec![cx.folded(Tensor::from_i64s(&picked))]);
            }
        }
    }
    let bc = cx.cst("begin", Tensor::from_i64s(&b));
    let ec = cx.cst("end", Tensor::from_i64s(&e));
    let sc = cx.cst("strides", Tensor::from_i64s(&s));
    let attrs = [
        ("begin_mask", GeAttr::Int(bm)),
        ("end_mask", GeAttr::Int(em)),
    ];
    Ok(vec![cx.emit1(
        "StridedSlice",
        &[&x, &bc, &ec, &sc],
        &attrs,
        TType::new(x.ty.dtype, Some(out)),
    )])
}

/// Pad (11+), constant mode: PadV2 with paddings `[rank, 2]`.
fn pad(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let x = cx.x(0)?;
    let mode = cx.string("mode", "constant");
    if mode != "constant" {
        return Err(format!(
            "mode {mode:?} is not supported (only \"constant\")"
        ));
    }
    let rank = rank_of(&x, "input 0")?;
    // Before opset 11, `pads` and `value` are attributes.
    let legacy = cx.opset < 11;
    let pads = if legacy {
        cx.ints("pads").ok_or("attribute `pads` is required")?
    } else {
        cx.konst_ints(1, "pads")?.ok_or("pads are required")?
    };
    let axes = match if legacy {
        None
    } else {
        cx.konst_ints(3, "axes")?
    } {
        Some(a) => a
            .iter()
            .map(|&a| shape::axis(a, rank))
            .collect::<Res<Vec<_>>>()?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!("{} pads for {} axes", pads.len(), axes.len()));
    }
    let mut paddings = vec![0i64; 2 * rank];
    let mut out = x.ty.dims.clone().unwrap_or_default();
    for (k, &a) in axes.iter().enumerate() {
        let (lo, hi) = (pads[k], pads[k + axes.len()]);
        if lo < 0 || hi < 0 {
            return Err("negative pads are not supported".into());
        }
        paddings[2 * a] = lo;
        paddings[2 * a + 1] = hi;
        out[a] = out[a].map(|d| d + lo + hi);
    }
    let p = cx.cst(
        "paddings",
        Tensor::from_i64s_dims(&paddings, vec![rank as i64, 2]),
    );
    let value = match cx.opt(2).filter(|_| !legacy) {
        Some(v) => v,
        None => {
            let v = if legacy { cx.float("value", 0.0) } else { 0.0 };
            cx.cst("constant_value", Tensor::scalar(x.ty.dtype, v)?)
        }
    };
    Ok(vec![cx.emit1(
        "PadV2",
        &[&x, &p, &value],
        &[],
        TType::new(x.ty.dtype, Some(out)),
    )])
}

fn tile(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (x, r) = (cx.x(0)?, cx.x(1)?);
    let reps = cx.konst_ints(1, "repeats").ok().flatten();
    let d = x.ty.dims.clone();
    let out = match (&d, &reps) {
        (Some(d), Some(r)) if d.len() == r.len() => {
            Some(d.iter().zip(r).map(|(x, &k)| x.map(|x| x * k)).collect())
        }
        (Some(d), _) => Some(vec![None; d.len()]),
        _ => None,
    };
    Ok(vec![cx.emit1(
        "Tile",
        &[&x, &r],
        &[],
        TType::new(x.ty.dtype, out),
    )])
}

/// Expand: `x * ones(shape)` (broadcasting), as the kernels have no BroadcastTo.
fn expand(_: &Importer, cx: &mut Cx) -> Res<Vec<Val>> {
    let (x, s) = (cx.x(0)?, cx.x(1)?);
    if x.ty.dtype == DType::Bool {
        return Err("bool inputs are not supported".into());
    }
    let target: Option<Dims> = cx
        .konst_ints(1, "shape")
        .ok()
        .flatten()
        .map(|v| v.into_iter().map(Some).collect());
    let dims = match &target {
        Some(t) => shape::broadcast(&x.ty.dims, &Some(t.clone()))?,
        None => None,
    };
    let one = cx.cst("one", Tensor::scalar(x.ty.dtype, 1.0)?);
    let ones = cx.helper(
        "ones",
        "Fill",
        &[&s, &one],
        &[],
        TType::new(x.ty.dtype, target),
    );
    Ok(vec![cx.emit1(
        "Mul",
        &[&x, &ones],
        &[],
        TType::new(x.ty.dtype, dims),
    )])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_keyed_on_op_and_opset() {
        assert_eq!(find_rule("Relu", 6).unwrap().ge, "Relu");
        assert_eq!(find_rule("Gelu", 20).unwrap().op, "Gelu");
        let e = find_rule("Gelu", 13).map(|r| r.op).unwrap_err();
        assert!(
            e.contains("no mapping at this opset (supported: opsets 20-25)"),
            "{e}"
        );
        assert!(find_rule("NoSuchOp", 13)
            .map(|r| r.op)
            .unwrap_err()
            .contains("not supported"));
        assert!(find_rule("Relu", 26).is_err());
        // Every op has a rule for opset 21; the attribute forms of Pad (< 11) and Slice
        // (< 10) are rules of their own.
        for r in RULES {
            assert!(find_rule(r.op, 21).is_ok(), "{}", r.op);
        }
        assert_eq!(find_rule("Pad", 6).unwrap().until, 10);
        assert_eq!(find_rule("Pad", 11).unwrap().since, 11);
        assert_eq!(find_rule("Slice", 9).unwrap().until, 9);
        assert_eq!(find_rule("Slice", 10).unwrap().since, 10);
    }

    #[test]
    fn the_listing_names_every_rule() {
        let text = list_onnx_ops();
        for r in RULES {
            assert!(text.contains(r.op));
        }
    }
}
