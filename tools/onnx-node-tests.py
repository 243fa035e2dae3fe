"""Writes ONNX's node tests (built in memory by onnx 1.23's loader) to disk in the backend
test layout, `DIR/<case>/model.onnx` + `DIR/<case>/test_data_set_N/{input,output}_J.pb`,
so ge-translate / ge-opt / ge-run can read them.

    target/onnx-venv/bin/python tools/onnx-node-tests.py OUT_DIR [--filter SUBSTRING]
        [--ops-file FILE] [--slice K/N]

--ops-file keeps the cases whose op types are all in FILE (the first word of each line not
starting with `#`: `ge-translate --list-onnx-ops` output); --slice K/N then keeps every
N-th of those from the K-th (0-based), for a CI slice that stays the same run to run.

Input numbering follows the graph inputs that are not initializers, as ONNX's own data.
Each case's tolerances (ONNX's rtol/atol for it, 1e-3/1e-7 unless the case says otherwise)
go to `DIR/<case>/data.json`, where the shipped sets keep theirs.
"""
import argparse
import json
import os

import onnx
from onnx import numpy_helper
from onnx.backend.test.loader import load_node_model_tests


def write_case(case, out_dir):
    d = os.path.join(out_dir, case.name)
    os.makedirs(d, exist_ok=True)
    onnx.save(case.model, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "data.json"), "w") as f:
        json.dump({"rtol": case.rtol, "atol": case.atol}, f)
    inits = {i.name for i in case.model.graph.initializer}
    ins = [i.name for i in case.model.graph.input if i.name not in inits]
    outs = [o.name for o in case.model.graph.output]
    for n, (inputs, outputs) in enumerate(case.data_sets or []):
        sd = os.path.join(d, f"test_data_set_{n}")
        os.makedirs(sd, exist_ok=True)
        for kind, values, names in (("input", inputs, ins), ("output", outputs, outs)):
            for j, v in enumerate(values):
                name = names[j] if j < len(names) else f"{kind}_{j}"
                if isinstance(v, onnx.TensorProto):  # kept as such (bfloat16, float8, ...)
                    t = onnx.TensorProto()
                    t.CopyFrom(v)
                    t.name = name
                else:
                    try:
                        t = numpy_helper.from_array(v, name)
                    except Exception:  # sequences, maps, optionals: not TensorProto
                        continue
                with open(os.path.join(sd, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(t.SerializeToString())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--filter", default="")
    p.add_argument("--ops-file", default="")
    p.add_argument("--slice", default="")
    a = p.parse_args()
    cases = [c for c in load_node_model_tests() if a.filter in c.name and c.model is not None]
    cases.sort(key=lambda c: c.name)
    if a.ops_file:
        with open(a.ops_file) as f:
            ops = {l.split()[0] for l in f if l.strip() and not l.startswith("#")}
        cases = [c for c in cases if {n.op_type for n in c.model.graph.node} <= ops]
    if a.slice:
        k, n = (int(x) for x in a.slice.split("/"))
        cases = cases[k::n]
    for c in cases:
        write_case(c, a.out_dir)
    print(f"wrote {len(cases)} node test cases to {a.out_dir}")


if __name__ == "__main__":
    main()
