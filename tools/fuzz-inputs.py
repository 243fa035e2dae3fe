#!/usr/bin/env python3
"""Seeded robustness check of ge-opt: bad input must give an error, never a crash.

Three mutators, all deterministic for a seed:
  attrs    a ge-gen graph with GE attributes injected or overwritten on random ops, with
           extreme or ill-typed values (huge and negative integers, "", lists, wrong kinds);
  lines    a lit test input of this repository with one line deleted, duplicated, swapped,
           cut short, or with its numbers, quotes or attributes damaged;
  classes  one input of a class that once crashed, hung or passed silently: long
           tokens, deep nesting of every bracket (also in `mlir"..."`), wrong attribute types
           on the attributes passes read, overflowing tensor sizes, compiled IR with damaged
           offsets, sizes, stream and event ids fed to --verify-mem-plan and --ge-compile,
           returned control tokens, partly allocated modules, malformed subgraph lists and
           Const values, overflowing pass options.
Each case runs through a random set of passes. A case fails when ge-opt exits with
anything but 0 or 1, prints a Rust panic, or exits 1 without an `error` line, or takes
longer than the timeout. Failing inputs are kept (--keep) for a reproducer.

Usage: fuzz-inputs.py --seed N --count N [--ge-opt PATH] [--ge-gen PATH] [--keep DIR]
"""

import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ATTRS = """_active_label_list _address_unrefreshable _alloc_fixed_addr_index
_attached_stream_info_list _batch_num _cannot_be_deleted _continuous_stream_label
_dynamic_shape_partitioned _enable_inner_parallel _event_multiplexing _force_attach_stream
_hccl_attached_task_num _hccl_task_num _inplace_support_input_index _input_memory_type
_input_mutable _is_unknown_shape _kernel_atomic _logic_stream_id _no_padding_continuous_input
_no_padding_continuous_output _no_task _node_sqe_num _output_memory_type _output_reuse_input
_parallel_group _rts_label_node _skip_rw_conflict _special_input_size _stream_label
_subgraph_end_node _user_stream_label active_stream_list atomic_input_index
atomic_output_index continuous_input continuous_output event_id fusion group input_offset
is_atomic_node is_loop_active notify_id output_offset reference reuse_input_index stream_id
subgraph_first_active ref_var_src_var_name _parent_node_index index name""".split()

VALUES = ["-1 : i64", "0 : i64", "1 : i64", "2 : i64", "7 : i64", "2147483647 : i64",
          "9223372036854775807 : i64", "-9223372036854775808 : i64", "true", "false", '""',
          '"x"', '"\\FF"', "[]", "[-1]", "[0, 1, 99]", "[9223372036854775807]", '["a", "b"]',
          "[[1]]", "1.5 : f32", "dense<[1, 2]> : tensor<2xi64>", "unit", "@main", '"false"',
          "3 : i64", "-2 : i64", "[-5]", "[9223372036854775296]"]

PASS_SETS = [
    ["--ge-compile"],
    ["--ge-compile=single-stream=true"],
    ["--stream-alloc=verify=true,max-task-normal=40"],
    ["--ge-memory-pipeline"],
    ["--inplace-support-check", "--mem-layout-conflict", "--mem-inplace", "--mem-assign",
     "--set-io-offset", "--verify-mem-plan"],
    ["--ge-mem-plan-pipeline=remarks=true", "--verify-mem-plan"],
    ["--verify-mem-plan"],
    ["--mem-symbols"],
    ["--emit=ge"],
]

FAMILIES = ["transformer", "resnet", "wide-dag", "control-flow"]


def inject_attrs(rng, text):
    lines = text.split("\n")
    ops = [k for k, line in enumerate(lines) if '"ascend.' in line and "{" in line]
    for _ in range(rng.randint(1, 4)):
        k = rng.choice(ops)
        name, value = rng.choice(ATTRS), rng.choice(VALUES)
        if f"{name} =" in lines[k]:
            lines[k] = re.sub(re.escape(name) + r" = [^,}]+", lambda _: f"{name} = {value}",
                              lines[k], count=1)
        else:
            lines[k] = lines[k].replace("{", "{" + f"{name} = {value}, ", 1)
    return "\n".join(lines)


