"""Writes real network shapes as users export them to ONNX (the node patterns of PyTorch's
exporter: Conv+BatchNormalization+Relu stems with residual Adds, depthwise convolutions
with Clip(0, 6), attention as MatMul/Reshape/Transpose/Softmax, LayerNorm decomposed into
ReduceMean/Sub/Pow/Sqrt/Div at opset 13 or one LayerNormalization at opset 17, GELU from
Erf or from Tanh), at small widths so that they run on the simulator in seconds. Weights
and inputs are seeded (numpy's default_rng), nothing is downloaded.

    python tools/onnx-networks.py OUT_DIR [--models resnet,mobilenet,bert,gpt2,vit]

writes OUT_DIR/<model>.onnx and its inputs OUT_DIR/<model>.input_<J>.pb (TensorProto,
named as the graph input) for `ge-run MODEL --input NAME=FILE`.

    python tools/onnx-networks.py OUT_DIR --compare MODEL GE_RUN_OUTPUT_DIR

compares what `ge-run --output-dir` wrote with onnx's own ReferenceEvaluator on the same
inputs (rtol 1e-3, atol 1e-5: the float sums run in another order), exit 1 on a mismatch.
`ge-run --check` proves the simulator bit-identical to our reference interpreter; this
proves both compute what ONNX means.
"""
import argparse
import glob
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


