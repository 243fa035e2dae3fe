#!/usr/bin/env python3
"""Prints a .ge graph of N nested PartitionedCalls (../shared/repro F2b's shape); with
--relu, each level applies a Relu before its call, so a run computes something."""
import sys

depth = int(sys.argv[1])
relu = "--relu" in sys.argv[2:]
parts = []
for i in range(depth):
    name = "main" if i == 0 else f"g{i}"
    lines = ["  a = Data() {index = 0} : f32[4]"]
    arg = "a"
    if relu:
        lines.append("  r = Relu(a) : f32[4]")
        arg = "r"
    if i < depth - 1:
        lines.append(f"  b = PartitionedCall({arg}) {{f = @g{i + 1}}} : f32[4]")
        lines.append("  return b")
    else:
        lines.append(f"  c = Relu({arg}) : f32[4]")
        lines.append("  return c")
    parts.append(f"graph {name} {{\n" + "\n".join(lines) + "\n}\n")
sys.stdout.write("".join(parts))
