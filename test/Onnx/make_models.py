"""Writes the ONNX models of the test/Onnx lit tests (made at test time, never downloaded).

    python make_models.py OUT.onnx NAME      # one model (NAME: see MODELS below)
    python make_models.py --list             # the model names

Run with the venv's python (tools/setup-onnx.sh); %make_model in lit.local.cfg.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

F = T.FLOAT


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, opset=13, inits=(), value_info=(), name="g"):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits), value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def unary(op, opset=13, dtype=F, **attrs):
    return lambda: model([h.make_node(op, ["x"], ["y"], name=op.lower(), **attrs)],
                         [vi("x", dtype, [2, 3])], [vi("y", dtype, [2, 3])], opset)


def binary(op, opset=13, dtype=F, out=F):
    return lambda: model([h.make_node(op, ["a", "b"], ["y"], name=op.lower())],
                         [vi("a", dtype, [2, 3]), vi("b", dtype, [3])], [vi("y", out, None)], opset)


def w(name, shape, seed=0, dtype=np.float32):
    return nh.from_array(np.random.default_rng(seed).standard_normal(shape).astype(dtype), name)


def conv():
    return model([h.make_node("Conv", ["x", "w", "b"], ["y"], name="conv1", pads=[1, 0, 1, 2], strides=[1, 2])],
                 [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)], 13, [w("w", [4, 3, 3, 3]), w("b", [4], 1)])


def gemm():
    return model([h.make_node("Gemm", ["a", "b", "c"], ["y"], name="fc", transB=1, alpha=0.5, beta=2.0)],
                 [vi("a", F, [2, 4])], [vi("y", F, None)], 11, [w("b", [3, 4]), w("c", [3], 1)])


def gemm_plain():
    return model([h.make_node("Gemm", ["a", "b"], ["y"], name="fc")],
                 [vi("a", F, [2, 4]), vi("b", F, [4, 3])], [vi("y", F, None)], 9)


def softmax(opset):
    return lambda: model([h.make_node("Softmax", ["x"], ["y"], name="sm")],
                         [vi("x", F, [2, 3, 4])], [vi("y", F, None)], opset)


def reshape_chain():
    # PyTorch-style: the target shape computed from Shape / Gather / Concat.
    nodes = [
        h.make_node("Shape", ["x"], ["s"], name="shape"),
        h.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
        h.make_node("Unsqueeze", ["n", "ax0"], ["n1"], name="unsq"),
        h.make_node("Concat", ["n1", "minus1"], ["shp"], name="cat", axis=0),
        h.make_node("Reshape", ["x", "shp"], ["y"], name="reshape"),
    ]
    inits = [nh.from_array(np.array(0, np.int64), "zero"), nh.from_array(np.array([0], np.int64), "ax0"),
             nh.from_array(np.array([-1], np.int64), "minus1")]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, None)], 13, inits)


def dynamic():
    nodes = [h.make_node("MatMul", ["x", "w"], ["m"], name="mm"), h.make_node("Relu", ["m"], ["y"], name="relu")]
    return model(nodes, [vi("x", F, ["batch", 4])], [vi("y", F, None)], 13, [w("w", [4, 5])])


def typed_init():
    # Initializers in the typed fields (float_data, int64_data) rather than raw_data.
    c = h.make_tensor("c", F, [2], [1.5, -2.0])
    shp = h.make_tensor("shp", T.INT64, [2], [2, 1])
    nodes = [h.make_node("Add", ["x", "c"], ["a"], name="add"), h.make_node("Reshape", ["a", "shp"], ["y"], name="r")]
    return model(nodes, [vi("x", F, [2])], [vi("y", F, None)], 13, [c, shp])


def external(path):
    def make():
        m = model([h.make_node("Add", ["x", "big"], ["y"], name="add")], [vi("x", F, [4, 4])],
                  [vi("y", F, None)], 13, [nh.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), "big")])
        onnx.external_data_helper.convert_model_to_external_data(
            m, all_tensors_to_one_file=True, location=os.path.basename(path) + ".data", size_threshold=0)
        return m
    return make


def if_model():
    then_g = h.make_graph([h.make_node("Add", ["x", "one"], ["t"], name="then_add")], "then", [], [vi("t", F, [2])],
                          initializer=[nh.from_array(np.ones(2, np.float32), "one")])
    else_g = h.make_graph([h.make_node("Mul", ["x", "x"], ["e"], name="else_mul")], "else", [], [vi("e", F, [2])])
    nodes = [h.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)]
    return model(nodes, [vi("c", T.BOOL, []), vi("x", F, [2])], [vi("y", F, [2])], 13)


def loop_model():
    body = h.make_graph(
        [h.make_node("Add", ["v_in", "step"], ["v_out"], name="acc"),
         h.make_node("Identity", ["cond_in"], ["cond_out"], name="keep")],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", F, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", F, [2])])
    nodes = [h.make_node("Loop", ["m", "", "v0"], ["v"], name="loop", body=body)]
    return model(nodes, [vi("m", T.INT64, []), vi("v0", F, [2]), vi("step", F, [2])], [vi("v", F, [2])], 13)


def loop_scan():
    body = h.make_graph(
        [h.make_node("Identity", ["cond_in"], ["cond_out"]), h.make_node("Identity", ["v_in"], ["v_out"]),
         h.make_node("Identity", ["v_in"], ["scan"])],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", F, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", F, [2]), vi("scan", F, [2])])
    nodes = [h.make_node("Loop", ["m", "", "v0"], ["v", "s"], name="scanloop", body=body)]
    return model(nodes, [vi("m", T.INT64, []), vi("v0", F, [2])], [vi("v", F, [2]), vi("s", F, None)], 13)


def unsupported_op():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv1", kernel_shape=[3])],
                 [vi("x", F, [1, 1, 8])], [vi("y", F, None)], 13, [w("w", [1, 1, 3])])


def unknown_op():
    return model([h.make_node("Hardmax", ["x"], ["y"], name="hm")], [vi("x", F, [2, 3])], [vi("y", F, None)], 13)


def bad_dtype():
    return model([h.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", T.COMPLEX64, [2])], [vi("y", F, None)], 13)


def mlp():
    nodes = [
        h.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
        h.make_node("Relu", ["h"], ["hr"], name="relu1"),
        h.make_node("Gemm", ["hr", "w2", "b2"], ["z"], name="fc2", transB=1),
        h.make_node("Softmax", ["z"], ["y"], name="softmax", axis=1),
    ]
    inits = [w("w1", [16, 8]), w("b1", [16], 1), w("w2", [4, 16], 2), w("b2", [4], 3)]
    return model(nodes, [vi("x", F, [2, 8])], [vi("y", F, [2, 4])], 13, inits)


def cnn():
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["bn"], name="bn"),
        h.make_node("Relu", ["bn"], ["r"], name="relu"),
        h.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        h.make_node("Flatten", ["g"], ["y"], name="flatten"),
    ]
    inits = [w("w", [4, 3, 3, 3]), w("b", [4], 1), w("s", [4], 2), w("bb", [4], 3), w("m", [4], 4),
             nh.from_array(np.abs(np.random.default_rng(5).standard_normal(4)).astype(np.float32) + 0.5, "v")]
    return model(nodes, [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)], 13, inits)


def transformer_bits():
    nodes = [
        h.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], name="ln", axis=-1, epsilon=1e-5),
        h.make_node("MatMul", ["ln", "wq"], ["q"], name="q"),
        h.make_node("Transpose", ["q"], ["qt"], name="qt", perm=[0, 2, 1]),
        h.make_node("MatMul", ["q", "qt"], ["att"], name="att"),
        h.make_node("Softmax", ["att"], ["p"], name="softmax", axis=-1),
        h.make_node("MatMul", ["p", "q"], ["o"], name="o"),
        h.make_node("Gelu", ["o"], ["y"], name="gelu"),
    ]
    inits = [w("g", [8]), w("b", [8], 1), w("wq", [8, 8], 2)]
    return model(nodes, [vi("x", F, [2, 4, 8])], [vi("y", F, None)], 20, inits)


def misc():
    nodes = [
        h.make_node("Split", ["x", "sp"], ["s0", "s1"], name="split", axis=1),
        h.make_node("Concat", ["s1", "s0"], ["c"], name="concat", axis=1),
        h.make_node("ReduceMean", ["c", "ax"], ["rm"], name="rmean", keepdims=1),
        h.make_node("ReduceSum", ["c", "ax"], ["rs"], name="rsum", keepdims=0),
        h.make_node("Cast", ["rs"], ["ci"], name="cast", to=T.INT32),
        h.make_node("Unsqueeze", ["rs", "ax"], ["u"], name="unsq"),
        h.make_node("Squeeze", ["u", "ax"], ["sq"], name="sq"),
        h.make_node("Gather", ["x", "idx"], ["ga"], name="gather", axis=1),
        h.make_node("Constant", [], ["k"], name="k", value_float=2.0),
        h.make_node("Pow", ["sq", "k"], ["pw"], name="pow"),
        h.make_node("Sqrt", ["rm"], ["sr"], name="sqrt"),
        h.make_node("Where", ["cond", "x", "x2"], ["wh"], name="where"),
    ]
    inits = [nh.from_array(np.array([1, 2], np.int64), "sp"), nh.from_array(np.array([1], np.int64), "ax"),
             nh.from_array(np.array([0, 2], np.int64), "idx")]
    outs = [vi(n, None, None) for n in []]
    return model(nodes, [vi("x", F, [2, 3]), vi("x2", F, [2, 3]), vi("cond", T.BOOL, [2, 3])],
                 [vi("c", F, None), vi("rm", F, None), vi("ci", T.INT32, None), vi("ga", F, None),
                  vi("pw", F, None), vi("sr", F, None), vi("wh", F, None)], 18, inits)


def reduce_attr_opset11():
    return model([h.make_node("ReduceSum", ["x"], ["y"], name="rs", axes=[0], keepdims=0)],
                 [vi("x", F, [2, 3])], [vi("y", F, None)], 11)


def pools():
    nodes = [
        h.make_node("AveragePool", ["x"], ["a"], name="avg_same", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("MaxPool", ["x"], ["m"], name="max_pad", kernel_shape=[2, 2], pads=[1, 1, 0, 0]),
    ]
    return model(nodes, [vi("x", F, [1, 2, 5, 5])], [vi("a", F, None), vi("m", F, None)], 13)


def skipped_inputs():
    # Clip with its optional `min` skipped (an empty input name) but `max` given, and one
    # with `min` only (the trailing `max` left out).
    nodes = [
        h.make_node("Clip", ["x", "", "hi"], ["y"], name="clip_max"),
        h.make_node("Clip", ["y", "lo"], ["z"], name="clip_min"),
    ]
    inits = [nh.from_array(np.array(0.5, np.float32), "hi"), nh.from_array(np.array(-0.25, np.float32), "lo")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("z", F, None)], 13, inits)


def residual(shortcut):
    """A residual block: a = Relu(Conv(x)); main branch Relu(Conv(a)); the shortcut is a
    1x1 projection Conv of `a` (`conv`, every op on AI Core) or an Identity of `a`
    (`identity`, an RTS engine op, as a Dropout in inference becomes); their Add is y."""
    nodes = [
        h.make_node("Conv", ["x", "w0"], ["c0"], name="conv0", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c0"], ["a"], name="relu0"),
        h.make_node("Conv", ["a", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        h.make_node("Add", ["r1", "s"], ["y"], name="add"),
    ]
    inits = [w("w0", [4, 3, 3, 3]), w("w1", [4, 4, 3, 3], 1)]
    if shortcut == "conv":
        nodes.insert(4, h.make_node("Conv", ["a", "ws"], ["s"], name="shortcut"))
        inits.append(w("ws", [4, 4, 1, 1], 2))
    else:
        nodes.insert(4, h.make_node("Identity", ["a"], ["s"], name="shortcut"))
    return model(nodes, [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)], 13, inits)


def attention_residual(same_dims=False):
    """Attention's residual pattern: a = Relu(MatMul(x, w)); the branch reshapes `a` into
    heads (a GE-local Reshape), multiplies each head up and down again, reshapes back;
    y = branch + a. `same_dims`: one head product of the input's dims instead, which the
    in-place pass lets overwrite its input (the Reshape's memory is `a`'s, still read by
    the Add)."""
    products = [("wh", [4, 4])] if same_dims else [("wup", [4, 8]), ("wdown", [8, 4])]
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["m"], name="proj"),
        h.make_node("Relu", ["m"], ["a"], name="relu"),
        h.make_node("Reshape", ["a", "heads_shape"], ["r0"], name="to_heads"),
    ]
    for k, (wname, _) in enumerate(products):
        nodes.append(h.make_node("MatMul", [f"r{k}", wname], [f"r{k + 1}"], name=f"head_{wname}"))
    nodes += [
        h.make_node("Reshape", [f"r{len(products)}", "flat_shape"], ["f"], name="from_heads"),
        h.make_node("Add", ["f", "a"], ["y"], name="residual"),
    ]
    inits = [w("w", [8, 16]), nh.from_array(np.array([4, 4, 4], np.int64), "heads_shape"),
             nh.from_array(np.array([4, 16], np.int64), "flat_shape")]
    inits += [w(name, shape, k + 1) for k, (name, shape) in enumerate(products)]
    return model(nodes, [vi("x", F, [4, 8])], [vi("y", F, None)], 13, inits)


MODELS = {
    "relu": unary("Relu"),
    "relu_opset6": unary("Relu", 6),
    "sigmoid": unary("Sigmoid"), "tanh": unary("Tanh"), "exp": unary("Exp"), "log": unary("Log"),
    "sqrt": unary("Sqrt"), "identity": unary("Identity"), "leaky_relu": unary("LeakyRelu", alpha=0.2),
    "add": binary("Add"), "sub": binary("Sub"), "mul": binary("Mul"), "div": binary("Div"),
    "div_int": binary("Div", dtype=T.INT32, out=T.INT32), "less": binary("Less", out=T.BOOL),
    "conv": conv, "gemm": gemm, "gemm_plain": gemm_plain,
    "softmax11": softmax(11), "softmax13": softmax(13),
    "reshape_chain": reshape_chain, "dynamic": dynamic, "typed_init": typed_init,
    "if": if_model, "loop": loop_model, "loop_scan": loop_scan,
    "unsupported_op": unsupported_op, "unknown_op": unknown_op, "bad_dtype": bad_dtype,
    "mlp": mlp, "cnn": cnn, "transformer_bits": transformer_bits, "misc": misc,
    "reduce_attr_opset11": reduce_attr_opset11, "pools": pools, "skipped_inputs": skipped_inputs,
    "residual_conv": lambda: residual("conv"), "residual_identity": lambda: residual("identity"),
    "attention_residual": attention_residual,
    "attention_residual_same_dims": lambda: attention_residual(True),
}


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(MODELS))
        return
    out, name = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    make = external(out) if name == "external" else MODELS[name]
    m = make()
    if name == "external":
        onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out) + ".data", size_threshold=0)
    else:
        onnx.save(m, out)


if __name__ == "__main__":
    main()