def mutate_lines(rng, text):
    lines = [line for line in text.split("\n")
             if not line.lstrip().startswith(("//", "#"))]
    if not lines:
        return text
    k = rng.randrange(len(lines))
    kind = rng.choice(["delete", "duplicate", "swap", "truncate", "number", "quote", "attr"])
    if kind == "delete":
        del lines[k]
    elif kind == "duplicate":
        lines.insert(k, lines[k])
    elif kind == "swap":
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif kind == "truncate":
        whole = "\n".join(lines)
        return whole[:rng.randrange(len(whole) + 1)]
    elif kind == "number":
        lines[k] = re.sub(r"\b\d+\b",
                          lambda _: rng.choice(["-1", "0", "99999999999", "4294967296", "2"]),
                          lines[k])
    elif kind == "quote":
        lines[k] = lines[k].replace('"', "", 1)
    else:
        lines[k] = re.sub(r"\w+\s*=\s*[^,}]+,?", "", lines[k], count=1)
    return "\n".join(lines)


def ge_data(value):
    return "graph main {\n  x = Data() {index = 0, a = %s} : f32[4]\n  return x\n}\n" % value


def mlir_data(value):
    return ("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x", a = ' + value
            + "} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)\n"
            "  return %0#0 : tensor<4xf32>\n}\n")


BRACKETS = [("[", "]"), ("tuple<", ">"), ("{a = ", "}"), ("tuple<(", ") -> ()>")]
HUGE = ["1152921504606846976", "4611686018427387904", "9223372036854775807",
        "2305843009213693952", "99999999999"]
# Attributes of compiled IR that --verify-mem-plan and the later passes read back.
COMPILED = ["output_offset", "input_offset", "memory_size", "stream_id", "_logic_stream_id",
            "event_id", "reuse_input_index", "_input_mutable"]


def damage_compiled(rng, text):
    """Overwrites the values of attributes that --ge-compile wrote."""
    names = [n for n in COMPILED if f"{n} = " in text]
    for _ in range(rng.randint(1, 3)):
        if not names:
            break
        name, value = rng.choice(names), rng.choice(VALUES + [f"{h} : i64" for h in HUGE])
        matches = list(re.finditer(re.escape(name) + r" = (\[[^\]]*\]|[^,}]+)", text))
        m = rng.choice(matches)
        text = text[:m.start()] + f"{name} = {value}" + text[m.end():]
    return text


