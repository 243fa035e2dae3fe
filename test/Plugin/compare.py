#!/usr/bin/env python3
"""Runs the same inputs through ge-opt and through stock mlir-opt with the plugin.

For every pass and pipeline alias that `ge-opt --list-passes` lists (so a new pass is
covered without editing this script), on every input graph given, and for the extra
pipelines given with --pipeline, both tools must
  * exit with the same status,
  * print byte-identical output, and
  * report the same diagnostics (severity and message, in order).

Inputs are `.ge` files; ge-opt imports each (mlir-opt reads MLIR only). A pass whose
input must be compiled (lower-to-tasks) or lowered (verify-tasks) gets the inputs after
ge-compile / ge-compile-and-lower. Prints one line per comparison and a summary; exits 1
on the first kind of mismatch found (after reporting all).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# Passes that read a later stage of the compile than the imported graph.
STAGE = {"lower-to-tasks": "compiled", "verify-tasks": "lowered"}
DIAGNOSTIC = re.compile(r"(error|warning|remark|note): (.*)$")


def listed_passes(ge_opt):
    """(flag, option names) of every pass and alias ge-opt lists, in its order."""
    text = subprocess.run([ge_opt, "--list-passes"], check=True, capture_output=True,
                          text=True).stdout
    passes = []
    for line in text.splitlines():
        match = re.match(r"  --([a-z0-9-]+) ", line)
        if match:
            passes.append((match.group(1), []))
            continue
        match = re.match(r"    ([a-z0-9-]+)=<", line)
        if match and passes:
            passes[-1][1].append(match.group(1))
    return passes


def diagnostics(stderr):
    """(severity, message) of every diagnostic line, whatever the tool's layout."""
    found = []
    for line in stderr.splitlines():
        match = DIAGNOSTIC.search(line)
        if match:
            found.append((match.group(1), match.group(2).strip()))
    return found


def run(command):
    result = subprocess.run(command, capture_output=True)
    return result.returncode, result.stdout, result.stderr.decode(errors="replace")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--dialects", required=True, help="the dialects/ directory")
    parser.add_argument("--pipeline", action="append", default=[],
                        help="an extra pipeline body to compare on every input")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ge-plugin-compare-")
    # One IRDL file with both dialects: mlir-opt takes a single --irdl-file, and the
    # lowered model uses ascend_task and the execute graph ascend_rt.
    irdl = os.path.join(work, "ascend-all.irdl.mlir")
    with open(irdl, "w") as out:
        for name in ["ascend.irdl.mlir", "ascend_task.irdl.mlir", "ascend_rt.irdl.mlir"]:
            with open(os.path.join(args.dialects, name)) as source:
                out.write(source.read())
                out.write("\n")

    stages = {"imported": [], "compiled": [], "lowered": []}
    for path in args.inputs:
        base = os.path.splitext(os.path.basename(path))[0]
        for stage, flags in [("imported", []), ("compiled", ["--ge-compile"]),
                             ("lowered", ["--ge-compile-and-lower"])]:
            out = os.path.join(work, f"{base}.{stage}.mlir")
            status, _, _ = run(["ge-opt", *flags, path, "-o", out])
            # A graph the lowering refuses is no input for the passes after it.
            if status == 0:
                stages[stage].append(out)
    for stage, paths in stages.items():
        if not paths:
            print(f"error: no input reaches the {stage} stage")
            return 1

    cases = []
    for flag, options in listed_passes("ge-opt"):
        inputs = stages[STAGE.get(flag, "imported")]
        cases.append((flag, inputs))
        if "remarks" in options:
            cases.append((f"{flag}{{remarks=true}}", inputs))
    for body in args.pipeline:
        cases.append((body, stages["imported"]))

    mismatches = 0
    compared = 0
    for body, inputs in cases:
        pipeline = f"builtin.module({body})"
        for path in inputs:
            ours = run(["ge-opt", f"--pass-pipeline={pipeline}", path])
            theirs = run(["mlir-opt", f"--irdl-file={irdl}", f"--load-pass-plugin={args.plugin}",
                          f"--pass-pipeline={pipeline}", path])
            compared += 1
            problems = []
            if ours[0] != theirs[0]:
                problems.append(f"exit status {ours[0]} (ge-opt) vs {theirs[0]} (mlir-opt)")
            if ours[1] != theirs[1]:
                problems.append("output differs")
            if diagnostics(ours[2]) != diagnostics(theirs[2]):
                problems.append(f"diagnostics differ:\n--- ge-opt\n{ours[2]}--- mlir-opt\n"
                                f"{theirs[2]}")
            name = os.path.basename(path)
            if problems:
                mismatches += 1
                print(f"MISMATCH {pipeline} on {name}: " + "; ".join(problems))
            else:
                print(f"same {pipeline} on {name} (exit {ours[0]}, {len(ours[1])} bytes, "
                      f"{len(diagnostics(ours[2]))} diagnostics)")
    print(f"compared {compared} runs of {len(cases)} pipelines: {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