class Builder:
    """A graph under construction: fresh value names, seeded initializers."""

    def __init__(self, name, seed):
        self.name, self.rng = name, np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def fresh(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def weight(self, shape, scale=None, hint="w"):
        scale = scale if scale is not None else 1.0 / np.sqrt(max(1, np.prod(shape[1:]) if len(shape) > 1 else shape[0]))
        name = self.fresh(hint)
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(nh.from_array(value, name))
        return name

    def const(self, value, hint="c"):
        name = self.fresh(hint)
        self.inits.append(nh.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        outs = [self.fresh(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(h.make_node(op_type, inputs, outs, name=self.fresh(op_type), **attrs))
        return outs[0] if outputs == 1 else outs

    def model(self, inputs, outputs, opset):
        graph = h.make_graph(self.nodes, self.name, inputs, outputs, initializer=self.inits)
        m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)],
                         producer_name="ge-mlir tools/onnx-networks.py")
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=True)
        return m

    # -- CNN pieces --------------------------------------------------------------------
    def conv_bn(self, x, cin, cout, k, stride=1, group=1, act="relu"):
        w = self.weight([cout, cin // group, k, k], hint="conv_w")
        y = self.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
                    pads=[k // 2] * 4, group=group)
        scale = self.const((1 + 0.1 * self.rng.standard_normal(cout)).astype(np.float32), "bn_scale")
        bias = self.const((0.1 * self.rng.standard_normal(cout)).astype(np.float32), "bn_bias")
        mean = self.const((0.1 * self.rng.standard_normal(cout)).astype(np.float32), "bn_mean")
        var = self.const((1 + 0.1 * self.rng.random(cout)).astype(np.float32), "bn_var")
        y = self.op("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
        if act == "relu":
            y = self.op("Relu", [y])
        elif act == "relu6":
            y = self.op("Clip", [y, self.const(np.float32(0)), self.const(np.float32(6))])
        return y

    def classifier(self, x, channels, classes):
        y = self.op("GlobalAveragePool", [x])
        y = self.op("Flatten", [y], axis=1)
        return self.op("Gemm", [y, self.weight([classes, channels], hint="fc_w"),
                                self.weight([classes], 0.1, "fc_b")], transB=1)

    # -- transformer pieces ------------------------------------------------------------
    def linear(self, x, din, dout):
        y = self.op("MatMul", [x, self.weight([din, dout], hint="lin_w")])
        return self.op("Add", [y, self.weight([dout], 0.1, "lin_b")])

    def layer_norm(self, x, d, fused):
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(d)).astype(np.float32), "ln_g")
        beta = self.const((0.1 * self.rng.standard_normal(d)).astype(np.float32), "ln_b")
        if fused:
            return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)
        mean = self.op("ReduceMean", [x], axes=[-1])
        c = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Pow", [c, self.const(np.float32(2))])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.const(np.float32(1e-5))])])
        return self.op("Add", [self.op("Mul", [self.op("Div", [c, std]), gamma]), beta])

    def gelu(self, x, kind):
        if kind == "op":  # opset 20's Gelu
            return self.op("Gelu", [x])
        if kind == "erf":  # x * 0.5 * (1 + erf(x / sqrt 2)), PyTorch's export
            e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(np.sqrt(2)))])])
            return self.op("Mul", [self.op("Mul", [x, self.op("Add", [e, self.const(np.float32(1))])]),
                                   self.const(np.float32(0.5))])
        # tanh approximation, GPT-2's
        x3 = self.op("Pow", [x, self.const(np.float32(3))])
        inner = self.op("Add", [x, self.op("Mul", [x3, self.const(np.float32(0.044715))])])
        t = self.op("Tanh", [self.op("Mul", [inner, self.const(np.float32(np.sqrt(2 / np.pi)))])])
        half = self.op("Mul", [x, self.const(np.float32(0.5))])
        return self.op("Mul", [half, self.op("Add", [t, self.const(np.float32(1))])])

    def attention(self, x, b, s, d, heads, mask=None, fused_qkv=False):
        hd = d // heads
        shape = self.const(np.array([b, s, heads, hd], np.int64), "heads_shape")
        if fused_qkv:  # GPT-2: one c_attn projection, Split into q, k, v
            qkv = self.linear(x, d, 3 * d)
            q, k, v = self.op("Split", [qkv, self.const(np.array([d, d, d], np.int64))], 3, axis=-1)
        else:
            q, k, v = (self.linear(x, d, d) for _ in range(3))
        q, k, v = (self.op("Reshape", [t, shape]) for t in (q, k, v))
        q = self.op("Transpose", [q], perm=[0, 2, 1, 3])
        kt = self.op("Transpose", [k], perm=[0, 2, 3, 1])
        v = self.op("Transpose", [v], perm=[0, 2, 1, 3])
        scores = self.op("Div", [self.op("MatMul", [q, kt]), self.const(np.float32(np.sqrt(hd)))])
        if mask is not None:
            scores = self.op("Add", [scores, mask])
        probs = self.op("Softmax", [scores], axis=-1)
        ctx = self.op("Transpose", [self.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = self.op("Reshape", [ctx, self.const(np.array([b, s, d], np.int64), "ctx_shape")])
        return self.linear(ctx, d, d)


def resnet():
    """ResNet-18's shape: stem, basic blocks with identity and 1x1 strided shortcuts. Opset
    17, as current exports: onnx's ReferenceEvaluator runs BatchNormalization-9..14 in
    training mode (batch statistics), which the compare step must not meet."""
    b = Builder("resnet", 1)
    x = b.conv_bn("image", 3, 8, 3)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 8
    for cout, stride in ((8, 1), (16, 2), (16, 1)):
        y = b.conv_bn(x, cin, cout, 3, stride)
        y = b.conv_bn(y, cout, cout, 3, 1, act=None)
        short = x if (stride, cin) == (1, cout) else b.conv_bn(x, cin, cout, 1, stride, act=None)
        x = b.op("Relu", [b.op("Add", [y, short])])
        cin = cout
    logits = b.classifier(x, cin, 10)
    inputs = {"image": b.rng.standard_normal((2, 3, 16, 16)).astype(np.float32)}
    return b.model([h.make_tensor_value_info("image", T.FLOAT, [2, 3, 16, 16])],
                   [h.make_tensor_value_info(logits, T.FLOAT, [2, 10])], 17), inputs


def mobilenet():
    """MobileNetV2's shape: inverted residuals (1x1 expand, 3x3 depthwise, 1x1 project)."""
    b = Builder("mobilenet", 2)
    x = b.conv_bn("image", 3, 8, 3, 2, act="relu6")
    cin = 8
    for cout, stride, expand in ((8, 1, 2), (12, 2, 3), (12, 1, 3)):
        mid = cin * expand
        y = b.conv_bn(x, cin, mid, 1, act="relu6")
        y = b.conv_bn(y, mid, mid, 3, stride, group=mid, act="relu6")
        y = b.conv_bn(y, mid, cout, 1, act=None)
        x = b.op("Add", [x, y]) if (stride, cin) == (1, cout) else y
        cin = cout
    logits = b.classifier(x, cin, 10)
    inputs = {"image": b.rng.standard_normal((1, 3, 16, 16)).astype(np.float32)}
    return b.model([h.make_tensor_value_info("image", T.FLOAT, [1, 3, 16, 16])],
                   [h.make_tensor_value_info(logits, T.FLOAT, [1, 10])], 17), inputs


def bert(batch=2, seq=8, d=16, heads=2, layers=2, vocab=32):
    """BERT-base's shape at width 16: token + position embeddings, post-LN encoder layers,
    attention mask from the input mask ((1 - m) * -10000), Erf GELU, opset 13 LayerNorm."""
    b = Builder("bert", 3)
    tok = b.op("Gather", [b.weight([vocab, d], 1.0, "tok_emb"), "input_ids"], axis=0)
    pos = b.weight([seq, d], 1.0, "pos_emb")
    x = b.layer_norm(b.op("Add", [tok, pos]), d, fused=False)
    m = b.op("Cast", ["attention_mask"], to=T.FLOAT)
    m = b.op("Unsqueeze", [m, b.const(np.array([1, 2], np.int64))])
    mask = b.op("Mul", [b.op("Sub", [b.const(np.float32(1)), m]), b.const(np.float32(-10000))])
    for _ in range(layers):
        x = b.layer_norm(b.op("Add", [x, b.attention(x, batch, seq, d, heads, mask)]), d, False)
        f = b.linear(b.gelu(b.linear(x, d, 4 * d), "erf"), 4 * d, d)
        x = b.layer_norm(b.op("Add", [x, f]), d, False)
    pooled = b.op("Tanh", [b.linear(b.op("Gather", [x, b.const(np.int64(0))], axis=1), d, d)])
    rng = b.rng
    ids = rng.integers(0, vocab, (batch, seq)).astype(np.int64)
    att = np.ones((batch, seq), np.int64)
    att[1, seq - 3:] = 0  # padding in the second sequence
    return b.model([h.make_tensor_value_info("input_ids", T.INT64, [batch, seq]),
                    h.make_tensor_value_info("attention_mask", T.INT64, [batch, seq])],
                   [h.make_tensor_value_info(x, T.FLOAT, [batch, seq, d]),
                    h.make_tensor_value_info(pooled, T.FLOAT, [batch, d])], 13), \
        {"input_ids": ids, "attention_mask": att}


def gpt2(batch=1, seq=8, d=16, heads=2, layers=2, vocab=32):
    """GPT-2's shape: pre-LN blocks, fused QKV Split, causal mask, tanh GELU, the logits
    through the transposed token embedding (tied weights)."""
    b = Builder("gpt2", 4)
    wte = b.weight([vocab, d], 1.0, "wte")
    x = b.op("Add", [b.op("Gather", [wte, "input_ids"], axis=0), b.weight([seq, d], 1.0, "wpe")])
    causal = np.triu(np.full((seq, seq), -1e4, np.float32), 1)
    mask = b.const(causal, "causal_mask")
    for _ in range(layers):
        x = b.op("Add", [x, b.attention(b.layer_norm(x, d, False), batch, seq, d, heads, mask, True)])
        f = b.linear(b.gelu(b.linear(b.layer_norm(x, d, False), d, 4 * d), "tanh"), 4 * d, d)
        x = b.op("Add", [x, f])
    x = b.layer_norm(x, d, False)
    logits = b.op("MatMul", [x, b.op("Transpose", [wte], perm=[1, 0])])
    ids = b.rng.integers(0, vocab, (batch, seq)).astype(np.int64)
    return b.model([h.make_tensor_value_info("input_ids", T.INT64, [batch, seq])],
                   [h.make_tensor_value_info(logits, T.FLOAT, [batch, seq, vocab])], 13), \
        {"input_ids": ids}


def vit(batch=2, image=16, patch=4, d=16, heads=2, layers=2, classes=10):
    """ViT-B/16's shape: patch embedding by a strided Conv, class token Concat, position
    embeddings, pre-LN blocks with LayerNormalization and Gelu ops (opset 20), head on the
    class token."""
    b = Builder("vit", 5)
    n = (image // patch) ** 2
    p = b.op("Conv", ["pixel_values", b.weight([d, 3, patch, patch], hint="patch_w"),
                      b.weight([d], 0.1, "patch_b")], kernel_shape=[patch, patch], strides=[patch, patch])
    p = b.op("Transpose", [b.op("Reshape", [p, b.const(np.array([batch, d, n], np.int64))])], perm=[0, 2, 1])
    cls = b.op("Expand", [b.weight([1, 1, d], 1.0, "cls"), b.const(np.array([batch, 1, d], np.int64))])
    x = b.op("Add", [b.op("Concat", [cls, p], axis=1), b.weight([1, n + 1, d], 1.0, "pos")])
    for _ in range(layers):
        x = b.op("Add", [x, b.attention(b.layer_norm(x, d, True), batch, n + 1, d, heads)])
        f = b.linear(b.gelu(b.linear(b.layer_norm(x, d, True), d, 4 * d), "op"), 4 * d, d)
        x = b.op("Add", [x, f])
    x = b.layer_norm(x, d, True)
    cls_out = b.op("Squeeze", [b.op("Slice", [x, b.const(np.array([0], np.int64)),
                                              b.const(np.array([1], np.int64)),
                                              b.const(np.array([1], np.int64))]),
                               b.const(np.array([1], np.int64))])
    logits = b.op("Gemm", [cls_out, b.weight([d, classes], hint="head_w"), b.weight([classes], 0.1, "head_b")])
    pixels = b.rng.standard_normal((batch, 3, image, image)).astype(np.float32)
    return b.model([h.make_tensor_value_info("pixel_values", T.FLOAT, [batch, 3, image, image])],
                   [h.make_tensor_value_info(logits, T.FLOAT, [batch, classes])], 20), \
        {"pixel_values": pixels}


MODELS = {"resnet": resnet, "mobilenet": mobilenet, "bert": bert, "gpt2": gpt2, "vit": vit}


def compare(out_dir, name, run_dir):
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(os.path.join(out_dir, f"{name}.onnx"))
    feeds = {}
    for path in sorted(glob.glob(os.path.join(out_dir, f"{name}.input_*.pb"))):
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        feeds[t.name] = nh.to_array(t)
    expected = ReferenceEvaluator(model).run(None, feeds)
    status = 0
    for j, want in enumerate(expected):
        # one file per schedule when ge-run ran several
        files = sorted(glob.glob(os.path.join(run_dir, f"output{j}_*.npy")))
        if not files:
            print(f"{name}: output {j}: no file in {run_dir}")
            status = 1
        for path in files:
            got = np.load(path)
            try:
                np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
                print(f"{name}: {os.path.basename(path)} {list(got.shape)} matches onnx's "
                      f"ReferenceEvaluator (max abs diff {float(np.max(np.abs(got - want))):.2e})")
            except AssertionError as e:
                print(f"{name}: {os.path.basename(path)} differs from onnx's ReferenceEvaluator: "
                      f"{' '.join(str(e).split())[:400]}")
                status = 1
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--compare", nargs=2, metavar=("MODEL", "GE_RUN_OUTPUT_DIR"))
    a = p.parse_args()
    if a.compare:
        sys.exit(compare(a.out_dir, *a.compare))
    os.makedirs(a.out_dir, exist_ok=True)
    for name in a.models.split(","):
        if name not in MODELS:
            p.error(f"unknown model `{name}` ({', '.join(MODELS)})")
        model, inputs = MODELS[name]()
        onnx.save(model, os.path.join(a.out_dir, f"{name}.onnx"))
        for j, (input_name, value) in enumerate(inputs.items()):
            with open(os.path.join(a.out_dir, f"{name}.input_{j}.pb"), "wb") as f:
                f.write(nh.from_array(value, input_name).SerializeToString())
        print(f"{name}: {len(model.graph.node)} nodes")


if __name__ == "__main__":
    main()
