"""Validation against the ONNX backend test suite: every test model is imported
(ge-translate --import-onnx), compiled, lowered and run on the simulator with its test
inputs (ge-run MODEL --input NAME=input_J.pb ... --output-dir D), and its outputs are
compared with the test's expected outputs the way onnx's own backend runner compares
them (shape, dtype, then np.testing.assert_allclose with the case's rtol/atol, 1e-3 /
1e-7 unless its data.json says otherwise).

Each case ends in one of three classes, counted per set:
  pass         every data set's outputs match
  fail         a claimed case that does not import cleanly, does not compile or run, or
               whose outputs differ: a bug (ours) to fix
  unsupported  the case uses an op ge-translate does not claim (--list-onnx-ops), or
               sequence / optional values, or ge-translate rejects it with a located error
               (an attribute combination it does not support); the reason is listed

    python tools/onnx-suite.py [--sets node,simple,...] [--node-dir DIR] [--filter S]
                               [--slice K/N] [--jobs J] [--check] [--report FILE]

Exit status 1 when any case fails. The sets: `node` (written by tools/onnx-node-tests.py
into --node-dir), and the ones the onnx package ships on disk: `simple`,
`pytorch-converted`, `pytorch-operator`, `light` (its input is the runner's dummy data:
arange / n, as onnx's runner makes it).
"""
import argparse
import concurrent.futures as futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper
import onnx.backend.test

SHIPPED = ["simple", "pytorch-converted", "pytorch-operator", "light"]
DATA_DIR = os.path.join(os.path.dirname(onnx.backend.test.__file__), "data")


class Case:
    def __init__(self, set_name, name, model, data_sets, rtol, atol):
        self.set_name, self.name, self.model = set_name, name, model
        self.data_sets = data_sets  # [(inputs: [path], outputs: [path])]
        self.rtol, self.atol = rtol, atol


def tolerances(case_dir):
    rtol, atol = 1e-3, 1e-7
    path = os.path.join(case_dir, "data.json")
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        rtol, atol = data.get("rtol", rtol), data.get("atol", atol)
    return rtol, atol


def dir_cases(set_name, root):
    cases = []
    for model in sorted(glob.glob(os.path.join(root, "*", "model.onnx"))):
        case_dir = os.path.dirname(model)
        data_sets = []
        for d in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
            count = lambda kind: len(glob.glob(os.path.join(d, f"{kind}_*.pb")))
            ins = [os.path.join(d, f"input_{j}.pb") for j in range(count("input"))]
            outs = [os.path.join(d, f"output_{j}.pb") for j in range(count("output"))]
            data_sets.append((ins, outs))
        rtol, atol = tolerances(case_dir)
        cases.append(Case(set_name, os.path.basename(case_dir), model, data_sets, rtol, atol))
    return cases


def light_cases(work):
    """The `light` models ship their expected output only; the input is what onnx's
    runner feeds them (its generate_dummy_data, non-random), written here once."""
    from onnx.backend.test.runner import Runner

    cases = []
    for model in sorted(glob.glob(os.path.join(DATA_DIR, "light", "*.onnx"))):
        name = os.path.splitext(os.path.basename(model))[0]
        graph = onnx.load(model, load_external_data=False).graph
        inits = {i.name for i in graph.initializer}
        d = os.path.join(work, "light-inputs", name)
        os.makedirs(d, exist_ok=True)
        ins = []
        for x in (x for x in graph.input if x.name not in inits):
            path = os.path.join(d, f"input_{len(ins)}.pb")
            if not os.path.exists(path):
                value = Runner.generate_dummy_data(x, seed=0, name=name, random=False)
                with open(path, "wb") as f:
                    f.write(numpy_helper.from_array(value, x.name).SerializeToString())
            ins.append(path)
        prefix = os.path.splitext(model)[0]
        outs = [f"{prefix}_output_{i}.pb" for i in range(len(graph.output))]
        if not all(os.path.exists(o) for o in outs):
            continue
        cases.append(Case("light", name, model, [(ins, outs)], 1e-3, 1e-7))
    return cases