def class_case(rng, args, work):
    """One input of a class that once failed; returns (text, extension, passes, origin)."""
    kind = rng.choice(["long-token", "nesting", "sizes", "compiled", "shapes", "options"])
    n = rng.choice([1001, 5000, 20000])
    if kind == "long-token":
        size = rng.choice([50000, 400000])
        value = rng.choice(['"' + "a\u00e9\\\"" * (size // 4) + '"', "0" * size,
                            "1." + "5" * size, '"' + "a" * size])
        text = rng.choice([ge_data(value), "graph main {" + " " * size + "\n}\n",
                           "#" + "c" * size + "\n" + "# x\n" * (size // 8) + ge_data("1")])
        return text, ".ge", ["--ge-compile"], kind
    if kind == "nesting":
        o, c = rng.choice(BRACKETS)
        nested = o * n + c * n
        if rng.random() < 0.5:
            return mlir_data(nested), ".mlir", [], kind
        return ge_data('mlir"' + nested.replace('"', '\\"') + '"'), ".ge", [], kind
    if kind == "sizes":
        dim = rng.choice(HUGE)
        ops = "".join(f"  r{i} = Relu(x) : f32[{dim}]\n" for i in range(rng.randint(1, 4)))
        text = (f"graph main {{\n  x = Data() {{index = 0}} : f32[{dim}]\n{ops}"
                f"  return r0\n}}\n")
        return text, ".ge", rng.choice(PASS_SETS[:6]), kind
    if kind == "compiled":
        graph = os.path.join(work, "compiled-src.mlir")
        subprocess.run([args.ge_gen, "--family", rng.choice(FAMILIES), "--ops", "60",
                        "--seed", str(rng.randrange(10000)), "-o", graph], check=True)
        run = subprocess.run([args.ge_opt, graph, "--ge-compile"], capture_output=True,
                             text=True, errors="replace", timeout=args.timeout)
        if run.returncode != 0:
            return ge_data("1"), ".ge", [], kind
        passes = rng.choice([["--verify-mem-plan"], ["--ge-compile"], ["--emit=ge"]])
        return damage_compiled(rng, run.stdout), ".mlir", passes, kind
    if kind == "shapes":
        text = rng.choice([
            # A returned control token, a partly allocated module.
            mlir_data("1").replace("-> tensor<4xf32>", "-> !ascend.ctrl")
            .replace("return %0#0 : tensor<4xf32>", "return %0#1 : !ascend.ctrl"),
            mlir_data("1").replace('name = "x"', 'name = "x", _logic_stream_id = 0 : i64'),
            # Malformed subgraph lists and Const values.
            "graph main {\n  x = Data() {index = 0} : f32[4]\n  i = Data() {index = 1} : i32[]\n"
            f"  y = Case(i, x) {{branches = {rng.choice(['[[@t]]', '[]', '@t', '[1]'])}}} : f32[4]\n"
            "  return y\n}\ngraph t {\n  a = Data() {index = 0} : f32[4]\n  return a\n}\n",
            "graph main {\n  c = Const() {value = "
            + rng.choice(['dense<f32[2]>(1.0)', '"s"', "3", "dense<f32[0]>(1.0)"])
            + "} : f32[" + rng.choice(["0", "4", "1000"]) + "]\n  return c\n}\n",
        ])
        ext = ".mlir" if text.startswith("func") else ".ge"
        return text, ext, rng.choice(PASS_SETS), kind
    value = rng.choice(["9223372036854775807", "-9223372036854775808", "-1", "0"])
    option = rng.choice([f"--ascend-topo-order=start-id={value}",
                         f"--stream-alloc=max-task-normal={value}",
                         f"--stream-alloc=max-events={value}",
                         f"--ge-compile=max-stream-normal={value}",
                         f"--mem-symbols=min-anchors={value.lstrip('-')}"])
    return ge_data("1").replace("  return x", "  r = Relu(x) : f32[4]\n  return r"), ".ge", \
        [option], kind


def lit_inputs():
    found = []
    for ext in ("ge", "mlir"):
        found += glob.glob(os.path.join(ROOT, "test", "**", f"*.{ext}"), recursive=True)
    return sorted(f for f in found if os.sep + "Output" + os.sep not in f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--ge-opt", default="ge-opt")
    parser.add_argument("--ge-gen", default="ge-gen")
    parser.add_argument("--ops", type=int, default=300, help="size of generated graphs")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--keep", default=None, help="directory for failing inputs")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    inputs = lit_inputs()
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for case in range(args.count):
            passes = None
            pick = rng.random()
            if pick < 0.2:
                text, ext, passes, origin = class_case(rng, args, work)
            elif pick < 0.6:
                graph = os.path.join(work, "gen.mlir")
                subprocess.run([args.ge_gen, "--family", rng.choice(FAMILIES), "--ops",
                                str(args.ops), "--seed", str(rng.randrange(10000)), "-o",
                                graph], check=True)
                with open(graph, encoding="utf-8") as f:
                    text, ext, origin = inject_attrs(rng, f.read()), ".mlir", "attrs"
            else:
                source = rng.choice(inputs)
                with open(source, encoding="utf-8", errors="replace") as f:
                    text = mutate_lines(rng, f.read())
                ext, origin = os.path.splitext(source)[1], os.path.relpath(source, ROOT)
            path = os.path.join(work, f"case{ext}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            if passes is None:
                passes = rng.choice(PASS_SETS)
            try:
                run = subprocess.run([args.ge_opt, path, "-o", os.devnull] + passes,
                                     capture_output=True, text=True, errors="replace",
                                     timeout=args.timeout)
                bad = (run.returncode not in (0, 1) or "panicked" in run.stderr
                       or (run.returncode == 1 and "error" not in run.stderr))
                why = f"exit {run.returncode}: {run.stderr[-300:]}"
            except subprocess.TimeoutExpired:
                bad, why = True, f"timeout after {args.timeout}s"
            if bad:
                failures += 1
                kept = ""
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    kept = os.path.join(args.keep, f"fail-{args.seed}-{case}{ext}")
                    with open(kept, "w", encoding="utf-8") as f:
                        f.write(text)
                print(f"FAIL case {case} ({origin}) {' '.join(passes)} {kept}\n  {why}")
    print(f"{args.count} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
