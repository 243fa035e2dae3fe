"""Writes .ge files whose tokens are each hundreds of thousands of characters long into the
directory given: the lexer must not spend a stack frame per character (it overflowed the
stack of a debug build)."""
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def data_attr(value):
    return "graph main {\n  x = Data() {index = 0, a = %s} : f32[4]\n  return x\n}\n" % value


files = {
    "string": data_attr('"' + "a" * 40000 + "\u00e9\\\"" * 20000 + '"'),
    "int": data_attr("0" * 400000),
    "float": data_attr("1." + "5" * 400000),
    "whitespace": "graph main {" + " " * 400000 + "\n}\n",
    "bom": "\ufeff" * 100000 + "graph main {\n}\n",
    "comment": "#" + "\u00e9" * 200000 + "\n" + "//c\n# d\n" * 100000 + "graph main {\n}\n",
    "ident": "graph g" + "a" * 400000 + " {\n}\ngraph main {\n}\n",
    "unterminated": data_attr('"' + "a" * 400000),
}
for name, text in files.items():
    (out / f"{name}.ge").write_text(text)