def all_op_types(graph):
    ops = set()
    for node in graph.node:
        ops.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}")
        for attr in node.attribute:
            for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                ops |= all_op_types(g)
    return ops


def non_tensor_values(graph):
    return [
        v.name
        for v in list(graph.input) + list(graph.output)
        if v.type.WhichOneof("value") not in ("tensor_type", None)
    ]


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def first_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[0] if lines else "(no message)"


def dynamic_value(args, model):
    """The first GE value of the imported graph whose shape is not static, or None."""
    text = subprocess.run(
        [os.path.join(args.bin, "ge-translate"), "--import-onnx", model, "--emit", "ge"],
        capture_output=True, text=True,
    ).stdout
    for line in text.splitlines():
        m = re.match(r'\s*("[^"]*"|\S+) = .* : \((.*)\)$', line)
        if m and re.search(r"\[[^\]]*[?*][^\]]*\]", m.group(2)):
            return f"{m.group(1)} : {m.group(2)}"
    return None


def run_case(case, claimed, args, work):
    """(class, reason, seconds)"""
    start = time.monotonic()
    result = lambda cls, why="": (cls, why, time.monotonic() - start)
    model = onnx.load(case.model, load_external_data=False)
    missing = sorted(all_op_types(model.graph) - claimed)
    if missing:
        return result("unsupported", "ops not mapped: " + ", ".join(missing))
    non_tensors = non_tensor_values(model.graph)
    if non_tensors:
        return result("unsupported", "non-tensor values: " + ", ".join(non_tensors))
    if not case.data_sets:
        return result("unsupported", "no test data set")
    for ins, outs in case.data_sets:
        if not outs:
            return result("unsupported", "an expected output is not a tensor")
    tmp = tempfile.mkdtemp(prefix=f"{case.name}.", dir=work)
    try:
        mlir = os.path.join(tmp, "model.mlir")
        translate = subprocess.run(
            [os.path.join(args.bin, "ge-translate"), "--import-onnx", case.model, "-o", mlir],
            capture_output=True, text=True,
        )
        if translate.returncode != 0:
            message = first_line(translate.stderr)
            # A located rejection (node, op type, opset) is the importer saying "not this
            # combination"; anything else (a crash, an unlocated error) is a bug.
            if translate.returncode == 1 and "ge-translate: error:" in message and (
                "node" in message or "opset" in message
            ):
                return result("unsupported", "rejected at import: " + message)
            return result("fail", f"import (exit {translate.returncode}): {message}")
        for k, (ins, outs) in enumerate(case.data_sets):
            out_dir = os.path.join(tmp, f"out{k}")
            cmd = [os.path.join(args.bin, "ge-run"), case.model, "--output-dir", out_dir]
            for j, path in enumerate(ins):
                name, _ = read_pb(path)
                cmd += ["--input", f"{name or j}={path}"]
            if args.check:
                cmd += ["--check"]
            try:
                run = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                return result("fail", f"run: timeout after {args.timeout} s (data set {k})")
            if run.returncode != 0:
                dynamic = dynamic_value(args, case.model)
                if dynamic and run.returncode == 1:
                    # GE runs such a graph as a dynamic-shape one; the static lowering
                    # refuses it with a located error (no wrong output).
                    return result("unsupported", f"dynamic shape ({dynamic}): "
                                  + first_line(run.stderr))
                return result("fail", f"run (exit {run.returncode}, data set {k}): "
                              + first_line(run.stderr))
            produced = {}
            for f in os.listdir(out_dir) if os.path.isdir(out_dir) else []:
                if f.startswith("output") and f.endswith(".npy"):
                    produced[int(f[len("output"):].split("_", 1)[0])] = os.path.join(out_dir, f)
            for j, path in enumerate(outs):
                name, expected = read_pb(path)
                if j not in produced:
                    return result("fail", f"data set {k}: no output {j} ({name})")
                actual = np.load(produced[j])
                if actual.dtype == np.uint16 and expected.dtype.itemsize == 2 \
                        and expected.dtype.kind not in "iu":
                    # ge-run writes halves (f16, bf16) as their `<u2` bit patterns.
                    actual = actual.view(expected.dtype)
                try:
                    np.testing.assert_array_equal(actual.shape, expected.shape,
                                                  err_msg=f"output {j} has incorrect shape")
                    np.testing.assert_equal(actual.dtype, expected.dtype)
                    np.testing.assert_allclose(actual, expected, rtol=case.rtol, atol=case.atol)
                except AssertionError as e:
                    detail = " ".join(str(e).split())[:300]
                    return result("fail", f"data set {k}, output {j} ({name}): {detail}")
        return result("pass")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default="node," + ",".join(SHIPPED))
    p.add_argument("--node-dir", default="target/onnx-node")
    p.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug"))
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--slice", default="", help="K/N: every N-th case from the K-th (0-based)")
    p.add_argument("--claimed-only", action="store_true",
                   help="skip (do not count) cases that use an op not claimed")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=600, help="seconds per ge-run")
    p.add_argument("--check", action="store_true",
                   help="also ge-run --check (reference interpreter, race detector)")
    p.add_argument("--report", default="", help="write every case's class and reason here")
    p.add_argument("--keep", action="store_true", help="keep the work files")
    p.add_argument("--work", default="", help="work directory (default: a temporary one)")
    args = p.parse_args()

    listing = subprocess.run([os.path.join(args.bin, "ge-translate"), "--list-onnx-ops"],
                             capture_output=True, text=True, check=True).stdout
    claimed = {l.split()[0] for l in listing.splitlines() if l.strip() and not l.startswith("#")}
    work = args.work or tempfile.mkdtemp(prefix="onnx-suite.")
    os.makedirs(work, exist_ok=True)

    cases = []
    for set_name in [s for s in args.sets.split(",") if s]:
        if set_name == "node":
            cases += dir_cases("node", args.node_dir)
        elif set_name == "light":
            cases += light_cases(work)
        elif set_name in SHIPPED:
            cases += dir_cases(set_name, os.path.join(DATA_DIR, set_name))
        else:
            p.error(f"unknown set `{set_name}` (node, {', '.join(SHIPPED)})")
    cases = [c for c in cases if args.filter in c.name]
    if args.claimed_only:
        cases = [c for c in cases
                 if all_op_types(onnx.load(c.model, load_external_data=False).graph) <= claimed]
    if args.slice:
        k, n = (int(x) for x in args.slice.split("/"))
        cases = cases[k::n]

    results = {}
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = {pool.submit(run_case, c, claimed, args, work): c for c in cases}
        for job in futures.as_completed(jobs):
            c = jobs[job]
            try:
                results[(c.set_name, c.name)] = job.result()
            except Exception as e:  # a broken test file: report it, keep going
                results[(c.set_name, c.name)] = ("fail", f"driver: {e!r}", 0.0)
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)

    lines = []
    for c in cases:
        cls, why, secs = results[(c.set_name, c.name)]
        lines.append(f"{c.set_name:18} {c.name:60} {cls:11} {secs:6.1f}s {why}")
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines) + "\n")
    for line in lines:
        if " fail " in line:
            print(line)
    print(f"{'set':18} {'pass':>5} {'fail':>5} {'unsupported':>11} {'total':>5}")
    any_fail = False
    for set_name in dict.fromkeys(c.set_name for c in cases):
        counts = {"pass": 0, "fail": 0, "unsupported": 0}
        for c in cases:
            if c.set_name == set_name:
                counts[results[(c.set_name, c.name)][0]] += 1
        any_fail |= counts["fail"] > 0
        print(f"{set_name:18} {counts['pass']:5} {counts['fail']:5} {counts['unsupported']:11} "
              f"{sum(counts.values()):5}")
    sys.exit(1 if any_fail else 0)


if __name__ == "__main__":
    main()
