"""Writes inputs nested 20000 levels deep into the directory given, one per bracket kind,
in `.mlir` and inside `.ge`'s `mlir"..."` escapes (MLIR's parser recurses once per level and
overflowed the stack), plus the deepest accepted nesting (1000 levels)."""
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
N = 20000


def ge(value):
    return "graph main {\n  x = Data() {index = 0, a = %s} : f32[4]\n  return x\n}\n" % value


def mlir(value):
    return ("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x", a = ' + value
            + "} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)\n"
            "  return %0#0 : tensor<4xf32>\n}\n")


def nested(open_, close, n=N):
    return open_ * n + close * n


kinds = {
    "square": ("[", "]"),
    "angle": ("tuple<", ">"),
    "brace": ("{a = ", "}"),
    "paren": ("tuple<(", ") -> ()>"),
}
for name, (o, c) in kinds.items():
    (out / f"mlir-{name}.mlir").write_text(mlir(nested(o, c)))
    (out / f"ge-{name}.ge").write_text(ge('mlir"' + nested(o, c).replace('"', '\\"') + '"'))
(out / "ge-type.ge").write_text(
    "graph main {\n  x = Data() {index = 0} : mlir\"" + nested("tuple<", ">") + "\"\n  return x\n}\n")
(out / "ok-angle.mlir").write_text(mlir(nested("tuple<", ">", 997).replace("tuple<>", "tuple<i32>")))
